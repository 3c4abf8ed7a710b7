#include "core/shape/index_util.h"

#include <set>
#include <string>
#include <vector>

#include "core/shape/layout.h"
#include "core/shape/shape.h"
#include "core/shape/shape_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// Lays out a 2x3 array of letters (`a b c / d e f`) in a buffer of the
// shape's slot count, writing `pad` into every slot no index maps to.
std::string LayOutLetters(const Shape& shape, char pad) {
  std::string mem(IndexUtil::BufferElementCount(shape), pad);
  const char letters[2][3] = {{'a', 'b', 'c'}, {'d', 'e', 'f'}};
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      mem[IndexUtil::MultidimensionalIndexToLinearIndex(shape, {i, j})] =
          letters[i][j];
    }
  }
  return mem;
}

// ---- Seed 000: minor_to_major ----

TEST(IndexUtilTest, SeedColumnMajorGivesADBECF) {
  // Seed 000: the 2x3 array "a b c / d e f" with minor_to_major [0, 1]
  // (dim 0 most minor, column-major) is "a d b e c f" in linear memory.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_EQ(LayOutLetters(s, '?'), "adbecf");
}

TEST(IndexUtilTest, SeedRowMajorGivesABCDEF) {
  // Seed 000: with minor_to_major [1, 0] (row-major) it is "a b c d e f".
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0});
  EXPECT_EQ(LayOutLetters(s, '?'), "abcdef");
}

TEST(IndexUtilTest, NoLayoutMeansDefaultMajorToMinor) {
  // A shape without a layout uses the default {rank-1, ..., 0}: row-major.
  Shape s = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_EQ(LayOutLetters(s, '?'), "abcdef");
}

TEST(IndexUtilTest, HeaderExamples) {
  // index_util.h: f32[2,3]{1,0}: {1,0} -> 3; f32[2,3]{0,1}: {1,0} -> 1.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(
                ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0}), {1, 0}),
            3);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(
                ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}), {1, 0}),
            1);
}

TEST(IndexUtilTest, Rank3ArbitraryMinorToMajor) {
  // f32[2,3,4]{1,2,0}: dim 1 most minor (stride 1), then dim 2 (stride 3),
  // then dim 0 (stride 3*4 = 12). Index {1,2,3} -> 1*12 + 3*3 + 2*1 = 23.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3, 4}, {1, 2, 0});
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 2, 3}), 23);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 1, 0}), 1);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 1}), 3);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 0, 0}), 12);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 23),
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 24);
}

TEST(IndexUtilTest, ScalarIsSlotZero) {
  Shape s = ShapeUtil::MakeScalarShape(F32);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {}), 0);
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 1);
  EXPECT_TRUE(IndexUtil::LinearIndexToMultidimensionalIndex(s, 0).empty());
  EXPECT_FALSE(IndexUtil::IsPaddingSlot(s, 0));
}

// ---- Seed 000: padded_dimensions ----

TEST(IndexUtilTest, SeedPaddedColumnMajor) {
  // Seed 000: the 2x3 array padded to [3, 5] with padding value 0 in
  // column-major layout is exactly "a d 0 b e 0 c f 0 0 0 0 0 0 0".
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5});
  EXPECT_EQ(LayOutLetters(s, '0'), "ad0be0cf0000000");
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 15);
  // index_util.h: {1,2} (f) is element 7.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 2}), 7);
  // Padding slots are exactly the '0's.
  const std::string expected = "ad0be0cf0000000";
  for (int64_t i = 0; i < 15; ++i) {
    EXPECT_EQ(IndexUtil::IsPaddingSlot(s, i), expected[i] == '0') << i;
  }
}

TEST(IndexUtilTest, SeedPaddedEqualsThreeByFiveArray) {
  // Seed 000: the padded layout equals the layout of the 3x5 array
  //   a b c 0 0
  //   d e f 0 0
  //   0 0 0 0 0
  // with the same (column-major) minor-to-major order.
  Shape s35 = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {0, 1});
  const std::string rows[3] = {"abc00", "def00", "00000"};
  std::string mem(15, '?');
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      mem[IndexUtil::MultidimensionalIndexToLinearIndex(s35, {i, j})] =
          rows[i][j];
    }
  }
  EXPECT_EQ(mem, "ad0be0cf0000000");
}

TEST(IndexUtilTest, PaddedRowMajor) {
  // Same array padded to [3,5], row-major: rows of width 5, three rows:
  // "a b c 0 0 d e f 0 0 0 0 0 0 0".
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0});
  s.mutable_layout()->set_padded_dimensions({3, 5});
  EXPECT_EQ(LayOutLetters(s, '0'), "abc00def0000000");
}

TEST(IndexUtilTest, PaddedInverse) {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5});
  // "a d 0 b e 0 c f 0 ...": slot 4 is e = {1,1}, slot 6 is c = {0,2}.
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 4),
            (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 6),
            (std::vector<int64_t>{0, 2}));
}

// ---- Tiling (seed 001/002, XLA tiled_layout.md) ----

// f32[3,5]{1,0:T(2,2)}. Element (i,j) is labelled i*5+j+1 (1..15):
//    1  2  3  4  5
//    6  7  8  9 10
//   11 12 13 14 15
// The 2x2 tiles cover a 4x6 padded array (padding '.'):
//    1  2 |  3  4 |  5  .
//    6  7 |  8  9 | 10  .
//   ------+-------+------
//   11 12 | 13 14 | 15  .
//    .  . |  .  . |  .  .
// Tiles are laid out row-major, each tile row-major inside, so the 24-slot
// buffer is (0 = padding):
//   1 2 6 7 | 3 4 8 9 | 5 0 10 0 | 11 12 0 0 | 13 14 0 0 | 15 0 0 0
const int kTiled35Buffer[24] = {1,  2,  6, 7, 3,  4,  8, 9, 5,  0, 10, 0,
                                11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0,  0};

Shape Tiled35() {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  return s;
}

TEST(IndexUtilTest, TiledF32_3x5_T2x2_FullBuffer) {
  Shape s = Tiled35();
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 24);
  std::vector<int> mem(24, 0);
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      mem[IndexUtil::MultidimensionalIndexToLinearIndex(s, {i, j})] =
          static_cast<int>(i * 5 + j + 1);
    }
  }
  EXPECT_EQ(mem, std::vector<int>(kTiled35Buffer, kTiled35Buffer + 24));
}

TEST(IndexUtilTest, TiledXlaDocExample) {
  // tiled_layout.md: element (2,3) of F32[3,5]{1,0:T(2,2)} has tile index
  // (1,1) and within-tile index (0,1): (1*3 + 1)*2*2 + (0*2 + 1) = 17.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(Tiled35(), {2, 3}),
            17);
}

TEST(IndexUtilTest, TiledInverseAndPadding) {
  Shape s = Tiled35();
  for (int64_t slot = 0; slot < 24; ++slot) {
    const int label = kTiled35Buffer[slot];
    EXPECT_EQ(IndexUtil::IsPaddingSlot(s, slot), label == 0) << slot;
    if (label != 0) {
      const int64_t i = (label - 1) / 5, j = (label - 1) % 5;
      EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, slot),
                (std::vector<int64_t>{i, j}))
          << slot;
    }
  }
  // Outside the buffer: not a slot at all.
  EXPECT_FALSE(IndexUtil::IsPaddingSlot(s, 24));
}

TEST(IndexUtilTest, TiledColumnMajorUsesPhysicalOrder) {
  // f32[5,3]{0,1:T(2,2)}: the physical (major-to-minor) dimensions are
  // (dim 1, dim 0) = (3, 5), tiled as in the doc example. Logical (3,2) is
  // physical (2,3) -> 17; logical (4,2) is physical (2,4): tile (1,2),
  // within (0,0) -> (1*3 + 2)*4 = 20.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {5, 3}, {0, 1});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 2}), 17);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {4, 2}), 20);
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 24);
}

TEST(IndexUtilTest, TileWithFewerDimsThanRank) {
  // f32[2,3,5]{2,1,0:T(2,2)}: the tile covers the two most minor
  // dimensions; dim 0 stays as is. Dims become [2, 2, 3, 2, 2] (48 slots).
  // (1,2,3): tile (2/2, 3/2) = (1,1), within (0,1): index (1,1,1,0,1)
  //   -> 1*24 + 1*12 + 1*4 + 0*2 + 1 = 41.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3, 5}, {2, 1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 48);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 2, 3}), 41);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 41),
            (std::vector<int64_t>{1, 2, 3}));
}

TEST(IndexUtilTest, TileWithMoreDimsThanRank) {
  // f32[3]{0:T(2,2)}: the missing major dimension is taken as size 1, so
  // the array is [1,3] -> tiles (1, 2) of 2x2: dims [1,2,2,2], 8 slots.
  // Element 1 -> (0,0, 0,1) -> 1; element 2 -> tile (0,1) within (0,0)
  // -> 4. Slots 2,3 (second tile row) and 5,6,7 are padding.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3}, {0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 8);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0}), 0);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1}), 1);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {2}), 4);
  const bool padding[8] = {false, false, true, true, false, true, true, true};
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(IndexUtil::IsPaddingSlot(s, i), padding[i]) << i;
  }
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 4),
            (std::vector<int64_t>{2}));
}

TEST(IndexUtilTest, OneDimensionalTile) {
  // f32[10]{0:T(4)}: 3 tiles of 4 = 12 slots; element 9 -> tile 2 slot 1
  // -> 9 (a 1-d tiling only pads the end).
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {10}, {0});
  s.mutable_layout()->add_tile(Tile({4}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 12);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {9}), 9);
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 10));
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 11));
  EXPECT_FALSE(IndexUtil::IsPaddingSlot(s, 9));
}

TEST(IndexUtilTest, RepeatedTilingFigure2) {
  // tiled_layout.md figure 2: a 4x8 array tiled (2,4)(2,1).
  // First tiling: [4,8] -> [2,2,2,4] (tile counts 2x2, tiles 2x4).
  // Second tiling (2,1) applies to the two most minor dims (2,4):
  //   -> [2,2, 1,4, 2,1]; within a 2x4 tile, the two rows of each column
  //   sit next to each other.
  // (0,0) -> 0; (1,0) -> within (1,0) -> (0,0,1,0) -> 1;
  // (0,1) -> within (0,1) -> (0,1,0,0) -> 2; (1,1) -> 3;
  // (0,4) -> tile (0,1) -> 8; (2,0) -> tile (1,0) -> 16;
  // (3,7) -> tile (1,1), within (1,3) -> (1,1, 0,3, 1,0)
  //   -> 1*16 + 1*8 + 3*2 + 1 = 31, the last slot.
  Shape s = ShapeUtil::MakeShapeWithLayout(BF16, {4, 8}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 4})).add_tile(Tile({2, 1}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 32);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0}), 0);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 0}), 1);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 1}), 2);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 1}), 3);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 4}), 8);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {2, 0}), 16);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 7}), 31);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 1),
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 31),
            (std::vector<int64_t>{3, 7}));
}

TEST(IndexUtilTest, RepeatedTilingOfTileCountsXlaDoc) {
  // tiled_layout.md: an 8x8 array tiled (2,4)(2,1,1,1); element (6,5) is at
  // tile (3,1), within (0,1) after the first tiling over [4,2,2,4]; the
  // second tile covers all four: [2,2,2,4, 2,1,1,1] with index
  // (1,1,0,1, 1,0,0,0) -> 1*2*2*4*2 + 1*2*4*2 + 1*2 + 1 = 51.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {8, 8}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 4})).add_tile(Tile({2, 1, 1, 1}));
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {6, 5}), 51);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 51),
            (std::vector<int64_t>{6, 5}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 64);
}

TEST(IndexUtilTest, SeedBf16TiledShape) {
  // Seed 001: bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}.
  // Physical order (major to minor) is dims 1,0,2,3 = [1,8,1280,16384].
  // T(8,128) on the two most minor: [1,8, 160,128, 8,128].
  // T(2,1) on the two most minor of that (8,128): [1,8,160,128, 4,128, 2,1].
  // Element (p,z,y,x) = (3,0,17,300): physical (0,3,17,300);
  //   first tiling (0,3, 2,2, 1,44)  (17 = 2*8+1, 300 = 2*128+44);
  //   second tiling of (1,44): (0,44, 1,0);
  //   index (0,3,2,2,0,44,1,0) in [1,8,160,128,4,128,2,1]:
  //   ((((3*160+2)*128+2)*4+0)*128+44)*2+1 = 63178841.
  Shape s =
      ShapeUtil::MakeShapeWithLayout(BF16, {8, 1, 1280, 16384}, {3, 2, 0, 1});
  s.mutable_layout()->add_tile(Tile({8, 128})).add_tile(Tile({2, 1}));
  EXPECT_EQ(s.ToString(), "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}");
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 0, 17, 300}),
            63178841);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 63178841),
            (std::vector<int64_t>{3, 0, 17, 300}));
  // BF16 packing: rows 0 and 1 of a column are adjacent.
  // (0,0,1,0): within (1,0) -> (0,0,1,0) of (4,128,2,1) -> 1.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 1, 0}), 1);
  // (0,0,0,1): within (0,1) -> (0,1,0,0) -> 2.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 0, 1}), 2);
  // (0,0,2,0): within (2,0) -> (1,0,0,0) -> 128*2 = 256.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 2, 0}),
            256);
  // (0,0,0,128): tile (0,1) -> one 8x128 tile further: 1024.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 0, 128}),
            1024);
  // (1,0,0,0): p is the second physical dim: stride 160*128*1024.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 0, 0, 0}),
            int64_t{160} * 128 * 1024);
  // No padding: 8*1280*16384 = 167772160 slots.
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 167772160);
}

TEST(IndexUtilTest, CombineDimensionXlaDoc) {
  // tiled_layout.md: F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)} is
  // F32[112,110] (2*7*8 = 112, 11*10 = 110) tiled by (2,3):
  // tile counts (56, 37), so 56*37*6 = 12432 slots.
  // Element (1,6,7,10,9): row (1*7+6)*8+7 = 111, column 10*10+9 = 109;
  // tile (55,36), within (1,1): (55*37+36)*6 + 1*3 + 1 = 12430.
  Shape s =
      ShapeUtil::MakeShapeWithLayout(F32, {2, 7, 8, 11, 10}, {4, 3, 2, 1, 0});
  const int64_t kStar = Tile::kCombineDimension;
  s.mutable_layout()->add_tile(Tile({kStar, kStar, 2, kStar, 3}));
  EXPECT_EQ(s.ToString(), "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 12432);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 6, 7, 10, 9}),
            12430);
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 12430),
            (std::vector<int64_t>{1, 6, 7, 10, 9}));
  // Slot 12431 is column 110 of the last tile row: padding.
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 12431));
  // Element (0,0,0,0,1): row 0, column 1 -> within (0,1) -> 1.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 0, 0, 1}),
            1);
  // Element (0,0,0,1,0): column 10 -> tile 3, within 1 -> 3*6 + 1 = 19.
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 0, 0, 1, 0}),
            19);
}

TEST(IndexUtilTest, CombineDimensionSmall) {
  // f32[2,3]{1,0:T(*,4)}: the dims merge into [6], tiled by 4 -> [2,4]:
  // 8 slots, elements in row-major order in slots 0..5, slots 6,7 padding.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0});
  s.mutable_layout()->add_tile(Tile({Tile::kCombineDimension, 4}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 8);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 2}), 5);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {1, 0}), 3);
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 6));
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 7));
  EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, 4),
            (std::vector<int64_t>{1, 1}));
}

TEST(IndexUtilTest, PaddedThenTiled) {
  // f32[1,3]{1,0} padded to [2,4], tiled (2,2): the padded [2,4] array
  // becomes [1,2,2,2] (8 slots). (0,2) -> tile (0,1) within (0,0) -> 4.
  // Slots: 0=(0,0) 1=(0,1) 2,3 pad row 1 | 4=(0,2) 5 pad col 3, 6,7 pad.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {1, 3}, {1, 0});
  s.mutable_layout()->set_padded_dimensions({2, 4}).add_tile(Tile({2, 2}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 8);
  EXPECT_EQ(IndexUtil::MultidimensionalIndexToLinearIndex(s, {0, 2}), 4);
  const bool padding[8] = {false, false, true, true, false, true, true, true};
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(IndexUtil::IsPaddingSlot(s, i), padding[i]) << i;
  }
}

// ---- Tail padding (seed 001) ----

TEST(IndexUtilTest, TailPaddingAlignment) {
  // f32[3,5]{1,0:L(16)}: 15 elements rounded up to a multiple of 16.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->set_tail_padding_alignment_in_elements(16);
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 16);
  EXPECT_FALSE(IndexUtil::IsPaddingSlot(s, 14));
  EXPECT_TRUE(IndexUtil::IsPaddingSlot(s, 15));
  // Tiled: T(2,2) gives 24 slots, L(10) rounds up to 30.
  Shape t = Tiled35();
  t.mutable_layout()->set_tail_padding_alignment_in_elements(10);
  EXPECT_EQ(IndexUtil::BufferElementCount(t), 30);
  for (int64_t i = 24; i < 30; ++i) EXPECT_TRUE(IndexUtil::IsPaddingSlot(t, i));
  EXPECT_FALSE(IndexUtil::IsPaddingSlot(t, 30));  // beyond the buffer
  // Already a multiple: unchanged (L(8) on 24 slots).
  t.mutable_layout()->set_tail_padding_alignment_in_elements(8);
  EXPECT_EQ(IndexUtil::BufferElementCount(t), 24);
}

TEST(IndexUtilTest, ZeroElementShapes) {
  EXPECT_EQ(IndexUtil::BufferElementCount(ShapeUtil::MakeShape(F32, {0, 3})),
            0);
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {0, 3}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(IndexUtil::BufferElementCount(s), 0);
  EXPECT_EQ(IndexUtil::BufferElementCount(ShapeUtil::MakeTupleShape({})), 0);
}

// ---- Properties over many layouts (each mapping must be a bijection from
// the elements onto the non-padding slots) ----

TEST(IndexUtilTest, RoundTripOverManyLayouts) {
  std::vector<Shape> shapes;
  shapes.push_back(ShapeUtil::MakeShapeWithLayout(F32, {3, 4, 5}, {0, 2, 1}));
  {
    Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 4, 5}, {2, 0, 1});
    s.mutable_layout()->set_padded_dimensions({4, 6, 5});
    shapes.push_back(s);
  }
  {
    Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 7, 5}, {1, 2, 0});
    s.mutable_layout()->add_tile(Tile({4, 2})).add_tile(Tile({2, 1}));
    shapes.push_back(s);
  }
  {
    Shape s = ShapeUtil::MakeShapeWithLayout(F32, {5, 3, 2}, {2, 1, 0});
    s.mutable_layout()
        ->add_tile(Tile({Tile::kCombineDimension, 4}))
        .set_tail_padding_alignment_in_elements(7);
    shapes.push_back(s);
  }
  {
    Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {0, 1});
    s.mutable_layout()->add_tile(Tile({2, 2, 3})).add_tile(Tile({3, 1, 1}));
    shapes.push_back(s);
  }
  for (const Shape& s : shapes) {
    SCOPED_TRACE(s.ToString());
    const int64_t slots = IndexUtil::BufferElementCount(s);
    std::set<int64_t> used;
    ShapeUtil::ForEachIndex(s, [&](absl::Span<const int64_t> index) {
      const int64_t lin =
          IndexUtil::MultidimensionalIndexToLinearIndex(s, index);
      EXPECT_GE(lin, 0);
      EXPECT_LT(lin, slots);
      EXPECT_TRUE(used.insert(lin).second) << "slot used twice: " << lin;
      EXPECT_EQ(IndexUtil::LinearIndexToMultidimensionalIndex(s, lin),
                std::vector<int64_t>(index.begin(), index.end()));
    });
    EXPECT_EQ(static_cast<int64_t>(used.size()), ShapeUtil::ElementsIn(s));
    for (int64_t i = 0; i < slots; ++i) {
      EXPECT_EQ(IndexUtil::IsPaddingSlot(s, i), used.count(i) == 0) << i;
    }
  }
}

// ---- Helpers ----

TEST(IndexUtilTest, BumpIndicesRowMajor) {
  Shape s = ShapeUtil::MakeShape(F32, {2, 2});
  std::vector<int64_t> idx = {0, 0};
  EXPECT_TRUE(IndexUtil::BumpIndices(s, absl::MakeSpan(idx)));
  EXPECT_EQ(idx, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(IndexUtil::BumpIndices(s, absl::MakeSpan(idx)));
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 0}));
  EXPECT_TRUE(IndexUtil::BumpIndices(s, absl::MakeSpan(idx)));
  EXPECT_EQ(idx, (std::vector<int64_t>{1, 1}));
  EXPECT_FALSE(IndexUtil::BumpIndices(s, absl::MakeSpan(idx)));
}

TEST(IndexUtilTest, RowMajorStrides) {
  // index_util.h: [2,3,4] -> {12,4,1}.
  EXPECT_EQ(IndexUtil::RowMajorStrides(ShapeUtil::MakeShape(F32, {2, 3, 4})),
            (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(
      IndexUtil::RowMajorStrides(ShapeUtil::MakeShape(F32, {})).empty());
}

}  // namespace
}  // namespace plexa

namespace plexa {
namespace {

TEST(IndexUtilLayoutStridesTest, FollowTheLayout) {
  // Hand-computed: the most-minor dimension has stride 1.
  Shape s =
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3, 4}, {0, 1, 2});
  EXPECT_EQ(IndexUtil::LayoutStrides(s), (std::vector<int64_t>{1, 2, 6}));
  Shape r =
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3, 4}, {2, 1, 0});
  EXPECT_EQ(IndexUtil::LayoutStrides(r), (std::vector<int64_t>{12, 4, 1}));
  // No layout: the default (row-major) one.
  EXPECT_EQ(IndexUtil::LayoutStrides(Shape(PrimitiveType::F32, {5, 7})),
            (std::vector<int64_t>{7, 1}));
}

}  // namespace
}  // namespace plexa
