#include "core/ir/attributes.h"

#include <array>
#include <utility>

namespace plexa {
namespace {

template <typename E, size_t N>
absl::string_view ToName(
    const std::array<std::pair<E, absl::string_view>, N>& t, E value) {
  for (const auto& [e, s] : t) {
    if (e == value) return s;
  }
  return "<invalid>";
}

template <typename E, size_t N>
std::optional<E> FromName(
    const std::array<std::pair<E, absl::string_view>, N>& t,
    absl::string_view name) {
  for (const auto& [e, s] : t) {
    if (s == name) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<ComparisonDirection, absl::string_view>, 6>
    kDirections = {{{ComparisonDirection::kEq, "EQ"},
                    {ComparisonDirection::kNe, "NE"},
                    {ComparisonDirection::kGe, "GE"},
                    {ComparisonDirection::kGt, "GT"},
                    {ComparisonDirection::kLe, "LE"},
                    {ComparisonDirection::kLt, "LT"}}};

constexpr std::array<std::pair<ComparisonType, absl::string_view>, 4>
    kComparisonTypes = {{{ComparisonType::kFloat, "FLOAT"},
                         {ComparisonType::kFloatTotalOrder, "TOTALORDER"},
                         {ComparisonType::kSigned, "SIGNED"},
                         {ComparisonType::kUnsigned, "UNSIGNED"}}};

constexpr std::array<std::pair<FusionKind, absl::string_view>, 4> kFusionKinds =
    {{{FusionKind::kLoop, "kLoop"},
      {FusionKind::kInput, "kInput"},
      {FusionKind::kOutput, "kOutput"},
      {FusionKind::kCustom, "kCustom"}}};

constexpr std::array<std::pair<RandomDistribution, absl::string_view>, 2>
    kDistributions = {{{RandomDistribution::kUniform, "rng_uniform"},
                       {RandomDistribution::kNormal, "rng_normal"}}};

// XLA's spelling (RandomAlgorithmToString): lower case, with the "rng_".
constexpr std::array<std::pair<RandomAlgorithm, absl::string_view>, 3>
    kAlgorithms = {{{RandomAlgorithm::kDefault, "rng_default"},
                    {RandomAlgorithm::kThreeFry, "rng_three_fry"},
                    {RandomAlgorithm::kPhilox, "rng_philox"}}};

constexpr std::array<std::pair<CustomCallApiVersion, absl::string_view>, 5>
    kApiVersions = {
        {{CustomCallApiVersion::kUnspecified, "API_VERSION_UNSPECIFIED"},
         {CustomCallApiVersion::kOriginal, "API_VERSION_ORIGINAL"},
         {CustomCallApiVersion::kStatusReturning,
          "API_VERSION_STATUS_RETURNING"},
         {CustomCallApiVersion::kStatusReturningUnified,
          "API_VERSION_STATUS_RETURNING_UNIFIED"},
         {CustomCallApiVersion::kTypedFfi, "API_VERSION_TYPED_FFI"}}};

constexpr std::array<std::pair<TriangularSolveTranspose, absl::string_view>, 3>
    kTransposes = {{{TriangularSolveTranspose::kNoTranspose, "NO_TRANSPOSE"},
                    {TriangularSolveTranspose::kTranspose, "TRANSPOSE"},
                    {TriangularSolveTranspose::kAdjoint, "ADJOINT"}}};

// XLA's spelling (FftType_Name): upper case.
constexpr std::array<std::pair<FftType, absl::string_view>, 4> kFftTypes = {
    {{FftType::kFft, "FFT"},
     {FftType::kIfft, "IFFT"},
     {FftType::kRfft, "RFFT"},
     {FftType::kIrfft, "IRFFT"}}};

constexpr std::array<std::pair<ShuffleMode, absl::string_view>, 3>
    kShuffleModes = {{{ShuffleMode::kRotate, "rotate"},
                      {ShuffleMode::kPermute, "permute"},
                      {ShuffleMode::kMultiRotate, "multi_rotate"}}};

}  // namespace

absl::string_view ComparisonDirectionString(ComparisonDirection d) {
  return ToName(kDirections, d);
}
std::optional<ComparisonDirection> StringToComparisonDirection(
    absl::string_view s) {
  return FromName(kDirections, s);
}
absl::string_view ComparisonTypeString(ComparisonType t) {
  return ToName(kComparisonTypes, t);
}
std::optional<ComparisonType> StringToComparisonType(absl::string_view s) {
  return FromName(kComparisonTypes, s);
}
absl::string_view FusionKindString(FusionKind k) {
  return ToName(kFusionKinds, k);
}
std::optional<FusionKind> StringToFusionKind(absl::string_view s) {
  return FromName(kFusionKinds, s);
}
absl::string_view RandomDistributionString(RandomDistribution d) {
  return ToName(kDistributions, d);
}
std::optional<RandomDistribution> StringToRandomDistribution(
    absl::string_view s) {
  return FromName(kDistributions, s);
}
absl::string_view RandomAlgorithmString(RandomAlgorithm a) {
  return ToName(kAlgorithms, a);
}
std::optional<RandomAlgorithm> StringToRandomAlgorithm(absl::string_view s) {
  return FromName(kAlgorithms, s);
}
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v) {
  return ToName(kApiVersions, v);
}
std::optional<CustomCallApiVersion> StringToCustomCallApiVersion(
    absl::string_view s) {
  return FromName(kApiVersions, s);
}
absl::string_view TriangularSolveTransposeString(TriangularSolveTranspose t) {
  return ToName(kTransposes, t);
}
std::optional<TriangularSolveTranspose> StringToTriangularSolveTranspose(
    absl::string_view s) {
  return FromName(kTransposes, s);
}
absl::string_view ShuffleModeString(ShuffleMode m) {
  return ToName(kShuffleModes, m);
}
std::optional<ShuffleMode> StringToShuffleMode(absl::string_view s) {
  return FromName(kShuffleModes, s);
}
absl::string_view FftTypeString(FftType t) { return ToName(kFftTypes, t); }
std::optional<FftType> StringToFftType(absl::string_view s) {
  return FromName(kFftTypes, s);
}

ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (primitive_util::IsFloatingPointType(type) ||
      primitive_util::IsComplexType(type)) {
    return ComparisonType::kFloat;
  }
  if (primitive_util::IsSignedIntegralType(type))
    return ComparisonType::kSigned;
  return ComparisonType::kUnsigned;
}

}  // namespace plexa
