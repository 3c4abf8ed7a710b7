// SelectInWindows against hand-worked windows.
#include "plugins/cpu/runtime/select_and_scatter.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace plexa::cpu {
namespace {

WindowSelectDesc OneD(int64_t n, int64_t size, int64_t stride, int64_t pad,
                      int64_t sources, SelectDirection dir) {
  WindowSelectDesc d;
  d.element_type = ScatterType::kF32;
  d.direction = dir;
  d.operand = {{n}, {1}};
  d.source_dims = {sources};
  d.window_size = {size};
  d.window_stride = {stride};
  d.padding_low = {pad};
  return d;
}

TEST(SelectInWindowsTest, TiesKeepTheFirstWithGeAndTakeTheLastWithGt) {
  // Windows of 2, stride 1 over {1, 5, 5, 2}: [1,5] [5,5] [5,2].
  const std::vector<float> x = {1, 5, 5, 2};
  std::vector<int64_t> ge(3), gt(3);
  ASSERT_TRUE(SelectInWindows(OneD(4, 2, 1, 0, 3, SelectDirection::kGe),
                              x.data(), ge.data())
                  .ok());
  ASSERT_TRUE(SelectInWindows(OneD(4, 2, 1, 0, 3, SelectDirection::kGt),
                              x.data(), gt.data())
                  .ok());
  // GE keeps 5 at index 1 against the equal 5 at index 2; GT replaces it.
  EXPECT_EQ(ge, (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(gt, (std::vector<int64_t>{1, 2, 2}));
}

TEST(SelectInWindowsTest, MinimumWithLe) {
  const std::vector<float> x = {4, 2, 3, 1, 6};
  std::vector<int64_t> sel(2);
  // Windows of 3, stride 2: [4,2,3] -> index 1, [3,1,6] -> index 3.
  ASSERT_TRUE(SelectInWindows(OneD(5, 3, 2, 0, 2, SelectDirection::kLe),
                              x.data(), sel.data())
                  .ok());
  EXPECT_EQ(sel, (std::vector<int64_t>{1, 3}));
}

TEST(SelectInWindowsTest, PaddingIsNeverSelectedAndAllPaddingGivesMinusOne) {
  // Operand {7, 3}, padding 2 on the left, window 2, stride 1: windows
  // [pad,pad] [pad,7] [7,3].
  const std::vector<float> x = {7, 3};
  std::vector<int64_t> sel(3);
  ASSERT_TRUE(SelectInWindows(OneD(2, 2, 1, 2, 3, SelectDirection::kGe),
                              x.data(), sel.data())
                  .ok());
  EXPECT_EQ(sel, (std::vector<int64_t>{-1, 0, 0}));
}

TEST(SelectInWindowsTest, ANanCandidateReplacesTheSelection) {
  // GE with a NaN is false either way: the NaN at index 1 replaces 1, and
  // then 9 replaces the NaN.
  const std::vector<float> x = {1, std::nanf(""), 9};
  std::vector<int64_t> sel(1);
  ASSERT_TRUE(SelectInWindows(OneD(3, 3, 1, 0, 1, SelectDirection::kGe),
                              x.data(), sel.data())
                  .ok());
  EXPECT_EQ(sel[0], 2);
}

TEST(SelectInWindowsTest, TwoDimensionsInAColumnMajorLayout) {
  // f32[2,4] {{1, 8, 2, 3}, {4, 0, 9, 5}} stored column-major (strides
  // {1, 2}); 2x2 windows, stride 2: the maxima 8 at (0,1) and 9 at (1,2).
  const std::vector<float> x = {1, 4, 8, 0, 2, 9, 3, 5};
  WindowSelectDesc d;
  d.element_type = ScatterType::kF32;
  d.direction = SelectDirection::kGe;
  d.operand = {{2, 4}, {1, 2}};
  d.source_dims = {1, 2};
  d.window_size = {2, 2};
  d.window_stride = {2, 2};
  d.padding_low = {0, 0};
  std::vector<int64_t> sel(4);
  ASSERT_TRUE(SelectInWindows(d, x.data(), sel.data()).ok());
  EXPECT_EQ(sel, (std::vector<int64_t>{0, 1, 1, 2}));
}

TEST(SelectInWindowsTest, InconsistentDescriptionsAreErrors) {
  WindowSelectDesc d = OneD(4, 2, 1, 0, 3, SelectDirection::kGe);
  d.window_stride = {0};
  std::vector<float> x(4);
  std::vector<int64_t> sel(3);
  EXPECT_FALSE(SelectInWindows(d, x.data(), sel.data()).ok());
  d = OneD(4, 2, 1, 0, 3, SelectDirection::kGe);
  d.source_dims = {3, 1};
  EXPECT_FALSE(SelectInWindows(d, x.data(), sel.data()).ok());
}

}  // namespace
}  // namespace plexa::cpu
