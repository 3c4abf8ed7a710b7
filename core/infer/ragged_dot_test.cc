// ragged-dot shape inference: the three modes with the shapes of XLA's and
// StableHLO's own examples (results worked out by hand from the rules in
// shape_inference.h), and each check's error.
#include <vector>

#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

constexpr PrimitiveType kNone = PrimitiveType::PRIMITIVE_TYPE_INVALID;

DotDimensionNumbers Dims(std::vector<int64_t> lhs_batch,
                         std::vector<int64_t> rhs_batch,
                         std::vector<int64_t> lhs_contracting,
                         std::vector<int64_t> rhs_contracting) {
  DotDimensionNumbers d;
  d.lhs_batch_dimensions = std::move(lhs_batch);
  d.rhs_batch_dimensions = std::move(rhs_batch);
  d.lhs_contracting_dimensions = std::move(lhs_contracting);
  d.rhs_contracting_dimensions = std::move(rhs_contracting);
  return d;
}

TEST(RaggedDotShapeTest, RaggedNonContracting) {
  // [m,k], [g,k,n], [g] -> [m,n]
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"), S("s64[3]"),
                                   Dims({}, {}, {1}, {1}), {0}, {0}, kNone),
               "f32[11,7]");
  // [b,m,k], [g,b,k,n], [g] and [b,g] -> [b,m,n]
  const DotDimensionNumbers batched = Dims({0}, {1}, {2}, {2});
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[2,11,5]"), S("f32[3,2,5,7]"),
                                   S("s64[3]"), batched, {1}, {0}, kNone),
               "f32[2,11,7]");
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[2,11,5]"), S("f32[3,2,5,7]"),
                                   S("s32[2,3]"), batched, {1}, {0}, kNone),
               "f32[2,11,7]");
  // An outer non-contracting dimension indexes group_sizes too: [x,m,k],
  // [g,k,n], [x,g] -> [x,m,n] (XLA's mhlo_to_hlo ragged_dot test).
  EXPECT_SHAPE(
      InferRaggedDotShape(S("f32[19,11,5]"), S("f32[3,5,7]"), S("s64[19,3]"),
                          Dims({}, {}, {2}, {1}), {1}, {0}, kNone),
      "f32[19,11,7]");
  // The group dimension may be anywhere in the rhs.
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f32[5,7,3]"), S("s32[3]"),
                                   Dims({}, {}, {1}, {0}), {0}, {2}, kNone),
               "f32[11,7]");
}

TEST(RaggedDotShapeTest, RaggedContractingAddsTheGroupDimension) {
  // [m,k], [k,n], [g] -> [g,m,n]
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f32[5,7]"), S("s32[3]"),
                                   Dims({}, {}, {1}, {0}), {1}, {}, kNone),
               "f32[3,11,7]");
  // [b,m,k], [b,k,n], [b,g] -> [g,b,m,n]
  EXPECT_SHAPE(
      InferRaggedDotShape(S("f32[2,11,5]"), S("f32[2,5,7]"), S("s64[2,4]"),
                          Dims({0}, {0}, {2}, {1}), {2}, {}, kNone),
      "f32[4,2,11,7]");
  // Two contracting dimensions, ragged in the second: group_sizes is
  // indexed by the first ([x,g]).
  EXPECT_SHAPE(
      InferRaggedDotShape(S("f32[11,19,5]"), S("f32[19,5,7]"), S("s64[19,3]"),
                          Dims({}, {}, {1, 2}, {0, 1}), {2}, {}, kNone),
      "f32[3,11,7]");
}

TEST(RaggedDotShapeTest, RaggedBatchKeepsDotsShape) {
  EXPECT_SHAPE(
      InferRaggedDotShape(S("f32[2,11,5]"), S("f32[2,5,7]"), S("s32[3]"),
                          Dims({0}, {0}, {2}, {1}), {0}, {}, kNone),
      "f32[2,11,7]");
  // Ragged in the second batch dimension: group_sizes is [b0,g].
  EXPECT_SHAPE(
      InferRaggedDotShape(S("f32[2,4,11,5]"), S("f32[2,4,5,7]"), S("s32[2,3]"),
                          Dims({0, 1}, {0, 1}, {3}, {2}), {1}, {}, kNone),
      "f32[2,4,11,7]");
}

TEST(RaggedDotShapeTest, PreferredElementTypeAsDot) {
  EXPECT_SHAPE(
      InferRaggedDotShape(S("s8[4,2]"), S("s8[2,2,3]"), S("s32[2]"),
                          Dims({}, {}, {1}, {1}), {0}, {0}, PrimitiveType::S32),
      "s32[4,3]");
  EXPECT_SHAPE(
      InferRaggedDotShape(S("bf16[4,2]"), S("bf16[2,2,3]"), S("s32[2]"),
                          Dims({}, {}, {1}, {1}), {0}, {0}, PrimitiveType::F32),
      "f32[4,3]");
  EXPECT_INVALID(
      InferRaggedDotShape(S("s32[4,2]"), S("s32[2,2,3]"), S("s32[2]"),
                          Dims({}, {}, {1}, {1}), {0}, {0}, PrimitiveType::S8),
      "narrower");
}

TEST(RaggedDotShapeTest, RaggedDimensionErrors) {
  const DotDimensionNumbers d = Dims({}, {}, {1}, {1});
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {}, {0}, kNone),
                 "ragged-dot(f32[11,5], f32[3,5,7], s32[3])",
                 "exactly one ragged dimension in the lhs; got 0");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {0, 1}, {0}, kNone),
                 "exactly one ragged dimension in the lhs; got 2");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {2}, {0}, kNone),
                 "lhs ragged dimension 2 is out of range [0, 2)");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {-1}, {0}, kNone),
                 "out of range");
}

TEST(RaggedDotShapeTest, GroupDimensionErrors) {
  const DotDimensionNumbers d = Dims({}, {}, {1}, {1});
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {0}, {}, kNone),
                 "exactly one group dimension in the rhs", "non-contracting");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[4]"), d, {0}, {0}, kNone),
                 "rhs group dimension 0 has size 3", "has 4 groups");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {0}, {1}, kNone),
                 "rhs group dimension 1 cannot be a batch or contracting");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[3]"), d, {0}, {3}, kNone),
                 "rhs group dimension 3 is out of range [0, 3)");
  EXPECT_INVALID(
      InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"), S("s32[3]"),
                          Dims({}, {}, {1}, {1}), {1}, {0}, kNone),
      "no group dimension in the rhs", "contracting");
  EXPECT_INVALID(
      InferRaggedDotShape(S("f32[2,11,5]"), S("f32[2,5,7]"), S("s32[3]"),
                          Dims({0}, {0}, {2}, {1}), {0}, {2}, kNone),
      "no group dimension in the rhs", "batch");
}

TEST(RaggedDotShapeTest, GroupSizesErrors) {
  const DotDimensionNumbers d = Dims({}, {}, {1}, {1});
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("f32[3]"), d, {0}, {0}, kNone),
                 "group_sizes must have an integer element type; got f32");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("pred[3]"), d, {0}, {0}, kNone),
                 "integer element type");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s32[]"), d, {0}, {0}, kNone),
                 "group_sizes must have rank 1 or more");
  // StableHLO's example: [3,2] where only [3] fits.
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("s64[3,2]"), d, {0}, {0}, kNone),
                 "group_sizes must have rank 1; got s64[3,2]");
  // StableHLO's example: the prefix is [b, m-outer] = [19,17].
  EXPECT_INVALID(InferRaggedDotShape(S("f32[19,17,11,5]"), S("f32[3,19,5,7]"),
                                     S("s64[19,11,3]"),
                                     Dims({0}, {1}, {3}, {2}), {2}, {0}, kNone),
                 "group_sizes must have shape [19,17,3]", "got s64[19,11,3]");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[19,17,11,5]"), S("f32[3,19,5,7]"),
                                     S("s64[19,3]"), Dims({0}, {1}, {3}, {2}),
                                     {2}, {0}, kNone),
                 "group_sizes must have rank 1 or 3");
  EXPECT_INVALID(InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"),
                                     S("(s32[3])"), d, {0}, {0}, kNone),
                 "group_sizes of ragged-dot");
}

TEST(RaggedDotShapeTest, DotDimensionErrors) {
  EXPECT_INVALID(
      InferRaggedDotShape(S("f32[11,5]"), S("f32[3,2,7]"), S("s64[3]"),
                          Dims({}, {}, {1}, {1}), {0}, {0}, kNone),
      "ragged-dot(", "contracting dimension sizes do not match");
  EXPECT_INVALID(
      InferRaggedDotShape(S("f32[11,5]"), S("f32[3,5,7]"), S("s64[3]"),
                          Dims({}, {}, {2}, {1}), {0}, {0}, kNone),
      "a dimension number is out of range");
  // Two operand types, as XLA's dot rule: the higher-precision one.
  EXPECT_SHAPE(InferRaggedDotShape(S("f32[11,5]"), S("f16[3,5,7]"), S("s64[3]"),
                                   Dims({}, {}, {1}, {1}), {0}, {0}, kNone),
               "f32[11,7]");
}

TEST(RaggedDotShapeTest, GroupSizesPrefix) {
  // StableHLO's rules, by hand: mode 1 batch dims then outer m dims; mode 2
  // batch dims then the contracting dims listed before the ragged one;
  // mode 3 the batch dims listed before the ragged one.
  EXPECT_EQ(RaggedDotGroupSizesPrefix(Dims({0}, {1}, {3}, {2}), 2, 4),
            (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(RaggedDotGroupSizesPrefix(Dims({2}, {0}, {1, 3}, {1, 2}), 3, 4),
            (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(RaggedDotGroupSizesPrefix(Dims({1, 0}, {0, 1}, {3}, {2}), 0, 4),
            (std::vector<int64_t>{1}));
  EXPECT_EQ(GetRaggedDotMode(Dims({1, 0}, {0, 1}, {3}, {2}), 0),
            RaggedDotMode::kBatch);
  EXPECT_EQ(GetRaggedDotMode(Dims({1, 0}, {0, 1}, {3}, {2}), 3),
            RaggedDotMode::kContracting);
  EXPECT_EQ(GetRaggedDotMode(Dims({1, 0}, {0, 1}, {3}, {2}), 2),
            RaggedDotMode::kNonContracting);
}

}  // namespace
}  // namespace plexa::shape_inference
