#include "plugins/vulkan/glsl_small_float.h"

#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "core/literal/float8.h"

namespace plexa::vulkan {
namespace {

using Kind = SmallFloatFormat::Kind;

std::string Hex(unsigned v) { return absl::StrFormat("0x%02Xu", v); }

// The exponent-only f8e8m0fnu: 2^(b - 127), 0xff NaN; from a float: zero,
// negatives, infinities and NaN -> 0xff, below 2^-127 -> 0x00, ties
// (1.5 * 2^e) up. Float subnormals are read from their bits.
constexpr const char kExponentOnly[] = R"(
float sf_NAME_dec(uint b) {
  b &= 0xFFu;
  if (b == 0xFFu) return uintBitsToFloat(0x7FC00000u);
  return ldexp(1.0, int(b) - 127);
}
uint sf_NAME_enc(float f) {
  uint fb = floatBitsToUint(f);
  if (isnan(f) || isinf(f) || f == 0.0 || (fb >> 31) != 0u) return 0xFFu;
  uint man = fb & 0x7FFFFFu;
  int ef = int(fb >> 23);
  if (ef == 0) return man >= 0x600000u ? 0x01u : 0x00u;
  int biased = ef + (man >= 0x400000u ? 1 : 0);
  return biased > 254 ? 0xFFu : uint(biased);
}
)";

// The others, with E exponent and M mantissa bits and BIAS: the exponent
// of |f| from its bits, the quantum of the type at that exponent (2^(max(e,
// EMIN) - M), subnormals below EMIN), |f| / quantum rounded to nearest
// even (exact in float: the quotient has at most M + 2 bits).
constexpr const char kGeneral[] = R"(
float sf_NAME_dec(uint b) {
  b &= MASK;
  bool neg = ((b >> SHIFT) & 1u) != 0u;
  // A NaN keeps its sign bit, so that encoding the float again (a result
  // rounded to the type, then stored) gives the same bits back.
  if (ISNAN) return uintBitsToFloat(neg ? 0xFFC00000u : 0x7FC00000u);
  uint e = (b >> M) & EONES;
  uint m = b & MONES;
  float v;
  if (ISINF) v = uintBitsToFloat(0x7F800000u);
  else if (e == 0u) v = ldexp(float(m), 1 - BIAS - M);
  else v = ldexp(float(m | (1u << M)), int(e) - BIAS - M);
  return neg ? -v : v;
}
uint sf_NAME_enc(float f) {
  bool neg = (floatBitsToUint(f) >> 31) != 0u;
  if (isnan(f)) return neg ? NAN_NEG : NAN_POS;
  float a = abs(f);
  if (isinf(a)) return neg ? OVER_NEG : OVER_POS;
  uint zero = neg ? ZERO_NEG : 0u;
  if (a == 0.0) return zero;
  int e = int(floatBitsToUint(a) >> 23) - 127;
  int qe = max(e, 1 - BIAS) - M;
  uint r = uint(roundEven(ldexp(a, -qe)));
  if (r == 0u) return zero;
  uint ef = 0u;
  if (r >= (1u << M)) {
    if (r == (2u << M)) { r >>= 1; qe += 1; }
    ef = uint(qe + M + BIAS);
    r -= 1u << M;
  }
  if (ef > MAXE || (ef == MAXE && r > MAXM)) return neg ? OVER_NEG : OVER_POS;
  return (neg ? SIGN : 0u) | (ef << M) | r;
}
)";

}  // namespace

bool IsSmallFloat(PrimitiveType t) { return SmallFloatFormatOf(t) != nullptr; }

std::string SmallFloatFunction(PrimitiveType t, const char* what) {
  return absl::StrCat("sf_", absl::AsciiStrToLower(primitive_util::Name(t)),
                      "_", what);
}

std::string SmallFloatFunctions(PrimitiveType t) {
  const SmallFloatFormat* f = SmallFloatFormatOf(t);
  if (f == nullptr) return "";
  const std::string name = absl::AsciiStrToLower(primitive_util::Name(t));
  const std::string round = absl::StrCat(
      "float sf_NAME_rnd(float f) { return sf_NAME_dec(sf_NAME_enc(f)); }\n");
  if (f->kind == Kind::kExponent) {
    return absl::StrReplaceAll(absl::StrCat(kExponentOnly, round),
                               {{"NAME", name}});
  }
  const int e = f->exponent_bits, m = f->mantissa_bits;
  const int shift = e + m;
  const unsigned eones = (1u << e) - 1, mones = (1u << m) - 1;
  const unsigned sign = 1u << shift;
  std::string isnan, isinf = "false";
  switch (f->kind) {
    case Kind::kIeee:
      isnan =
          absl::StrCat("((b >> ", m, ") & ", Hex(eones), ") == ", Hex(eones),
                       " && (b & ", Hex(mones), ") != 0u");
      isinf = absl::StrCat("e == ", Hex(eones));
      break;
    case Kind::kFn:
      isnan = absl::StrCat("(b & ", Hex(sign - 1), ") == ", Hex(sign - 1));
      break;
    case Kind::kFnuz:
      isnan = absl::StrCat("b == ", Hex(sign));
      break;
    default:  // kFinite
      isnan = "false";
      break;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const unsigned max_bits = SmallFloatMaxBits(*f);
  return absl::StrReplaceAll(
      absl::StrCat(kGeneral, round),
      {{"NAME", name},
       {"MASK", Hex((2u << shift) - 1)},
       {"ISNAN", isnan},
       {"ISINF", isinf},
       {"SHIFT", absl::StrCat(shift, "u")},
       {"EONES", Hex(eones)},
       {"MONES", Hex(mones)},
       {"BIAS", absl::StrCat(f->bias)},
       {"NAN_POS", Hex(DoubleToSmallFloatBits(*f, nan))},
       {"NAN_NEG", Hex(DoubleToSmallFloatBits(*f, std::copysign(nan, -1.0)))},
       {"OVER_POS", Hex(DoubleToSmallFloatBits(*f, inf))},
       {"OVER_NEG", Hex(DoubleToSmallFloatBits(*f, -inf))},
       {"ZERO_NEG", Hex(DoubleToSmallFloatBits(*f, -0.0))},
       {"MAXE", Hex(max_bits >> m)},
       {"MAXM", Hex(max_bits & mones)},
       {"SIGN", Hex(sign)},
       // Last: the single letters.
       {"M)", absl::StrCat(m, ")")},
       {"M;", absl::StrCat(m, ";")},
       {"M ", absl::StrCat(m, " ")}});
}

}  // namespace plexa::vulkan
