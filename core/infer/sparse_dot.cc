// dot with structured-sparse operands (XLA's HloDotInstruction with
// sparsity, ShapeInference::InferDotOpShape and InferSparseDotMetadataShape,
// ShapeVerifier::HandleDot):
//
//   dot(lhs, rhs, meta...), <dot's dimension numbers>, sparsity=L.1@2:4
//
// XLA scales the sparse operand's contracting size by m/n before comparing
// it with its partner; so do we, by inferring the dense dot of the logical
// (decompressed) shapes. Plexa adds the checks XLA leaves to its GPU
// emitter, each with a message: the sparse dimension is a contracting one,
// its stored size is a whole number of groups, 0 < n < m.
#include "core/ir/sparse_dot.h"

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::ExpectArray;
using internal::Invalid;
using internal::Str;

absl::StatusOr<Shape> InferSparseDotShape(
    absl::Span<const Shape* const> operands, const DotDimensionNumbers& dnums,
    absl::Span<const SparsityDescriptor> sparsity,
    PrimitiveType preferred_type) {
  const std::string what = absl::StrCat("dot with sparsity=",
                                        sparse_dot::SparsityToString(sparsity));
  if (operands.size() != 2 + sparsity.size()) {
    return Invalid(what, ": expects ", 2 + sparsity.size(),
                   " operands (lhs, rhs and one metadata operand per sparse "
                   "operand), got ",
                   operands.size(), ".");
  }
  PLEXA_RETURN_IF_ERROR(ExpectArray(*operands[0], "lhs of dot"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(*operands[1], "rhs of dot"));
  for (const Shape* s : operands) {
    if (s->is_dynamic()) {
      return absl::UnimplementedError(
          absl::StrCat(what, ": dynamic dimensions in a sparse dot (", Str(*s),
                       ") are not supported."));
    }
  }
  Shape logical[2] = {*operands[0], *operands[1]};
  bool seen[2] = {false, false};
  for (size_t i = 0; i < sparsity.size(); ++i) {
    const SparsityDescriptor& d = sparsity[i];
    if (d.index != 0 && d.index != 1) {
      return Invalid(what, ": descriptor ", i, " names operand ", d.index,
                     "; only the lhs (L, 0) and rhs (R, 1) can be sparse.");
    }
    const char* side = d.index == 0 ? "lhs" : "rhs";
    if (seen[d.index]) {
      return Invalid(what, ": the ", side, " has two sparsity descriptors.");
    }
    seen[d.index] = true;
    if (d.n <= 0 || d.m <= d.n || d.m > (int64_t{1} << 16)) {
      return Invalid(what, ": ", d.n, ":", d.m,
                     " is not a structured sparsity (need 0 < n < m <= "
                     "65536).");
    }
    const Shape& operand = *operands[d.index];
    if (d.dimension < 0 || d.dimension >= operand.rank()) {
      return Invalid(what, ": sparse dimension ", d.dimension,
                     " is out of range for the ", side, " ", Str(operand), ".");
    }
    const std::vector<int64_t>& contracting =
        d.index == 0 ? dnums.lhs_contracting_dimensions
                     : dnums.rhs_contracting_dimensions;
    if (!internal::Contains(contracting, d.dimension)) {
      return Invalid(what, ": sparse dimension ", d.dimension, " of the ", side,
                     " is not one of its contracting dimensions.");
    }
    const int64_t stored = operand.dimensions(d.dimension);
    if (stored % d.n != 0) {
      return Invalid(what, ": the ", side, " stores ", stored,
                     " values along its sparse dimension ", d.dimension,
                     ", not a whole number of groups of ", d.n, ".");
    }
    const Shape& meta = *operands[2 + i];
    const Shape expected = sparse_dot::MetadataShape(operand, d);
    if (!meta.IsArray() || meta.element_type() != expected.element_type() ||
        meta.dimensions() != expected.dimensions()) {
      return Invalid(what, ": metadata operand ", 2 + i, " is ", Str(meta),
                     "; the ", side, " ", Str(operand), " needs ",
                     Str(expected), " (", sparse_dot::IndexBits(d.m),
                     "-bit positions, packed in u16).");
    }
    logical[d.index] = sparse_dot::LogicalShape(operand, d);
  }
  absl::StatusOr<Shape> dense =
      InferDotShape(logical[0], logical[1], dnums, preferred_type);
  if (!dense.ok()) {
    return Invalid(what, " (the logical operands ", Str(logical[0]), " and ",
                   Str(logical[1]), "): ", dense.status().message());
  }
  return dense;
}

}  // namespace plexa::shape_inference
