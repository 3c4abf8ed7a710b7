// Shape inference for elementwise operations: unary, binary (HLO form and
// seed 003's broadcasting form), compare, clamp, select, convert,
// bitcast-convert, reduce-precision and map.
#include <algorithm>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::ExpectArray;
using internal::Invalid;
using internal::IsComplex;
using internal::IsFloating;
using internal::IsIntegral;
using internal::IsSigned;
using internal::MakeArray;
using internal::NoLayout;
using internal::SameDims;
using internal::Str;
using internal::TypeName;
using internal::WithType;

absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode,
                                        const Shape& operand) {
  const absl::string_view op = HloOpcodeString(opcode);
  // copy is defined for every shape, tuples included.
  if (opcode == HloOpcode::kCopy) return NoLayout(operand);
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, absl::StrCat("operand of ", op)));
  const PrimitiveType t = operand.element_type();
  auto type_error = [&](absl::string_view expected) {
    return Invalid("Expected element type in shape to be ", expected, " for ",
                   op, " operation; got ", Str(operand), ".");
  };
  switch (opcode) {
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kErf:
      if (!IsFloating(t)) return type_error("floating point");
      return NoLayout(operand);
    case HloOpcode::kCos:
    case HloOpcode::kSin:
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
    case HloOpcode::kTan:
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kLogistic:
    case HloOpcode::kRsqrt:
    case HloOpcode::kSqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kTanh:
      if (!IsFloating(t) && !IsComplex(t)) {
        return type_error("floating point or complex");
      }
      return NoLayout(operand);
    case HloOpcode::kReal:
    case HloOpcode::kImag:
      // The component type for complex; floats pass through.
      if (IsComplex(t)) {
        return WithType(operand, primitive_util::ComplexComponentType(t));
      }
      if (IsFloating(t)) return NoLayout(operand);
      return type_error("floating point or complex");
    case HloOpcode::kAbs:
      if (IsComplex(t)) {
        return WithType(operand, primitive_util::ComplexComponentType(t));
      }
      if (IsSigned(t)) return NoLayout(operand);
      return type_error("signed integral, floating point or complex");
    case HloOpcode::kClz:
    case HloOpcode::kPopulationCount:
      if (!IsIntegral(t)) return type_error("integral");
      return NoLayout(operand);
    case HloOpcode::kNegate:
      if (!IsIntegral(t) && !IsFloating(t) && !IsComplex(t)) {
        return type_error("integral, floating point or complex");
      }
      return NoLayout(operand);
    case HloOpcode::kSign:
      if (!IsSigned(t) && !IsComplex(t)) {
        return type_error("signed integral, floating point or complex");
      }
      return NoLayout(operand);
    case HloOpcode::kNot:
      if (t != PrimitiveType::PRED && !IsIntegral(t)) {
        return type_error("pred or integral");
      }
      return NoLayout(operand);
    case HloOpcode::kIsFinite:
      if (!IsFloating(t)) return type_error("floating point");
      return WithType(operand, PrimitiveType::PRED);
    default:
      return Invalid("Unknown operation for unary shape inference: ", op,
                     " with operand ", Str(operand), ".");
  }
}

namespace {

// Element-type rules of the binary ops; returns the result element type.
absl::StatusOr<PrimitiveType> BinaryResultType(HloOpcode opcode,
                                               const Shape& lhs,
                                               const Shape& rhs) {
  const absl::string_view op = HloOpcodeString(opcode);
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(lhs, absl::StrCat("lhs of binary operation ", op)));
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(rhs, absl::StrCat("rhs of binary operation ", op)));
  const PrimitiveType t = lhs.element_type();
  // Plexa does not mix precisions implicitly: both sides have one type.
  if (t != rhs.element_type()) {
    return Invalid("Binary op ", op,
                   " with different element types: ", Str(lhs), " and ",
                   Str(rhs), ".");
  }
  auto type_error = [&](absl::string_view expected) {
    return Invalid("Expected element type in shape to be ", expected,
                   " for operation ", op, "; got ", Str(lhs), " and ", Str(rhs),
                   ".");
  };
  switch (opcode) {
    case HloOpcode::kAdd:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kMultiply:
      return t;
    case HloOpcode::kSubtract:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kPower:
      if (t == PrimitiveType::PRED) return type_error("an arithmetic type");
      return t;
    case HloOpcode::kAtan2:
      if (!IsFloating(t) && !IsComplex(t)) {
        return type_error("floating point or complex");
      }
      return t;
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kMulhi:  // the high half of an integer product
      if (!IsIntegral(t)) return type_error("integral");
      return t;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      if (t != PrimitiveType::PRED && !IsIntegral(t)) {
        return type_error("pred or integral");
      }
      return t;
    case HloOpcode::kComplex:
      // complex(re, im): f32 parts give c64, f64 parts give c128.
      if (t == PrimitiveType::F32) return PrimitiveType::C64;
      if (t == PrimitiveType::F64) return PrimitiveType::C128;
      return type_error("f32 or f64");
    case HloOpcode::kCompare:
      return PrimitiveType::PRED;
    default:
      return Invalid("Unknown operation for binary shape inference: ", op,
                     " with operands ", Str(lhs), " and ", Str(rhs), ".");
  }
}

// Seed 003 "degenerate dimension" broadcasting of equal-rank shapes: each
// pair of sizes is equal or one of them is 1; the result has the larger.
absl::StatusOr<Shape> DegenerateBroadcast(const Shape& lhs, const Shape& rhs,
                                          const Shape& orig_lhs,
                                          const Shape& orig_rhs) {
  Shape out = MakeArray(lhs.element_type(), {});
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    const int64_t a = lhs.dimensions(i);
    const int64_t b = rhs.dimensions(i);
    int64_t size;
    bool dynamic;
    if (a == b) {
      size = a;
      dynamic = lhs.is_dynamic_dimension(i) || rhs.is_dynamic_dimension(i);
    } else if (a == 1) {
      size = b;
      dynamic = rhs.is_dynamic_dimension(i);
    } else if (b == 1) {
      size = a;
      dynamic = lhs.is_dynamic_dimension(i);
    } else {
      return Invalid("Binary op with incompatible shapes: ", Str(orig_lhs),
                     " and ", Str(orig_rhs), ": dimension ", i, " is ", a,
                     " vs ", b, " (sizes must be equal or one of them 1).");
    }
    out.add_dimension(size, dynamic);
  }
  return out;
}

// Seed 003 "InDim" broadcasting: the lower-rank operand's dimensions are
// matched to the higher-rank operand's dimensions listed in
// broadcast_dimensions. Returns the higher-rank shape with the matched
// dimensions replaced by the smaller operand's sizes (degenerate
// broadcasting then evens out size-1 dimensions).
absl::StatusOr<Shape> InDimBroadcast(const Shape& smaller, const Shape& larger,
                                     absl::Span<const int64_t> bdims) {
  if (bdims.empty() && !smaller.IsScalar()) {
    return Invalid(
        "Shapes must be equal rank, or broadcast_dimensions must be given: ",
        Str(smaller), " and ", Str(larger), ".");
  }
  if (static_cast<int64_t>(bdims.size()) != smaller.rank()) {
    return Invalid(
        "Size of broadcast_dimensions has to match the lower-rank operand's "
        "rank: lower-rank operand ",
        Str(smaller), ", broadcast_dimensions ", Str(bdims),
        ", higher-rank operand ", Str(larger), ".");
  }
  Shape out = NoLayout(larger);
  for (int64_t i = 0; i < smaller.rank(); ++i) {
    const int64_t d = bdims[i];
    if (d < 0 || d >= larger.rank()) {
      return Invalid("Broadcast dimension ", d,
                     " is out of range for the higher-rank operand ",
                     Str(larger), " (lower-rank operand ", Str(smaller), ").");
    }
    if (i > 0 && bdims[i - 1] >= d) {
      return Invalid("Broadcast dimensions order is wrong: ", d,
                     " comes after ", bdims[i - 1],
                     " (they must be strictly increasing); ", Str(smaller),
                     " and ", Str(larger), ".");
    }
    const int64_t small = smaller.dimensions(i);
    const int64_t large = larger.dimensions(d);
    if (small != large && small != 1 && large != 1) {
      return Invalid("Broadcast dimension ", i, " mismatch: ", small,
                     " != ", large, "; ", Str(smaller), " and ", Str(larger),
                     " with broadcast_dimensions ", Str(bdims), ".");
    }
    out.set_dimensions(d, small);
    out.set_dynamic_dimension(d, smaller.is_dynamic_dimension(i));
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> InferBroadcastedDimensions(
    const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of broadcasting"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of broadcasting"));
  Shape result;
  if (lhs.rank() == rhs.rank()) {
    // With equal ranks broadcast_dimensions may only be absent or the
    // identity.
    for (size_t i = 0; i < broadcast_dimensions.size(); ++i) {
      if (broadcast_dimensions.size() != static_cast<size_t>(lhs.rank()) ||
          broadcast_dimensions[i] != static_cast<int64_t>(i)) {
        return Invalid(
            "broadcast_dimensions must be empty or the identity for operands "
            "of the same rank: ",
            Str(lhs), " and ", Str(rhs), " with broadcast_dimensions ",
            Str(broadcast_dimensions), ".");
      }
    }
    PLEXA_ASSIGN_OR_RETURN(result, DegenerateBroadcast(lhs, rhs, lhs, rhs));
  } else {
    const bool lhs_larger = lhs.rank() > rhs.rank();
    const Shape& larger = lhs_larger ? lhs : rhs;
    const Shape& smaller = lhs_larger ? rhs : lhs;
    Shape indim;
    PLEXA_ASSIGN_OR_RETURN(
        indim, InDimBroadcast(smaller, larger, broadcast_dimensions));
    PLEXA_ASSIGN_OR_RETURN(
        result, lhs_larger ? DegenerateBroadcast(larger, indim, lhs, rhs)
                           : DegenerateBroadcast(indim, larger, lhs, rhs));
  }
  result.set_element_type(lhs.element_type());
  return result;
}

absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs) {
  PrimitiveType type;
  PLEXA_ASSIGN_OR_RETURN(type, BinaryResultType(opcode, lhs, rhs));
  // HLO form (SEMANTICS.md "Binary ops"): the operands have equal
  // dimensions; the builder lowers seed 003's implicit broadcasting, and
  // XLA's HLO verifier likewise rejects e.g. add(f32[], f32[2]).
  if (!SameDims(lhs, rhs)) {
    return Invalid("Binary op ", HloOpcodeString(opcode),
                   " requires operands of equal dimensions in HLO; got ",
                   Str(lhs), " and ", Str(rhs),
                   " (broadcast them explicitly).");
  }
  Shape out = WithType(lhs, type);
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (rhs.is_dynamic_dimension(i)) out.set_dynamic_dimension(i, true);
  }
  return out;
}

absl::StatusOr<Shape> InferBinaryOpShapeWithBroadcast(
    HloOpcode opcode, const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions) {
  PrimitiveType type;
  PLEXA_ASSIGN_OR_RETURN(type, BinaryResultType(opcode, lhs, rhs));
  absl::StatusOr<Shape> dims =
      InferBroadcastedDimensions(lhs, rhs, broadcast_dimensions);
  if (!dims.ok()) {
    return Invalid(HloOpcodeString(opcode), ": ", dims.status().message());
  }
  Shape out = std::move(dims).value();
  out.set_element_type(type);
  return out;
}

absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs,
                                        ComparisonDirection direction,
                                        ComparisonType type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of compare"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of compare"));
  const std::string what =
      absl::StrCat("compare(", Str(lhs), ", ", Str(rhs),
                   "), direction=", ComparisonDirectionString(direction));
  const PrimitiveType t = lhs.element_type();
  if (t != rhs.element_type()) {
    return Invalid(what, ": operands have different element types.");
  }
  if (!SameDims(lhs, rhs)) {
    return Invalid(what,
                   ": operands must have equal dimensions in HLO (broadcast "
                   "them explicitly).");
  }
  // HLO compare (SEMANTICS.md "Comparisons"): equal operand shapes, a
  // direction, and an optional type. The comparison type must suit the
  // element type, as XLA's verifier
  // requires: floats FLOAT or TOTALORDER; everything else exactly the
  // default (complex FLOAT, signed SIGNED, unsigned and pred UNSIGNED).
  if (type != ComparisonType::kDefault) {
    bool ok;
    if (IsFloating(t)) {
      ok = type == ComparisonType::kFloat ||
           type == ComparisonType::kFloatTotalOrder;
    } else {
      ok = type == DefaultComparisonType(t);
    }
    if (!ok) {
      return Invalid(
          what, ", type=", ComparisonTypeString(type), ": comparison type ",
          ComparisonTypeString(type), " is not valid for element type ",
          TypeName(t), " (expected ",
          IsFloating(t) ? "FLOAT or TOTALORDER"
                        : ComparisonTypeString(DefaultComparisonType(t)),
          ").");
    }
  }
  Shape out = WithType(lhs, PrimitiveType::PRED);
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (rhs.is_dynamic_dimension(i)) out.set_dynamic_dimension(i, true);
  }
  return out;
}

absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(min, "clamp min"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "clamp operand"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(max, "clamp max"));
  // Today's XLA (SEMANTICS.md "Clamp"): clamp(min, operand, max); min and
  // max have the operand's shape or are scalars of its element type.
  if (min.element_type() != operand.element_type() ||
      max.element_type() != operand.element_type()) {
    return Invalid("Clamp with incompatible element types: clamp(", Str(min),
                   ", ", Str(operand), ", ", Str(max), ").");
  }
  if ((!min.IsScalar() && !SameDims(min, operand)) ||
      (!max.IsScalar() && !SameDims(max, operand))) {
    return Invalid("Clamp with incompatible shapes: clamp(", Str(min), ", ",
                   Str(operand), ", ", Str(max),
                   "); min and max must be scalars or have the operand's "
                   "shape.");
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false) {
  // Today's XLA has no tuple select (seed 004's tuple form is gone).
  PLEXA_RETURN_IF_ERROR(ExpectArray(pred, "select pred"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(on_true, "select on-true"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(on_false, "select on-false"));
  if (!Compatible(on_true, on_false)) {
    return Invalid("Operands to select must be the same shape; got select(",
                   Str(pred), ", ", Str(on_true), ", ", Str(on_false), ").");
  }
  if (pred.element_type() != PrimitiveType::PRED) {
    return Invalid("Select's pred operand must have PRED element type; got ",
                   Str(pred), ".");
  }
  // Seed 004: pred is a scalar (picks a whole operand) or has their dims.
  if (!pred.IsScalar() && !SameDims(pred, on_true)) {
    return Invalid(
        "Select's pred must be a scalar or have the operands' dimensions; "
        "got select(",
        Str(pred), ", ", Str(on_true), ", ", Str(on_false), ").");
  }
  Shape out = NoLayout(on_true);
  for (int64_t i = 0; i < out.rank(); ++i) {
    if (on_false.is_dynamic_dimension(i) ||
        (!pred.IsScalar() && pred.is_dynamic_dimension(i))) {
      out.set_dynamic_dimension(i, true);
    }
  }
  return out;
}

absl::StatusOr<Shape> InferConvertShape(const Shape& operand,
                                        PrimitiveType new_type) {
  if (!operand.IsArray() || !primitive_util::IsArrayType(new_type)) {
    return Invalid("Convert does not allow non-arrays, so cannot convert from ",
                   Str(operand), " to ", TypeName(new_type), ".");
  }
  return WithType(operand, new_type);
}

absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand,
                                                  const Shape& random,
                                                  PrimitiveType new_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "lhs of stochastic convert"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(random, "rhs of stochastic convert"));
  if (!primitive_util::IsUnsignedIntegralType(random.element_type())) {
    return Invalid(
        "Random numbers for stochastic convert must be unsigned integers, but "
        "got: ",
        Str(random), ".");
  }
  if (!primitive_util::IsFloatingPointType(operand.element_type())) {
    return Invalid(
        "Stochastic convert supports only floating point operand, but got: ",
        Str(operand), ".");
  }
  const int64_t operand_bits = primitive_util::BitWidth(operand.element_type());
  const int64_t random_bits = primitive_util::BitWidth(random.element_type());
  if (operand_bits != random_bits) {
    return Invalid(
        "The random number is required to have same bits as the operand. But "
        "the random is ",
        random_bits, " bits and the operand is ", operand_bits,
        " bits: ", Str(random), " and ", Str(operand), ".");
  }
  if (!SameDims(operand, random)) {
    return Invalid(
        "The shape of the random numbers must be the operand's; got the "
        "operand ",
        Str(operand), " and the random numbers ", Str(random), ".");
  }
  if (!primitive_util::IsArrayType(new_type)) {
    return Invalid("Stochastic convert cannot convert ", Str(operand), " to ",
                   TypeName(new_type), ".");
  }
  return WithType(operand, new_type);
}

absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                               PrimitiveType new_type) {
  if (!operand.IsArray() || !primitive_util::IsArrayType(new_type)) {
    return Invalid(
        "Cannot bitcast-convert from or to a non-array type; requested ",
        Str(operand), " => ", TypeName(new_type), ".");
  }
  const PrimitiveType old_type = operand.element_type();
  if (IsComplex(old_type) != IsComplex(new_type)) {
    return Invalid("bitcast-convert between complex and real types: ",
                   Str(operand), " => ", TypeName(new_type), ".");
  }
  // The sub-byte types (s4, u4, s2, u2, f4e2m1fn) reinterpret only their
  // own bits, so they bitcast to and from a type of the same bit width;
  // XLA's packing into wider types (u8 <-> s4[..., 2]) is not supported
  // (InvalidArgument, as every shape this inference rejects).
  if ((primitive_util::IsSubByteType(old_type) ||
       primitive_util::IsSubByteType(new_type)) &&
      primitive_util::BitWidth(old_type) !=
          primitive_util::BitWidth(new_type)) {
    return Invalid("bitcast-convert between ", Str(operand), " and ",
                   TypeName(new_type), " (bit widths ",
                   primitive_util::BitWidth(old_type), " and ",
                   primitive_util::BitWidth(new_type),
                   "): sub-byte types bitcast only to the same bit width");
  }
  // Storage widths: pred occupies a byte, so pred <-> s8/u8 is same-width.
  const int64_t in_bits = primitive_util::ByteWidth(old_type) * 8;
  const int64_t out_bits = primitive_util::ByteWidth(new_type) * 8;
  if (std::max(in_bits, out_bits) % std::min(in_bits, out_bits) != 0) {
    return Invalid("Cannot bitcast-convert types with indivisible widths: ",
                   Str(operand), " => ", TypeName(new_type), ".");
  }
  Shape out = WithType(operand, new_type);
  if (in_bits > out_bits) {
    // Each element becomes in/out elements along a new minor dimension.
    out.add_dimension(in_bits / out_bits);
  } else if (in_bits < out_bits) {
    // The minor dimension must hold exactly out/in elements; it is removed.
    const int64_t ratio = out_bits / in_bits;
    if (operand.rank() < 1 || operand.dimensions(operand.rank() - 1) != ratio) {
      return Invalid("bitcast-convert from ", Str(operand), " to ",
                     TypeName(new_type),
                     " requires the last dimension to equal the ratio of bit "
                     "widths ",
                     ratio, ".");
    }
    Shape trimmed = MakeArray(new_type, {});
    for (int64_t i = 0; i + 1 < operand.rank(); ++i) {
      trimmed.add_dimension(operand.dimensions(i),
                            operand.is_dynamic_dimension(i));
    }
    return trimmed;
  }
  return out;
}

absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand,
                                                int exponent_bits,
                                                int mantissa_bits) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of reduce-precision"));
  if (!IsFloating(operand.element_type())) {
    return Invalid(
        "Expected element type in shape to be floating point for "
        "reduce-precision operation; got ",
        Str(operand), ".");
  }
  // One exponent bit is needed to tell zero from infinity.
  if (exponent_bits < 1) {
    return Invalid("reduce-precision of ", Str(operand),
                   ": expected exponent_bits >= 1; got ", exponent_bits, ".");
  }
  if (mantissa_bits < 0) {
    return Invalid("reduce-precision of ", Str(operand),
                   ": expected mantissa_bits >= 0; got ", mantissa_bits, ".");
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions) {
  if (operands.empty()) {
    return Invalid("Map expects at least one operand.");
  }
  const Shape& first = *operands[0];
  for (const Shape* s : operands) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of map"));
    if (!SameDims(*s, first)) {
      return Invalid(
          "Map operation requires all operands to have the same "
          "dimensions; got: ",
          Str(operands), ".");
    }
  }
  // Only mapping over all dimensions (a scalar function) is supported.
  if (static_cast<int64_t>(dimensions.size()) != first.rank()) {
    return Invalid("Map must apply to all dimensions of its operands ",
                   Str(operands), "; got dimensions ", Str(dimensions), ".");
  }
  for (size_t i = 0; i < dimensions.size(); ++i) {
    if (dimensions[i] != static_cast<int64_t>(i)) {
      return Invalid("Map requires dimensions {0, ..., rank-1} in order; got ",
                     Str(dimensions), " for operands ", Str(operands), ".");
    }
  }
  if (to_apply.parameters.size() != operands.size()) {
    return Invalid(
        "Map applied function arity must match the number of "
        "operands; got computation ",
        Str(to_apply), " and operands ", Str(operands), ".");
  }
  if (!to_apply.result.IsScalar()) {
    return Invalid("Mapped computation's result has to be a scalar; got ",
                   Str(to_apply), ".");
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    const Shape& p = to_apply.parameters[i];
    if (!p.IsScalar()) {
      return Invalid("Mapped computation's parameter ", i,
                     " has to be a scalar; got ", Str(to_apply), ".");
    }
    if (p.element_type() != operands[i]->element_type()) {
      return Invalid(
          "Mapped computation's parameter ", i, " type ", Str(p),
          " has to match the operand's element type: ", Str(*operands[i]), ".");
    }
  }
  Shape out = WithType(first, to_apply.result.element_type());
  return out;
}

}  // namespace plexa::shape_inference
