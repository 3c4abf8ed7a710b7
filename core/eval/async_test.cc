// The async wrappers, copy-start/-done, add-dependency, domain,
// rng-get-and-update-state and the annotation custom-calls on the
// evaluator. Expected values by hand.
#include <string>

#include "absl/strings/match.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

// async-start(x, y) wrapping multiply, an update, then the done: x * y.
// {1, 2, 3, 4} * {2, 3, 4, 5} = {2, 6, 12, 20}.
TEST(AsyncWrapperTest, StartUpdateDoneRunsTheWrappedComputation) {
  Literal r = RunOk(R"(HloModule m
%wrapped (a: f32[4], b: f32[4]) -> f32[4] {
  %a = f32[4] parameter(0)
  %b = f32[4] parameter(1)
  ROOT %m = f32[4] multiply(%a, %b)
}
ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %s = ((f32[4], f32[4]), f32[4], s32[]) async-start(%x, %y), calls=%wrapped
  %u = ((f32[4], f32[4]), f32[4], s32[]) async-update(%s)
  ROOT %d = f32[4] async-done(%u)
})",
                    {L("f32[4]", "{1, 2, 3, 4}"), L("f32[4]", "{2, 3, 4, 5}")});
  EXPECT_LITERAL(r, "f32[4]", "{2, 6, 12, 20}");
}

// The start's value: ((operands), result, context); the context is zero.
// (Only an update or the done may read it in a module: evaluated alone.)
TEST(AsyncWrapperTest, TheStartTupleHoldsOperandsResultAndContext) {
  std::unique_ptr<Module> m = Parse(R"(HloModule m
%wrapped (a: s32[2]) -> s32[2] {
  %a = s32[2] parameter(0)
  ROOT %n = s32[2] negate(%a)
}
ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  %s = ((s32[2]), s32[2], u32[]) async-start(%x), calls=%wrapped, async_execution_thread="parallel"
  ROOT %d = s32[2] async-done(%s)
})");
  ASSERT_NE(m, nullptr);
  const Instruction* start =
      m->entry_computation()->root_instruction()->operand(0);
  InstructionEvaluator evaluator{EvaluatorOptions{}};
  const Literal x = L("s32[2]", "{5, -7}");
  absl::StatusOr<Literal> r = evaluator.Evaluate(*start, {&x});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL(*r, "((s32[2]), s32[2], u32[])", "(({5, -7}), {-5, 7}, 0)");
}

// copy-start / copy-done: a copy; add-dependency(x, token): x; domain: x.
TEST(OrderingOnlyOpsTest, CopyAddDependencyAndDomainForwardTheirOperand) {
  Literal r = RunOk(R"(HloModule m
ENTRY %main (x: f32[3]) -> (f32[3], f32[3], f32[3]) {
  %x = f32[3] parameter(0)
  %cs = (f32[3], f32[3], u32[]) copy-start(%x), cross_program_prefetch_index=0
  %cd = f32[3] copy-done(%cs)
  %tok = token[] after-all()
  %ad = f32[3] add-dependency(%x, %tok)
  %dom = f32[3] domain(%x), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  ROOT %t = (f32[3], f32[3], f32[3]) tuple(%cd, %ad, %dom)
})",
                    {L("f32[3]", "{1.5, -2, 8}")});
  EXPECT_LITERAL(r, "(f32[3], f32[3], f32[3])",
                 "({1.5, -2, 8}, {1.5, -2, 8}, {1.5, -2, 8})");
}

// XLA's initial state 0x7012395 = 117515157; each execution of the
// instruction advances it by delta. In a loop of 3 iterations with
// delta=10 the last value read is 117515157 + 20 = 117515177.
TEST(RngGetAndUpdateStateTest, AdvancesByDeltaEachExecution) {
  constexpr char kLoop[] = R"(HloModule m
%cond (s: (s32[], u64[2])) -> pred[] {
  %s = (s32[], u64[2]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], u64[2])) -> (s32[], u64[2]) {
  %s = (s32[], u64[2]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %state = u64[2] rng-get-and-update-state(), delta=10
  ROOT %t = (s32[], u64[2]) tuple(%next, %state)
}
ENTRY %main () -> u64[2] {
  %zero = s32[] constant(0)
  %init = u64[2] constant({0, 0})
  %t = (s32[], u64[2]) tuple(%zero, %init)
  %w = (s32[], u64[2]) while(%t), condition=%cond, body=%body
  ROOT %r = u64[2] get-tuple-element(%w), index=1
})";
  std::unique_ptr<Module> m = Parse(kLoop);
  ASSERT_NE(m, nullptr);
  // Without a table each run of the module starts again.
  Evaluator fresh;
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<Literal> r = fresh.Run(*m, {});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_LITERAL(*r, "u64[2]", "{117515177, 0}");
  }
  // With the executable's table the second run goes on:
  // 117515157 + 50 = 117515207.
  RngStateTable table;
  EvaluatorOptions options;
  options.rng_states = &table;
  Evaluator evaluator(options);
  absl::StatusOr<Literal> first = evaluator.Run(*m, {});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_LITERAL(*first, "u64[2]", "{117515177, 0}");
  absl::StatusOr<Literal> second = evaluator.Run(*m, {});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_LITERAL(*second, "u64[2]", "{117515207, 0}");
}

// Two instructions have two states (as XLA's CPU thunks).
TEST(RngGetAndUpdateStateTest, EachInstructionHasItsOwnState) {
  Literal r = RunOk(R"(HloModule m
ENTRY %main () -> (u64[2], u64[2]) {
  %a = u64[2] rng-get-and-update-state(), delta=1
  %b = u64[2] rng-get-and-update-state(), delta=7
  ROOT %t = (u64[2], u64[2]) tuple(%a, %b)
})");
  EXPECT_LITERAL(r, "(u64[2], u64[2])", "({117515157, 0}, {117515157, 0})");
}

// The carry into the high word and a negative delta (mod 2^128).
TEST(RngGetAndUpdateStateTest, AdvanceIs128BitArithmetic) {
  EXPECT_EQ(RngStateTable::Advance({~uint64_t{0}, 4}, 1),
            (std::array<uint64_t, 2>{0, 5}));
  EXPECT_EQ(RngStateTable::Advance({0, 5}, -1),
            (std::array<uint64_t, 2>{~uint64_t{0}, 4}));
  EXPECT_EQ(RngStateTable::Advance({10, 0}, -3),
            (std::array<uint64_t, 2>{7, 0}));
}

// XLA's annotation targets are identities on one device; a shape change
// (a partitioned program) is an error naming the target.
TEST(AnnotationCustomCallTest, IdentitiesOrALocatedError) {
  Literal r = RunOk(R"(HloModule m
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2] parameter(0)
  %h = f32[2] custom-call(%x), custom_call_target="MoveToHost"
  %d = f32[2] custom-call(%h), custom_call_target="MoveToDevice"
  %a = f32[2] custom-call(%d), custom_call_target="annotate_device_placement"
  %f = f32[2] custom-call(%a), custom_call_target="ShardBarrierFrom"
  %t = f32[2] custom-call(%f), custom_call_target="ShardBarrierTo"
  ROOT %s = f32[2] custom-call(%t), custom_call_target="Sharding"
})",
                    {L("f32[2]", "{3, -4}")});
  EXPECT_LITERAL(r, "f32[2]", "{3, -4}");
  absl::StatusOr<Literal> bad = RunHlo(R"(HloModule m
ENTRY %main (x: f32[4]) -> f32[2] {
  %x = f32[4] parameter(0)
  ROOT %shard = f32[2] custom-call(%x), custom_call_target="SPMDFullToShardShape"
})",
                                       {L("f32[4]", "{1, 2, 3, 4}")});
  ASSERT_FALSE(bad.ok());
  const std::string msg(bad.status().message());
  EXPECT_TRUE(absl::StrContains(msg, "'shard'")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "\"SPMDFullToShardShape\"")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "(f32[4]) to f32[2]")) << msg;
}

}  // namespace
}  // namespace plexa::eval_test

namespace plexa::eval_test {
namespace {

// XLA's sugar: `<op>-start` names the wrapped op and carries its
// attributes; the parser builds the generic wrapper. sort of {3, 1, 2}
// ascending is {1, 2, 3} (by hand); the comparator is the wrapped op's.
TEST(AsyncWrapperTest, SugarFormsBuildTheGenericWrapper) {
  constexpr char kSugar[] = R"(HloModule m
%lt (a: s32[], b: s32[]) -> pred[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=LT
}
ENTRY %main (x: s32[3]) -> s32[3] {
  %x = s32[3] parameter(0)
  %s = ((s32[3]), s32[3], s32[]) sort-start(%x), dimensions={0}, to_apply=%lt, async_execution_thread="sorter"
  %u = ((s32[3]), s32[3], s32[]) sort-update(%s)
  ROOT %d = s32[3] sort-done(%u)
})";
  Literal r = RunOk(kSugar, {L("s32[3]", "{3, 1, 2}")});
  EXPECT_LITERAL(r, "s32[3]", "{1, 2, 3}");
  std::unique_ptr<Module> m = Parse(kSugar);
  ASSERT_NE(m, nullptr);
  const Instruction* done = m->entry_computation()->root_instruction();
  EXPECT_EQ(done->opcode(), HloOpcode::kAsyncDone);
  const Instruction* start = done->operand(0)->operand(0);
  ASSERT_EQ(start->opcode(), HloOpcode::kAsyncStart);
  EXPECT_EQ(start->attrs().async_execution_thread, "sorter");
  ASSERT_EQ(start->called_computations().size(), 1u);
  const Computation* wrapped = start->called_computations()[0];
  EXPECT_EQ(wrapped->name(), "s.wrapped");
  const Instruction* sort = wrapped->root_instruction();
  EXPECT_EQ(sort->opcode(), HloOpcode::kSort);
  EXPECT_EQ(sort->attrs().dimensions, std::vector<int64_t>{0});
  ASSERT_EQ(sort->called_computations().size(), 1u);
  EXPECT_EQ(sort->called_computations()[0]->name(), "lt");
  EXPECT_EQ(sort->operand(0)->opcode(), HloOpcode::kParameter);
  // A sugar start needs the wrapper's tuple shape.
  absl::StatusOr<std::unique_ptr<Module>> bad = ParseHloModule(R"(HloModule m
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  %s = f32[3] negate-start(%x)
  ROOT %d = f32[3] negate-done(%s)
})");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(absl::StrContains(bad.status().message(),
                                "a shape ((operands), result, ...) for "
                                "negate-start"))
      << bad.status();
}

}  // namespace
}  // namespace plexa::eval_test
