#include "core/shape/primitive_type.h"

#include "absl/strings/str_cat.h"

namespace plexa::primitive_util {

absl::string_view Name(PrimitiveType type) {
  switch (type) {
#define PLEXA_PT_NAME(e, s, n) \
  case PrimitiveType::e:       \
    return s;
    PLEXA_PRIMITIVE_TYPES(PLEXA_PT_NAME)
#undef PLEXA_PT_NAME
    default:
      return "invalid";
  }
}

absl::StatusOr<PrimitiveType> FromName(absl::string_view name) {
#define PLEXA_PT_FROM(e, s, n) \
  if (name == s) return PrimitiveType::e;
  PLEXA_PRIMITIVE_TYPES(PLEXA_PT_FROM)
#undef PLEXA_PT_FROM
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "'"));
}

int64_t ByteWidth(PrimitiveType type) {
  switch (type) {
#define PLEXA_PT_SIZE(e, s, n) \
  case PrimitiveType::e:       \
    return n;
    PLEXA_PRIMITIVE_TYPES(PLEXA_PT_SIZE)
#undef PLEXA_PT_SIZE
    default:
      return 0;
  }
}

int64_t BitWidth(PrimitiveType type) {
  // PRED occupies a byte in memory but carries one bit of information; XLA
  // reports 1 here as well.
  if (type == PrimitiveType::PRED) return 1;
  return ByteWidth(type) * 8;
}

bool IsArrayType(PrimitiveType type) {
  return type != PrimitiveType::TUPLE && type != PrimitiveType::TOKEN &&
         type != PrimitiveType::PRIMITIVE_TYPE_INVALID;
}

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64;
}

bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S8 || type == S16 || type == S32 || type == S64;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U8 || type == U16 || type == U32 || type == U64;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == C64) return F32;
  if (type == C128) return F64;
  return PrimitiveType::PRIMITIVE_TYPE_INVALID;
}

}  // namespace plexa::primitive_util
