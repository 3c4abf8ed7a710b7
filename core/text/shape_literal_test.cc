// ParseShape, ParseLayout and ParseLiteral on their own.
#include <cmath>
#include <cstring>
#include <limits>

#include "core/literal/literal.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

TEST(ParseShapeTest, ArraysTuplesTokensDynamic) {
  absl::StatusOr<Shape> s = ParseShape("f32[2,3]{1,0}");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->element_type(), F32);
  EXPECT_EQ(s->dimensions(), (absl::Span<const int64_t>{2, 3}));
  ASSERT_TRUE(s->has_layout());
  EXPECT_EQ(s->layout().minor_to_major(), (absl::Span<const int64_t>{1, 0}));

  s = ParseShape("bf16[8]");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->has_layout());

  s = ParseShape("(f32[], (s32[4]{0}, token[]), pred[0])");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_TRUE(s->IsTuple());
  ASSERT_EQ(s->tuple_shapes_size(), 3);
  EXPECT_TRUE(s->tuple_shapes(1).tuple_shapes(1).IsToken());
  EXPECT_EQ(s->tuple_shapes(2).dimensions(0), 0);
  EXPECT_EQ(ParseShape("()")->tuple_shapes_size(), 0);

  s = ParseShape("s32[<=10,3]");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->is_dynamic_dimension(0));
  EXPECT_FALSE(s->is_dynamic_dimension(1));
  EXPECT_EQ(s->dimensions(0), 10);

  for (absl::string_view t :
       {"pred[]", "s8[1]", "s16[1]", "s32[1]", "s64[1]", "u8[1]", "u16[1]",
        "u32[1]", "u64[1]", "f16[1]", "bf16[1]", "f32[1]", "f64[1]", "c64[1]",
        "c128[1]", "token[]"}) {
    absl::StatusOr<Shape> parsed = ParseShape(t);
    ASSERT_TRUE(parsed.ok()) << t << ": " << parsed.status();
    EXPECT_EQ(parsed->ToString(), t);
  }
}

TEST(ParseLayoutTest, EveryItem) {
  absl::StatusOr<Layout> l = ParseLayout("{3,2,0,1:T(8,128)(2,1)S(1)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->minor_to_major(), (absl::Span<const int64_t>{3, 2, 0, 1}));
  ASSERT_EQ(l->tiles().size(), 2u);
  EXPECT_EQ(l->tiles()[0].dimensions(), (absl::Span<const int64_t>{8, 128}));
  EXPECT_EQ(l->tiles()[1].dimensions(), (absl::Span<const int64_t>{2, 1}));
  EXPECT_EQ(l->memory_space(), 1);

  l = ParseLayout("{1,0:T(2,*)L(1024)E(4)S(5)PD(3,5)PV(highest)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->tiles()[0].dimension(1), Tile::kCombineDimension);
  EXPECT_EQ(l->tail_padding_alignment_in_elements(), 1024);
  EXPECT_EQ(l->element_size_in_bits(), 4);
  EXPECT_EQ(l->memory_space(), 5);
  EXPECT_EQ(l->padded_dimensions(), (absl::Span<const int64_t>{3, 5}));
  EXPECT_EQ(l->padding_value(), PaddingValue::kHighest);
  EXPECT_EQ(l->ToString(), "{1,0:T(2,*)L(1024)E(4)S(5)PD(3,5)PV(highest)}");

  EXPECT_TRUE(ParseLayout("{}").ok());
  EXPECT_EQ(ParseLayout("{:S(1)}")->memory_space(), 1);
}

TEST(ParseLayoutTest, UnrepresentableXlaItemsAreDropped) {
  // D(...) dim level types, #(s32) / *(s32) index and pointer types,
  // SC(...) split configs, P(shape) physical shape and M(n) metadata bytes.
  absl::StatusOr<Layout> l = ParseLayout(
      "{1,0:D(D,C+~)T(8,128)L(2)#(u32)*(u64)E(16)S(3)SC(0:1,2)(1:3)"
      "P(s32[4]{0})M(8)}");
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->ToString(), "{1,0:T(8,128)L(2)E(16)S(3)}");
}

TEST(ParseLiteralTest, ScalarsAndArrays) {
  absl::StatusOr<Literal> l =
      ParseLiteral("{ { 1, 2, 3 }, { 4, 5, 6 } }", Shape(S32, {2, 3}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsInt64({1, 2}), 6);
  EXPECT_EQ(l->GetAsInt64({0, 1}), 2);

  l = ParseLiteral("-0", Shape(F32, {}));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(std::signbit(l->GetAsDouble({})));

  l = ParseLiteral("1e-45", Shape(F32, {}));  // a denormal
  ASSERT_TRUE(l.ok());
  EXPECT_GT(l->GetAsDouble({}), 0.0);

  l = ParseLiteral("{-nan, 3.4028235e+38, -65504}", Shape(F32, {3}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_TRUE(std::isnan(l->GetAsDouble({0})));
  EXPECT_TRUE(std::signbit(l->GetAsDouble({0})));
  EXPECT_EQ(l->GetAsDouble({1}),
            static_cast<double>(std::numeric_limits<float>::max()));

  l = ParseLiteral("{1.5, 0.1}", Shape(BF16, {2}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsDouble({0}), 1.5);
  // 0.1 rounds to the nearest bfloat16: 0.10009765625.
  EXPECT_EQ(l->GetAsDouble({1}), 0.10009765625);

  l = ParseLiteral("{(1, -1), 2.5}", Shape(C64, {2}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->GetAsComplex({0}), std::complex<double>(1, -1));
  EXPECT_EQ(l->GetAsComplex({1}), std::complex<double>(2.5, 0));

  l = ParseLiteral("{}", Shape(F32, {0, 5}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->element_count(), 0);

  l = ParseLiteral(
      "( {true, 0}, (), 2 )",
      Shape({Shape(PRED, {2}), Shape(std::vector<Shape>{}), Shape(U16, {})}));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->tuple_element(0).GetAsInt64({0}), 1);
  EXPECT_EQ(l->tuple_element(2).GetAsInt64({}), 2);
}

TEST(ParseLiteralTest, NanPayload) {
  absl::StatusOr<Literal> l = ParseLiteral("nan(0x7)", Shape(F32, {}));
  ASSERT_TRUE(l.ok()) << l.status();
  const float f = l->Get<float>({});
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  // Exponent all ones; the mantissa carries the payload (x86 narrowing may
  // set the quiet bit, which XLA's payloads normally include).
  EXPECT_EQ(bits & 0x7f800000u, 0x7f800000u);
  EXPECT_EQ(bits & 0x7u, 0x7u);
  l = ParseLiteral("-nan(0x400000)", Shape(F32, {}));
  ASSERT_TRUE(l.ok()) << l.status();
  const float g = l->Get<float>({});
  std::memcpy(&bits, &g, sizeof(bits));
  EXPECT_EQ(bits, 0xffc00000u);
  EXPECT_FALSE(ParseLiteral("nan(0x800000)", Shape(F32, {})).ok());
  EXPECT_FALSE(ParseLiteral("nan(7)", Shape(F32, {})).ok());
}

TEST(ParseLiteralTest, RangeChecks) {
  EXPECT_FALSE(ParseLiteral("256", Shape(U8, {})).ok());
  EXPECT_TRUE(ParseLiteral("255", Shape(U8, {})).ok());
  EXPECT_FALSE(ParseLiteral("-129", Shape(S8, {})).ok());
  EXPECT_TRUE(ParseLiteral("-128", Shape(S8, {})).ok());
  EXPECT_FALSE(ParseLiteral("70000", Shape(F16, {})).ok());
  EXPECT_TRUE(ParseLiteral("65519", Shape(F16, {})).ok());  // rounds to max
  EXPECT_FALSE(ParseLiteral("1e39", Shape(F32, {})).ok());
  EXPECT_FALSE(ParseLiteral("1e309", Shape(F64, {})).ok());
  EXPECT_TRUE(ParseLiteral("1.7976931348623157e308", Shape(F64, {})).ok());
  EXPECT_FALSE(ParseLiteral("1.5", Shape(S32, {})).ok());
  EXPECT_FALSE(ParseLiteral("true", Shape(S32, {})).ok());
  EXPECT_FALSE(ParseLiteral("{1, 2}", Shape(F32, {3})).ok());
  EXPECT_FALSE(ParseLiteral("{{1, 2}}", Shape(F32, {2})).ok());
  EXPECT_FALSE(ParseLiteral("1", Shape(TOKEN, {})).ok());
}

}  // namespace
}  // namespace plexa
