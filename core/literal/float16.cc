#include "core/literal/float16.h"

#include <bit>
#include <cmath>
#include <cstdint>

namespace plexa {
namespace {

// Rounds a double once, to nearest with ties to even, into a binary16-like
// format with `mant_bits` stored mantissa bits and exponent bias `bias`
// (half: 10, 15; bfloat16: 7, 127). Subnormal results are produced,
// overflow goes to infinity, NaN stays NaN (made quiet, sign and the top
// payload bits kept).
uint16_t RoundDoubleToNarrow(double d, int mant_bits, int bias) {
  const uint64_t bits = std::bit_cast<uint64_t>(d);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << 15);
  const int exp_field = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
  const uint16_t inf = static_cast<uint16_t>(((2 * bias + 1)) << mant_bits);

  if (exp_field == 0x7ff) {
    if (mant == 0) return sign | inf;
    const uint16_t quiet = static_cast<uint16_t>(1u << (mant_bits - 1));
    const uint16_t payload = static_cast<uint16_t>(mant >> (52 - mant_bits));
    return sign | inf | quiet | payload;
  }
  // Zero and double subnormals (< 2^-1022) are far below half of the
  // smallest narrow subnormal, so they round to a signed zero.
  if (exp_field == 0) return sign;

  const int e = exp_field - 1023;  // |d| = sig * 2^(e - 52)
  const uint64_t sig = (uint64_t{1} << 52) | mant;
  if (e > bias)
    return sign | inf;  // >= 2^(bias+1): beyond the largest
                        // finite value plus half an ulp
  const int min_exp = 1 - bias;
  // The narrow format's ulp at this magnitude is 2^q.
  const int q = (e >= min_exp) ? e - mant_bits : min_exp - mant_bits;
  const int shift = q - (e - 52);  // >= 52 - mant_bits
  if (shift > 54) return sign;     // below a quarter ulp: rounds to zero
  uint64_t rounded = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (rem > halfway || (rem == halfway && (rounded & 1))) ++rounded;

  uint32_t result;
  if (e >= min_exp) {
    // rounded is in [2^mant_bits, 2^(mant_bits+1)]; adding it on top of the
    // exponent lets a carry (rounded == 2^(mant_bits+1)) bump the exponent,
    // possibly into infinity, which is the right answer.
    result = (static_cast<uint32_t>(e + bias) << mant_bits) +
             static_cast<uint32_t>(rounded) - (1u << mant_bits);
  } else {
    // Subnormal: rounded in [0, 2^mant_bits]; 2^mant_bits is the smallest
    // normal, whose encoding is exactly that integer.
    result = static_cast<uint32_t>(rounded);
  }
  if (result >= inf) return sign | inf;
  return sign | static_cast<uint16_t>(result);
}

// Exact widening of a binary16-like value to float.
float NarrowToFloat(uint16_t bits, int mant_bits, int bias) {
  const uint32_t sign = static_cast<uint32_t>(bits >> 15) << 31;
  const int exp_bits = 15 - mant_bits;
  const uint32_t exp_field = (bits >> mant_bits) & ((1u << exp_bits) - 1);
  const uint32_t mant = bits & ((1u << mant_bits) - 1);
  const int shift = 23 - mant_bits;
  if (exp_field == (1u << exp_bits) - 1) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mant << shift));
  }
  if (exp_field == 0) {
    // Subnormal (or zero): mant * 2^(1 - bias - mant_bits), exact in float.
    const float mag =
        std::ldexp(static_cast<float>(mant), 1 - bias - mant_bits);
    return sign ? -mag : mag;
  }
  const uint32_t fexp = exp_field - bias + 127;
  return std::bit_cast<float>(sign | (fexp << 23) | (mant << shift));
}

}  // namespace

// float -> double is exact, so rounding from the double rounds once.
uint16_t Half::FromFloat(float f) { return DoubleToHalfBits(f); }
float Half::ToFloat(uint16_t bits) { return NarrowToFloat(bits, 10, 15); }

uint16_t BFloat16::FromFloat(float f) { return DoubleToBFloat16Bits(f); }
float BFloat16::ToFloat(uint16_t bits) {
  // bfloat16 is the upper half of a float.
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t DoubleToHalfBits(double d) { return RoundDoubleToNarrow(d, 10, 15); }
uint16_t DoubleToBFloat16Bits(double d) {
  return RoundDoubleToNarrow(d, 7, 127);
}

}  // namespace plexa
