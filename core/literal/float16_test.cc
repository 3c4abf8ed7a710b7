#include "core/literal/float16.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace plexa {
namespace {

float F(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// Half: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(Half::FromFloat(1.0f), 0x3C00);   // exponent 15, mantissa 0
  EXPECT_EQ(Half::FromFloat(-2.0f), 0xC000);  // sign, exponent 16
  EXPECT_EQ(Half::FromFloat(0.5f), 0x3800);   // exponent 14
  EXPECT_EQ(Half::FromFloat(1.5f), 0x3E00);   // mantissa 0x200
  EXPECT_EQ(Half::FromFloat(0.0f), 0x0000);
  EXPECT_EQ(Half::FromFloat(-0.0f), 0x8000);
  // 65504 = (2 - 2^-10) * 2^15, the largest finite half.
  EXPECT_EQ(Half::FromFloat(65504.0f), 0x7BFF);
  // 2^-14, the smallest normal.
  EXPECT_EQ(Half::FromFloat(std::ldexp(1.0f, -14)), 0x0400);
  // 2^-24, the smallest subnormal; 1023 * 2^-24 the largest subnormal.
  EXPECT_EQ(Half::FromFloat(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(Half::FromFloat(std::ldexp(1023.0f, -24)), 0x03FF);
}

TEST(HalfTest, RoundsToNearestEven) {
  // 0.1 = 1.6 * 2^-4: exponent 11, mantissa 0.6 * 1024 = 614.4 -> 614
  // (0x266): 0x2C00 + 0x266 = 0x2E66.
  EXPECT_EQ(Half::FromFloat(0.1f), 0x2E66);
  // 1 + 2^-11 is halfway between 1 (0x3C00, even) and 1 + 2^-10 (0x3C01).
  EXPECT_EQ(Half::FromFloat(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  // 1 + 3*2^-11 is halfway between 0x3C01 (odd) and 0x3C02 (even).
  EXPECT_EQ(Half::FromFloat(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  // Just above the first halfway point rounds up.
  EXPECT_EQ(
      Half::FromFloat(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
      0x3C01);
  // 65519 is below the halfway point 65520 between 65504 and 65536.
  EXPECT_EQ(Half::FromFloat(65519.0f), 0x7BFF);
}

TEST(HalfTest, OverflowGoesToInfinity) {
  // 65520 is exactly halfway between 65504 (odd mantissa 0x3FF) and 2^16
  // (not representable: the even neighbour, i.e. infinity).
  EXPECT_EQ(Half::FromFloat(65520.0f), 0x7C00);
  EXPECT_EQ(Half::FromFloat(-65520.0f), 0xFC00);
  EXPECT_EQ(Half::FromFloat(1e10f), 0x7C00);
  EXPECT_EQ(Half::FromFloat(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(Half::FromFloat(-std::numeric_limits<float>::infinity()), 0xFC00);
}

TEST(HalfTest, SubnormalRounding) {
  // 2^-25 is halfway between 0 (even) and 2^-24: rounds to 0.
  EXPECT_EQ(Half::FromFloat(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(Half::FromFloat(-std::ldexp(1.0f, -25)), 0x8000);
  // A bit more than 2^-25 rounds up to 2^-24.
  EXPECT_EQ(Half::FromFloat(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  // 3 * 2^-25 = 1.5 ulps: halfway between 1 and 2, even is 2.
  EXPECT_EQ(Half::FromFloat(3 * std::ldexp(1.0f, -25)), 0x0002);
  // 2^-14 - 2^-25 is halfway between 0x03FF and 0x0400: 0x0400 is even.
  EXPECT_EQ(Half::FromFloat(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)),
            0x0400);
  // Far below: zero with the sign.
  EXPECT_EQ(Half::FromFloat(1e-30f), 0x0000);
  EXPECT_EQ(Half::FromFloat(-1e-30f), 0x8000);
  EXPECT_EQ(Half::FromFloat(F(0x00000001)), 0x0000);  // float subnormal
}

TEST(HalfTest, NanIsPreservedAndQuiet) {
  // The default quiet NaN 0x7FC00000 keeps the quiet bit: 0x7E00.
  EXPECT_EQ(Half::FromFloat(F(0x7FC00000)), 0x7E00);
  EXPECT_EQ(Half::FromFloat(F(0xFFC00000)), 0xFE00);
  // A signalling NaN whose payload is only in the low bits: still NaN (the
  // quiet bit is set), not infinity.
  EXPECT_EQ(Half::FromFloat(F(0x7F800001)), 0x7E00);
  // The top payload bits are kept: float mantissa 0x200000 >> 13 = 0x100.
  EXPECT_EQ(Half::FromFloat(F(0x7FA00000)), 0x7F00);
}

TEST(HalfTest, ToFloatIsExact) {
  EXPECT_EQ(Half::ToFloat(0x3C00), 1.0f);
  EXPECT_EQ(Half::ToFloat(0xC000), -2.0f);
  EXPECT_EQ(Half::ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(Half::ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(Half::ToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(Half::ToFloat(0x0400), std::ldexp(1.0f, -14));
  // 0x3555: exponent 13 (2^-2), mantissa 341: (1 + 341/1024) / 4.
  EXPECT_EQ(Half::ToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(Bits(Half::ToFloat(0x8000)), 0x80000000u);  // -0
  EXPECT_EQ(Half::ToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(Half::ToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Half::ToFloat(0x7E00)));
  // NaN payload bits move to the top of the float mantissa.
  EXPECT_EQ(Bits(Half::ToFloat(0x7E01)), 0x7FC02000u);
}

TEST(HalfTest, EveryHalfRoundTripsThroughFloat) {
  // Widening is exact, so narrowing back gives the same bits for every
  // non-NaN half; NaNs stay NaN.
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = Half::ToFloat(h);
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) {
      EXPECT_TRUE(std::isnan(f)) << b;
      continue;
    }
    ASSERT_EQ(Half::FromFloat(f), h) << b;
  }
}

TEST(HalfTest, StructInterface) {
  Half h(1.0f);
  EXPECT_EQ(h.bits, 0x3C00);
  EXPECT_EQ(static_cast<float>(h), 1.0f);
  EXPECT_EQ(Half::FromBits(0x4000).bits, 0x4000);
  EXPECT_EQ(static_cast<float>(Half::FromBits(0x4000)), 2.0f);
}

// BFloat16: the upper 16 bits of a float (8 exponent bits, 7 mantissa).

TEST(BFloat16Test, ExactValues) {
  EXPECT_EQ(BFloat16::FromFloat(1.0f), 0x3F80);
  EXPECT_EQ(BFloat16::FromFloat(-2.0f), 0xC000);
  EXPECT_EQ(BFloat16::FromFloat(1.0078125f), 0x3F81);  // 1 + 2^-7
  EXPECT_EQ(BFloat16::FromFloat(-0.0f), 0x8000);
  // The largest finite bfloat16: 0x7F7F = (2 - 2^-7) * 2^127.
  EXPECT_EQ(BFloat16::FromFloat(F(0x7F7F0000)), 0x7F7F);
}

TEST(BFloat16Test, RoundsToNearestEven) {
  // 1.00390625 = 1 + 2^-8 is halfway between 1 (0x3F80, even) and
  // 1 + 2^-7 (0x3F81).
  EXPECT_EQ(BFloat16::FromFloat(1.00390625f), 0x3F80);
  // 1 + 3*2^-8 = 1.01171875 is halfway between 0x3F81 and 0x3F82 (even).
  EXPECT_EQ(BFloat16::FromFloat(1.01171875f), 0x3F82);
  // Slightly above 1 + 2^-8 rounds up.
  EXPECT_EQ(BFloat16::FromFloat(F(0x3F808001)), 0x3F81);
  // Slightly below rounds down.
  EXPECT_EQ(BFloat16::FromFloat(F(0x3F807FFF)), 0x3F80);
}

TEST(BFloat16Test, OverflowSubnormalNan) {
  // FLT_MAX = 0x7F7FFFFF is above the halfway point 0x7F7F8000 between the
  // largest bfloat16 and 2^128: infinity.
  EXPECT_EQ(BFloat16::FromFloat(F(0x7F7FFFFF)), 0x7F80);
  EXPECT_EQ(BFloat16::FromFloat(-std::numeric_limits<float>::infinity()),
            0xFF80);
  // Float subnormals: 0x00010000 is the smallest bfloat16 subnormal 2^-133.
  EXPECT_EQ(BFloat16::FromFloat(F(0x00010000)), 0x0001);
  // 0x00008000 = 2^-134 is halfway between 0 (even) and 2^-133.
  EXPECT_EQ(BFloat16::FromFloat(F(0x00008000)), 0x0000);
  // 0x00018000 is halfway between 0x0001 (odd) and 0x0002: 0x0002.
  EXPECT_EQ(BFloat16::FromFloat(F(0x00018000)), 0x0002);
  EXPECT_EQ(BFloat16::FromFloat(F(0x7FC00000)), 0x7FC0);
  // A signalling NaN with only low payload bits stays NaN (quiet).
  EXPECT_EQ(BFloat16::FromFloat(F(0x7F800001)), 0x7FC0);
}

TEST(BFloat16Test, ToFloatIsTheUpperHalf) {
  EXPECT_EQ(BFloat16::ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(BFloat16::ToFloat(0x3F81), 1.0078125f);
  EXPECT_EQ(Bits(BFloat16::ToFloat(0x0001)), 0x00010000u);
  EXPECT_EQ(BFloat16::ToFloat(0x7F80), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(BFloat16::ToFloat(0x7FC0)));
}

TEST(DoubleToNarrowTest, RoundsOnceFromDouble) {
  // d = 1 + 2^-11 + 2^-40 is just above the halfway point between 0x3C00
  // and 0x3C01, so it must round up. Going through float first would lose
  // the 2^-40 (float keeps 23 bits) and then tie to even: 0x3C00.
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(DoubleToHalfBits(d), 0x3C01);
  EXPECT_EQ(Half::FromFloat(static_cast<float>(d)), 0x3C00);
  // Same for bfloat16: 1 + 2^-8 + 2^-30 rounds up to 0x3F81.
  const double b = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(DoubleToBFloat16Bits(b), 0x3F81);
  EXPECT_EQ(BFloat16::FromFloat(static_cast<float>(b)), 0x3F80);
}

TEST(DoubleToNarrowTest, SpecialValues) {
  EXPECT_EQ(DoubleToHalfBits(65504.0), 0x7BFF);
  EXPECT_EQ(DoubleToHalfBits(65520.0), 0x7C00);
  EXPECT_EQ(DoubleToHalfBits(1e300), 0x7C00);
  EXPECT_EQ(DoubleToHalfBits(-1e-300), 0x8000);
  EXPECT_EQ(DoubleToHalfBits(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(DoubleToHalfBits(std::numeric_limits<double>::quiet_NaN()), 0x7E00);
  EXPECT_EQ(DoubleToHalfBits(std::numeric_limits<double>::denorm_min()), 0);
  EXPECT_EQ(DoubleToBFloat16Bits(1e300), 0x7F80);
  EXPECT_EQ(DoubleToBFloat16Bits(-1.0), 0xBF80);
  EXPECT_EQ(DoubleToBFloat16Bits(std::numeric_limits<double>::quiet_NaN()),
            0x7FC0);
  // 2^-133 (the smallest bfloat16 subnormal) and 2^-126 (smallest normal).
  EXPECT_EQ(DoubleToBFloat16Bits(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(DoubleToBFloat16Bits(std::ldexp(1.0, -126)), 0x0080);
}

}  // namespace
}  // namespace plexa
