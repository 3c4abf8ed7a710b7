#include "core/literal/literal.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/shape/layout.h"
#include "core/shape/shape_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// The buffer viewed as an array of T.
template <typename T>
std::vector<T> DataAs(const Literal& lit) {
  std::vector<T> out(lit.data().size() / sizeof(T));
  std::memcpy(out.data(), lit.data().data(), out.size() * sizeof(T));
  return out;
}

// f32[2,3] holding the seed's "a b c / d e f" as 1..6.
Literal Abcdef(const Shape& shape) {
  Literal lit(shape);
  float v = 1;
  ShapeUtil::ForEachIndex(lit.shape(), [&](absl::Span<const int64_t> i) {
    lit.Set<float>(i, v++);
  });
  return lit;
}

Literal F32Bits(uint32_t bits) {
  return Literal::CreateR0<float>(std::bit_cast<float>(bits));
}

// ---- NativeToPrimitiveType ----

static_assert(NativeToPrimitiveType<bool>() == PRED);
static_assert(NativeToPrimitiveType<int8_t>() == S8);
static_assert(NativeToPrimitiveType<int64_t>() == S64);
static_assert(NativeToPrimitiveType<long long>() == S64);  // NOLINT
static_assert(NativeToPrimitiveType<unsigned char>() == U8);
static_assert(NativeToPrimitiveType<uint32_t>() == U32);
static_assert(NativeToPrimitiveType<Half>() == F16);
static_assert(NativeToPrimitiveType<BFloat16>() == BF16);
static_assert(NativeToPrimitiveType<const float>() == F32);
static_assert(NativeToPrimitiveType<double>() == F64);
static_assert(NativeToPrimitiveType<std::complex<float>>() == C64);
static_assert(NativeToPrimitiveType<std::complex<double>>() == C128);

// ---- Construction and storage ----

TEST(LiteralTest, ConstructorZeroFillsAndSetsDefaultLayout) {
  Literal lit(ShapeUtil::MakeShape(F32, {2, 3}));
  EXPECT_EQ(lit.shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(lit.data().size(), 24u);
  EXPECT_EQ(lit.element_count(), 6);
  for (float f : DataAs<float>(lit)) EXPECT_EQ(f, 0.0f);
}

TEST(LiteralTest, InvalidLayoutFallsBackToDefault) {
  Literal lit(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 0}));
  EXPECT_EQ(lit.shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(lit.data().size(), 24u);
  // A negative dimension: no data, and no element is ever visited.
  Shape neg = ShapeUtil::MakeShape(F32, {2, 3});
  neg.set_dimensions(0, -1);
  Literal empty(neg);
  EXPECT_TRUE(empty.data().empty());
  EXPECT_EQ(empty.ToStringWithoutShape(), "{  }");
  // A size that overflows int64: no buffer, no crash.
  Literal huge(ShapeUtil::MakeShape(F32, {int64_t{1} << 40, int64_t{1} << 30}));
  EXPECT_TRUE(huge.data().empty());
}

TEST(LiteralTest, DefaultConstructorIsEmptyTuple) {
  Literal lit;
  EXPECT_TRUE(lit.shape().IsTuple());
  EXPECT_EQ(lit.tuple_element_count(), 0);
}

TEST(LiteralTest, TupleConstructorBuildsElements) {
  Literal lit(ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(F32, {2}), ShapeUtil::MakeShape(S32, {})}));
  ASSERT_EQ(lit.tuple_element_count(), 2);
  EXPECT_EQ(lit.shape().ToString(), "(f32[2]{0}, s32[])");
  EXPECT_EQ(lit.tuple_element(0).data().size(), 8u);
  EXPECT_EQ(lit.tuple_element(1).GetAsInt64({}), 0);
}

TEST(LiteralTest, SeedColumnMajorBytes) {
  // Seed 000: "a b c / d e f" with minor_to_major [0,1] is "a d b e c f".
  Literal lit = Abcdef(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}));
  EXPECT_EQ(DataAs<float>(lit), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Literal rm = Abcdef(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {1, 0}));
  EXPECT_EQ(DataAs<float>(rm), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(LiteralTest, SeedPaddedBytes) {
  // Seed 000: padded to [3,5], padding value 0, column-major:
  // "a d 0 b e 0 c f 0 0 0 0 0 0 0".
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5});
  Literal lit = Abcdef(s);
  EXPECT_EQ(lit.data().size(), 60u);
  EXPECT_EQ(DataAs<float>(lit),
            (std::vector<float>{1, 4, 0, 2, 5, 0, 3, 6, 0, 0, 0, 0, 0, 0, 0}));
  // Element access sees only the logical array.
  EXPECT_EQ(lit.Get<float>({1, 2}), 6.0f);
}

TEST(LiteralTest, PaddingValueLowestAndHighest) {
  // kLowest pads floats with -inf (the identity of max), kHighest pads
  // integers with their maximum.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5}).set_padding_value(
      PaddingValue::kLowest);
  Literal lit = Abcdef(s);
  const float m = -kInf;
  EXPECT_EQ(DataAs<float>(lit),
            (std::vector<float>{1, 4, m, 2, 5, m, 3, 6, m, m, m, m, m, m, m}));
  Shape t = ShapeUtil::MakeShapeWithLayout(S32, {1, 2}, {1, 0});
  t.mutable_layout()->set_padded_dimensions({2, 2}).set_padding_value(
      PaddingValue::kHighest);
  Literal ilit(t);
  const int32_t x = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(DataAs<int32_t>(ilit), (std::vector<int32_t>{0, 0, x, x}));
  // s8 lowest is -128; pred highest is true; bf16 lowest is -inf (0xFF80).
  Shape u = ShapeUtil::MakeShapeWithLayout(S8, {1}, {0});
  u.mutable_layout()->set_padded_dimensions({3}).set_padding_value(
      PaddingValue::kLowest);
  EXPECT_EQ(DataAs<int8_t>(Literal(u)), (std::vector<int8_t>{0, -128, -128}));
  Shape p = ShapeUtil::MakeShapeWithLayout(PRED, {1}, {0});
  p.mutable_layout()->set_padded_dimensions({2}).set_padding_value(
      PaddingValue::kHighest);
  EXPECT_EQ(DataAs<uint8_t>(Literal(p)), (std::vector<uint8_t>{0, 1}));
  Shape b = ShapeUtil::MakeShapeWithLayout(BF16, {1}, {0});
  b.mutable_layout()->set_padded_dimensions({2}).set_padding_value(
      PaddingValue::kLowest);
  EXPECT_EQ(DataAs<uint16_t>(Literal(b)), (std::vector<uint16_t>{0, 0xFF80}));
}

TEST(LiteralTest, TiledBytes) {
  // f32[3,5]{1,0:T(2,2)} with element (i,j) = i*5+j+1 (see
  // index_util_test.cc for the drawing): the 4x6 padded array in 2x2
  // tiles, tiles row-major, padding 0:
  //   1 2 6 7 | 3 4 8 9 | 5 0 10 0 | 11 12 0 0 | 13 14 0 0 | 15 0 0 0
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  Literal lit = Abcdef(s);
  EXPECT_EQ(DataAs<float>(lit),
            (std::vector<float>{1,  2,  6, 7, 3,  4,  8, 9, 5,  0, 10, 0,
                                11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0,  0}));
  // Padding slots take the padding value with tiles too.
  s.mutable_layout()->set_padding_value(PaddingValue::kHighest);
  Literal hi = Abcdef(s);
  EXPECT_EQ(DataAs<float>(hi)[9], kInf);
  EXPECT_EQ(DataAs<float>(hi)[23], kInf);
  EXPECT_EQ(DataAs<float>(hi)[20], 15.0f);
}

TEST(LiteralTest, Bf16PackedTileBytes) {
  // bf16[4,8]{1,0:T(2,4)(2,1)} (tiled_layout.md figure 2) with element
  // (r,c) = r*8+c. Slot = ((r/2)*2 + c/4)*8 + (c%4)*2 + r%2: within each
  // 2x4 tile the two rows of a column are adjacent:
  //   0 8 1 9 2 10 3 11 | 4 12 5 13 6 14 7 15 |
  //   16 24 17 25 18 26 19 27 | 20 28 21 29 22 30 23 31
  Shape s = ShapeUtil::MakeShapeWithLayout(BF16, {4, 8}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 4})).add_tile(Tile({2, 1}));
  Literal lit(s);
  ShapeUtil::ForEachIndex(lit.shape(), [&](absl::Span<const int64_t> i) {
    ASSERT_TRUE(lit.SetFromInt64(i, i[0] * 8 + i[1]).ok());
  });
  std::vector<float> got;
  for (uint16_t b : DataAs<uint16_t>(lit)) got.push_back(BFloat16::ToFloat(b));
  EXPECT_EQ(got, (std::vector<float>{0,  8,  1,  9,  2,  10, 3,  11, 4,  12, 5,
                                     13, 6,  14, 7,  15, 16, 24, 17, 25, 18, 26,
                                     19, 27, 20, 28, 21, 29, 22, 30, 23, 31}));
}

TEST(LiteralTest, TailPaddingBytes) {
  Shape s = ShapeUtil::MakeShapeWithLayout(S16, {3}, {0});
  s.mutable_layout()
      ->set_tail_padding_alignment_in_elements(4)
      .set_padding_value(PaddingValue::kLowest);
  Literal lit(s);
  EXPECT_EQ(DataAs<int16_t>(lit), (std::vector<int16_t>{0, 0, 0, -32768}));
}

// ---- Creation helpers ----

TEST(LiteralTest, CreateR0R1R2) {
  Literal r0 = Literal::CreateR0<float>(1.5f);
  EXPECT_EQ(r0.shape().ToString(), "f32[]");
  EXPECT_EQ(r0.Get<float>({}), 1.5f);
  Literal r1 = Literal::CreateR1<int32_t>({1, 2, 3});
  EXPECT_EQ(r1.shape().ToString(), "s32[3]{0}");
  EXPECT_EQ(r1.Get<int32_t>({2}), 3);
  Literal r2 = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(r2.shape().ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(r2.Get<float>({1, 0}), 4.0f);
  EXPECT_EQ(DataAs<float>(r2), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  Literal h = Literal::CreateR0<Half>(Half(2.0f));
  EXPECT_EQ(h.shape().element_type(), F16);
  EXPECT_EQ(h.Get<Half>({}).bits, 0x4000);
  Literal c = Literal::CreateR0<std::complex<float>>({1, 2});
  EXPECT_EQ(c.Get<std::complex<float>>({}), std::complex<float>(1, 2));
}

TEST(LiteralTest, CreateFromValues) {
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  absl::StatusOr<Literal> lit =
      Literal::CreateFromValues<float>(s, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(lit.ok()) << lit.status();
  // Values are row-major; the buffer is column-major (a d b e c f).
  EXPECT_EQ(DataAs<float>(*lit), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(lit->Get<float>({0, 2}), 3.0f);
  // Wrong count, non-array shape.
  EXPECT_EQ(Literal::CreateFromValues<float>(s, {1, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(
      Literal::CreateFromValues<float>(ShapeUtil::MakeTupleShape({}), {}).ok());
  // A different C++ type is converted: doubles into f16 round once.
  absl::StatusOr<Literal> h = Literal::CreateFromValues<double>(
      ShapeUtil::MakeShape(F16, {2}), {0.1, 65520.0});
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->Get<Half>({0}).bits, 0x2E66);
  EXPECT_EQ(h->Get<Half>({1}).bits, 0x7C00);
  absl::StatusOr<Literal> i =
      Literal::CreateFromValues<int>(ShapeUtil::MakeShape(S8, {2}), {300, -1});
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->Get<int8_t>({0}), 44);  // 300 - 256: integers wrap
  EXPECT_EQ(i->Get<int8_t>({1}), -1);
}

// ---- Type-erased access ----

TEST(LiteralTest, GetAs) {
  EXPECT_EQ(Literal::CreateR0<Half>(Half::FromBits(0x3C00)).GetAsDouble({}),
            1.0);
  EXPECT_EQ(Literal::CreateR0<float>(2.7f).GetAsInt64({}), 2);
  EXPECT_EQ(Literal::CreateR0<float>(-2.7f).GetAsInt64({}), -2);
  EXPECT_EQ(Literal::CreateR0<float>(1e20f).GetAsInt64({}),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(Literal::CreateR0<float>(std::nanf("")).GetAsInt64({}), 0);
  // -1 as uint64 is 2^64 - 1 (C++ modular conversion).
  EXPECT_EQ(Literal::CreateR0<int32_t>(-1).GetAsUint64({}),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Literal::CreateR0<uint64_t>(std::numeric_limits<uint64_t>::max())
                .GetAsInt64({}),
            -1);
  EXPECT_EQ(Literal::CreateR0<bool>(true).GetAsDouble({}), 1.0);
  Literal c = Literal::CreateR0<std::complex<float>>({1, 2});
  EXPECT_EQ(c.GetAsDouble({}), 1.0);  // real part
  EXPECT_EQ(c.GetAsComplex({}), std::complex<double>(1, 2));
  EXPECT_EQ(Literal::CreateR0<int8_t>(-5).GetAsComplex({}),
            std::complex<double>(-5, 0));
  EXPECT_EQ(Literal::CreateR0<double>(-0.5).GetAsUint64({}), 0u);
}

TEST(LiteralTest, SetFromDoubleRoundsNarrowFloatsOnce) {
  Literal h(ShapeUtil::MakeShape(F16, {3}));
  ASSERT_TRUE(h.SetFromDouble({0}, 65520.0).ok());  // halfway -> inf
  // 1 + 2^-11 + 2^-40: above the halfway point, rounds up (0x3C01); via
  // float it would tie to 0x3C00.
  ASSERT_TRUE(
      h.SetFromDouble({1}, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40))
          .ok());
  ASSERT_TRUE(h.SetFromDouble({2}, 0.1).ok());
  EXPECT_EQ(h.Get<Half>({0}).bits, 0x7C00);
  EXPECT_EQ(h.Get<Half>({1}).bits, 0x3C01);
  EXPECT_EQ(h.Get<Half>({2}).bits, 0x2E66);
  Literal b(ShapeUtil::MakeShape(BF16, {}));
  ASSERT_TRUE(b.SetFromDouble({}, 1.00390625).ok());  // tie -> even 0x3F80
  EXPECT_EQ(b.Get<BFloat16>({}).bits, 0x3F80);
}

TEST(LiteralTest, SetFromDoubleIntoIntegersTruncatesAndSaturates) {
  Literal s(ShapeUtil::MakeShape(S8, {5}));
  ASSERT_TRUE(s.SetFromDouble({0}, 300.0).ok());
  ASSERT_TRUE(s.SetFromDouble({1}, -1e10).ok());
  ASSERT_TRUE(s.SetFromDouble({2}, std::nan("")).ok());
  ASSERT_TRUE(s.SetFromDouble({3}, 2.9).ok());
  ASSERT_TRUE(s.SetFromDouble({4}, -2.9).ok());
  EXPECT_EQ(DataAs<int8_t>(s), (std::vector<int8_t>{127, -128, 0, 2, -2}));
  Literal u(ShapeUtil::MakeShape(U8, {}));
  ASSERT_TRUE(u.SetFromDouble({}, -5.0).ok());
  EXPECT_EQ(u.Get<uint8_t>({}), 0);
  Literal p(ShapeUtil::MakeShape(PRED, {3}));
  ASSERT_TRUE(p.SetFromDouble({0}, 0.5).ok());
  ASSERT_TRUE(p.SetFromDouble({1}, 0.0).ok());
  ASSERT_TRUE(p.SetFromDouble({2}, std::nan("")).ok());  // NaN != 0
  EXPECT_EQ(DataAs<uint8_t>(p), (std::vector<uint8_t>{1, 0, 1}));
}

TEST(LiteralTest, SetFromInt64) {
  Literal s(ShapeUtil::MakeShape(S8, {2}));
  ASSERT_TRUE(s.SetFromInt64({0}, 300).ok());   // 300 - 256 = 44
  ASSERT_TRUE(s.SetFromInt64({1}, -129).ok());  // -129 + 256 = 127
  EXPECT_EQ(DataAs<int8_t>(s), (std::vector<int8_t>{44, 127}));
  // bf16 of 2^60 + 2^52 + 1: just above the halfway point between 2^60
  // (0x5D80: exponent 60+127 = 0xBB) and 2^60 + 2^53 (0x5D81), so 0x5D81.
  // Converting to double first would drop the +1 and tie to 0x5D80.
  Literal b(ShapeUtil::MakeShape(BF16, {}));
  ASSERT_TRUE(
      b.SetFromInt64({}, (int64_t{1} << 60) + (int64_t{1} << 52) + 1).ok());
  EXPECT_EQ(b.Get<BFloat16>({}).bits, 0x5D81);
  ASSERT_TRUE(
      b.SetFromInt64({}, -((int64_t{1} << 60) + (int64_t{1} << 52) + 1)).ok());
  EXPECT_EQ(b.Get<BFloat16>({}).bits, 0xDD81);
  // f16: 2049 is halfway between 2048 (0x6800) and 2050: even 2048;
  // 2051 is halfway between 2050 (odd) and 2052 (0x6802).
  Literal h(ShapeUtil::MakeShape(F16, {2}));
  ASSERT_TRUE(h.SetFromInt64({0}, 2049).ok());
  ASSERT_TRUE(h.SetFromInt64({1}, 2051).ok());
  EXPECT_EQ(DataAs<uint16_t>(h), (std::vector<uint16_t>{0x6800, 0x6802}));
}

TEST(LiteralTest, SetFromUint64AndComplex) {
  Literal u(ShapeUtil::MakeShape(U8, {}));
  ASSERT_TRUE(u.SetFromUint64({}, 257).ok());
  EXPECT_EQ(u.Get<uint8_t>({}), 1);
  Literal f(ShapeUtil::MakeShape(F32, {}));
  ASSERT_TRUE(f.SetFromUint64({}, std::numeric_limits<uint64_t>::max()).ok());
  EXPECT_EQ(f.Get<float>({}), 18446744073709551616.0f);  // 2^64
  ASSERT_TRUE(f.SetFromComplex({}, {3, 4}).ok());
  EXPECT_EQ(f.Get<float>({}), 3.0f);
  Literal c(ShapeUtil::MakeShape(C128, {}));
  ASSERT_TRUE(c.SetFromComplex({}, {1.5, -2.5}).ok());
  EXPECT_EQ(c.Get<std::complex<double>>({}), std::complex<double>(1.5, -2.5));
  ASSERT_TRUE(c.SetFromDouble({}, 7).ok());
  EXPECT_EQ(c.Get<std::complex<double>>({}), std::complex<double>(7, 0));
}

TEST(LiteralTest, SetFromErrors) {
  Literal t(ShapeUtil::MakeTupleShape({ShapeUtil::MakeShape(F32, {})}));
  EXPECT_EQ(t.SetFromDouble({}, 1).code(), absl::StatusCode::kInvalidArgument);
  Literal a(ShapeUtil::MakeShape(F32, {2}));
  EXPECT_EQ(a.SetFromDouble({2}, 1).code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(a.SetFromInt64({0, 0}, 1).code(), absl::StatusCode::kOutOfRange);
}

// ---- Transforms ----

TEST(LiteralTest, ConvertFloatToIntTruncatesSaturatesNanZero) {
  Literal f =
      Literal::CreateR1<float>({1.5f, -1.5f, 3e9f, std::nanf(""), -kInf});
  absl::StatusOr<Literal> s = f.Convert(S32);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->shape().ToString(), "s32[5]{0}");
  EXPECT_EQ(DataAs<int32_t>(*s),
            (std::vector<int32_t>{1, -1, 2147483647, 0, -2147483647 - 1}));
}

TEST(LiteralTest, ConvertIntegers) {
  Literal i = Literal::CreateR1<int32_t>({-1, 256, 7});
  EXPECT_EQ(DataAs<uint8_t>(*i.Convert(U8)),
            (std::vector<uint8_t>{255, 0, 7}));  // modular
  EXPECT_EQ(
      DataAs<uint8_t>(*Literal::CreateR1<int32_t>({1, 0, -3}).Convert(PRED)),
      (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(DataAs<float>(*Literal::CreateR1<bool>({true, false}).Convert(F32)),
            (std::vector<float>{1, 0}));
}

TEST(LiteralTest, ConvertFloatsAndComplex) {
  EXPECT_EQ(DataAs<uint16_t>(*Literal::CreateR0<float>(0.1f).Convert(F16)),
            (std::vector<uint16_t>{0x2E66}));
  const double d = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(DataAs<uint16_t>(*Literal::CreateR0<double>(d).Convert(F16)),
            (std::vector<uint16_t>{0x3C01}));
  EXPECT_EQ(DataAs<float>(
                *Literal::CreateR0<Half>(Half::FromBits(0x3555)).Convert(F32)),
            (std::vector<float>{0.333251953125f}));
  EXPECT_EQ(DataAs<float>(
                *Literal::CreateR0<std::complex<float>>({1, 2}).Convert(F32)),
            (std::vector<float>{1}));
  absl::StatusOr<Literal> c = Literal::CreateR0<float>(2).Convert(C64);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Get<std::complex<float>>({}), std::complex<float>(2, 0));
}

TEST(LiteralTest, ConvertKeepsLayoutAndRejectsTuples) {
  Literal lit = Abcdef(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}));
  absl::StatusOr<Literal> s = lit.Convert(S32);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->shape().ToString(), "s32[2,3]{0,1}");
  EXPECT_EQ(DataAs<int32_t>(*s), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_FALSE(Literal().Convert(F32).ok());
  EXPECT_FALSE(lit.Convert(TUPLE).ok());
}

TEST(LiteralTest, Reshape) {
  Literal lit = Literal::CreateR2<int32_t>({{1, 2, 3}, {4, 5, 6}});
  absl::StatusOr<Literal> r = lit.Reshape({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->shape().ToString(), "s32[3,2]{1,0}");
  EXPECT_EQ(r->Get<int32_t>({1, 0}), 3);  // row-major order kept
  EXPECT_EQ(r->Get<int32_t>({2, 1}), 6);
  absl::StatusOr<Literal> flat = lit.Reshape({6});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ(DataAs<int32_t>(*flat), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(lit.Reshape({4}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(lit.Reshape({-6}).ok());
  // Logical (row-major) order, not memory order, even from column-major.
  Literal cm = Abcdef(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}));
  EXPECT_EQ(DataAs<float>(*cm.Reshape({6})),
            (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(cm.Reshape({1, 6, 1})->shape().ToString(), "f32[1,6,1]{2,1,0}");
}

TEST(LiteralTest, Relayout) {
  Literal rm = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  absl::StatusOr<Literal> cm = rm.Relayout(Layout({0, 1}));
  ASSERT_TRUE(cm.ok());
  EXPECT_EQ(cm->shape().ToString(), "f32[2,3]{0,1}");
  EXPECT_EQ(DataAs<float>(*cm), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(*cm == rm);  // same values, layout ignored
  // To the tiled layout of the drawing in TiledBytes.
  Literal big = Abcdef(ShapeUtil::MakeShape(F32, {3, 5}));
  Layout tiled({1, 0});
  tiled.add_tile(Tile({2, 2}));
  absl::StatusOr<Literal> t = big.Relayout(tiled);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(DataAs<float>(*t),
            (std::vector<float>{1,  2,  6, 7, 3,  4,  8, 9, 5,  0, 10, 0,
                                11, 12, 0, 0, 13, 14, 0, 0, 15, 0, 0,  0}));
  EXPECT_FALSE(rm.Relayout(Layout({0})).ok());
  EXPECT_FALSE(rm.Relayout(Layout({1, 1})).ok());
}

// ---- Equality and copies ----

TEST(LiteralTest, EqualityIsBitwiseOnElements) {
  EXPECT_TRUE(F32Bits(0x7FC00000) == F32Bits(0x7FC00000));  // same NaN
  EXPECT_FALSE(F32Bits(0x7FC00000) == F32Bits(0x7FC00001));
  EXPECT_FALSE(Literal::CreateR0<float>(0.0f) ==
               Literal::CreateR0<float>(-0.0f));
  EXPECT_TRUE(Literal::CreateR1<int32_t>({1, 2}) ==
              Literal::CreateR1<int32_t>({1, 2}));
  EXPECT_TRUE(Literal::CreateR1<int32_t>({1, 2}) !=
              Literal::CreateR1<int32_t>({1, 3}));
  EXPECT_FALSE(Literal::CreateR1<int32_t>({1, 2}) ==
               Literal::CreateR1<int32_t>({1, 2, 3}));
  EXPECT_FALSE(Literal::CreateR1<int32_t>({1, 2}) ==
               Literal::CreateR1<uint32_t>({1, 2}));
  // Padding contents do not matter.
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  s.mutable_layout()->set_padded_dimensions({3, 5}).set_padding_value(
      PaddingValue::kLowest);
  EXPECT_TRUE(Abcdef(s) == Abcdef(ShapeUtil::MakeShape(F32, {2, 3})));
}

TEST(LiteralTest, CopyIsDeep) {
  Literal a = Literal::CreateR1<float>({1, 2});
  Literal b = a;
  b.Set<float>({0}, 9);
  EXPECT_EQ(a.Get<float>({0}), 1.0f);
  EXPECT_EQ(b.Get<float>({0}), 9.0f);
  Literal c;
  c = a;
  EXPECT_TRUE(c == a);
  Literal t = Literal::MakeTuple({a, Literal::CreateR0<int32_t>(3)});
  Literal u = t;
  u.mutable_tuple_element(0)->Set<float>({1}, 5);
  EXPECT_EQ(t.tuple_element(0).Get<float>({1}), 2.0f);
  EXPECT_FALSE(t == u);
}

TEST(LiteralTest, TuplesMakeAndDecompose) {
  Literal t = Literal::MakeTuple(
      {Literal::CreateR0<float>(1), Literal::CreateR1<int32_t>({2, 3})});
  EXPECT_EQ(t.shape().ToString(), "(f32[], s32[2]{0})");
  EXPECT_EQ(t.tuple_element_count(), 2);
  EXPECT_TRUE(t == Literal::MakeTuple({Literal::CreateR0<float>(1),
                                       Literal::CreateR1<int32_t>({2, 3})}));
  EXPECT_FALSE(t == Literal::MakeTuple({Literal::CreateR0<float>(1)}));
  std::vector<Literal> parts = std::move(t).DecomposeTuple();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].Get<int32_t>({1}), 3);
}

// ---- Text ----

std::string Text(const Literal& lit) { return lit.ToStringWithoutShape(); }

TEST(LiteralTextTest, FloatScalars) {
  EXPECT_EQ(Text(Literal::CreateR0<float>(1.0f)), "1");
  EXPECT_EQ(Text(Literal::CreateR0<float>(1.5f)), "1.5");
  EXPECT_EQ(Text(Literal::CreateR0<float>(-0.0f)), "-0");
  EXPECT_EQ(Text(Literal::CreateR0<float>(kInf)), "inf");
  EXPECT_EQ(Text(Literal::CreateR0<float>(-kInf)), "-inf");
  EXPECT_EQ(Text(F32Bits(0x7FC00000)), "nan");
  EXPECT_EQ(Text(F32Bits(0xFFC00000)), "-nan");
  // A payload other than the bare quiet bit is shown (as XLA).
  EXPECT_EQ(Text(F32Bits(0x7FC00001)), "nan(0x400001)");
  EXPECT_EQ(Text(F32Bits(0x7F800001)), "nan(0x1)");
  // Shortest round-trip for float: 0.1f is 0.100000001490116..., but "0.1"
  // reads back to it; 1/3 needs 8 digits.
  EXPECT_EQ(Text(Literal::CreateR0<float>(0.1f)), "0.1");
  EXPECT_EQ(Text(Literal::CreateR0<float>(1.0f / 3)), "0.33333334");
  // Fixed or exponent form, whichever is shorter (fixed on a tie):
  // "1e+10" (5) beats "10000000000"; "100" beats "1e+02"; 1e-5f has the
  // digits "1", "1e-05" (5) beats "0.00001" (7).
  EXPECT_EQ(Text(Literal::CreateR0<float>(1e10f)), "1e+10");
  EXPECT_EQ(Text(Literal::CreateR0<float>(100.0f)), "100");
  EXPECT_EQ(Text(Literal::CreateR0<float>(1e-5f)), "1e-05");
  // 123456789 is float 123456792 (spacing 8): "1.2345679e+08" is 13
  // characters; in fixed form both "123456790" and "123456792" read back
  // with 9 characters, and to_chars takes the closer, the exact one.
  EXPECT_EQ(Text(Literal::CreateR0<float>(123456789.0f)), "123456792");
}

TEST(LiteralTextTest, DoubleScalars) {
  EXPECT_EQ(Text(Literal::CreateR0<double>(0.1)), "0.1");
  EXPECT_EQ(Text(Literal::CreateR0<double>(1e-300)), "1e-300");
  EXPECT_EQ(Text(Literal::CreateR0<double>(1.0 / 3)), "0.3333333333333333");
  EXPECT_EQ(Text(Literal::CreateR0<double>(-2.5)), "-2.5");
  EXPECT_EQ(
      Text(Literal::CreateR0<double>(std::numeric_limits<double>::quiet_NaN())),
      "nan");
}

TEST(LiteralTextTest, HalfScalarsShortestForTheirOwnType) {
  auto half = [](uint16_t b) {
    return Text(Literal::CreateR0<Half>(Half::FromBits(b)));
  };
  // 0x2E66 = 0.0999755859375; "0.1" rounds back to 0x2E66.
  EXPECT_EQ(half(0x2E66), "0.1");
  // 0x3555 = 0.333251953125: 0.3, 0.33 and 0.333 round to other halves
  // (mantissas 205, 328, 340 instead of 341), 0.3333 rounds back.
  EXPECT_EQ(half(0x3555), "0.3333");
  // 65504 (0x7BFF): exponent form needs 3 digits, "6.55e+04" (65500/32 =
  // 2046.9 -> 2047*32; 6.5e4 -> 64992, 6.6e4 -> inf), 8 characters; the
  // exact "65504" is 5, so fixed wins (as std::to_chars does for floats).
  EXPECT_EQ(half(0x7BFF), "65504");
  // 2048 (0x6800): "2e+03" and "2048" are 5 and 4 characters.
  EXPECT_EQ(half(0x6800), "2048");
  // 0x7800 = 2^15 = 32768. The ulp is 16 below it and 32 above, so the
  // values that round back are [32760, 32784] (both ends tie to the even
  // 0x7800). 1 digit: 3e4, 4e4 no; 2: 3.2e4, 3.3e4 no; 3: 32700, 32800
  // no; 4: 32770 yes -> "3.277e+04" (9 chars) against "32768" (5).
  EXPECT_EQ(half(0x7800), "32768");
  // 0x1400 = 2^-10 = 0.0009765625. The ulp is 2^-21 below and 2^-20
  // above: the interval is [2^-10 - 2^-22, 2^-10 + 2^-21] =
  // [0.00097632408, 0.00097703934]. 0.001, 0.0009, 0.00098, 0.00097 are
  // outside, 0.000977 inside (0.000976 is not): "9.77e-04" and "0.000977"
  // both have 8 characters; fixed wins the tie.
  EXPECT_EQ(half(0x1400), "0.000977");
  // 0x3C01 = 1.0009765625: 1.001 is the first that rounds back.
  EXPECT_EQ(half(0x3C01), "1.001");
  // 0x0001 = 2^-24 = 5.96e-8: 6e-08 rounds back (6e-8 / 2^-24 = 1.007).
  EXPECT_EQ(half(0x0001), "6e-08");
  EXPECT_EQ(half(0x3C00), "1");
  EXPECT_EQ(half(0x8000), "-0");
  EXPECT_EQ(half(0x7C00), "inf");
  EXPECT_EQ(half(0xFC00), "-inf");
  EXPECT_EQ(half(0x7E00), "nan");
  EXPECT_EQ(half(0xFE00), "-nan");
  EXPECT_EQ(half(0x7C01), "nan(0x1)");
}

TEST(LiteralTextTest, BFloat16Scalars) {
  auto bf = [](uint16_t b) {
    return Text(Literal::CreateR0<BFloat16>(BFloat16::FromBits(b)));
  };
  EXPECT_EQ(bf(0x3F80), "1");
  // 0x3F81 = 1.0078125: 1.01 -> mantissa 0.01*128 = 1.28 -> 1: back.
  EXPECT_EQ(bf(0x3F81), "1.01");
  // 0x3DCD = 0.10009765625 (bf16 of 0.1).
  EXPECT_EQ(bf(0x3DCD), "0.1");
  // 0x7F7F = (2 - 2^-7) * 2^127 = 3.3895e38, half an ulp 6.6e35: 3.4e38 is
  // past the halfway point to 2^128 (inf), 3.39e38 is within.
  EXPECT_EQ(bf(0x7F7F), "3.39e+38");
  EXPECT_EQ(bf(0x7FC0), "nan");
  EXPECT_EQ(bf(0xFF80), "-inf");
}

// The text of every non-NaN value reads back to the same bits the way a
// parser reads it: decimal -> double -> SetFromDouble (one rounding).
template <typename N>
void ExpectEveryValueReadsBack(PrimitiveType type, uint16_t exp_mask) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    if ((bits & exp_mask) == exp_mask && (bits & ~exp_mask & 0x7FFF)) {
      continue;  // NaN
    }
    const std::string text = Text(Literal::CreateR0<N>(N::FromBits(bits)));
    double d = 0;
    const std::from_chars_result r =
        std::from_chars(text.data(), text.data() + text.size(), d);
    ASSERT_EQ(r.ptr, text.data() + text.size()) << text;
    Literal back(ShapeUtil::MakeShape(type, {}));
    ASSERT_TRUE(back.SetFromDouble({}, d).ok());
    ASSERT_EQ(back.Get<N>({}).bits, bits) << text;
  }
}

TEST(LiteralTextTest, EveryHalfReadsBack) {
  ExpectEveryValueReadsBack<Half>(F16, 0x7C00);
}

TEST(LiteralTextTest, EveryBFloat16ReadsBack) {
  ExpectEveryValueReadsBack<BFloat16>(BF16, 0x7F80);
}

TEST(LiteralTextTest, FloatAndDoubleSamplesReadBack) {
  // Bit patterns spread over the whole range (a multiplicative walk).
  uint32_t b32 = 1;
  uint64_t b64 = 1;
  for (int i = 0; i < 20000; ++i) {
    b32 = b32 * 2654435761u + 12345u;
    b64 = b64 * 6364136223846793005ull + 1442695040888963407ull;
    const float f = std::bit_cast<float>(b32);
    const double d = std::bit_cast<double>(b64);
    if (!std::isnan(f)) {
      const std::string t = Text(Literal::CreateR0<float>(f));
      float g = 0;
      std::from_chars(t.data(), t.data() + t.size(), g);
      ASSERT_EQ(std::bit_cast<uint32_t>(g), b32) << t;
    }
    if (!std::isnan(d)) {
      const std::string t = Text(Literal::CreateR0<double>(d));
      double e = 0;
      std::from_chars(t.data(), t.data() + t.size(), e);
      ASSERT_EQ(std::bit_cast<uint64_t>(e), b64) << t;
    }
  }
}

TEST(LiteralTextTest, OtherScalars) {
  EXPECT_EQ(Text(Literal::CreateR0<bool>(true)), "true");
  EXPECT_EQ(Text(Literal::CreateR0<bool>(false)), "false");
  EXPECT_EQ(Text(Literal::CreateR0<int8_t>(-128)), "-128");
  EXPECT_EQ(Text(Literal::CreateR0<uint8_t>(255)), "255");
  EXPECT_EQ(
      Text(Literal::CreateR0<uint64_t>(std::numeric_limits<uint64_t>::max())),
      "18446744073709551615");
  EXPECT_EQ(
      Text(Literal::CreateR0<int64_t>(std::numeric_limits<int64_t>::min())),
      "-9223372036854775808");
  EXPECT_EQ(Text(Literal::CreateR0<std::complex<float>>({1, 2})), "(1, 2)");
  EXPECT_EQ(Text(Literal::CreateR0<std::complex<float>>({0.1f, -kInf})),
            "(0.1, -inf)");
  EXPECT_EQ(Text(Literal::CreateR0<std::complex<double>>({-0.5, 0})),
            "(-0.5, 0)");
}

TEST(LiteralTextTest, Arrays) {
  EXPECT_EQ(Text(Literal::CreateR1<int32_t>({1, 2, 3})), "{1, 2, 3}");
  EXPECT_EQ(Text(Literal::CreateR1<int32_t>({5})), "{5}");
  EXPECT_EQ(Text(Literal(ShapeUtil::MakeShape(F32, {0}))), "{}");
  EXPECT_EQ(Text(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})),
            "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  absl::StatusOr<Literal> r3 = Literal::CreateFromValues<int32_t>(
      ShapeUtil::MakeShape(S32, {2, 2, 2}), {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(Text(*r3), "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }");
  // Innermost rows of 0 or 1 element have no inner spaces (as XLA).
  EXPECT_EQ(Text(Literal::CreateR2<float>({{1}, {2}})), "{ {1}, {2} }");
  EXPECT_EQ(Text(Literal(ShapeUtil::MakeShape(F32, {2, 0}))), "{ {}, {} }");
  EXPECT_EQ(Text(Literal(ShapeUtil::MakeShape(F32, {0, 3}))), "{  }");
  EXPECT_EQ(Text(Literal(ShapeUtil::MakeShape(S32, {1, 1, 1, 2}))),
            "{ { { { 0, 0 } } } }");
  // Predicates inside arrays are 1/0 (as XLA).
  EXPECT_EQ(Text(Literal::CreateR1<bool>({true, false, true})), "{1, 0, 1}");
  EXPECT_EQ(Text(Literal::CreateR2<bool>({{true, false}, {false, true}})),
            "{ { 1, 0 }, { 0, 1 } }");
  EXPECT_EQ(Text(Literal::CreateR1<float>({0.1f, -0.0f, kInf})),
            "{0.1, -0, inf}");
}

TEST(LiteralTextTest, LayoutDoesNotChangeText) {
  Literal cm = Abcdef(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}));
  EXPECT_EQ(Text(cm), "{ { 1, 2, 3 }, { 4, 5, 6 } }");
  Shape s = ShapeUtil::MakeShapeWithLayout(F32, {3, 5}, {1, 0});
  s.mutable_layout()->add_tile(Tile({2, 2}));
  EXPECT_EQ(
      Text(Abcdef(s)),
      "{ { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 } }");
}

TEST(LiteralTextTest, TuplesAndTokens) {
  Literal t = Literal::MakeTuple(
      {Literal::CreateR0<float>(1), Literal::CreateR1<int32_t>({2, 3})});
  EXPECT_EQ(Text(t), "( 1, {2, 3} )");
  EXPECT_EQ(t.ToString(), "(f32[], s32[2]) ( 1, {2, 3} )");
  Literal nested = Literal::MakeTuple(
      {Literal::CreateR0<float>(1),
       Literal::MakeTuple({Literal::CreateR0<bool>(true),
                           Literal(ShapeUtil::MakeShape(F32, {0}))})});
  EXPECT_EQ(Text(nested), "( 1, ( true, {} ) )");
  EXPECT_EQ(Text(Literal()), "(  )");
  Literal token(ShapeUtil::MakeTokenShape());
  EXPECT_EQ(Text(token), "token");
  EXPECT_EQ(token.ToString(), "token[] token");
}

TEST(LiteralTextTest, ToStringHasShapeWithoutLayout) {
  EXPECT_EQ(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}).ToString(),
            "f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }");
  EXPECT_EQ(Literal::CreateR0<float>(1.5f).ToString(), "f32[] 1.5");
  EXPECT_EQ(Literal::CreateR1<bool>({true}).ToString(), "pred[1] {1}");
  EXPECT_EQ(Literal::CreateR0<BFloat16>(BFloat16::FromBits(0x3F81)).ToString(),
            "bf16[] 1.01");
}

}  // namespace
}  // namespace plexa
