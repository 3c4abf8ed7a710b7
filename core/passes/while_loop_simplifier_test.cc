#include "core/passes/while_loop_simplifier.h"

#include "core/passes/dce.h"
#include "core/passes/pass_test_util.h"
#include "core/passes/pipeline.h"
#include "core/passes/tuple_simplifier.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

// The loop pass followed by DCE, so the old computations disappear from
// the expected text.
std::unique_ptr<Pipeline> LoopThenDce(bool with_tuple_simplifier = false) {
  PipelineConfig config;
  config.verify = true;
  auto p = std::make_unique<Pipeline>("test", config);
  p->AddPass<WhileLoopSimplifier>();
  if (with_tuple_simplifier) p->AddPass<TupleSimplifier>();
  p->AddPass<DeadCodeElimination>();
  return p;
}

// A counted loop over (i, v): i + 1, v + v, while i < LIMIT.
std::string CountedLoop(int limit) {
  return absl::StrCat(R"(
    HloModule m

    %cond (s: (s32[], f32[2])) -> pred[] {
      %s = (s32[], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %n = s32[] constant()",
                      limit, R"()
      ROOT %lt = pred[] compare(%i, %n), direction=LT
    }

    %body (s: (s32[], f32[2])) -> (s32[], f32[2]) {
      %s = (s32[], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %x = f32[2] get-tuple-element(%s), index=1
      %y = f32[2] add(%x, %x)
      ROOT %out = (s32[], f32[2]) tuple(%next, %y)
    }

    ENTRY %main (v: f32[2]) -> f32[2] {
      %v = f32[2] parameter(0)
      %zero = s32[] constant(0)
      %init = (s32[], f32[2]) tuple(%zero, %v)
      %w = (s32[], f32[2]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[2] get-tuple-element(%w), index=1
    }
  )");
}

TEST(WhileLoopSimplifierTest, ZeroTripsBecomeTheInitialValue) {
  auto p = LoopThenDce();
  ExpectRewrite(*p, CountedLoop(0), R"(
    HloModule m

    ENTRY %main (v: f32[2]) -> f32[2] {
      %v = f32[2] parameter(0)
      %zero = s32[] constant(0)
      %init = (s32[], f32[2]) tuple(%zero, %v)
      ROOT %r = f32[2] get-tuple-element(%init), index=1
    }
  )");
}

TEST(WhileLoopSimplifierTest, OneTripBecomesTheBody) {
  auto p = LoopThenDce();
  ExpectRewrite(*p, CountedLoop(1), R"(
    HloModule m

    ENTRY %main (v: f32[2]) -> f32[2] {
      %v = f32[2] parameter(0)
      %zero = s32[] constant(0)
      %init = (s32[], f32[2]) tuple(%zero, %v)
      %i = s32[] get-tuple-element(%init), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %x = f32[2] get-tuple-element(%init), index=1
      %y = f32[2] add(%x, %x)
      %out = (s32[], f32[2]) tuple(%next, %y)
      ROOT %r = f32[2] get-tuple-element(%out), index=1
    }
  )");
}

TEST(WhileLoopSimplifierTest, LongerLoopsStay) {
  WhileLoopSimplifier simplifier;
  const std::string text = CountedLoop(2);
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(WhileLoopSimplifierTest, RemovesDeadTupleElements) {
  // Element 2 (b) is read by no one outside, not by the condition, and
  // only by its own update: it goes. Element 0 is read by the condition,
  // element 1 outside.
  auto p = LoopThenDce();
  ExpectRewrite(*p, R"(
    HloModule m

    %cond (s: (s32[], f32[2], f32[2])) -> pred[] {
      %s = (s32[], f32[2], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    %body (s: (s32[], f32[2], f32[2])) -> (s32[], f32[2], f32[2]) {
      %s = (s32[], f32[2], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %a = f32[2] get-tuple-element(%s), index=1
      %a2 = f32[2] add(%a, %a)
      %b = f32[2] get-tuple-element(%s), index=2
      %b2 = f32[2] add(%b, %a)
      ROOT %out = (s32[], f32[2], f32[2]) tuple(%next, %a2, %b2)
    }

    ENTRY %main (n: s32[], v: f32[2]) -> f32[2] {
      %n = s32[] parameter(0)
      %v = f32[2] parameter(1)
      %init = (s32[], f32[2], f32[2]) tuple(%n, %v, %v)
      %w = (s32[], f32[2], f32[2]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[2] get-tuple-element(%w), index=1
    }
  )",
                R"(
    HloModule m

    %body.1 (s: (s32[], f32[2])) -> (s32[], f32[2]) {
      %s = (s32[], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %a = f32[2] get-tuple-element(%s), index=1
      %a2 = f32[2] add(%a, %a)
      ROOT %out = (s32[], f32[2]) tuple(%next, %a2)
    }

    %cond.1 (s: (s32[], f32[2])) -> pred[] {
      %s = (s32[], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    ENTRY %main (n: s32[], v: f32[2]) -> f32[2] {
      %n = s32[] parameter(0)
      %v = f32[2] parameter(1)
      %tuple.0 = (s32[], f32[2]) tuple(%n, %v)
      %w.0 = (s32[], f32[2]) while(%tuple.0), condition=%cond.1, body=%body.1
      ROOT %get-tuple-element.0 = f32[2] get-tuple-element(%w.0), index=1
    }
  )");
}

TEST(WhileLoopSimplifierTest, KeepsElementsASideEffectReads) {
  // Element 1 is read only by an outfeed in the body: it stays live.
  WhileLoopSimplifier simplifier;
  const char* text = R"(
    HloModule m

    %cond (s: (s32[], f32[])) -> pred[] {
      %s = (s32[], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    %body (s: (s32[], f32[])) -> (s32[], f32[]) {
      %s = (s32[], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %x = f32[] get-tuple-element(%s), index=1
      %token = token[] after-all()
      %out = token[] outfeed(%x, %token)
      ROOT %t = (s32[], f32[]) tuple(%next, %x)
    }

    ENTRY %main (n: s32[], v: f32[]) -> s32[] {
      %n = s32[] parameter(0)
      %v = f32[] parameter(1)
      %init = (s32[], f32[]) tuple(%n, %v)
      %w = (s32[], f32[]) while(%init), condition=%cond, body=%body
      ROOT %r = s32[] get-tuple-element(%w), index=0
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(WhileLoopSimplifierTest, HoistsLoopInvariantCode) {
  // exp(u) depends only on element 2, which the body passes through: it
  // is computed once before the loop and passed in as element 3.
  auto p = LoopThenDce(/*with_tuple_simplifier=*/true);
  ExpectRewrite(*p, R"(
    HloModule m

    %cond (s: (s32[], f32[4], f32[4])) -> pred[] {
      %s = (s32[], f32[4], f32[4]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    %body (s: (s32[], f32[4], f32[4])) -> (s32[], f32[4], f32[4]) {
      %s = (s32[], f32[4], f32[4]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %u = f32[4] get-tuple-element(%s), index=2
      %e = f32[4] exponential(%u)
      %acc = f32[4] get-tuple-element(%s), index=1
      %sum = f32[4] add(%acc, %e)
      ROOT %out = (s32[], f32[4], f32[4]) tuple(%next, %sum, %u)
    }

    ENTRY %main (n: s32[], v: f32[4], u: f32[4]) -> f32[4] {
      %n = s32[] parameter(0)
      %v = f32[4] parameter(1)
      %u = f32[4] parameter(2)
      %init = (s32[], f32[4], f32[4]) tuple(%n, %v, %u)
      %w = (s32[], f32[4], f32[4]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[4] get-tuple-element(%w), index=1
    }
  )",
                R"(
    HloModule m

    %body.1 (s: (s32[], f32[4], f32[4], f32[4])) -> (s32[], f32[4], f32[4], f32[4]) {
      %s = (s32[], f32[4], f32[4], f32[4]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %u = f32[4] get-tuple-element(%s), index=2
      %e = f32[4] get-tuple-element(%s), index=3
      %acc = f32[4] get-tuple-element(%s), index=1
      %sum = f32[4] add(%acc, %e)
      ROOT %out = (s32[], f32[4], f32[4], f32[4]) tuple(%next, %sum, %u, %e)
    }

    %cond.1 (s: (s32[], f32[4], f32[4], f32[4])) -> pred[] {
      %s = (s32[], f32[4], f32[4], f32[4]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    ENTRY %main (n: s32[], v: f32[4], u: f32[4]) -> f32[4] {
      %n = s32[] parameter(0)
      %v = f32[4] parameter(1)
      %u = f32[4] parameter(2)
      %e = f32[4] exponential(%u)
      %tuple.0 = (s32[], f32[4], f32[4], f32[4]) tuple(%n, %v, %u, %e)
      %w.0 = (s32[], f32[4], f32[4], f32[4]) while(%tuple.0), condition=%cond.1, body=%body.1
      ROOT %get-tuple-element.1 = f32[4] get-tuple-element(%w.0), index=1
    }
  )");
}

TEST(WhileLoopSimplifierTest, LeavesLoopsWhoseBodyReadsItsOwnResult) {
  // The outfeed reads the body's root tuple itself. Element 2 is read by no
  // one, but the loop is left alone: its root is not only the loop's next
  // state.
  WhileLoopSimplifier simplifier;
  const char* text = R"(
    HloModule m

    %cond (s: (s32[], f32[], f32[])) -> pred[] {
      %s = (s32[], f32[], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    %body (s: (s32[], f32[], f32[])) -> (s32[], f32[], f32[]) {
      %s = (s32[], f32[], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %a = f32[] get-tuple-element(%s), index=1
      %c = f32[] constant(3)
      ROOT %out = (s32[], f32[], f32[]) tuple(%next, %a, %c)
      %token = token[] after-all()
      %feed = token[] outfeed(%out, %token)
    }

    ENTRY %main (n: s32[], v: f32[]) -> f32[] {
      %n = s32[] parameter(0)
      %v = f32[] parameter(1)
      %init = (s32[], f32[], f32[]) tuple(%n, %v, %v)
      %w = (s32[], f32[], f32[]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[] get-tuple-element(%w), index=1
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(WhileLoopSimplifierTest, NeverHoistsRng) {
  // rng(lo, hi) has invariant operands but draws new numbers each
  // iteration.
  WhileLoopSimplifier simplifier;
  const char* text = R"(
    HloModule m

    %cond (s: (s32[], f32[2], f32[])) -> pred[] {
      %s = (s32[], f32[2], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%i, %ten), direction=LT
    }

    %body (s: (s32[], f32[2], f32[])) -> (s32[], f32[2], f32[]) {
      %s = (s32[], f32[2], f32[]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %lo = f32[] get-tuple-element(%s), index=2
      %hi = f32[] constant(1)
      %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %acc = f32[2] get-tuple-element(%s), index=1
      %sum = f32[2] add(%acc, %r)
      ROOT %out = (s32[], f32[2], f32[]) tuple(%next, %sum, %lo)
    }

    ENTRY %main (n: s32[], v: f32[2], lo: f32[]) -> f32[2] {
      %n = s32[] parameter(0)
      %v = f32[2] parameter(1)
      %lo = f32[] parameter(2)
      %init = (s32[], f32[2], f32[]) tuple(%n, %v, %lo)
      %w = (s32[], f32[2], f32[]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[2] get-tuple-element(%w), index=1
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(WhileLoopSimplifierTest, RewrittenLoopsComputeTheSameValues) {
  // Dead elements and hoisting on one loop; the evaluator gives the same
  // result before and after.
  const char* text = R"(
    HloModule m

    %cond (s: (s32[], f32[3], f32[3], f32[3])) -> pred[] {
      %s = (s32[], f32[3], f32[3], f32[3]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %five = s32[] constant(5)
      ROOT %lt = pred[] compare(%i, %five), direction=LT
    }

    %body (s: (s32[], f32[3], f32[3], f32[3])) -> (s32[], f32[3], f32[3], f32[3]) {
      %s = (s32[], f32[3], f32[3], f32[3]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %k = f32[3] get-tuple-element(%s), index=2
      %t = f32[3] tanh(%k)
      %acc = f32[3] get-tuple-element(%s), index=1
      %m = f32[3] multiply(%acc, %t)
      %junk = f32[3] get-tuple-element(%s), index=3
      %junk2 = f32[3] subtract(%junk, %m)
      ROOT %out = (s32[], f32[3], f32[3], f32[3]) tuple(%next, %m, %k, %junk2)
    }

    ENTRY %main (n: s32[], v: f32[3], k: f32[3]) -> f32[3] {
      %n = s32[] parameter(0)
      %v = f32[3] parameter(1)
      %k = f32[3] parameter(2)
      %init = (s32[], f32[3], f32[3], f32[3]) tuple(%n, %v, %k, %v)
      %w = (s32[], f32[3], f32[3], f32[3]) while(%init), condition=%cond, body=%body
      ROOT %r = f32[3] get-tuple-element(%w), index=1
    }
  )";
  std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(text));
  std::unique_ptr<Module> after = pass_test::Parse(pass_test::Dedent(text));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  auto p = LoopThenDce(true);
  ASSERT_TRUE(pass_test::RunToFixpoint(*p, *after));
  // The loop state lost the junk element and gained tanh(k).
  const Instruction* w = nullptr;
  for (const Instruction* inst : after->entry_computation()->instructions()) {
    if (inst->opcode() == HloOpcode::kWhile) w = inst;
  }
  ASSERT_NE(w, nullptr) << pass_test::Print(*after);
  EXPECT_EQ(w->shape().ToString(), "(s32[], f32[3], f32[3])")
      << pass_test::Print(*after);
  const std::vector<Literal> args = {
      Literal::CreateR0<int32_t>(1),
      Literal::CreateR1<float>({1.5f, -2.0f, 0.25f}),
      Literal::CreateR1<float>({0.5f, 1.0f, -3.0f})};
  absl::StatusOr<Literal> a = Evaluator().Run(*before, args);
  absl::StatusOr<Literal> b = Evaluator().Run(*after, args);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
}

TEST(WhileLoopSimplifierTest, RewrittenLoopWithRngKeepsItsDrawOrder) {
  // tanh(k) is hoisted out of a loop that draws random numbers; an rng
  // after the loop must still draw after the loop's draws.
  const char* text = R"(
    HloModule m

    %cond (s: (s32[], f32[2], f32[2])) -> pred[] {
      %s = (s32[], f32[2], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %three = s32[] constant(3)
      ROOT %lt = pred[] compare(%i, %three), direction=LT
    }

    %body (s: (s32[], f32[2], f32[2])) -> (s32[], f32[2], f32[2]) {
      %s = (s32[], f32[2], f32[2]) parameter(0)
      %i = s32[] get-tuple-element(%s), index=0
      %one = s32[] constant(1)
      %next = s32[] add(%i, %one)
      %k = f32[2] get-tuple-element(%s), index=2
      %t = f32[2] tanh(%k)
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %acc = f32[2] get-tuple-element(%s), index=1
      %a1 = f32[2] add(%acc, %r)
      %a2 = f32[2] multiply(%a1, %t)
      ROOT %out = (s32[], f32[2], f32[2]) tuple(%next, %a2, %k)
    }

    ENTRY %main (k: f32[2]) -> (f32[2], f32[2]) {
      %k = f32[2] parameter(0)
      %zero = s32[] constant(0)
      %init = (s32[], f32[2], f32[2]) tuple(%zero, %k, %k)
      %w = (s32[], f32[2], f32[2]) while(%init), condition=%cond, body=%body
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %after = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %res = f32[2] get-tuple-element(%w), index=1
      ROOT %t = (f32[2], f32[2]) tuple(%res, %after)
    }
  )";
  std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(text));
  std::unique_ptr<Module> after = pass_test::Parse(pass_test::Dedent(text));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  auto p = LoopThenDce(true);
  ASSERT_TRUE(pass_test::RunToFixpoint(*p, *after));
  // The hoisted tanh is in the entry computation now.
  bool hoisted = false;
  for (const Instruction* inst : after->entry_computation()->instructions()) {
    hoisted |= inst->opcode() == HloOpcode::kTanh;
  }
  EXPECT_TRUE(hoisted) << pass_test::Print(*after);
  EvaluatorOptions options;
  options.rng_seed = 7;
  const std::vector<Literal> args = {Literal::CreateR1<float>({0.5f, -1.0f})};
  absl::StatusOr<Literal> a = Evaluator(options).Run(*before, args);
  absl::StatusOr<Literal> b = Evaluator(options).Run(*after, args);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b) << pass_test::Print(*after);
}

}  // namespace
}  // namespace plexa
