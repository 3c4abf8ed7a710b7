#include "core/passes/sharding_remover.h"

#include "absl/strings/str_cat.h"
#include "core/ir/annotation_targets.h"
#include "core/passes/pass_util.h"

namespace plexa {

absl::StatusOr<bool> ShardingRemover::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* call : c->MakeInstructionPostOrder()) {
      if (call->opcode() != HloOpcode::kCustomCall ||
          !IsAnnotationTarget(call->attrs().custom_call_target)) {
        continue;
      }
      PLEXA_RETURN_IF_ERROR(CheckAnnotationIsIdentity(
          *call, absl::StrCat("sharding-remover: in computation '", c->name(),
                              "': ")));
      PLEXA_RETURN_IF_ERROR(
          ReplaceInstruction(call, call->mutable_operand(0), &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
