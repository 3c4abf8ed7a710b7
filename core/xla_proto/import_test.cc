#include <memory>
#include <string>

#include "core/xla_proto/xla_proto_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::xla_proto_test {
namespace {

using ::testing::HasSubstr;

TEST(XlaProtoImport, MlpPrintsAsWrittenByHand) {
  std::unique_ptr<Module> m = Import("mlp");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Text(*m), R"(HloModule jit_mlp

%region_add.1 (a.1: f32[], b.2: f32[]) -> f32[] {
  %a.1 = f32[] parameter(0)
  %b.2 = f32[] parameter(1)
  ROOT %add.3 = f32[] add(%a.1, %b.2)
}

ENTRY %main.9 (x.4: f32[2,3], w.5: f32[3,2]) -> f32[2] {
  %x.4 = f32[2,3]{1,0} parameter(0)
  %w.5 = f32[3,2]{1,0} parameter(1)
  %dot.6 = f32[2,2]{1,0} dot(%x.4, %w.5), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %b.7 = f32[2]{0} constant({0.5, -20})
  %broadcast.8 = f32[2,2]{1,0} broadcast(%b.7), dimensions={1}
  %add.9 = f32[2,2]{1,0} add(%dot.6, %broadcast.8)
  %zero.10 = f32[] constant(0)
  %zeros.11 = f32[2,2]{1,0} broadcast(%zero.10), dimensions={}
  %relu.13 = f32[2,2]{1,0} maximum(%add.9, %zeros.11)
  ROOT %reduce.12 = f32[2]{0} reduce(%relu.13, %zero.10), dimensions={1}, to_apply=%region_add.1
}
)");
}

TEST(XlaProtoImport, MlpRunsOnTheEvaluator) {
  std::unique_ptr<Module> m = Import("mlp");
  ASSERT_NE(m, nullptr);
  // By hand: x.w = {{4, 5}, {10, 11}}; + {0.5, -20} along dimension 1;
  // relu; row sums.
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal w = Literal::CreateR2<float>({{1, 0}, {0, 1}, {1, 1}});
  absl::StatusOr<Literal> r = Evaluator().Run(*m, {x, w});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<float>({4.5f, 10.5f}));
}

}  // namespace
}  // namespace plexa::xla_proto_test
