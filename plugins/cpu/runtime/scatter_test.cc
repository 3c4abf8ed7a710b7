// Scatter in place; expected values computed by hand.
#include "plugins/cpu/runtime/scatter.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace plexa::cpu {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i > 1; --i) s[i - 2] = s[i - 1] * dims[i - 1];
  return s;
}

ScatterArray RowMajor(std::vector<int64_t> dims) {
  ScatterArray a;
  a.strides = RowMajorStrides(dims);
  a.dims = std::move(dims);
  return a;
}

// The row scatter of XLA's documentation: rows of `updates` [n, cols] go to
// the operand rows [rows, cols] named by the 1-D indices.
ScatterDesc RowScatter(ScatterType t, ScatterCombiner c, int64_t rows,
                       int64_t cols, int64_t n) {
  ScatterDesc d;
  d.element_type = t;
  d.combiner = c;
  d.operand = RowMajor({rows, cols});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({n});
  d.updates = RowMajor({n, cols});
  d.update_window_dims = {1};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;
  return d;
}

// A 1-D scatter of scalars: out[indices[i]] op= updates[i].
ScatterDesc PointScatter(ScatterType t, ScatterCombiner c, int64_t size,
                         int64_t n) {
  ScatterDesc d;
  d.element_type = t;
  d.combiner = c;
  d.operand = RowMajor({size});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({n});
  d.updates = RowMajor({n});
  d.update_window_dims = {};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 1;  // implicit: each index is one element
  return d;
}

TEST(ScatterTest, AddRowsLikeXlaDocs) {
  ScatterDesc d = RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 3, 3, 2);
  std::vector<float> out = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<int32_t> idx = {0, 2};
  const std::vector<float> upd = {10, 20, 30, 70, 80, 90};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{11, 22, 33, 4, 5, 6, 77, 88, 99}));
}

TEST(ScatterTest, AddWithDuplicateIndicesSums) {
  ScatterDesc d = PointScatter(ScatterType::kF32, ScatterCombiner::kAdd, 4, 4);
  std::vector<float> out = {0, 0, 0, 0};
  const std::vector<int32_t> idx = {1, 1, 3, 1};
  const std::vector<float> upd = {1, 2, 3, 4};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{0, 7, 0, 3}));
}

TEST(ScatterTest, AssignWithDuplicateIndicesKeepsTheLast) {
  ScatterDesc d =
      PointScatter(ScatterType::kF32, ScatterCombiner::kAssign, 4, 3);
  std::vector<float> out = {9, 9, 9, 9};
  const std::vector<int32_t> idx = {1, 3, 1};
  const std::vector<float> upd = {5, 6, 7};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{9, 7, 9, 6}));
}

TEST(ScatterTest, AssignRowsWithDuplicatesKeepsTheLastRow) {
  ScatterDesc d =
      RowScatter(ScatterType::kS64, ScatterCombiner::kAssign, 2, 2, 3);
  std::vector<int64_t> out = {0, 0, 0, 0};
  const std::vector<int32_t> idx = {1, 1, 0};
  const std::vector<int64_t> upd = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int64_t>{5, 6, 3, 4}));
}

TEST(ScatterTest, OutOfBoundsWindowsAreSkippedWhole) {
  // operand s32[3,3]; windows of [1,2] at (row, col) index vectors; a
  // window must fit entirely, so a start column of 2 (2 + 2 > 3) skips the
  // whole window although column 2 itself exists.
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({3, 3});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({5, 2});
  d.updates = RowMajor({5, 2});  // [position, window column]
  d.update_window_dims = {1};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0, 1};
  d.index_vector_dim = 1;
  std::vector<int32_t> out(9, 0);
  const std::vector<int32_t> idx = {
      0,  1,  // ok: (0,1),(0,2)
      1,  2,  // column 2 + window 2 > 3: skipped
      -1, 0,  // negative row: skipped
      3,  0,  // row 3 of 3: skipped
      2,  0,  // ok: (2,0),(2,1)
  };
  const std::vector<int32_t> upd = {1, 2, 10, 20, 30, 40, 50, 60, 7, 8};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 1, 2, 0, 0, 0, 7, 8, 0}));
}

TEST(ScatterTest, HugeUnsignedIndicesAreOutOfBounds) {
  ScatterDesc d = PointScatter(ScatterType::kS32, ScatterCombiner::kAdd, 3, 3);
  d.index_type = ScatterType::kU64;
  std::vector<int32_t> out = {0, 0, 0};
  const std::vector<uint64_t> idx = {std::numeric_limits<uint64_t>::max(),
                                     uint64_t{1} << 63, 2};
  const std::vector<int32_t> upd = {1, 2, 3};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 3}));
}

TEST(ScatterTest, NarrowSignedAndUnsignedIndexTypes) {
  ScatterDesc d = PointScatter(ScatterType::kS32, ScatterCombiner::kAdd, 4, 3);
  std::vector<int32_t> out = {0, 0, 0, 0};
  const std::vector<int8_t> idx8 = {-1, 3, 0};
  const std::vector<int32_t> upd = {1, 2, 3};
  d.index_type = ScatterType::kS8;
  ASSERT_TRUE(Scatter(d, out.data(), idx8.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{3, 0, 0, 2}));
  const std::vector<uint16_t> idx16 = {65535, 1, 1};
  d.index_type = ScatterType::kU16;
  ASSERT_TRUE(Scatter(d, out.data(), idx16.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{3, 5, 0, 2}));
  const std::vector<uint32_t> idx32 = {2, 2, 4};
  d.index_type = ScatterType::kU32;
  ASSERT_TRUE(Scatter(d, out.data(), idx32.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{3, 5, 3, 2}));
  const std::vector<int64_t> idx64 = {0, -5, 3};
  d.index_type = ScatterType::kS64;
  ASSERT_TRUE(Scatter(d, out.data(), idx64.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{4, 5, 3, 5}));
}

TEST(ScatterTest, IndexVectorDimInTheMiddle) {
  // indices s32[2,2,3]: dimension 1 holds the (row, col) vector, dimensions
  // 0 and 2 are the scatter positions; updates s32[2,3] are scalars.
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({3, 4});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({2, 2, 3});
  d.updates = RowMajor({2, 3});
  d.update_window_dims = {};
  d.inserted_window_dims = {0, 1};
  d.scatter_dims_to_operand_dims = {0, 1};
  d.index_vector_dim = 1;
  std::vector<int32_t> out(12, 0);
  // Position (a, c) -> (row, col) = (idx[a][0][c], idx[a][1][c]):
  // (0,0)->(0,0) (0,1)->(1,2) (0,2)->(2,3) (1,0)->(2,0) (1,1)->(1,2)
  // (1,2)->(0,4): column 4 out of bounds, skipped.
  const std::vector<int32_t> idx = {
      0, 1, 2,  // a=0, rows
      0, 2, 3,  // a=0, cols
      2, 1, 0,  // a=1, rows
      0, 2, 4,  // a=1, cols
  };
  const std::vector<int32_t> upd = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 0, 0, 0,  //
                                       0, 0, 7, 0,  //
                                       4, 0, 0, 3}));
}

TEST(ScatterTest, IndexVectorDimFirst) {
  // indices s32[2,3]: dimension 0 is the vector, the scatter positions run
  // along dimension 1.
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAssign;
  d.operand = RowMajor({2, 2});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({2, 3});
  d.updates = RowMajor({3});
  d.update_window_dims = {};
  d.inserted_window_dims = {0, 1};
  d.scatter_dims_to_operand_dims = {1, 0};  // vector = (col, row)
  d.index_vector_dim = 0;
  std::vector<int32_t> out = {0, 0, 0, 0};
  const std::vector<int32_t> idx = {1, 0, 1,   // cols
                                    0, 1, 1};  // rows
  const std::vector<int32_t> upd = {5, 6, 7};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 5, 6, 7}));
}

TEST(ScatterTest, ImplicitIndexVectorDimWithTwoDimensionalIndices) {
  // indices s32[2,2], index_vector_dim = 2 = rank: each element is a
  // one-element index vector; updates s32[2,2] are scalars.
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({5});
  d.index_type = ScatterType::kS64;
  d.indices = RowMajor({2, 2});
  d.updates = RowMajor({2, 2});
  d.update_window_dims = {};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 2;
  std::vector<int32_t> out = {0, 0, 0, 0, 0};
  const std::vector<int64_t> idx = {4, 0, 4, 1};
  const std::vector<int32_t> upd = {1, 2, 3, 4};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{2, 4, 0, 0, 4}));
}

TEST(ScatterTest, ScalarIndexFullWindow) {
  // indices s32[] (rank 0, index_vector_dim 0 = rank): one window that
  // covers the operand's trailing dimension.
  ScatterDesc d;
  d.element_type = ScatterType::kF64;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({2, 3});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({});
  d.updates = RowMajor({3});
  d.update_window_dims = {0};
  d.inserted_window_dims = {0};
  d.scatter_dims_to_operand_dims = {0};
  d.index_vector_dim = 0;
  std::vector<double> out = {1, 1, 1, 1, 1, 1};
  const int32_t idx = 1;
  const std::vector<double> upd = {0.5, 1.5, 2.5};
  ASSERT_TRUE(Scatter(d, out.data(), &idx, upd.data()).ok());
  EXPECT_EQ(out, (std::vector<double>{1, 1, 1, 1.5, 2.5, 3.5}));
}

TEST(ScatterTest, BatchingDimensions) {
  // operand s32[2,4]: operand dimension 0 is a batching dimension paired
  // with indices dimension 0; out[b, idx[b, j]] += upd[b, j].
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({2, 4});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({2, 3});
  d.updates = RowMajor({2, 3});
  d.update_window_dims = {};
  d.inserted_window_dims = {1};
  d.input_batching_dims = {0};
  d.scatter_indices_batching_dims = {0};
  d.scatter_dims_to_operand_dims = {1};
  d.index_vector_dim = 2;
  std::vector<int32_t> out(8, 0);
  const std::vector<int32_t> idx = {3, 0, 3,  //
                                    1, 4, 2};
  const std::vector<int32_t> upd = {1, 2, 3,  //
                                    4, 5, 6};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{2, 0, 0, 4,  //
                                       0, 4, 6, 0}));
}

TEST(ScatterTest, BatchingDimensionNotFirstInTheIndices) {
  // Like the evaluator's test, but the indices' batching dimension is the
  // second one: indices s32[1,2] with index_vector_dim 0.
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({2, 3});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({1, 2});
  d.updates = RowMajor({2});
  d.update_window_dims = {};
  d.inserted_window_dims = {1};
  d.input_batching_dims = {0};
  d.scatter_indices_batching_dims = {1};
  d.scatter_dims_to_operand_dims = {1};
  d.index_vector_dim = 0;
  std::vector<int32_t> out(6, 0);
  const std::vector<int32_t> idx = {2, 0};
  const std::vector<int32_t> upd = {5, 7};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{0, 0, 5, 7, 0, 0}));
}

TEST(ScatterTest, ColumnMajorOperand) {
  // The row scatter-add of AddRowsLikeXlaDocs with the operand stored
  // column-major (layout {0,1}): element (r, c) at c * 3 + r.
  ScatterDesc d = RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 3, 3, 2);
  d.operand.strides = {1, 3};
  std::vector<float> out = {1, 4, 7, 2, 5, 8, 3, 6, 9};
  const std::vector<int32_t> idx = {0, 2};
  const std::vector<float> upd = {10, 20, 30, 70, 80, 90};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{11, 4, 77, 22, 5, 88, 33, 6, 99}));
}

TEST(ScatterTest, BlockWindowsWithTransposedUpdates) {
  // 2x2 blocks into s32[4,4] at (row, col) starts; updates s32[2,2,2] are
  // [position, window row, window col] but stored with the window
  // dimensions swapped (strides {4, 1, 2}).
  ScatterDesc d;
  d.element_type = ScatterType::kS32;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({4, 4});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({2, 2});
  d.updates.dims = {2, 2, 2};
  d.updates.strides = {4, 1, 2};
  d.update_window_dims = {1, 2};
  d.inserted_window_dims = {};
  d.scatter_dims_to_operand_dims = {0, 1};
  d.index_vector_dim = 1;
  std::vector<int32_t> out(16, 0);
  const std::vector<int32_t> idx = {0, 0, 1, 2};
  // Logical windows: {{1,2},{3,4}} and {{10,20},{30,40}}.
  const std::vector<int32_t> upd = {1, 3, 2, 4, 10, 30, 20, 40};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 0, 0,    //
                                       3, 4, 10, 20,  //
                                       0, 0, 30, 40,  //
                                       0, 0, 0, 0}));
}

TEST(ScatterTest, WindowCoveringEverythingMergesIntoOneLoop) {
  // Full 3-D window over s32[2,3,4] at start (0,0,0): every element gets
  // its update once.
  ScatterDesc d;
  d.element_type = ScatterType::kU16;
  d.combiner = ScatterCombiner::kAdd;
  d.operand = RowMajor({2, 3, 4});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({1, 3});
  d.updates = RowMajor({1, 2, 3, 4});
  d.update_window_dims = {1, 2, 3};
  d.scatter_dims_to_operand_dims = {0, 1, 2};
  d.index_vector_dim = 1;
  std::vector<uint16_t> out(24, 1);
  const std::vector<int32_t> idx = {0, 0, 0};
  std::vector<uint16_t> upd(24);
  for (int i = 0; i < 24; ++i) upd[i] = static_cast<uint16_t>(i);
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  for (int i = 0; i < 24; ++i) EXPECT_EQ(out[i], i + 1) << i;
}

TEST(ScatterTest, MaxPropagatesNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ScatterDesc d = PointScatter(ScatterType::kF32, ScatterCombiner::kMax, 5, 5);
  std::vector<float> out = {1, nan, 3, -0.0f, 2};
  const std::vector<int32_t> idx = {0, 1, 2, 3, 4};
  const std::vector<float> upd = {nan, 5, 2, 0.0f, 6};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_TRUE(std::isnan(out[1]));
  EXPECT_EQ(out[2], 3);
  // max(-0, +0) is the first argument, the operand's -0.
  EXPECT_EQ(out[3], 0.0f);
  EXPECT_TRUE(std::signbit(out[3]));
  EXPECT_EQ(out[4], 6);
}

TEST(ScatterTest, MinPropagatesNaNThroughLaterUpdates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ScatterDesc d = PointScatter(ScatterType::kF64, ScatterCombiner::kMin, 2, 4);
  std::vector<double> out = {5, 5};
  const std::vector<int32_t> idx = {0, 0, 0, 1};
  const std::vector<double> upd = {3, nan, 1, 7};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_TRUE(std::isnan(out[0]));  // once NaN, it stays NaN
  EXPECT_EQ(out[1], 5);
}

float FloatFromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint32_t BitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

TEST(ScatterTest, UpdateFirstDecidesWhichNaNAndWhichZero) {
  // maximum(parameter(1), parameter(0)): the update is the first argument.
  const float nan_a = FloatFromBits(0x7fc00001u);
  const float nan_b = FloatFromBits(0x7fc00002u);
  ScatterDesc d = PointScatter(ScatterType::kF32, ScatterCombiner::kMax, 2, 2);
  const std::vector<int32_t> idx = {0, 1};
  const std::vector<float> upd = {nan_b, 0.0f};
  std::vector<float> out = {nan_a, -0.0f};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(BitsOf(out[0]), 0x7fc00001u);
  EXPECT_TRUE(std::signbit(out[1]));
  d.update_first = true;
  out = {nan_a, -0.0f};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(BitsOf(out[0]), 0x7fc00002u);
  EXPECT_FALSE(std::signbit(out[1]));
}

TEST(ScatterTest, IntegerCombiners) {
  const std::vector<int32_t> idx = {0, 1, 0};
  {
    ScatterDesc d =
        PointScatter(ScatterType::kS8, ScatterCombiner::kMultiply, 2, 3);
    std::vector<int8_t> out = {100, -3};
    const std::vector<int8_t> upd = {2, 5, -1};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    // 100 * 2 = 200 wraps to -56; * -1 = 56.
    EXPECT_EQ(out, (std::vector<int8_t>{56, -15}));
  }
  {
    ScatterDesc d =
        PointScatter(ScatterType::kU16, ScatterCombiner::kMultiply, 2, 3);
    std::vector<uint16_t> out = {65535, 300};
    const std::vector<uint16_t> upd = {65535, 300, 1};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    // 65535^2 mod 65536 = 1; 300 * 300 = 90000 mod 65536 = 24464.
    EXPECT_EQ(out, (std::vector<uint16_t>{1, 24464}));
  }
  {
    ScatterDesc d =
        PointScatter(ScatterType::kS32, ScatterCombiner::kAdd, 2, 3);
    std::vector<int32_t> out = {std::numeric_limits<int32_t>::max(), 0};
    const std::vector<int32_t> upd = {1, -1, 1};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, (std::vector<int32_t>{
                       std::numeric_limits<int32_t>::min() + 1, -1}));
  }
  {
    ScatterDesc d = PointScatter(ScatterType::kS8, ScatterCombiner::kMin, 2, 3);
    std::vector<int8_t> out = {0, 5};
    const std::vector<int8_t> upd = {-7, 9, 3};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, (std::vector<int8_t>{-7, 5}));
  }
  {
    ScatterDesc d =
        PointScatter(ScatterType::kU32, ScatterCombiner::kMax, 2, 3);
    std::vector<uint32_t> out = {1, 5};
    const std::vector<uint32_t> upd = {0x80000000u, 9, 3};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, (std::vector<uint32_t>{0x80000000u, 9}));
  }
  {
    ScatterDesc d = PointScatter(ScatterType::kU8, ScatterCombiner::kAnd, 2, 3);
    std::vector<uint8_t> out = {0xff, 0xf0};
    const std::vector<uint8_t> upd = {0x3c, 0x1f, 0x0f};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, (std::vector<uint8_t>{0x0c, 0x10}));
  }
  {
    ScatterDesc d = PointScatter(ScatterType::kS64, ScatterCombiner::kOr, 2, 3);
    std::vector<int64_t> out = {1, 2};
    const std::vector<int64_t> upd = {4, 8, int64_t{1} << 40};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, (std::vector<int64_t>{5 + (int64_t{1} << 40), 10}));
  }
}

TEST(ScatterTest, PredCombiners) {
  const std::vector<int32_t> idx = {0, 1, 2};
  const std::vector<uint8_t> upd = {1, 0, 1};
  struct Case {
    ScatterCombiner c;
    std::vector<uint8_t> want;
  };
  // operand {0, 1, 1}
  for (const Case& k : {Case{ScatterCombiner::kAssign, {1, 0, 1}},
                        Case{ScatterCombiner::kAdd, {1, 1, 1}},
                        Case{ScatterCombiner::kOr, {1, 1, 1}},
                        Case{ScatterCombiner::kMax, {1, 1, 1}},
                        Case{ScatterCombiner::kMultiply, {0, 0, 1}},
                        Case{ScatterCombiner::kAnd, {0, 0, 1}},
                        Case{ScatterCombiner::kMin, {0, 0, 1}}}) {
    ScatterDesc d = PointScatter(ScatterType::kPred, k.c, 3, 3);
    std::vector<uint8_t> out = {0, 1, 1};
    ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
    EXPECT_EQ(out, k.want) << static_cast<int>(k.c);
  }
}

TEST(ScatterTest, ZeroSizedUpdatesChangeNothing) {
  ScatterDesc d = RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 2, 3, 0);
  std::vector<float> out = {1, 2, 3, 4, 5, 6};
  ASSERT_TRUE(Scatter(d, out.data(), nullptr, nullptr).ok());
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // A zero-width window: nothing to combine either.
  d = RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 2, 3, 2);
  d.updates = RowMajor({2, 0});
  const std::vector<int32_t> idx = {0, 1};
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), nullptr).ok());
  EXPECT_EQ(out, (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(ScatterTest, EmptyOperandDimensionSkipsEveryWindow) {
  // An inserted dimension of size 0 cannot hold a window of 1.
  ScatterDesc d = RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 0, 3, 2);
  const std::vector<int32_t> idx = {0, 0};
  const std::vector<float> upd = {1, 2, 3, 4, 5, 6};
  EXPECT_TRUE(Scatter(d, nullptr, idx.data(), upd.data()).ok());
}

TEST(ScatterTest, LargeRowScatterMatchesALoop) {
  // Many rows with duplicates, checked against the obvious loop.
  const int64_t rows = 64, cols = 37, n = 500;
  ScatterDesc d =
      RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, rows, cols, n);
  std::vector<int32_t> idx(n);
  std::vector<float> upd(n * cols);
  for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<int32_t>((i * 7) % 70);
  for (int64_t i = 0; i < n * cols; ++i) upd[i] = static_cast<float>(i % 13);
  std::vector<float> out(rows * cols, 0.5f), want = out;
  for (int64_t i = 0; i < n; ++i) {
    if (idx[i] >= rows) continue;
    for (int64_t c = 0; c < cols; ++c) {
      want[idx[i] * cols + c] += upd[i * cols + c];
    }
  }
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, want);
}

TEST(ScatterTest, AssignOrderHoldsAcrossManyPositions) {
  // 1000 scalar updates cycling over 7 slots (every 9th out of bounds):
  // each slot ends with the last update that named it.
  const int64_t n = 1000;
  ScatterDesc d =
      PointScatter(ScatterType::kS32, ScatterCombiner::kAssign, 7, n);
  std::vector<int32_t> idx(n), upd(n);
  std::vector<int32_t> want(7, -1);
  for (int64_t i = 0; i < n; ++i) {
    idx[i] = i % 9 == 8 ? 7 : static_cast<int32_t>(i % 7);
    upd[i] = static_cast<int32_t>(i);
    if (idx[i] < 7) want[idx[i]] = upd[i];
  }
  std::vector<int32_t> out(7, -1);
  ASSERT_TRUE(Scatter(d, out.data(), idx.data(), upd.data()).ok());
  EXPECT_EQ(out, want);
}

TEST(ScatterTest, EmptyIndexVectorAssignsTheWholeOperand) {
  // indices s32[0] (an empty index vector, index_vector_dim 0) and a window
  // of the whole operand: a copy, here from column-major updates into a
  // row-major output (how the CPU plugin relays out a scatter's operand).
  ScatterDesc d;
  d.element_type = ScatterType::kS16;
  d.combiner = ScatterCombiner::kAssign;
  d.operand = RowMajor({2, 3});
  d.index_type = ScatterType::kS32;
  d.indices = RowMajor({0});
  d.updates.dims = {2, 3};
  d.updates.strides = {1, 2};
  d.update_window_dims = {0, 1};
  d.index_vector_dim = 0;
  std::vector<int16_t> out(6, 0);
  const std::vector<int16_t> upd = {1, 4, 2, 5, 3, 6};  // column-major
  ASSERT_TRUE(Scatter(d, out.data(), nullptr, upd.data()).ok());
  EXPECT_EQ(out, (std::vector<int16_t>{1, 2, 3, 4, 5, 6}));
}

// ---- Invalid descriptions ---------------------------------------------------

void ExpectInvalid(const ScatterDesc& d, const std::string& what) {
  std::vector<uint8_t> buf(4096, 0xab);
  const std::vector<uint8_t> zeros(4096, 0);
  absl::Status s = Scatter(d, buf.data(), zeros.data(), zeros.data());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
  for (uint8_t b : buf) ASSERT_EQ(b, 0xab);  // nothing written
}

TEST(ScatterTest, InvalidDescriptionsAreErrors) {
  const ScatterDesc good =
      RowScatter(ScatterType::kF32, ScatterCombiner::kAdd, 3, 3, 2);
  ASSERT_TRUE(ValidateScatter(good).ok());
  ScatterDesc d = good;
  d.operand.strides = {3};
  ExpectInvalid(d, "strides");
  d = good;
  d.index_vector_dim = 2;
  ExpectInvalid(d, "index_vector_dim");
  d = good;
  d.combiner = ScatterCombiner::kAnd;
  ExpectInvalid(d, "and/or");
  d = good;
  d.index_type = ScatterType::kF32;
  ExpectInvalid(d, "index type");
  d = good;
  d.element_type = static_cast<ScatterType>(99);
  ExpectInvalid(d, "element type");
  d = good;
  d.updates = RowMajor({2, 4});
  ExpectInvalid(d, "exceeds operand dimension");
  d = good;
  d.updates = RowMajor({3, 3});
  ExpectInvalid(d, "differs from indices dimension");
  d = good;
  d.updates = RowMajor({2, 3, 1});
  ExpectInvalid(d, "rank");
  d = good;
  d.operand = RowMajor({3, 3, 3});
  ExpectInvalid(d, "operand dimensions exactly");
  d = good;
  d.scatter_dims_to_operand_dims = {0, 1};
  ExpectInvalid(d, "scatter_dims_to_operand_dims");
  d = good;
  d.scatter_dims_to_operand_dims = {5};
  ExpectInvalid(d, "out of bounds");
  d = good;
  d.update_window_dims = {1, 0};
  ExpectInvalid(d, "sorted");
  d = good;
  d.operand.dims = {3, -1};
  ExpectInvalid(d, "negative");
  d = good;
  d.input_batching_dims = {0};
  ExpectInvalid(d, "inserted window and a batching");
  d = good;
  d.inserted_window_dims = {};
  d.input_batching_dims = {0};
  d.scatter_indices_batching_dims = {};
  ExpectInvalid(d, "differ in length");
  d = good;
  d.scatter_indices_batching_dims = {1};
  ExpectInvalid(d, "scatter_indices_batching_dims");
  EXPECT_EQ(Scatter(good, nullptr, nullptr, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ScatterTest, ByteWidths) {
  EXPECT_EQ(ScatterTypeByteWidth(ScatterType::kPred), 1);
  EXPECT_EQ(ScatterTypeByteWidth(ScatterType::kU16), 2);
  EXPECT_EQ(ScatterTypeByteWidth(ScatterType::kF32), 4);
  EXPECT_EQ(ScatterTypeByteWidth(ScatterType::kS64), 8);
}

}  // namespace
}  // namespace plexa::cpu
