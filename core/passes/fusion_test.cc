#include "core/passes/fusion.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(FusionTest, ElementwiseChainBecomesOneLoopFusion) {
  InstructionFusion fusion;
  ExpectRewrite(fusion, R"(
    HloModule m

    ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %y = f32[4] parameter(1)
      %a = f32[4] add(%x, %y)
      %m = f32[4] multiply(%a, %x)
      ROOT %n = f32[4] negate(%m)
    }
  )",
                R"(
    HloModule m

    %fused_computation (param_0: f32[4], param_1: f32[4]) -> f32[4] {
      %param_0 = f32[4] parameter(0)
      %param_1 = f32[4] parameter(1)
      %a = f32[4] add(%param_0, %param_1)
      %m = f32[4] multiply(%a, %param_0)
      ROOT %n = f32[4] negate(%m)
    }

    ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %y = f32[4] parameter(1)
      ROOT %fusion.0 = f32[4] fusion(%x, %y), kind=kLoop, calls=%fused_computation
    }
  )");
}

TEST(FusionTest, CheapProducersAreDuplicatedExpensiveOnesAreNot) {
  // exp has two users: it stays outside both fusions. add is cheap: the
  // first fusion gets a copy of it, the second takes it over.
  InstructionFusion fusion;
  ExpectRewrite(fusion, R"(
    HloModule m

    ENTRY %main (x: f32[4]) -> (f32[4], f32[4]) {
      %x = f32[4] parameter(0)
      %e = f32[4] exponential(%x)
      %c = f32[4] add(%x, %x)
      %u1 = f32[4] multiply(%e, %c)
      %u2 = f32[4] subtract(%e, %c)
      ROOT %t = (f32[4], f32[4]) tuple(%u1, %u2)
    }
  )",
                R"(
    HloModule m

    %fused_computation (param_0: f32[4], param_1: f32[4]) -> f32[4] {
      %param_0 = f32[4] parameter(0)
      %param_1 = f32[4] parameter(1)
      %c = f32[4] add(%param_0, %param_0)
      ROOT %u2 = f32[4] subtract(%param_1, %c)
    }

    %fused_computation.1 (param_0: f32[4], param_1: f32[4]) -> f32[4] {
      %param_0 = f32[4] parameter(0)
      %param_1 = f32[4] parameter(1)
      %c = f32[4] add(%param_0, %param_0)
      ROOT %u1 = f32[4] multiply(%param_1, %c)
    }

    ENTRY %main (x: f32[4]) -> (f32[4], f32[4]) {
      %x = f32[4] parameter(0)
      %e = f32[4] exponential(%x)
      %fusion.1 = f32[4] fusion(%x, %e), kind=kLoop, calls=%fused_computation.1
      %fusion.0 = f32[4] fusion(%x, %e), kind=kLoop, calls=%fused_computation
      ROOT %t = (f32[4], f32[4]) tuple(%fusion.1, %fusion.0)
    }
  )");
}

TEST(FusionTest, InputFusionIntoReduceAndOutputFusionOfDotWithBias) {
  InstructionFusion fusion;
  ExpectRewrite(fusion, R"(
    HloModule m

    %add (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      ROOT %s = f32[] add(%a, %b)
    }

    ENTRY %main (x: f32[2,3], w: f32[3,4], bias: f32[4]) -> (f32[2,4], f32[2]) {
      %x = f32[2,3] parameter(0)
      %w = f32[3,4] parameter(1)
      %bias = f32[4] parameter(2)
      %d = f32[2,4] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
      %bb = f32[2,4] broadcast(%bias), dimensions={1}
      %y = f32[2,4] add(%d, %bb)
      %sq = f32[2,3] multiply(%x, %x)
      %zero = f32[] constant(0)
      %s = f32[2] reduce(%sq, %zero), dimensions={1}, to_apply=%add
      ROOT %t = (f32[2,4], f32[2]) tuple(%y, %s)
    }
  )",
                R"(
    HloModule m

    %add (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      ROOT %s = f32[] add(%a, %b)
    }

    %fused_computation (param_0: f32[2,3]) -> f32[2] {
      %param_0 = f32[2,3] parameter(0)
      %sq = f32[2,3] multiply(%param_0, %param_0)
      %zero = f32[] constant(0)
      ROOT %s = f32[2] reduce(%sq, %zero), dimensions={1}, to_apply=%add
    }

    %fused_computation.1 (param_0: f32[2,3], param_1: f32[3,4], param_2: f32[4]) -> f32[2,4] {
      %param_0 = f32[2,3] parameter(0)
      %param_1 = f32[3,4] parameter(1)
      %param_2 = f32[4] parameter(2)
      %d = f32[2,4] dot(%param_0, %param_1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
      %bb = f32[2,4] broadcast(%param_2), dimensions={1}
      ROOT %y = f32[2,4] add(%d, %bb)
    }

    ENTRY %main (x: f32[2,3], w: f32[3,4], bias: f32[4]) -> (f32[2,4], f32[2]) {
      %x = f32[2,3] parameter(0)
      %w = f32[3,4] parameter(1)
      %bias = f32[4] parameter(2)
      %fusion.1 = f32[2,4] fusion(%x, %w, %bias), kind=kOutput, calls=%fused_computation.1
      %fusion.0 = f32[2] fusion(%x), kind=kInput, calls=%fused_computation
      ROOT %t = (f32[2,4], f32[2]) tuple(%fusion.1, %fusion.0)
    }
  )");
}

TEST(FusionTest, RngIsNeverFused) {
  InstructionFusion fusion;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %r = f32[4] rng(%lo, %hi), distribution=rng_uniform
      ROOT %a = f32[4] add(%x, %r)
    }
  )";
  ExpectRewrite(fusion, text, text, /*changed=*/false);
}

TEST(FusionTest, FusedModulesComputeTheSameValues) {
  const char* text = R"(
    HloModule m

    %max (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      ROOT %m = f32[] maximum(%a, %b)
    }

    ENTRY %main (x: f32[3,4]) -> (f32[3,4], f32[3]) {
      %x = f32[3,4] parameter(0)
      %t = f32[4,3] transpose(%x), dimensions={1,0}
      %r = f32[3,4] transpose(%t), dimensions={1,0}
      %e = f32[3,4] exponential(%r)
      %ninf = f32[] constant(-inf)
      %mx = f32[3] reduce(%e, %ninf), dimensions={1}, to_apply=%max
      %b = f32[3,4] broadcast(%mx), dimensions={0}
      %d = f32[3,4] divide(%e, %b)
      ROOT %out = (f32[3,4], f32[3]) tuple(%d, %mx)
    }
  )";
  std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(text));
  std::unique_ptr<Module> after = pass_test::Parse(pass_test::Dedent(text));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  InstructionFusion fusion;
  ASSERT_TRUE(pass_test::RunPass(fusion, *after));
  int64_t fusions = 0;
  for (const Instruction* inst : after->entry_computation()->instructions()) {
    fusions += inst->opcode() == HloOpcode::kFusion;
  }
  EXPECT_GE(fusions, 2) << pass_test::Print(*after);
  Literal x(Shape(F32, {3, 4}));
  int k = 0;
  ShapeUtil::ForEachIndex(x.shape(), [&](absl::Span<const int64_t> i) {
    ASSERT_TRUE(x.SetFromDouble(i, 0.37 * k++ - 2).ok());
  });
  absl::StatusOr<Literal> a = Evaluator().Run(*before, {x});
  absl::StatusOr<Literal> b = Evaluator().Run(*after, {x});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
}

}  // namespace
}  // namespace plexa
