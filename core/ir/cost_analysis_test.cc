// The cost model on small modules; every expected number is counted by hand
// in the comment beside it.
#include "core/ir/cost_analysis.h"

#include <memory>

#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

ModuleCost Cost(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? AnalyzeCost(**m) : ModuleCost{};
}

TEST(CostAnalysisTest, DotElementwiseAndTranscendentals) {
  const ModuleCost c = Cost(R"(HloModule m
ENTRY main {
  a = f32[2,3] parameter(0)
  b = f32[3,4] parameter(1)
  d = f32[2,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[2,4] tanh(d)
  ROOT s = f32[2,4] add(t, d)
}
)");
  // dot: 2 * 8 results * 3 = 48; add: 8. tanh: 8 transcendentals.
  EXPECT_EQ(c.flops, 56);
  EXPECT_EQ(c.transcendentals, 8);
  // dot reads 24 + 48 bytes, writes 32; tanh 32 + 32; add 64 + 32.
  EXPECT_EQ(c.bytes_accessed, 24 + 48 + 32 + 64 + 96);
}

TEST(CostAnalysisTest, ConvolutionReduceAndFusion) {
  const ModuleCost c = Cost(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fused {
  p = f32[1,2,4,4] parameter(0)
  n = f32[1,2,4,4] negate(p)
  ROOT m = f32[1,2,4,4] multiply(n, p)
}
ENTRY main {
  x = f32[1,3,4,4] parameter(0)
  k = f32[2,3,3,3] parameter(1)
  c = f32[1,2,4,4] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  f = f32[1,2,4,4] fusion(c), kind=kLoop, calls=fused
  z = f32[] constant(0)
  ROOT r = f32[1,2] reduce(f, z), dimensions={2,3}, to_apply=add
}
)");
  // convolution: 2 * 32 results * 9 window * 3 features = 1728; fusion:
  // negate 32 + multiply 32 = 64; reduce: 32 inputs * 1 reducer op = 32.
  EXPECT_EQ(c.flops, 1728 + 64 + 32);
  EXPECT_EQ(c.transcendentals, 0);
  // convolution 192 + 216 + 128; fusion 128 + 128 (only its own);
  // reduce 128 + 4 + 8.
  EXPECT_EQ(c.bytes_accessed, 192 + 216 + 128 + 256 + 140);
}

TEST(CostAnalysisTest, WhileBodyOnceAndTheDearestBranch) {
  const ModuleCost c = Cost(R"(HloModule m
cond {
  s = f32[4] parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  s = f32[4] parameter(0)
  ROOT e = f32[4] exponential(s)
}
cheap {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
dear {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p)
  ROOT m = f32[4] multiply(a, p)
}
ENTRY main {
  x = f32[4] parameter(0)
  w = f32[4] while(x), condition=cond, body=body
  b = pred[] parameter(1)
  ROOT c = f32[4] conditional(b, w, w), true_computation=cheap, false_computation=dear
}
)");
  // while: exponential once (4 transcendentals); conditional: the dearer
  // branch, add + multiply = 8 flops.
  EXPECT_EQ(c.transcendentals, 4);
  EXPECT_EQ(c.flops, 8);
}

}  // namespace
}  // namespace plexa
