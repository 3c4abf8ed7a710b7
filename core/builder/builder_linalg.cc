// Linear algebra and convolution: dot, convolution (seed 004's four forms),
// triangular-solve, cholesky, batch normalization.
#include "absl/strings/str_cat.h"
#include "core/builder/builder.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {

using builder_internal::DefaultOnes;
using builder_internal::DimsToString;
using builder_internal::MakeWindow;

// ---- Dot
// ------------------------------------------------------------------------

Op Builder::Dot(Op lhs, Op rhs, PrimitiveType preferred_element_type) {
  return Emit("Dot", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
    const Shape& ls = l->shape();
    const Shape& rs = r->shape();
    auto rank_ok = [](const Shape& s) {
      return s.IsArray() && (s.rank() == 1 || s.rank() == 2);
    };
    if (!rank_ok(ls) || !rank_ok(rs)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operands must have rank 1 or 2 (use DotGeneral otherwise), got ",
          ls.ToString(), " and ", rs.ToString()));
    }
    // Contract lhs's last dimension with rhs's first.
    DotDimensionNumbers dnums;
    dnums.lhs_contracting_dimensions = {ls.rank() - 1};
    dnums.rhs_contracting_dimensions = {0};
    return Nested(DotGeneral(lhs, rhs, dnums, preferred_element_type));
  });
}

Op Builder::DotGeneral(Op lhs, Op rhs,
                       const DotDimensionNumbers& dimension_numbers,
                       PrimitiveType preferred_element_type) {
  return Emit("DotGeneral", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferDotShape(
            l->shape(), r->shape(), dimension_numbers, preferred_element_type));
    InstructionAttrs attrs;
    attrs.dot_dimension_numbers = dimension_numbers;
    return AddInstruction(HloOpcode::kDot, std::move(result), {l, r},
                          std::move(attrs));
  });
}

// ---- Convolution
// -------------------------------------------------------------------

absl::StatusOr<Instruction*> Builder::AddConvolution(
    Instruction* lhs, Instruction* rhs, Window window,
    const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count, int64_t batch_group_count,
    PrimitiveType preferred_element_type) {
  PLEXA_ASSIGN_OR_RETURN(
      Shape result,
      shape_inference::InferConvolveShape(
          lhs->shape(), rhs->shape(), feature_group_count, batch_group_count,
          window, dimension_numbers, preferred_element_type));
  InstructionAttrs attrs;
  attrs.window = std::move(window);
  attrs.convolution_dimension_numbers = dimension_numbers;
  attrs.feature_group_count = feature_group_count;
  attrs.batch_group_count = batch_group_count;
  return AddInstruction(HloOpcode::kConvolution, std::move(result), {lhs, rhs},
                        std::move(attrs));
}

namespace {

// The spatial sizes of `shape` at `dims`, or an error naming the operand.
absl::StatusOr<std::vector<int64_t>> SpatialSizes(
    const Shape& shape, absl::Span<const int64_t> dims,
    absl::string_view what) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be an array, got ", shape.ToString()));
  }
  std::vector<int64_t> sizes;
  for (int64_t d : dims) {
    if (d < 0 || d >= shape.rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " spatial dimensions ", DimsToString(dims),
                       " are out of range for ", shape.ToString()));
    }
    sizes.push_back(shape.dimensions(d));
  }
  return sizes;
}

absl::StatusOr<ConvolutionDimensionNumbers> DefaultDimsFor(const Shape& lhs) {
  if (!lhs.IsArray() || lhs.rank() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "lhs must be an array of rank >= 2 ([batch, feature, spatial...]), "
        "got ",
        lhs.ToString()));
  }
  return MakeDefaultConvDimensionNumbers(lhs.rank() - 2);
}

}  // namespace

Op Builder::ConvGeneralDilated(
    Op lhs, Op rhs, absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    absl::Span<const int64_t> lhs_dilation,
    absl::Span<const int64_t> rhs_dilation,
    const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count, int64_t batch_group_count,
    PrimitiveType preferred_element_type) {
  return Emit("ConvGeneralDilated", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
    const auto& kernel_dims = dimension_numbers.kernel_spatial_dimensions;
    const int64_t n = static_cast<int64_t>(kernel_dims.size());
    if (static_cast<int64_t>(
            dimension_numbers.input_spatial_dimensions.size()) != n ||
        static_cast<int64_t>(
            dimension_numbers.output_spatial_dimensions.size()) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension numbers name ",
          dimension_numbers.input_spatial_dimensions.size(), " input, ", n,
          " kernel and ", dimension_numbers.output_spatial_dimensions.size(),
          " output spatial dimensions"));
    }
    if (static_cast<int64_t>(window_strides.size()) != n ||
        static_cast<int64_t>(padding.size()) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "window strides ", DimsToString(window_strides), " and padding (",
          padding.size(), " pairs) must have one entry per spatial dimension (",
          n, ") for lhs ", l->shape().ToString(), " and rhs ",
          r->shape().ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> window_sizes,
                           SpatialSizes(r->shape(), kernel_dims, "rhs"));
    PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> base,
                           DefaultOnes(lhs_dilation, n, "lhs dilation"));
    PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> win,
                           DefaultOnes(rhs_dilation, n, "rhs dilation"));
    return AddConvolution(
        l, r, MakeWindow(window_sizes, window_strides, padding, base, win),
        dimension_numbers, feature_group_count, batch_group_count,
        preferred_element_type);
  });
}

Op Builder::ConvWithGeneralDimensions(
    Op lhs, Op rhs, absl::Span<const int64_t> window_strides, Padding padding,
    const ConvolutionDimensionNumbers& dimension_numbers,
    int64_t feature_group_count, int64_t batch_group_count) {
  return Emit(
      "ConvWithGeneralDimensions", [&]() -> absl::StatusOr<Instruction*> {
        PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
        PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
        PLEXA_ASSIGN_OR_RETURN(
            std::vector<int64_t> base,
            SpatialSizes(l->shape(), dimension_numbers.input_spatial_dimensions,
                         "lhs"));
        PLEXA_ASSIGN_OR_RETURN(
            std::vector<int64_t> window,
            SpatialSizes(r->shape(),
                         dimension_numbers.kernel_spatial_dimensions, "rhs"));
        if (window.size() != base.size()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "dimension numbers name ", base.size(), " input and ",
              window.size(), " kernel spatial dimensions"));
        }
        PLEXA_ASSIGN_OR_RETURN(
            auto pads, MakePadding(base, window, window_strides, padding));
        return Nested(ConvGeneralDilated(lhs, rhs, window_strides, pads, {}, {},
                                         dimension_numbers, feature_group_count,
                                         batch_group_count));
      });
}

Op Builder::Conv(Op lhs, Op rhs, absl::Span<const int64_t> window_strides,
                 Padding padding, int64_t feature_group_count,
                 int64_t batch_group_count) {
  return Emit("Conv", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                           DefaultDimsFor(l->shape()));
    return Nested(ConvWithGeneralDimensions(lhs, rhs, window_strides, padding,
                                            dnums, feature_group_count,
                                            batch_group_count));
  });
}

Op Builder::ConvWithGeneralPadding(
    Op lhs, Op rhs, absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding,
    absl::Span<const int64_t> lhs_dilation,
    absl::Span<const int64_t> rhs_dilation, int64_t feature_group_count,
    int64_t batch_group_count) {
  return Emit("ConvWithGeneralPadding", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(ConvolutionDimensionNumbers dnums,
                           DefaultDimsFor(l->shape()));
    return Nested(ConvGeneralDilated(lhs, rhs, window_strides, padding,
                                     lhs_dilation, rhs_dilation, dnums,
                                     feature_group_count, batch_group_count));
  });
}

// ---- Triangular solve, Cholesky
// ------------------------------------------------------

Op Builder::TriangularSolve(Op a, Op b, bool left_side, bool lower,
                            bool unit_diagonal,
                            TriangularSolveTranspose transpose_a) {
  return Emit("TriangularSolve", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * ai, Resolve(a));
    PLEXA_ASSIGN_OR_RETURN(Instruction * bi, Resolve(b));
    InstructionAttrs attrs;
    attrs.triangular_solve_options.left_side = left_side;
    attrs.triangular_solve_options.lower = lower;
    attrs.triangular_solve_options.unit_diagonal = unit_diagonal;
    attrs.triangular_solve_options.transpose_a = transpose_a;
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferTriangularSolveShape(
            ai->shape(), bi->shape(), attrs.triangular_solve_options));
    return AddInstruction(HloOpcode::kTriangularSolve, std::move(result),
                          {ai, bi}, std::move(attrs));
  });
}

Op Builder::Cholesky(Op a, bool lower) {
  return Emit("Cholesky", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * ai, Resolve(a));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferCholeskyShape(ai->shape()));
    InstructionAttrs attrs;
    attrs.cholesky_lower = lower;
    return AddInstruction(HloOpcode::kCholesky, std::move(result), {ai},
                          std::move(attrs));
  });
}

// ---- Batch normalization
// ----------------------------------------------------------------

namespace {

InstructionAttrs BatchNormAttrs(float epsilon, int64_t feature_index) {
  InstructionAttrs attrs;
  attrs.epsilon = epsilon;
  attrs.feature_index = feature_index;
  return attrs;
}

}  // namespace

Op Builder::BatchNormTraining(Op operand, Op scale, Op offset, float epsilon,
                              int64_t feature_index) {
  return Emit("BatchNormTraining", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops,
                           ResolveAll({operand, scale, offset}));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferBatchNormTrainingShape(
            ops[0]->shape(), ops[1]->shape(), ops[2]->shape(), feature_index));
    return AddInstruction(HloOpcode::kBatchNormTraining, std::move(result), ops,
                          BatchNormAttrs(epsilon, feature_index));
  });
}

Op Builder::BatchNormInference(Op operand, Op scale, Op offset, Op mean,
                               Op variance, float epsilon,
                               int64_t feature_index) {
  return Emit("BatchNormInference", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(
        std::vector<Instruction*> ops,
        ResolveAll({operand, scale, offset, mean, variance}));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferBatchNormInferenceShape(
                          ops[0]->shape(), ops[1]->shape(), ops[2]->shape(),
                          ops[3]->shape(), ops[4]->shape(), feature_index));
    return AddInstruction(HloOpcode::kBatchNormInference, std::move(result),
                          ops, BatchNormAttrs(epsilon, feature_index));
  });
}

Op Builder::BatchNormGrad(Op operand, Op scale, Op mean, Op variance,
                          Op grad_output, float epsilon,
                          int64_t feature_index) {
  return Emit("BatchNormGrad", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(
        std::vector<Instruction*> ops,
        ResolveAll({operand, scale, mean, variance, grad_output}));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferBatchNormGradShape(
                          ops[0]->shape(), ops[1]->shape(), ops[2]->shape(),
                          ops[3]->shape(), ops[4]->shape(), feature_index));
    return AddInstruction(HloOpcode::kBatchNormGrad, std::move(result), ops,
                          BatchNormAttrs(epsilon, feature_index));
  });
}

}  // namespace plexa
