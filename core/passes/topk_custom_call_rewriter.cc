#include "core/passes/topk_custom_call_rewriter.h"

#include "absl/strings/str_cat.h"
#include "core/infer/shape_inference.h"
#include "core/passes/pass_util.h"

namespace plexa {

absl::StatusOr<bool> TopKCustomCallRewriter::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* call : c->MakeInstructionPostOrder()) {
      if (call->opcode() != HloOpcode::kCustomCall ||
          call->attrs().custom_call_target != "TopK") {
        continue;
      }
      PLEXA_ASSIGN_OR_RETURN(int64_t k,
                             shape_inference::TopKCustomCallK(*call));
      InstructionAttrs attrs;
      attrs.k = k;
      attrs.largest = true;
      attrs.backend_config = call->attrs().backend_config;
      attrs.opaque = call->attrs().opaque;
      auto topk =
          Instruction::Create(HloOpcode::kTopK, call->shape(),
                              {call->mutable_operand(0)}, std::move(attrs));
      topk->set_name(call->name());
      Instruction* added = c->AddInstruction(std::move(topk));
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(call, added, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
