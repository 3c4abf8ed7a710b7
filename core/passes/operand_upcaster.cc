#include "core/passes/operand_upcaster.h"

#include <vector>

#include "core/passes/pass_util.h"

namespace plexa {

absl::StatusOr<bool> OperandUpcaster::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      if ((inst->opcode() != HloOpcode::kDot &&
           inst->opcode() != HloOpcode::kConvolution) ||
          !inst->shape().IsArray() || !inst->attrs().dot_sparsity.empty()) {
        continue;
      }
      const PrimitiveType result = inst->shape().element_type();
      if (inst->operand(0)->shape().element_type() ==
          inst->operand(1)->shape().element_type()) {
        continue;
      }
      std::vector<Instruction*> operands;
      for (int64_t i = 0; i < 2; ++i) {
        Instruction* operand = inst->mutable_operand(i);
        if (operand->shape().element_type() != result) {
          Shape to = operand->shape();
          to.set_element_type(result);
          PLEXA_ASSIGN_OR_RETURN(
              operand,
              AddInstruction(c, HloOpcode::kConvert, {operand}, {}, {}, &to));
        }
        operands.push_back(operand);
      }
      Instruction* upcast = AddClone(c, *inst, std::move(operands));
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(inst, upcast, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
