#include "plugins/vulkan/glsl_f64_math.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "plugins/vulkan/glsl_prelude.h"

namespace plexa::vulkan {
namespace {

// The tables below are computed here, when a shader is generated, in long
// double (x86's 64-bit significand) and split into a double and the double
// of what is left: about 64 correct bits, 10 more than a double holds.
constexpr long double kPiL = 3.141592653589793238462643383279502884L;

// A GLSL array of doubles.
std::string DoubleArray(const char* name, const std::vector<double>& v) {
  std::vector<std::string> items;
  items.reserve(v.size());
  for (double x : v) items.push_back(GlslDouble(x));
  return absl::StrCat("const double ", name, "[", v.size(), "] = double[](",
                      absl::StrJoin(items, ", "), ");\n");
}

// hi, lo with hi + lo = v to about 64 bits.
void Split(long double v, double* hi, double* lo) {
  *hi = static_cast<double>(v);
  *lo = static_cast<double>(v - *hi);
}

// Error-free sums and products: s + e = a + b exactly (Knuth's TwoSum),
// p + e = a b exactly (Dekker's product with Veltkamp's splitting into
// 26-bit halves; for |a|, |b| below 2^995). `precise` keeps the compiler
// from reassociating them to e = 0 (it does fold (1 + x) - 1 to x
// otherwise). Not fma(a, b, -p): Vulkan gives fma the precision of a
// multiply then an add, and lavapipe's double fma rounds twice (pow was
// 170 ulps off with it).
constexpr const char kErrorFree[] = R"(
dvec2 two_sum(double a, double b) {
  precise double s = a + b;
  precise double bb = s - a;
  precise double e = (a - (s - bb)) + (b - bb);
  return dvec2(s, e);
}
dvec2 two_prod(double a, double b) {
  precise double p = a * b;
  precise double ca = 134217729.0LF * a;
  precise double ah = ca - (ca - a);
  precise double al = a - ah;
  precise double cb = 134217729.0LF * b;
  precise double bh = cb - (cb - b);
  precise double bl = b - bh;
  precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return dvec2(p, e);
}
)";

// sin, cos and tan: |x| reduced to r + rl in [-pi/4, pi/4] and a quadrant
// q, then Taylor series of sin and cos on r with rl's first-order term.
// Reduction: |x| <= pi/4 as it is; below 1e5 Cody and Waite's with pi/2 in
// three parts of 33, 33 and 53 bits (k * the first two is exact for k <
// 2^20), about 119 bits of pi/2; above, Payne and Hanek's: the 53-bit
// significand times the 224 bits of 2/pi that matter for its exponent
// (bits above 4 are whole turns; 2/pi's first 1,280 bits are in the
// table), in 32-bit limbs, leaves 160 bits of fraction, enough for the
// closest a double comes to a multiple of pi/2 (about 2^-61 away).
constexpr const char kTrig[] = R"(
const uint PLX_2_OVER_PI[40] = uint[]($WORDS_OF_2PI);
uint dtrig_chunk(uint n[9], int pos) {
  int li = pos >> 5;
  int sh = pos & 31;
  uint lo = (li >= 0 && li < 9) ? n[li] : 0u;
  uint hi = (li + 1 >= 0 && li + 1 < 9) ? n[li + 1] : 0u;
  return sh == 0 ? lo : ((lo >> uint(sh)) | (hi << uint(32 - sh)));
}
int dtrig_reduce_large(double a, out double r, out double rl) {
  uvec2 w = unpackDouble2x32(a);
  int e = int((w.y >> 20) & 0x7FFu) - 1075;
  uint m1 = (w.y & 0xFFFFFu) | 0x100000u;
  uint m0 = w.x;
  int i0 = e >= 34 ? (e - 34) / 32 + 1 : 0;
  uint64_t col[9];
  for (int c = 0; c < 9; ++c) col[c] = 0ul;
  for (int j = 0; j < 7; ++j) {
    uint64_t wj = uint64_t(PLX_2_OVER_PI[i0 + j]);
    uint64_t p0 = wj * uint64_t(m0);
    uint64_t p1 = wj * uint64_t(m1);
    int k = 6 - j;
    col[k] += p0 & 0xFFFFFFFFul;
    col[k + 1] += (p0 >> 32) + (p1 & 0xFFFFFFFFul);
    col[k + 2] += p1 >> 32;
  }
  uint n[9];
  uint64_t carry = 0ul;
  for (int c = 0; c < 9; ++c) {
    uint64_t v = col[c] + carry;
    n[c] = uint(v & 0xFFFFFFFFul);
    carry = v >> 32;
  }
  int b = 32 * (i0 + 7) - e;
  int q = int(dtrig_chunk(n, b) & 3u);
  uint f[5];
  for (int t = 0; t < 5; ++t) f[t] = dtrig_chunk(n, b - 32 * (t + 1));
  bool neg = (f[0] >> 31) != 0u;
  if (neg) {
    q = (q + 1) & 3;
    uint c = 1u;
    for (int t = 4; t >= 0; --t) {
      uint v = ~f[t] + c;
      c = (c == 1u && v == 0u) ? 1u : 0u;
      f[t] = v;
    }
  }
  double s = 0.0LF, err = 0.0LF;
  for (int t = 4; t >= 0; --t) {
    dvec2 p = two_sum(s, double(f[t]) * ldexp(1.0LF, -32 * (t + 1)));
    s = p.x;
    err += p.y;
  }
  dvec2 fh = two_sum(s, err);
  dvec2 pr = two_prod(fh.x, $PIO2_HI);
  precise double rlo = pr.y + (fh.x * $PIO2_LO + fh.y * $PIO2_HI);
  r = neg ? -pr.x : pr.x;
  rl = neg ? -rlo : rlo;
  return q;
}
int dtrig_reduce(double a, out double r, out double rl) {
  if (a <= $PIO4) { r = a; rl = 0.0LF; return 0; }
  if (a >= 1.0e5LF) return dtrig_reduce_large(a, r, rl);
  double k = roundEven(a * $TWO_OVER_PI);
  precise double r1 = fma(-k, $PIO2_1, a);
  precise double t2 = k * $PIO2_2;
  dvec2 s = two_sum(r1, -t2);
  dvec2 t3 = two_prod(k, $PIO2_3);
  precise double small = (s.y - t3.x) - t3.y;
  dvec2 u = two_sum(s.x, small);
  r = u.x;
  rl = u.y;
  return int(k) & 3;
}
double dsin_k(double r, double rl) {
  double z = r * r;
$SIN_POLY  return r + fma(r * z, p, rl * (1.0LF - 0.5LF * z));
}
double dcos_k(double r, double rl) {
  double z = r * r;
$COS_POLY  precise double hz = 0.5LF * z;
  precise double w = 1.0LF - hz;
  precise double c = w + (((1.0LF - w) - hz) + (z * z * p - r * rl));
  return c;
}
double xsin(double x) {
  if (isnan(x) || isinf(x)) return fnan(x);
  double r, rl;
  int q = dtrig_reduce(abs(x), r, rl);
  double s = (q & 1) == 0 ? dsin_k(r, rl) : dcos_k(r, rl);
  if ((q & 2) != 0) s = -s;
  return x < 0.0LF ? -s : s;
}
double xcos(double x) {
  if (isnan(x) || isinf(x)) return fnan(x);
  double r, rl;
  int q = dtrig_reduce(abs(x), r, rl);
  double c = (q & 1) == 0 ? dcos_k(r, rl) : dsin_k(r, rl);
  return (q == 1 || q == 2) ? -c : c;
}
double xtan(double x) {
  if (isnan(x) || isinf(x)) return fnan(x);
  double r, rl;
  int q = dtrig_reduce(abs(x), r, rl);
  double s = dsin_k(r, rl), c = dcos_k(r, rl);
  double t = (q & 1) == 0 ? s / c : -c / s;
  return x < 0.0LF ? -t : t;
}
)";

// atan2: t = min / max of |y| and |x| in [0, 1], atan(t) = atan(c) +
// atan(u), c = k / 8 the nearest eighth, u = (t - c) / (1 + t c) (|u| <=
// 1/16), atan(u) by its series to u^17 and atan(c) from a table; the
// octant and quadrant from the signs and which is larger. Special values
// as C's atan2.
constexpr const char kAtan2[] = R"(
$ATAN_TABLES
double datan01(double t) {
  int k = int(roundEven(t * 8.0LF));
  double c = double(k) * 0.125LF;
  double u = (t - c) / fma(t, c, 1.0LF);
  double z = u * u;
$ATAN_POLY  return PLX_ATAN_HI[k] + (PLX_ATAN_LO[k] + fma(u * z, p, u));
}
double xatan2(double y, double x) {
  if (isnan(x) || isnan(y)) return x + y;
  bool yneg = (unpackDouble2x32(y).y >> 31) != 0u;
  bool xneg = (unpackDouble2x32(x).y >> 31) != 0u;
  double ay = abs(y), ax = abs(x);
  double r;
  if (ay == 0.0LF) r = xneg ? $PI_HI : 0.0LF;
  else if (isinf(ay)) r = isinf(ax) ? (xneg ? $PI3O4 : $PIO4) : $PIO2_HI;
  else if (isinf(ax)) r = xneg ? $PI_HI : 0.0LF;
  else if (ax == 0.0LF) r = $PIO2_HI;
  else {
    double a = ay <= ax ? datan01(ay / ax)
                        : $PIO2_HI - (datan01(ax / ay) - $PIO2_LO);
    r = xneg ? $PI_HI - (a - $PI_LO) : a;
  }
  return yneg ? -r : r;
}
)";

// pow(a, b) = exp(b log|a|) with log|a| in double-double (about 2^-68
// relative: b log|a| reaches 745, and its absolute error is the result's
// relative error). log: |a| = m 2^e, m in [sqrt(1/2), sqrt(2)), c = 1 +
// j/64 the nearest 64th (a table of log c), log(m / c) = 2 atanh(s), s =
// (m - c) / (m + c) (|s| < 0.0056) in double-double, its series to s^9.
// exp takes the low part into its reduced argument (dexp_dd). Special
// values as C's pow.
constexpr const char kPow[] = R"(
$LOG_TABLES
double dlog_dd(double x, out double lo) {
  int e;
  double m = dmant(x, e);
  if (m > $SQRT2) { m *= 0.5LF; e += 1; }
  int j = int(roundEven((m - 1.0LF) * 64.0LF));
  double c = 1.0LF + double(j) * 0.015625LF;
  precise double u = m - c;
  dvec2 d = two_sum(m, c);
  precise double s = u / d.x;
  dvec2 sd = two_prod(s, d.x);
  precise double sl = (((u - sd.x) - sd.y) - s * d.y) / d.x;
  double z = s * s;
  double tail = 2.0LF * s * z * fma(z, fma(z, fma(z, $C9, $C7), $C5), $C3);
  double de = double(e);
  dvec2 h1 = two_sum(de * $LN2_HI, PLX_LOGC_HI[j + 19]);
  dvec2 h2 = two_sum(h1.x, 2.0LF * s);
  precise double rest = h1.y + h2.y + (de * $LN2_LO + PLX_LOGC_LO[j + 19] + 2.0LF * sl + tail);
  dvec2 sum = two_sum(h2.x, rest);
  lo = sum.y;
  return sum.x;
}
double xpow(double a, double b) {
  if (a == 1.0LF || b == 0.0LF) return 1.0LF;
  if (isnan(a) || isnan(b)) return a + b;
  double ab = abs(a);
  bool b_int = trunc(b) == b;
  bool b_odd = b_int && abs(b) < $TWO53 && fract(b * 0.5LF) != 0.0LF;
  if (isinf(b)) {
    if (ab == 1.0LF) return 1.0LF;
    return ((ab > 1.0LF) == (b > 0.0LF)) ? finf(a) : 0.0LF;
  }
  double r;
  if (ab == 0.0LF) r = b > 0.0LF ? 0.0LF : finf(a);
  else if (isinf(ab)) r = b > 0.0LF ? finf(a) : 0.0LF;
  else if (a < 0.0LF && !b_int) return fnan(a);
  else {
    double ll;
    double lh = dlog_dd(ab, ll);
    double ph = b * lh;
    if (ph > 1000.0LF) r = finf(a);
    else if (ph < -1000.0LF) r = 0.0LF;
    else {
      dvec2 p = two_prod(b, lh);
      precise double pl = p.y + b * ll;
      r = dexp_dd(p.x, pl);
    }
  }
  return ((unpackDouble2x32(a).y >> 31) != 0u && b_odd) ? -r : r;
}
)";

// cbrt: |x| = m 2^(3q) with m in [1, 8) (subnormals scaled by 2^54 first),
// a float estimate of cbrt(m), two Newton steps, a last one on the exact
// residual m - t^3 (t^3 in double-double), times 2^q.
constexpr const char kCbrt[] = R"(
double xcbrt(double x) {
  if (isnan(x) || isinf(x) || x == 0.0LF) return x;
  int e;
  double m = dmant(abs(x), e);
  int q = e >= 0 ? e / 3 : -((2 - e) / 3);
  m *= double(1 << (e - 3 * q));
  double t = double(pow(float(m), 0.3333333333333333));
  t = t - (t * t * t - m) / (3.0LF * t * t);
  t = t - (t * t * t - m) / (3.0LF * t * t);
  dvec2 t2 = two_prod(t, t);
  dvec2 t3 = two_prod(t2.x, t);
  precise double res = (m - t3.x) - (t3.y + t2.y * t);
  t = t + res / (3.0LF * t2.x);
  t = ldexp(t, q);
  return x < 0.0LF ? -t : t;
}
)";

// erf: Taylor polynomials of degree 13 about c = j/8, j = 0..47 (|h| =
// |x - c| <= 1/16): erf(c) from a table, and the k-th derivative over k!,
// (2 / sqrt(pi)) exp(-c^2) (-1)^(k-1) H_(k-1)(c) / k! with H the Hermite
// polynomials, computed here by their recurrence; erf(x) = 1 in double
// from 5.9375 on (erfc there is below 2^-54). (A table of all 672
// coefficients took lavapipe 28 s to compile: a large constant array
// indexed at run time is slow in its compiler.)
constexpr const char kErf[] = R"(
$ERF_TABLE
double xerf(double x) {
  if (isnan(x)) return x;
  double a = abs(x);
  double r = 1.0LF;
  if (a < 5.9375LF) {
    int j = int(roundEven(a * 8.0LF));
    double c = double(j) * 0.125LF;
    double h = a - c;
    double g = $TWO_OVER_SQRT_PI * xexp(-c * c);
    double hprev = 0.0LF, hcur = 1.0LF;  // H_(k-2), H_(k-1)
    double q = h;                        // h^k / k!
    double sum = 0.0LF;
    for (int k = 1; k <= 13; ++k) {
      sum += ((k & 1) == 1 ? hcur : -hcur) * q;
      double next = 2.0LF * c * hcur - 2.0LF * double(k - 1) * hprev;
      hprev = hcur;
      hcur = next;
      q *= h / double(k + 1);
    }
    r = PLX_ERF_C[j] + g * sum;
  }
  return x < 0.0LF ? -r : r;
}
)";

// Horner's scheme for p(z) = sum coeffs[i] z^i, as GLSL statements that
// leave it in `p`.
std::string Horner(const std::vector<long double>& coeffs) {
  std::string out = absl::StrCat(
      "  double p = ", GlslDouble(static_cast<double>(coeffs.back())), ";\n");
  for (size_t i = coeffs.size() - 1; i-- > 0;) {
    absl::StrAppend(&out, "  p = fma(p, z, ",
                    GlslDouble(static_cast<double>(coeffs[i])), ");\n");
  }
  return out;
}

long double Factorial(int n) {
  long double f = 1;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

std::string TrigSource() {
  // 2/pi = sum_i w[i] 2^(-32 (i + 1)): its first 1,280 bits, printed by
  // scripts/two_over_pi.py (pi by Machin's formula in integers); the
  // pieces of pi/2 likewise.
  static constexpr const char kWords[] =
      "0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, "
      "0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, "
      "0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, "
      "0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, "
      "0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, "
      "0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, "
      "0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, "
      "0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du";
  // sin r = r + r z sum_k (-1)^k z^(k-1) / (2k+1)!, k = 1..9, z = r^2;
  // cos r = 1 - z/2 + z^2 sum_k (-1)^k z^(k-2) / (2k)!, k = 2..10.
  std::vector<long double> sin_c, cos_c;
  for (int k = 1; k <= 9; ++k) {
    sin_c.push_back((k % 2 ? -1 : 1) / Factorial(2 * k + 1));
  }
  for (int k = 2; k <= 10; ++k) {
    cos_c.push_back((k % 2 ? -1 : 1) / Factorial(2 * k));
  }
  return absl::StrReplaceAll(
      kTrig, {{"$WORDS_OF_2PI", kWords},
              {"$PIO2_HI", GlslDouble(0x1.921fb54442d18p+0)},
              {"$PIO2_LO", GlslDouble(0x1.1a62633145c07p-54)},
              {"$PIO2_1", GlslDouble(0x1.921fb544p+0)},
              {"$PIO2_2", GlslDouble(0x1.0b4611a6p-34)},
              {"$PIO2_3", GlslDouble(0x1.3198a2e037073p-69)},
              {"$PIO4", GlslDouble(static_cast<double>(kPiL / 4))},
              {"$TWO_OVER_PI", GlslDouble(static_cast<double>(2 / kPiL))},
              {"$SIN_POLY", Horner(sin_c)},
              {"$COS_POLY", Horner(cos_c)}});
}

std::string Atan2Source() {
  std::vector<double> hi(9), lo(9);
  for (int k = 0; k <= 8; ++k) Split(atanl(k / 8.0L), &hi[k], &lo[k]);
  std::vector<long double> poly;  // atan(u) = u + u z sum (-1)^k z^(k-1)/(2k+1)
  for (int k = 1; k <= 8; ++k)
    poly.push_back((k % 2 ? -1.0L : 1.0L) / (2 * k + 1));
  double pi_hi, pi_lo, pio2_hi, pio2_lo;
  Split(kPiL, &pi_hi, &pi_lo);
  Split(kPiL / 2, &pio2_hi, &pio2_lo);
  return absl::StrReplaceAll(
      kAtan2, {{"$ATAN_TABLES", absl::StrCat(DoubleArray("PLX_ATAN_HI", hi),
                                             DoubleArray("PLX_ATAN_LO", lo))},
               {"$ATAN_POLY", Horner(poly)},
               {"$PI_HI", GlslDouble(pi_hi)},
               {"$PI_LO", GlslDouble(pi_lo)},
               {"$PIO2_HI", GlslDouble(pio2_hi)},
               {"$PIO2_LO", GlslDouble(pio2_lo)},
               {"$PIO4", GlslDouble(static_cast<double>(kPiL / 4))},
               {"$PI3O4", GlslDouble(static_cast<double>(3 * kPiL / 4))}});
}

std::string PowSource() {
  // log(1 + j/64) for j = -19..27 (m in [sqrt(1/2), sqrt(2)) rounds to
  // those).
  std::vector<double> hi, lo;
  for (int j = -19; j <= 27; ++j) {
    double h, l;
    Split(log1pl(j / 64.0L), &h, &l);
    hi.push_back(h);
    lo.push_back(l);
  }
  return absl::StrReplaceAll(
      kPow, {{"$LOG_TABLES", absl::StrCat(DoubleArray("PLX_LOGC_HI", hi),
                                          DoubleArray("PLX_LOGC_LO", lo))},
             {"$TWO53", GlslDouble(0x1p53)},
             {"$SQRT2", GlslDouble(1.4142135623730951)},
             {"$C3", GlslDouble(1.0 / 3)},
             {"$C5", GlslDouble(1.0 / 5)},
             {"$C7", GlslDouble(1.0 / 7)},
             {"$C9", GlslDouble(1.0 / 9)},
             // ln 2 with a 32-bit high part: e * LN2_HI is exact.
             {"$LN2_HI", GlslDouble(6.93147180369123816490e-01)},
             {"$LN2_LO", GlslDouble(1.90821492927058770002e-10)}});
}

std::string ErfSource() {
  std::vector<double> table;
  for (int j = 0; j < 48; ++j)
    table.push_back(static_cast<double>(erfl(j / 8.0L)));
  return absl::StrReplaceAll(
      kErf, {{"$ERF_TABLE", DoubleArray("PLX_ERF_C", table)},
             {"$TWO_OVER_SQRT_PI",
              GlslDouble(static_cast<double>(2 / sqrtl(kPiL)))}});
}

bool Calls(absl::string_view code, absl::string_view fn) {
  return absl::StrContains(code, absl::StrCat(fn, "("));
}

}  // namespace

std::string GlslDouble(double v) {
  std::string s = absl::StrFormat("%.17g", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "LF";
}

std::string F64MathFor(absl::string_view code) {
  const bool trig =
      Calls(code, "xsin") || Calls(code, "xcos") || Calls(code, "xtan");
  const bool inverse = Calls(code, "xasin") || Calls(code, "xacos") ||
                       Calls(code, "xatan") || Calls(code, "xasinh") ||
                       Calls(code, "xacosh") || Calls(code, "xatanh");
  const bool atan2 = Calls(code, "xatan2") || inverse;
  const bool pow = Calls(code, "xpow");
  std::string out;
  const bool cbrt = Calls(code, "xcbrt");
  if (trig || pow || cbrt) absl::StrAppend(&out, kErrorFree);
  if (trig) absl::StrAppend(&out, TrigSource());
  if (atan2) absl::StrAppend(&out, Atan2Source());
  if (inverse) absl::StrAppend(&out, GlslInverseFunctions(true));
  if (pow) absl::StrAppend(&out, PowSource());
  if (cbrt) absl::StrAppend(&out, kCbrt);
  if (Calls(code, "xerf")) absl::StrAppend(&out, ErfSource());
  return out;
}

}  // namespace plexa::vulkan
