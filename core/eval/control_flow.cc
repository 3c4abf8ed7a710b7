// while, conditional, call and fusion: they evaluate their called
// computations with the interpreter, so they nest freely.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

absl::StatusOr<bool> ReadPred(const Instruction& instr, const Literal& l) {
  if (!l.shape().IsArray() || l.shape().element_type() != PrimitiveType::PRED ||
      ElementCount(l.shape().dimensions()) != 1) {
    return Invalid(instr, absl::StrCat("expected a pred scalar; got ",
                                       l.shape().ToString()));
  }
  return l.data()[0] != 0;
}

}  // namespace

absl::StatusOr<Literal> EvalWhile(Interpreter& interp, const Instruction& instr,
                                  Operands ops) {
  const Computation* cond = instr.while_condition();
  const Computation* body = instr.while_body();
  if (ops.size() != 1 || cond == nullptr || body == nullptr) {
    return Invalid(instr, "expected one operand, a condition and a body");
  }
  Literal state(*ops[0]);
  // No cap unless the options set one (SEMANTICS.md: while loops run until
  // their condition is false).
  const std::optional<int64_t> cap = interp.options().max_while_iterations;
  for (int64_t iteration = 0;; ++iteration) {
    const Literal* arg = &state;
    PLEXA_ASSIGN_OR_RETURN(
        Literal pred, interp.Evaluate(*cond, absl::MakeConstSpan(&arg, 1)));
    PLEXA_ASSIGN_OR_RETURN(bool go_on, ReadPred(instr, pred));
    if (!go_on) break;
    if (cap.has_value() && iteration >= *cap) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "evaluator: ", InstrName(instr), " did not finish within ", *cap,
          " iterations (max_while_iterations)"));
    }
    PLEXA_ASSIGN_OR_RETURN(
        Literal next, interp.Evaluate(*body, absl::MakeConstSpan(&arg, 1)));
    state = std::move(next);
  }
  return state;
}

absl::StatusOr<Literal> EvalConditional(Interpreter& interp,
                                        const Instruction& instr,
                                        Operands ops) {
  const auto& branches = instr.called_computations();
  const int64_t n = static_cast<int64_t>(branches.size());
  if (n < 1 || static_cast<int64_t>(ops.size()) != n + 1) {
    return Invalid(instr, "expected a branch index and one operand per branch");
  }
  const Literal& index = *ops[0];
  if (!index.shape().IsArray() ||
      ElementCount(index.shape().dimensions()) != 1) {
    return Invalid(instr, "the branch index must be a scalar");
  }
  int64_t b;
  if (index.shape().element_type() == PrimitiveType::PRED) {
    // pred: true runs the first (true) computation, false the second.
    b = index.data()[0] != 0 ? 0 : 1;
    if (n != 2) return Invalid(instr, "a pred conditional needs two branches");
  } else {
    PLEXA_ASSIGN_OR_RETURN(b, ReadIndexElement(index, 0));
    // An index out of [0, n) runs the last branch, as XLA.
    if (b < 0 || b >= n) b = n - 1;
  }
  const Literal* arg = ops[1 + b];
  return interp.Evaluate(*branches[b], absl::MakeConstSpan(&arg, 1));
}

absl::StatusOr<Literal> EvalCall(Interpreter& interp, const Instruction& instr,
                                 Operands ops) {
  // call and fusion: evaluate the called computation on the operands.
  if (instr.called_computations().size() != 1) {
    return Invalid(instr, "expected one called computation");
  }
  return interp.Evaluate(*instr.called_computations()[0], ops);
}

}  // namespace plexa::eval
