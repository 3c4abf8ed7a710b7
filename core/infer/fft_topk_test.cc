#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

// ---- fft (XLA's InferFftShape) ---------------------------------------------

TEST(FftShapeTest, ComplexTransformsKeepTheShape) {
  EXPECT_SHAPE(InferFftShape(S("c64[8]"), FftType::kFft, {8}), "c64[8]");
  EXPECT_SHAPE(InferFftShape(S("c128[2,3,4]"), FftType::kIfft, {3, 4}),
               "c128[2,3,4]");
  // XLA ties neither FFT's nor IFFT's fft_length to the operand's extent.
  EXPECT_SHAPE(InferFftShape(S("c64[5,6]"), FftType::kFft, {4}), "c64[5,6]");
  EXPECT_INVALID(InferFftShape(S("f32[8]"), FftType::kFft, {8}), "FFT",
                 "complex", "f32[8]");
  EXPECT_INVALID(InferFftShape(S("c64[8]"), FftType::kIfft, {}), "1 to 3");
  EXPECT_INVALID(InferFftShape(S("c64[2,2,2,2]"), FftType::kFft, {2, 2, 2, 2}),
                 "1 to 3");
  EXPECT_INVALID(InferFftShape(S("c64[8]"), FftType::kFft, {8, 8}), "rank 2",
                 "c64[8]");
  EXPECT_INVALID(InferFftShape(S("c64[8]"), FftType::kFft, {-8}), "negative");
  EXPECT_INVALID(InferFftShape(S("(c64[8])"), FftType::kFft, {8}), "array");
}

TEST(FftShapeTest, RfftHalvesTheLastDimension) {
  EXPECT_SHAPE(InferFftShape(S("f32[8]"), FftType::kRfft, {8}), "c64[5]");
  EXPECT_SHAPE(InferFftShape(S("f32[7]"), FftType::kRfft, {7}), "c64[4]");
  EXPECT_SHAPE(InferFftShape(S("f64[3,4,6]"), FftType::kRfft, {4, 6}),
               "c128[3,4,4]");
  EXPECT_SHAPE(InferFftShape(S("f32[2,0]"), FftType::kRfft, {0}), "c64[2,0]");
  EXPECT_INVALID(InferFftShape(S("c64[8]"), FftType::kRfft, {8}), "RFFT",
                 "f32 or f64");
  EXPECT_INVALID(InferFftShape(S("f16[8]"), FftType::kRfft, {8}), "f32 or f64");
  // Every fft dimension must equal its fft_length.
  EXPECT_INVALID(InferFftShape(S("f32[4,8]"), FftType::kRfft, {4, 6}),
                 "dimension 1 is 8 and should be 6");
  EXPECT_INVALID(InferFftShape(S("f32[3,8]"), FftType::kRfft, {4, 8}),
                 "dimension 0 is 3 and should be 4");
}

TEST(FftShapeTest, IrfftTakesTheHalfSpectrum) {
  EXPECT_SHAPE(InferFftShape(S("c64[5]"), FftType::kIrfft, {8}), "f32[8]");
  EXPECT_SHAPE(InferFftShape(S("c64[5]"), FftType::kIrfft, {9}), "f32[9]");
  EXPECT_SHAPE(InferFftShape(S("c128[2,3,4,4]"), FftType::kIrfft, {3, 4, 6}),
               "f64[2,3,4,6]");
  EXPECT_INVALID(InferFftShape(S("c64[8]"), FftType::kIrfft, {8}),
                 "fft_length/2+1 = 5", "dimension 0 is 8");
  EXPECT_INVALID(InferFftShape(S("c64[3,5]"), FftType::kIrfft, {4, 8}),
                 "dimension 0 is 3 and should be 4");
  EXPECT_INVALID(InferFftShape(S("f32[5]"), FftType::kIrfft, {8}), "IRFFT",
                 "complex");
}

// ---- topk (XLA's InferTopKShape) -------------------------------------------

TEST(TopKShapeTest, ValuesAndIndices) {
  EXPECT_SHAPE(InferTopKShape(S("f32[4,16]"), 2), "(f32[4,2], s32[4,2])");
  EXPECT_SHAPE(InferTopKShape(S("s32[5]"), 5), "(s32[5], s32[5])");
  EXPECT_SHAPE(InferTopKShape(S("bf16[2,3,7]"), 0),
               "(bf16[2,3,0], s32[2,3,0])");
  EXPECT_INVALID(InferTopKShape(S("f32[4,16]"), 17), "k=17",
                 "larger than the last dimension", "f32[4,16]");
  EXPECT_INVALID(InferTopKShape(S("f32[4]"), -1), "negative");
  EXPECT_INVALID(InferTopKShape(S("f32[]"), 1), "rank >= 1");
  EXPECT_INVALID(InferTopKShape(S("(f32[4])"), 1), "array");
}

}  // namespace
}  // namespace plexa::shape_inference
