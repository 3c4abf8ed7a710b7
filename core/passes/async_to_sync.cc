#include "core/passes/async_to_sync.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

absl::Status Malformed(const Instruction& inst, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(
      "async-to-sync: ", HloOpcodeString(inst.opcode()), " '", inst.name(),
      "' ", what, " (shape ", inst.shape().ToString(), ")"));
}

// Removes `inst` and its chain of operands of the given opcodes once they
// have no users (an async-start whose wrapped computation has a side effect
// is never "dead" to DCE: its done carried that effect, and now the call
// does).
absl::Status RemoveChain(Computation* c, Instruction* inst) {
  while (inst != nullptr && inst->user_count() == 0 &&
         inst != c->root_instruction()) {
    Instruction* next = nullptr;
    if (inst->opcode() == HloOpcode::kAsyncUpdate ||
        inst->opcode() == HloOpcode::kAsyncDone) {
      next = inst->mutable_operand(0);
    }
    PLEXA_RETURN_IF_ERROR(c->RemoveInstruction(inst));
    inst = next;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> AsyncToSync::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      switch (inst->opcode()) {
        case HloOpcode::kAsyncDone: {
          Instruction* start = inst->mutable_operand(0);
          while (start->opcode() == HloOpcode::kAsyncUpdate) {
            start = start->mutable_operand(0);
          }
          if (start->opcode() != HloOpcode::kAsyncStart ||
              start->called_computations().size() != 1) {
            return Malformed(*inst, "does not end an async-start's chain");
          }
          Instruction* previous = inst->mutable_operand(0);
          std::vector<Instruction*> operands(start->operands().begin(),
                                             start->operands().end());
          PLEXA_ASSIGN_OR_RETURN(
              Instruction * call,
              AddInstruction(c, HloOpcode::kCall, std::move(operands), {},
                             {start->called_computations()[0]}));
          *call->mutable_shape() = inst->shape();
          // The call runs where the pair ran: after what the start waited
          // for, before what waited for the done.
          for (Instruction* p : start->control_predecessors()) {
            p->AddControlDependencyTo(call);
          }
          for (Instruction* s : inst->control_successors()) {
            call->AddControlDependencyTo(s);
          }
          // Not ReplaceInstruction: it would stop at a start whose wrapped
          // computation has a side effect.
          PLEXA_RETURN_IF_ERROR(inst->ReplaceAllUsesWith(call));
          PLEXA_RETURN_IF_ERROR(c->RemoveInstruction(inst));
          PLEXA_RETURN_IF_ERROR(RemoveChain(c, previous));
          changed = true;
          break;
        }
        case HloOpcode::kCopyDone: {
          Instruction* start = inst->mutable_operand(0);
          if (start->opcode() != HloOpcode::kCopyStart) {
            return Malformed(*inst, "does not take a copy-start");
          }
          PLEXA_ASSIGN_OR_RETURN(
              Instruction * copy,
              AddInstruction(c, HloOpcode::kCopy, {start->mutable_operand(0)}));
          *copy->mutable_shape() = inst->shape();
          PLEXA_RETURN_IF_ERROR(ReplaceInstruction(inst, copy, &side_effects));
          changed = true;
          break;
        }
        case HloOpcode::kAddDependency:
        case HloOpcode::kDomain:
          PLEXA_RETURN_IF_ERROR(ReplaceInstruction(
              inst, inst->mutable_operand(0), &side_effects));
          changed = true;
          break;
        default:
          break;
      }
    }
  }
  return changed;
}

}  // namespace plexa
