#include "core/passes/clamp_expander.h"

#include "core/passes/pass_util.h"

namespace plexa {
namespace {

// `v` broadcast to `like`'s dimensions if it is a scalar and `like` is not.
absl::StatusOr<Instruction*> Widen(Instruction* v, const Instruction& like) {
  if (v->shape().rank() == like.shape().rank()) return v;
  return AddBroadcast(v->parent(), v, like.shape().dimensions(), {});
}

}  // namespace

absl::StatusOr<bool> ClampExpander::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* clamp : c->MakeInstructionPostOrder()) {
      // Dynamic dimensions are not broadcast here; such clamps stay.
      if (clamp->opcode() != HloOpcode::kClamp || clamp->shape().is_dynamic()) {
        continue;
      }
      Instruction* x = clamp->mutable_operand(1);
      PLEXA_ASSIGN_OR_RETURN(Instruction * lo,
                             Widen(clamp->mutable_operand(0), *x));
      PLEXA_ASSIGN_OR_RETURN(Instruction * hi,
                             Widen(clamp->mutable_operand(2), *x));
      PLEXA_ASSIGN_OR_RETURN(Instruction * at_least,
                             AddInstruction(c, HloOpcode::kMaximum, {x, lo}));
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * result,
          AddInstruction(c, HloOpcode::kMinimum, {hi, at_least}));
      *result->mutable_shape() = clamp->shape();
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(clamp, result, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
