// The element type table: names, widths, predicates (as XLA's
// primitive_util) and the numbering shared with PLX_Type.
#include "core/shape/primitive_type.h"

#include "gtest/gtest.h"

namespace plexa {
namespace {

using namespace primitive_util;  // NOLINT: the predicates read better bare

TEST(PrimitiveTypeTest, NamesRoundTrip) {
  for (int t = static_cast<int>(PRED); t <= static_cast<int>(TOKEN); ++t) {
    const PrimitiveType type = static_cast<PrimitiveType>(t);
    absl::StatusOr<PrimitiveType> back = FromName(Name(type));
    ASSERT_TRUE(back.ok()) << Name(type);
    EXPECT_EQ(*back, type);
  }
  EXPECT_EQ(Name(F8E4M3FN), "f8e4m3fn");
  EXPECT_EQ(Name(F8E4M3B11FNUZ), "f8e4m3b11fnuz");
  EXPECT_EQ(Name(F4E2M1FN), "f4e2m1fn");
  EXPECT_EQ(Name(F8E8M0FNU), "f8e8m0fnu");
  EXPECT_FALSE(FromName("f8e4m3fnx").ok());
}

TEST(PrimitiveTypeTest, NumberingIsPlxTypes) {
  // abi/include/plexa/plexa_c_api.h: S4 = 16 ... F8E8M0FNU = 28.
  EXPECT_EQ(static_cast<int>(S4), 16);
  EXPECT_EQ(static_cast<int>(U2), 19);
  EXPECT_EQ(static_cast<int>(F8E5M2), 20);
  EXPECT_EQ(static_cast<int>(F8E4M3FN), 21);
  EXPECT_EQ(static_cast<int>(F8E4M3B11FNUZ), 22);
  EXPECT_EQ(static_cast<int>(F8E5M2FNUZ), 23);
  EXPECT_EQ(static_cast<int>(F8E4M3FNUZ), 24);
  EXPECT_EQ(static_cast<int>(F8E4M3), 25);
  EXPECT_EQ(static_cast<int>(F8E3M4), 26);
  EXPECT_EQ(static_cast<int>(F4E2M1FN), 27);
  EXPECT_EQ(static_cast<int>(F8E8M0FNU), 28);
}

TEST(PrimitiveTypeTest, WidthsAndPredicates) {
  EXPECT_EQ(BitWidth(S4), 4);
  EXPECT_EQ(BitWidth(U4), 4);
  EXPECT_EQ(BitWidth(S2), 2);
  EXPECT_EQ(BitWidth(U2), 2);
  EXPECT_EQ(BitWidth(F4E2M1FN), 4);
  EXPECT_EQ(BitWidth(F8E4M3FN), 8);
  EXPECT_EQ(BitWidth(F8E8M0FNU), 8);
  EXPECT_EQ(BitWidth(PRED), 1);
  EXPECT_EQ(ByteWidth(S4), 1);  // one element a byte in literals
  EXPECT_EQ(ByteWidth(F4E2M1FN), 1);
  EXPECT_TRUE(IsSignedIntegralType(S4));
  EXPECT_TRUE(IsSignedIntegralType(S2));
  EXPECT_TRUE(IsUnsignedIntegralType(U4));
  EXPECT_FALSE(IsSignedIntegralType(F4E2M1FN));
  EXPECT_TRUE(IsIntegralType(U2));
  for (PrimitiveType t : {F8E5M2, F8E4M3FN, F8E4M3B11FNUZ, F8E5M2FNUZ,
                          F8E4M3FNUZ, F8E4M3, F8E3M4, F8E8M0FNU}) {
    EXPECT_TRUE(IsF8Type(t)) << Name(t);
    EXPECT_TRUE(IsFloatingPointType(t)) << Name(t);
    EXPECT_FALSE(IsSubByteType(t)) << Name(t);
  }
  EXPECT_FALSE(IsF8Type(F4E2M1FN));
  EXPECT_TRUE(IsFloatingPointType(F4E2M1FN));
  EXPECT_TRUE(IsMXType(F4E2M1FN));
  EXPECT_TRUE(IsMXType(F8E8M0FNU));
  EXPECT_FALSE(IsMXType(F8E4M3FN));
  for (PrimitiveType t : {S4, U4, S2, U2, F4E2M1FN}) {
    EXPECT_TRUE(IsSubByteType(t)) << Name(t);
  }
  EXPECT_FALSE(IsSubByteType(PRED));
  EXPECT_FALSE(IsSubByteType(S8));
  EXPECT_TRUE(HasInfinity(F8E5M2));
  EXPECT_TRUE(HasInfinity(F8E4M3));
  EXPECT_TRUE(HasInfinity(F8E3M4));
  EXPECT_FALSE(HasInfinity(F8E4M3FN));
  EXPECT_FALSE(HasInfinity(F8E4M3FNUZ));
  EXPECT_FALSE(HasInfinity(F4E2M1FN));
  EXPECT_FALSE(HasInfinity(F8E8M0FNU));
  EXPECT_TRUE(HasNegativeZero(F8E4M3FN));
  EXPECT_FALSE(HasNegativeZero(F8E5M2FNUZ));
  EXPECT_FALSE(HasNegativeZero(F8E8M0FNU));
  EXPECT_FALSE(HasNegativeZero(S4));
}

}  // namespace
}  // namespace plexa
