// Shape inference for reductions and windows: reduce (variadic),
// reduce-window (variadic), select-and-scatter, all-reduce and sort.
#include <algorithm>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::EqualIgnoringLayout;
using internal::ExpectArray;
using internal::Invalid;
using internal::MakeArray;
using internal::NoLayout;
using internal::SameDims;
using internal::Str;
using internal::WindowString;

namespace {

// Size of a dimension of size `bound` with `dilation`-1 holes between
// elements.
int64_t DilatedBound(int64_t bound, int64_t dilation) {
  if (bound <= 0) return 0;
  return (bound - 1) * dilation + 1;
}

// Number of window positions with stride `stride` in a `bound`-sized area.
int64_t StridedBound(int64_t bound, int64_t window, int64_t stride) {
  if (window > bound) return 0;
  return (bound - window) / stride + 1;
}

}  // namespace

absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base,
                                             const Window& window,
                                             PrimitiveType element_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(base, "base of a window"));
  if (static_cast<int64_t>(window.dimensions.size()) != base.rank()) {
    return Invalid("Window ", WindowString(window), " has ",
                   window.dimensions.size(), " dimensions but the base shape ",
                   Str(base), " has rank ", base.rank(), ".");
  }
  Shape out = MakeArray(element_type, {});
  for (int64_t i = 0; i < base.rank(); ++i) {
    const WindowDimension& d = window.dimensions[i];
    if (d.size <= 0) {
      return Invalid("Window ", WindowString(window),
                     " has a non-positive size (base ", Str(base), ").");
    }
    if (d.stride <= 0) {
      return Invalid("Window ", WindowString(window),
                     " has a non-positive stride (base ", Str(base), ").");
    }
    if (d.base_dilation < 1) {
      return Invalid("Window ", WindowString(window),
                     " has a non-positive base (lhs) dilation (base ",
                     Str(base), ").");
    }
    if (d.window_dilation < 1) {
      return Invalid("Window ", WindowString(window),
                     " has a non-positive window (rhs) dilation (base ",
                     Str(base), ").");
    }
    const int64_t padded = d.padding_low +
                           DilatedBound(base.dimensions(i), d.base_dilation) +
                           d.padding_high;
    const int64_t dilated_window = DilatedBound(d.size, d.window_dilation);
    out.add_dimension(StridedBound(padded, dilated_window, d.stride),
                      base.is_dynamic_dimension(i));
  }
  return out;
}

absl::StatusOr<Shape> InferReduceShape(
    absl::Span<const Shape* const> operands_and_inits,
    absl::Span<const int64_t> dimensions, const ProgramShape& to_apply) {
  // Variadic (SEMANTICS.md "Reduce"): N operands of equal dimensions, N
  // init values, a reducer over 2N scalars returning an N-tuple (or a
  // scalar when N = 1).
  const size_t total = operands_and_inits.size();
  if (total < 2 || total % 2 != 0) {
    return Invalid(
        "reduce expects N operands and N init values (an even "
        "number, at least 2); got ",
        Str(operands_and_inits), ".");
  }
  const int64_t n = static_cast<int64_t>(total / 2);
  auto operands = operands_and_inits.subspan(0, n);
  auto inits = operands_and_inits.subspan(n, n);
  for (const Shape* s : operands_and_inits) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of reduce"));
  }
  const Shape& arg = *operands[0];
  const std::string what = absl::StrCat("reduce", Str(operands_and_inits),
                                        " with dimensions=", Str(dimensions),
                                        " and to_apply ", Str(to_apply));
  for (int64_t i = 1; i < n; ++i) {
    if (!SameDims(arg, *operands[i])) {
      return Invalid(what,
                     ": all reduced operands must have the same dimensions.");
    }
  }
  std::vector<bool> reduced(arg.rank(), false);
  for (int64_t d : dimensions) {
    if (d < 0 || d >= arg.rank()) {
      return Invalid(what, ": reducing out-of-bounds dimension ", d, ".");
    }
    if (reduced[d]) {
      return Invalid(what, ": duplicate reduction dimension ", d, ".");
    }
    reduced[d] = true;
  }
  std::vector<PrimitiveType> types;
  for (const Shape* s : operands) types.push_back(s->element_type());
  absl::Status st =
      internal::VerifyReducerShape("reduce", to_apply, inits, types, n);
  if (!st.ok()) return Invalid(what, ": ", st.message());
  // The result drops the reduced dimensions, keeping the others in order.
  auto result_for = [&](PrimitiveType t) {
    Shape out = MakeArray(t, {});
    for (int64_t d = 0; d < arg.rank(); ++d) {
      if (!reduced[d]) {
        out.add_dimension(arg.dimensions(d), arg.is_dynamic_dimension(d));
      }
    }
    return out;
  };
  if (to_apply.result.IsArray())
    return result_for(to_apply.result.element_type());
  std::vector<Shape> parts;
  for (const Shape& t : to_apply.result.tuple_shapes()) {
    parts.push_back(result_for(t.element_type()));
  }
  return Shape(std::move(parts));
}

absl::StatusOr<Shape> InferReduceWindowShape(
    absl::Span<const Shape* const> operands_and_inits, const Window& window,
    const ProgramShape& to_apply) {
  const size_t total = operands_and_inits.size();
  if (total < 2 || total % 2 != 0) {
    return Invalid(
        "reduce-window expects N operands and N init values (an "
        "even number, at least 2); got ",
        Str(operands_and_inits), ".");
  }
  const int64_t n = static_cast<int64_t>(total / 2);
  auto operands = operands_and_inits.subspan(0, n);
  auto inits = operands_and_inits.subspan(n, n);
  for (const Shape* s : operands_and_inits) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of reduce-window"));
  }
  const std::string what =
      absl::StrCat("reduce-window", Str(operands_and_inits), " with window ",
                   WindowString(window), " and to_apply ", Str(to_apply));
  for (int64_t i = 1; i < n; ++i) {
    if (!SameDims(*operands[0], *operands[i])) {
      return Invalid(what,
                     ": all reduced operands must have the same dimensions.");
    }
  }
  std::vector<PrimitiveType> types;
  for (const Shape* s : operands) types.push_back(s->element_type());
  absl::Status st =
      internal::VerifyReducerShape("reduce-window", to_apply, inits, types, n);
  if (!st.ok()) return Invalid(what, ": ", st.message());
  std::vector<Shape> parts;
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<Shape> s =
        InferWindowOutputShape(*operands[i], window, inits[i]->element_type());
    if (!s.ok()) return Invalid(what, ": ", s.status().message());
    parts.push_back(std::move(s).value());
  }
  if (n == 1) return parts[0];
  return Shape(std::move(parts));
}

absl::StatusOr<Shape> InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window,
    const Shape& source, const Shape& init_value, const ProgramShape& scatter) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of select-and-scatter"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(source, "source of select-and-scatter"));
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(init_value, "init value of select-and-scatter"));
  const std::string what =
      absl::StrCat("select-and-scatter(", Str(operand), ", ", Str(source), ", ",
                   Str(init_value), ") with window ", WindowString(window));
  // select: (T, T) -> pred[].
  if (select.parameters.size() != 2) {
    return Invalid(what, ": the select function must take 2 parameters; got ",
                   Str(select), ".");
  }
  if (!Compatible(select.result, MakeArray(PrimitiveType::PRED, {}))) {
    return Invalid(what, ": the select function must return pred[]; got ",
                   Str(select), ".");
  }
  const Shape elem = MakeArray(operand.element_type(), {});
  for (int i = 0; i < 2; ++i) {
    if (!Compatible(elem, select.parameters[i])) {
      return Invalid(what, ": select function parameter ", i,
                     " must be the operand element shape ", Str(elem), "; got ",
                     Str(select), ".");
    }
  }
  // scatter: a reducer over the source's element type.
  const Shape* init_ptr = &init_value;
  const PrimitiveType source_type = source.element_type();
  absl::Status st = internal::VerifyReducerShape(
      "select-and-scatter", scatter, absl::MakeConstSpan(&init_ptr, 1),
      absl::MakeConstSpan(&source_type, 1), 1);
  if (!st.ok()) return Invalid(what, ": ", st.message());
  absl::StatusOr<Shape> windowed =
      InferWindowOutputShape(operand, window, operand.element_type());
  if (!windowed.ok()) return Invalid(what, ": ", windowed.status().message());
  if (!Compatible(source, *windowed)) {
    return Invalid(what,
                   ": the source shape must equal the window-reduced "
                   "operand shape ",
                   Str(*windowed), ".");
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferAllReduceShape(
    absl::Span<const Shape* const> operands, const ProgramShape& to_apply) {
  if (operands.empty()) {
    return Invalid("all-reduce expects at least one operand.");
  }
  for (const Shape* s : operands) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of all-reduce"));
  }
  // Seed 004's CrossReplicaSum is HLO all-reduce with a to_apply
  // computation (SEMANTICS.md). XLA's GPU tests also reduce with a
  // computation over whole arrays, (T[s], T[s]) -> T[s] of the operand's
  // shape (XLA's verifier does not look at to_apply): it is applied to the
  // members' arrays in group order.
  const bool whole_array =
      to_apply.parameters.size() == 2 && to_apply.result.IsArray() &&
      to_apply.result.rank() > 0 &&
      std::all_of(operands.begin(), operands.end(), [&](const Shape* s) {
        return EqualIgnoringLayout(*s, to_apply.parameters[0]) &&
               EqualIgnoringLayout(*s, to_apply.parameters[1]) &&
               EqualIgnoringLayout(*s, to_apply.result);
      });
  if (!whole_array) {
    PLEXA_RETURN_IF_ERROR(
        internal::VerifyBinaryReducer("all-reduce", operands, to_apply));
  }
  if (operands.size() == 1) return NoLayout(*operands[0]);
  std::vector<Shape> parts;
  for (const Shape* s : operands) parts.push_back(NoLayout(*s));
  return Shape(std::move(parts));
}

absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands,
                                     int64_t dimension,
                                     const ProgramShape& comparator) {
  if (operands.empty()) {
    return Invalid("sort expects at least one operand.");
  }
  for (const Shape* s : operands) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of sort"));
  }
  const std::string what =
      absl::StrCat("sort", Str(operands), " with dimensions={", dimension,
                   "} and comparator ", Str(comparator));
  for (const Shape* s : operands) {
    if (!SameDims(*operands[0], *s)) {
      return Invalid(what, ": all operands must have the same dimensions.");
    }
  }
  if (dimension < 0 || dimension >= operands[0]->rank()) {
    return Invalid(what, ": the sort dimension is out of range.");
  }
  // SEMANTICS.md "Sort": several operands sorted together along one
  // dimension. The comparator takes 2N scalars (operand i's pair at 2i, 2i+1)
  // and returns pred[].
  if (comparator.parameters.size() != 2 * operands.size()) {
    return Invalid(what, ": the comparator must take ", 2 * operands.size(),
                   " parameters.");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape elem = MakeArray(operands[i]->element_type(), {});
    if (!Compatible(comparator.parameters[2 * i], elem) ||
        !Compatible(comparator.parameters[2 * i + 1], elem)) {
      return Invalid(what, ": comparator parameters ", 2 * i, " and ",
                     2 * i + 1, " must be ", Str(elem), ".");
    }
  }
  if (!Compatible(comparator.result, MakeArray(PrimitiveType::PRED, {}))) {
    return Invalid(what, ": the comparator must return pred[].");
  }
  if (operands.size() == 1) return NoLayout(*operands[0]);
  std::vector<Shape> parts;
  for (const Shape* s : operands) parts.push_back(NoLayout(*s));
  return Shape(std::move(parts));
}

}  // namespace plexa::shape_inference
