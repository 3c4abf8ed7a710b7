#include "plugins/vulkan/glsl_prelude.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "plugins/vulkan/glsl_f64_math.h"

namespace plexa::vulkan {
namespace {

// f16/bf16 <-> f32 bits, round to nearest even; NaN stays NaN (quiet).
constexpr const char kHalf[] = R"(
float h2f(uint h) {
  uint s = (h & 0x8000u) << 16;
  uint e = (h >> 10) & 0x1Fu;
  uint m = h & 0x3FFu;
  if (e == 0u) return uintBitsToFloat(s | floatBitsToUint(float(m) * 5.9604644775390625e-8));
  if (e == 31u) return uintBitsToFloat(s | 0x7F800000u | (m << 13));
  return uintBitsToFloat(s | ((e + 112u) << 23) | (m << 13));
}
uint f2h(float f) {
  uint x = floatBitsToUint(f);
  uint s = (x >> 16) & 0x8000u;
  uint e = (x >> 23) & 0xFFu;
  uint m = x & 0x7FFFFFu;
  if (e == 0xFFu) return s | 0x7C00u | (m != 0u ? (0x200u | (m >> 13)) : 0u);
  int ue = int(e) - 112;
  if (ue >= 31) return s | 0x7C00u;
  if (ue <= 0) {
    if (ue < -10) return s;
    m |= 0x800000u;
    uint shift = uint(14 - ue);
    uint hm = m >> shift;
    uint rem = m & ((1u << shift) - 1u);
    uint half_ulp = 1u << (shift - 1u);
    if (rem > half_ulp || (rem == half_ulp && (hm & 1u) != 0u)) hm++;
    return s | hm;
  }
  uint h = s | (uint(ue) << 10) | (m >> 13);
  uint rem = m & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u) != 0u)) h++;
  return h;
}
uint f2bf(float f) {
  uint x = floatBitsToUint(f);
  if (isnan(f)) return (x >> 16) | 0x40u;
  return (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
}
float rf16(float f) { return h2f(f2h(f)); }
float rbf16(float f) { return uintBitsToFloat(f2bf(f) << 16); }
)";

// Float helpers, written for T = float and (with f64) T = double.
constexpr const char kFloat[] = R"(
T fnan(T x) { return T(uintBitsToFloat(0x7FC00000u)); }
T finf(T x) { return T(uintBitsToFloat(0x7F800000u)); }
T fmaxn(T a, T b) { return isnan(a) ? a : (isnan(b) ? b : (a < b ? b : a)); }
T fminn(T a, T b) { return isnan(a) ? a : (isnan(b) ? b : (b < a ? b : a)); }
T fclamp(T lo, T x, T hi) {
  if (isnan(lo)) return lo;
  if (isnan(x)) return x;
  if (isnan(hi)) return hi;
  return fminn(hi, fmaxn(x, lo));
}
T fsign(T x) { return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x); }
T round_afz(T x) {
  T t = trunc(x);
  return abs(x - t) >= T(0.5) ? t + sign(x) : t;
}
T fsqrt(T x) { return x < T(0) ? fnan(x) : sqrt(x); }
)";

// The f32 functions (exp and tanh as the CPU code generator computes them).
constexpr const char kF32[] = R"(
int ftotal(float x) { int k = floatBitsToInt(x); return k ^ int(uint(k >> 31) >> 1); }
float xexp(float x) {
  if (isnan(x)) return x;
  if (x > 88.72283935546875) return finf(x);
  float xc = max(x, -104.0);
  float n = roundEven(xc * 1.44269504088896341);
  float r = xc - n * 0.693359375;
  r = r - n * -2.12194440e-4;
  float p = 1.9875691500e-4;
  p = p * r + 1.3981999507e-3;
  p = p * r + 8.3334519073e-3;
  p = p * r + 4.1665795894e-2;
  p = p * r + 1.6666665459e-1;
  p = p * r + 5.0000001201e-1;
  float y = p * r * r + r + 1.0;
  int ni = int(n);
  int n1 = ni >> 1;
  int n2 = ni - n1;
  y = y * intBitsToFloat((n1 + 127) << 23);
  return y * intBitsToFloat((n2 + 127) << 23);
}
float xtanh(float x) {
  if (isnan(x)) return x;
  if (abs(x) < 0.0004) return x;
  float xc = clamp(x, -7.90531110763549805, 7.90531110763549805);
  float x2 = xc * xc;
  float p = -2.76076847742355e-16;
  p = p * x2 + 2.00018790482477e-13;
  p = p * x2 + -8.60467152213735e-11;
  p = p * x2 + 5.12229709037114e-08;
  p = p * x2 + 1.48572235717979e-05;
  p = p * x2 + 6.37261928875436e-04;
  p = p * x2 + 4.89352455891786e-03;
  p = p * xc;
  float q = 1.19825839466702e-06;
  q = q * x2 + 1.18534705686654e-04;
  q = q * x2 + 2.26843463243900e-03;
  q = q * x2 + 4.89352518554385e-03;
  return p / q;
}
float xlog(float x) {
  if (isnan(x)) return x;
  if (x < 0.0) return fnan(x);
  if (x == 0.0) return -finf(x);
  if (isinf(x)) return x;
  return log(x);
}
float xexpm1(float x) {
  if (isnan(x)) return x;
  // Below ln 2 / 2 its Taylor series to degree 8 (exp(x) - 1 cancels
  // there, and Kahan's (u - 1) x / log(u) leans on the device's log, which
  // Vulkan lets be 2^-21 off near 1: expm1(-0.0015) was 2e-5 off).
  if (abs(x) < 0.34657359) {
    float p = 1.0 / 40320.0;
    p = p * x + 1.0 / 5040.0;
    p = p * x + 1.0 / 720.0;
    p = p * x + 1.0 / 120.0;
    p = p * x + 1.0 / 24.0;
    p = p * x + 1.0 / 6.0;
    p = p * x + 0.5;
    p = p * x + 1.0;
    return x * p;
  }
  float u = xexp(x);
  if (isinf(u)) return u;
  return u - 1.0;
}
float xlog1p(float x) {
  if (isnan(x)) return x;
  if (x < -1.0) return fnan(x);
  if (x == -1.0) return -finf(x);
  if (isinf(x)) return x;
  // Where 1 + x is in [sqrt(1/2), sqrt(2)]: 2 atanh(x / (2 + x)) by its
  // series (the device's log is loose around 1, and Goldberg's
  // log(u) * x / (u - 1) does not survive the shader compiler, which folds
  // (1 + x) - 1 to x).
  if (x > -0.29289322 && x < 0.41421356) {
    float s = x / (2.0 + x);
    float z = s * s;
    float p = z * (1.0 / 3.0 + z * (0.2 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z / 11.0))));
    return 2.0 * s + 2.0 * s * p;
  }
  return log(1.0 + x);
}
// erf for f32: XLA's and Eigen's rational approximation on [-4, 4]
// (erf rounds to ±1 beyond).
float xerf(float x) {
  if (isnan(x)) return x;
  float xc = clamp(x, -4.0, 4.0);
  float x2 = xc * xc;
  float p = -2.72614225801306e-10;
  p = p * x2 + 2.77068142495902e-08;
  p = p * x2 + -2.10102402082508e-06;
  p = p * x2 + -5.69250639462346e-05;
  p = p * x2 + -7.34990630326855e-04;
  p = p * x2 + -2.95459980854025e-03;
  p = p * x2 + -1.60960333262415e-02;
  float q = -1.45660718464996e-05;
  q = q * x2 + -2.13374055278905e-04;
  q = q * x2 + -1.68282697438203e-03;
  q = q * x2 + -7.37332916720468e-03;
  q = q * x2 + -1.42647390514189e-02;
  return xc * p / q;
}
// sin, cos and tan with the argument reduced exactly (Payne-Hanek):
// GLSL's sin and cos are accurate only near [-pi, pi] (lavapipe's sin of
// 7e18 is off in every digit). x = (q + f) * pi/2 with |f| <= 1/2 comes
// from x's 24-bit mantissa times 192 bits of 2/pi in 32-bit pieces
// (umulExtended), so no shaderInt64 is needed; then sin/cos of f * pi/2.
const uint kTwoOverPi[6] = uint[6](0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u,
                                    0xF534DDC0u, 0xDB629599u, 0x3C439041u);
uint xword(uint t[7], int i) { return i >= 0 && i <= 6 ? t[6 - i] : 0u; }
// Bits pos+31..pos of t (bit 0 is t[6]'s lowest).
uint xbits(uint t[7], int pos) {
  int w = pos >> 5, b = pos & 31;
  if (b == 0) return xword(t, w);
  return (xword(t, w) >> uint(b)) | (xword(t, w + 1) << uint(32 - b));
}
float xreduce(float x, out int q) {
  float ax = abs(x);
  q = 0;
  if (ax <= 0.785398163) return x;
  // (not x - x: the compiler may fold that to 0)
  if (isinf(x) || isnan(x)) return uintBitsToFloat(0x7fc00000u);
  uint ia = floatBitsToUint(ax);
  int e = int(ia >> 23) - 127;
  uint m = (ia << 8) | 0x80000000u;  // ax = m * 2^(e - 31)
  uint t[7];
  uint carry = 0u;
  for (int j = 5; j >= 0; --j) {
    uint hi, lo, c;
    umulExtended(m, kTwoOverPi[j], hi, lo);
    t[j + 1] = uaddCarry(lo, carry, c);
    carry = hi + c;
  }
  t[0] = carry;
  // ax * 2/pi * 2^192 = t * 2^(e - 31): the binary point is at bit p.
  int p = 192 - (e - 31);
  uint qb = xbits(t, p) & 3u;
  uint fhi = xbits(t, p - 32), flo = xbits(t, p - 64);
  float sign = 1.0;
  if ((fhi & 0x80000000u) != 0u) {  // f >= 1/2: the next quadrant, f - 1
    qb += 1u;
    flo = ~flo + 1u;
    fhi = ~fhi + (flo == 0u ? 1u : 0u);
    sign = -1.0;
  }
  float r = sign * (float(fhi) * 2.3283064365386963e-10 +
                    float(flo) * 5.421010862427522e-20) * 1.57079632679;
  q = int(qb & 3u);
  if (x < 0.0) {
    q = (4 - q) & 3;
    r = -r;
  }
  return r;
}
float xsin(float x) {
  int q;
  float r = xreduce(x, q);
  float s = sin(r), c = cos(r);
  return q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
}
float xcos(float x) {
  int q;
  float r = xreduce(x, q);
  float s = sin(r), c = cos(r);
  return q == 0 ? c : q == 1 ? -s : q == 2 ? -c : s;
}
float xtan(float x) {
  int q;
  float r = xreduce(x, q);
  return (q & 1) == 0 ? sin(r) / cos(r) : -cos(r) / sin(r);
}
float xcbrt(float x) {
  if (x == 0.0 || isinf(x) || isnan(x)) return x;
  float a = abs(x);
  float y = exp2(log2(a) / 3.0);
  y = y - (y * y * y - a) / (3.0 * y * y);
  return x < 0.0 ? -y : y;
}
// atan to about 1 ulp, relative precision kept for small arguments
// (Cephes' atanf: reduced by tan(pi/8) and tan(3pi/8), then a polynomial).
float xatanf(float t) {
  float a = abs(t), y0 = 0.0;
  if (a > 2.414213562373095) {
    y0 = 1.5707963267948966;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    y0 = 0.7853981633974483;
    a = (a - 1.0) / (a + 1.0);
  }
  float z = a * a;
  float p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z +
              1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a;
  float r = y0 + p;
  return t < 0.0 ? -r : r;
}
float xatan2(float y, float x) {
  if (isnan(x) || isnan(y)) return x + y;
  const float pi = 3.14159265358979323846;
  if (y == 0.0) {
    bool xneg = x < 0.0 || (x == 0.0 && floatBitsToInt(x) < 0);
    float r = xneg ? pi : 0.0;
    return floatBitsToInt(y) < 0 ? -r : r;
  }
  if (isinf(x) && isinf(y)) {
    float r = x > 0.0 ? 0.25 * pi : 0.75 * pi;
    return y < 0.0 ? -r : r;
  }
  // atan of the ratio, moved to x's half plane (GLSL's atan(y, x) loses
  // the relative precision of small angles: 2e-5 at y/x = 3e-20).
  if (x == 0.0) return y < 0.0 ? -0.5 * pi : 0.5 * pi;
  float a = xatanf(y / x);
  if (x > 0.0) return a;
  return y < 0.0 ? a - pi : a + pi;
}
float xpow(float a, float b) {
  if (a == 1.0 || b == 0.0) return 1.0;
  if (isnan(a) || isnan(b)) return a + b;
  float ab = abs(a);
  bool b_int = floor(b) == b;
  bool b_odd = b_int && abs(b) < 16777216.0 && (int(abs(b)) & 1) == 1;
  if (isinf(b)) {
    if (ab == 1.0) return 1.0;
    return ((ab > 1.0) == (b > 0.0)) ? finf(a) : 0.0;
  }
  if (a < 0.0 && !b_int) return fnan(a);
  float r;
  if (ab == 0.0) r = b > 0.0 ? 0.0 : finf(a);
  else if (isinf(ab)) r = b > 0.0 ? finf(a) : 0.0;
  else r = exp2(b * log2(ab));
  return (floatBitsToInt(a) < 0 && b_odd) ? -r : r;
}
)";

// The floating-point remainder (C's fmod), exact: the significands as
// integers, shifted and subtracted once per binade between the operands
// (at most 277 steps for float, 2,098 for double), as long division does
// by hand. Written for T with its unsigned integer type U, MB significand
// bits, BITS/FROM its bit casts. (The f32 one computed a double quotient
// before: wrong once a / b passed 2^53.)
constexpr const char kRem[] = R"(
T xrem(T a, T b) {
  if (isnan(a) || isnan(b) || isinf(a) || b == T(0)) return fnan(a);
  T x = abs(a), y = abs(b);
  if (isinf(b) || x < y) return a;
  U mx = BITS(x), my = BITS(y);
  int ex = int(mx >> MB), ey = int(my >> MB);
  U lead = U(1) << MB;
  mx &= lead - U(1);
  my &= lead - U(1);
  if (ex == 0) { ex = 1; while (mx < lead) { mx <<= 1; --ex; } } else mx |= lead;
  if (ey == 0) { ey = 1; while (my < lead) { my <<= 1; --ey; } } else my |= lead;
  for (; ex > ey; --ex) {
    if (mx >= my) mx -= my;
    mx <<= 1;
  }
  if (mx >= my) mx -= my;
  if (mx == U(0)) return a < T(0) ? -T(0) : T(0);
  while (mx < lead) { mx <<= 1; --ex; }
  U r = ex > 0 ? ((mx & (lead - U(1))) | (U(ex) << MB)) : (mx >> uint(1 - ex));
  T res = FROM(r);
  return a < T(0) ? -res : res;
}
)";

constexpr const char kF64[] = R"(
// f64 -> f32 rounding to odd: rounding that on to f16/bf16 then rounds
// once (no double rounding).
float f64_to_f32_odd(double x) {
  float f = float(x);
  if (isnan(x) || double(f) == x) return f;
  uint b = floatBitsToUint(f);
  if (abs(double(f)) > abs(x)) b -= 1u;
  return uintBitsToFloat(b | 1u);
}
int64_t ftotal(double x) {
  int64_t k = int64_t(pack64(unpackDouble2x32(x)));
  return k ^ int64_t(uint64_t(k >> 63) >> 1);
}
)";

std::string D(double v) { return GlslDouble(v); }

// f64 exp, log, expm1, log1p, tanh and logistic: GLSL has no double
// transcendentals, so these are computed with double arithmetic (Vulkan's
// shaderFloat64 makes +, -, *, / and fma correctly rounded). exp: n =
// round(x / ln 2), r = x - n ln 2 in two fma steps (|r| <= ln2 / 2), exp(r)
// by its Taylor series to degree 13 (the next term is below 2^-60 of the
// result), scaled by 2^n in two factors (2^n alone may not be a normal
// double). log: x = m 2^e with m in [sqrt(1/2), sqrt(2)) from the bits
// (subnormals scaled by 2^54 first), log m = 2 atanh(s), s = (m - 1) / (m +
// 1), by its series to s^23 (|s| <= 0.172). expm1: its series near 0, else
// exp(x) - 1 (no cancellation beyond a factor 3.4 there). log1p: the same
// atanh series on x / (2 + x) where 1 + x is in [sqrt(1/2), sqrt(2)], else
// log(1 + x). tanh from expm1(2|x|).
// Each is within a few ulps of the C library's (the tests check 4 ulps).
std::string F64Math() {
  std::string exp_poly, expm1_poly, atanh_poly;
  // exp(r) = sum_{k=0}^{13} r^k / k!, Horner from the top.
  double fact[20];
  fact[0] = 1;
  for (int k = 1; k < 20; ++k) fact[k] = fact[k - 1] * k;
  exp_poly = absl::StrCat("  double p = ", D(1 / fact[13]), ";\n");
  for (int k = 12; k >= 0; --k) {
    absl::StrAppend(&exp_poly, "  p = fma(p, r, ", D(1 / fact[k]), ");\n");
  }
  // expm1(x) = x * sum_{k=0}^{15} x^k / (k+1)!.
  expm1_poly = absl::StrCat("  double p = ", D(1 / fact[16]), ";\n");
  for (int k = 14; k >= 0; --k) {
    absl::StrAppend(&expm1_poly, "  p = fma(p, x, ", D(1 / fact[k + 1]),
                    ");\n");
  }
  // atanh(s) / s - 1 = sum_{k=1}^{11} z^k / (2k + 1), z = s^2.
  atanh_poly = absl::StrCat("  double p = ", D(1.0 / 23), ";\n");
  for (int k = 10; k >= 1; --k) {
    absl::StrAppend(&atanh_poly, "  p = fma(p, z, ", D(1.0 / (2 * k + 1)),
                    ");\n");
  }
  // ln 2 = kLn2Hi + kLn2Lo, kLn2Hi with 32 significant bits (n * kLn2Hi
  // is exact for |n| < 2^21).
  const double kLn2Hi = 6.93147180369123816490e-01;
  const double kLn2Lo = 1.90821492927058770002e-10;
  return absl::StrCat(
      "double dpow2(int k) { return packDouble2x32(uvec2(0u, uint(k + 1023) "
      "<< 20)); }\n",
      // x = m 2^e with m in [1, 2), for finite x > 0 (subnormals scaled by
      // 2^54 first).
      "double dmant(double x, out int e) {\n", "  e = 0;\n", "  if (x < ",
      D(2.2250738585072014e-308), ") { x *= ", D(18014398509481984.0),
      "; e = -54; }\n", "  uvec2 w = unpackDouble2x32(x);\n",
      "  e += int((w.y >> 20) & 0x7FFu) - 1023;\n",
      "  w.y = (w.y & 0x000FFFFFu) | 0x3FF00000u;\n",
      "  return packDouble2x32(w);\n", "}\n",
      // log(1 + f) = 2 atanh(s), s = f / (2 + f), for f in [sqrt(1/2) - 1,
      // sqrt(2) - 1] (|s| <= 0.172).
      "double dlog1p_near0(double f) {\n", "  double s = f / (2.0LF + f);\n",
      "  double z = s * s;\n", atanh_poly,
      "  return fma(2.0LF * s, z * p, 2.0LF * s);\n", "}\n",
      // exp(x + lo) for |lo| <= ulp(x) (pow's double-double argument).
      "double dexp_dd(double x, double lo) {\n", "  if (isnan(x)) return x;\n",
      "  if (x > ", D(709.782712893384), ") return finf(x);\n", "  if (x < ",
      D(-745.2), ") return 0.0LF;\n", "  double n = roundEven(x * ",
      D(1.4426950408889634), ");\n", "  double r = fma(-n, ", D(kLn2Hi),
      ", x);\n", "  r = fma(-n, ", D(kLn2Lo), ", r) + lo;\n", exp_poly,
      "  int ni = int(n);\n", "  int n1 = ni >> 1;\n",
      "  return (p * dpow2(n1)) * dpow2(ni - n1);\n", "}\n",
      "double xexp(double x) { return dexp_dd(x, 0.0LF); }\n",
      "double xlog(double x) {\n", "  if (isnan(x)) return x;\n",
      "  if (x < 0.0LF) return fnan(x);\n",
      "  if (x == 0.0LF) return -finf(x);\n", "  if (isinf(x)) return x;\n",
      "  int e;\n", "  double m = dmant(x, e);\n", "  if (m > ",
      D(1.4142135623730951), ") { m *= 0.5LF; e += 1; }\n",
      "  double f = m - 1.0LF;\n", "  double de = double(e);\n",
      "  return fma(de, ", D(kLn2Hi), ", fma(de, ", D(kLn2Lo),
      ", dlog1p_near0(f)));\n", "}\n", "double xexpm1(double x) {\n",
      "  if (isnan(x)) return x;\n", "  if (x > ", D(709.782712893384),
      ") return finf(x);\n", "  if (x < -40.0LF) return -1.0LF;\n",
      "  if (abs(x) < ", D(0.34657359027997264), ") {\n", expm1_poly,
      "    return x * p;\n", "  }\n", "  return xexp(x) - 1.0LF;\n", "}\n",
      "double xlog1p(double x) {\n", "  if (isnan(x)) return x;\n",
      "  if (x < -1.0LF) return fnan(x);\n",
      "  if (x == -1.0LF) return -finf(x);\n", "  if (isinf(x)) return x;\n",
      // Near 0 without forming 1 + x (which loses x's low bits; and
      // compilers may fold Goldberg's x / ((1 + x) - 1) to 1).
      "  if (x > ", D(-0.29289321881345248), " && x < ", D(0.41421356237309503),
      ") return dlog1p_near0(x);\n", "  return xlog(1.0LF + x);\n", "}\n",
      "double xtanh(double x) {\n", "  if (isnan(x)) return x;\n",
      "  double a = abs(x);\n", "  double r = 1.0LF;\n",
      "  if (a < 22.0LF) { double t = xexpm1(2.0LF * a); r = t / (t + 2.0LF); "
      "}\n",
      "  return x < 0.0LF ? -r : (x == 0.0LF ? x : r);\n", "}\n",
      "double xlogistic(double x) {\n", "  if (isnan(x)) return x;\n",
      "  if (x >= 0.0LF) return 1.0LF / (1.0LF + xexp(-x));\n",
      "  double e = xexp(x);\n", "  return e / (1.0LF + e);\n", "}\n");
}

// sinh and cosh for T = float and double, after the T exp and expm1: sinh
// from expm1 below 1 (no cancellation), past BIG (where exp(|x|)
// overflows before sinh does) e^(|x|/2) squared in two factors.
constexpr const char kHyperbolic[] = R"(
T xsinh(T x) {
  T a = abs(x);
  T s;
  if (a < T(1)) { T t = xexpm1(a); s = T(0.5) * (t + t / (t + T(1))); }
  else if (a < BIG) { T e = xexp(a); s = T(0.5) * (e - T(1) / e); }
  else { T h = xexp(T(0.5) * a); s = (T(0.5) * h) * h; }
  return x < T(0) ? -s : (x == T(0) ? x : s);
}
T xcosh(T x) {
  T a = abs(x);
  if (a < BIG) { T e = xexp(a); return T(0.5) * (e + T(1) / e); }
  T h = xexp(T(0.5) * a);
  return (T(0.5) * h) * h;
}
)";

// The inverse functions for T = float and double, from atan2, log, log1p
// and sqrt: asin x = atan2(x, sqrt((1 - x)(1 + x))), acos x = atan2(sqrt((1
// - x)(1 + x)), x), atan x = atan2(x, 1); asinh from log1p below 1/2 and
// as log|x| + ln 2 where x^2 would overflow (past BIGSQ), acosh x =
// log1p((x - 1) + sqrt((x - 1)(x + 1))), atanh x = log1p(2x / (1 - x)) / 2.
// NaN and out-of-domain arguments come out NaN through sqrt and log1p.
constexpr const char kInverse[] = R"(
T xasin(T x) { return xatan2(x, fsqrt((T(1) - x) * (T(1) + x))); }
T xacos(T x) { return xatan2(fsqrt((T(1) - x) * (T(1) + x)), x); }
T xatan(T x) { return xatan2(x, T(1)); }
T xasinh(T x) {
  T a = abs(x);
  T r;
  if (a > BIGSQ) r = xlog(a) + LN2;
  else if (a < T(0.5)) { T a2 = a * a; r = xlog1p(a + a2 / (T(1) + fsqrt(T(1) + a2))); }
  else r = xlog(a + fsqrt(a * a + T(1)));
  return x < T(0) ? -r : (x == T(0) ? x : r);
}
T xacosh(T x) {
  if (x < T(1)) return fnan(x);
  if (x > BIGSQ) return xlog(x) + LN2;
  T t = x - T(1);
  return xlog1p(t + fsqrt(t * (x + T(1))));
}
T xatanh(T x) {
  T a = abs(x);
  T r = T(0.5) * xlog1p(T(2) * a / (T(1) - a));
  return x < T(0) ? -r : (x == T(0) ? x : r);
}
)";

// Integer helpers for signed S and unsigned U of width W (32 or 64); the
// narrow types compute in 32 bits and are wrapped by the caller.
constexpr const char kInt[] = R"(
S idiv(S a, S b) { return b == S(0) ? S(-1) : ((a == SMIN && b == S(-1)) ? SMIN : a / b); }
U idiv(U a, U b) { return b == U(0) ? ~U(0) : a / b; }
S irem(S a, S b) { return b == S(0) ? a : ((a == SMIN && b == S(-1)) ? S(0) : a - (a / b) * b); }
U irem(U a, U b) { return b == U(0) ? a : a % b; }
S ipow(S a, S e) {
  if (e < S(0)) return a == S(1) ? S(1) : S(0);
  U r = U(1), b = U(a), x = U(e);
  while (x != U(0)) {
    if ((x & U(1)) != U(0)) r *= b;
    x >>= 1;
    b *= b;
  }
  return S(r);
}
U ipow(U a, U e) {
  U r = U(1), b = a, x = e;
  while (x != U(0)) {
    if ((x & U(1)) != U(0)) r *= b;
    x >>= 1;
    b *= b;
  }
  return r;
}
// mulhi: the high half of the 2W-bit product, from W/2-bit pieces (GLSL's
// imulExtended has no 64-bit form); signed from unsigned by subtracting
// the other operand where one is negative.
U umulhi(U a, U b) {
  const int h = W / 2;
  U m = (U(1) << h) - U(1);
  U a0 = a & m, a1 = a >> h, b0 = b & m, b1 = b >> h;
  U p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  U mid = (p00 >> h) + (p01 & m) + (p10 & m);
  return p11 + (p01 >> h) + (p10 >> h) + (mid >> h);
}
U imulhi(U a, U b) { return umulhi(a, b); }
S imulhi(S a, S b) {
  U r = umulhi(U(a), U(b));
  if (a < S(0)) r -= U(b);
  if (b < S(0)) r -= U(a);
  return S(r);
}
S imax(S a, S b) { return a < b ? b : a; }
U imax(U a, U b) { return a < b ? b : a; }
S imin(S a, S b) { return b < a ? b : a; }
U imin(U a, U b) { return b < a ? b : a; }
U imask(int bits) { return bits >= W ? ~U(0) : ((U(1) << bits) - U(1)); }
S ishl(S a, S b, int bits) { return U(b) >= U(bits) ? S(0) : a << b; }
U ishl(U a, U b, int bits) { return b >= U(bits) ? U(0) : a << b; }
S ishrl(S a, S b, int bits) { return U(b) >= U(bits) ? S(0) : S((U(a) & imask(bits)) >> b); }
U ishrl(U a, U b, int bits) { return b >= U(bits) ? U(0) : a >> b; }
S ishra(S a, S b, int bits) { return U(b) >= U(bits) ? (a < S(0) ? S(-1) : S(0)) : a >> b; }
U ishra(U a, U b, int bits) {
  S sa = (S(a) << (W - bits)) >> (W - bits);
  return U(b >= U(bits) ? (sa < S(0) ? S(-1) : S(0)) : sa >> b);
}
)";

constexpr const char kBits32[] = R"(
int iclz(int a, int bits) { return (31 - findMSB(uint(a) & imask(bits))) - (32 - bits); }
int iclz(uint a, int bits) { return (31 - findMSB(a & imask(bits))) - (32 - bits); }
int ipopcnt(int a, int bits) { return bitCount(uint(a) & imask(bits)); }
int ipopcnt(uint a, int bits) { return bitCount(a & imask(bits)); }
)";

constexpr const char kBits64[] = R"(
int iclz(uint64_t a, int bits) {
  uvec2 p = unpack32(a);
  return p.y != 0u ? 31 - findMSB(p.y) : 63 - findMSB(p.x);
}
int iclz(int64_t a, int bits) { return iclz(uint64_t(a), bits); }
int ipopcnt(uint64_t a, int bits) { uvec2 p = unpack32(a); return bitCount(p.x) + bitCount(p.y); }
int ipopcnt(int64_t a, int bits) { return ipopcnt(uint64_t(a), bits); }
)";

std::string IntHelpers(bool wide) {
  return absl::StrReplaceAll(
      kInt,
      {{"SMIN", wide ? "int64_t(0x8000000000000000ul)" : "int(0x80000000u)"},
       {"S(", wide ? "int64_t(" : "int("},
       {"U(", wide ? "uint64_t(" : "uint("},
       {"S ", wide ? "int64_t " : "int "},
       {"U ", wide ? "uint64_t " : "uint "},
       {"imask", wide ? "imask64" : "imask"},
       {"W", wide ? "64" : "32"}});
}

}  // namespace

std::string GlslInverseFunctions(bool f64) {
  if (f64) {
    return absl::StrReplaceAll(kInverse, {{"T(", "double("},
                                          {"T ", "double "},
                                          {"BIGSQ", "1.0e150LF"},
                                          {"LN2", "0.6931471805599453LF"}});
  }
  return absl::StrReplaceAll(kInverse, {{"T(", "float("},
                                        {"T ", "float "},
                                        {"BIGSQ", "1.0e18"},
                                        {"LN2", "0.6931471805599453"}});
}

std::string GlslPrelude(bool f64, bool i64) {
  std::string out = kHalf;
  absl::StrAppend(
      &out, absl::StrReplaceAll(kFloat, {{"T(", "float("}, {"T ", "float "}}));
  if (f64) {
    absl::StrAppend(&out, absl::StrReplaceAll(
                              kFloat, {{"T(", "double("}, {"T ", "double "}}));
    absl::StrAppend(&out, kF64, F64Math());
    absl::StrAppend(
        &out, absl::StrReplaceAll(
                  kHyperbolic,
                  {{"T(", "double("}, {"T ", "double "}, {"BIG", "709.0LF"}}));
    absl::StrAppend(
        &out,
        "uint64_t dbits(double x) { return pack64(unpackDouble2x32(x)); }\n"
        "double dfrom(uint64_t b) { return packDouble2x32(unpack32(b)); }\n",
        absl::StrReplaceAll(kRem, {{"T(", "double("},
                                   {"T ", "double "},
                                   {"U(", "uint64_t("},
                                   {"U ", "uint64_t "},
                                   {"MB", "52u"},
                                   {"BITS", "dbits"},
                                   {"FROM", "dfrom"}}));
  }
  absl::StrAppend(&out, kF32);
  absl::StrAppend(&out, absl::StrReplaceAll(kHyperbolic, {{"T(", "float("},
                                                          {"T ", "float "},
                                                          {"BIG", "88.0"}}));
  absl::StrAppend(&out, GlslInverseFunctions(false));
  absl::StrAppend(&out,
                  absl::StrReplaceAll(kRem, {{"T(", "float("},
                                             {"T ", "float "},
                                             {"U(", "uint("},
                                             {"U ", "uint "},
                                             {"MB", "23u"},
                                             {"BITS", "floatBitsToUint"},
                                             {"FROM", "uintBitsToFloat"}}));
  absl::StrAppend(&out, IntHelpers(false), kBits32);
  if (i64) absl::StrAppend(&out, IntHelpers(true), kBits64);
  return out;
}

}  // namespace plexa::vulkan
