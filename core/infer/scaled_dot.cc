// scaled-dot (XLA's HloScaledDotInstruction): the checks of XLA's verifier
// (ShapeVerifier::HandleScaledDot, ScalesShapeVerifier) and dot's result.
//
//   scaled-dot(lhs, rhs, lhs_scale, rhs_scale), <dot's dimension numbers>
//
// Each scale has its operand's rank and divides each of its dimensions: a
// scale element covers a block of its operand (docs/evaluator.md). A
// scalar scale is none; both scalars is an error.
#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::ExpectArray;
using internal::Invalid;
using internal::Str;

namespace {

constexpr absl::string_view kOp = "scaled-dot";

// XLA's IsNoOpScale: a bf16 scale of all-1 dimensions on a bf16 operand
// that is not all-1 itself is skipped by the verifier.
bool IsNoOpScale(const Shape& operand, const Shape& scale) {
  if (scale.element_type() != operand.element_type() ||
      operand.element_type() != PrimitiveType::BF16) {
    return false;
  }
  bool all_one = true;
  for (int64_t d : scale.dimensions()) all_one = all_one && d == 1;
  bool operand_all_one = true;
  for (int64_t d : operand.dimensions()) {
    operand_all_one = operand_all_one && d == 1;
  }
  return all_one && !operand_all_one;
}

absl::Status CheckScale(absl::string_view side, const Shape& operand,
                        const Shape& scale, size_t contracting) {
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(scale, absl::StrCat(side, " scale of scaled-dot")));
  if (IsNoOpScale(operand, scale)) return absl::OkStatus();
  if (scale.rank() != operand.rank()) {
    return Invalid(kOp, ": the ", side, " scale ", Str(scale), " has ",
                   scale.rank(), " dimension(s), the ", side, " operand ",
                   Str(operand), " has ", operand.rank(), ".");
  }
  if (contracting != 1) {
    return Invalid(kOp, ": the ", side, " operand must have exactly one ",
                   "contracting dimension; it has ", contracting, ".");
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (scale.dimensions(i) == 0 ||
        operand.dimensions(i) % scale.dimensions(i) != 0) {
      return Invalid(kOp, ": dimension ", i, " of the ", side, " operand ",
                     Str(operand), " should be a multiple of dimension ", i,
                     " of its scale ", Str(scale), ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferScaledDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& lhs_scale,
                                          const Shape& rhs_scale,
                                          const DotDimensionNumbers& dnums,
                                          PrimitiveType preferred_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of scaled-dot"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of scaled-dot"));
  PLEXA_RETURN_IF_ERROR(CheckScale("lhs", lhs, lhs_scale,
                                   dnums.lhs_contracting_dimensions.size()));
  PLEXA_RETURN_IF_ERROR(CheckScale("rhs", rhs, rhs_scale,
                                   dnums.rhs_contracting_dimensions.size()));
  if (lhs_scale.rank() == 0 && rhs_scale.rank() == 0) {
    return Invalid(kOp, ": at least one of the scales should not be a ",
                   "scalar; got ", Str(lhs_scale), " and ", Str(rhs_scale),
                   ".");
  }
  // XLA's dot check compares the operand types ignoring floating-point
  // precision (SameElementTypeIgnoringFpPrecision): block-scaled operands
  // are often of two float types (f8e4m3fn x f8e5m2, bf16 x f32).
  const bool both_float =
      primitive_util::IsFloatingPointType(lhs.element_type()) &&
      primitive_util::IsFloatingPointType(rhs.element_type());
  absl::StatusOr<Shape> result = InferDotShape(
      lhs, both_float ? internal::WithType(rhs, lhs.element_type()) : rhs,
      dnums, preferred_type);
  if (!result.ok()) return Invalid(kOp, ": ", result.status().message());
  return result;
}

PrimitiveType ScaledDotProductType(PrimitiveType operand, PrimitiveType scale) {
  const int64_t wa = primitive_util::BitWidth(operand);
  const int64_t wb = primitive_util::BitWidth(scale);
  if (wa < 16 && wb < 16) return PrimitiveType::BF16;
  if (operand == scale) return operand;
  if (wa == wb) return PrimitiveType::F32;
  return wa > wb ? operand : scale;
}

}  // namespace plexa::shape_inference
