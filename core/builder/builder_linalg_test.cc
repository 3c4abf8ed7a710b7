// Dot, convolution, triangular-solve, cholesky, batch normalization.
#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DotTest, SeedTable) {
  // vector.vector -> scalar, matrix.vector -> vector, matrix.matrix.
  Builder b("dot");
  Op v = b.Parameter(0, F32({3}), "v");
  Op m = b.Parameter(1, F32({2, 3}), "m");
  Op n = b.Parameter(2, F32({3, 4}), "n");
  Op vv = b.Dot(v, v);
  Op mv = b.Dot(m, v);
  Op mm = b.Dot(m, n);
  const std::vector<std::pair<Op, Shape>> expected = {
      {vv, F32({})}, {mv, F32({2})}, {mm, F32({2, 4})}};
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({vv, mv, mm})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[] dot(%v, %v), lhs_contracting_dims={0}, "
                              "rhs_contracting_dims={0}"));
  EXPECT_THAT(text, HasSubstr("f32[2,4] dot(%m, %n), lhs_contracting_dims={1}, "
                              "rhs_contracting_dims={0}"));
}

TEST(DotTest, GeneralAndErrors) {
  Builder b("dot_general");
  DotDimensionNumbers d;
  d.lhs_batch_dimensions = {0};
  d.rhs_batch_dimensions = {0};
  d.lhs_contracting_dimensions = {2};
  d.rhs_contracting_dimensions = {1};
  Op r = b.DotGeneral(b.Parameter(0, F32({5, 2, 3}), "a"),
                      b.Parameter(1, F32({5, 3, 4}), "c"), d);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(r));
  EXPECT_EQ(s, F32({5, 2, 4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Text(*mod),
              HasSubstr("dot(%a, %c), lhs_batch_dims={0}, "
                        "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
                        "rhs_contracting_dims={1}"));
  {
    Builder e("dot_mismatch");
    e.Dot(e.Parameter(0, F32({2, 3}), "a"), e.Parameter(1, F32({4, 2}), "c"));
    ExpectBuildError(e, "Dot", {"f32[2,3]", "f32[4,2]"});
  }
  {
    Builder e("dot_rank3");
    e.Dot(e.Parameter(0, F32({2, 3, 4}), "a"), e.Parameter(1, F32({4}), "c"));
    ExpectBuildError(e, "Dot", {"DotGeneral", "f32[2,3,4]"});
  }
  {
    // Two operand types: as XLA's InferDotOpShape today, no error; the
    // result takes the higher-precision type.
    Builder e("dot_types");
    Op t = e.Dot(e.Parameter(0, F32({3}), "a"), e.Parameter(1, S32({3}), "c"));
    ASSERT_OK_AND_ASSIGN(Shape ts, e.GetShape(t));
    EXPECT_EQ(ts, F32({}));
  }
}

TEST(ConvTest, SeedFormsValidSameStridedDilated) {
  Builder b("conv");
  Op lhs = b.Parameter(0, F32({1, 1, 5, 5}), "lhs");
  Op rhs = b.Parameter(1, F32({1, 1, 3, 3}), "rhs");
  Op valid = b.Conv(lhs, rhs, {1, 1}, Padding::kValid);
  Op same = b.Conv(lhs, rhs, {1, 1}, Padding::kSame);
  Op strided = b.Conv(lhs, rhs, {2, 2}, Padding::kSame);
  // lhs dilation 2: 9x9 base; padding (1,1) and (2,2): 11 and 13; window
  // 3: 9 and 11.
  Op lhs_dilated =
      b.ConvWithGeneralPadding(lhs, rhs, {1, 1}, {{1, 1}, {2, 2}}, {2, 2});
  // rhs dilation 2: effective window 5 on a 5x5 base: 1x1.
  Op rhs_dilated =
      b.ConvWithGeneralPadding(lhs, rhs, {1, 1}, {{0, 0}, {0, 0}}, {}, {2, 2});
  const std::vector<std::pair<Op, Shape>> expected = {
      {valid, F32({1, 1, 3, 3})},       {same, F32({1, 1, 5, 5})},
      {strided, F32({1, 1, 3, 3})},     {lhs_dilated, F32({1, 1, 9, 11})},
      {rhs_dilated, F32({1, 1, 1, 1})},
  };
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(
      auto mod, BuildChecked(b, b.Tuple({valid, same, strided, lhs_dilated,
                                         rhs_dilated})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[1,1,3,3] convolution(%lhs, %rhs), "
                              "window={size=3x3}, dim_labels=bf01_oi01->bf01"));
  EXPECT_THAT(text, HasSubstr("window={size=3x3 pad=1_1x1_1}"));
  EXPECT_THAT(text, HasSubstr("window={size=3x3 stride=2x2 pad=1_1x1_1}"));
  EXPECT_THAT(text, HasSubstr("window={size=3x3 pad=1_1x2_2 lhs_dilate=2x2}"));
  EXPECT_THAT(text, HasSubstr("window={size=3x3 rhs_dilate=2x2}"));
}

TEST(ConvTest, GeneralDimensionNumbersAndGroups) {
  Builder b("conv_general");
  // NHWC input, HWIO kernel, NHWC output: dim_labels=b01f_01io->b01f.
  ConvolutionDimensionNumbers nhwc;
  nhwc.input_batch_dimension = 0;
  nhwc.input_feature_dimension = 3;
  nhwc.input_spatial_dimensions = {1, 2};
  nhwc.kernel_spatial_dimensions = {0, 1};
  nhwc.kernel_input_feature_dimension = 2;
  nhwc.kernel_output_feature_dimension = 3;
  nhwc.output_batch_dimension = 0;
  nhwc.output_feature_dimension = 3;
  nhwc.output_spatial_dimensions = {1, 2};
  Op x = b.Parameter(0, F32({2, 7, 7, 3}), "x");
  Op k = b.Parameter(1, F32({3, 3, 3, 8}), "k");
  Op c = b.ConvGeneralDilated(x, k, {1, 1}, {{0, 0}, {0, 0}}, {}, {}, nhwc);
  Op cs = b.ConvWithGeneralDimensions(x, k, {2, 2}, Padding::kSame, nhwc);
  // feature_group_count 2: 4 input features in 2 groups of 2.
  Op g = b.Conv(b.Parameter(2, F32({1, 4, 5, 5}), "g_in"),
                b.Parameter(3, F32({8, 2, 3, 3}), "g_k"), {1, 1},
                Padding::kValid, /*feature_group_count=*/2);
  // batch_group_count 2: output batch 4 / 2, output features 4.
  Op bg = b.Conv(b.Parameter(4, F32({4, 2, 5, 5}), "b_in"),
                 b.Parameter(5, F32({4, 2, 3, 3}), "b_k"), {1, 1},
                 Padding::kValid, 1, /*batch_group_count=*/2);
  const std::vector<std::pair<Op, Shape>> expected = {{c, F32({2, 5, 5, 8})},
                                                      {cs, F32({2, 4, 4, 8})},
                                                      {g, F32({1, 8, 3, 3})},
                                                      {bg, F32({2, 4, 3, 3})}};
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({c, cs, g, bg})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("dim_labels=b01f_01io->b01f"));
  EXPECT_THAT(text, HasSubstr("feature_group_count=2"));
  EXPECT_THAT(text, HasSubstr("batch_group_count=2"));
}

TEST(ConvTest, Errors) {
  {
    Builder b("conv_features");
    b.Conv(b.Parameter(0, F32({1, 2, 5, 5}), "lhs"),
           b.Parameter(1, F32({1, 3, 3, 3}), "rhs"), {1, 1}, Padding::kValid);
    ExpectBuildError(b, "Conv", {"f32[1,2,5,5]", "f32[1,3,3,3]"});
  }
  {
    Builder b("conv_strides");
    b.Conv(b.Parameter(0, F32({1, 1, 5, 5}), "lhs"),
           b.Parameter(1, F32({1, 1, 3, 3}), "rhs"), {1}, Padding::kValid);
    ExpectBuildError(b, "Conv", {"{1}"});
  }
  {
    Builder b("conv_rank");
    b.Conv(b.Parameter(0, F32({5}), "lhs"), b.Parameter(1, F32({3}), "rhs"), {},
           Padding::kValid);
    ExpectBuildError(b, "Conv", {"f32[5]"});
  }
  {
    Builder b("conv_dims_out_of_range");
    ConvolutionDimensionNumbers d = MakeDefaultConvDimensionNumbers(2);
    d.kernel_spatial_dimensions = {2, 7};
    b.ConvGeneralDilated(b.Parameter(0, F32({1, 1, 5, 5}), "lhs"),
                         b.Parameter(1, F32({1, 1, 3, 3}), "rhs"), {1, 1},
                         {{0, 0}, {0, 0}}, {}, {}, d);
    ExpectBuildError(b, "ConvGeneralDilated", {"out of range"});
  }
}

TEST(TriangularSolveCholeskyTest, ShapesAndErrors) {
  Builder b("linalg");
  Op a = b.Parameter(0, F32({3, 3}), "a");
  Op rhs = b.Parameter(1, F32({3, 4}), "rhs");
  Op x = b.TriangularSolve(a, rhs, /*left_side=*/true, /*lower=*/true,
                           /*unit_diagonal=*/false,
                           TriangularSolveTranspose::kTranspose);
  Op l = b.Cholesky(a, /*lower=*/true);
  ASSERT_OK_AND_ASSIGN(Shape sx, b.GetShape(x));
  ASSERT_OK_AND_ASSIGN(Shape sl, b.GetShape(l));
  EXPECT_EQ(sx, F32({3, 4}));
  EXPECT_EQ(sl, F32({3, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({x, l})));
  const Instruction* ts = mod->entry_computation()->instructions()[2];
  EXPECT_TRUE(ts->attrs().triangular_solve_options.left_side);
  EXPECT_TRUE(ts->attrs().triangular_solve_options.lower);
  EXPECT_EQ(ts->attrs().triangular_solve_options.transpose_a,
            TriangularSolveTranspose::kTranspose);
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("transpose_a=TRANSPOSE"));
  EXPECT_THAT(text, HasSubstr("f32[3,3] cholesky(%a), lower=true"));
  {
    Builder e("triangular_solve_mismatch");
    e.TriangularSolve(e.Parameter(0, F32({3, 3}), "a"),
                      e.Parameter(1, F32({4, 4}), "b"), true, true, false,
                      TriangularSolveTranspose::kNoTranspose);
    ExpectBuildError(e, "TriangularSolve", {"f32[3,3]", "f32[4,4]"});
  }
  {
    Builder e("cholesky_not_square");
    e.Cholesky(e.Parameter(0, F32({3, 4}), "a"), false);
    ExpectBuildError(e, "Cholesky", {"f32[3,4]"});
  }
}

TEST(BatchNormTest, TrainingInferenceGrad) {
  Builder b("batch_norm");
  Op x = b.Parameter(0, F32({2, 3, 4, 5}), "x");
  Op scale = b.Parameter(1, F32({3}), "scale");
  Op offset = b.Parameter(2, F32({3}), "offset");
  Op mean = b.Parameter(3, F32({3}), "mean");
  Op var = b.Parameter(4, F32({3}), "var");
  Op t = b.BatchNormTraining(x, scale, offset, 0.001f, 1);
  Op i = b.BatchNormInference(x, scale, offset, mean, var, 0.001f, 1);
  Op g = b.BatchNormGrad(x, scale, mean, var, x, 0.001f, 1);
  ASSERT_OK_AND_ASSIGN(Shape st, b.GetShape(t));
  ASSERT_OK_AND_ASSIGN(Shape si, b.GetShape(i));
  ASSERT_OK_AND_ASSIGN(Shape sg, b.GetShape(g));
  EXPECT_EQ(st, Tup({F32({2, 3, 4, 5}), F32({3}), F32({3})}));
  EXPECT_EQ(si, F32({2, 3, 4, 5}));
  EXPECT_EQ(sg, Tup({F32({2, 3, 4, 5}), F32({3}), F32({3})}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({t, i, g})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("batch-norm-training(%x, %scale, %offset), "
                              "epsilon=0.001, feature_index=1"));
  EXPECT_THAT(text, HasSubstr("batch-norm-inference(%x, %scale, %offset, "
                              "%mean, %var), epsilon=0.001, feature_index=1"));
  EXPECT_THAT(text, HasSubstr("batch-norm-grad(%x, %scale, %mean, %var, %x), "
                              "epsilon=0.001, feature_index=1"));
}

TEST(BatchNormTest, Errors) {
  {
    Builder b("batch_norm_feature_index");
    b.BatchNormTraining(b.Parameter(0, F32({2, 3}), "x"),
                        b.Parameter(1, F32({3}), "s"),
                        b.Parameter(2, F32({3}), "o"), 0.001f, 2);
    ExpectBuildError(b, "BatchNormTraining", {"f32[2,3]"});
  }
  {
    Builder b("batch_norm_scale");
    b.BatchNormInference(
        b.Parameter(0, F32({2, 3}), "x"), b.Parameter(1, F32({2}), "s"),
        b.Parameter(2, F32({3}), "o"), b.Parameter(3, F32({3}), "m"),
        b.Parameter(4, F32({3}), "v"), 0.001f, 1);
    ExpectBuildError(b, "BatchNormInference", {"f32[2]"});
  }
  {
    Builder b("batch_norm_grad_output");
    b.BatchNormGrad(
        b.Parameter(0, F32({2, 3}), "x"), b.Parameter(1, F32({3}), "s"),
        b.Parameter(2, F32({3}), "m"), b.Parameter(3, F32({3}), "v"),
        b.Parameter(4, F32({2, 4}), "dy"), 0.001f, 1);
    ExpectBuildError(b, "BatchNormGrad", {"f32[2,4]"});
  }
}

}  // namespace
}  // namespace plexa::builder_test
