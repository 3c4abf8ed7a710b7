// Shape inference of dot's structured-sparse form. Shapes from XLA's
// shape_inference_test (SparseDotMetadata, DotWithSparseLhs/Rhs,
// DotWithIncorrectSparseDimensionSizeRatio) and by hand; each check's
// error.
#include "core/ir/sparse_dot.h"

#include <vector>

#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

constexpr PrimitiveType kNone = PrimitiveType::PRIMITIVE_TYPE_INVALID;

DotDimensionNumbers Dims(std::vector<int64_t> lc, std::vector<int64_t> rc,
                         std::vector<int64_t> lb = {},
                         std::vector<int64_t> rb = {}) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = lc;
  d.rhs_contracting_dimensions = rc;
  d.lhs_batch_dimensions = lb;
  d.rhs_batch_dimensions = rb;
  return d;
}

TEST(SparseDotShapeTest, MetadataShapeAsXla) {
  // XLA's SparseDotMetadata: f32[5,10,16], 2:4 along dimension 2 -> u16
  // [5,10,2] (16 stored values, 2 bits each, 8 per u16).
  EXPECT_EQ(sparse_dot::MetadataShape(S("f32[5,10,16]"), {0, 2, 2, 4}),
            S("u16[5,10,2]"));
  // A partial word rounds up; 1:2 packs 16 one-bit positions per word.
  EXPECT_EQ(sparse_dot::MetadataShape(S("f32[2,4]"), {0, 1, 2, 4}),
            S("u16[2,1]"));
  EXPECT_EQ(sparse_dot::MetadataShape(S("f32[32,3]"), {1, 0, 1, 2}),
            S("u16[2,3]"));
  EXPECT_EQ(sparse_dot::IndexBits(4), 2);
  EXPECT_EQ(sparse_dot::IndexBits(5), 3);
  EXPECT_EQ(sparse_dot::PositionsPerElement(4), 8);
  EXPECT_EQ(sparse_dot::PositionsPerElement(8), 0);  // 3 bits: no fit
  EXPECT_EQ(sparse_dot::PositionsPerElement(16), 4);
}

TEST(SparseDotShapeTest, SparseLhsAndRhs) {
  // XLA's DotWithSparseLhs: f32[10,16] 2:4 . f32[32,20] -> f32[10,20].
  const Shape lhs = S("f32[10,16]"), rhs = S("f32[32,20]");
  const Shape meta = S("u16[10,2]");
  const SparsityDescriptor l{0, 1, 2, 4};
  EXPECT_SHAPE(
      InferSparseDotShape({&lhs, &rhs, &meta}, Dims({1}, {0}), {l}, kNone),
      "f32[10,20]");
  // DotWithSparseRhs: f32[10,32] . f32[20,16] (R.1@2:4, rhs contracting 1).
  const Shape lhs2 = S("f32[10,32]"), rhs2 = S("f32[20,16]");
  const Shape meta2 = S("u16[20,2]");
  EXPECT_SHAPE(InferSparseDotShape({&lhs2, &rhs2, &meta2}, Dims({1}, {1}),
                                   {SparsityDescriptor{1, 1, 2, 4}}, kNone),
               "f32[10,20]");
  // Both, batched, with a preferred type.
  const Shape bl = S("bf16[2,3,8]"), br = S("bf16[2,8,4]");
  const Shape bml = S("u16[2,3,1]"), bmr = S("u16[2,1,4]");
  EXPECT_SHAPE(
      InferSparseDotShape(
          {&bl, &br, &bml, &bmr}, Dims({2}, {1}, {0}, {0}),
          {SparsityDescriptor{0, 2, 2, 4}, SparsityDescriptor{1, 1, 2, 4}},
          PrimitiveType::F32),
      "f32[2,3,4]");
}

TEST(SparseDotShapeTest, Errors) {
  const Shape lhs = S("f32[10,16]"), rhs = S("f32[32,20]");
  const Shape meta = S("u16[10,2]");
  const SparsityDescriptor l{0, 1, 2, 4};
  // XLA's DotWithIncorrectSparseDimensionSizeRatio: the lhs stores 32.
  const Shape wide = S("f32[10,32]"), wide_meta = S("u16[10,4]");
  EXPECT_INVALID(InferSparseDotShape({&wide, &rhs, &wide_meta}, Dims({1}, {0}),
                                     {l}, kNone),
                 "f32[10,64]", "contracting dimension sizes do not match");
  // The metadata operand missing, or of the wrong shape or type.
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs}, Dims({1}, {0}), {l}, kNone),
                 "expects 3 operands");
  const Shape bad_meta = S("u16[10,3]"), s16_meta = S("s16[10,2]");
  EXPECT_INVALID(
      InferSparseDotShape({&lhs, &rhs, &bad_meta}, Dims({1}, {0}), {l}, kNone),
      "metadata operand 2 is u16[10,3]", "needs u16[10,2]");
  EXPECT_INVALID(
      InferSparseDotShape({&lhs, &rhs, &s16_meta}, Dims({1}, {0}), {l}, kNone),
      "metadata operand 2 is s16[10,2]");
  // Not a contracting dimension; out of range; not N:M; two on one side.
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs, &meta}, Dims({1}, {0}),
                                     {SparsityDescriptor{0, 0, 2, 4}}, kNone),
                 "sparse dimension 0 of the lhs is not one of its contracting");
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs, &meta}, Dims({1}, {0}),
                                     {SparsityDescriptor{0, 2, 2, 4}}, kNone),
                 "sparse dimension 2 is out of range");
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs, &meta}, Dims({1}, {0}),
                                     {SparsityDescriptor{0, 1, 4, 4}}, kNone),
                 "4:4 is not a structured sparsity");
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs, &meta, &meta}, Dims({1}, {0}),
                                     {l, l}, kNone),
                 "the lhs has two sparsity descriptors");
  EXPECT_INVALID(InferSparseDotShape({&lhs, &rhs, &meta}, Dims({1}, {0}),
                                     {SparsityDescriptor{2, 1, 2, 4}}, kNone),
                 "names operand 2");
  // Not a whole number of groups: 3 stored values at 2:4.
  const Shape odd = S("f32[10,3]"), odd_meta = S("u16[10,1]"),
              rhs6 = S("f32[6,20]");
  EXPECT_INVALID(
      InferSparseDotShape({&odd, &rhs6, &odd_meta}, Dims({1}, {0}), {l}, kNone),
      "not a whole number of groups of 2");
  // Dynamic dimensions are refused by name.
  const Shape dyn = S("f32[<=10,16]");
  absl::StatusOr<Shape> d =
      InferSparseDotShape({&dyn, &rhs, &meta}, Dims({1}, {0}), {l}, kNone);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace plexa::shape_inference
