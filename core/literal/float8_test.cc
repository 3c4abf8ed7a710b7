// The f8/f4 conversions against hand-computed bit patterns. The encodings
// come from the formats' definitions: the OCP 8-bit floating point
// specification (OFP8, v1.0, table 1: E4M3 max 0x7e = 448, min normal
// 0x08 = 2^-6, min subnormal 0x01 = 2^-9, NaN S.1111.111; E5M2 max 0x7b =
// 57344, inf S.11111.00), the OCP microscaling spec (MX v1.0, 5.3.3 and
// 5.4.1: E2M1 values 0, 0.5, 1, 1.5, 2, 3, 4, 6; E8M0 2^(e-127), NaN 0xff)
// and ml_dtypes' documentation of the fnuz types (bias 8 / 16 / 11, NaN
// 0x80, no -0) and of f8e4m3/f8e3m4 (IEEE-like, bias 7 / 3). Each value
// below was worked out by hand from sign, exponent and mantissa.
#include "core/literal/float8.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace plexa {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

struct Case {
  double value;
  int bits;
};

void ExpectEncodes(PrimitiveType type, std::initializer_list<Case> cases) {
  const SmallFloatFormat* f = SmallFloatFormatOf(type);
  ASSERT_NE(f, nullptr);
  for (const Case& c : cases) {
    EXPECT_EQ(DoubleToSmallFloatBits(*f, c.value), c.bits)
        << primitive_util::Name(type) << " " << c.value;
  }
}

void ExpectDecodes(PrimitiveType type, std::initializer_list<Case> cases) {
  const SmallFloatFormat* f = SmallFloatFormatOf(type);
  ASSERT_NE(f, nullptr);
  for (const Case& c : cases) {
    const double v = SmallFloatToDouble(*f, static_cast<uint8_t>(c.bits));
    if (std::isnan(c.value)) {
      EXPECT_TRUE(std::isnan(v)) << primitive_util::Name(type) << " " << c.bits;
    } else {
      EXPECT_EQ(v, c.value) << primitive_util::Name(type) << " " << c.bits;
    }
  }
}

TEST(Float8Test, E4m3fn) {
  const PrimitiveType t = PrimitiveType::F8E4M3FN;
  ExpectDecodes(t, {{1.0, 0x38},
                    {448, 0x7e},
                    {-448, 0xfe},
                    {std::ldexp(1, -6), 0x08},
                    {std::ldexp(1, -9), 0x01},
                    {kNan, 0x7f},
                    {kNan, 0xff},
                    {480 - 32, 0x7e}});
  ExpectEncodes(t, {{1.0, 0x38},
                    {448, 0x7e},
                    {-448, 0xfe},
                    {std::ldexp(1, -6), 0x08},
                    {std::ldexp(1, -9), 0x01},
                    {-0.0, 0x80},
                    {0.0, 0x00},
                    // ties to even: 1.0625 between 1 (m=000) and 1.125
                    // (m=001); 1.1875 between 1.125 and 1.25 (m=010).
                    {1.0625, 0x38},
                    {1.1875, 0x3a},
                    {1.0626, 0x39},
                    // subnormal ties: half the smallest subnormal -> 0,
                    // 1.5 of it -> 2 of it (even).
                    {std::ldexp(1, -10), 0x00},
                    {std::ldexp(3, -10), 0x02},
                    {std::ldexp(1.01, -10), 0x01},
                    // overflow: 464 ties to 448 (m=110 is even), beyond is
                    // NaN (no inf; ml_dtypes' non-saturating convert).
                    {464, 0x7e},
                    {465, 0x7f},
                    {-1e6, 0xff},
                    {kInf, 0x7f},
                    {-kInf, 0xff},
                    {kNan, 0x7f},
                    {-kNan, 0xff}});
}

TEST(Float8Test, E5m2) {
  const PrimitiveType t = PrimitiveType::F8E5M2;
  ExpectDecodes(t, {{1.0, 0x3c},
                    {57344, 0x7b},
                    {std::ldexp(1, -14), 0x04},
                    {std::ldexp(1, -16), 0x01},
                    {kInf, 0x7c},
                    {-kInf, 0xfc},
                    {kNan, 0x7d},
                    {kNan, 0x7e},
                    {kNan, 0xff}});
  ExpectEncodes(t, {{1.0, 0x3c},
                    {-2.0, 0xc0},
                    {57344, 0x7b},
                    {std::ldexp(1, -14), 0x04},
                    {std::ldexp(1, -16), 0x01},
                    {std::ldexp(1, -17), 0x00},
                    {1.125, 0x3c},  // tie between 1 and 1.25: even (m=00)
                    {1.375, 0x3e},  // tie between 1.25 and 1.5: m=10
                    // 61440 ties between 57344 (m=11, odd) and 2^16: up,
                    // which overflows to inf.
                    {61439, 0x7b},
                    {61440, 0x7c},
                    {-1e9, 0xfc},
                    {kInf, 0x7c},
                    {-kInf, 0xfc},
                    {kNan, 0x7e},
                    {-kNan, 0xfe}});
}

TEST(Float8Test, E4m3) {
  const PrimitiveType t = PrimitiveType::F8E4M3;
  ExpectDecodes(t, {{1.0, 0x38},
                    {240, 0x77},
                    {kInf, 0x78},
                    {-kInf, 0xf8},
                    {kNan, 0x79},
                    {std::ldexp(1, -6), 0x08},
                    {std::ldexp(1, -9), 0x01}});
  ExpectEncodes(t, {{240, 0x77},
                    {247, 0x77},
                    {248, 0x78},  // tie, 240's m=111 is odd: up to inf
                    {-kInf, 0xf8},
                    {kNan, 0x7c},
                    {std::ldexp(1, -9), 0x01},
                    {-0.0, 0x80}});
}

TEST(Float8Test, E3m4) {
  const PrimitiveType t = PrimitiveType::F8E3M4;
  ExpectDecodes(t, {{1.0, 0x30},
                    {15.5, 0x6f},
                    {kInf, 0x70},
                    {kNan, 0x78},
                    {0.25, 0x10},
                    {std::ldexp(1, -6), 0x01}});
  ExpectEncodes(t, {{1.0, 0x30},
                    {15.5, 0x6f},
                    {15.75, 0x70},  // tie, m=1111 odd: up to inf
                    {15.74, 0x6f},
                    {1.03125, 0x30},  // tie between 1 and 1.0625
                    {0.25, 0x10},
                    {std::ldexp(1, -6), 0x01},
                    {std::ldexp(1, -7), 0x00},
                    {kNan, 0x78},
                    {-kNan, 0xf8}});
}

TEST(Float8Test, Fnuz) {
  // f8e4m3fnuz: bias 8.
  ExpectDecodes(PrimitiveType::F8E4M3FNUZ, {{1.0, 0x40},
                                            {240, 0x7f},
                                            {-240, 0xff},
                                            {std::ldexp(1, -7), 0x08},
                                            {std::ldexp(1, -10), 0x01},
                                            {kNan, 0x80},
                                            {0.0, 0x00}});
  ExpectEncodes(PrimitiveType::F8E4M3FNUZ, {{1.0, 0x40},
                                            {-1.0, 0xc0},
                                            {240, 0x7f},
                                            {247, 0x7f},
                                            {248, 0x80},   // overflow: NaN
                                            {-0.0, 0x00},  // no -0
                                            {-std::ldexp(1, -12), 0x00},
                                            {kInf, 0x80},
                                            {-kInf, 0x80},
                                            {kNan, 0x80},
                                            {-kNan, 0x80}});
  // f8e4m3b11fnuz: bias 11.
  ExpectDecodes(PrimitiveType::F8E4M3B11FNUZ, {{1.0, 0x58},
                                               {30, 0x7f},
                                               {std::ldexp(1, -10), 0x08},
                                               {std::ldexp(1, -13), 0x01},
                                               {kNan, 0x80}});
  ExpectEncodes(PrimitiveType::F8E4M3B11FNUZ,
                {{1.0, 0x58}, {30, 0x7f}, {31, 0x80}, {-0.0, 0x00}});
  // f8e5m2fnuz: bias 16.
  ExpectDecodes(PrimitiveType::F8E5M2FNUZ, {{1.0, 0x40},
                                            {57344, 0x7f},
                                            {std::ldexp(1, -15), 0x04},
                                            {std::ldexp(1, -17), 0x01},
                                            {kNan, 0x80}});
  ExpectEncodes(PrimitiveType::F8E5M2FNUZ,
                {{1.0, 0x40}, {57344, 0x7f}, {61440, 0x80}, {kInf, 0x80}});
}

TEST(Float8Test, F4e2m1fn) {
  const PrimitiveType t = PrimitiveType::F4E2M1FN;
  ExpectDecodes(t, {{0.0, 0x0},
                    {0.5, 0x1},
                    {1.0, 0x2},
                    {1.5, 0x3},
                    {2.0, 0x4},
                    {3.0, 0x5},
                    {4.0, 0x6},
                    {6.0, 0x7},
                    {-6.0, 0xf},
                    {-0.5, 0x9}});
  ExpectEncodes(t, {{0.5, 0x1},
                    {6.0, 0x7},
                    {-4.0, 0xe},
                    {-0.0, 0x8},
                    {2.5, 0x4},   // tie between 2 (m=0) and 3
                    {5.0, 0x6},   // tie between 4 (m=0) and 6
                    {0.25, 0x0},  // tie between 0 and 0.5
                    {0.75, 0x2},  // tie between 0.5 (m=1) and 1
                    // no inf, no NaN: overflow saturates (ml_dtypes'
                    // infinity() is max), NaN is 0b1000 negated by sign.
                    {7.0, 0x7},
                    {1e6, 0x7},
                    {-kInf, 0xf},
                    {kNan, 0x8},
                    {-kNan, 0x0}});
}

TEST(Float8Test, E8m0fnu) {
  const PrimitiveType t = PrimitiveType::F8E8M0FNU;
  ExpectDecodes(t, {{1.0, 0x7f},
                    {std::ldexp(1, 127), 0xfe},
                    {std::ldexp(1, -127), 0x00},
                    {kNan, 0xff}});
  ExpectEncodes(t, {{1.0, 0x7f},
                    {2.0, 0x80},
                    {0.5, 0x7e},
                    {2.9, 0x80},
                    {3.0, 0x81},  // 1.5 * 2: the tie rounds up
                    {std::ldexp(1, 127), 0xfe},
                    {std::ldexp(1.5, 127), 0xff},  // rounds to 2^128: NaN
                    {std::ldexp(1, -127), 0x00},
                    {std::ldexp(1, -130), 0x00},
                    {0.0, 0xff},   // no zero
                    {-1.0, 0xff},  // no sign
                    {kInf, 0xff},
                    {kNan, 0xff}});
}

TEST(Float8Test, EveryFiniteEncodingRoundTrips) {
  for (PrimitiveType t :
       {PrimitiveType::F8E5M2, PrimitiveType::F8E4M3FN,
        PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E5M2FNUZ,
        PrimitiveType::F8E4M3FNUZ, PrimitiveType::F8E4M3, PrimitiveType::F8E3M4,
        PrimitiveType::F4E2M1FN, PrimitiveType::F8E8M0FNU}) {
    const SmallFloatFormat& f = *SmallFloatFormatOf(t);
    const int count = t == PrimitiveType::F4E2M1FN ? 16 : 256;
    int nans = 0;
    for (int b = 0; b < count; ++b) {
      const double v = SmallFloatToDouble(f, static_cast<uint8_t>(b));
      if (std::isnan(v)) {
        ++nans;
        EXPECT_TRUE(SmallFloatIsNan(f, static_cast<uint8_t>(b)));
        continue;
      }
      EXPECT_EQ(DoubleToSmallFloatBits(f, v), b)
          << primitive_util::Name(t) << " " << b;
    }
    // NaN encodings: IEEE-like 2 * (2^m - 1); fn 2; fnuz and e8m0 1; f4 0.
    const int expected_nans = f.kind == SmallFloatFormat::Kind::kIeee
                                  ? 2 * ((1 << f.mantissa_bits) - 1)
                              : f.kind == SmallFloatFormat::Kind::kFn     ? 2
                              : f.kind == SmallFloatFormat::Kind::kFinite ? 0
                                                                          : 1;
    EXPECT_EQ(nans, expected_nans) << primitive_util::Name(t);
  }
}

TEST(Float8Test, SubByteIntegerWrap) {
  EXPECT_EQ(WrapSignedToBits(7, 4), 7);
  EXPECT_EQ(WrapSignedToBits(8, 4), -8);
  EXPECT_EQ(WrapSignedToBits(-9, 4), 7);
  EXPECT_EQ(WrapSignedToBits(2, 2), -2);
  EXPECT_EQ(WrapUnsignedToBits(16, 4), 0u);
  EXPECT_EQ(WrapUnsignedToBits(0xff, 2), 3u);
}

}  // namespace
}  // namespace plexa
