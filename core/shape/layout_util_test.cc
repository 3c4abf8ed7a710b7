#include "core/shape/layout_util.h"

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/shape/shape_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

TEST(LayoutUtilTest, DefaultLayoutIsMajorToMinor) {
  // Seed 000: "dimension order is major-to-minor": {rank-1, ..., 0}.
  EXPECT_EQ(LayoutUtil::GetDefaultLayoutForRank(3).ToString(), "{2,1,0}");
  EXPECT_EQ(LayoutUtil::GetDefaultLayoutForRank(1).ToString(), "{0}");
  EXPECT_EQ(LayoutUtil::GetDefaultLayoutForRank(0).ToString(), "{}");
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Major(
      LayoutUtil::GetDefaultLayoutForRank(4)));
}

TEST(LayoutUtilTest, MakeLayout) {
  Layout l = LayoutUtil::MakeLayout({0, 2, 1});
  EXPECT_EQ(l.minor_to_major(), (std::vector<int64_t>{0, 2, 1}));
}

TEST(LayoutUtilTest, Monotonic) {
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Major(Layout({2, 1, 0})));
  EXPECT_FALSE(LayoutUtil::IsMonotonicWithDim0Major(Layout({0, 1, 2})));
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Minor(Layout({0, 1, 2})));
  EXPECT_FALSE(LayoutUtil::IsMonotonicWithDim0Minor(Layout({1, 0, 2})));
  // Rank 1 and 0 are both.
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Major(Layout({0})));
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Minor(Layout({0})));
  EXPECT_TRUE(LayoutUtil::IsMonotonicWithDim0Minor(Layout()));
}

TEST(LayoutUtilTest, SetToDefaultLayoutIfEmptyRecursesIntoTuples) {
  Shape t = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2, 3}),
       ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}),
       ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(S8, {4, 5, 6})}),
       ShapeUtil::MakeTokenShape()});
  LayoutUtil::SetToDefaultLayoutIfEmpty(&t);
  // The existing {0,1} layout is kept.
  EXPECT_EQ(t.ToString(),
            "(f32[2,3]{1,0}, f32[2,3]{0,1}, (s8[4,5,6]{2,1,0}), token[])");
  LayoutUtil::SetToDefaultLayout(&t);
  EXPECT_EQ(t.ToString(),
            "(f32[2,3]{1,0}, f32[2,3]{1,0}, (s8[4,5,6]{2,1,0}), token[])");
}

TEST(LayoutUtilTest, SetToDefaultKeepsOtherFieldsOfAnIncompleteLayout) {
  // A layout built through mutable_layout() with only a tile: the default
  // dimension order is filled in, the tile stays.
  Shape s = ShapeUtil::MakeShape(F32, {3, 5});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  EXPECT_EQ(s.ToString(), "f32[3,5]{1,0:T(2,2)}");
}

TEST(LayoutUtilTest, EffectiveLayout) {
  EXPECT_EQ(
      LayoutUtil::EffectiveLayout(ShapeUtil::MakeShape(F32, {2, 3})).ToString(),
      "{1,0}");
  EXPECT_EQ(LayoutUtil::EffectiveLayout(
                ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}))
                .ToString(),
            "{0,1}");
}

TEST(LayoutUtilTest, IsPaddedAndIsTiled) {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  EXPECT_FALSE(LayoutUtil::IsPadded(s));
  s.mutable_layout()->set_padded_dimensions({2, 3});  // nothing widened
  EXPECT_FALSE(LayoutUtil::IsPadded(s));
  s.mutable_layout()->set_padded_dimensions({3, 5});
  EXPECT_TRUE(LayoutUtil::IsPadded(s));
  EXPECT_FALSE(LayoutUtil::IsTiled(s));
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_TRUE(LayoutUtil::IsTiled(s));
  EXPECT_FALSE(LayoutUtil::IsPadded(ShapeUtil::MakeShape(F32, {2})));
  EXPECT_FALSE(LayoutUtil::IsTiled(ShapeUtil::MakeTupleShape({})));
}

TEST(LayoutUtilTest, MajorToMinorAndPhysicalPosition) {
  Layout l({3, 2, 0, 1});  // the seed's {3,2,0,1}
  EXPECT_EQ(LayoutUtil::MajorToMinor(l), (std::vector<int64_t>{1, 0, 2, 3}));
  EXPECT_EQ(LayoutUtil::PhysicalPosition(l, 3), 0);  // most minor
  EXPECT_EQ(LayoutUtil::PhysicalPosition(l, 1), 3);  // most major
  EXPECT_EQ(LayoutUtil::PhysicalPosition(l, 0), 2);
  EXPECT_EQ(LayoutUtil::PhysicalPosition(l, 7), -1);
}

absl::StatusCode Validate(const Layout& l, const Shape& s) {
  return LayoutUtil::ValidateLayoutForShape(l, s).code();
}

TEST(LayoutUtilTest, ValidateAcceptsGoodLayouts) {
  Shape s = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_EQ(Validate(Layout({1, 0}), s), absl::StatusCode::kOk);
  EXPECT_EQ(Validate(Layout({0, 1}), s), absl::StatusCode::kOk);
  EXPECT_EQ(Validate(Layout(), ShapeUtil::MakeShape(F32, {})),
            absl::StatusCode::kOk);
  Layout tiled({1, 0});
  tiled.add_tile(Tile({8, 128}))
      .add_tile(Tile({2, 1}))
      .set_tail_padding_alignment_in_elements(4)
      .set_memory_space(1);
  EXPECT_EQ(Validate(tiled, s), absl::StatusCode::kOk);
  Layout padded({0, 1});
  padded.set_padded_dimensions({3, 5});
  EXPECT_EQ(Validate(padded, s), absl::StatusCode::kOk);
  Layout combine({1, 0});
  combine.add_tile(Tile({Tile::kCombineDimension, 4}));
  EXPECT_EQ(Validate(combine, s), absl::StatusCode::kOk);
}

TEST(LayoutUtilTest, ValidateRejectsBadLayouts) {
  const auto kBad = absl::StatusCode::kInvalidArgument;
  Shape s = ShapeUtil::MakeShape(F32, {2, 3});
  EXPECT_EQ(Validate(Layout({0}), s), kBad);        // too short
  EXPECT_EQ(Validate(Layout({0, 1, 2}), s), kBad);  // too long
  EXPECT_EQ(Validate(Layout({1, 1}), s), kBad);     // repeated
  EXPECT_EQ(Validate(Layout({2, 0}), s), kBad);     // out of range
  EXPECT_EQ(Validate(Layout({-1, 0}), s), kBad);    // negative
  Layout p({1, 0});
  p.set_padded_dimensions({2, 2});  // 2 < 3
  EXPECT_EQ(Validate(p, s), kBad);
  p.set_padded_dimensions({5});  // wrong count
  EXPECT_EQ(Validate(p, s), kBad);
  Layout t({1, 0});
  t.add_tile(Tile({2, 0}));
  EXPECT_EQ(Validate(t, s), kBad);
  Layout e({1, 0});
  e.add_tile(Tile());
  EXPECT_EQ(Validate(e, s), kBad);
  Layout star({1, 0});
  star.add_tile(Tile({4, Tile::kCombineDimension}));  // nothing to merge into
  EXPECT_EQ(Validate(star, s), kBad);
  Layout tail({1, 0});
  tail.set_tail_padding_alignment_in_elements(0);
  EXPECT_EQ(Validate(tail, s), kBad);
  EXPECT_EQ(Validate(Layout(), ShapeUtil::MakeTupleShape({})), kBad);
  // The message shows the layout and the shape.
  std::string msg(
      LayoutUtil::ValidateLayoutForShape(Layout({1, 1}), s).message());
  EXPECT_NE(msg.find("{1,1}"), std::string::npos) << msg;
  EXPECT_NE(msg.find("f32[2,3]"), std::string::npos) << msg;
}

}  // namespace
}  // namespace plexa
