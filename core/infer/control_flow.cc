// Shape inference for tuples and control flow: tuple, get-tuple-element,
// call, while and conditional.
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::Invalid;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;

absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> elements) {
  std::vector<Shape> parts;
  parts.reserve(elements.size());
  for (const Shape* s : elements) {
    if (s->element_type() == PrimitiveType::PRIMITIVE_TYPE_INVALID) {
      return Invalid("tuple element has an invalid shape: ", Str(elements),
                     ".");
    }
    parts.push_back(NoLayout(*s));
  }
  return Shape(std::move(parts));
}

absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple,
                                                int64_t index) {
  if (!tuple.IsTuple()) {
    return Invalid("get-tuple-element: cannot index into non-tuple ",
                   Str(tuple), ".");
  }
  if (index < 0 || index >= tuple.tuple_shapes_size()) {
    return Invalid("get-tuple-element: index ", index, " is out of bounds for ",
                   Str(tuple), ".");
  }
  return NoLayout(tuple.tuple_shapes(index));
}

absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape* const> args,
                                     const ProgramShape& to_apply) {
  if (args.size() != to_apply.parameters.size()) {
    return Invalid("call: the computation ", Str(to_apply), " takes ",
                   to_apply.parameters.size(), " parameters but is given ",
                   args.size(), " arguments ", Str(args), ".");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (!Compatible(*args[i], to_apply.parameters[i])) {
      return Invalid("call: argument ", i, " ", Str(*args[i]),
                     " does not match parameter ", i, " of ", Str(to_apply),
                     ".");
    }
  }
  return NoLayout(to_apply.result);
}

absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition,
                                      const ProgramShape& body,
                                      const Shape& init) {
  auto shapes = [&] {
    return absl::StrCat("condition: ", Str(condition), "; body: ", Str(body),
                        "; init: ", Str(init));
  };
  if (condition.parameters.size() != 1) {
    return Invalid("while: the condition must take 1 parameter; ", shapes(),
                   ".");
  }
  if (body.parameters.size() != 1) {
    return Invalid("while: the body must take 1 parameter; ", shapes(), ".");
  }
  if (!Compatible(condition.result, MakeArray(PrimitiveType::PRED, {}))) {
    return Invalid("while: the condition must return pred[]; ", shapes(), ".");
  }
  // Nesting is allowed (SEMANTICS.md "While"); the loop state has one shape.
  if (!Compatible(body.result, condition.parameters[0]) ||
      !Compatible(body.result, body.parameters[0]) ||
      !Compatible(body.result, init)) {
    return Invalid(
        "while: the parameter of condition and body, the result of the body "
        "and init must all have the same shape; ",
        shapes(), ".");
  }
  return NoLayout(init);
}

absl::StatusOr<Shape> InferConditionalShape(
    const Shape& branch_index, absl::Span<const ProgramShape> branches,
    absl::Span<const Shape* const> branch_operands) {
  const bool is_pred =
      Compatible(branch_index, MakeArray(PrimitiveType::PRED, {}));
  const bool is_s32 =
      Compatible(branch_index, MakeArray(PrimitiveType::S32, {}));
  if (!is_pred && !is_s32) {
    return Invalid(
        "conditional: the branch selector must be pred[] or s32[]; got ",
        Str(branch_index), ".");
  }
  if (is_pred && branches.size() != 2) {
    return Invalid(
        "conditional with a pred[] selector needs exactly 2 "
        "branches (true, false); got ",
        branches.size(), ".");
  }
  if (branches.empty()) {
    return Invalid("conditional needs at least one branch computation.");
  }
  if (branches.size() != branch_operands.size()) {
    return Invalid("conditional has ", branches.size(), " branches but ",
                   branch_operands.size(), " branch operands ",
                   Str(branch_operands), ".");
  }
  Shape result = NoLayout(branches[0].result);
  for (size_t j = 0; j < branches.size(); ++j) {
    if (branches[j].parameters.size() != 1) {
      return Invalid("conditional: branch computation ", j,
                     " must take 1 parameter; got ", Str(branches[j]), ".");
    }
    if (!Compatible(branches[j].parameters[0], *branch_operands[j])) {
      return Invalid("conditional: branch operand ", j, " ",
                     Str(*branch_operands[j]),
                     " does not match the parameter of branch computation ", j,
                     " ", Str(branches[j]), ".");
    }
    if (!Compatible(branches[0].result, branches[j].result)) {
      return Invalid(
          "conditional: all branches must return the same shape; branch 0 "
          "returns ",
          Str(branches[0].result), " and branch ", j, " returns ",
          Str(branches[j].result), ".");
    }
  }
  // A dimension dynamic in any branch is dynamic in the result.
  struct Merge {
    static void Run(Shape* out, const Shape& in) {
      if (out->IsTuple()) {
        for (int64_t i = 0; i < out->tuple_shapes_size(); ++i) {
          Run(out->mutable_tuple_shapes(i), in.tuple_shapes(i));
        }
        return;
      }
      for (int64_t i = 0; i < out->rank(); ++i) {
        if (in.is_dynamic_dimension(i)) out->set_dynamic_dimension(i, true);
      }
    }
  };
  for (const ProgramShape& b : branches) Merge::Run(&result, b.result);
  return result;
}

}  // namespace plexa::shape_inference
