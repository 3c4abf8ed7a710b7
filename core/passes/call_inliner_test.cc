#include "core/passes/call_inliner.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(CallInlinerTest, InlinesACall) {
  CallInliner inliner;
  ExpectRewrite(inliner, R"(
    HloModule m

    %double (a: f32[2]) -> f32[2] {
      %a = f32[2] parameter(0)
      ROOT %s = f32[2] add(%a, %a)
    }

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      %c = f32[2] call(%x), to_apply=%double
      ROOT %n = f32[2] negate(%c)
    }
  )",
                R"(
    HloModule m

    %double (a: f32[2]) -> f32[2] {
      %a = f32[2] parameter(0)
      ROOT %s = f32[2] add(%a, %a)
    }

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      %s = f32[2] add(%x, %x)
      ROOT %n = f32[2] negate(%s)
    }
  )");
}

TEST(CallInlinerTest, InlinesNestedCallsCalleesFirst) {
  CallInliner inliner;
  ExpectRewrite(inliner, R"(
    HloModule m

    %inner (a: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      ROOT %e = f32[] exponential(%a)
    }

    %outer (b: f32[], c: f32[]) -> f32[] {
      %b = f32[] parameter(0)
      %c = f32[] parameter(1)
      %call = f32[] call(%c), to_apply=%inner
      ROOT %sub = f32[] subtract(%b, %call)
    }

    ENTRY %main (x: f32[], y: f32[]) -> f32[] {
      %x = f32[] parameter(0)
      %y = f32[] parameter(1)
      ROOT %r = f32[] call(%x, %y), to_apply=%outer
    }
  )",
                R"(
    HloModule m

    %inner (a: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      ROOT %e = f32[] exponential(%a)
    }

    %outer (b: f32[], c: f32[]) -> f32[] {
      %b = f32[] parameter(0)
      %c = f32[] parameter(1)
      %e = f32[] exponential(%c)
      ROOT %sub = f32[] subtract(%b, %e)
    }

    ENTRY %main (x: f32[], y: f32[]) -> f32[] {
      %x = f32[] parameter(0)
      %y = f32[] parameter(1)
      %e = f32[] exponential(%y)
      ROOT %sub = f32[] subtract(%x, %e)
    }
  )");
}

constexpr char kRngCalls[] = R"(
    HloModule m

    %draw (lo: f32[]) -> f32[2] {
      %lo = f32[] parameter(0)
      %hi = f32[] constant(1)
      ROOT %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
    }

    ENTRY %main (p: f32[]) -> (f32[2], f32[2], f32[2]) {
      %p = f32[] parameter(0)
      %first = f32[2] call(%p), to_apply=%draw
      %one = f32[] constant(1)
      %middle = f32[2] rng(%p, %one), distribution=rng_uniform
      %last = f32[2] call(%p), to_apply=%draw
      ROOT %t = (f32[2], f32[2], f32[2]) tuple(%first, %middle, %last)
    }
  )";

TEST(CallInlinerTest, InlinedRngsKeepTheirPlaceInTheDrawOrder) {
  // Appending the inlined instructions would move both inlined rngs after
  // %middle; the computation is rebuilt so the order stays first, middle,
  // last.
  CallInliner inliner;
  ExpectRewrite(inliner, kRngCalls, R"(
    HloModule m

    %draw (lo: f32[]) -> f32[2] {
      %lo = f32[] parameter(0)
      %hi = f32[] constant(1)
      ROOT %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
    }

    ENTRY %main (p: f32[]) -> (f32[2], f32[2], f32[2]) {
      %p = f32[] parameter(0)
      %hi = f32[] constant(1)
      %r = f32[2] rng(%p, %hi), distribution=rng_uniform
      %one = f32[] constant(1)
      %middle = f32[2] rng(%p, %one), distribution=rng_uniform
      %hi.0 = f32[] constant(1)
      %r.0 = f32[2] rng(%p, %hi.0), distribution=rng_uniform
      ROOT %t = (f32[2], f32[2], f32[2]) tuple(%r, %middle, %r.0)
    }
  )");
}

TEST(CallInlinerTest, InlinedRngsDrawTheSameNumbers) {
  std::unique_ptr<Module> before =
      pass_test::Parse(pass_test::Dedent(kRngCalls));
  std::unique_ptr<Module> after =
      pass_test::Parse(pass_test::Dedent(kRngCalls));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  CallInliner inliner;
  ASSERT_TRUE(pass_test::RunPass(inliner, *after));
  EvaluatorOptions options;
  options.rng_seed = 42;
  Evaluator evaluator(options);
  absl::StatusOr<Literal> a = evaluator.Run(*before, {Literal::CreateR0(0.0f)});
  absl::StatusOr<Literal> b = evaluator.Run(*after, {Literal::CreateR0(0.0f)});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
}

}  // namespace
}  // namespace plexa
