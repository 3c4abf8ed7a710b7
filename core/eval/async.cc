// The generic async wrappers, copy-start/-done, add-dependency, domain and
// rng-get-and-update-state. Plexa runs async pairs synchronously: the
// start computes, an update forwards, the done picks the result.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

absl::Status ExpectTuple(const Instruction& instr, const Literal& l,
                         int64_t min_elements) {
  if (!l.shape().IsTuple() || l.tuple_element_count() < min_elements) {
    return Invalid(instr,
                   absl::StrCat("expected a tuple of at least ", min_elements,
                                " elements; got ", l.shape().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalAsyncWrapperStart(Interpreter& interp,
                                              const Instruction& instr,
                                              Operands ops) {
  if (instr.called_computations().size() != 1) {
    return Invalid(instr, "expected one wrapped computation");
  }
  if (!instr.shape().IsTuple() || instr.shape().tuple_shapes_size() < 2) {
    return Invalid(instr, "its shape is not ((operands), result, context...)");
  }
  PLEXA_ASSIGN_OR_RETURN(Literal result,
                         interp.Evaluate(*instr.called_computations()[0], ops));
  std::vector<Literal> ins;
  for (const Literal* op : ops) ins.push_back(Literal(*op));
  std::vector<Literal> parts;
  parts.push_back(Literal::MakeTuple(std::move(ins)));
  parts.push_back(std::move(result));
  // The context elements mean nothing to a synchronous run: zeros.
  for (int i = 2; i < instr.shape().tuple_shapes_size(); ++i) {
    parts.push_back(MakeLiteral(instr.shape().tuple_shapes(i)));
  }
  return Literal::MakeTuple(std::move(parts));
}

absl::StatusOr<Literal> EvalAsyncWrapperUpdate(Interpreter&,
                                               const Instruction& instr,
                                               Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectTuple(instr, *ops[0], 2));
  return Literal(*ops[0]);
}

absl::StatusOr<Literal> EvalAsyncWrapperDone(Interpreter&,
                                             const Instruction& instr,
                                             Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectTuple(instr, *ops[0], 2));
  return Literal(ops[0]->tuple_element(1));
}

absl::StatusOr<Literal> EvalCopyStart(Interpreter&, const Instruction& instr,
                                      Operands ops) {
  if (!instr.shape().IsTuple() || instr.shape().tuple_shapes_size() != 3) {
    return Invalid(instr, "its shape is not (destination, source, u32[])");
  }
  std::vector<Literal> parts;
  parts.push_back(Literal(*ops[0]));  // the destination: a copy
  parts.push_back(Literal(*ops[0]));  // the source
  parts.push_back(MakeLiteral(instr.shape().tuple_shapes(2)));
  return Literal::MakeTuple(std::move(parts));
}

absl::StatusOr<Literal> EvalCopyDone(Interpreter&, const Instruction& instr,
                                     Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectTuple(instr, *ops[0], 3));
  // XLA: the destination, element 0.
  return Literal(ops[0]->tuple_element(0));
}

absl::StatusOr<Literal> EvalForwardOperand(Interpreter&, const Instruction&,
                                           Operands ops) {
  // add-dependency(x, token) and domain(x): x; the token only orders.
  return Literal(*ops[0]);
}

absl::StatusOr<Literal> EvalRngGetAndUpdateState(Interpreter& interp,
                                                 const Instruction& instr,
                                                 Operands) {
  RngStateTable& table = interp.rng_states();
  const std::array<uint64_t, 2> state =
      table.GetAndUpdate(&instr, interp.device(), instr.attrs().rng_delta);
  return Literal::CreateR1<uint64_t>({state[0], state[1]});
}

}  // namespace plexa::eval
