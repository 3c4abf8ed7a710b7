#include "core/passes/sharding_remover.h"

#include "core/passes/pass_util.h"

namespace plexa {

absl::StatusOr<bool> ShardingRemover::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* call : c->MakeInstructionPostOrder()) {
      if (call->opcode() != HloOpcode::kCustomCall ||
          call->operand_count() != 1) {
        continue;
      }
      const std::string& target = call->attrs().custom_call_target;
      if (target != "Sharding" && target != "SPMDFullToShardShape" &&
          target != "SPMDShardToFullShape") {
        continue;
      }
      Instruction* operand = call->mutable_operand(0);
      if (!Shape::Equal().IgnoreLayout()(operand->shape(), call->shape())) {
        continue;
      }
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(call, operand, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
