#include "core/infer/infer_util.h"

#include <algorithm>
#include <limits>
#include <set>

namespace plexa::shape_inference::internal {

std::string Str(absl::Span<const Shape* const> shapes) {
  std::string out = "(";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) out += ", ";
    out += shapes[i]->ToString();
  }
  return out + ")";
}

std::string Str(const ProgramShape& p) { return p.ToString(); }

absl::Status ExpectArray(const Shape& shape, absl::string_view what) {
  if (!shape.IsArray()) {
    return Invalid("Expected array argument for ", what, ", but got ",
                   Str(shape), ".");
  }
  return absl::OkStatus();
}

absl::Status ExpectArrayOrTupleOfArrays(const Shape& shape,
                                        absl::string_view what) {
  if (shape.IsTuple()) {
    for (const Shape& t : shape.tuple_shapes()) {
      absl::Status s = ExpectArrayOrTupleOfArrays(t, what);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  return ExpectArray(shape, what);
}

Shape MakeArray(PrimitiveType type, absl::Span<const int64_t> dims,
                absl::Span<const bool> dynamic) {
  Shape s(type, {});
  for (size_t i = 0; i < dims.size(); ++i) {
    s.add_dimension(dims[i], i < dynamic.size() && dynamic[i]);
  }
  return s;
}

Shape NoLayout(Shape shape) {
  shape.clear_layout();
  return shape;
}

Shape WithType(const Shape& shape, PrimitiveType type) {
  Shape s = NoLayout(shape);
  s.set_element_type(type);
  return s;
}

bool SameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int64_t i = 0; i < a.rank(); ++i) {
    if (a.dimensions(i) != b.dimensions(i)) return false;
  }
  return true;
}

bool Compatible(const Shape& a, const Shape& b) {
  return Shape::Equal().IgnoreLayout().IgnoreDynamicDimension()(a, b);
}

bool EqualIgnoringLayout(const Shape& a, const Shape& b) {
  return Shape::Equal().IgnoreLayout()(a, b);
}

int64_t ElementCount(const Shape& array) {
  int64_t n = 1;
  for (int64_t d : array.dimensions()) {
    // Saturate rather than overflow on absurd shapes.
    if (__builtin_mul_overflow(n, d, &n)) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return n;
}

bool IsFloating(PrimitiveType t) {
  return primitive_util::IsFloatingPointType(t);
}
bool IsComplex(PrimitiveType t) { return primitive_util::IsComplexType(t); }
bool IsIntegral(PrimitiveType t) { return primitive_util::IsIntegralType(t); }
bool IsSigned(PrimitiveType t) {
  return primitive_util::IsSignedIntegralType(t) || IsFloating(t);
}

bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

bool AllUnique(absl::Span<const int64_t> dims) {
  return std::set<int64_t>(dims.begin(), dims.end()).size() == dims.size();
}

bool IsSortedStrictly(absl::Span<const int64_t> dims) {
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i - 1] >= dims[i]) return false;
  }
  return true;
}

bool Contains(absl::Span<const int64_t> dims, int64_t d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

absl::Status VerifyBinaryReducer(absl::string_view op,
                                 absl::Span<const Shape* const> operands,
                                 const ProgramShape& to_apply) {
  for (const Shape* s : operands) {
    const Shape elem = MakeArray(s->element_type(), {});
    if (to_apply.parameters.size() != 2 ||
        !Compatible(to_apply.parameters[0], elem) ||
        !Compatible(to_apply.parameters[1], elem) ||
        !Compatible(to_apply.result, elem)) {
      return Invalid(op, Str(operands), ": the reduction computation must be (",
                     Str(elem), ", ", Str(elem), ") -> ", Str(elem), "; got ",
                     Str(to_apply), ".");
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyReducerShape(absl::string_view op,
                                const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const PrimitiveType> input_types,
                                int64_t inputs) {
  const int64_t nparams = static_cast<int64_t>(reducer.parameters.size());
  if (nparams != 2 * inputs) {
    return Invalid(op, ": reduction function must take ", 2 * inputs,
                   " parameters, but takes ", nparams,
                   " parameter(s): ", Str(reducer), ".");
  }
  const Shape& acc = reducer.result;
  std::vector<const Shape*> acc_parts;
  if (acc.IsArray()) {
    if (inputs != 1) {
      return Invalid(op, ": reduction function must produce a tuple with ",
                     inputs, " elements, but produces ", Str(acc), ".");
    }
    acc_parts.push_back(&acc);
  } else if (acc.IsTuple()) {
    if (acc.tuple_shapes_size() != inputs) {
      return Invalid(op, ": reduction function must produce a tuple with ",
                     inputs, " elements, but produces ", Str(acc), ".");
    }
    for (const Shape& t : acc.tuple_shapes()) acc_parts.push_back(&t);
  } else {
    return Invalid(op,
                   ": reduction function must produce a scalar or a tuple "
                   "of scalars, but produces ",
                   Str(acc), ".");
  }
  for (const Shape* part : acc_parts) {
    if (!part->IsScalar()) {
      return Invalid(op,
                     ": reduction function must return a scalar or a tuple "
                     "of scalars, but returns ",
                     Str(acc), ".");
    }
  }
  if (static_cast<int64_t>(init_values.size()) != inputs ||
      static_cast<int64_t>(input_types.size()) != inputs) {
    return Invalid(op, ": expected ", inputs, " init values, got ",
                   init_values.size(), ".");
  }
  for (int64_t i = 0; i < inputs; ++i) {
    const Shape& acc_i = *acc_parts[i];
    if (!Compatible(acc_i, reducer.parameters[i])) {
      return Invalid(op, ": reduction function's parameter ", i, " (",
                     Str(reducer.parameters[i]), ") differs from its result ",
                     Str(acc_i), ".");
    }
    if (!Compatible(acc_i, *init_values[i])) {
      return Invalid(op, ": reduction function's accumulator ", Str(acc_i),
                     " at index ", i, " differs from the init value shape ",
                     Str(*init_values[i]), ".");
    }
    const Shape elem = MakeArray(input_types[i], {});
    if (!Compatible(elem, reducer.parameters[inputs + i])) {
      return Invalid(op, ": reduction function's parameter ", inputs + i, " (",
                     Str(reducer.parameters[inputs + i]),
                     ") differs from the input element shape ", Str(elem), ".");
    }
  }
  return absl::OkStatus();
}

std::string WindowString(const Window& window) {
  std::vector<std::string> size, stride, pad, lhs, rhs;
  for (const WindowDimension& d : window.dimensions) {
    size.push_back(absl::StrCat(d.size));
    stride.push_back(absl::StrCat(d.stride));
    pad.push_back(absl::StrCat(d.padding_low, "_", d.padding_high));
    lhs.push_back(absl::StrCat(d.base_dilation));
    rhs.push_back(absl::StrCat(d.window_dilation));
  }
  return absl::StrCat("{size=", absl::StrJoin(size, "x"),
                      " stride=", absl::StrJoin(stride, "x"),
                      " pad=", absl::StrJoin(pad, "x"),
                      " lhs_dilate=", absl::StrJoin(lhs, "x"),
                      " rhs_dilate=", absl::StrJoin(rhs, "x"), "}");
}

std::string DotDimsString(const DotDimensionNumbers& d) {
  return absl::StrCat(
      "lhs_batch_dims=", Str(d.lhs_batch_dimensions),
      ", lhs_contracting_dims=", Str(d.lhs_contracting_dimensions),
      ", rhs_batch_dims=", Str(d.rhs_batch_dimensions),
      ", rhs_contracting_dims=", Str(d.rhs_contracting_dimensions));
}

std::string ConvDimsString(const ConvolutionDimensionNumbers& d) {
  return absl::StrCat(
      "input batch=", d.input_batch_dimension,
      " feature=", d.input_feature_dimension,
      " spatial=", Str(d.input_spatial_dimensions),
      "; kernel input_feature=", d.kernel_input_feature_dimension,
      " output_feature=", d.kernel_output_feature_dimension,
      " spatial=", Str(d.kernel_spatial_dimensions),
      "; output batch=", d.output_batch_dimension,
      " feature=", d.output_feature_dimension,
      " spatial=", Str(d.output_spatial_dimensions));
}

std::string PaddingString(const PaddingConfig& p) {
  std::vector<std::string> parts;
  for (const PaddingDimension& d : p.dimensions) {
    parts.push_back(absl::StrCat(d.edge_padding_low, "_", d.edge_padding_high,
                                 "_", d.interior_padding));
  }
  return absl::StrJoin(parts, "x");
}

}  // namespace plexa::shape_inference::internal
