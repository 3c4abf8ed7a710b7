#include "core/literal/float8.h"

#include <cmath>
#include <limits>

namespace plexa {
namespace {

using Kind = SmallFloatFormat::Kind;

constexpr SmallFloatFormat kF8e5m2{5, 2, 15, Kind::kIeee};
constexpr SmallFloatFormat kF8e4m3fn{4, 3, 7, Kind::kFn};
constexpr SmallFloatFormat kF8e4m3b11fnuz{4, 3, 11, Kind::kFnuz};
constexpr SmallFloatFormat kF8e5m2fnuz{5, 2, 16, Kind::kFnuz};
constexpr SmallFloatFormat kF8e4m3fnuz{4, 3, 8, Kind::kFnuz};
constexpr SmallFloatFormat kF8e4m3{4, 3, 7, Kind::kIeee};
constexpr SmallFloatFormat kF8e3m4{3, 4, 3, Kind::kIeee};
constexpr SmallFloatFormat kF4e2m1fn{2, 1, 1, Kind::kFinite};
constexpr SmallFloatFormat kF8e8m0fnu{8, 0, 127, Kind::kExponent};

int SignShift(const SmallFloatFormat& f) {
  return f.exponent_bits + f.mantissa_bits;
}
int ExponentAllOnes(const SmallFloatFormat& f) {
  return (1 << f.exponent_bits) - 1;
}
int MantissaAllOnes(const SmallFloatFormat& f) {
  return (1 << f.mantissa_bits) - 1;
}

// Largest finite encoding (positive).
uint8_t MaxFiniteBits(const SmallFloatFormat& f) {
  const int m = f.mantissa_bits;
  switch (f.kind) {
    case Kind::kIeee:
      return static_cast<uint8_t>(((ExponentAllOnes(f) - 1) << m) |
                                  MantissaAllOnes(f));
    case Kind::kFn:
      return static_cast<uint8_t>((ExponentAllOnes(f) << m) |
                                  (MantissaAllOnes(f) - 1));
    case Kind::kFnuz:
    case Kind::kFinite:
      return static_cast<uint8_t>((ExponentAllOnes(f) << m) |
                                  MantissaAllOnes(f));
    case Kind::kExponent:
      return 0xfe;
  }
  return 0;
}

uint8_t SignBit(const SmallFloatFormat& f, bool negative) {
  return negative ? static_cast<uint8_t>(1u << SignShift(f)) : 0;
}

// ml_dtypes' quiet_NaN(), negated for a negative NaN.
uint8_t NanBits(const SmallFloatFormat& f, bool negative) {
  const int m = f.mantissa_bits;
  switch (f.kind) {
    case Kind::kIeee:
      return static_cast<uint8_t>(SignBit(f, negative) |
                                  (ExponentAllOnes(f) << m) | (1 << (m - 1)));
    case Kind::kFn:
      return static_cast<uint8_t>(SignBit(f, negative) |
                                  (ExponentAllOnes(f) << m) |
                                  MantissaAllOnes(f));
    case Kind::kFnuz:
      return SignBit(f, true);
    case Kind::kFinite:
      // quiet_NaN() is 0b1000 (-0); negating it gives +0.
      return negative ? 0 : SignBit(f, true);
    case Kind::kExponent:
      return 0xff;
  }
  return 0;
}

// ml_dtypes' infinity(), negated for a negative value: what overflow and
// +-inf convert to.
uint8_t OverflowBits(const SmallFloatFormat& f, bool negative) {
  switch (f.kind) {
    case Kind::kIeee:
      return static_cast<uint8_t>(SignBit(f, negative) |
                                  (ExponentAllOnes(f) << f.mantissa_bits));
    case Kind::kFinite:
      return static_cast<uint8_t>(SignBit(f, negative) | MaxFiniteBits(f));
    case Kind::kFn:
    case Kind::kFnuz:
    case Kind::kExponent:
      return NanBits(f, negative);
  }
  return 0;
}

// Rounds a non-negative double holding a value below 2^53 to the nearest
// integer, ties to even.
uint64_t RoundHalfEven(double q) {
  const double fl = std::floor(q);
  const double frac = q - fl;
  uint64_t r = static_cast<uint64_t>(fl);
  if (frac > 0.5 || (frac == 0.5 && (r & 1))) ++r;
  return r;
}

}  // namespace

uint8_t SmallFloatMaxBits(const SmallFloatFormat& f) {
  return MaxFiniteBits(f);
}

uint8_t SmallFloatLowestBits(const SmallFloatFormat& f) {
  if (f.kind == Kind::kExponent) return 0x00;
  return static_cast<uint8_t>(SignBit(f, true) | MaxFiniteBits(f));
}

const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F8E5M2:
      return &kF8e5m2;
    case PrimitiveType::F8E4M3FN:
      return &kF8e4m3fn;
    case PrimitiveType::F8E4M3B11FNUZ:
      return &kF8e4m3b11fnuz;
    case PrimitiveType::F8E5M2FNUZ:
      return &kF8e5m2fnuz;
    case PrimitiveType::F8E4M3FNUZ:
      return &kF8e4m3fnuz;
    case PrimitiveType::F8E4M3:
      return &kF8e4m3;
    case PrimitiveType::F8E3M4:
      return &kF8e3m4;
    case PrimitiveType::F4E2M1FN:
      return &kF4e2m1fn;
    case PrimitiveType::F8E8M0FNU:
      return &kF8e8m0fnu;
    default:
      return nullptr;
  }
}

bool SmallFloatIsNan(const SmallFloatFormat& f, uint8_t bits) {
  const int m = f.mantissa_bits;
  switch (f.kind) {
    case Kind::kIeee: {
      const int exp = (bits >> m) & ExponentAllOnes(f);
      return exp == ExponentAllOnes(f) && (bits & MantissaAllOnes(f)) != 0;
    }
    case Kind::kFn:
      return (bits & ((1 << SignShift(f)) - 1)) == ((1 << SignShift(f)) - 1);
    case Kind::kFnuz:
      return (bits & ((2 << SignShift(f)) - 1)) == (1 << SignShift(f));
    case Kind::kFinite:
      return false;
    case Kind::kExponent:
      return bits == 0xff;
  }
  return false;
}

double SmallFloatToDouble(const SmallFloatFormat& f, uint8_t bits) {
  if (f.kind == Kind::kExponent) {
    if (bits == 0xff) return std::numeric_limits<double>::quiet_NaN();
    return std::ldexp(1.0, static_cast<int>(bits) - f.bias);
  }
  const int m = f.mantissa_bits;
  bits &= static_cast<uint8_t>((2 << SignShift(f)) - 1);
  if (SmallFloatIsNan(f, bits)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const bool negative = (bits >> SignShift(f)) & 1;
  const int exp = (bits >> m) & ExponentAllOnes(f);
  const int man = bits & MantissaAllOnes(f);
  double v;
  if (f.kind == Kind::kIeee && exp == ExponentAllOnes(f)) {
    v = std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(static_cast<double>(man), 1 - f.bias - m);
  } else {
    v = std::ldexp(static_cast<double>((1 << m) | man), exp - f.bias - m);
  }
  return negative ? -v : v;
}

uint8_t DoubleToSmallFloatBits(const SmallFloatFormat& f, double d) {
  if (std::isnan(d)) return NanBits(f, std::signbit(d));
  const bool negative = std::signbit(d);
  const double a = std::fabs(d);
  const int m = f.mantissa_bits;
  if (f.kind == Kind::kExponent) {
    // No zero and no sign: zero, negatives and inf are NaN.
    if (negative || a == 0 || std::isinf(a)) return 0xff;
    int e2;
    std::frexp(a, &e2);
    const int e = e2 - 1;  // a in [2^e, 2^(e+1))
    if (e < -f.bias) return 0x00;
    const uint64_t r = RoundHalfEven(std::ldexp(a, -e));  // 1 or 2
    const int biased = e + (r == 2 ? 1 : 0) + f.bias;
    if (biased > 0xfe) return 0xff;
    return static_cast<uint8_t>(biased);
  }
  if (std::isinf(a)) return OverflowBits(f, negative);
  const uint8_t zero =
      f.kind == Kind::kFnuz ? uint8_t{0} : SignBit(f, negative);
  if (a == 0) return zero;
  int e2;
  std::frexp(a, &e2);
  const int e = e2 - 1;
  const int emin = 1 - f.bias;
  // The quantum (spacing of representable values) at a's exponent, with
  // subnormals below emin; a / quantum is exact.
  int qe = (e < emin ? emin : e) - m;
  uint64_t r = RoundHalfEven(std::ldexp(a, -qe));
  if (r == 0) return zero;
  int exp_field;
  if (r < (uint64_t{1} << m)) {
    exp_field = 0;  // subnormal
  } else {
    if (r == (uint64_t{2} << m)) {  // rounding carried into the exponent
      r >>= 1;
      ++qe;
    }
    exp_field = qe + m + f.bias;
    r -= uint64_t{1} << m;
  }
  const int max_bits = MaxFiniteBits(f);
  const int max_exp = max_bits >> m;
  const int max_man = max_bits & MantissaAllOnes(f);
  if (exp_field > max_exp ||
      (exp_field == max_exp && static_cast<int>(r) > max_man)) {
    return OverflowBits(f, negative);
  }
  return static_cast<uint8_t>(SignBit(f, negative) | (exp_field << m) |
                              static_cast<int>(r));
}

}  // namespace plexa
