// Shape inference for linear algebra and convolution: dot, convolution,
// triangular-solve, cholesky and the batch-norm family.
#include <algorithm>
#include <numeric>
#include <tuple>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::AllUnique;
using internal::Contains;
using internal::ExpectArray;
using internal::Invalid;
using internal::IsComplex;
using internal::IsFloating;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;
using internal::TypeName;

namespace {

// The result element type of dot/convolution: the operand type, or
// preferred_type (mixed precision, e.g. s8 x s8 -> s32) when given.
// PRIMITIVE_TYPE_INVALID means "use the operand type".
absl::StatusOr<PrimitiveType> ResultType(absl::string_view what,
                                         PrimitiveType operand_type,
                                         PrimitiveType preferred) {
  if (preferred == PrimitiveType::PRIMITIVE_TYPE_INVALID ||
      preferred == operand_type) {
    return operand_type;
  }
  if (!primitive_util::IsArrayType(preferred)) {
    return Invalid(what, ": the preferred element type ", TypeName(preferred),
                   " is not an array element type.");
  }
  if (!IsFloating(operand_type) && primitive_util::BitWidth(preferred) <
                                       primitive_util::BitWidth(operand_type)) {
    return Invalid(what, ": the preferred element type ", TypeName(preferred),
                   " must not be narrower than the operand type ",
                   TypeName(operand_type), ".");
  }
  return preferred;
}

// XLA's ShapeUtil::HigherPrecisionElementType of two operand types: the
// complex, then floating-point, then signed one, then the wider (for
// floats of one width, the one with more exponent bits: bf16 over f16, as
// XLA's HigherPrecisionType).
PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b) {
  if (a == b) return a;
  auto rank = [](PrimitiveType t) {
    const bool complex = primitive_util::IsComplexType(t);
    const bool fp = primitive_util::IsFloatingPointType(t) || complex;
    const int exponent = t == PrimitiveType::BF16  ? 8
                         : t == PrimitiveType::F16 ? 5
                                                   : 0;
    return std::make_tuple(complex, fp, primitive_util::IsSignedIntegralType(t),
                           primitive_util::BitWidth(t), exponent);
  };
  return rank(a) < rank(b) ? b : a;
}

}  // namespace

namespace internal {

absl::StatusOr<PrimitiveType> DotResultType(absl::string_view what,
                                            PrimitiveType operand_type,
                                            PrimitiveType preferred) {
  return ResultType(what, operand_type, preferred);
}

absl::Status CheckDotDimensions(absl::string_view what, const Shape& lhs,
                                const Shape& rhs,
                                const DotDimensionNumbers& dnums) {
  auto in_range = [](absl::Span<const int64_t> dims, int64_t rank) {
    return std::all_of(dims.begin(), dims.end(),
                       [&](int64_t d) { return d >= 0 && d < rank; });
  };
  if (!in_range(dnums.lhs_batch_dimensions, lhs.rank()) ||
      !in_range(dnums.lhs_contracting_dimensions, lhs.rank()) ||
      !in_range(dnums.rhs_batch_dimensions, rhs.rank()) ||
      !in_range(dnums.rhs_contracting_dimensions, rhs.rank())) {
    return Invalid(what, ": a dimension number is out of range.");
  }
  std::vector<int64_t> lhs_all = dnums.lhs_batch_dimensions;
  lhs_all.insert(lhs_all.end(), dnums.lhs_contracting_dimensions.begin(),
                 dnums.lhs_contracting_dimensions.end());
  std::vector<int64_t> rhs_all = dnums.rhs_batch_dimensions;
  rhs_all.insert(rhs_all.end(), dnums.rhs_contracting_dimensions.begin(),
                 dnums.rhs_contracting_dimensions.end());
  if (!AllUnique(lhs_all) || !AllUnique(rhs_all)) {
    return Invalid(what, ": a dimension number is not unique.");
  }
  if (dnums.lhs_contracting_dimensions.size() !=
      dnums.rhs_contracting_dimensions.size()) {
    return Invalid(what,
                   ": lhs and rhs must have the same number of contracting "
                   "dimensions.");
  }
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_contracting_dimensions[i]) !=
        rhs.dimensions(dnums.rhs_contracting_dimensions[i])) {
      return Invalid(what, ": contracting dimension sizes do not match.");
    }
  }
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size()) {
    return Invalid(what,
                   ": lhs and rhs must have the same number of batch "
                   "dimensions.");
  }
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    if (lhs.dimensions(dnums.lhs_batch_dimensions[i]) !=
        rhs.dimensions(dnums.rhs_batch_dimensions[i])) {
      return Invalid(what, ": batch dimension sizes do not match.");
    }
  }
  return absl::OkStatus();
}

void AppendDotResultDimensions(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& dnums,
                               absl::Span<const int64_t> rhs_excluded,
                               Shape* out) {
  // Batch dimensions first, then lhs free dimensions, then rhs free ones.
  for (int64_t d : dnums.lhs_batch_dimensions) {
    out->add_dimension(lhs.dimensions(d), lhs.is_dynamic_dimension(d));
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!Contains(dnums.lhs_batch_dimensions, d) &&
        !Contains(dnums.lhs_contracting_dimensions, d)) {
      out->add_dimension(lhs.dimensions(d), lhs.is_dynamic_dimension(d));
    }
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!Contains(dnums.rhs_batch_dimensions, d) &&
        !Contains(dnums.rhs_contracting_dimensions, d) &&
        !Contains(rhs_excluded, d)) {
      out->add_dimension(rhs.dimensions(d), rhs.is_dynamic_dimension(d));
    }
  }
}

}  // namespace internal

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    PrimitiveType preferred_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of dot"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of dot"));
  const std::string what =
      absl::StrCat("dot(", Str(lhs), ", ", Str(rhs), ") with ",
                   internal::DotDimsString(dnums));
  PLEXA_RETURN_IF_ERROR(internal::CheckDotDimensions(what, lhs, rhs, dnums));
  PrimitiveType type;
  PLEXA_ASSIGN_OR_RETURN(
      type,
      ResultType(what, HigherPrecision(lhs.element_type(), rhs.element_type()),
                 preferred_type));
  Shape out = MakeArray(type, {});
  internal::AppendDotResultDimensions(lhs, rhs, dnums, {}, &out);
  return out;
}

absl::StatusOr<Shape> InferConvolveShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums, PrimitiveType preferred_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of convolution"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of convolution"));
  const std::string what =
      absl::StrCat("convolution(", Str(lhs), ", ", Str(rhs), ") with window ",
                   internal::WindowString(window), ", dimension numbers {",
                   internal::ConvDimsString(dnums),
                   "}, feature_group_count=", feature_group_count,
                   ", batch_group_count=", batch_group_count);
  if (feature_group_count <= 0) {
    return Invalid(what, ": feature_group_count must be positive.");
  }
  if (batch_group_count <= 0) {
    return Invalid(what, ": batch_group_count must be positive.");
  }
  if (feature_group_count > 1 && batch_group_count > 1) {
    return Invalid(what,
                   ": feature_group_count and batch_group_count cannot both "
                   "be greater than 1.");
  }
  const size_t num_spatial = dnums.input_spatial_dimensions.size();
  if (dnums.kernel_spatial_dimensions.size() != num_spatial ||
      dnums.output_spatial_dimensions.size() != num_spatial) {
    return Invalid(what,
                   ": input, kernel and output must have the same number of "
                   "spatial dimensions.");
  }
  if (window.dimensions.size() != num_spatial) {
    return Invalid(what,
                   ": the window must have one dimension per spatial "
                   "dimension.");
  }
  const int64_t num_dims = static_cast<int64_t>(num_spatial) + 2;
  if (lhs.rank() != num_dims) {
    return Invalid(what, ": the lhs must have rank ", num_dims, ".");
  }
  if (rhs.rank() != num_dims) {
    return Invalid(what, ": the rhs must have rank ", num_dims, ".");
  }
  auto is_perm = [&](int64_t a, int64_t b, const std::vector<int64_t>& s) {
    std::vector<int64_t> all = {a, b};
    all.insert(all.end(), s.begin(), s.end());
    return internal::IsPermutation(all, num_dims);
  };
  if (!is_perm(dnums.input_batch_dimension, dnums.input_feature_dimension,
               dnums.input_spatial_dimensions)) {
    return Invalid(what,
                   ": the input dimension numbers must name each dimension "
                   "exactly once.");
  }
  if (!is_perm(dnums.kernel_input_feature_dimension,
               dnums.kernel_output_feature_dimension,
               dnums.kernel_spatial_dimensions)) {
    return Invalid(what,
                   ": the kernel dimension numbers must name each dimension "
                   "exactly once.");
  }
  if (!is_perm(dnums.output_batch_dimension, dnums.output_feature_dimension,
               dnums.output_spatial_dimensions)) {
    return Invalid(what,
                   ": the output dimension numbers must name each dimension "
                   "exactly once.");
  }
  const int64_t input_batch = lhs.dimensions(dnums.input_batch_dimension);
  const int64_t input_features = lhs.dimensions(dnums.input_feature_dimension);
  const int64_t kernel_input_features =
      rhs.dimensions(dnums.kernel_input_feature_dimension);
  const int64_t kernel_output_features =
      rhs.dimensions(dnums.kernel_output_feature_dimension);
  if (kernel_output_features % batch_group_count != 0) {
    return Invalid(what, ": the output feature dimension size ",
                   kernel_output_features,
                   " must be a multiple of batch_group_count.");
  }
  if (input_features % feature_group_count != 0 ||
      input_features / feature_group_count != kernel_input_features) {
    return Invalid(what, ": the input feature dimension size ", input_features,
                   " must equal the kernel input feature size ",
                   kernel_input_features, " times feature_group_count.");
  }
  if (kernel_output_features % feature_group_count != 0) {
    return Invalid(what, ": the output feature dimension size ",
                   kernel_output_features,
                   " must be divisible by feature_group_count.");
  }
  if (input_batch % batch_group_count != 0) {
    return Invalid(what, ": the input batch dimension size ", input_batch,
                   " must be divisible by batch_group_count.");
  }
  Shape base = MakeArray(lhs.element_type(), {});
  for (size_t i = 0; i < num_spatial; ++i) {
    const int64_t in_dim = dnums.input_spatial_dimensions[i];
    base.add_dimension(lhs.dimensions(in_dim),
                       lhs.is_dynamic_dimension(in_dim));
    const int64_t k = rhs.dimensions(dnums.kernel_spatial_dimensions[i]);
    if (window.dimensions[i].size != k) {
      return Invalid(what, ": window size ", window.dimensions[i].size,
                     " of spatial dimension ", i,
                     " does not match the kernel's size ", k, ".");
    }
  }
  absl::StatusOr<Shape> spatial =
      InferWindowOutputShape(base, window, lhs.element_type());
  if (!spatial.ok()) return Invalid(what, ": ", spatial.status().message());
  PrimitiveType type;
  PLEXA_ASSIGN_OR_RETURN(
      type,
      ResultType(what, HigherPrecision(lhs.element_type(), rhs.element_type()),
                 preferred_type));
  std::vector<int64_t> dims(num_dims);
  std::vector<bool> dynamic(num_dims, false);
  dims[dnums.output_batch_dimension] = input_batch / batch_group_count;
  dynamic[dnums.output_batch_dimension] =
      lhs.is_dynamic_dimension(dnums.input_batch_dimension);
  dims[dnums.output_feature_dimension] = kernel_output_features;
  for (size_t i = 0; i < num_spatial; ++i) {
    dims[dnums.output_spatial_dimensions[i]] = spatial->dimensions(i);
    dynamic[dnums.output_spatial_dimensions[i]] =
        spatial->is_dynamic_dimension(i);
  }
  Shape out = MakeArray(type, {});
  for (int64_t d = 0; d < num_dims; ++d) out.add_dimension(dims[d], dynamic[d]);
  return out;
}

absl::StatusOr<Shape> InferTriangularSolveShape(
    const Shape& a, const Shape& b, const TriangularSolveOptions& options) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(a, "a of triangular-solve"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(b, "b of triangular-solve"));
  const std::string what =
      absl::StrCat("triangular-solve(", Str(a), ", ", Str(b),
                   "), left_side=", options.left_side ? "true" : "false");
  if ((!IsFloating(a.element_type()) && !IsComplex(a.element_type())) ||
      a.element_type() != b.element_type()) {
    return Invalid(what,
                   ": the element types must be floating point or complex "
                   "and identical.");
  }
  if (a.rank() < 2) {
    return Invalid(what, ": 'a' must have rank >= 2.");
  }
  if (b.rank() != a.rank()) {
    return Invalid(what, ": 'a' and 'b' must have equal rank.");
  }
  const int64_t r = a.rank();
  if (a.dimensions(r - 2) != a.dimensions(r - 1)) {
    return Invalid(what,
                   ": the two minor dimensions of 'a' must be equal (a square "
                   "matrix).");
  }
  if (a.dimensions(r - 1) != b.dimensions(r - (options.left_side ? 2 : 1))) {
    return Invalid(what,
                   ": the shared dimension of 'a' and 'b' does not match.");
  }
  for (int64_t d = 0; d + 2 < r; ++d) {
    if (a.dimensions(d) != b.dimensions(d)) {
      return Invalid(what,
                     ": the leading batch dimensions of 'a' and 'b' must be "
                     "equal.");
    }
  }
  switch (options.transpose_a) {
    case TriangularSolveTranspose::kNoTranspose:
    case TriangularSolveTranspose::kTranspose:
    case TriangularSolveTranspose::kAdjoint:
      break;
    default:
      return Invalid(what, ": invalid transpose_a option.");
  }
  return NoLayout(b);
}

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(a, "operand of cholesky"));
  if (!IsFloating(a.element_type()) && !IsComplex(a.element_type())) {
    return Invalid("cholesky of ", Str(a),
                   ": the element type must be floating point or complex.");
  }
  if (a.rank() < 2) {
    return Invalid("cholesky of ", Str(a),
                   ": the operand must have rank >= 2.");
  }
  if (a.dimensions(a.rank() - 2) != a.dimensions(a.rank() - 1)) {
    return Invalid("cholesky of ", Str(a),
                   ": the two minor dimensions must be equal.");
  }
  return NoLayout(a);
}

namespace {

// Common checks of the batch-norm ops: the operand is a floating-point
// array with feature_index in range; each 1-d input has the operand's type
// and the feature count.
absl::StatusOr<int64_t> CheckBatchNorm(
    absl::string_view what, const Shape& operand, int64_t feature_index,
    std::initializer_list<std::pair<const char*, const Shape*>> inputs) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, what));
  for (const auto& [name, s] : inputs) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, what));
  }
  if (operand.rank() < 1) {
    return Invalid(what, ": the operand must have rank >= 1.");
  }
  if (feature_index < 0 || feature_index >= operand.rank()) {
    return Invalid(what, ": feature_index ", feature_index, " must be in [0, ",
                   operand.rank(), ").");
  }
  if (!IsFloating(operand.element_type())) {
    return Invalid(what,
                   ": the operand must have a floating-point element type.");
  }
  const int64_t features = operand.dimensions(feature_index);
  for (const auto& [name, s] : inputs) {
    if (s->rank() != 1) {
      return Invalid(what, ": ", name, " must have rank 1; got ", Str(*s), ".");
    }
    if (s->element_type() != operand.element_type()) {
      return Invalid(what, ": ", name,
                     " must have the operand's element type; got ", Str(*s),
                     ".");
    }
    if (s->dimensions(0) != features) {
      return Invalid(what, ": the size of ", name, " (", s->dimensions(0),
                     ") must equal the feature count ", features, ".");
    }
  }
  return features;
}

}  // namespace

absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand,
                                                  const Shape& scale,
                                                  const Shape& offset,
                                                  int64_t feature_index) {
  const std::string what =
      absl::StrCat("batch-norm-training(", Str(operand), ", ", Str(scale), ", ",
                   Str(offset), "), feature_index=", feature_index);
  int64_t features;
  PLEXA_ASSIGN_OR_RETURN(
      features, CheckBatchNorm(what, operand, feature_index,
                               {{"scale", &scale}, {"offset", &offset}}));
  // (output, batch_mean, batch_var)
  const Shape feature_shape = MakeArray(operand.element_type(), {features});
  return Shape(
      std::vector<Shape>{NoLayout(operand), feature_shape, feature_shape});
}

absl::StatusOr<Shape> InferBatchNormInferenceShape(
    const Shape& operand, const Shape& scale, const Shape& offset,
    const Shape& mean, const Shape& variance, int64_t feature_index) {
  const std::string what =
      absl::StrCat("batch-norm-inference(", Str(operand), ", ", Str(scale),
                   ", ", Str(offset), ", ", Str(mean), ", ", Str(variance),
                   "), feature_index=", feature_index);
  int64_t features;
  PLEXA_ASSIGN_OR_RETURN(features, CheckBatchNorm(what, operand, feature_index,
                                                  {{"scale", &scale},
                                                   {"offset", &offset},
                                                   {"mean", &mean},
                                                   {"variance", &variance}}));
  (void)features;
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferBatchNormGradShape(
    const Shape& operand, const Shape& scale, const Shape& mean,
    const Shape& variance, const Shape& grad_output, int64_t feature_index) {
  const std::string what =
      absl::StrCat("batch-norm-grad(", Str(operand), ", ", Str(scale), ", ",
                   Str(mean), ", ", Str(variance), ", ", Str(grad_output),
                   "), feature_index=", feature_index);
  int64_t features;
  PLEXA_ASSIGN_OR_RETURN(features, CheckBatchNorm(what, operand, feature_index,
                                                  {{"scale", &scale},
                                                   {"mean", &mean},
                                                   {"variance", &variance}}));
  PLEXA_RETURN_IF_ERROR(ExpectArray(grad_output, what));
  if (grad_output.element_type() != operand.element_type() ||
      !internal::SameDims(grad_output, operand)) {
    return Invalid(what, ": grad_output must have the operand's shape.");
  }
  // (grad_operand, grad_scale, grad_offset)
  const Shape feature_shape = MakeArray(operand.element_type(), {features});
  return Shape(
      std::vector<Shape>{NoLayout(operand), feature_shape, feature_shape});
}

}  // namespace plexa::shape_inference
