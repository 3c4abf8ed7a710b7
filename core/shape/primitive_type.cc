#include "core/shape/primitive_type.h"

#include "absl/strings/str_cat.h"

namespace plexa::primitive_util {

absl::string_view Name(PrimitiveType type) {
  switch (type) {
#define PLEXA_PT_NAME(e, s, n, b) \
  case PrimitiveType::e:          \
    return s;
    PLEXA_PRIMITIVE_TYPES(PLEXA_PT_NAME)
#undef PLEXA_PT_NAME
    default:
      return "invalid";
  }
}

absl::StatusOr<PrimitiveType> FromName(absl::string_view name) {
#define PLEXA_PT_FROM(e, s, n, b) \
  if (name == s) return PrimitiveType::e;
  PLEXA_PRIMITIVE_TYPES(PLEXA_PT_FROM)
#undef PLEXA_PT_FROM
  return absl::InvalidArgumentError(
      absl::StrCat("unknown element type '", name, "'"));
}

int64_t ByteWidth(PrimitiveType type) {
  switch (type) {
#define PLEXA_PT_SIZE(e, s, n, b) \
  case PrimitiveType::e:          \
    return n;
    PLEXA_PRIMITIVE_TYPES(PLEXA_PT_SIZE)
#undef PLEXA_PT_SIZE
    default:
      return 0;
  }
}

int64_t BitWidth(PrimitiveType type) {
  switch (type) {
#define PLEXA_PT_BITS(e, s, n, b) \
  case PrimitiveType::e:          \
    return b;
    PLEXA_PRIMITIVE_TYPES(PLEXA_PT_BITS)
#undef PLEXA_PT_BITS
    default:
      return 0;
  }
}

bool IsArrayType(PrimitiveType type) {
  return type != PrimitiveType::TUPLE && type != PrimitiveType::TOKEN &&
         type != PrimitiveType::PRIMITIVE_TYPE_INVALID;
}

bool IsF8Type(PrimitiveType type) {
  switch (type) {
    case F8E5M2:
    case F8E4M3FN:
    case F8E4M3B11FNUZ:
    case F8E5M2FNUZ:
    case F8E4M3FNUZ:
    case F8E4M3:
    case F8E3M4:
    case F8E8M0FNU:
      return true;
    default:
      return false;
  }
}

bool IsMXType(PrimitiveType type) {
  return type == F4E2M1FN || type == F8E8M0FNU;
}

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64 ||
         IsF8Type(type) || type == F4E2M1FN;
}

bool HasInfinity(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64 ||
         type == F8E5M2 || type == F8E4M3 || type == F8E3M4;
}

bool HasNegativeZero(PrimitiveType type) {
  return IsFloatingPointType(type) && type != F8E4M3B11FNUZ &&
         type != F8E5M2FNUZ && type != F8E4M3FNUZ && type != F8E8M0FNU;
}

bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S2 || type == S4 || type == S8 || type == S16 || type == S32 ||
         type == S64;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U2 || type == U4 || type == U8 || type == U16 || type == U32 ||
         type == U64;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

bool IsSubByteType(PrimitiveType type) {
  return IsArrayType(type) && type != PRED && BitWidth(type) < 8;
}

PrimitiveType ComplexComponentType(PrimitiveType type) {
  if (type == C64) return F32;
  if (type == C128) return F64;
  return PrimitiveType::PRIMITIVE_TYPE_INVALID;
}

}  // namespace plexa::primitive_util
