// shuffle (XLA's HloShuffleInstruction, xla/shuffle.h): one array's
// elements moved within its own shape, along the listed dimensions.
//
//   shuffle(x), dimensions={0,1}, mode=rotate, shifts={1,2}
//   shuffle(x), dimensions={0}, mode=permute, indices=s32[4]{0} {3,1,0,2}
//   shuffle(x), dimensions={1}, mode=multi_rotate, multi_shifts=s32[3,1] ...
//
// The result has the operand's shape. XLA's verifier for shuffle was not in
// the sources at hand; these are the checks its expander and xla/shuffle.cc
// rely on: listed dimensions distinct and in range, one shift per dimension
// (rotate), indices of the operand's shape (any dimension may be 1, shared)
// with a trailing coordinate dimension (left out for one shuffled
// dimension) and values in range (permute), one rotated dimension and a
// shift per slice (multi_rotate).
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"
#include "core/literal/literal.h"
#include "core/shape/shape_util.h"

namespace plexa::shape_inference {

using internal::ExpectArray;
using internal::Invalid;
using internal::NoLayout;
using internal::Str;

namespace {

constexpr absl::string_view kOp = "shuffle";

// A literal's leading dimensions against the operand's: equal, or 1.
absl::Status CheckBroadcastable(absl::string_view what, const Shape& lit,
                                const Shape& operand) {
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (lit.dimensions(i) != 1 && lit.dimensions(i) != operand.dimensions(i)) {
      return Invalid(kOp, ": ", what, " ", Str(lit), " must have the ",
                     "operand's dimensions (or 1) in front; dimension ", i,
                     " is ", lit.dimensions(i), ", the operand's ",
                     operand.dimensions(i), " (", Str(operand), ").");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIntegralLiteral(absl::string_view what, const Literal* lit) {
  if (lit == nullptr) {
    return Invalid(kOp, ": the mode needs ", what, "=<literal>.");
  }
  if (!lit->shape().IsArray() ||
      !internal::IsIntegral(lit->shape().element_type())) {
    return Invalid(kOp, ": ", what, " must be an integer array; got ",
                   Str(lit->shape()), ".");
  }
  return absl::OkStatus();
}

absl::Status CheckPermute(const Shape& operand, const InstructionAttrs& a) {
  const Literal* indices = a.shuffle_indices.get();
  PLEXA_RETURN_IF_ERROR(CheckIntegralLiteral("indices", indices));
  const Shape& s = indices->shape();
  const int64_t k = static_cast<int64_t>(a.dimensions.size());
  const bool coordinate_dim = s.rank() == operand.rank() + 1;
  if (!coordinate_dim && !(k == 1 && s.rank() == operand.rank())) {
    return Invalid(
        kOp, ": indices ", Str(s), " must have the operand's ", operand.rank(),
        " dimension(s) and a trailing one of ", k, " coordinate(s)",
        k == 1 ? " (which one shuffled dimension may leave out)" : "", ".");
  }
  if (coordinate_dim && s.dimensions(operand.rank()) != k) {
    return Invalid(kOp, ": the trailing dimension of indices ", Str(s),
                   " must hold one coordinate per shuffled dimension (", k,
                   ").");
  }
  PLEXA_RETURN_IF_ERROR(CheckBroadcastable("indices", s, operand));
  absl::Status bad = absl::OkStatus();
  ShapeUtil::ForEachIndex(s, [&](absl::Span<const int64_t> index) {
    if (!bad.ok()) return;
    const int64_t c = coordinate_dim ? index.back() : 0;
    const int64_t n = operand.dimensions(a.dimensions[c]);
    const int64_t v = indices->GetAsInt64(index);
    if (v < 0 || v >= n) {
      bad = Invalid(kOp, ": index ", v, " at ", Str(index),
                    " of indices is out of range for dimension ",
                    a.dimensions[c], " of size ", n, ".");
    }
  });
  return bad;
}

absl::Status CheckMultiRotate(const Shape& operand, const InstructionAttrs& a) {
  if (a.dimensions.size() != 1) {
    return Invalid(kOp, ": mode=multi_rotate rotates one dimension; got ",
                   "dimensions=", Str(a.dimensions), ".");
  }
  const Literal* shifts = a.shuffle_multi_shifts.get();
  PLEXA_RETURN_IF_ERROR(CheckIntegralLiteral("multi_shifts", shifts));
  const Shape& s = shifts->shape();
  if (s.rank() != operand.rank() || s.dimensions(a.dimensions[0]) != 1) {
    return Invalid(kOp, ": multi_shifts ", Str(s), " must have the ",
                   "operand's rank (", operand.rank(), ") with size 1 in the ",
                   "rotated dimension ", a.dimensions[0], ".");
  }
  return CheckBroadcastable("multi_shifts", s, operand);
}

}  // namespace

absl::StatusOr<Shape> InferShuffleShape(const Shape& operand,
                                        const InstructionAttrs& a) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of shuffle"));
  if (a.dimensions.empty()) {
    return Invalid(kOp, " needs at least one dimension in dimensions.");
  }
  std::vector<bool> seen(operand.rank(), false);
  for (int64_t d : a.dimensions) {
    if (d < 0 || d >= operand.rank()) {
      return Invalid(kOp, ": dimension ", d, " is out of range for ",
                     Str(operand), ".");
    }
    if (seen[d]) {
      return Invalid(kOp, ": dimension ", d, " is listed twice in ",
                     "dimensions=", Str(a.dimensions), ".");
    }
    seen[d] = true;
  }
  const bool rotate = a.shuffle_mode == ShuffleMode::kRotate;
  const bool permute = a.shuffle_mode == ShuffleMode::kPermute;
  const bool multi = a.shuffle_mode == ShuffleMode::kMultiRotate;
  if ((!a.shuffle_shifts.empty() && !rotate) ||
      (a.shuffle_indices != nullptr && !permute) ||
      (a.shuffle_multi_shifts != nullptr && !multi)) {
    return Invalid(kOp, ": mode=", ShuffleModeString(a.shuffle_mode), " takes ",
                   rotate    ? "shifts"
                   : permute ? "indices"
                             : "multi_shifts",
                   " and no other of shifts, indices and multi_shifts.");
  }
  if (rotate && a.shuffle_shifts.size() != a.dimensions.size()) {
    return Invalid(kOp, ": mode=rotate needs one shift per dimension; got ",
                   "shifts=", Str(a.shuffle_shifts),
                   " for dimensions=", Str(a.dimensions), ".");
  }
  if (permute) PLEXA_RETURN_IF_ERROR(CheckPermute(operand, a));
  if (multi) PLEXA_RETURN_IF_ERROR(CheckMultiRotate(operand, a));
  return NoLayout(operand);
}

}  // namespace plexa::shape_inference
