// What the module_proto writer and reader share: the enum tables (one per
// enumeration, read in both directions) and small helpers. Internal to
// core/proto.
#ifndef PLEXA_CORE_PROTO_MODULE_PROTO_INTERNAL_H_
#define PLEXA_CORE_PROTO_MODULE_PROTO_INTERNAL_H_

#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/ir/attributes.h"
#include "core/ir/instruction.h"
#include "core/shape/shape.h"
#include "proto/module.pb.h"

namespace plexa::proto_internal {

namespace pb = ::plexa::proto;

// Literal bytes travel as Literal::data() holds them; the schema says
// little-endian, which is the host order on every platform Plexa builds
// for. A big-endian port would swap element bytes here.
static_assert(std::endian::native == std::endian::little,
              "the plexa-module format stores literal data little-endian");

// Tuples nested deeper than this (in shapes and literals) are refused on
// both sides, as the text parser does; it also keeps every message well
// inside protobuf's own parse depth limit (100).
constexpr int kMaxNestingDepth = 64;

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// ------------------------------------------------------------ enum tables
//
// One table per enumeration, read in both directions, so the in-memory
// enum can be reordered without changing the wire numbers.

template <typename Core, typename Wire>
struct EnumEntry {
  Core core;
  Wire wire;
};

template <typename Core, typename Wire, size_t N>
std::optional<Core> FromWire(const EnumEntry<Core, Wire> (&table)[N],
                             int wire) {
  for (const auto& e : table) {
    if (static_cast<int>(e.wire) == wire) return e.core;
  }
  return std::nullopt;
}

template <typename Core, typename Wire, size_t N>
std::optional<Wire> ToWire(const EnumEntry<Core, Wire> (&table)[N], Core core) {
  for (const auto& e : table) {
    if (e.core == core) return e.wire;
  }
  return std::nullopt;
}

inline constexpr EnumEntry<PrimitiveType, pb::ElementType> kElementTypes[] = {
    {PrimitiveType::PRED, pb::ELEMENT_TYPE_PRED},
    {PrimitiveType::S8, pb::ELEMENT_TYPE_S8},
    {PrimitiveType::S16, pb::ELEMENT_TYPE_S16},
    {PrimitiveType::S32, pb::ELEMENT_TYPE_S32},
    {PrimitiveType::S64, pb::ELEMENT_TYPE_S64},
    {PrimitiveType::U8, pb::ELEMENT_TYPE_U8},
    {PrimitiveType::U16, pb::ELEMENT_TYPE_U16},
    {PrimitiveType::U32, pb::ELEMENT_TYPE_U32},
    {PrimitiveType::U64, pb::ELEMENT_TYPE_U64},
    {PrimitiveType::F16, pb::ELEMENT_TYPE_F16},
    {PrimitiveType::BF16, pb::ELEMENT_TYPE_BF16},
    {PrimitiveType::F32, pb::ELEMENT_TYPE_F32},
    {PrimitiveType::F64, pb::ELEMENT_TYPE_F64},
    {PrimitiveType::C64, pb::ELEMENT_TYPE_C64},
    {PrimitiveType::C128, pb::ELEMENT_TYPE_C128},
    {PrimitiveType::S4, pb::ELEMENT_TYPE_S4},
    {PrimitiveType::U4, pb::ELEMENT_TYPE_U4},
    {PrimitiveType::S2, pb::ELEMENT_TYPE_S2},
    {PrimitiveType::U2, pb::ELEMENT_TYPE_U2},
    {PrimitiveType::F8E5M2, pb::ELEMENT_TYPE_F8E5M2},
    {PrimitiveType::F8E4M3FN, pb::ELEMENT_TYPE_F8E4M3FN},
    {PrimitiveType::F8E4M3B11FNUZ, pb::ELEMENT_TYPE_F8E4M3B11FNUZ},
    {PrimitiveType::F8E5M2FNUZ, pb::ELEMENT_TYPE_F8E5M2FNUZ},
    {PrimitiveType::F8E4M3FNUZ, pb::ELEMENT_TYPE_F8E4M3FNUZ},
    {PrimitiveType::F8E4M3, pb::ELEMENT_TYPE_F8E4M3},
    {PrimitiveType::F8E3M4, pb::ELEMENT_TYPE_F8E3M4},
    {PrimitiveType::F4E2M1FN, pb::ELEMENT_TYPE_F4E2M1FN},
    {PrimitiveType::F8E8M0FNU, pb::ELEMENT_TYPE_F8E8M0FNU},
    {PrimitiveType::TUPLE, pb::ELEMENT_TYPE_TUPLE},
    {PrimitiveType::TOKEN, pb::ELEMENT_TYPE_TOKEN},
};

inline constexpr EnumEntry<PaddingValue, pb::PaddingValue> kPaddingValues[] = {
    {PaddingValue::kZero, pb::PADDING_VALUE_ZERO},
    {PaddingValue::kLowest, pb::PADDING_VALUE_LOWEST},
    {PaddingValue::kHighest, pb::PADDING_VALUE_HIGHEST},
    {PaddingValue::kUnknown, pb::PADDING_VALUE_UNKNOWN},
};

inline constexpr EnumEntry<ComparisonDirection, pb::ComparisonDirection>
    kComparisonDirections[] = {
        {ComparisonDirection::kEq, pb::COMPARISON_DIRECTION_EQ},
        {ComparisonDirection::kNe, pb::COMPARISON_DIRECTION_NE},
        {ComparisonDirection::kGe, pb::COMPARISON_DIRECTION_GE},
        {ComparisonDirection::kGt, pb::COMPARISON_DIRECTION_GT},
        {ComparisonDirection::kLe, pb::COMPARISON_DIRECTION_LE},
        {ComparisonDirection::kLt, pb::COMPARISON_DIRECTION_LT},
};

inline constexpr EnumEntry<ComparisonType, pb::ComparisonType>
    kComparisonTypes[] = {
        {ComparisonType::kDefault, pb::COMPARISON_TYPE_DEFAULT},
        {ComparisonType::kFloat, pb::COMPARISON_TYPE_FLOAT},
        {ComparisonType::kFloatTotalOrder,
         pb::COMPARISON_TYPE_FLOAT_TOTAL_ORDER},
        {ComparisonType::kSigned, pb::COMPARISON_TYPE_SIGNED},
        {ComparisonType::kUnsigned, pb::COMPARISON_TYPE_UNSIGNED},
};

inline constexpr EnumEntry<RandomDistribution, pb::RandomDistribution>
    kDistributions[] = {
        {RandomDistribution::kUniform, pb::RANDOM_DISTRIBUTION_UNIFORM},
        {RandomDistribution::kNormal, pb::RANDOM_DISTRIBUTION_NORMAL},
};

inline constexpr EnumEntry<FftType, pb::FftType> kFftTypes[] = {
    {FftType::kFft, pb::FFT_TYPE_FFT},
    {FftType::kIfft, pb::FFT_TYPE_IFFT},
    {FftType::kRfft, pb::FFT_TYPE_RFFT},
    {FftType::kIrfft, pb::FFT_TYPE_IRFFT},
};

inline constexpr EnumEntry<ShuffleMode, pb::ShuffleMode> kShuffleModes[] = {
    {ShuffleMode::kRotate, pb::SHUFFLE_MODE_ROTATE},
    {ShuffleMode::kPermute, pb::SHUFFLE_MODE_PERMUTE},
    {ShuffleMode::kMultiRotate, pb::SHUFFLE_MODE_MULTI_ROTATE},
};

inline constexpr EnumEntry<RandomAlgorithm, pb::RandomAlgorithm> kAlgorithms[] =
    {
        {RandomAlgorithm::kDefault, pb::RANDOM_ALGORITHM_DEFAULT},
        {RandomAlgorithm::kThreeFry, pb::RANDOM_ALGORITHM_THREE_FRY},
        {RandomAlgorithm::kPhilox, pb::RANDOM_ALGORITHM_PHILOX},
};

inline constexpr EnumEntry<FusionKind, pb::FusionKind> kFusionKinds[] = {
    {FusionKind::kLoop, pb::FUSION_KIND_LOOP},
    {FusionKind::kInput, pb::FUSION_KIND_INPUT},
    {FusionKind::kOutput, pb::FUSION_KIND_OUTPUT},
    {FusionKind::kCustom, pb::FUSION_KIND_CUSTOM},
};

inline constexpr EnumEntry<CustomCallApiVersion, pb::CustomCallApiVersion>
    kApiVersions[] = {
        {CustomCallApiVersion::kUnspecified,
         pb::CUSTOM_CALL_API_VERSION_UNSPECIFIED},
        {CustomCallApiVersion::kOriginal, pb::CUSTOM_CALL_API_VERSION_ORIGINAL},
        {CustomCallApiVersion::kStatusReturning,
         pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING},
        {CustomCallApiVersion::kStatusReturningUnified,
         pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING_UNIFIED},
        {CustomCallApiVersion::kTypedFfi,
         pb::CUSTOM_CALL_API_VERSION_TYPED_FFI},
};

inline constexpr EnumEntry<TriangularSolveTranspose,
                           pb::TriangularSolveTranspose>
    kTransposes[] = {
        {TriangularSolveTranspose::kNoTranspose,
         pb::TRIANGULAR_SOLVE_NO_TRANSPOSE},
        {TriangularSolveTranspose::kTranspose, pb::TRIANGULAR_SOLVE_TRANSPOSE},
        {TriangularSolveTranspose::kAdjoint, pb::TRIANGULAR_SOLVE_ADJOINT},
};

// Writes `core` through `table` into *out, or fails naming the field (an
// in-memory value outside its enumeration).
template <typename Core, typename Wire, size_t N, typename Setter>
absl::Status WriteEnum(const EnumEntry<Core, Wire> (&table)[N], Core core,
                       absl::string_view field, absl::string_view where,
                       Setter set) {
  std::optional<Wire> wire = ToWire(table, core);
  if (!wire) {
    return Invalid(where, ": cannot serialize ", field, " ",
                   static_cast<int>(core), ": not a known value");
  }
  set(*wire);
  return absl::OkStatus();
}

template <typename Core, typename Wire, size_t N>
absl::StatusOr<Core> ReadEnum(const EnumEntry<Core, Wire> (&table)[N], int wire,
                              absl::string_view field,
                              absl::string_view where) {
  std::optional<Core> core = FromWire(table, wire);
  if (!core) {
    return Invalid(where, ": unknown ", field, " ", wire,
                   " (written by a newer Plexa, or corrupted)");
  }
  return *core;
}

template <typename T>
std::vector<int64_t> ToVector(const T& repeated) {
  return std::vector<int64_t>(repeated.begin(), repeated.end());
}

template <typename C, typename R>
void AppendAll(const C& values, R* repeated) {
  for (int64_t v : values) repeated->Add(v);
}

// InstructionAttrs <-> InstructionAttrsProto, every field of
// AllAttrFields() (core/ir/attribute_table.h) whatever the opcode.
// `where` names the instruction in errors. Exposed for the attribute
// table's round-trip test.
absl::Status AttrsToProto(const InstructionAttrs& a,
                          pb::InstructionAttrsProto* p,
                          absl::string_view where);
absl::StatusOr<InstructionAttrs> AttrsFromProto(
    const pb::InstructionAttrsProto& p, absl::string_view where);

}  // namespace plexa::proto_internal

#endif  // PLEXA_CORE_PROTO_MODULE_PROTO_INTERNAL_H_
