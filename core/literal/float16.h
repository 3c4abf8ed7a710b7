// IEEE half (F16) and bfloat16 (BF16) storage types with correct
// round-to-nearest-even conversion from float, NaN preserved.
#ifndef PLEXA_CORE_LITERAL_FLOAT16_H_
#define PLEXA_CORE_LITERAL_FLOAT16_H_

#include <cstdint>

namespace plexa {

struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return ToFloat(bits); }
  static Half FromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
  static uint16_t FromFloat(float f);
  static float ToFloat(uint16_t bits);
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(FromFloat(f)) {}
  explicit operator float() const { return ToFloat(bits); }
  static BFloat16 FromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  static uint16_t FromFloat(float f);
  static float ToFloat(uint16_t bits);
};

// Double -> half/bfloat16 rounding once (not via float, which would round
// twice). Used by convert and by the literal parser.
uint16_t DoubleToHalfBits(double d);
uint16_t DoubleToBFloat16Bits(double d);

}  // namespace plexa

#endif  // PLEXA_CORE_LITERAL_FLOAT16_H_
