// The evaluator on the sub-byte and f8/f4 element types. Expected values
// are hand-computed from the encodings (core/literal/float8_test.cc).
#include "core/eval/eval_test_util.h"

namespace plexa::eval_test {
namespace {

TEST(SmallTypesEvalTest, ConvertF32ToEveryF8Type) {
  const char* hlo = R"(
HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  ROOT c = f8e4m3fn[6] convert(p)
})";
  // 464 ties to 448, 465 overflows to NaN, 1.0625 ties to 1, 2^-10 ties to
  // 0, -inf has no encoding but NaN.
  Literal r = RunOk(hlo, {L("f32[6]",
                            "{464, 465, 1.0625, 0.0009765625, "
                            "-inf, -0}")});
  EXPECT_LITERAL(r, "f8e4m3fn[6]", "{448, nan, 1, 0, -nan, -0}");

  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f8e5m2[4] convert(p)
})",
            {L("f32[4]", "{61440, 61439, 1.125, 1.375}")});
  EXPECT_LITERAL(r, "f8e5m2[4]", "{inf, 57344, 1, 1.5}");

  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f8e4m3fnuz[4] convert(p)
})",
            {L("f32[4]", "{-0, 248, 247, -1}")});
  EXPECT_LITERAL(r, "f8e4m3fnuz[4]", "{0, nan, 240, -1}");

  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f32[5] parameter(0)
  ROOT c = f4e2m1fn[5] convert(p)
})",
            {L("f32[5]", "{2.5, 5, 7, -100, 0.75}")});
  EXPECT_LITERAL(r, "f4e2m1fn[5]", "{2, 4, 6, -6, 1}");

  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT c = f8e8m0fnu[3] convert(p)
})",
            {L("f32[3]", "{3, 2.9, 0.25}")});
  EXPECT_LITERAL(r, "f8e8m0fnu[3]", "{4, 2, 0.25}");
}

TEST(SmallTypesEvalTest, ConvertFromF8AndIntegers) {
  Literal r = RunOk(R"(
HloModule m
ENTRY e {
  p = f8e4m3fn[3] parameter(0)
  ROOT c = s32[3] convert(p)
})",
                    {L("f8e4m3fn[3]", "{-448, 2.5, nan}")});
  EXPECT_LITERAL(r, "s32[3]", "{-448, 2, 0}");
  // s32 -> f8e4m3fn rounds once from the integer: 17 is a tie between 16
  // and 18 (m=000 even), 19 between 18 and 20 -> 20.
  r = RunOk(R"(
HloModule m
ENTRY e {
  p = s32[3] parameter(0)
  ROOT c = f8e4m3fn[3] convert(p)
})",
            {L("s32[3]", "{17, 19, -1000}")});
  EXPECT_LITERAL(r, "f8e4m3fn[3]", "{16, 20, -nan}");
  // f8 -> f8 through the exact value: e5m2 57344 overflows e4m3fn.
  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f8e5m2[2] parameter(0)
  ROOT c = f8e4m3fn[2] convert(p)
})",
            {L("f8e5m2[2]", "{57344, 0.75}")});
  EXPECT_LITERAL(r, "f8e4m3fn[2]", "{nan, 0.75}");
}

TEST(SmallTypesEvalTest, ArithmeticRoundsEachResult) {
  // 1 + 0.0625 = 1.0625 ties back to 1 in e4m3fn; 448 + 16 = 464 ties
  // (448's m=110 is even) to 448; 448 * 16 and 448 * 2 overflow to NaN.
  Literal r = RunOk(
      R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[3] parameter(0)
  b = f8e4m3fn[3] parameter(1)
  s = f8e4m3fn[3] add(a, b)
  m = f8e4m3fn[3] multiply(a, b)
  c = pred[3] compare(a, b), direction=GT
  ROOT t = (f8e4m3fn[3], f8e4m3fn[3], pred[3]) tuple(s, m, c)
})",
      {L("f8e4m3fn[3]", "{1, 448, 448}"), L("f8e4m3fn[3]", "{0.0625, 16, 2}")});
  ASSERT_EQ(r.tuple_element_count(), 3);
  EXPECT_LITERAL(r.tuple_element(0), "f8e4m3fn[3]", "{1, 448, 448}");
  EXPECT_LITERAL(r.tuple_element(1), "f8e4m3fn[3]", "{0.0625, nan, nan}");
  EXPECT_LITERAL(r.tuple_element(2), "pred[3]", "{1, 1, 1}");
}

TEST(SmallTypesEvalTest, DotAndDataMovement) {
  // dot in e5m2: [1, 2] . [[1, 0.5], [3, 0.25]] = [7, 1] (exact).
  Literal r = RunOk(R"(
HloModule m
ENTRY e {
  a = f8e5m2[1,2] parameter(0)
  b = f8e5m2[2,2] parameter(1)
  d = f8e5m2[1,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f8e5m2[2,1] transpose(d), dimensions={1,0}
  r = f8e5m2[2] reshape(t)
  c = f8e5m2[4] concatenate(r, r), dimensions={0}
  s = f8e5m2[2] slice(c), slice={[1:3]}
  ROOT x = f8e5m2[2,2] broadcast(s), dimensions={1}
})",
                    {L("f8e5m2[1,2]", "{ {1, 2} }"),
                     L("f8e5m2[2,2]", "{ {1, 0.5}, {3, 0.25} }")});
  EXPECT_LITERAL(r, "f8e5m2[2,2]", "{ {1, 7}, {1, 7} }");
}

TEST(SmallTypesEvalTest, SelectAndReduce) {
  // reduce rounds to the element type after every step, as for f16:
  // 1 + 0.0625 = 1.0625 ties to 1, and again; in float it would be 1.125.
  Literal r = RunOk(R"(
HloModule m
add {
  x = f8e4m3fn[] parameter(0)
  y = f8e4m3fn[] parameter(1)
  ROOT s = f8e4m3fn[] add(x, y)
}
ENTRY e {
  p = pred[3] parameter(0)
  a = f8e4m3fn[3] parameter(1)
  b = f8e4m3fn[3] parameter(2)
  s = f8e4m3fn[3] select(p, a, b)
  z = f8e4m3fn[] constant(0)
  r = f8e4m3fn[] reduce(b, z), dimensions={0}, to_apply=add
  ROOT t = (f8e4m3fn[3], f8e4m3fn[]) tuple(s, r)
})",
                    {L("pred[3]", "{1, 0, 1}"), L("f8e4m3fn[3]", "{-2, 3, 4}"),
                     L("f8e4m3fn[3]", "{1, 0.0625, 0.0625}")});
  ASSERT_EQ(r.tuple_element_count(), 2);
  EXPECT_LITERAL(r.tuple_element(0), "f8e4m3fn[3]", "{-2, 0.0625, 4}");
  EXPECT_LITERAL(r.tuple_element(1), "f8e4m3fn[]", "1");
}

TEST(SmallTypesEvalTest, BitcastConvertBetweenEqualWidths) {
  Literal r = RunOk(R"(
HloModule m
ENTRY e {
  p = u8[3] parameter(0)
  ROOT b = f8e4m3fn[3] bitcast-convert(p)
})",
                    {L("u8[3]", "{56, 126, 255}")});  // 0x38 0x7e 0xff
  EXPECT_LITERAL(r, "f8e4m3fn[3]", "{1, 448, -nan}");
  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f8e8m0fnu[2] parameter(0)
  ROOT b = u8[2] bitcast-convert(p)
})",
            {L("f8e8m0fnu[2]", "{1, 0.5}")});
  EXPECT_LITERAL(r, "u8[2]", "{127, 126}");
  // s4 -1 is 0b1111, f4e2m1fn's -6.
  r = RunOk(R"(
HloModule m
ENTRY e {
  p = s4[2] parameter(0)
  ROOT b = f4e2m1fn[2] bitcast-convert(p)
})",
            {L("s4[2]", "{-1, 2}")});
  EXPECT_LITERAL(r, "f4e2m1fn[2]", "{-6, 1}");
}

TEST(SmallTypesEvalTest, SubByteIntegersWrap) {
  Literal r =
      RunOk(R"(
HloModule m
ENTRY e {
  a = s4[4] parameter(0)
  b = s4[4] parameter(1)
  s = s4[4] add(a, b)
  m = s4[4] multiply(a, b)
  l = s4[4] shift-right-logical(a, b)
  c = s4[4] popcnt(a)
  z = s4[4] count-leading-zeros(a)
  ROOT t = (s4[4], s4[4], s4[4], s4[4], s4[4]) tuple(s, m, l, c, z)
})",
            {L("s4[4]", "{7, -8, -8, 1}"), L("s4[4]", "{1, -1, 1, 3}")});
  // 7+1 = 8 wraps to -8; -8 + -1 = -9 wraps to 7; -8+1 = -7; 1+3 = 4.
  EXPECT_LITERAL(r.tuple_element(0), "s4[4]", "{-8, 7, -7, 4}");
  // 7, -8*-1 = 8 -> -8, -8, 3
  EXPECT_LITERAL(r.tuple_element(1), "s4[4]", "{7, -8, -8, 3}");
  // 0b0111 >> 1 = 3; amount -1 (0b1111) >= 4 -> 0; 0b1000 >> 1 = 0b0100;
  // 1 >> 3 = 0.
  EXPECT_LITERAL(r.tuple_element(2), "s4[4]", "{3, 0, 4, 0}");
  EXPECT_LITERAL(r.tuple_element(3), "s4[4]", "{3, 1, 1, 1}");
  EXPECT_LITERAL(r.tuple_element(4), "s4[4]", "{1, 0, 0, 3}");

  r = RunOk(R"(
HloModule m
ENTRY e {
  p = s32[4] parameter(0)
  ROOT c = u4[4] convert(p)
})",
            {L("s32[4]", "{15, 16, -1, 33}")});
  EXPECT_LITERAL(r, "u4[4]", "{15, 0, 15, 1}");
  r = RunOk(R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  ROOT c = s2[3] convert(p)
})",
            {L("f32[3]", "{1.9, -5, 100}")});
  // float -> s2 truncates and saturates to [-2, 1].
  EXPECT_LITERAL(r, "s2[3]", "{1, -2, 1}");
}

}  // namespace
}  // namespace plexa::eval_test
