// NumPy .npy files <-> Literal.
//
// Reads format versions 1.0, 2.0 and 3.0, little-endian (or byte-order
// free '|') data, C or Fortran order, and the dtypes
//   |b1 -> pred   |i1 <i2 <i4 <i8 -> s8..s64   |u1 <u2 <u4 <u8 -> u8..u64
//   <f2 <f4 <f8 -> f16 f32 f64   <c8 <c16 -> c64 c128
// bf16 (an extension: numpy has no bfloat16): written with descr '<V2',
// which is what ml_dtypes' bfloat16 arrays save as; a '<V2'/'|V2' file is
// read as bf16 only when the caller expects bf16.
// Writes version 1.0 (2.0 when the header needs it), C order.
#ifndef PLEXA_CORE_NPY_NPY_H_
#define PLEXA_CORE_NPY_NPY_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/literal/literal.h"

namespace plexa {

// `expected_type` resolves '<V2' as bf16; other dtypes ignore it (the
// caller compares and reports a mismatch naming both).
absl::StatusOr<Literal> ReadNpy(
    absl::string_view bytes,
    std::optional<PrimitiveType> expected_type = std::nullopt);
absl::StatusOr<Literal> ReadNpyFile(
    const std::string& path,
    std::optional<PrimitiveType> expected_type = std::nullopt);

// Arrays only (tuples: write each element).
absl::StatusOr<std::string> WriteNpy(const Literal& literal);
absl::Status WriteNpyFile(const std::string& path, const Literal& literal);

// The numpy descr for an element type ("<f4"); InvalidArgument for
// TUPLE/TOKEN.
absl::StatusOr<std::string> NpyDescr(PrimitiveType type);

}  // namespace plexa

#endif  // PLEXA_CORE_NPY_NPY_H_
