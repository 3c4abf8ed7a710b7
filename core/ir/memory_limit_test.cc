// The memory limit check (core/ir/memory_limit.h), and the canonical form of
// a dot without dimension numbers (Instruction::Create). Expected byte
// counts are hand computed in the comments.
#include "core/ir/memory_limit.h"

#include <limits>

#include "core/ir/instruction.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::HasSubstr;

TEST(MemoryLimitTest, MachineMemoryIsPositive) {
  EXPECT_GT(MachineMemoryBytes(), int64_t{1} << 20);
}

TEST(MemoryLimitTest, CheckedArrayBytes) {
  // f32[2,3]: 6 x 4 = 24 bytes.
  EXPECT_EQ(CheckedArrayBytes(ShapeUtil::MakeShape(F32, {2, 3})), 24);
  // f32[1000000000000]: 4e12 bytes (fits int64).
  EXPECT_EQ(CheckedArrayBytes(ShapeUtil::MakeShape(F32, {1000000000000})),
            4000000000000);
  // 2^40 x 2^40 f32 elements: 2^82 bytes overflow int64.
  EXPECT_EQ(CheckedArrayBytes(ShapeUtil::MakeShape(
                F32, {int64_t{1} << 40, int64_t{1} << 40})),
            -1);
  // Tiling pads: f32[5,130]{1,0:T(8,128)} occupies 8 x 256 x 4 = 8192 bytes.
  Shape tiled = ShapeUtil::MakeShape(F32, {5, 130});
  Layout layout = LayoutUtil::MakeLayout({1, 0});
  layout.add_tile(Tile({8, 128}));
  *tiled.mutable_layout() = layout;
  EXPECT_EQ(CheckedArrayBytes(tiled), 8192);
}

TEST(MemoryLimitTest, CheckShapeFitsLimitNamesTheValue) {
  const Shape s = ShapeUtil::MakeShape(F32, {100});  // 400 bytes
  EXPECT_TRUE(CheckShapeFitsLimit(s, 400, "input 0").ok());
  absl::Status over = CheckShapeFitsLimit(s, 399, "input 0");
  EXPECT_EQ(over.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(over.message(), HasSubstr("input 0 (f32[100]"));
  EXPECT_THAT(over.message(), HasSubstr("needs 400 bytes"));
  EXPECT_THAT(over.message(), HasSubstr("limit of 399 bytes"));
  // Tuples: every leaf.
  const Shape t(std::vector<Shape>{ShapeUtil::MakeShape(S8, {10}), s});
  EXPECT_FALSE(CheckShapeFitsLimit(t, 399, "result").ok());
  EXPECT_TRUE(CheckShapeFitsLimit(t, 400, "result").ok());
  // Overflowing shapes are over any limit.
  absl::Status huge = CheckShapeFitsLimit(
      ShapeUtil::MakeShape(F32, {int64_t{1} << 40, int64_t{1} << 40}),
      std::numeric_limits<int64_t>::max(), "p");
  EXPECT_EQ(huge.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(huge.message(), HasSubstr("more than 2^63"));
}

TEST(MemoryLimitTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(int64_t{3} << 30), "3.0 GiB");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
}

TEST(InstructionTest, ADotWithoutDimensionNumbersIsAnOuterProduct) {
  auto dot = Instruction::Create(HloOpcode::kDot,
                                 ShapeUtil::MakeShape(F32, {3, 2}), {}, {});
  ASSERT_TRUE(dot->attrs().dot_dimension_numbers.has_value());
  EXPECT_TRUE(
      dot->attrs().dot_dimension_numbers->lhs_contracting_dimensions.empty());
  EXPECT_TRUE(dot->attrs().dot_dimension_numbers->lhs_batch_dimensions.empty());
}

}  // namespace
}  // namespace plexa
