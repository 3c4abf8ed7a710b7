// scan (XLA's HloScanInstruction): the checks of XLA's verifier
// (ShapeVerifier::HandleScan, CheckScanParameters, CheckScanToApplyShape)
// and the result shape it builds.
//
//   scan(inputs..., inits...), dimensions={d}, num_carries=C, to_apply=f
//
// f takes (one slice of each input along d, the carries) and returns
// (per-step outputs..., new carries...), or one value. The result holds
// each output stacked along d, then the final carries; one element alone
// is a bare array when the written shape is not a tuple.
#include <optional>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::Invalid;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;

namespace {

constexpr absl::string_view kOp = "scan";

// The elements of to_apply's result: its tuple's, or the one value.
std::vector<Shape> RootElements(const ProgramShape& f) {
  if (f.result.IsTuple()) return f.result.tuple_shapes();
  return {f.result};
}

Shape WithoutDimension(const Shape& s, int64_t d) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (i != d) dims.push_back(s.dimensions(i));
  }
  return MakeArray(s.element_type(), dims);
}

// Everything XLA's verifier checks for `carries` carries; the result
// elements (outputs, then carries) when they hold.
absl::StatusOr<std::vector<Shape>> CheckWithCarries(
    absl::Span<const Shape* const> operands, int64_t d, int64_t carries,
    const ProgramShape& f) {
  const int64_t n = static_cast<int64_t>(operands.size());
  if (carries < 0 || carries > n) {
    return Invalid(kOp, ": num_carries=", carries, " with ", n, " operand(s).");
  }
  const int64_t inputs = n - carries;
  if (inputs < 1) {
    return Invalid(kOp, " needs at least one input besides its ", carries,
                   " init(s); got ", Str(operands), ".");
  }
  if (static_cast<int64_t>(f.parameters.size()) != n) {
    return Invalid(kOp, ": to_apply ", Str(f), " must take ", n,
                   " parameters (", inputs, " input slice(s), then ", carries,
                   " carry(ies)); it takes ", f.parameters.size(), ".");
  }
  int64_t length = -1;
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& in = *operands[i];
    PLEXA_RETURN_IF_ERROR(internal::ExpectArray(in, "input of scan"));
    if (d < 0 || d >= in.rank()) {
      return Invalid(kOp, ": scan dimension ", d, " is out of bounds for ",
                     "operand ", i, " ", Str(in), ".");
    }
    if (length >= 0 && in.dimensions(d) != length) {
      return Invalid(kOp, ": the inputs differ in the length of dimension ", d,
                     ": ", length, " and ", in.dimensions(d), " (operand ", i,
                     " ", Str(in), ").");
    }
    length = in.dimensions(d);
    const Shape slice = WithoutDimension(in, d);
    if (!Compatible(f.parameters[i], slice)) {
      return Invalid(kOp, ": parameter ", i, " of to_apply has shape ",
                     Str(f.parameters[i]),
                     ", which does not match the input element shape ",
                     Str(slice), ".");
    }
  }
  for (int64_t j = 0; j < carries; ++j) {
    const Shape& init = *operands[inputs + j];
    if (!Compatible(f.parameters[inputs + j], init)) {
      return Invalid(kOp, ": parameter ", inputs + j, " of to_apply has shape ",
                     Str(f.parameters[inputs + j]),
                     ", which does not match init ", j, " ", Str(init), ".");
    }
  }
  const std::vector<Shape> root = RootElements(f);
  const int64_t outputs = static_cast<int64_t>(root.size()) - carries;
  if (outputs < 0) {
    return Invalid(kOp, ": to_apply returns ", Str(f.result), ", ", root.size(),
                   " element(s), fewer than its ", carries, " carry(ies).");
  }
  std::vector<Shape> result;
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& e = root[k];
    PLEXA_RETURN_IF_ERROR(internal::ExpectArray(e, "output of scan"));
    std::vector<int64_t> dims(e.dimensions().begin(), e.dimensions().end());
    if (d > static_cast<int64_t>(dims.size())) {
      return Invalid(kOp, ": output ", k, " of to_apply, ", Str(e),
                     ", has too few dimensions to insert scan dimension ", d,
                     ".");
    }
    dims.insert(dims.begin() + d, length);
    result.push_back(MakeArray(e.element_type(), dims));
  }
  for (int64_t j = 0; j < carries; ++j) {
    const Shape& carry = root[outputs + j];
    if (!Compatible(carry, f.parameters[inputs + j])) {
      return Invalid(kOp, ": to_apply's result element ", outputs + j, " ",
                     Str(carry), " does not match its parameter ", inputs + j,
                     " ", Str(f.parameters[inputs + j]), " (the carry).");
    }
    result.push_back(NoLayout(*operands[inputs + j]));
  }
  return result;
}

}  // namespace

absl::StatusOr<int64_t> ScanNumCarries(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       std::optional<int64_t> num_carries,
                                       const ProgramShape& to_apply) {
  if (dimensions.size() != 1) {
    return Invalid(kOp, " expects exactly one entry in dimensions; got ",
                   Str(dimensions), ".");
  }
  if (num_carries.has_value()) return *num_carries;
  // Left out (as in some of XLA's tests): the one count the shapes allow.
  std::optional<int64_t> found;
  for (int64_t c = 0; c < static_cast<int64_t>(operands.size()); ++c) {
    if (!CheckWithCarries(operands, dimensions[0], c, to_apply).ok()) continue;
    if (found.has_value()) {
      return Invalid(kOp, ": num_carries is left out and both ", *found,
                     " and ", c, " carries fit the operands ", Str(operands),
                     " and to_apply ", Str(to_apply), "; write num_carries.");
    }
    found = c;
  }
  if (!found.has_value()) {
    // No count fits: report the likeliest (half the operands are inits).
    return CheckWithCarries(operands, dimensions[0],
                            static_cast<int64_t>(operands.size()) / 2, to_apply)
        .status();
  }
  return *found;
}

absl::StatusOr<Shape> InferScanShape(absl::Span<const Shape* const> operands,
                                     absl::Span<const int64_t> dimensions,
                                     std::optional<int64_t> num_carries,
                                     const ProgramShape& to_apply,
                                     const Shape* declared) {
  PLEXA_ASSIGN_OR_RETURN(
      int64_t carries,
      ScanNumCarries(operands, dimensions, num_carries, to_apply));
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<Shape> elements,
      CheckWithCarries(operands, dimensions[0], carries, to_apply));
  if (elements.size() == 1 && (declared == nullptr || !declared->IsTuple())) {
    return std::move(elements[0]);
  }
  return Shape(std::move(elements));
}

}  // namespace plexa::shape_inference
