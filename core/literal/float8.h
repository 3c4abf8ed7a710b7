// The 8-bit and 4-bit floating types (F8E5M2 ... F8E8M0FNU, F4E2M1FN):
// storage types and their conversions, with the value semantics of
// ml_dtypes (which XLA uses for these types).
//
// Formats (exponent bits, mantissa bits, bias; the special encodings):
//   f8e5m2         5 2 15  IEEE-like: inf 0x7c, NaN exponent all ones
//   f8e4m3         4 3  7  IEEE-like: inf 0x78
//   f8e3m4         3 4  3  IEEE-like: inf 0x70
//   f8e4m3fn       4 3  7  no inf; NaN only S.1111.111 (0x7f, 0xff)
//   f8e4m3fnuz     4 3  8  no inf, no -0; the one NaN is 0x80
//   f8e4m3b11fnuz  4 3 11  as f8e4m3fnuz with bias 11
//   f8e5m2fnuz     5 2 16  as f8e4m3fnuz with 5 exponent bits
//   f4e2m1fn       2 1  1  no inf, no NaN (low 4 bits of a byte)
//   f8e8m0fnu      8 0 127 no sign, no zero, no subnormals: 2^(e-127);
//                          NaN 0xff
//
// Conversion to these types (DoubleToSmallFloatBits) is ml_dtypes'
// non-saturating static_cast (ml_dtypes/include/float8.h, ConvertImpl with
// kSaturate = false, kTruncate = false; mxfloat.h for f4e2m1fn), which is
// what XLA's convert does (xla/hlo/evaluator via static_cast):
//   - one rounding to nearest, ties to even, from the exact value;
//   - a value whose rounded magnitude exceeds the largest finite value
//     becomes the type's "infinity": inf for the IEEE-like types, NaN for
//     the types without inf (e4m3fn: 464 -> 448 by the tie rule, 465 ->
//     NaN), and for f4e2m1fn, which has neither, its max (saturation: 7 ->
//     6); +-inf likewise;
//   - NaN -> the type's quiet NaN with the sign of the input (IEEE-like:
//     exponent all ones and the top mantissa bit, e5m2 0x7e; fn 0x7f/0xff;
//     fnuz 0x80 whatever the sign); f4e2m1fn, which has no NaN, takes
//     ml_dtypes' choice 0x8 (-0), negated for a negative NaN (0x0);
//   - -0 -> 0 for the fnuz types (they have no -0);
//   - f8e8m0fnu: zero and negative values -> NaN (0xff); positive values
//     below 2^-127 -> 0x00 (2^-127), as ml_dtypes' bit arithmetic does;
//     ties (1.5 * 2^e) round up (the implicit bit is the "odd" bit).
#ifndef PLEXA_CORE_LITERAL_FLOAT8_H_
#define PLEXA_CORE_LITERAL_FLOAT8_H_

#include <cstdint>

#include "core/shape/primitive_type.h"

namespace plexa {

struct SmallFloatFormat {
  enum class Kind {
    kIeee,      // inf and NaN at exponent all ones
    kFn,        // no inf; NaN at exponent and mantissa all ones
    kFnuz,      // no inf, no -0; NaN is the sign bit alone
    kFinite,    // no inf, no NaN (f4e2m1fn)
    kExponent,  // unsigned, exponent only (f8e8m0fnu)
  };
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Kind kind;
};

// The format of an F8/F4 type; nullptr for any other type.
const SmallFloatFormat* SmallFloatFormatOf(PrimitiveType type);

// Exact value of an encoding (bits above the format's width are ignored).
double SmallFloatToDouble(const SmallFloatFormat& format, uint8_t bits);
// The encoding of `d` by the rules above.
uint8_t DoubleToSmallFloatBits(const SmallFloatFormat& format, double d);
bool SmallFloatIsNan(const SmallFloatFormat& format, uint8_t bits);
// The largest finite encoding, and the smallest (most negative; 0x00 =
// 2^-127 for the unsigned f8e8m0fnu).
uint8_t SmallFloatMaxBits(const SmallFloatFormat& format);
uint8_t SmallFloatLowestBits(const SmallFloatFormat& format);

// A storage type of one F8/F4 element type, like Half: explicit conversions
// from and to float (exact to float), the bits in `bits`.
template <PrimitiveType kType>
struct SmallFloat {
  static constexpr PrimitiveType kPrimitiveType = kType;
  uint8_t bits = 0;
  SmallFloat() = default;
  explicit SmallFloat(float f)
      : bits(DoubleToSmallFloatBits(Format(), static_cast<double>(f))) {}
  explicit operator float() const {
    return static_cast<float>(SmallFloatToDouble(Format(), bits));
  }
  static SmallFloat FromBits(uint8_t b) {
    SmallFloat v;
    v.bits = b;
    return v;
  }
  static SmallFloat FromDouble(double d) {
    return FromBits(DoubleToSmallFloatBits(Format(), d));
  }
  static const SmallFloatFormat& Format() { return *SmallFloatFormatOf(kType); }
};

using F8e5m2 = SmallFloat<PrimitiveType::F8E5M2>;
using F8e4m3fn = SmallFloat<PrimitiveType::F8E4M3FN>;
using F8e4m3b11fnuz = SmallFloat<PrimitiveType::F8E4M3B11FNUZ>;
using F8e5m2fnuz = SmallFloat<PrimitiveType::F8E5M2FNUZ>;
using F8e4m3fnuz = SmallFloat<PrimitiveType::F8E4M3FNUZ>;
using F8e4m3 = SmallFloat<PrimitiveType::F8E4M3>;
using F8e3m4 = SmallFloat<PrimitiveType::F8E3M4>;
using F4e2m1fn = SmallFloat<PrimitiveType::F4E2M1FN>;
using F8e8m0fnu = SmallFloat<PrimitiveType::F8E8M0FNU>;

template <typename T>
inline constexpr bool kIsSmallFloat = false;
template <PrimitiveType kType>
inline constexpr bool kIsSmallFloat<SmallFloat<kType>> = true;

// Sub-byte integers live in a byte (int8_t for S2/S4, uint8_t for U2/U4):
// the value wrapped to `bits` bits, sign-extended for signed types (as
// XLA's literals hold s4 and u4).
inline int64_t WrapSignedToBits(int64_t v, int bits) {
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  const uint64_t u = static_cast<uint64_t>(v) & mask;
  const uint64_t sign = uint64_t{1} << (bits - 1);
  return static_cast<int64_t>((u ^ sign)) - static_cast<int64_t>(sign);
}
inline uint64_t WrapUnsignedToBits(uint64_t v, int bits) {
  return v & ((uint64_t{1} << bits) - 1);
}

}  // namespace plexa

#endif  // PLEXA_CORE_LITERAL_FLOAT8_H_
