// Tuples, calls and control flow, custom calls, tokens with infeed and
// outfeed, collectives, and the scalar computations the builder makes.
#include "absl/strings/str_cat.h"
#include "core/builder/builder.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {

using builder_internal::ShapesOf;
using builder_internal::ValidateUserShape;

// ---- Tuples and control flow
// ---------------------------------------------------

Op Builder::Tuple(absl::Span<const Op> elements) {
  return Emit("Tuple", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(elements));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferTupleShape(ShapesOf(ops)));
    return AddInstruction(HloOpcode::kTuple, std::move(result), ops);
  });
}

Op Builder::GetTupleElement(Op tuple, int64_t index) {
  return Emit("GetTupleElement", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, Resolve(tuple));
    return AddGetTupleElement(t, index);
  });
}

Op Builder::Call(const Computation* computation, absl::Span<const Op> args) {
  return Emit("Call", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(computation, "called"));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(args));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferCallShape(
                          ShapesOf(ops), computation->ComputeProgramShape()));
    return AddInstruction(HloOpcode::kCall, std::move(result), ops, {},
                          {const_cast<Computation*>(computation)});
  });
}

Op Builder::While(const Computation* condition, const Computation* body,
                  Op init) {
  return Emit("While", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(condition, "condition"));
    PLEXA_RETURN_IF_ERROR(CheckComputation(body, "body"));
    PLEXA_ASSIGN_OR_RETURN(Instruction * i, Resolve(init));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferWhileShape(
                               condition->ComputeProgramShape(),
                               body->ComputeProgramShape(), i->shape()));
    return AddInstruction(
        HloOpcode::kWhile, std::move(result), {i}, {},
        {const_cast<Computation*>(condition), const_cast<Computation*>(body)});
  });
}

Op Builder::Conditional(Op predicate, Op true_operand,
                        const Computation* true_computation, Op false_operand,
                        const Computation* false_computation) {
  return Emit("Conditional", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * p, Resolve(predicate));
    if (!p->shape().IsScalar() ||
        p->shape().element_type() != PrimitiveType::PRED) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the predicate must be pred[], got ", p->shape().ToString()));
    }
    const Computation* branches[] = {true_computation, false_computation};
    const Op operands[] = {true_operand, false_operand};
    return Nested(Conditional(predicate, branches, operands));
  });
}

Op Builder::Conditional(
    Op branch_index, absl::Span<const Computation* const> branch_computations,
    absl::Span<const Op> branch_operands) {
  return Emit("Conditional", [&]() -> absl::StatusOr<Instruction*> {
    if (branch_computations.empty() ||
        branch_computations.size() != branch_operands.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "needs N >= 1 branch computations and as many operands, got ",
          branch_computations.size(), " computations and ",
          branch_operands.size(), " operands"));
    }
    std::vector<ProgramShape> signatures;
    std::vector<Computation*> called;
    for (const Computation* c : branch_computations) {
      PLEXA_RETURN_IF_ERROR(CheckComputation(c, "branch"));
      signatures.push_back(c->ComputeProgramShape());
      called.push_back(const_cast<Computation*>(c));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * index, Resolve(branch_index));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops,
                           ResolveAll(branch_operands));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferConditionalShape(
                               index->shape(), signatures, ShapesOf(ops)));
    std::vector<Instruction*> operands = {index};
    operands.insert(operands.end(), ops.begin(), ops.end());
    return AddInstruction(HloOpcode::kConditional, std::move(result), operands,
                          {}, std::move(called));
  });
}

Op Builder::OptimizationBarrier(Op operand) {
  return Emit("OptimizationBarrier", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    const Shape* shapes[] = {&o->shape()};
    PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferShape(
                                             HloOpcode::kOptimizationBarrier,
                                             shapes, {}, {}, nullptr));
    return AddInstruction(HloOpcode::kOptimizationBarrier, std::move(result),
                          {o});
  });
}

// ---- Custom calls
// ----------------------------------------------------------------

Op Builder::CustomCall(absl::string_view call_target_name,
                       absl::Span<const Op> operands, const Shape& shape,
                       absl::string_view opaque,
                       CustomCallApiVersion api_version, bool has_side_effect,
                       absl::Span<const Shape> operand_shapes_with_layout) {
  return Emit("CustomCall", [&]() -> absl::StatusOr<Instruction*> {
    if (call_target_name.empty()) {
      return absl::InvalidArgumentError("the call target name is empty");
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(operands));
    PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
    InstructionAttrs attrs;
    attrs.custom_call_target = std::string(call_target_name);
    attrs.backend_config = std::string(opaque);
    attrs.api_version = api_version;
    attrs.custom_call_has_side_effect = has_side_effect;
    if (!operand_shapes_with_layout.empty()) {
      if (operand_shapes_with_layout.size() != ops.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("operand_shapes_with_layout has ",
                         operand_shapes_with_layout.size(), " shapes for ",
                         ops.size(), " operands"));
      }
      for (size_t i = 0; i < ops.size(); ++i) {
        const Shape& s = operand_shapes_with_layout[i];
        if (!Shape::Equal().IgnoreLayout()(s, ops[i]->shape())) {
          return absl::InvalidArgumentError(
              absl::StrCat("operand_shapes_with_layout[", i, "] ", s.ToString(),
                           " differs from operand ", i, "'s shape ",
                           ops[i]->shape().ToString()));
        }
      }
      attrs.has_layout_constraints = true;
      attrs.operand_shapes_with_layout.assign(
          operand_shapes_with_layout.begin(), operand_shapes_with_layout.end());
    }
    PLEXA_RETURN_IF_ERROR(shape_inference::InferShape(HloOpcode::kCustomCall,
                                                      ShapesOf(ops), attrs, {},
                                                      &shape)
                              .status());
    // The declared shape (its layout is the callee's contract) is kept.
    return AddInstruction(HloOpcode::kCustomCall, shape, ops, std::move(attrs));
  });
}

// ---- Tokens, infeed, outfeed
// -----------------------------------------------------

Op Builder::CreateToken() {
  return Emit("CreateToken", [&]() -> absl::StatusOr<Instruction*> {
    return AddAfterAll({});
  });
}

Op Builder::AfterAll(absl::Span<const Op> tokens) {
  return Emit("AfterAll", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(tokens));
    return AddAfterAll(ops);
  });
}

absl::StatusOr<Instruction*> Builder::AddInfeed(Instruction* token,
                                                const Shape& shape,
                                                absl::string_view config) {
  PLEXA_RETURN_IF_ERROR(ValidateUserShape(shape));
  // infeed returns (data, token); the data shape keeps its layout, which
  // says how the device reads the data (seed 004).
  const Shape declared(std::vector<Shape>{shape, ShapeUtil::MakeTokenShape()});
  InstructionAttrs attrs;
  attrs.infeed_config = std::string(config);
  PLEXA_RETURN_IF_ERROR(
      shape_inference::InferInfeedShape(token->shape(), declared).status());
  return AddInstruction(HloOpcode::kInfeed, declared, {token},
                        std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::AddOutfeed(Instruction* operand,
                                                 Instruction* token,
                                                 const Shape& shape_with_layout,
                                                 absl::string_view config) {
  if (!Shape::Equal().IgnoreLayout()(shape_with_layout, operand->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape_with_layout ", shape_with_layout.ToString(),
        " differs from the operand's shape ", operand->shape().ToString()));
  }
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferOutfeedShape(
                                           operand->shape(), token->shape()));
  InstructionAttrs attrs;
  attrs.outfeed_config = std::string(config);
  attrs.outfeed_shape = shape_with_layout;
  return AddInstruction(HloOpcode::kOutfeed, std::move(result),
                        {operand, token}, std::move(attrs));
}

absl::StatusOr<Instruction*> Builder::ImplicitToken() {
  if (implicit_token_ == nullptr) {
    PLEXA_ASSIGN_OR_RETURN(implicit_token_, AddAfterAll({}));
  }
  return implicit_token_;
}

Op Builder::InfeedWithToken(Op token, const Shape& shape,
                            absl::string_view config) {
  return Emit("InfeedWithToken", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, Resolve(token));
    return AddInfeed(t, shape, config);
  });
}

Op Builder::Infeed(const Shape& shape, absl::string_view config) {
  return Emit("Infeed", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, ImplicitToken());
    PLEXA_ASSIGN_OR_RETURN(Instruction * infeed, AddInfeed(t, shape, config));
    PLEXA_ASSIGN_OR_RETURN(implicit_token_, AddGetTupleElement(infeed, 1));
    return AddGetTupleElement(infeed, 0);
  });
}

Op Builder::OutfeedWithToken(Op operand, Op token,
                             const Shape& shape_with_layout,
                             absl::string_view config) {
  return Emit("OutfeedWithToken", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, Resolve(token));
    return AddOutfeed(o, t, shape_with_layout, config);
  });
}

Op Builder::Outfeed(Op operand, const Shape& shape_with_layout,
                    absl::string_view config) {
  return Emit("Outfeed", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * t, ImplicitToken());
    PLEXA_ASSIGN_OR_RETURN(Instruction * out,
                           AddOutfeed(o, t, shape_with_layout, config));
    implicit_token_ = out;
    return out;
  });
}

// ---- Collectives
// -------------------------------------------------------------------

Op Builder::AllReduce(Op operand, const Computation* computation,
                      absl::Span<const std::vector<int64_t>> replica_groups) {
  return Emit("AllReduce", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(computation, "reduction"));
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    const Shape* shapes[] = {&o->shape()};
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferAllReduceShape(
                               shapes, computation->ComputeProgramShape()));
    InstructionAttrs attrs;
    attrs.replica_groups.assign(replica_groups.begin(), replica_groups.end());
    return AddInstruction(HloOpcode::kAllReduce, std::move(result), {o},
                          std::move(attrs),
                          {const_cast<Computation*>(computation)});
  });
}

Op Builder::CrossReplicaSum(
    Op operand, absl::Span<const std::vector<int64_t>> replica_groups) {
  return Emit("CrossReplicaSum", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    if (!o->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the operand must be an array, got ", o->shape().ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(Computation * add,
                           ScalarAddComputation(o->shape().element_type()));
    return Nested(AllReduce(operand, add, replica_groups));
  });
}

Op Builder::ReplicaId() {
  return Emit("ReplicaId", [&]() -> absl::StatusOr<Instruction*> {
    const Shape declared = ShapeUtil::MakeScalarShape(PrimitiveType::U32);
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferShape(HloOpcode::kReplicaId, {}, {},
                                                  {}, &declared));
    return AddInstruction(HloOpcode::kReplicaId, std::move(result), {});
  });
}

// ---- Scalar computations made by the builder
// -------------------------------------

absl::StatusOr<Computation*> Builder::ScalarAddComputation(PrimitiveType type) {
  const std::string key = absl::StrCat("add.", primitive_util::Name(type));
  if (auto it = pool_->helpers.find(key); it != pool_->helpers.end()) {
    return it->second;
  }
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no add computation for element type ", primitive_util::Name(type)));
  }
  std::unique_ptr<Builder> sub =
      CreateSubBuilder(absl::StrCat("add_", primitive_util::Name(type)));
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  Op x = sub->Parameter(0, scalar, "x");
  Op y = sub->Parameter(1, scalar, "y");
  // Sum of pred is logical or (as XLA's CreateScalarAddComputation).
  Op sum = type == PrimitiveType::PRED ? sub->Or(x, y) : sub->Add(x, y);
  PLEXA_ASSIGN_OR_RETURN(Computation * c, sub->Build(sum));
  pool_->helpers[key] = c;
  return c;
}

absl::StatusOr<Computation*> Builder::ScalarLessThanComputation(
    PrimitiveType type) {
  const std::string key = absl::StrCat("lt.", primitive_util::Name(type));
  if (auto it = pool_->helpers.find(key); it != pool_->helpers.end()) {
    return it->second;
  }
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no comparator for element type ", primitive_util::Name(type)));
  }
  std::unique_ptr<Builder> sub =
      CreateSubBuilder(absl::StrCat("lt_", primitive_util::Name(type)));
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  Op lhs = sub->Parameter(0, scalar, "lhs");
  Op rhs = sub->Parameter(1, scalar, "rhs");
  PLEXA_ASSIGN_OR_RETURN(Computation * c, sub->Build(sub->Lt(lhs, rhs)));
  pool_->helpers[key] = c;
  return c;
}

}  // namespace plexa
