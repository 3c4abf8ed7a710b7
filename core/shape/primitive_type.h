// Element types of Plexa arrays, with their HLO spellings and sizes.
#ifndef PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_
#define PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace plexa {

// X(enum, hlo spelling, size in bytes (0 = not an array element))
// The single source of truth for the element types; the numbering follows
// xla_data.proto where it exists so serialized modules read naturally.
#define PLEXA_PRIMITIVE_TYPES(X) \
  X(PRED, "pred", 1)             \
  X(S8, "s8", 1)                 \
  X(S16, "s16", 2)               \
  X(S32, "s32", 4)               \
  X(S64, "s64", 8)               \
  X(U8, "u8", 1)                 \
  X(U16, "u16", 2)               \
  X(U32, "u32", 4)               \
  X(U64, "u64", 8)               \
  X(F16, "f16", 2)               \
  X(BF16, "bf16", 2)             \
  X(F32, "f32", 4)               \
  X(F64, "f64", 8)               \
  X(C64, "c64", 8)               \
  X(C128, "c128", 16)            \
  X(TUPLE, "tuple", 0)           \
  X(TOKEN, "token", 0)

enum class PrimitiveType : int32_t {
  PRIMITIVE_TYPE_INVALID = 0,
#define PLEXA_PT_ENUM(e, s, n) e,
  PLEXA_PRIMITIVE_TYPES(PLEXA_PT_ENUM)
#undef PLEXA_PT_ENUM
};

// Convenience aliases so code reads like XLA: `F32`, `PRED`, ...
#define PLEXA_PT_ALIAS(e, s, n) \
  inline constexpr PrimitiveType e = PrimitiveType::e;
PLEXA_PRIMITIVE_TYPES(PLEXA_PT_ALIAS)
#undef PLEXA_PT_ALIAS

namespace primitive_util {

// "f32" for F32, "invalid" for PRIMITIVE_TYPE_INVALID.
absl::string_view Name(PrimitiveType type);
// Parses an HLO spelling ("bf16"). NotFound-like InvalidArgument otherwise.
absl::StatusOr<PrimitiveType> FromName(absl::string_view name);
// Bytes per element; 0 for TUPLE, TOKEN and INVALID.
int64_t ByteWidth(PrimitiveType type);
int64_t BitWidth(PrimitiveType type);

bool IsArrayType(PrimitiveType type);             // not TUPLE/TOKEN/INVALID
bool IsFloatingPointType(PrimitiveType type);     // F16 BF16 F32 F64
bool IsComplexType(PrimitiveType type);           // C64 C128
bool IsSignedIntegralType(PrimitiveType type);    // S8..S64
bool IsUnsignedIntegralType(PrimitiveType type);  // U8..U64
bool IsIntegralType(PrimitiveType type);          // signed or unsigned
// Component type of a complex type (C64 -> F32, C128 -> F64).
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace primitive_util
}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_PRIMITIVE_TYPE_H_
