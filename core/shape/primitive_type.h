// Element types of Plexa arrays, with their HLO spellings and sizes.
#ifndef PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_
#define PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace plexa {

// X(enum, hlo spelling, bytes per element in memory (0 = not an array
//   element), bits of information per element)
// The single source of truth for the element types. The numbering is
// Plexa's own and equals PLX_Type's (abi/include/plexa/plexa_c_api.h): the
// types ABI 1.2 added (S4 .. F8E8M0FNU) follow C128 in PLX_Type's order, so
// an element type crosses the ABI unchanged. It is not xla_data.proto's
// numbering (there F32 is 11 and S4 21); the proto format maps names.
// Sub-byte types (s4 u4 s2 u2 f4e2m1fn) take one byte per element in
// literals and in the evaluator, as XLA's literals do (the value in the low
// bits, signed integers sign-extended); their bit width is 4 or 2, which is
// what a packed layout (E(4)) or the ABI's packed buffers use.
#define PLEXA_PRIMITIVE_TYPES(X)          \
  X(PRED, "pred", 1, 1)                   \
  X(S8, "s8", 1, 8)                       \
  X(S16, "s16", 2, 16)                    \
  X(S32, "s32", 4, 32)                    \
  X(S64, "s64", 8, 64)                    \
  X(U8, "u8", 1, 8)                       \
  X(U16, "u16", 2, 16)                    \
  X(U32, "u32", 4, 32)                    \
  X(U64, "u64", 8, 64)                    \
  X(F16, "f16", 2, 16)                    \
  X(BF16, "bf16", 2, 16)                  \
  X(F32, "f32", 4, 32)                    \
  X(F64, "f64", 8, 64)                    \
  X(C64, "c64", 8, 64)                    \
  X(C128, "c128", 16, 128)                \
  X(S4, "s4", 1, 4)                       \
  X(U4, "u4", 1, 4)                       \
  X(S2, "s2", 1, 2)                       \
  X(U2, "u2", 1, 2)                       \
  X(F8E5M2, "f8e5m2", 1, 8)               \
  X(F8E4M3FN, "f8e4m3fn", 1, 8)           \
  X(F8E4M3B11FNUZ, "f8e4m3b11fnuz", 1, 8) \
  X(F8E5M2FNUZ, "f8e5m2fnuz", 1, 8)       \
  X(F8E4M3FNUZ, "f8e4m3fnuz", 1, 8)       \
  X(F8E4M3, "f8e4m3", 1, 8)               \
  X(F8E3M4, "f8e3m4", 1, 8)               \
  X(F4E2M1FN, "f4e2m1fn", 1, 4)           \
  X(F8E8M0FNU, "f8e8m0fnu", 1, 8)         \
  X(TUPLE, "tuple", 0, 0)                 \
  X(TOKEN, "token", 0, 0)

enum class PrimitiveType : int32_t {
  PRIMITIVE_TYPE_INVALID = 0,
#define PLEXA_PT_ENUM(e, s, n, b) e,
  PLEXA_PRIMITIVE_TYPES(PLEXA_PT_ENUM)
#undef PLEXA_PT_ENUM
};

// Convenience aliases so code reads like XLA: `F32`, `PRED`, ...
#define PLEXA_PT_ALIAS(e, s, n, b) \
  inline constexpr PrimitiveType e = PrimitiveType::e;
PLEXA_PRIMITIVE_TYPES(PLEXA_PT_ALIAS)
#undef PLEXA_PT_ALIAS

namespace primitive_util {

// "f32" for F32, "invalid" for PRIMITIVE_TYPE_INVALID.
absl::string_view Name(PrimitiveType type);
// Parses an HLO spelling ("bf16"). NotFound-like InvalidArgument otherwise.
absl::StatusOr<PrimitiveType> FromName(absl::string_view name);
// Bytes per element in a literal; 0 for TUPLE, TOKEN and INVALID. The
// sub-byte types take a byte each.
int64_t ByteWidth(PrimitiveType type);
// Bits of information: 1 for PRED, 4 for S4/U4/F4E2M1FN, 2 for S2/U2,
// otherwise 8 * ByteWidth.
int64_t BitWidth(PrimitiveType type);

// As XLA's primitive_util.
bool IsArrayType(PrimitiveType type);  // not TUPLE/TOKEN/INVALID
// F16 BF16 F32 F64 and the F8/F4 types.
bool IsFloatingPointType(PrimitiveType type);
// The 8-bit and 4-bit floating types (F8E5M2 .. F8E8M0FNU, F4E2M1FN).
bool IsF8Type(PrimitiveType type);
bool IsMXType(PrimitiveType type);  // F4E2M1FN, F8E8M0FNU (OCP MX)
// Floating types that have no infinity (the *fn, *fnuz, F4E2M1FN, E8M0).
bool HasInfinity(PrimitiveType type);
bool HasNegativeZero(PrimitiveType type);  // not the *fnuz types, E8M0
bool IsComplexType(PrimitiveType type);    // C64 C128
// S2 S4 S8..S64.
bool IsSignedIntegralType(PrimitiveType type);
// U2 U4 U8..U64.
bool IsUnsignedIntegralType(PrimitiveType type);
bool IsIntegralType(PrimitiveType type);  // signed or unsigned
// Array types narrower than a byte (S2 U2 S4 U4 F4E2M1FN).
bool IsSubByteType(PrimitiveType type);
// Component type of a complex type (C64 -> F32, C128 -> F64).
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace primitive_util
}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_
