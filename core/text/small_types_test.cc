// Shapes and constants of the sub-byte and f8/f4 element types in HLO
// text. Expected values are hand-computed (see core/literal/float8_test.cc
// for the encodings).
#include <string>

#include "core/literal/literal.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::HasSubstr;

TEST(SmallTypesTextTest, ShapesParseAndPrint) {
  for (absl::string_view t :
       {"s4[8]", "u4[8]", "s2[3]", "u2[3]", "f8e5m2[2]", "f8e4m3fn[2]",
        "f8e4m3b11fnuz[2]", "f8e5m2fnuz[2]", "f8e4m3fnuz[2]", "f8e4m3[2]",
        "f8e3m4[2]", "f4e2m1fn[2]", "f8e8m0fnu[2]"}) {
    absl::StatusOr<Shape> s = ParseShape(t);
    ASSERT_TRUE(s.ok()) << t << ": " << s.status();
    EXPECT_EQ(s->ToString(), t);
  }
  absl::StatusOr<Shape> packed = ParseShape("s4[8]{0:E(4)}");
  ASSERT_TRUE(packed.ok()) << packed.status();
  EXPECT_EQ(packed->layout().element_size_in_bits(), 4);
  EXPECT_EQ(ShapeUtil::ByteSizeOf(*packed), 4);  // 8 elements * 4 bits
  EXPECT_EQ(ShapeUtil::ByteSizeOf(*ParseShape("s4[8]")), 8);  // one a byte
  EXPECT_EQ(packed->ToString(true), "s4[8]{0:E(4)}");
}

TEST(SmallTypesTextTest, F8ConstantsPrintAsDecimals) {
  absl::StatusOr<Literal> l =
      ParseLiteral("{1, 0.5, -448}", *ParseShape("f8e4m3fn[3]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->data()[0], 0x38);
  EXPECT_EQ(l->data()[1], 0x30);
  EXPECT_EQ(l->data()[2], 0xfe);
  EXPECT_EQ(l->ToString(), "f8e4m3fn[3] {1, 0.5, -448}");

  // Rounded once to nearest even: 1.0625 -> 1, 1.1875 -> 1.25.
  l = ParseLiteral("{1.0625, 1.1875, nan, -nan}", *ParseShape("f8e4m3fn[4]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->ToStringWithoutShape(), "{1, 1.25, nan, -nan}");

  l = ParseLiteral("{0.001953125, inf, -inf, 57344}", *ParseShape("f8e5m2[4]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->ToStringWithoutShape(), "{0.001953125, inf, -inf, 57344}");

  l = ParseLiteral("{-6, 0.5, 3, -0}", *ParseShape("f4e2m1fn[4]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->data()[0], 0xf);
  EXPECT_EQ(l->data()[3], 0x8);
  EXPECT_EQ(l->ToStringWithoutShape(), "{-6, 0.5, 3, -0}");

  l = ParseLiteral("{1, 3, nan}", *ParseShape("f8e8m0fnu[3]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->data()[1], 0x81);  // 3 rounds up to 4
  EXPECT_EQ(l->ToStringWithoutShape(), "{1, 4, nan}");

  l = ParseLiteral("{nan, -0, -240}", *ParseShape("f8e4m3fnuz[3]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->data()[0], 0x80);
  EXPECT_EQ(l->data()[1], 0x00);  // no -0
  EXPECT_EQ(l->ToStringWithoutShape(), "{nan, 0, -240}");
}

TEST(SmallTypesTextTest, OutOfRangeF8ConstantsAreErrors) {
  absl::StatusOr<Literal> l =
      ParseLiteral("{1, 500}", *ParseShape("f8e4m3fn[2]"));
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(std::string(l.status().message()), HasSubstr("f8e4m3fn"));
  EXPECT_FALSE(ParseLiteral("{inf}", *ParseShape("f8e4m3fn[1]")).ok());
  EXPECT_FALSE(ParseLiteral("{nan}", *ParseShape("f4e2m1fn[1]")).ok());
  EXPECT_FALSE(ParseLiteral("{0}", *ParseShape("f8e8m0fnu[1]")).ok());
}

TEST(SmallTypesTextTest, SubByteIntegerConstants) {
  absl::StatusOr<Literal> l =
      ParseLiteral("{-8, -1, 0, 7}", *ParseShape("s4[4]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(static_cast<int8_t>(l->data()[0]), -8);
  EXPECT_EQ(l->ToString(), "s4[4] {-8, -1, 0, 7}");
  l = ParseLiteral("{0, 15}", *ParseShape("u4[2]"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->ToStringWithoutShape(), "{0, 15}");
  l = ParseLiteral("{-2, 1}", *ParseShape("s2[2]"));
  ASSERT_TRUE(l.ok()) << l.status();
  l = ParseLiteral("{8}", *ParseShape("s4[1]"));
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(std::string(l.status().message()), HasSubstr("[-8, 7]"));
  EXPECT_FALSE(ParseLiteral("{16}", *ParseShape("u4[1]")).ok());
  EXPECT_FALSE(ParseLiteral("{-3}", *ParseShape("s2[1]")).ok());
}

TEST(SmallTypesTextTest, LiteralSettersWrapAndRound) {
  Literal s4(*ParseShape("s4[2]"));
  ASSERT_TRUE(s4.SetFromInt64({0}, 9).ok());  // 0b1001 -> -7
  ASSERT_TRUE(s4.SetFromDouble({1}, -3.7).ok());
  EXPECT_EQ(s4.GetAsInt64({0}), -7);
  EXPECT_EQ(s4.GetAsInt64({1}), -3);
  Literal u2(*ParseShape("u2[1]"));
  ASSERT_TRUE(u2.SetFromInt64({0}, 6).ok());  // 0b110 -> 0b10
  EXPECT_EQ(u2.GetAsInt64({0}), 2);
  absl::StatusOr<Literal> f =
      ParseLiteral("{464, 465, 0.1}", *ParseShape("f32[3]"));
  ASSERT_TRUE(f.ok());
  absl::StatusOr<Literal> c = f->Convert(PrimitiveType::F8E4M3FN);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->data()[0], 0x7e);  // 464 ties to 448
  EXPECT_EQ(c->data()[1], 0x7f);  // NaN
  // 0.1 = 1.6 * 2^-4: mantissa 0.6 * 8 = 4.8 -> 5: 1.625 * 2^-4
  EXPECT_EQ(c->data()[2], ((-4 + 7) << 3) | 5);
  EXPECT_DOUBLE_EQ(c->GetAsDouble({2}), 0.1015625);
}

}  // namespace
}  // namespace plexa
