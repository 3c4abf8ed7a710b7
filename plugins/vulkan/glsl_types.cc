#include <complex>
#include <cstring>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "plugins/vulkan/glsl_emitter_internal.h"
#include "plugins/vulkan/glsl_small_float.h"

namespace plexa::vulkan::glsl_internal {

absl::Status NoCode(const Instruction& h, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat(h.name(), ": no Vulkan code for ", why));
}

bool IsFloat(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
         t == PrimitiveType::F32 || t == PrimitiveType::F64 || IsSmallFloat(t);
}
bool IsComplex(PrimitiveType t) {
  return t == PrimitiveType::C64 || t == PrimitiveType::C128;
}
bool IsSigned(PrimitiveType t) {
  return t == PrimitiveType::S2 || t == PrimitiveType::S4 ||
         t == PrimitiveType::S8 || t == PrimitiveType::S16 ||
         t == PrimitiveType::S32 || t == PrimitiveType::S64;
}
bool IsUnsigned(PrimitiveType t) {
  return t == PrimitiveType::U2 || t == PrimitiveType::U4 ||
         t == PrimitiveType::U8 || t == PrimitiveType::U16 ||
         t == PrimitiveType::U32 || t == PrimitiveType::U64;
}
int Bits(PrimitiveType t) {
  // The 8/4-bit floats live one per byte; f4e2m1fn has 4 bits of it (its
  // bitcasts are to s4/u4).
  if (t == PrimitiveType::F4E2M1FN) return 4;
  if (IsSmallFloat(t)) return 8;
  switch (t) {
    case PrimitiveType::S2:
    case PrimitiveType::U2:
      return 2;
    case PrimitiveType::S4:
    case PrimitiveType::U4:
      return 4;
    case PrimitiveType::S8:
    case PrimitiveType::U8:
      return 8;
    case PrimitiveType::S16:
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return 16;
    case PrimitiveType::S64:
    case PrimitiveType::U64:
    case PrimitiveType::F64:
      return 64;
    default:
      return 32;
  }
}

// The type values of `t` have in registers.
const char* Reg(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
      return "bool";
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8:
    case PrimitiveType::S16:
    case PrimitiveType::S32:
      return "int";
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
      return "uint";
    case PrimitiveType::S64:
      return "int64_t";
    case PrimitiveType::U64:
      return "uint64_t";
    case PrimitiveType::F64:
      return "double";
    case PrimitiveType::C64:
      return "vec2";  // (real, imaginary)
    case PrimitiveType::C128:
      return "dvec2";
    default:
      return "float";
  }
}

// The buffer block type that holds `t` (GLSL name of a buffer_reference).
const char* Block(PrimitiveType t) {
  if (IsSmallFloat(t)) return "Bu8";
  switch (t) {
    case PrimitiveType::PRED:
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8:
      return "Bu8";
    case PrimitiveType::S2:
    case PrimitiveType::S4:
    case PrimitiveType::S8:
      return "Bi8";
    case PrimitiveType::S16:
      return "Bi16";
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return "Bu16";
    case PrimitiveType::S32:
      return "Bi32";
    case PrimitiveType::U32:
      return "Bu32";
    case PrimitiveType::S64:
      return "Bi64";
    case PrimitiveType::U64:
      return "Bu64";
    case PrimitiveType::F64:
      return "Bf64";
    case PrimitiveType::C64:
      return "Bc64";
    case PrimitiveType::C128:
      return "Bc128";
    default:
      return "Bf32";
  }
}

// Keeps a narrow integer in its canonical register form (sign- or
// zero-extended) after arithmetic that may leave the type's range.
std::string Wrap(PrimitiveType t, const std::string& e) {
  switch (t) {
    case PrimitiveType::S2:
      return absl::StrCat("(((", e, ") << 30) >> 30)");
    case PrimitiveType::S4:
      return absl::StrCat("(((", e, ") << 28) >> 28)");
    case PrimitiveType::U2:
      return absl::StrCat("((", e, ") & 0x3u)");
    case PrimitiveType::U4:
      return absl::StrCat("((", e, ") & 0xFu)");
    case PrimitiveType::S8:
      return absl::StrCat("(((", e, ") << 24) >> 24)");
    case PrimitiveType::S16:
      return absl::StrCat("(((", e, ") << 16) >> 16)");
    case PrimitiveType::U8:
      return absl::StrCat("((", e, ") & 0xFFu)");
    case PrimitiveType::U16:
      return absl::StrCat("((", e, ") & 0xFFFFu)");
    default:
      return e;
  }
}

// f16/bf16 and the 8/4-bit float results are rounded to their type after
// every operation.
std::string Round(PrimitiveType t, const std::string& e) {
  if (t == PrimitiveType::F16) return absl::StrCat("rf16(", e, ")");
  if (t == PrimitiveType::BF16) return absl::StrCat("rbf16(", e, ")");
  if (IsSmallFloat(t)) {
    return absl::StrCat(SmallFloatFunction(t, "rnd"), "(", e, ")");
  }
  return e;
}

// An integer constant of type `t` in GLSL.
std::string IntConst(PrimitiveType t, int64_t v) {
  switch (t) {
    case PrimitiveType::S64:
      return absl::StrCat("int64_t(", v, "l)");
    case PrimitiveType::U64:
      return absl::StrCat("uint64_t(", static_cast<uint64_t>(v), "ul)");
    case PrimitiveType::U2:
    case PrimitiveType::U4:
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
      return absl::StrCat(static_cast<uint32_t>(v), "u");
    default:
      if (v == std::numeric_limits<int32_t>::min()) return "int(0x80000000u)";
      return absl::StrCat("int(", v, ")");
  }
}

std::string FloatConst(PrimitiveType t, double v) {
  if (t == PrimitiveType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return absl::StrFormat("packDouble2x32(uvec2(0x%08xu, 0x%08xu))",
                           static_cast<uint32_t>(bits),
                           static_cast<uint32_t>(bits >> 32));
  }
  const float f = static_cast<float>(v);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return absl::StrFormat("uintBitsToFloat(0x%08xu)", bits);
}

std::string ComplexConst(PrimitiveType t, std::complex<double> v) {
  const PrimitiveType part =
      t == PrimitiveType::C128 ? PrimitiveType::F64 : PrimitiveType::F32;
  return absl::StrCat(Reg(t), "(", FloatConst(part, v.real()), ", ",
                      FloatConst(part, v.imag()), ")");
}

std::string Const(PrimitiveType t, double v) {
  if (IsComplex(t)) return ComplexConst(t, v);
  if (IsFloat(t)) return FloatConst(t, v);
  if (t == PrimitiveType::PRED) return v != 0 ? "true" : "false";
  return IntConst(t, static_cast<int64_t>(v));
}

}  // namespace plexa::vulkan::glsl_internal
