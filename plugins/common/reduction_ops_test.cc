// The reducers' element operations: integers wrap, maximum and minimum
// propagate the first NaN and keep the first argument on ties, and the
// update-first adapter swaps the arguments.
#include "plugins/common/reduction_ops.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

TEST(ReductionOpsTest, IntegersWrap) {
  EXPECT_EQ(WrapAddOp<uint8_t>::Apply(200, 100), 44);
  EXPECT_EQ(WrapMulOp<uint16_t>::Apply(300, 300), (300 * 300) % 65536);
  EXPECT_EQ(WrapAddOp<uint32_t>::Apply(std::numeric_limits<uint32_t>::max(), 2),
            1u);
  EXPECT_EQ(AndOp<uint8_t>::Apply(0b1100, 0b1010), 0b1000);
  EXPECT_EQ(OrOp<uint8_t>::Apply(0b1100, 0b1010), 0b1110);
}

TEST(ReductionOpsTest, MaximumAndMinimumPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(MaxOp<float>::Apply(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(MaxOp<float>::Apply(1.0f, nan)));
  EXPECT_TRUE(std::isnan(MinOp<float>::Apply(nan, 1.0f)));
  EXPECT_EQ(MaxOp<int32_t>::Apply(-3, 2), 2);
  EXPECT_EQ(MinOp<int32_t>::Apply(-3, 2), -3);
  // Ties keep the first argument (-0.0 and 0.0 compare equal).
  EXPECT_TRUE(std::signbit(MaxOp<float>::Apply(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(MinOp<float>::Apply(0.0f, -0.0f)));
}

TEST(ReductionOpsTest, UpdateFirstSwapsTheArguments) {
  EXPECT_EQ(AssignOp<int>::Apply(1, 2), 2);
  EXPECT_EQ(UpdateFirst<AssignOp<int>>::Apply(1, 2), 1);
  EXPECT_EQ(PredOrOp::Apply(0, 3), 1);
  EXPECT_EQ(PredAndOp::Apply(2, 3), 1);
  EXPECT_EQ(PredAndOp::Apply(0, 3), 0);
}

}  // namespace
}  // namespace plexa::backend
