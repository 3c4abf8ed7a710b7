#include "core/shape/shape_util.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/shape/layout_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// ---- Construction ----

TEST(ShapeUtilTest, MakeShapeHasNoLayout) {
  // Seed 000: MakeShape(F32, {A, B, C, D}) gives dimensions [A, B, C, D].
  Shape s = ShapeUtil::MakeShape(F32, {2, 3, 4, 5});
  EXPECT_EQ(s.rank(), 4);
  EXPECT_EQ(s.dimensions(0), 2);
  EXPECT_EQ(s.dimensions(3), 5);
  EXPECT_FALSE(s.has_layout());
  EXPECT_EQ(s.ToString(), "f32[2,3,4,5]");
}

TEST(ShapeUtilTest, MakeShapeWithDescendingLayout) {
  EXPECT_EQ(ShapeUtil::MakeShapeWithDescendingLayout(F32, {2, 3}).ToString(),
            "f32[2,3]{1,0}");
  EXPECT_EQ(ShapeUtil::MakeShapeWithDescendingLayout(S32, {2, 3, 4}).ToString(),
            "s32[2,3,4]{2,1,0}");
  // A scalar's layout is empty and not printed.
  EXPECT_EQ(ShapeUtil::MakeShapeWithDescendingLayout(F32, {}).ToString(),
            "f32[]");
}

TEST(ShapeUtilTest, MakeShapeWithLayout) {
  EXPECT_EQ(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}).ToString(),
            "f32[2,3]{0,1}");
}

TEST(ShapeUtilTest, ScalarTupleToken) {
  Shape scalar = ShapeUtil::MakeScalarShape(PRED);
  EXPECT_TRUE(scalar.IsScalar());
  EXPECT_EQ(scalar.ToString(), "pred[]");
  Shape tuple = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {}), ShapeUtil::MakeShape(S32, {2})});
  EXPECT_TRUE(tuple.IsTuple());
  EXPECT_EQ(tuple.ToString(), "(f32[], s32[2])");
  Shape token = ShapeUtil::MakeTokenShape();
  EXPECT_TRUE(token.IsToken());
  EXPECT_EQ(token.ToString(), "token[]");
}

TEST(ShapeUtilTest, MakeValidatedShape) {
  absl::StatusOr<Shape> ok = ShapeUtil::MakeValidatedShape(F32, {0, 3});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->ToString(), "f32[0,3]");  // size 0 is valid (seed 001)
  EXPECT_EQ(ShapeUtil::MakeValidatedShape(F32, {2, -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShapeUtil::MakeValidatedShape(TUPLE, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      ShapeUtil::MakeValidatedShape(PrimitiveType::PRIMITIVE_TYPE_INVALID, {1})
          .status()
          .code(),
      absl::StatusCode::kInvalidArgument);
}

// ---- Counting ----

TEST(ShapeUtilTest, ElementsIn) {
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {2, 3, 4})), 24);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {})), 1);
  EXPECT_EQ(ShapeUtil::ElementsIn(ShapeUtil::MakeShape(F32, {5, 0, 2})), 0);
}

TEST(ShapeUtilTest, LeafCount) {
  Shape a = ShapeUtil::MakeShape(F32, {2});
  EXPECT_EQ(ShapeUtil::LeafCount(a), 1);
  EXPECT_EQ(ShapeUtil::LeafCount(ShapeUtil::MakeTupleShape({})), 0);
  Shape nested = ShapeUtil::MakeTupleShape(
      {a, ShapeUtil::MakeTupleShape({a, a, ShapeUtil::MakeTokenShape()}),
       ShapeUtil::MakeTupleShape({})});
  // a, (a, a, token), () -> 1 + 3 + 0.
  EXPECT_EQ(ShapeUtil::LeafCount(nested), 4);
}

// ---- ByteSizeOf ----

TEST(ShapeUtilTest, ByteSizeOfPlain) {
  // f32[2,3]: 6 elements * 4 bytes.
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(F32, {2, 3})), 24);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(F64, {})), 8);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(C128, {3})), 48);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(PRED, {7})), 7);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeShape(BF16, {0, 9})), 0);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(ShapeUtil::MakeTokenShape()), 0);
}

TEST(ShapeUtilTest, ByteSizeOfTupleIsPointerTable) {
  // Two elements: two 8-byte pointers, whatever the elements are.
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {100}), ShapeUtil::MakeShape(S8, {})});
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t), 16);
}

TEST(ShapeUtilTest, ByteSizeOfSeedPadded) {
  // shape_util.h / seed 000: f32[2,3] with padded_dimensions [3,5] holds
  // 3*5 = 15 slots of 4 bytes = 60 bytes.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5});
  EXPECT_EQ(ShapeUtil::ByteSizeOf(s), 60);
  EXPECT_EQ(ShapeUtil::ByteSizeOfElements(s), 24);
}

TEST(ShapeUtilTest, ByteSizeOfTiled) {
  // f32[3,5]{1,0:T(2,2)}: padded to 4x6 = 24 slots * 4 = 96 bytes.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(ShapeUtil::ByteSizeOf(s), 96);
  EXPECT_EQ(ShapeUtil::ByteSizeOfElements(s), 60);
  // T(8,128) on f32[3,5]: one 8x128 tile = 1024 slots = 4096 bytes.
  Shape t = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  t.mutable_layout()->add_tile(Tile({8, 128}));
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t), 4096);
}

TEST(ShapeUtilTest, ByteSizeOfSeedBf16) {
  // Seed 001: bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}. Physical
  // [1,8,1280,16384]; 1280 = 160*8 and 16384 = 128*128, so no padding:
  // 8*1*1280*16384 = 167772160 elements * 2 bytes = 335544320 bytes.
  Shape s =
      ShapeUtil::MakeShapeWithLayout(BF16, {8, 1, 1280, 16384}, {3, 2, 0, 1});
  s.mutable_layout()->add_tile(Tile({8, 128})).add_tile(Tile({2, 1}));
  EXPECT_EQ(ShapeUtil::ByteSizeOf(s), 335544320);
  // Uneven: bf16[8,1,1279,100] with the same layout: 1279 -> 160 tiles of
  // 8, 100 -> 1 tile of 128: 1*8*160*1*8*128 = 1310720 slots = 2621440 B.
  Shape u =
      ShapeUtil::MakeShapeWithLayout(BF16, {8, 1, 1279, 100}, {3, 2, 0, 1});
  u.mutable_layout()->add_tile(Tile({8, 128})).add_tile(Tile({2, 1}));
  EXPECT_EQ(ShapeUtil::ByteSizeOf(u), 2621440);
}

TEST(ShapeUtilTest, ByteSizeOfTailPadded) {
  // f32[3,5]{1,0:L(16)}: 15 -> 16 slots = 64 bytes.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->set_tail_padding_alignment_in_elements(16);
  EXPECT_EQ(s.ToString(), "f32[3,5]{1,0:L(16)}");
  EXPECT_EQ(ShapeUtil::ByteSizeOf(s), 64);
  // f32[3,5]{1,0:T(2,2)L(10)}: 24 slots -> 30 -> 120 bytes.
  Shape t = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  t.mutable_layout()
      ->add_tile(Tile({2, 2}))
      .set_tail_padding_alignment_in_elements(10);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(t), 120);
  // s16[7]{0:L(4)} -> 8 slots * 2 bytes = 16.
  Shape u = ShapeUtil::MakeShapeWithLayout(S16, {7}, {0});
  u.mutable_layout()->set_tail_padding_alignment_in_elements(4);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(u), 16);
}

TEST(ShapeUtilTest, ByteSizeOfElementSizeInBits) {
  // s8[5]{0:E(4)}: five 4-bit elements = 20 bits -> 3 bytes.
  Shape s = ShapeUtil::MakeShapeWithLayout(S8, {5}, {0});
  s.mutable_layout()->set_element_size_in_bits(4);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(s), 3);
  // pred[8,8,8]{0,2,1:T(8,128)E(32)} (from XLA's layout tests): physical
  // [8,8,8]; T(8,128) on the last two -> [8,1,1,8,128] = 8192 slots of 32
  // bits = 32768 bytes.
  Shape p = ShapeUtil::MakeShapeWithLayout(PRED, {8, 8, 8}, {0, 2, 1});
  p.mutable_layout()->add_tile(Tile({8, 128})).set_element_size_in_bits(32);
  EXPECT_EQ(p.ToString(), "pred[8,8,8]{0,2,1:T(8,128)E(32)}");
  EXPECT_EQ(ShapeUtil::ByteSizeOf(p), 32768);
}

// ---- Predicates ----

TEST(ShapeUtilTest, ScalarPredicates) {
  EXPECT_TRUE(ShapeUtil::IsEffectiveScalar(ShapeUtil::MakeShape(F32, {1, 1})));
  EXPECT_TRUE(ShapeUtil::IsEffectiveScalar(ShapeUtil::MakeShape(F32, {})));
  EXPECT_FALSE(ShapeUtil::IsEffectiveScalar(ShapeUtil::MakeShape(F32, {2})));
  EXPECT_FALSE(ShapeUtil::IsScalar(ShapeUtil::MakeShape(F32, {1})));
  EXPECT_TRUE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeShape(F32, {3, 0})));
  EXPECT_FALSE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeShape(F32, {})));
  EXPECT_FALSE(ShapeUtil::IsZeroElementArray(ShapeUtil::MakeTupleShape({})));
}

TEST(ShapeUtilTest, CompatibleIgnoresLayoutAndDynamism) {
  Shape a = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  Shape b = ShapeUtil::MakeShape(F32, {2, 3});
  b.set_dynamic_dimension(0, true);
  EXPECT_TRUE(ShapeUtil::Compatible(a, b));
  EXPECT_FALSE(ShapeUtil::Equal(a, b));
  EXPECT_FALSE(ShapeUtil::Compatible(a, ShapeUtil::MakeShape(S32, {2, 3})));
  EXPECT_FALSE(ShapeUtil::Compatible(a, ShapeUtil::MakeShape(F32, {3, 2})));
  EXPECT_TRUE(ShapeUtil::CompatibleIgnoringElementType(
      a, ShapeUtil::MakeShape(S32, {2, 3})));
  EXPECT_FALSE(ShapeUtil::CompatibleIgnoringElementType(
      a, ShapeUtil::MakeShape(S32, {2})));
  // Tokens only with tokens, tuples element-wise.
  EXPECT_TRUE(ShapeUtil::Compatible(ShapeUtil::MakeTokenShape(),
                                    ShapeUtil::MakeTokenShape()));
  EXPECT_FALSE(ShapeUtil::CompatibleIgnoringElementType(
      ShapeUtil::MakeTokenShape(), ShapeUtil::MakeShape(F32, {})));
  Shape t1 = ShapeUtil::MakeTupleShape({a, ShapeUtil::MakeTokenShape()});
  Shape t2 = ShapeUtil::MakeTupleShape({b, ShapeUtil::MakeTokenShape()});
  EXPECT_TRUE(ShapeUtil::Compatible(t1, t2));
  EXPECT_FALSE(ShapeUtil::Compatible(t1, ShapeUtil::MakeTupleShape({a})));
  EXPECT_FALSE(ShapeUtil::Compatible(t1, a));
}

TEST(ShapeUtilTest, SameDimensionsAndType) {
  EXPECT_TRUE(ShapeUtil::SameDimensions(ShapeUtil::MakeShape(F32, {2, 3}),
                                        ShapeUtil::MakeShape(S8, {2, 3})));
  EXPECT_FALSE(ShapeUtil::SameDimensions(ShapeUtil::MakeShape(F32, {2, 3}),
                                         ShapeUtil::MakeShape(F32, {2, 3, 1})));
  EXPECT_TRUE(ShapeUtil::SameElementType(ShapeUtil::MakeShape(F32, {2}),
                                         ShapeUtil::MakeShape(F32, {})));
}

TEST(ShapeUtilTest, TrueRank) {
  // Seeds 000-002: the true rank counts the dimensions of size > 1.
  EXPECT_EQ(ShapeUtil::TrueRank(ShapeUtil::MakeShape(F32, {1, 5, 1, 3})), 2);
  EXPECT_EQ(ShapeUtil::TrueRank(ShapeUtil::MakeShape(F32, {1, 1})), 0);
  EXPECT_EQ(ShapeUtil::TrueRank(ShapeUtil::MakeShape(F32, {})), 0);
  EXPECT_EQ(ShapeUtil::TrueRank(ShapeUtil::MakeShape(F32, {0, 2})), 1);
  EXPECT_EQ(ShapeUtil::TrueRank(ShapeUtil::MakeShape(F32, {2, 3, 4})), 3);
}

// ---- Negative dimension numbers (seed 000) ----

TEST(ShapeUtilTest, CanonicalDimension) {
  // For the [A x B x C] = [2 x 3 x 4] array: -1 is C (dim 2), -2 is B
  // (dim 1), -3 is A (dim 0).
  Shape s = ShapeUtil::MakeShape(F32, {2, 3, 4});
  EXPECT_EQ(*ShapeUtil::CanonicalDimension(s, -1), 2);
  EXPECT_EQ(*ShapeUtil::CanonicalDimension(s, -2), 1);
  EXPECT_EQ(*ShapeUtil::CanonicalDimension(s, -3), 0);
  EXPECT_EQ(*ShapeUtil::CanonicalDimension(s, 0), 0);
  EXPECT_EQ(*ShapeUtil::CanonicalDimension(s, 2), 2);
  EXPECT_EQ(ShapeUtil::CanonicalDimension(s, -4).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ShapeUtil::CanonicalDimension(s, 3).status().code(),
            absl::StatusCode::kInvalidArgument);
  // The message names the op and the shape.
  std::string msg(ShapeUtil::CanonicalDimension(s, 3).status().message());
  EXPECT_NE(msg.find("CanonicalDimension"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[2,3,4]"), std::string::npos) << msg;
  // A scalar has no dimension at all.
  EXPECT_FALSE(
      ShapeUtil::CanonicalDimension(ShapeUtil::MakeShape(F32, {}), -1).ok());
  EXPECT_FALSE(
      ShapeUtil::CanonicalDimension(ShapeUtil::MakeTupleShape({}), 0).ok());
}

TEST(ShapeUtilTest, GetDimension) {
  // [A x B x C] = [2 x 3 x 4]: dimension -1 has size C = 4, -2 has B = 3.
  Shape s = ShapeUtil::MakeShape(F32, {2, 3, 4});
  EXPECT_EQ(*ShapeUtil::GetDimension(s, -1), 4);
  EXPECT_EQ(*ShapeUtil::GetDimension(s, -2), 3);
  EXPECT_EQ(*ShapeUtil::GetDimension(s, -3), 2);
  EXPECT_EQ(*ShapeUtil::GetDimension(s, 1), 3);
  EXPECT_FALSE(ShapeUtil::GetDimension(s, -4).ok());
  EXPECT_FALSE(ShapeUtil::GetDimension(s, 3).ok());
}

// ---- Transformations ----

TEST(ShapeUtilTest, ChangeElementType) {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_EQ(ShapeUtil::ChangeElementType(s, BF16).ToString(), "bf16[2,3]{0,1}");
  Shape t = ShapeUtil::MakeTupleShape({s, ShapeUtil::MakeShape(S32, {})});
  EXPECT_EQ(ShapeUtil::ChangeElementType(t, F16).ToString(),
            "(f16[2,3]{0,1}, f16[])");
}

TEST(ShapeUtilTest, DeleteDimension) {
  // f32[2,3,4]{0,2,1} without dim 1: dims [2,4]; minor_to_major loses 1 and
  // 2 becomes 1: {0,1}.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3, 4}, {0, 2, 1});
  EXPECT_EQ(ShapeUtil::DeleteDimension(1, s).ToString(), "f32[2,4]{0,1}");
  EXPECT_EQ(ShapeUtil::DeleteDimension(0, s).ToString(), "f32[3,4]{1,0}");
  EXPECT_EQ(ShapeUtil::DeleteDimension(2, ShapeUtil::MakeShape(F32, {2, 3, 4}))
                .ToString(),
            "f32[2,3]");
  // Padded dimensions and dynamic markers follow the dimensions.
  Shape p = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0});
  p.mutable_layout()->set_padded_dimensions({4, 5});
  p.set_dynamic_dimension(1, true);
  Shape d = ShapeUtil::DeleteDimension(0, p);
  EXPECT_EQ(d.ToString(), "f32[<=3]{0:PD(5)}");
}

TEST(ShapeUtilTest, FilterDimensions) {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3, 4}, {0, 2, 1});
  // Keeping {0,2} deletes dim 1, as above.
  EXPECT_EQ(ShapeUtil::FilterDimensions(s, {0, 2}).ToString(), "f32[2,4]{0,1}");
  EXPECT_EQ(ShapeUtil::FilterDimensions(s, {1}).ToString(), "f32[3]{0}");
  EXPECT_EQ(ShapeUtil::FilterDimensions(s, {}).ToString(), "f32[]");
}

TEST(ShapeUtilTest, PermuteDimensions) {
  // Result dim i = shape dim permutation[i]: [2,3,4] by {2,0,1} -> [4,2,3].
  // The physical layout is kept: old dims 0,1,2 are new dims 1,2,0, so
  // {2,1,0} becomes {0,2,1} (still major-to-minor 2,3,4 in memory).
  Shape s = ShapeUtil::MakeShapeWithDescendingLayout(F32, {2, 3, 4});
  EXPECT_EQ(ShapeUtil::PermuteDimensions({2, 0, 1}, s).ToString(),
            "f32[4,2,3]{0,2,1}");
  EXPECT_EQ(
      ShapeUtil::PermuteDimensions({1, 0}, ShapeUtil::MakeShape(S8, {5, 7}))
          .ToString(),
      "s8[7,5]");
}

TEST(ShapeUtilTest, Subshapes) {
  Shape a = ShapeUtil::MakeShape(F32, {2});
  Shape b = ShapeUtil::MakeShape(S32, {});
  Shape t = ShapeUtil::MakeTupleShape({a, ShapeUtil::MakeTupleShape({b, a})});
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {}), t);
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {0}), a);
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {1, 0}), b);
  ASSERT_TRUE(ShapeUtil::TryGetSubshape(t, {1, 1}).ok());
  EXPECT_EQ(**ShapeUtil::TryGetSubshape(t, {1, 1}), a);
  EXPECT_EQ(ShapeUtil::TryGetSubshape(t, {2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ShapeUtil::TryGetSubshape(t, {0, 0}).ok());  // into an array
  EXPECT_FALSE(ShapeUtil::TryGetSubshape(t, {-1}).ok());
  // GetSubshape does not abort on a bad path.
  EXPECT_EQ(ShapeUtil::GetSubshape(t, {5}).element_type(),
            PrimitiveType::PRIMITIVE_TYPE_INVALID);
}

TEST(ShapeUtilTest, ForEachIndexRowMajor) {
  std::vector<std::vector<int64_t>> seen;
  ShapeUtil::ForEachIndex(ShapeUtil::MakeShape(F32, {2, 2}),
                          [&](absl::Span<const int64_t> i) {
                            seen.emplace_back(i.begin(), i.end());
                          });
  EXPECT_EQ(seen, (std::vector<std::vector<int64_t>>{
                      {0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  int calls = 0;
  ShapeUtil::ForEachIndex(ShapeUtil::MakeShape(F32, {3, 0}),
                          [&](absl::Span<const int64_t>) { ++calls; });
  EXPECT_EQ(calls, 0);
  ShapeUtil::ForEachIndex(ShapeUtil::MakeShape(F32, {}),
                          [&](absl::Span<const int64_t> i) {
                            EXPECT_TRUE(i.empty());
                            ++calls;
                          });
  EXPECT_EQ(calls, 1);
}

// ---- Validation ----

TEST(ShapeUtilTest, ValidateShape) {
  EXPECT_TRUE(ShapeUtil::ValidateShape(ShapeUtil::MakeShape(F32, {2, 0})).ok());
  EXPECT_TRUE(ShapeUtil::ValidateShape(ShapeUtil::MakeTokenShape()).ok());
  Shape neg = ShapeUtil::MakeShape(F32, {2, 3});
  neg.set_dimensions(1, -3);
  EXPECT_EQ(ShapeUtil::ValidateShape(neg).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ShapeUtil::ValidateShape(Shape()).ok());  // invalid type
  // A bad layout inside a tuple is found.
  Shape bad = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 0});
  EXPECT_FALSE(ShapeUtil::ValidateShape(ShapeUtil::MakeTupleShape({bad})).ok());
  // Sizes beyond int64 are rejected (and computing them is defined: they
  // saturate).
  Shape huge = ShapeUtil::MakeShape(F32, {int64_t{1} << 40, int64_t{1} << 30});
  EXPECT_EQ(ShapeUtil::ElementsIn(huge), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ShapeUtil::ByteSizeOf(huge), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ShapeUtil::ValidateShape(huge).code(),
            absl::StatusCode::kInvalidArgument);
  // 2^61 f32 elements = 2^63 bytes: the element count fits, the bytes not.
  Shape big = ShapeUtil::MakeShape(F32, {int64_t{1} << 61});
  EXPECT_FALSE(ShapeUtil::ValidateShape(big).ok());
  EXPECT_TRUE(
      ShapeUtil::ValidateShape(ShapeUtil::MakeShape(S8, {int64_t{1} << 40}))
          .ok());
  // The seed's tiled shape is valid.
  Shape seed =
      ShapeUtil::MakeShapeWithLayout(BF16, {8, 1, 1280, 16384}, {3, 2, 0, 1});
  seed.mutable_layout()->add_tile(Tile({8, 128})).add_tile(Tile({2, 1}));
  EXPECT_TRUE(ShapeUtil::ValidateShape(seed).ok());
}

}  // namespace
}  // namespace plexa

namespace plexa {
namespace {

TEST(ShapeUtilIsDenseArrayTest, OnlyPlainArraysAreDense) {
  EXPECT_TRUE(ShapeUtil::IsDenseArray(
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3}, {0, 1})));
  EXPECT_TRUE(ShapeUtil::IsDenseArray(Shape(PrimitiveType::S8, {4, 0})));
  EXPECT_FALSE(ShapeUtil::IsDenseArray(
      ShapeUtil::MakeTupleShape({Shape(PrimitiveType::F32, {2})})));
  // Tiled: T(8,128) on f32[2,3] pads to a whole tile.
  Shape tiled =
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3}, {1, 0});
  tiled.mutable_layout()->mutable_tiles()->push_back(Tile({8, 128}));
  EXPECT_FALSE(ShapeUtil::IsDenseArray(tiled));
}

}  // namespace
}  // namespace plexa
