#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::Reducer;
using testing_util::S;

// ---- Broadcast -------------------------------------------------------

TEST(BroadcastTest, HloForm) {
  EXPECT_SHAPE(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {1}),
               "f32[2,3]");
  EXPECT_SHAPE(InferBroadcastShape(S("f32[2]"), S("f32[2,3]"), {0}),
               "f32[2,3]");
  EXPECT_SHAPE(InferBroadcastShape(S("s32[]"), S("s32[4,5]"), {}), "s32[4,5]");
  EXPECT_SHAPE(InferBroadcastShape(S("f32[2,3]"), S("f32[3,4,2]"), {2, 0}),
               "f32[3,4,2]");
  // The result element type is the operand's.
  EXPECT_SHAPE(InferBroadcastShape(S("s32[3]"), S("f32[2,3]"), {1}),
               "s32[2,3]");
}

TEST(BroadcastTest, HloFormErrors) {
  EXPECT_INVALID(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {0}), "f32[3]",
                 "f32[2,3]", "broadcast");
  EXPECT_INVALID(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {2}), "f32[3]",
                 "out of range");
  EXPECT_INVALID(InferBroadcastShape(S("f32[3]"), S("f32[2,3]"), {}), "f32[3]");
  EXPECT_INVALID(InferBroadcastShape(S("f32[3,3]"), S("f32[3,3]"), {1, 1}),
                 "f32[3,3]", "repeat");
  EXPECT_INVALID(InferBroadcastShape(S("f32[2,3]"), S("f32[3]"), {0, 1}),
                 "f32[2,3]", "f32[3]");
  // Size-1 operand dimensions are not stretched in HLO.
  EXPECT_INVALID(InferBroadcastShape(S("f32[1]"), S("f32[2,3]"), {1}),
                 "f32[1]");
}

// Seed 004: Broadcast(2.0f, {2, 3}) is f32[2,3]; new dimensions go left.
TEST(BroadcastTest, WithSizesFromSeed) {
  EXPECT_SHAPE(InferBroadcastWithSizesShape(S("f32[]"), {2, 3}), "f32[2,3]");
  EXPECT_SHAPE(InferBroadcastWithSizesShape(S("f32[4,5]"), {2, 3}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastWithSizesShape(S("f32[<=4]"), {2}), "f32[2,<=4]");
  EXPECT_INVALID(InferBroadcastWithSizesShape(S("f32[4]"), {-1}), "f32[4]",
                 "negative");
}

// ---- Reshape, transpose, reverse --------------------------------------

// Seed 004: v is f32[4x2x3]; reshapes to {24}, {8,3}, {2,6,2}; a 1x1 array
// to a scalar and back.
TEST(ReshapeTest, SeedExamples) {
  EXPECT_SHAPE(InferReshapeShape(S("f32[4,2,3]"), {24}), "f32[24]");
  EXPECT_SHAPE(InferReshapeShape(S("f32[4,2,3]"), {8, 3}), "f32[8,3]");
  EXPECT_SHAPE(InferReshapeShape(S("f32[4,2,3]"), {2, 6, 2}), "f32[2,6,2]");
  EXPECT_SHAPE(InferReshapeShape(S("f32[1,1]"), {}), "f32[]");
  EXPECT_SHAPE(InferReshapeShape(S("f32[]"), {1, 1}), "f32[1,1]");
  EXPECT_SHAPE(InferReshapeShape(S("f32[0,3]"), {3, 0}), "f32[3,0]");
}

TEST(ReshapeTest, ElementCountsMustMatch) {
  EXPECT_INVALID(InferReshapeShape(S("f32[4,2,3]"), {5, 5}), "f32[4,2,3]",
                 "f32[5,5]", "24", "25");
  EXPECT_INVALID(InferReshapeShape(S("f32[2]"), {-2, -1}), "f32[2]");
}

// Seed 004 Transpose: input_dimensions[permutation[i]] = output[i].
TEST(TransposeTest, Permutation) {
  EXPECT_SHAPE(InferTransposeShape(S("f32[2,3,4]"), {2, 0, 1}), "f32[4,2,3]");
  EXPECT_SHAPE(InferTransposeShape(S("f32[2,3]"), {1, 0}), "f32[3,2]");
  EXPECT_SHAPE(InferTransposeShape(S("f32[<=2,3]"), {1, 0}), "f32[3,<=2]");
  EXPECT_INVALID(InferTransposeShape(S("f32[2,3]"), {0, 0}), "f32[2,3]",
                 "permutation");
  EXPECT_INVALID(InferTransposeShape(S("f32[2,3]"), {0}), "f32[2,3]");
  EXPECT_INVALID(InferTransposeShape(S("f32[2,3]"), {0, 2}), "f32[2,3]");
}

TEST(ReverseTest, Dimensions) {
  EXPECT_SHAPE(InferReverseShape(S("f32[2,3]"), {0, 1}), "f32[2,3]");
  EXPECT_SHAPE(InferReverseShape(S("f32[2,3]"), {}), "f32[2,3]");
  EXPECT_INVALID(InferReverseShape(S("f32[2,3]"), {1, 1}), "f32[2,3]",
                 "duplicated");
  EXPECT_INVALID(InferReverseShape(S("f32[2,3]"), {2}), "f32[2,3]",
                 "out of bounds");
}

// ---- Concatenate -----------------------------------------------------

// Seed 004: Concat({{2,3},{4,5},{6,7}}, 0) has 6 elements; a (3x2) with
// b (1x2) along 0 is 4x2.
TEST(ConcatenateTest, SeedExamples) {
  const Shape v = S("f32[2]");
  EXPECT_SHAPE(InferConcatenateShape({&v, &v, &v}, 0), "f32[6]");
  const Shape a = S("s32[3,2]");
  const Shape b = S("s32[1,2]");
  EXPECT_SHAPE(InferConcatenateShape({&a, &b}, 0), "s32[4,2]");
}

TEST(ConcatenateTest, Errors) {
  const Shape a = S("f32[3,2]");
  const Shape b = S("f32[3,3]");
  EXPECT_SHAPE(InferConcatenateShape({&a, &b}, 1), "f32[3,5]");
  EXPECT_INVALID(InferConcatenateShape({&a, &b}, 0), "f32[3,2]", "f32[3,3]",
                 "differ");
  const Shape c = S("s32[3,2]");
  EXPECT_INVALID(InferConcatenateShape({&a, &c}, 0), "f32[3,2]", "s32[3,2]");
  const Shape d = S("f32[3]");
  EXPECT_INVALID(InferConcatenateShape({&a, &d}, 0), "f32[3,2]", "f32[3]",
                 "ranks");
  EXPECT_INVALID(InferConcatenateShape({&a, &b}, 2), "f32[3,2]",
                 "out of bounds");
  // Seed 004: rank-0 values cannot be concatenated.
  const Shape s = S("f32[]");
  EXPECT_INVALID(InferConcatenateShape({&s, &s}, 0), "f32[]");
  EXPECT_INVALID(InferConcatenateShape({}, 0), "at least one");
}

// ---- Slice ------------------------------------------------------------

// Seed 004: Slice(a f32[5], {2}, {4}) has 2 elements; Slice(b 4x3, {2,1},
// {4,3}) is 2x2.
TEST(SliceTest, SeedExamples) {
  EXPECT_SHAPE(InferSliceShape(S("f32[5]"), {{2, 4, 1}}), "f32[2]");
  EXPECT_SHAPE(InferSliceShape(S("f32[4,3]"), {{2, 4, 1}, {1, 3, 1}}),
               "f32[2,2]");
}

TEST(SliceTest, StridesRoundUp) {
  // [1:10:3] takes 1,4,7; [0:10:3] takes 0,3,6,9; [2:2] is empty.
  EXPECT_SHAPE(InferSliceShape(S("f32[10]"), {{1, 10, 3}}), "f32[3]");
  EXPECT_SHAPE(InferSliceShape(S("f32[10]"), {{0, 10, 3}}), "f32[4]");
  EXPECT_SHAPE(InferSliceShape(S("f32[10]"), {{2, 2, 1}}), "f32[0]");
  EXPECT_SHAPE(InferSliceShape(S("f32[<=10,<=4]"), {{0, 10, 1}, {1, 2, 1}}),
               "f32[<=10,1]");
}

TEST(SliceTest, Errors) {
  EXPECT_INVALID(InferSliceShape(S("f32[5]"), {{3, 2, 1}}), "f32[5]",
                 "start index");
  EXPECT_INVALID(InferSliceShape(S("f32[5]"), {{0, 6, 1}}), "f32[5]",
                 "dimension size");
  EXPECT_INVALID(InferSliceShape(S("f32[5]"), {{0, 5, 0}}), "f32[5]", "stride");
  EXPECT_INVALID(InferSliceShape(S("f32[5]"), {{-1, 2, 1}}), "f32[5]",
                 "negative");
  EXPECT_INVALID(InferSliceShape(S("f32[5,2]"), {{0, 5, 1}}), "f32[5,2]");
}

// ---- Dynamic slices ---------------------------------------------------

// Seed 004: DynamicSlice(a f32[5], s={2}, {2}) gives 2 elements;
// DynamicSlice(b 4x3, s={2,1}, {2,2}) gives 2x2 (older rank-1 index form).
TEST(DynamicSliceTest, SeedExamplesVectorIndex) {
  const Shape s1 = S("s32[1]");
  EXPECT_SHAPE(InferDynamicSliceShape(S("f32[5]"), {&s1}, {2}), "f32[2]");
  const Shape s2 = S("s32[2]");
  EXPECT_SHAPE(InferDynamicSliceShape(S("f32[4,3]"), {&s2}, {2, 2}),
               "f32[2,2]");
}

TEST(DynamicSliceTest, ScalarIndices) {
  const Shape i = S("s32[]");
  EXPECT_SHAPE(InferDynamicSliceShape(S("f32[4,3]"), {&i, &i}, {2, 2}),
               "f32[2,2]");
  const Shape u = S("u64[]");
  EXPECT_SHAPE(InferDynamicSliceShape(S("f32[5]"), {&u}, {5}), "f32[5]");
  EXPECT_SHAPE(InferDynamicSliceShape(S("f32[]"), {}, {}), "f32[]");
}

TEST(DynamicSliceTest, Errors) {
  const Shape i = S("s32[]");
  const Shape j = S("s64[]");
  const Shape f = S("f32[]");
  const Shape v3 = S("s32[3]");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&i, &j}, {2, 2}),
                 "f32[4,3]", "s32[]", "s64[]", "same type");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&f, &f}, {2, 2}),
                 "f32[]", "integral");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&i}, {2, 2}),
                 "f32[4,3]", "expected 2");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&i, &i}, {5, 2}),
                 "f32[4,3]", "greater");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&i, &i}, {-1, 2}),
                 "f32[4,3]", "negative");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&i, &i}, {2}),
                 "f32[4,3]", "slice size");
  EXPECT_INVALID(InferDynamicSliceShape(S("f32[4,3]"), {&v3}, {2, 2}),
                 "f32[4,3]", "s32[3]");
}

// Seed 004: DynamicUpdateSlice(a f32[5], u f32[2], s={2}) is f32[5];
// (b 4x3, u 3x2, s={1,1}) is 4x3.
TEST(DynamicUpdateSliceTest, SeedExamples) {
  const Shape s1 = S("s32[1]");
  EXPECT_SHAPE(InferDynamicUpdateSliceShape(S("f32[5]"), S("f32[2]"), {&s1}),
               "f32[5]");
  const Shape s2 = S("s32[2]");
  EXPECT_SHAPE(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[3,2]"), {&s2}),
      "f32[4,3]");
  const Shape i = S("s32[]");
  EXPECT_SHAPE(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[3,2]"), {&i, &i}),
      "f32[4,3]");
}

TEST(DynamicUpdateSliceTest, Errors) {
  const Shape i = S("s32[]");
  EXPECT_INVALID(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[5,2]"), {&i, &i}),
      "f32[4,3]", "f32[5,2]", "larger");
  EXPECT_INVALID(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[2]"), {&i, &i}),
      "f32[4,3]", "f32[2]", "rank");
  EXPECT_INVALID(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("s32[2,2]"), {&i, &i}),
      "f32[4,3]", "s32[2,2]", "element type");
  EXPECT_INVALID(
      InferDynamicUpdateSliceShape(S("f32[4,3]"), S("f32[2,2]"), {&i}),
      "f32[4,3]");
}

// ---- Pad ----------------------------------------------------------------

TEST(PadTest, EdgeAndInteriorPadding) {
  const Shape zero = S("f32[]");
  // 1 + 2 + 3 + (3-1)*1 = 8.
  EXPECT_SHAPE(InferPadShape(S("f32[3]"), zero, {{{1, 2, 1}}}), "f32[8]");
  // Negative edge padding removes elements: -2 + 0 + 5 = 3.
  EXPECT_SHAPE(InferPadShape(S("f32[5]"), zero, {{{-2, 0, 0}}}), "f32[3]");
  // Interior first, then negative edges: -1 - 1 + 3 + 2*2 = 5.
  EXPECT_SHAPE(InferPadShape(S("f32[3]"), zero, {{{-1, -1, 2}}}), "f32[5]");
  // Two dimensions: [2,3] with 0_1_0 and 2_-1_1: 2+1=3 and 2-1+3+2=6.
  EXPECT_SHAPE(InferPadShape(S("f32[2,3]"), zero, {{{0, 1, 0}, {2, -1, 1}}}),
               "f32[3,6]");
  // Interior padding of an empty dimension adds nothing.
  EXPECT_SHAPE(InferPadShape(S("f32[0]"), zero, {{{1, 1, 3}}}), "f32[2]");
  // Everything removed is fine (size 0), below zero is not.
  EXPECT_SHAPE(InferPadShape(S("f32[2]"), zero, {{{-1, -1, 0}}}), "f32[0]");
}

TEST(PadTest, Errors) {
  const Shape zero = S("f32[]");
  EXPECT_INVALID(InferPadShape(S("f32[2]"), zero, {{{-3, 0, 0}}}), "f32[2]",
                 "negative size");
  EXPECT_INVALID(InferPadShape(S("f32[2]"), zero, {{{0, 0, -1}}}), "f32[2]",
                 "interior");
  EXPECT_INVALID(InferPadShape(S("f32[2]"), S("f32[1]"), {{{0, 0, 0}}}),
                 "f32[2]", "f32[1]", "scalar");
  EXPECT_INVALID(InferPadShape(S("f32[2]"), S("s32[]"), {{{0, 0, 0}}}),
                 "f32[2]", "s32[]", "element type");
  EXPECT_INVALID(InferPadShape(S("f32[2,2]"), zero, {{{0, 0, 0}}}), "f32[2,2]",
                 "one entry per");
}

// ---- Gather -------------------------------------------------------------

GatherDimensionNumbers GatherDims(std::vector<int64_t> offset,
                                  std::vector<int64_t> collapsed,
                                  std::vector<int64_t> start_index_map,
                                  int64_t index_vector_dim,
                                  std::vector<int64_t> operand_batching = {},
                                  std::vector<int64_t> indices_batching = {}) {
  GatherDimensionNumbers d;
  d.offset_dims = std::move(offset);
  d.collapsed_slice_dims = std::move(collapsed);
  d.start_index_map = std::move(start_index_map);
  d.index_vector_dim = index_vector_dim;
  d.operand_batching_dims = std::move(operand_batching);
  d.start_indices_batching_dims = std::move(indices_batching);
  return d;
}

TEST(GatherTest, GatherRows) {
  // Rows 2 of a 3x3 matrix picked by s32[2] indices.
  EXPECT_SHAPE(InferGatherShape(S("f32[3,3]"), S("s32[2]"),
                                GatherDims({1}, {0}, {0}, 1), {1, 3}),
               "f32[2,3]");
  // Same with an explicit index vector dimension of size 1.
  EXPECT_SHAPE(InferGatherShape(S("f32[3,3]"), S("s32[2,1]"),
                                GatherDims({1}, {0}, {0}, 1), {1, 3}),
               "f32[2,3]");
}

TEST(GatherTest, PointGatherKeepingUnitDims) {
  // indices [2,2,2] with index_vector_dim 2, offset_dims {1,2}, slice 1x1:
  // result [2,1,1,2] (batch dims at 0 and 3).
  EXPECT_SHAPE(InferGatherShape(S("s32[3,3]"), S("s32[2,2,2]"),
                                GatherDims({1, 2}, {}, {0, 1}, 2), {1, 1}),
               "s32[2,1,1,2]");
}

TEST(GatherTest, BatchingDimensions) {
  // The StableHLO specification's example: operand 2x3x4x2, indices
  // 2x2x3x2, offset_dims [3,4], collapsed [1], operand_batching [0],
  // start_indices_batching [1], start_index_map [2,1], index_vector_dim 3,
  // slice_sizes [1,1,2,2] -> 2x2x3x2x2.
  EXPECT_SHAPE(InferGatherShape(S("s32[2,3,4,2]"), S("s64[2,2,3,2]"),
                                GatherDims({3, 4}, {1}, {2, 1}, 3, {0}, {1}),
                                {1, 1, 2, 2}),
               "s32[2,2,3,2,2]");
}

TEST(GatherTest, Errors) {
  const Shape op = S("f32[3,3]");
  EXPECT_INVALID(
      InferGatherShape(op, S("f32[2]"), GatherDims({1}, {0}, {0}, 1), {1, 3}),
      "f32[2]", "integral");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({1}, {0}, {0}, 3), {1, 3}),
      "index_vector_dim");
  EXPECT_INVALID(InferGatherShape(op, S("s32[2]"),
                                  GatherDims({1}, {0}, {0, 1}, 1), {1, 3}),
                 "start_index_map");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({1}, {0}, {0}, 1), {2, 3}),
      "collapsed dimension 0");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({1}, {0}, {0}, 1), {1, 4}),
      "slice size 4");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({1}, {}, {0}, 1), {1, 3}),
      "operand rank");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({2}, {0}, {0}, 1), {1, 3}),
      "offset dimension 2");
  EXPECT_INVALID(InferGatherShape(S("f32[3,3,3]"), S("s32[2]"),
                                  GatherDims({2, 1}, {0}, {0}, 1), {1, 3, 3}),
                 "sorted");
  EXPECT_INVALID(
      InferGatherShape(op, S("s32[2]"), GatherDims({1}, {0}, {0}, 1), {1}),
      "one slice size");
  // Batching dimensions: sizes must agree, counts match, not collapsed, not
  // in start_index_map, index_vector_dim not a batching dimension.
  const Shape bop = S("s32[2,3,4,2]");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,5,3,2]"),
                                  GatherDims({3, 4}, {1}, {2, 1}, 3, {0}, {1}),
                                  {1, 1, 2, 2}),
                 "same size");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,2,3,2]"),
                                  GatherDims({3, 4}, {1}, {2, 1}, 3, {0}, {}),
                                  {1, 1, 2, 2}),
                 "same size");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,2,3,2]"),
                                  GatherDims({3, 4}, {1}, {2, 1}, 3, {1}, {1}),
                                  {1, 1, 2, 2}),
                 "start_index_map and operand_batching_dims");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,2,3,2]"),
                                  GatherDims({3, 4}, {0}, {2, 1}, 3, {0}, {1}),
                                  {1, 1, 2, 2}),
                 "both collapsed and a batching");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,2,3,2]"),
                                  GatherDims({3, 4}, {1}, {2, 1}, 3, {0}, {3}),
                                  {1, 1, 2, 2}),
                 "index_vector_dim must not");
  EXPECT_INVALID(InferGatherShape(bop, S("s64[2,2,3,2]"),
                                  GatherDims({3, 4}, {1}, {2, 1}, 3, {0}, {1}),
                                  {2, 1, 2, 2}),
                 "batching dimension 0");
}

// ---- Scatter -----------------------------------------------------------

ScatterDimensionNumbers ScatterDims(
    std::vector<int64_t> update_window, std::vector<int64_t> inserted,
    std::vector<int64_t> to_operand, int64_t index_vector_dim,
    std::vector<int64_t> input_batching = {},
    std::vector<int64_t> indices_batching = {}) {
  ScatterDimensionNumbers d;
  d.update_window_dims = std::move(update_window);
  d.inserted_window_dims = std::move(inserted);
  d.scatter_dims_to_operand_dims = std::move(to_operand);
  d.index_vector_dim = index_vector_dim;
  d.input_batching_dims = std::move(input_batching);
  d.scatter_indices_batching_dims = std::move(indices_batching);
  return d;
}

TEST(ScatterTest, RowUpdates) {
  const Shape op = S("f32[3,3]");
  const Shape idx = S("s32[2]");
  const Shape upd = S("f32[2,3]");
  EXPECT_SHAPE(InferScatterShape({&op, &idx, &upd}, Reducer("f32[]"),
                                 ScatterDims({1}, {0}, {0}, 1)),
               "f32[3,3]");
  // Window smaller than the operand's dimension is fine.
  const Shape upd2 = S("f32[2,2]");
  EXPECT_SHAPE(InferScatterShape({&op, &idx, &upd2}, Reducer("f32[]"),
                                 ScatterDims({1}, {0}, {0}, 1)),
               "f32[3,3]");
}

TEST(ScatterTest, BatchingDimensionsFromStableHloSpec) {
  const Shape op = S("s64[2,3,4,2]");
  const Shape idx = S("s64[2,2,3,2]");
  const Shape upd = S("s64[2,2,3,2,2]");
  EXPECT_SHAPE(InferScatterShape({&op, &idx, &upd}, Reducer("s64[]"),
                                 ScatterDims({3, 4}, {1}, {2, 1}, 3, {0}, {1})),
               "s64[2,3,4,2]");
}

TEST(ScatterTest, Variadic) {
  const Shape a = S("f32[3,3]");
  const Shape b = S("s32[3,3]");
  const Shape idx = S("s32[2]");
  const Shape ua = S("f32[2,3]");
  const Shape ub = S("s32[2,3]");
  EXPECT_SHAPE(InferScatterShape(
                   {&a, &b, &idx, &ua, &ub},
                   PS({"f32[]", "s32[]", "f32[]", "s32[]"}, "(f32[], s32[])"),
                   ScatterDims({1}, {0}, {0}, 1)),
               "(f32[3,3], s32[3,3])");
}

TEST(ScatterTest, Errors) {
  const Shape op = S("f32[3,3]");
  const Shape idx = S("s32[2]");
  const Shape upd = S("f32[2,3]");
  const auto dn = ScatterDims({1}, {0}, {0}, 1);
  EXPECT_INVALID(InferScatterShape({&op, &idx}, Reducer("f32[]"), dn), "2N+1");
  const Shape bad_rank = S("f32[2,3,1]");
  EXPECT_INVALID(
      InferScatterShape({&op, &idx, &bad_rank}, Reducer("f32[]"), dn),
      "rank 2");
  const Shape bad_scatter = S("f32[4,3]");
  EXPECT_INVALID(
      InferScatterShape({&op, &idx, &bad_scatter}, Reducer("f32[]"), dn),
      "scatter dimension 0");
  const Shape too_big = S("f32[2,4]");
  EXPECT_INVALID(InferScatterShape({&op, &idx, &too_big}, Reducer("f32[]"), dn),
                 "exceeds");
  EXPECT_INVALID(InferScatterShape({&op, &idx, &upd}, Reducer("s32[]"), dn),
                 "s32[]");
  const Shape fidx = S("f32[2]");
  EXPECT_INVALID(InferScatterShape({&op, &fidx, &upd}, Reducer("f32[]"), dn),
                 "integral");
  const Shape s_upd = S("s32[2,3]");
  EXPECT_INVALID(InferScatterShape({&op, &idx, &s_upd}, Reducer("f32[]"), dn),
                 "s32[2,3]", "f32[3,3]");
  EXPECT_INVALID(InferScatterShape({&op, &idx, &upd}, Reducer("f32[]"),
                                   ScatterDims({1}, {0}, {0, 1}, 1)),
                 "scatter_dims_to_operand_dims");
  EXPECT_INVALID(InferScatterShape({&op, &idx, &upd}, Reducer("f32[]"),
                                   ScatterDims({1}, {}, {0}, 1)),
                 "every operand dimension");
}

// ---- Iota, get-dimension-size --------------------------------------------

TEST(IotaTest, Rules) {
  EXPECT_SHAPE(InferIotaShape(S("f32[4,5]"), 1), "f32[4,5]");
  EXPECT_SHAPE(InferIotaShape(S("s32[7]"), 0), "s32[7]");
  EXPECT_INVALID(InferIotaShape(S("f32[]"), 0), "f32[]", "scalar");
  EXPECT_INVALID(InferIotaShape(S("f32[4,5]"), 2), "f32[4,5]",
                 "iota_dimension");
  EXPECT_INVALID(InferIotaShape(S("pred[4]"), 0), "pred[4]");
  EXPECT_INVALID(InferIotaShape(S("(f32[4])"), 0), "(f32[4])");
}

TEST(GetDimensionSizeTest, Rules) {
  EXPECT_SHAPE(InferGetDimensionSizeShape(S("f32[<=4,3]"), 0), "s32[]");
  EXPECT_INVALID(InferGetDimensionSizeShape(S("f32[4,3]"), 2), "f32[4,3]",
                 "out of bounds");
  EXPECT_INVALID(InferGetDimensionSizeShape(S("f32[4,3]"), -1), "f32[4,3]");
  EXPECT_INVALID(InferGetDimensionSizeShape(S("f32[4,3000000000]"), 1), "s32");
}

// XLA's shape_inference.cc: the size is an s32 scalar; the dimension
// becomes dynamic with the operand's size as its bound.
TEST(SetDimensionSizeTest, Rules) {
  EXPECT_SHAPE(InferSetDimensionSizeShape(S("f32[4,3]"), S("s32[]"), 1),
               "f32[4,<=3]");
  EXPECT_SHAPE(InferSetDimensionSizeShape(S("f32[<=4,3]"), S("s32[]"), 1),
               "f32[<=4,<=3]");
  EXPECT_INVALID(InferSetDimensionSizeShape(S("f32[4,3]"), S("s64[]"), 1),
                 "s32 scalar", "s64[]");
  EXPECT_INVALID(InferSetDimensionSizeShape(S("f32[4,3]"), S("s32[1]"), 1),
                 "s32 scalar");
  EXPECT_INVALID(InferSetDimensionSizeShape(S("f32[4,3]"), S("s32[]"), 2),
                 "out of bounds", "f32[4,3]");
  EXPECT_INVALID(InferSetDimensionSizeShape(S("(f32[4])"), S("s32[]"), 0),
                 "(f32[4])");
}

TEST(DynamicReshapeTest, Rules) {
  const Shape s32 = S("s32[]");
  EXPECT_SHAPE(
      InferDynamicReshapeShape(S("f32[<=6]"), {&s32, &s32}, S("f32[<=2,<=3]")),
      "f32[<=2,<=3]");
  EXPECT_INVALID(
      InferDynamicReshapeShape(S("f32[6]"), {&s32}, S("f32[<=2,<=3]")),
      "2 size operand(s)");
  EXPECT_INVALID(
      InferDynamicReshapeShape(S("f32[6]"), {&s32, &s32}, S("f32[<=2,<=4]")),
      "mismatched element counts");
  const Shape f32 = S("f32[]");
  EXPECT_INVALID(
      InferDynamicReshapeShape(S("f32[6]"), {&s32, &f32}, S("f32[<=2,<=3]")),
      "size operand 2", "s32 scalar");
  EXPECT_INVALID(
      InferDynamicReshapeShape(S("f32[6]"), {&s32, &s32}, S("s32[<=2,<=3]")),
      "element types");
}

}  // namespace
}  // namespace plexa::shape_inference
