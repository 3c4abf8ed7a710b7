#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

constexpr PrimitiveType kNoPreference = PrimitiveType::PRIMITIVE_TYPE_INVALID;

DotDimensionNumbers DotDims(std::vector<int64_t> lhs_contracting,
                            std::vector<int64_t> rhs_contracting,
                            std::vector<int64_t> lhs_batch = {},
                            std::vector<int64_t> rhs_batch = {}) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = std::move(lhs_contracting);
  d.rhs_contracting_dimensions = std::move(rhs_contracting);
  d.lhs_batch_dimensions = std::move(lhs_batch);
  d.rhs_batch_dimensions = std::move(rhs_batch);
  return d;
}

// ---- Dot -------------------------------------------------------------

// Seed 004's table: vector n . vector n is a scalar; matrix mxk . vector k
// is vector m; matrix mxk . matrix kxn is matrix mxn.
TEST(DotTest, SeedTable) {
  EXPECT_SHAPE(
      InferDotShape(S("f32[5]"), S("f32[5]"), DotDims({0}, {0}), kNoPreference),
      "f32[]");
  EXPECT_SHAPE(InferDotShape(S("f32[3,5]"), S("f32[5]"), DotDims({1}, {0}),
                             kNoPreference),
               "f32[3]");
  EXPECT_SHAPE(InferDotShape(S("f32[3,5]"), S("f32[5,7]"), DotDims({1}, {0}),
                             kNoPreference),
               "f32[3,7]");
  // The contracted sizes must agree.
  EXPECT_INVALID(InferDotShape(S("f32[3,5]"), S("f32[4,7]"), DotDims({1}, {0}),
                               kNoPreference),
                 "f32[3,5]", "f32[4,7]", "contracting");
}

TEST(DotTest, GeneralDimensionNumbers) {
  // Batch dimensions first, then lhs free, then rhs free.
  EXPECT_SHAPE(InferDotShape(S("f32[8,3,5]"), S("f32[8,5,7]"),
                             DotDims({2}, {1}, {0}, {0}), kNoPreference),
               "f32[8,3,7]");
  EXPECT_SHAPE(InferDotShape(S("f32[3,8,5]"), S("f32[5,8,7]"),
                             DotDims({2}, {0}, {1}, {1}), kNoPreference),
               "f32[8,3,7]");
  // Several contracting dimensions; no contracting at all (outer product).
  EXPECT_SHAPE(InferDotShape(S("f32[2,3,4]"), S("f32[4,3,6]"),
                             DotDims({1, 2}, {1, 0}), kNoPreference),
               "f32[2,6]");
  EXPECT_SHAPE(
      InferDotShape(S("f32[2]"), S("f32[3]"), DotDims({}, {}), kNoPreference),
      "f32[2,3]");
  EXPECT_SHAPE(InferDotShape(S("f32[<=4,5]"), S("f32[5,2]"), DotDims({1}, {0}),
                             kNoPreference),
               "f32[<=4,2]");
}

TEST(DotTest, PreferredType) {
  EXPECT_SHAPE(InferDotShape(S("s8[3,5]"), S("s8[5,7]"), DotDims({1}, {0}),
                             PrimitiveType::S32),
               "s32[3,7]");
  EXPECT_SHAPE(InferDotShape(S("bf16[3,5]"), S("bf16[5,7]"), DotDims({1}, {0}),
                             PrimitiveType::F32),
               "f32[3,7]");
  // Floats may also be narrowed; integers may not.
  EXPECT_SHAPE(InferDotShape(S("f32[3,5]"), S("f32[5,7]"), DotDims({1}, {0}),
                             PrimitiveType::BF16),
               "bf16[3,7]");
  EXPECT_INVALID(InferDotShape(S("s32[3,5]"), S("s32[5,7]"), DotDims({1}, {0}),
                               PrimitiveType::S8),
                 "s8", "s32", "narrower");
  EXPECT_INVALID(InferDotShape(S("f32[3,5]"), S("f32[5,7]"), DotDims({1}, {0}),
                               PrimitiveType::TUPLE),
                 "tuple");
}

TEST(DotTest, Errors) {
  EXPECT_INVALID(InferDotShape(S("f32[3,5]"), S("f32[5,7]"), DotDims({2}, {0}),
                               kNoPreference),
                 "f32[3,5]", "out of range");
  EXPECT_INVALID(InferDotShape(S("f32[3,5]"), S("f32[5,7]"),
                               DotDims({1, 1}, {0, 0}), kNoPreference),
                 "not unique");
  EXPECT_INVALID(InferDotShape(S("f32[3,5]"), S("f32[5,7]"), DotDims({1}, {}),
                               kNoPreference),
                 "number of contracting");
  EXPECT_INVALID(InferDotShape(S("f32[8,3,5]"), S("f32[9,5,7]"),
                               DotDims({2}, {1}, {0}, {0}), kNoPreference),
                 "f32[8,3,5]", "f32[9,5,7]", "batch");
  EXPECT_INVALID(InferDotShape(S("f32[8,3,5]"), S("f32[8,5,7]"),
                               DotDims({2}, {1}, {0}, {}), kNoPreference),
                 "number of batch");
  // Two operand types (XLA's InferDotOpShape no longer compares them): the
  // higher-precision one without a preferred type.
  EXPECT_SHAPE(InferDotShape(S("f32[3,5]"), S("s32[5,7]"), DotDims({1}, {0}),
                             kNoPreference),
               "f32[3,7]");
  EXPECT_INVALID(InferDotShape(S("(f32[3,5])"), S("f32[5,7]"),
                               DotDims({1}, {0}), kNoPreference),
                 "(f32[3,5])");
}

// ---- Convolution -------------------------------------------------------

ConvolutionDimensionNumbers Nchw() {
  // dim_labels=bf01_oi01->bf01
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_feature_dimension = 1;
  d.input_spatial_dimensions = {2, 3};
  d.kernel_output_feature_dimension = 0;
  d.kernel_input_feature_dimension = 1;
  d.kernel_spatial_dimensions = {2, 3};
  d.output_batch_dimension = 0;
  d.output_feature_dimension = 1;
  d.output_spatial_dimensions = {2, 3};
  return d;
}

Window ConvWindow(int64_t size, int64_t stride, int64_t pad_low = 0,
                  int64_t pad_high = 0, int64_t lhs_dilate = 1,
                  int64_t rhs_dilate = 1) {
  Window w;
  for (int i = 0; i < 2; ++i) {
    WindowDimension d;
    d.size = size;
    d.stride = stride;
    d.padding_low = pad_low;
    d.padding_high = pad_high;
    d.base_dilation = lhs_dilate;
    d.window_dilation = rhs_dilate;
    w.dimensions.push_back(d);
  }
  return w;
}

TEST(ConvolutionTest, PaddingStrideDilation) {
  // 5x5 input, 3x3 kernel: valid 3x3; padding 1 keeps 5x5; stride 2 with
  // valid padding (5-3)/2+1 = 2; lhs dilation 2: 9x9 base -> 7x7; rhs
  // dilation 2: 5-wide window -> 1x1.
  const Shape in = S("f32[1,2,5,5]");
  const Shape k = S("f32[4,2,3,3]");
  EXPECT_SHAPE(
      InferConvolveShape(in, k, 1, 1, ConvWindow(3, 1), Nchw(), kNoPreference),
      "f32[1,4,3,3]");
  EXPECT_SHAPE(InferConvolveShape(in, k, 1, 1, ConvWindow(3, 1, 1, 1), Nchw(),
                                  kNoPreference),
               "f32[1,4,5,5]");
  EXPECT_SHAPE(
      InferConvolveShape(in, k, 1, 1, ConvWindow(3, 2), Nchw(), kNoPreference),
      "f32[1,4,2,2]");
  EXPECT_SHAPE(InferConvolveShape(in, k, 1, 1, ConvWindow(3, 1, 0, 0, 2),
                                  Nchw(), kNoPreference),
               "f32[1,4,7,7]");
  EXPECT_SHAPE(InferConvolveShape(in, k, 1, 1, ConvWindow(3, 1, 0, 0, 1, 2),
                                  Nchw(), kNoPreference),
               "f32[1,4,1,1]");
}

TEST(ConvolutionTest, DimLabelsNhwc) {
  // dim_labels=b01f_01io->b01f
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = 0;
  d.input_spatial_dimensions = {1, 2};
  d.input_feature_dimension = 3;
  d.kernel_spatial_dimensions = {0, 1};
  d.kernel_input_feature_dimension = 2;
  d.kernel_output_feature_dimension = 3;
  d.output_batch_dimension = 0;
  d.output_spatial_dimensions = {1, 2};
  d.output_feature_dimension = 3;
  EXPECT_SHAPE(InferConvolveShape(S("f32[1,5,5,2]"), S("f32[3,3,2,4]"), 1, 1,
                                  ConvWindow(3, 1), d, kNoPreference),
               "f32[1,3,3,4]");
}

TEST(ConvolutionTest, GroupCounts) {
  // feature_group_count 2: input features 4 = kernel input features 2 * 2.
  EXPECT_SHAPE(InferConvolveShape(S("f32[1,4,5,5]"), S("f32[6,2,3,3]"), 2, 1,
                                  ConvWindow(3, 1), Nchw(), kNoPreference),
               "f32[1,6,3,3]");
  EXPECT_INVALID(InferConvolveShape(S("f32[1,4,5,5]"), S("f32[6,3,3,3]"), 2, 1,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "f32[1,4,5,5]", "f32[6,3,3,3]", "feature_group_count");
  EXPECT_INVALID(InferConvolveShape(S("f32[1,4,5,5]"), S("f32[5,2,3,3]"), 2, 1,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "f32[5,2,3,3]", "divisible by feature_group_count");
  // batch_group_count 2: the batch is split, output features divisible.
  EXPECT_SHAPE(InferConvolveShape(S("f32[4,2,5,5]"), S("f32[6,2,3,3]"), 1, 2,
                                  ConvWindow(3, 1), Nchw(), kNoPreference),
               "f32[2,6,3,3]");
  EXPECT_INVALID(InferConvolveShape(S("f32[3,2,5,5]"), S("f32[6,2,3,3]"), 1, 2,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "f32[3,2,5,5]", "batch_group_count");
  EXPECT_INVALID(InferConvolveShape(S("f32[4,2,5,5]"), S("f32[5,2,3,3]"), 1, 2,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "batch_group_count");
  EXPECT_INVALID(InferConvolveShape(S("f32[4,4,5,5]"), S("f32[6,2,3,3]"), 2, 2,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "both");
  EXPECT_INVALID(InferConvolveShape(S("f32[4,4,5,5]"), S("f32[6,2,3,3]"), 0, 1,
                                    ConvWindow(3, 1), Nchw(), kNoPreference),
                 "positive");
}

TEST(ConvolutionTest, Errors) {
  const Shape in = S("f32[1,2,5,5]");
  const Shape k = S("f32[4,2,3,3]");
  EXPECT_INVALID(
      InferConvolveShape(in, k, 1, 1, ConvWindow(2, 1), Nchw(), kNoPreference),
      "f32[1,2,5,5]", "f32[4,2,3,3]", "window size 2");
  ConvolutionDimensionNumbers bad = Nchw();
  bad.input_feature_dimension = 0;
  EXPECT_INVALID(
      InferConvolveShape(in, k, 1, 1, ConvWindow(3, 1), bad, kNoPreference),
      "input dimension numbers");
  EXPECT_INVALID(InferConvolveShape(S("f32[1,2,5]"), k, 1, 1, ConvWindow(3, 1),
                                    Nchw(), kNoPreference),
                 "f32[1,2,5]", "rank 4");
  // Two operand types, as XLA: the higher-precision one.
  EXPECT_SHAPE(InferConvolveShape(in, S("s32[4,2,3,3]"), 1, 1, ConvWindow(3, 1),
                                  Nchw(), kNoPreference),
               "f32[1,4,3,3]");
  Window w1;
  w1.dimensions.push_back(ConvWindow(3, 1).dimensions[0]);
  EXPECT_INVALID(InferConvolveShape(in, k, 1, 1, w1, Nchw(), kNoPreference),
                 "window");
  EXPECT_INVALID(
      InferConvolveShape(in, k, 1, 1, ConvWindow(3, 0), Nchw(), kNoPreference),
      "stride");
}

TEST(ConvolutionTest, PreferredType) {
  EXPECT_SHAPE(InferConvolveShape(S("s8[1,2,5,5]"), S("s8[4,2,3,3]"), 1, 1,
                                  ConvWindow(3, 1), Nchw(), PrimitiveType::S32),
               "s32[1,4,3,3]");
}

// ---- Triangular solve, Cholesky -------------------------------------------

TEST(TriangularSolveTest, Shapes) {
  TriangularSolveOptions left;
  left.left_side = true;
  TriangularSolveOptions right;
  EXPECT_SHAPE(InferTriangularSolveShape(S("f32[3,3]"), S("f32[3,4]"), left),
               "f32[3,4]");
  EXPECT_SHAPE(InferTriangularSolveShape(S("f32[3,3]"), S("f32[4,3]"), right),
               "f32[4,3]");
  EXPECT_SHAPE(
      InferTriangularSolveShape(S("c64[2,3,3]"), S("c64[2,3,5]"), left),
      "c64[2,3,5]");
  EXPECT_INVALID(InferTriangularSolveShape(S("f32[3,3]"), S("f32[3,4]"), right),
                 "f32[3,3]", "f32[3,4]", "shared");
  EXPECT_INVALID(InferTriangularSolveShape(S("f32[3,4]"), S("f32[3,4]"), left),
                 "f32[3,4]", "square");
  EXPECT_INVALID(InferTriangularSolveShape(S("s32[3,3]"), S("s32[3,4]"), left),
                 "s32[3,3]", "floating");
  EXPECT_INVALID(
      InferTriangularSolveShape(S("f32[2,3,3]"), S("f32[4,3,4]"), left),
      "f32[2,3,3]", "batch");
  EXPECT_INVALID(InferTriangularSolveShape(S("f32[3]"), S("f32[3]"), left),
                 "f32[3]", "rank");
}

TEST(CholeskyTest, Shapes) {
  EXPECT_SHAPE(InferCholeskyShape(S("f32[2,3,3]")), "f32[2,3,3]");
  EXPECT_INVALID(InferCholeskyShape(S("f32[3,4]")), "f32[3,4]", "cholesky");
  EXPECT_INVALID(InferCholeskyShape(S("s32[3,3]")), "s32[3,3]");
  EXPECT_INVALID(InferCholeskyShape(S("f32[3]")), "f32[3]", "rank");
}

// ---- Batch norm ----------------------------------------------------------

TEST(BatchNormTest, Training) {
  EXPECT_SHAPE(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[5]"),
                                           S("f32[5]"), 3),
               "(f32[2,3,4,5], f32[5], f32[5])");
  EXPECT_SHAPE(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[3]"),
                                           S("f32[3]"), 1),
               "(f32[2,3,4,5], f32[3], f32[3])");
  EXPECT_INVALID(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[5]"),
                                             S("f32[5]"), 4),
                 "f32[2,3,4,5]", "feature_index");
  EXPECT_INVALID(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[5]"),
                                             S("f32[5]"), -1),
                 "feature_index");
  EXPECT_INVALID(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[4]"),
                                             S("f32[5]"), 3),
                 "f32[4]", "scale", "feature count 5");
  EXPECT_INVALID(InferBatchNormTrainingShape(S("f32[2,3,4,5]"), S("f32[5]"),
                                             S("f32[1,5]"), 3),
                 "f32[1,5]", "offset", "rank 1");
  EXPECT_INVALID(
      InferBatchNormTrainingShape(S("s32[2,3]"), S("s32[3]"), S("s32[3]"), 1),
      "s32[2,3]", "floating");
  EXPECT_INVALID(
      InferBatchNormTrainingShape(S("f32[2,3]"), S("f16[3]"), S("f32[3]"), 1),
      "f16[3]", "element type");
}

TEST(BatchNormTest, Inference) {
  const Shape f = S("f32[3]");
  EXPECT_SHAPE(InferBatchNormInferenceShape(S("f32[2,3,4]"), f, f, f, f, 1),
               "f32[2,3,4]");
  EXPECT_INVALID(
      InferBatchNormInferenceShape(S("f32[2,3,4]"), f, f, S("f32[4]"), f, 1),
      "mean", "f32[4]");
  EXPECT_INVALID(
      InferBatchNormInferenceShape(S("f32[2,3,4]"), f, f, f, S("f64[3]"), 1),
      "variance", "f64[3]");
}

TEST(BatchNormTest, Grad) {
  const Shape f = S("f32[3]");
  // (grad_operand, grad_scale, grad_offset)
  EXPECT_SHAPE(
      InferBatchNormGradShape(S("f32[2,3,4]"), f, f, f, S("f32[2,3,4]"), 1),
      "(f32[2,3,4], f32[3], f32[3])");
  EXPECT_INVALID(
      InferBatchNormGradShape(S("f32[2,3,4]"), f, f, f, S("f32[2,3,5]"), 1),
      "grad_output", "f32[2,3,5]");
  EXPECT_INVALID(
      InferBatchNormGradShape(S("f32[2,3,4]"), f, f, f, S("f32[2,3,4]"), 3),
      "feature_index");
}

}  // namespace
}  // namespace plexa::shape_inference
