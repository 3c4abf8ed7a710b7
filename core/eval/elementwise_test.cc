// Elementwise operations. Every expected value is computed by hand in the
// comment next to it (or taken from seed 004's examples).
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

// ENTRY computing `op` on two constant vectors.
std::string BinaryProgram(absl::string_view type, int64_t n,
                          absl::string_view op, absl::string_view lhs,
                          absl::string_view rhs,
                          absl::string_view out_type = "",
                          absl::string_view attrs = "") {
  const std::string out =
      out_type.empty() ? std::string(type) : std::string(out_type);
  return absl::StrFormat(R"(HloModule m
ENTRY e {
  a = %s[%d] constant(%s)
  b = %s[%d] constant(%s)
  ROOT r = %s[%d] %s(a, b)%s
})",
                         type, n, lhs, type, n, rhs, out, n, op, attrs);
}

std::string UnaryProgram(absl::string_view type, int64_t n,
                         absl::string_view op, absl::string_view values,
                         absl::string_view out_type = "") {
  const std::string out =
      out_type.empty() ? std::string(type) : std::string(out_type);
  return absl::StrFormat(R"(HloModule m
ENTRY e {
  a = %s[%d] constant(%s)
  ROOT r = %s[%d] %s(a)
})",
                         type, n, values, out, n, op);
}

// ---- Integer arithmetic: wraps, XLA's division rules ------------------------

TEST(ElementwiseTest, IntegerAddSubtractWrap) {
  // INT_MAX + 1 = INT_MIN; INT_MIN + -1 = INT_MAX; 3 + 4 = 7.
  EXPECT_LITERAL(
      RunOk(BinaryProgram("s32", 3, "add", "{2147483647, -2147483648, 3}",
                          "{1, -1, 4}")),
      "s32[3]", "{-2147483648, 2147483647, 7}");
  // 0 - 1 in u8 = 255; 5 - 7 in u32 = 2^32 - 2 = 4294967294.
  EXPECT_LITERAL(RunOk(BinaryProgram("u8", 2, "subtract", "{0, 5}", "{1, 7}")),
                 "u8[2]", "{255, 254}");
  EXPECT_LITERAL(RunOk(BinaryProgram("u32", 1, "subtract", "{5}", "{7}")),
                 "u32[1]", "{4294967294}");
}

TEST(ElementwiseTest, IntegerMultiplyWraps) {
  // s8: 100*3 = 300 = 256 + 44 -> 44; -128 * -1 = 128 -> -128;
  // 16 * 16 = 256 -> 0.
  EXPECT_LITERAL(RunOk(BinaryProgram("s8", 3, "multiply", "{100, -128, 16}",
                                     "{3, -1, 16}")),
                 "s8[3]", "{44, -128, 0}");
  // u16: 65535 * 65535 = 2^32 - 2^17 + 1 = 1 (mod 2^16); this would be
  // signed-int overflow if computed after integer promotion.
  EXPECT_LITERAL(
      RunOk(BinaryProgram("u16", 1, "multiply", "{65535}", "{65535}")),
      "u16[1]", "{1}");
  // s64: 2^62 * 4 = 2^64 = 0 (mod 2^64); -3 * 5 = -15.
  EXPECT_LITERAL(RunOk(BinaryProgram("s64", 2, "multiply",
                                     "{4611686018427387904, -3}", "{4, 5}")),
                 "s64[2]", "{0, -15}");
}

TEST(ElementwiseTest, SignedDivisionAndRemainder) {
  // Truncation toward zero: 7/-2 = -3 (rem 1), -7/2 = -3 (rem -1);
  // x/0 = -1 and x%0 = x; INT_MIN/-1 = INT_MIN and INT_MIN%-1 = 0.
  const char* lhs = "{7, -7, 5, -2147483648, 9}";
  const char* rhs = "{-2, 2, 0, -1, 3}";
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 5, "divide", lhs, rhs)), "s32[5]",
                 "{-3, -3, -1, -2147483648, 3}");
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 5, "remainder", lhs, rhs)),
                 "s32[5]", "{1, -1, 5, 0, 0}");
  // s8: -128 / -1 = -128, -128 % -1 = 0.
  EXPECT_LITERAL(RunOk(BinaryProgram("s8", 1, "divide", "{-128}", "{-1}")),
                 "s8[1]", "{-128}");
}

TEST(ElementwiseTest, UnsignedDivisionByZero) {
  // x/0 = all ones; x%0 = x.
  EXPECT_LITERAL(RunOk(BinaryProgram("u32", 3, "divide", "{7, 7, 4294967295}",
                                     "{0, 2, 16}")),
                 "u32[3]", "{4294967295, 3, 268435455}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("u8", 2, "remainder", "{7, 200}", "{0, 7}")), "u8[2]",
      "{7, 4}");  // 200 = 28*7 + 4
}

TEST(ElementwiseTest, FloatRemainderTakesDividendSign) {
  // fmod(-7.5, 2) = -1.5; fmod(7.5, -2) = 1.5; fmod(-0, 3) = -0;
  // fmod(1, 0) = NaN; fmod(inf, 2) = NaN.
  Literal r = RunOk(BinaryProgram(
      "f32", 5, "remainder", "{-7.5, 7.5, -0, 1, inf}", "{2, -2, 3, 0, 2}"));
  EXPECT_EQ(r.GetAsDouble({0}), -1.5);
  EXPECT_EQ(r.GetAsDouble({1}), 1.5);
  EXPECT_EQ(r.GetAsDouble({2}), 0.0);
  EXPECT_TRUE(std::signbit(r.GetAsDouble({2})));
  EXPECT_TRUE(std::isnan(r.GetAsDouble({3})));
  EXPECT_TRUE(std::isnan(r.GetAsDouble({4})));
}

TEST(ElementwiseTest, Shifts) {
  // shift-left: 1<<31 = INT_MIN; amounts >= 32 (and negative ones, read as
  // unsigned) give 0.
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 4, "shift-left", "{1, 1, 1, 3}",
                                     "{31, 32, -1, 2}")),
                 "s32[4]", "{-2147483648, 0, 0, 12}");
  // logical: -8 = 0xFFFFFFF8 >> 1 = 0x7FFFFFFC = 2147483644; >= 32 gives 0.
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 3, "shift-right-logical",
                                     "{-8, -8, 16}", "{1, 32, 4}")),
                 "s32[3]", "{2147483644, 0, 1}");
  // arithmetic: -8 >> 1 = -4; amounts >= 32 fill with the sign: -1 and 0.
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 4, "shift-right-arithmetic",
                                     "{-8, -8, 8, -1}", "{1, 40, 40, 31}")),
                 "s32[4]", "{-4, -1, 0, -1}");
  // u8 arithmetic shift uses the top bit as sign: 0x80 >> 1 = 0xC0 = 192.
  EXPECT_LITERAL(RunOk(BinaryProgram("u8", 2, "shift-right-arithmetic",
                                     "{128, 64}", "{1, 1}")),
                 "u8[2]", "{192, 32}");
}

TEST(ElementwiseTest, IntegerPower) {
  // 2^10 = 1024; 3^-1 = 0 and 1^-5 = 1 (negative exponents, as XLA);
  // (-2)^3 = -8; 2^31 wraps to INT_MIN; 0^0 = 1; (-1)^-1 = 0 (XLA: only
  // base 1 survives a negative exponent).
  EXPECT_LITERAL(
      RunOk(BinaryProgram("s32", 7, "power", "{2, 3, 1, -2, 2, 0, -1}",
                          "{10, -1, -5, 3, 31, 0, -1}")),
      "s32[7]", "{1024, 0, 1, -8, -2147483648, 1, 0}");
}

TEST(ElementwiseTest, IntegerUnary) {
  // negate/abs of INT_MIN wrap to INT_MIN.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 3, "negate", "{-2147483648, 5, 0}")),
                 "s32[3]", "{-2147483648, -5, 0}");
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 3, "abs", "{-2147483648, -5, 7}")),
                 "s32[3]", "{-2147483648, 5, 7}");
  // popcnt(-1) = 32, popcnt(0xF0) = 4; clz(1) = 31, clz(0) = 32,
  // clz(-1) = 0.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 3, "popcnt", "{-1, 240, 0}")),
                 "s32[3]", "{32, 4, 0}");
  EXPECT_LITERAL(
      RunOk(UnaryProgram("s32", 3, "count-leading-zeros", "{1, 0, -1}")),
      "s32[3]", "{31, 32, 0}");
  EXPECT_LITERAL(
      RunOk(UnaryProgram("u8", 2, "count-leading-zeros", "{1, 200}")), "u8[2]",
      "{7, 0}");
  // not: bitwise for integers, logical for pred.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 2, "not", "{0, 5}")), "s32[2]",
                 "{-1, -6}");
  EXPECT_LITERAL(RunOk(UnaryProgram("pred", 2, "not", "{true, false}")),
                 "pred[2]", "{false, true}");
  // sign: -5 -> -1, 0 -> 0, 9 -> 1.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 3, "sign", "{-5, 0, 9}")), "s32[3]",
                 "{-1, 0, 1}");
}

TEST(ElementwiseTest, BitwiseAndPredLogic) {
  // 12 & 10 = 8, 12 | 10 = 14, 12 ^ 10 = 6.
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 1, "and", "{12}", "{10}")),
                 "s32[1]", "{8}");
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 1, "or", "{12}", "{10}")), "s32[1]",
                 "{14}");
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 1, "xor", "{12}", "{10}")),
                 "s32[1]", "{6}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("pred", 4, "xor", "{true, true, false, false}",
                          "{true, false, true, false}")),
      "pred[4]", "{false, true, true, false}");
  // pred add/multiply/max/min are or/and/or/and.
  EXPECT_LITERAL(
      RunOk(BinaryProgram("pred", 4, "add", "{true, true, false, false}",
                          "{true, false, true, false}")),
      "pred[4]", "{true, true, true, false}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("pred", 4, "multiply", "{true, true, false, false}",
                          "{true, false, true, false}")),
      "pred[4]", "{true, false, false, false}");
}

// ---- Floating point ---------------------------------------------------------

TEST(ElementwiseTest, HalfAdditionRoundsToNearestEven) {
  // f16 has 10 mantissa bits: near 1 the spacing is 2^-10.
  // 1 + 2^-11 is a tie between 1 and 1 + 2^-10 -> even -> 1.
  // (1 + 2^-10) + 2^-11 = 1 + 3*2^-11: tie between 1 + 2^-10 (odd) and
  //   1 + 2^-9 (even) -> 1.001953125.
  // 65504 + 16 = 65520: tie between 65504 (odd) and 65536 (= inf) -> inf.
  // 65504 + 15 = 65519 -> 65504.
  EXPECT_LITERAL(
      RunOk(BinaryProgram("f16", 4, "add", "{1, 1.0009765625, 65504, 65504}",
                          "{0.00048828125, 0.00048828125, 16, 15}")),
      "f16[4]", "{1, 1.001953125, inf, 65504}");
}

TEST(ElementwiseTest, BFloat16ArithmeticRoundsToNearestEven) {
  // bf16 has 7 mantissa bits: at 256 the spacing is 2.
  // 256 + 1 = 257: tie -> 256 (even). 258 + 1 = 259: tie between 258 (odd
  // mantissa) and 260 -> 260. 1 + 2^-8: tie -> 1.
  EXPECT_LITERAL(RunOk(BinaryProgram("bf16", 3, "add", "{256, 258, 1}",
                                     "{1, 1, 0.00390625}")),
                 "bf16[3]", "{256, 260, 1}");
  // 3 * 87 = 261 exactly in float, 261 between 260 and 262: nearer 260?
  // 261 - 260 = 1 = 262 - 261: a tie; 260 = 1.0000010b * 2^8 has an even
  // mantissa (0000010), 262 odd -> 260.
  EXPECT_LITERAL(RunOk(BinaryProgram("bf16", 1, "multiply", "{3}", "{87}")),
                 "bf16[1]", "{260}");
}

TEST(ElementwiseTest, FloatMaxMinPropagateNaN) {
  // maximum/minimum propagate NaN from either side (today's XLA).
  Literal mx = RunOk(
      BinaryProgram("f32", 3, "maximum", "{nan, 1, 2}", "{1, nan, -inf}"));
  EXPECT_TRUE(std::isnan(mx.GetAsDouble({0})));
  EXPECT_TRUE(std::isnan(mx.GetAsDouble({1})));
  EXPECT_EQ(mx.GetAsDouble({2}), 2.0);
  Literal mn = RunOk(
      BinaryProgram("f32", 3, "minimum", "{nan, 1, 2}", "{1, nan, -inf}"));
  EXPECT_TRUE(std::isnan(mn.GetAsDouble({0})));
  EXPECT_TRUE(std::isnan(mn.GetAsDouble({1})));
  EXPECT_EQ(mn.GetAsDouble({2}), -std::numeric_limits<double>::infinity());
}

TEST(ElementwiseTest, FloatDivisionIEEE) {
  // 1/0 = inf, -1/0 = -inf, 0/0 = NaN, 1/-0 = -inf, 1/inf = 0.
  Literal r = RunOk(BinaryProgram("f32", 5, "divide", "{1, -1, 0, 1, 1}",
                                  "{0, 0, 0, -0, inf}"));
  EXPECT_EQ(r.GetAsDouble({0}), std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.GetAsDouble({1}), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(r.GetAsDouble({2})));
  EXPECT_EQ(r.GetAsDouble({3}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(r.GetAsDouble({4}), 0.0);
}

TEST(ElementwiseTest, FloatPowerSpecialCases) {
  // 2^10 = 1024; 1^nan = 1; nan^0 = 1; 4^0.5 = 2; 2^-1 = 0.5.
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 5, "power", "{2, 1, nan, 4, 2}",
                                     "{10, nan, 0, 0.5, -1}")),
                 "f32[5]", "{1024, 1, 1, 2, 0.5}");
}

TEST(ElementwiseTest, RoundingOps) {
  // afz: 2.5 -> 3, -2.5 -> -3, 0.5 -> 1; even: 2.5 -> 2, 3.5 -> 4,
  // -2.5 -> -2, 0.5 -> 0.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 4, "round-nearest-afz",
                                    "{2.5, -2.5, 0.5, 1.4}")),
                 "f32[4]", "{3, -3, 1, 1}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 4, "round-nearest-even",
                                    "{2.5, 3.5, -2.5, 0.5}")),
                 "f32[4]", "{2, 4, -2, 0}");
  // -0.4 rounds to -0 (sign kept); floor(-1.5) = -2; ceil(-1.5) = -1;
  // ceil(-0.5) = -0.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 1, "round-nearest-even", "{-0.4}")),
                 "f32[1]", "{-0}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "floor", "{-1.5, 2.5}")),
                 "f32[2]", "{-2, 2}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "ceil", "{-1.5, -0.5}")),
                 "f32[2]", "{-1, -0}");
  // f16 round-nearest-even of 1024.5 (exact in f16? spacing at 1024 is 1,
  // so 1024.5 is not representable; use 2.5 and -3.5).
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f16", 2, "round-nearest-even", "{2.5, -3.5}")),
      "f16[2]", "{2, -4}");
}

TEST(ElementwiseTest, SignNegateAndNegativeZero) {
  // sign: -3 -> -1, -0 -> -0, +0 -> +0, nan -> nan, inf -> 1.
  Literal s = RunOk(UnaryProgram("f32", 5, "sign", "{-3, -0, 0, nan, inf}"));
  EXPECT_EQ(s.GetAsDouble({0}), -1.0);
  EXPECT_TRUE(std::signbit(s.GetAsDouble({1})));
  EXPECT_FALSE(std::signbit(s.GetAsDouble({2})));
  EXPECT_TRUE(std::isnan(s.GetAsDouble({3})));
  EXPECT_EQ(s.GetAsDouble({4}), 1.0);
  // negate(0) = -0; -0 * 5 = -0; -0 + 0 = +0.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 1, "negate", "{0}")), "f32[1]",
                 "{-0}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("f32", 2, "multiply", "{-0, -0}", "{5, -5}")),
      "f32[2]", "{-0, 0}");
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 1, "add", "{-0}", "{0}")), "f32[1]",
                 "{0}");
}

TEST(ElementwiseTest, TranscendentalFunctions) {
  // exp(0)=1, exp(1)=e, log(1)=0, log(e)=1, sqrt(4)=2, rsqrt(4)=0.5,
  // cbrt(-27)=-3, tanh(0)=0, logistic(0)=0.5, sin(0)=0, cos(0)=1.
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("f32", 2, "exponential", "{0, 1}")),
                      "f32[2]", "{1, 2.718281828459045}", 1e-6);
  EXPECT_LITERAL_NEAR(
      RunOk(UnaryProgram("f64", 2, "log", "{1, 2.718281828459045}")), "f64[2]",
      "{0, 1}", 1e-15);
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "sqrt", "{4, 0.25}")), "f32[2]",
                 "{2, 0.5}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "rsqrt", "{4, 0.25}")), "f32[2]",
                 "{0.5, 2}");
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("f32", 2, "cbrt", "{-27, 8}")),
                      "f32[2]", "{-3, 2}", 1e-6);
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "tanh", "{0, -0}")), "f32[2]",
                 "{0, -0}");
  // logistic(0) = 1/(1+1) = 0.5; logistic(-inf) = 1/(1+inf) = 0;
  // logistic(inf) = 1/(1+0) = 1.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 3, "logistic", "{0, -inf, inf}")),
                 "f32[3]", "{0.5, 0, 1}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 2, "sine", "{0, -0}")), "f32[2]",
                 "{0, -0}");
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 1, "cosine", "{0}")), "f32[1]",
                 "{1}");
  // expm1 and log1p keep precision near 0: expm1(1e-10) = 1e-10 + 5e-21,
  // log1p(1e-10) = 1e-10 - 5e-21 (Taylor), both 1e-10 to 1e-10 relative.
  EXPECT_LITERAL_NEAR(
      RunOk(UnaryProgram("f64", 1, "exponential-minus-one", "{1e-10}")),
      "f64[1]", "{1.00000000005e-10}", 1e-20);
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("f64", 1, "log-plus-one", "{1e-10}")),
                      "f64[1]", "{9.9999999995e-11}", 1e-20);
  // erf(0) = 0, erf(inf) = 1, erf(0.5) = 0.5204998778130465.
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("f64", 3, "erf", "{0, inf, 0.5}")),
                      "f64[3]", "{0, 1, 0.5204998778130465}", 1e-15);
  // atan2(1, 1) = pi/4, atan2(1, -1) = 3pi/4, atan2(-0, -1) = -pi.
  EXPECT_LITERAL_NEAR(
      RunOk(BinaryProgram("f64", 3, "atan2", "{1, 1, -0}", "{1, -1, -1}")),
      "f64[3]", "{0.7853981633974483, 2.356194490192345, -3.141592653589793}",
      1e-15);
  // sqrt(-1) = NaN, log(0) = -inf, log(-1) = NaN.
  Literal special = RunOk(UnaryProgram("f32", 3, "log", "{0, -1, inf}"));
  EXPECT_EQ(special.GetAsDouble({0}), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(special.GetAsDouble({1})));
  EXPECT_EQ(special.GetAsDouble({2}), std::numeric_limits<double>::infinity());
}

TEST(ElementwiseTest, IsFinite) {
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 5, "is-finite",
                                    "{1, inf, -inf, nan, -0}", "pred")),
                 "pred[5]", "{true, false, false, false, true}");
  EXPECT_LITERAL(
      RunOk(UnaryProgram("bf16", 2, "is-finite", "{inf, 3}", "pred")),
      "pred[2]", "{false, true}");
}

// ---- Compare
// ------------------------------------------------------------------

TEST(ElementwiseTest, CompareIEEE) {
  // NaN: EQ false, NE true, LT false; -0 == +0.
  const char* lhs = "{nan, nan, nan, -0, -inf}";
  const char* rhs = "{nan, 1, 1, 0, 1}";
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 5, "compare", lhs, rhs, "pred",
                                     ", direction=EQ")),
                 "pred[5]", "{false, false, false, true, false}");
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 5, "compare", lhs, rhs, "pred",
                                     ", direction=NE")),
                 "pred[5]", "{true, true, true, false, true}");
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 5, "compare", lhs, rhs, "pred",
                                     ", direction=LT")),
                 "pred[5]", "{false, false, false, false, true}");
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 5, "compare", lhs, rhs, "pred",
                                     ", direction=GE")),
                 "pred[5]", "{false, false, false, true, false}");
}

TEST(ElementwiseTest, CompareTotalOrder) {
  // totalOrder: -NaN < -inf < -0 < +0 < inf < +NaN.
  // -0 LT 0: true; nan GT inf: true; -nan LT -inf: true; nan EQ nan: true.
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 4, "compare", "{-0, nan, -nan, 1}",
                                     "{0, inf, -inf, 1}", "pred",
                                     ", direction=LT, type=TOTALORDER")),
                 "pred[4]", "{true, false, true, false}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("f32", 3, "compare", "{nan, -0, 2}", "{nan, 0, 2}",
                          "pred", ", direction=EQ, type=TOTALORDER")),
      "pred[3]", "{true, false, true}");
}

TEST(ElementwiseTest, CompareIntegersSignedAndUnsigned) {
  // s32: -1 < 1. u32: 4294967295 > 1.
  EXPECT_LITERAL(RunOk(BinaryProgram("s32", 1, "compare", "{-1}", "{1}", "pred",
                                     ", direction=LT")),
                 "pred[1]", "{true}");
  EXPECT_LITERAL(RunOk(BinaryProgram("u32", 1, "compare", "{4294967295}", "{1}",
                                     "pred", ", direction=GT")),
                 "pred[1]", "{true}");
}

// ---- Clamp, select (seed 004)
// -------------------------------------------------

TEST(ElementwiseTest, ClampSeedExample) {
  // Seed 004: operand {-1, 5, 9}, min 0, max 6 -> {0, 5, 6}, written as
  // today's clamp(min, operand, max) (SEMANTICS.md).
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  lo = s32[] constant(0)
  x = s32[3] constant({-1, 5, 9})
  hi = s32[] constant(6)
  ROOT r = s32[3] clamp(lo, x, hi)
})"),
                 "s32[3]", "{0, 5, 6}");
}

TEST(ElementwiseTest, ClampArraysAndNaN) {
  // Elementwise bounds: clamp(1, 0, 2) = 1, clamp(1, 5, 2) = 2,
  // clamp(1, nan, 2) = nan.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  lo = f32[3] constant({1, 1, 1})
  x = f32[3] constant({0, 5, nan})
  hi = f32[3] constant({2, 2, 2})
  ROOT r = f32[3] clamp(lo, x, hi)
})");
  EXPECT_EQ(r.GetAsDouble({0}), 1.0);
  EXPECT_EQ(r.GetAsDouble({1}), 2.0);
  EXPECT_TRUE(std::isnan(r.GetAsDouble({2})));
}

TEST(ElementwiseTest, SelectSeedExamples) {
  // Seed 004: pred {true, false, false, true}, v1 {1,2,3,4},
  // v2 {100,200,300,400} -> {1, 200, 300, 4}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  p = pred[4] constant({true, false, false, true})
  a = s32[4] constant({1, 2, 3, 4})
  b = s32[4] constant({100, 200, 300, 400})
  ROOT r = s32[4] select(p, a, b)
})"),
                 "s32[4]", "{1, 200, 300, 4}");
  // Scalar pred true picks all of v1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  p = pred[] constant(true)
  a = s32[4] constant({1, 2, 3, 4})
  b = s32[4] constant({100, 200, 300, 400})
  ROOT r = s32[4] select(p, a, b)
})"),
                 "s32[4]", "{1, 2, 3, 4}");
}

// ---- Convert
// ------------------------------------------------------------------

TEST(ElementwiseTest, ConvertSeedExample) {
  // Seed 004: s32 {0, 1, 2} -> f32 {0.0, 1.0, 2.0}.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 3, "convert", "{0, 1, 2}", "f32")),
                 "f32[3]", "{0, 1, 2}");
}

TEST(ElementwiseTest, ConvertFloatToIntTruncatesAndSaturates) {
  // 2.7 -> 2, -2.7 -> -2 (toward zero); NaN -> 0; 1e10 -> INT_MAX;
  // -1e10 -> INT_MIN; inf -> INT_MAX; -0.9 -> 0.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f32", 7, "convert",
                         "{2.7, -2.7, nan, 1e10, -1e10, inf, -0.9}", "s32")),
      "s32[7]", "{2, -2, 0, 2147483647, -2147483648, 2147483647, 0}");
  // u8: -5 -> 0, 300 -> 255, 255.9 -> 255.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f32", 3, "convert", "{-5, 300, 255.9}", "u8")),
      "u8[3]", "{0, 255, 255}");
  // s64: 9.3e18 > 2^63 -> INT64_MAX; -9.3e18 -> INT64_MIN.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f64", 2, "convert", "{9.3e18, -9.3e18}", "s64")),
      "s64[2]", "{9223372036854775807, -9223372036854775808}");
  // f16 -> s8: 200 -> 127, -65504 -> -128.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f16", 2, "convert", "{200, -65504}", "s8")), "s8[2]",
      "{127, -128}");
}

TEST(ElementwiseTest, ConvertIntToFloatRoundsToNearestEven) {
  // f32 has 24 significant bits: 16777217 = 2^24 + 1 is a tie -> 16777216
  // (even); 16777219 = 2^24 + 3 is a tie between 16777218 (odd) and
  // 16777220 (even) -> 16777220.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("s32", 2, "convert", "{16777217, 16777219}", "f32")),
      "f32[2]", "{16777216, 16777220}");
  // f16 has 11 significant bits: 2049 is a tie -> 2048; 2051 -> 2052;
  // 65520 -> inf; -70000 -> -inf.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 4, "convert",
                                    "{2049, 2051, 65520, -70000}", "f16")),
                 "f16[4]", "{2048, 2052, inf, -inf}");
}

TEST(ElementwiseTest, ConvertInt64ToBFloat16RoundsOnce) {
  // x = 2^60 + 2^52 + 1. bf16 keeps 8 significant bits, so the candidates
  // are 2^60 and 2^60 + 2^53; x is just above their midpoint 2^60 + 2^52,
  // so x -> 2^60 + 2^53 = 1161928703861587968. Going through double would
  // first round x to 2^60 + 2^52 (a tie) and then to 2^60: wrong.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("s64", 1, "convert", "{1157425104234217473}", "bf16")),
      "bf16[1]", "{1161928703861587968}");
}

TEST(ElementwiseTest, ConvertDoubleToHalfRoundsOnce) {
  // x = 1 + 2^-11 + 2^-40 is just above the f16 midpoint 1 + 2^-11 between
  // 1 and 1 + 2^-10, so it rounds up to 1.0009765625. Through f32 it would
  // become exactly 1 + 2^-11 and then round to even, 1.
  EXPECT_LITERAL(RunOk(UnaryProgram(
                     "f64", 1, "convert",
                     "{1.0004882812509094947017729282379150390625}", "f16")),
                 "f16[1]", "{1.0009765625}");
  // 0.1 -> nearest f16 is 1638/16384 = 0.0999755859375.
  EXPECT_LITERAL(RunOk(UnaryProgram("f64", 1, "convert", "{0.1}", "f16")),
                 "f16[1]", "{0.0999755859375}");
}

TEST(ElementwiseTest, ConvertPredAndComplex) {
  // To pred: x != 0 (NaN is true, -0 is false).
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f32", 4, "convert", "{nan, 0, -0, 0.5}", "pred")),
      "pred[4]", "{true, false, false, true}");
  EXPECT_LITERAL(
      RunOk(UnaryProgram("pred", 2, "convert", "{true, false}", "f32")),
      "f32[2]", "{1, 0}");
  // Real -> complex: imaginary part 0. Complex -> real keeps the real part.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 1, "convert", "{2.5}", "c64")),
                 "c64[1]", "{(2.5, 0)}");
  EXPECT_LITERAL(RunOk(UnaryProgram("c64", 1, "convert", "{(1.5, 7)}", "f64")),
                 "f64[1]", "{1.5}");
  // Integer narrowing wraps: 300 -> s8 44; -1 -> u32 4294967295.
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 1, "convert", "{300}", "s8")),
                 "s8[1]", "{44}");
  EXPECT_LITERAL(RunOk(UnaryProgram("s32", 1, "convert", "{-1}", "u32")),
                 "u32[1]", "{4294967295}");
}

TEST(ElementwiseTest, BitcastConvert) {
  // 1.0f = 0x3F800000 = 1065353216; -0.0f = 0x80000000 = INT_MIN.
  EXPECT_LITERAL(
      RunOk(UnaryProgram("f32", 2, "bitcast-convert", "{1, -0}", "s32")),
      "s32[2]", "{1065353216, -2147483648}");
  // Wider to narrower adds a minor dimension in memory order
  // (little-endian): 0x3F800000 -> u16 {0x0000, 0x3F80} = {0, 16256}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[1] constant({1})
  ROOT r = u16[1,2] bitcast-convert(a)
})"),
                 "u16[1,2]", "{ {0, 16256} }");
  // Narrower to wider consumes it: s32 {1, 2} -> s64 1 + 2*2^32.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({1, 2})
  ROOT r = s64[] bitcast-convert(a)
})"),
                 "s64[]", "8589934593");
}

// ---- Stochastic convert (XLA's evaluator; by hand)

TEST(ElementwiseTest, StochasticConvertF32ToS32) {
  // 2.25: fraction 0.25 -> 0.25 * 2^32 = 1073741824; random 1073741823 is
  // below it (up to 3), 1073741824 is not (down to 2). -2.75: fraction
  // 0.75 -> 3221225472; random 0 rounds |x| up (-3), 4294967295 down (-2).
  // 7 has no fraction (7 whatever the bits); NaN -> 0; +-inf and beyond the
  // range saturate; -0.5 with random 0 rounds to -1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[11] constant({2.25, 2.25, -2.75, -2.75, 7, nan, inf, -inf, 3e9, -3e9, -0.5})
  r = u32[11] constant({1073741823, 1073741824, 0, 4294967295, 0, 0, 0, 0, 0, 0, 0})
  ROOT s = s32[11] stochastic-convert(x, r)
})"),
                 "s32[11]",
                 "{3, 2, -3, -2, 7, 0, 2147483647, -2147483648, 2147483647, "
                 "-2147483648, -1}");
}

TEST(ElementwiseTest, StochasticConvertF16ToS8AndF64ToS64) {
  // f16 100.5: fraction 0.5 -> 0.5 * 2^16 = 32768; random 32767 -> 101,
  // 32768 -> 100. -127.5 rounds up to -128 (random 0) or down to -127;
  // 127.5 >= 127 saturates; -130 <= -128 saturates.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f16[6] constant({100.5, 100.5, -127.5, -127.5, 127.5, -130})
  r = u16[6] constant({32767, 32768, 0, 65535, 0, 0})
  ROOT s = s8[6] stochastic-convert(x, r)
})"),
                 "s8[6]", "{101, 100, -128, -127, 127, -128}");
  // f64 0.5 with 64 random bits: 0.5 * 2^64 = 2^63 = 9223372036854775808;
  // random 2^63 - 1 -> 1, 2^63 -> 0. 1e19 saturates.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f64[3] constant({0.5, 0.5, 1e19})
  r = u64[3] constant({9223372036854775807, 9223372036854775808, 0})
  ROOT s = s64[3] stochastic-convert(x, r)
})"),
                 "s64[3]", "{1, 0, 9223372036854775807}");
}

TEST(ElementwiseTest, StochasticConvertToUnsignedIsUnimplemented) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  x = f32[1] constant({1.5})
  b = u32[1] constant({0})
  ROOT s = u32[1] stochastic-convert(x, b)
})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "stochastic-convert %s"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "f32 to u32"))
      << r.status();
}

// ---- Reduce-precision
// ---------------------------------------------------------

TEST(ElementwiseTest, ReducePrecisionToHalfFormat) {
  // exponent_bits=5, mantissa_bits=10 (the f16 format) applied to f32:
  //   1 + 2^-11 (tie) -> 1; 1 + 3*2^-11 (tie) -> 1 + 2^-9 = 1.001953125;
  //   65520 rounds to 65536 = 2^16, above the max exponent -> inf;
  //   65504 kept; 2^-15 = 3.0517578125e-05 is below the smallest normal
  //   2^-14 -> 0 (numpy's float16 would keep a subnormal);
  //   -2^-15 -> -0; 2^-14 = 6.103515625e-05 kept;
  //   (1 - 2^-12) * 2^-14 rounds up to 2^-14 first, so it is kept.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f32[8] constant({1.00048828125, 1.00146484375, 65520, 65504, 3.0517578125e-05, -3.0517578125e-05, 6.103515625e-05, 6.1020255088806152e-05})
  ROOT r = f32[8] reduce-precision(a), exponent_bits=5, mantissa_bits=10
})");
  EXPECT_LITERAL(r, "f32[8]",
                 "{1, 1.001953125, inf, 65504, 0, -0, 6.103515625e-05, "
                 "6.103515625e-05}");
}

TEST(ElementwiseTest, ReducePrecisionKeepsNaNAndBf16Format) {
  // NaN stays NaN; bf16 format (8, 7): 1 + 2^-8 (tie) -> 1,
  // 1 + 3*2^-8 (tie between 1 + 2^-7, odd, and 1 + 2^-6) -> 1.015625.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f32[3] constant({nan, 1.00390625, 1.01171875})
  ROOT r = f32[3] reduce-precision(a), exponent_bits=8, mantissa_bits=7
})");
  EXPECT_TRUE(std::isnan(r.GetAsDouble({0})));
  EXPECT_EQ(r.GetAsDouble({1}), 1.0);
  EXPECT_EQ(r.GetAsDouble({2}), 1.015625);
  // On f16 with its own format it is the identity, subnormals included:
  // 2^-24 (the smallest f16 subnormal) stays.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f16[2] constant({5.9604644775390625e-08, 3})
  ROOT r = f16[2] reduce-precision(a), exponent_bits=5, mantissa_bits=10
})"),
                 "f16[2]", "{5.9604644775390625e-08, 3}");
}

// ---- Complex
// ------------------------------------------------------------------

TEST(ElementwiseTest, ComplexArithmetic) {
  // complex(1, 2); (1+2i)(3+4i) = 3 + 4i + 6i - 8 = -5 + 10i;
  // (-5+10i)/(3+4i) = 1 + 2i; |3+4i| = 5; real/imag.
  EXPECT_LITERAL(RunOk(BinaryProgram("f32", 1, "complex", "{1}", "{2}", "c64")),
                 "c64[1]", "{(1, 2)}");
  EXPECT_LITERAL(
      RunOk(BinaryProgram("c64", 1, "multiply", "{(1, 2)}", "{(3, 4)}")),
      "c64[1]", "{(-5, 10)}");
  EXPECT_LITERAL_NEAR(
      RunOk(BinaryProgram("c128", 1, "divide", "{(-5, 10)}", "{(3, 4)}")),
      "c128[1]", "{(1, 2)}", 1e-15);
  EXPECT_LITERAL(RunOk(UnaryProgram("c64", 1, "abs", "{(3, 4)}", "f32")),
                 "f32[1]", "{5}");
  EXPECT_LITERAL(RunOk(UnaryProgram("c64", 1, "real", "{(3, 4)}", "f32")),
                 "f32[1]", "{3}");
  EXPECT_LITERAL(RunOk(UnaryProgram("c64", 1, "imag", "{(3, 4)}", "f32")),
                 "f32[1]", "{4}");
  // exp(i pi) = -1 + 0i (up to rounding); sqrt(-4) = 2i.
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("c128", 2, "exponential",
                                         "{(0, 3.141592653589793), (0, 0)}")),
                      "c128[2]", "{(-1, 0), (1, 0)}", 1e-15);
  EXPECT_LITERAL_NEAR(RunOk(UnaryProgram("c128", 1, "sqrt", "{(-4, 0)}")),
                      "c128[1]", "{(0, 2)}", 1e-15);
  // compare EQ/NE on complex.
  EXPECT_LITERAL(
      RunOk(BinaryProgram("c64", 2, "compare", "{(1, 2), (1, 2)}",
                          "{(1, 2), (1, 3)}", "pred", ", direction=EQ")),
      "pred[2]", "{true, false}");
}

// ---- Map --------------------------------------------------------------------

TEST(ElementwiseTest, MapAppliesScalarComputation) {
  // f(x, y) = x * 2 + y on {1,2,3}, {10,20,30} -> {12, 24, 36}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
f {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  two = s32[] constant(2)
  t = s32[] multiply(x, two)
  ROOT r = s32[] add(t, y)
}
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  b = s32[3] constant({10, 20, 30})
  ROOT r = s32[3] map(a, b), dimensions={0}, to_apply=f
})"),
                 "s32[3]", "{12, 24, 36}");
}

TEST(ElementwiseTest, MapWithNonScalarInsideUsesInterpreter) {
  // The mapped function builds a vector internally (not compilable to the
  // scalar fast path): f(x) = reduce(broadcast(x, [3]), add) = 3x, and
  // converts to f32. {1, 2} -> {3, 6}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] add(a, b)
}
f {
  x = s32[] parameter(0)
  v = s32[3] broadcast(x), dimensions={}
  z = s32[] constant(0)
  s = s32[] reduce(v, z), dimensions={0}, to_apply=add
  ROOT r = f32[] convert(s)
}
ENTRY e {
  a = s32[2] constant({1, 2})
  ROOT r = f32[2] map(a), dimensions={0}, to_apply=f
})"),
                 "f32[2]", "{3, 6}");
}

TEST(ElementwiseTest, ZeroElementArrays) {
  // Elementwise ops on f32[0] and f32[2,0] produce empty results.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,0] parameter(0)
  ROOT r = f32[2,0] add(a, a)
})",
                       {L("f32[2,0]", "{ {}, {} }")}),
                 "f32[2,0]", "{ {}, {} }");
}

TEST(ElementwiseTest, LargeElementwiseChain) {
  // 1000 elements through add/multiply: x*x + x for x = iota.
  // Element 999: 999*999 + 999 = 999000.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  i = s32[1000] iota(), iota_dimension=0
  m = s32[1000] multiply(i, i)
  ROOT r = s32[1000] add(m, i)
})");
  EXPECT_EQ(r.GetAsInt64({999}), 999000);
  EXPECT_EQ(r.GetAsInt64({10}), 110);
}

TEST(ElementwiseTest, ConvertFloatToBFloat16RoundsToNearestEven) {
  // bf16 keeps 8 significant bits: 1 + 2^-8 is a tie -> 1;
  // 1 + 3*2^-8 is a tie -> 1 + 2^-6 (even); 1 + 2^-8 + 2^-20 -> 1 + 2^-7;
  // 3.4e38 > bf16 max (3.3895e38) rounds to inf.
  EXPECT_LITERAL(RunOk(UnaryProgram("f32", 4, "convert",
                                    "{1.00390625, 1.01171875, "
                                    "1.00390720367431640625, 3.4e38}",
                                    "bf16")),
                 "bf16[4]", "{1, 1.015625, 1.0078125, inf}");
}

}  // namespace
}  // namespace plexa::eval_test
