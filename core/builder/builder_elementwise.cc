// Element-wise operations: binary (with seed 003 broadcasting), compare,
// unary, clamp, select, conversions, reduce-precision, map, random numbers.
#include "absl/strings/str_cat.h"
#include "core/builder/builder.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

// The builder operation's name for an opcode (for error messages).
absl::string_view BuilderOpName(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd:
      return "Add";
    case HloOpcode::kSubtract:
      return "Sub";
    case HloOpcode::kMultiply:
      return "Mul";
    case HloOpcode::kDivide:
      return "Div";
    case HloOpcode::kRemainder:
      return "Rem";
    case HloOpcode::kMaximum:
      return "Max";
    case HloOpcode::kMinimum:
      return "Min";
    case HloOpcode::kPower:
      return "Pow";
    case HloOpcode::kAtan2:
      return "Atan2";
    case HloOpcode::kAnd:
      return "And";
    case HloOpcode::kOr:
      return "Or";
    case HloOpcode::kXor:
      return "Xor";
    case HloOpcode::kShiftLeft:
      return "ShiftLeft";
    case HloOpcode::kShiftRightArithmetic:
      return "ShiftRightArithmetic";
    case HloOpcode::kShiftRightLogical:
      return "ShiftRightLogical";
    case HloOpcode::kComplex:
      return "Complex";
    case HloOpcode::kAbs:
      return "Abs";
    case HloOpcode::kCeil:
      return "Ceil";
    case HloOpcode::kCos:
      return "Cos";
    case HloOpcode::kExp:
      return "Exp";
    case HloOpcode::kFloor:
      return "Floor";
    case HloOpcode::kIsFinite:
      return "IsFinite";
    case HloOpcode::kLog:
      return "Log";
    case HloOpcode::kNot:
      return "Not";
    case HloOpcode::kNegate:
      return "Neg";
    case HloOpcode::kSign:
      return "Sign";
    case HloOpcode::kSin:
      return "Sin";
    case HloOpcode::kTanh:
      return "Tanh";
    case HloOpcode::kSqrt:
      return "Sqrt";
    case HloOpcode::kRsqrt:
      return "Rsqrt";
    case HloOpcode::kCbrt:
      return "Cbrt";
    case HloOpcode::kAcos:
      return "Acos";
    case HloOpcode::kAcosh:
      return "Acosh";
    case HloOpcode::kAsin:
      return "Asin";
    case HloOpcode::kAsinh:
      return "Asinh";
    case HloOpcode::kAtan:
      return "Atan";
    case HloOpcode::kAtanh:
      return "Atanh";
    case HloOpcode::kCosh:
      return "Cosh";
    case HloOpcode::kSinh:
      return "Sinh";
    case HloOpcode::kTan:
      return "Tan";
    case HloOpcode::kLogistic:
      return "Logistic";
    case HloOpcode::kLog1p:
      return "Log1p";
    case HloOpcode::kExpm1:
      return "Expm1";
    case HloOpcode::kRoundNearestEven:
      return "RoundNearestEven";
    case HloOpcode::kRoundNearestAfz:
      return "RoundNearestAfz";
    case HloOpcode::kPopulationCount:
      return "PopulationCount";
    case HloOpcode::kClz:
      return "Clz";
    case HloOpcode::kReal:
      return "Real";
    case HloOpcode::kImag:
      return "Imag";
    case HloOpcode::kErf:
      return "Erf";
    default:
      return HloOpcodeString(opcode);
  }
}

absl::string_view CompareOpName(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq:
      return "Eq";
    case ComparisonDirection::kNe:
      return "Ne";
    case ComparisonDirection::kGe:
      return "Ge";
    case ComparisonDirection::kGt:
      return "Gt";
    case ComparisonDirection::kLe:
      return "Le";
    case ComparisonDirection::kLt:
      return "Lt";
  }
  return "Compare";
}

}  // namespace

using builder_internal::DimsToString;
using builder_internal::ShapesOf;
using builder_internal::ValidateUserShape;

// ---- Binary
// ------------------------------------------------------------------

absl::StatusOr<Instruction*> Builder::AddBinary(
    HloOpcode opcode, Instruction* lhs, Instruction* rhs,
    absl::Span<const int64_t> bdims) {
  // Seed 003 form first: checks types, ranks, broadcast_dimensions and the
  // degenerate dimensions, and gives the result dimensions.
  PLEXA_ASSIGN_OR_RETURN(Shape broadcast,
                         shape_inference::InferBinaryOpShapeWithBroadcast(
                             opcode, lhs->shape(), rhs->shape(), bdims));
  PLEXA_ASSIGN_OR_RETURN(
      auto operands,
      LowerImplicitBroadcast(lhs, rhs, broadcast.dimensions(), bdims));
  // The HLO op itself: equal operand dimensions.
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferBinaryOpShape(
                                           opcode, operands.first->shape(),
                                           operands.second->shape()));
  return AddInstruction(opcode, std::move(result),
                        {operands.first, operands.second});
}

Op Builder::BinaryOp(HloOpcode opcode, Op lhs, Op rhs,
                     absl::Span<const int64_t> broadcast_dimensions) {
  const absl::string_view name =
      IsElementwiseBinary(opcode) ? BuilderOpName(opcode) : "BinaryOp";
  return Emit(name, [&]() -> absl::StatusOr<Instruction*> {
    if (!IsElementwiseBinary(opcode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          HloOpcodeString(opcode), " is not an element-wise binary operation"));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
    return AddBinary(opcode, l, r, broadcast_dimensions);
  });
}

Op Builder::Add(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kAdd, lhs, rhs, bdims);
}
Op Builder::Sub(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kSubtract, lhs, rhs, bdims);
}
Op Builder::Mul(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kMultiply, lhs, rhs, bdims);
}
Op Builder::Div(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kDivide, lhs, rhs, bdims);
}
Op Builder::Rem(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kRemainder, lhs, rhs, bdims);
}
Op Builder::Max(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kMaximum, lhs, rhs, bdims);
}
Op Builder::Min(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kMinimum, lhs, rhs, bdims);
}
Op Builder::Pow(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kPower, lhs, rhs, bdims);
}
Op Builder::Atan2(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kAtan2, lhs, rhs, bdims);
}
Op Builder::And(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kAnd, lhs, rhs, bdims);
}
Op Builder::Or(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kOr, lhs, rhs, bdims);
}
Op Builder::Xor(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kXor, lhs, rhs, bdims);
}
Op Builder::ShiftLeft(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kShiftLeft, lhs, rhs, bdims);
}
Op Builder::ShiftRightArithmetic(Op lhs, Op rhs,
                                 absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kShiftRightArithmetic, lhs, rhs, bdims);
}
Op Builder::ShiftRightLogical(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kShiftRightLogical, lhs, rhs, bdims);
}
Op Builder::Complex(Op real, Op imag, absl::Span<const int64_t> bdims) {
  return BinaryOp(HloOpcode::kComplex, real, imag, bdims);
}

// ---- Compare
// -----------------------------------------------------------------

Op Builder::Compare(Op lhs, Op rhs, ComparisonDirection direction,
                    absl::Span<const int64_t> broadcast_dimensions,
                    ComparisonType type) {
  return Emit(CompareOpName(direction), [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * l, Resolve(lhs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, Resolve(rhs));
    PLEXA_ASSIGN_OR_RETURN(Shape broadcast,
                           shape_inference::InferBroadcastedDimensions(
                               l->shape(), r->shape(), broadcast_dimensions));
    PLEXA_ASSIGN_OR_RETURN(auto operands,
                           LowerImplicitBroadcast(l, r, broadcast.dimensions(),
                                                  broadcast_dimensions));
    return AddCompare(operands.first, operands.second, direction, type);
  });
}

Op Builder::Eq(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kEq, bdims);
}
Op Builder::Ne(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kNe, bdims);
}
Op Builder::Ge(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kGe, bdims);
}
Op Builder::Gt(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kGt, bdims);
}
Op Builder::Le(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kLe, bdims);
}
Op Builder::Lt(Op lhs, Op rhs, absl::Span<const int64_t> bdims) {
  return Compare(lhs, rhs, ComparisonDirection::kLt, bdims);
}

// ---- Unary
// -------------------------------------------------------------------

absl::StatusOr<Instruction*> Builder::AddUnary(HloOpcode opcode,
                                               Instruction* operand) {
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferUnaryOpShape(
                                           opcode, operand->shape()));
  return AddInstruction(opcode, std::move(result), {operand});
}

Op Builder::UnaryOp(HloOpcode opcode, Op operand) {
  const absl::string_view name =
      IsElementwiseUnary(opcode) ? BuilderOpName(opcode) : "UnaryOp";
  return Emit(name, [&]() -> absl::StatusOr<Instruction*> {
    if (!IsElementwiseUnary(opcode)) {
      return absl::InvalidArgumentError(absl::StrCat(
          HloOpcodeString(opcode), " is not an element-wise unary operation"));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    return AddUnary(opcode, o);
  });
}

Op Builder::Abs(Op x) { return UnaryOp(HloOpcode::kAbs, x); }
Op Builder::Ceil(Op x) { return UnaryOp(HloOpcode::kCeil, x); }
Op Builder::Cos(Op x) { return UnaryOp(HloOpcode::kCos, x); }
Op Builder::Exp(Op x) { return UnaryOp(HloOpcode::kExp, x); }
Op Builder::Floor(Op x) { return UnaryOp(HloOpcode::kFloor, x); }
Op Builder::IsFinite(Op x) { return UnaryOp(HloOpcode::kIsFinite, x); }
Op Builder::Log(Op x) { return UnaryOp(HloOpcode::kLog, x); }
Op Builder::Not(Op x) { return UnaryOp(HloOpcode::kNot, x); }
Op Builder::Neg(Op x) { return UnaryOp(HloOpcode::kNegate, x); }
Op Builder::Sign(Op x) { return UnaryOp(HloOpcode::kSign, x); }
Op Builder::Sin(Op x) { return UnaryOp(HloOpcode::kSin, x); }
Op Builder::Tanh(Op x) { return UnaryOp(HloOpcode::kTanh, x); }
Op Builder::Sqrt(Op x) { return UnaryOp(HloOpcode::kSqrt, x); }
Op Builder::Rsqrt(Op x) { return UnaryOp(HloOpcode::kRsqrt, x); }
Op Builder::Cbrt(Op x) { return UnaryOp(HloOpcode::kCbrt, x); }
Op Builder::Tan(Op x) { return UnaryOp(HloOpcode::kTan, x); }
Op Builder::Acos(Op x) { return UnaryOp(HloOpcode::kAcos, x); }
Op Builder::Acosh(Op x) { return UnaryOp(HloOpcode::kAcosh, x); }
Op Builder::Asin(Op x) { return UnaryOp(HloOpcode::kAsin, x); }
Op Builder::Asinh(Op x) { return UnaryOp(HloOpcode::kAsinh, x); }
Op Builder::Atan(Op x) { return UnaryOp(HloOpcode::kAtan, x); }
Op Builder::Atanh(Op x) { return UnaryOp(HloOpcode::kAtanh, x); }
Op Builder::Cosh(Op x) { return UnaryOp(HloOpcode::kCosh, x); }
Op Builder::Sinh(Op x) { return UnaryOp(HloOpcode::kSinh, x); }
Op Builder::Logistic(Op x) { return UnaryOp(HloOpcode::kLogistic, x); }
Op Builder::Log1p(Op x) { return UnaryOp(HloOpcode::kLog1p, x); }
Op Builder::Expm1(Op x) { return UnaryOp(HloOpcode::kExpm1, x); }
Op Builder::RoundNearestEven(Op x) {
  return UnaryOp(HloOpcode::kRoundNearestEven, x);
}
Op Builder::RoundNearestAfz(Op x) {
  return UnaryOp(HloOpcode::kRoundNearestAfz, x);
}
Op Builder::PopulationCount(Op x) {
  return UnaryOp(HloOpcode::kPopulationCount, x);
}
Op Builder::Clz(Op x) { return UnaryOp(HloOpcode::kClz, x); }
Op Builder::Real(Op x) { return UnaryOp(HloOpcode::kReal, x); }
Op Builder::Imag(Op x) { return UnaryOp(HloOpcode::kImag, x); }
Op Builder::Erf(Op x) { return UnaryOp(HloOpcode::kErf, x); }

// ---- Clamp, select, conversions
// ------------------------------------------------

Op Builder::Clamp(Op min, Op operand, Op max) {
  return Emit("Clamp", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * lo, Resolve(min));
    PLEXA_ASSIGN_OR_RETURN(Instruction * x, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * hi, Resolve(max));
    // Checks the operation as written (scalar min/max allowed)...
    PLEXA_RETURN_IF_ERROR(
        shape_inference::InferClampShape(lo->shape(), x->shape(), hi->shape())
            .status());
    // ...then makes scalar bounds explicit, as today's XlaBuilder does.
    if (x->shape().IsArray() && !x->shape().IsScalar()) {
      if (lo->shape().IsScalar()) {
        PLEXA_ASSIGN_OR_RETURN(
            lo, AddBroadcastSequence(lo, x->shape().dimensions()));
      }
      if (hi->shape().IsScalar()) {
        PLEXA_ASSIGN_OR_RETURN(
            hi, AddBroadcastSequence(hi, x->shape().dimensions()));
      }
    }
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferClampShape(lo->shape(), x->shape(), hi->shape()));
    return AddInstruction(HloOpcode::kClamp, std::move(result), {lo, x, hi});
  });
}

Op Builder::Select(Op pred, Op on_true, Op on_false) {
  return Emit("Select", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * p, Resolve(pred));
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, Resolve(on_true));
    PLEXA_ASSIGN_OR_RETURN(Instruction * f, Resolve(on_false));
    // A scalar pred with array branches (seed 004's limited broadcast)
    // becomes an explicit broadcast, as today's XlaBuilder emits it. Seed
    // 004's tuple select has no HLO form today; shape inference rejects it.
    if (p->shape().IsScalar() && t->shape().IsArray() &&
        !t->shape().IsScalar()) {
      if (p->shape().element_type() != PrimitiveType::PRED) {
        return absl::InvalidArgumentError(absl::StrCat(
            "pred must have element type pred, got ", p->shape().ToString()));
      }
      PLEXA_ASSIGN_OR_RETURN(p,
                             AddBroadcastSequence(p, t->shape().dimensions()));
    }
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferSelectShape(p->shape(), t->shape(), f->shape()));
    return AddInstruction(HloOpcode::kSelect, std::move(result), {p, t, f});
  });
}

Op Builder::ConvertElementType(Op operand, PrimitiveType new_element_type) {
  return Emit("ConvertElementType", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferConvertShape(
                                             o->shape(), new_element_type));
    return AddInstruction(HloOpcode::kConvert, std::move(result), {o});
  });
}

Op Builder::BitcastConvertType(Op operand, PrimitiveType new_element_type) {
  return Emit("BitcastConvertType", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferBitcastConvertShape(
                               o->shape(), new_element_type));
    return AddInstruction(HloOpcode::kBitcastConvert, std::move(result), {o});
  });
}

Op Builder::ReducePrecision(Op operand, int exponent_bits, int mantissa_bits) {
  return Emit("ReducePrecision", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferReducePrecisionShape(
                               o->shape(), exponent_bits, mantissa_bits));
    InstructionAttrs attrs;
    attrs.exponent_bits = exponent_bits;
    attrs.mantissa_bits = mantissa_bits;
    return AddInstruction(HloOpcode::kReducePrecision, std::move(result), {o},
                          std::move(attrs));
  });
}

Op Builder::Map(absl::Span<const Op> operands, const Computation* computation,
                absl::Span<const int64_t> dimensions,
                absl::Span<const Op> static_operands) {
  return Emit("Map", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(computation, "map"));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(operands));
    if (ops.empty()) {
      return absl::InvalidArgumentError("needs at least one operand");
    }
    const Shape& first = ops[0]->shape();
    if (!first.IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat("operands must be arrays, got ", first.ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> statics,
                           ResolveAll(static_operands));
    for (Instruction* s : statics) {
      if (!s->shape().IsScalar()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "static operands must be scalars (they are broadcast to the "
            "operands' shape ",
            first.ToString(), "), got ", s->shape().ToString()));
      }
      PLEXA_ASSIGN_OR_RETURN(Instruction * b,
                             AddBroadcastSequence(s, first.dimensions()));
      ops.push_back(b);
    }
    std::vector<int64_t> dims(dimensions.begin(), dimensions.end());
    if (dims.empty()) {
      for (int64_t i = 0; i < first.rank(); ++i) dims.push_back(i);
    }
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferMapShape(
            ShapesOf(ops), computation->ComputeProgramShape(), dims));
    InstructionAttrs attrs;
    attrs.dimensions = std::move(dims);
    return AddInstruction(HloOpcode::kMap, std::move(result), ops,
                          std::move(attrs),
                          {const_cast<Computation*>(computation)});
  });
}

// ---- Random numbers
// ------------------------------------------------------------

namespace {

absl::StatusOr<Shape> InferRng(const Shape& a, const Shape& b,
                               RandomDistribution distribution,
                               const Shape& shape) {
  PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
  return shape_inference::InferRngShape(a, b, distribution, shape);
}

}  // namespace

Op Builder::RngNormal(Op mu, Op sigma, const Shape& shape) {
  return Emit("RngNormal", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * m, Resolve(mu));
    PLEXA_ASSIGN_OR_RETURN(Instruction * s, Resolve(sigma));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        InferRng(m->shape(), s->shape(), RandomDistribution::kNormal, shape));
    InstructionAttrs attrs;
    attrs.distribution = RandomDistribution::kNormal;
    return AddInstruction(HloOpcode::kRng, std::move(result), {m, s},
                          std::move(attrs));
  });
}

Op Builder::RngUniform(Op a, Op b, const Shape& shape) {
  return Emit("RngUniform", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * lo, Resolve(a));
    PLEXA_ASSIGN_OR_RETURN(Instruction * hi, Resolve(b));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           InferRng(lo->shape(), hi->shape(),
                                    RandomDistribution::kUniform, shape));
    InstructionAttrs attrs;
    attrs.distribution = RandomDistribution::kUniform;
    return AddInstruction(HloOpcode::kRng, std::move(result), {lo, hi},
                          std::move(attrs));
  });
}

Op Builder::RngBernoulli(Op mean, const Shape& shape) {
  return Emit("RngBernoulli", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * p, Resolve(mean));
    const Shape& ps = p->shape();
    if (!ps.IsScalar() ||
        !primitive_util::IsFloatingPointType(ps.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mean must be a floating-point scalar, got ", ps.ToString()));
    }
    PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the result shape must be an array, got ", shape.ToString()));
    }
    // u ~ U[0, 1) in mean's type; result = convert(u < mean).
    const PrimitiveType t = ps.element_type();
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero, AddScalarConstant(t, 0.0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * one, AddScalarConstant(t, 1.0));
    const Shape uniform_shape = ShapeUtil::MakeShape(t, shape.dimensions());
    PLEXA_ASSIGN_OR_RETURN(Shape u_shape,
                           shape_inference::InferRngShape(
                               zero->shape(), one->shape(),
                               RandomDistribution::kUniform, uniform_shape));
    InstructionAttrs rng_attrs;
    rng_attrs.distribution = RandomDistribution::kUniform;
    Instruction* u = AddInstruction(HloOpcode::kRng, std::move(u_shape),
                                    {zero, one}, std::move(rng_attrs));
    PLEXA_ASSIGN_OR_RETURN(Instruction * pb,
                           AddBroadcastSequence(p, shape.dimensions()));
    PLEXA_ASSIGN_OR_RETURN(
        Instruction * less,
        AddCompare(u, pb, ComparisonDirection::kLt, ComparisonType::kDefault));
    if (shape.element_type() == PrimitiveType::PRED) return less;
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferConvertShape(less->shape(),
                                                         shape.element_type()));
    return AddInstruction(HloOpcode::kConvert, std::move(result), {less});
  });
}

Op Builder::RngBitGenerator(RandomAlgorithm algorithm, Op initial_state,
                            const Shape& shape) {
  return Emit("RngBitGenerator", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * state, Resolve(initial_state));
    PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
    if (!shape.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the result shape must be an array, got ", shape.ToString()));
    }
    // XLA's builder generates unsigned bits of the requested width.
    Shape bits = shape;
    switch (primitive_util::BitWidth(shape.element_type())) {
      case 8:
        bits.set_element_type(PrimitiveType::U8);
        break;
      case 16:
        bits.set_element_type(PrimitiveType::U16);
        break;
      case 32:
        bits.set_element_type(PrimitiveType::U32);
        break;
      case 64:
        bits.set_element_type(PrimitiveType::U64);
        break;
      default:
        break;
    }
    if (shape.element_type() == PrimitiveType::PRED ||
        primitive_util::IsComplexType(shape.element_type()) ||
        !primitive_util::IsUnsignedIntegralType(bits.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unsupported shape for RngBitGenerator: ", shape.ToString()));
    }
    InstructionAttrs attrs;
    attrs.rng_algorithm = algorithm;
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferRngBitGeneratorShape(
                          state->shape(), algorithm,
                          Shape(std::vector<Shape>{state->shape(), bits})));
    return AddInstruction(HloOpcode::kRngBitGenerator, std::move(result),
                          {state}, std::move(attrs));
  });
}

}  // namespace plexa
