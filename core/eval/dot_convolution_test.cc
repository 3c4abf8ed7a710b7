// dot and convolution; expected values computed by hand.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

TEST(DotTest, SeedRankCombinations) {
  // Seed 004: vector . vector = {1,2,3}.{4,5,6} = 4 + 10 + 18 = 32;
  // matrix x vector: {{1,2},{3,4}} x {5,6} = {17, 39};
  // matrix x matrix: {{1,2},{3,4}} x {{5,6},{7,8}} = {{19,22},{43,50}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({4, 5, 6})
  ROOT r = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "f32[]", "32");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {1, 2}, {3, 4} })
  b = f32[2] constant({5, 6})
  ROOT r = f32[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
                 "f32[2]", "{17, 39}");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {1, 2}, {3, 4} })
  b = f32[2,2] constant({ {5, 6}, {7, 8} })
  ROOT r = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})"),
                 "f32[2,2]", "{ {19, 22}, {43, 50} }");
}

TEST(DotTest, BatchAndUnusualContractingDims) {
  // Batch 0: {1,2}.{5,6} = 17; batch 1: {3,4}.{7,8} = 53.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,1,2] constant({ { {1, 2} }, { {3, 4} } })
  b = s32[2,2,1] constant({ { {5}, {6} }, { {7}, {8} } })
  ROOT r = s32[2,1,1] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
})"),
                 "s32[2,1,1]", "{ { {17} }, { {53} } }");
  // Contracting lhs dimension 0: a^T v with a = {{1,2,3},{4,5,6}},
  // v = {1, 10} -> {41, 52, 63}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  v = s32[2] constant({1, 10})
  ROOT r = s32[3] dot(a, v), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "s32[3]", "{41, 52, 63}");
  // Outer product (no contracting dims): {1,2} x {3,4,5}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({1, 2})
  b = s32[3] constant({3, 4, 5})
  ROOT r = s32[2,3] dot(a, b), lhs_contracting_dims={}, rhs_contracting_dims={}
})"),
                 "s32[2,3]", "{ {3, 4, 5}, {6, 8, 10} }");
}

TEST(DotTest, MixedAndNarrowTypes) {
  // s8 x s8 -> s32: 100*100 + 100*100 = 20000 (no s8 wrap).
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s8[2] constant({100, 100})
  b = s8[2] constant({100, 100})
  ROOT r = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "s32[]", "20000");
  // s32 wraps: 65536 * 65536 = 2^32 = 0 (mod 2^32), plus 1*1 = 1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({65536, 1})
  b = s32[2] constant({65536, 1})
  ROOT r = s32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "s32[]", "1");
  // f16 accumulates in float and rounds once: 2048 + 1 + 1 = 2050, which
  // f16 represents (spacing 2 above 2048); rounding every step would stop
  // at 2048.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f16[3] constant({2048, 1, 1})
  b = f16[3] constant({1, 1, 1})
  ROOT r = f16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "f16[]", "2050");
  // bf16 x bf16 -> f32: 1.0078125 * 1.0078125 = 1.01568603515625 exactly.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = bf16[1] constant({1.0078125})
  b = bf16[1] constant({1.0078125})
  ROOT r = f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
})"),
                 "f32[]", "1.01568603515625");
}

TEST(DotTest, LargerMatmulMatchesClosedForm) {
  // a[i][k] = 1 for all, b[k][j] = k: c[i][j] = sum_k k = 63*64/2 = 2016.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  one = f32[] constant(1)
  a = f32[64,64] broadcast(one), dimensions={}
  b = f32[64,64] iota(), iota_dimension=0
  ROOT r = f32[64,64] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})");
  EXPECT_EQ(r.GetAsDouble({0, 0}), 2016.0);
  EXPECT_EQ(r.GetAsDouble({63, 17}), 2016.0);
}

// ---- convolution
// --------------------------------------------------------------

// 1-D convolution of {1,2,3,4,5} with kernel {1, 10} (batch 1, one
// feature), dim_labels b f 0.
std::string Conv1D(absl::string_view window, int64_t out_size,
                   absl::string_view input = "{ { {1, 2, 3, 4, 5} } }",
                   int64_t in_size = 5) {
  return absl::StrCat(R"(HloModule m
ENTRY e {
  x = f32[1,1,)",
                      in_size, "] constant(", input, R"()
  k = f32[1,1,2] constant({ { {1, 10} } })
  ROOT r = f32[1,1,)",
                      out_size, "] convolution(x, k), window={", window,
                      "}, dim_labels=bf0_oi0->bf0\n}");
}

TEST(ConvolutionTest, OneDimensional) {
  // out[i] = x[i]*1 + x[i+1]*10: 21, 32, 43, 54.
  EXPECT_LITERAL(RunOk(Conv1D("size=2", 4)), "f32[1,1,4]",
                 "{ { {21, 32, 43, 54} } }");
}

TEST(ConvolutionTest, PaddingAndStride) {
  // Padded {0,1,2,3,4,5,0}, stride 2: [0,1] -> 10, [2,3] -> 32,
  // [4,5] -> 54.
  EXPECT_LITERAL(RunOk(Conv1D("size=2 stride=2 pad=1_1", 3)), "f32[1,1,3]",
                 "{ { {10, 32, 54} } }");
  // Negative low padding drops x[0]: {2,3,4,5} -> 32, 43, 54.
  EXPECT_LITERAL(RunOk(Conv1D("size=2 pad=-1_0", 3)), "f32[1,1,3]",
                 "{ { {32, 43, 54} } }");
}

TEST(ConvolutionTest, Dilations) {
  // lhs_dilate=2: {1,2,3} -> {1,0,2,0,3}; windows [1,0]=1, [0,2]=20,
  // [2,0]=2, [0,3]=30.
  EXPECT_LITERAL(
      RunOk(Conv1D("size=2 lhs_dilate=2", 4, "{ { {1, 2, 3} } }", 3)),
      "f32[1,1,4]", "{ { {1, 20, 2, 30} } }");
  // rhs_dilate=2: taps i and i+2: 1+30, 2+40, 3+50.
  EXPECT_LITERAL(RunOk(Conv1D("size=2 rhs_dilate=2", 3)), "f32[1,1,3]",
                 "{ { {31, 42, 53} } }");
  // Window reversal: kernel read as {10, 1}: 10+2, 20+3, 30+4, 40+5.
  EXPECT_LITERAL(RunOk(Conv1D("size=2 rhs_reversal=1", 4)), "f32[1,1,4]",
                 "{ { {12, 23, 34, 45} } }");
}

TEST(ConvolutionTest, SeveralInputFeatures) {
  // features f0 = {1,2}, f1 = {3,4}; kernel (o=0) taps i0 = 5, i1 = 6:
  // {1*5 + 3*6, 2*5 + 4*6} = {23, 34}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[1,2,2] constant({ { {1, 2}, {3, 4} } })
  k = f32[1,2,1] constant({ { {5}, {6} } })
  ROOT r = f32[1,1,2] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0
})"),
                 "f32[1,1,2]", "{ { {23, 34} } }");
}

TEST(ConvolutionTest, FeatureGroups) {
  // feature_group_count=2: output feature 0 sees input feature 0 with
  // kernel 2: {2,4,6}; output feature 1 sees input feature 1 with kernel 3:
  // {12,15,18}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[1,2,3] constant({ { {1, 2, 3}, {4, 5, 6} } })
  k = f32[2,1,1] constant({ { {2} }, { {3} } })
  ROOT r = f32[1,2,3] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, feature_group_count=2
})"),
                 "f32[1,2,3]", "{ { {2, 4, 6}, {12, 15, 18} } }");
}

TEST(ConvolutionTest, BatchGroups) {
  // batch_group_count=2: batches {1,2,3} and {4,5,6} form two groups; output
  // feature 0 comes from group 0 with kernel 2, feature 1 from group 1 with
  // kernel 3; the output batch is 2/2 = 1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[2,1,3] constant({ { {1, 2, 3} }, { {4, 5, 6} } })
  k = f32[2,1,1] constant({ { {2} }, { {3} } })
  ROOT r = f32[1,2,3] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0, batch_group_count=2
})"),
                 "f32[1,2,3]", "{ { {2, 4, 6}, {12, 15, 18} } }");
}

TEST(ConvolutionTest, TwoDimensionalNHWC) {
  // 3x3 input 1..9, 2x2 kernel {{1,0},{0,1}}: out[i][j] = x[i][j] +
  // x[i+1][j+1] -> {{1+5, 2+6}, {4+8, 5+9}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[1,3,3,1] constant({ { { {1}, {2}, {3} }, { {4}, {5}, {6} }, { {7}, {8}, {9} } } })
  k = f32[2,2,1,1] constant({ { { {1} }, { {0} } }, { { {0} }, { {1} } } })
  ROOT r = f32[1,2,2,1] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f
})"),
                 "f32[1,2,2,1]", "{ { { {6}, {8} }, { {12}, {14} } } }");
}

TEST(ConvolutionTest, IntegerAndHalf) {
  // s32: {1..5} * {1, 10}; f16 accumulates in float: 2048*1 + 1*1 + 1*1
  // = 2050 exactly, rounded once.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = s32[1,1,3] constant({ { {1, 2, 3} } })
  k = s32[1,1,2] constant({ { {1, 10} } })
  ROOT r = s32[1,1,2] convolution(x, k), window={size=2}, dim_labels=bf0_oi0->bf0
})"),
                 "s32[1,1,2]", "{ { {21, 32} } }");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f16[1,3,1] constant({ { {2048}, {1}, {1} } })
  k = f16[1,3,1] constant({ { {1}, {1}, {1} } })
  ROOT r = f16[1,1,1] convolution(x, k), window={size=1}, dim_labels=bf0_oi0->bf0
})"),
                 "f16[1,1,1]", "{ { {2050} } }");
}

TEST(ConvolutionTest, PermutedDimLabels) {
  // The 1-D convolution of OneDimensional with every dimension moved:
  // input (f, x, b), kernel (x, i, o), output (b, x, f):
  // {1..5} * {1, 10} -> 21, 32, 43, 54.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[1,5,1] constant({ { {1}, {2}, {3}, {4}, {5} } })
  k = f32[2,1,1] constant({ { {1} }, { {10} } })
  ROOT r = f32[1,4,1] convolution(x, k), window={size=2}, dim_labels=f0b_0io->b0f
})"),
                 "f32[1,4,1]", "{ { {21}, {32}, {43}, {54} } }");
}

TEST(ConvolutionTest, TwoDimensionalStridesPaddingDilation) {
  // 2x2 input {{1,2},{3,4}} (y, x). lhs_dilate=2 in x: {{1,0,2},
  // {3,0,4}}; pad 1_0 in y adds a zero row on top: {{0,0,0}, {1,0,2},
  // {3,0,4}}. A 2x2 kernel of ones with strides 2 (y) and 1 (x) fits
  // (3-2)/2+1 = 1 row and (3-2)/1+1 = 2 columns of windows:
  // rows 0-1, columns 0-1: 0+0+1+0 = 1; columns 1-2: 0+0+0+2 = 2.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[1,1,2,2] constant({ { { {1, 2}, {3, 4} } } })
  k = f32[1,1,2,2] constant({ { { {1, 1}, {1, 1} } } })
  ROOT r = f32[1,1,1,2] convolution(x, k), window={size=2x2 stride=2x1 pad=1_0x0_0 lhs_dilate=1x2}, dim_labels=bf01_oi01->bf01
})"),
                 "f32[1,1,1,2]", "{ { { {1, 2} } } }");
}

}  // namespace
}  // namespace plexa::eval_test
