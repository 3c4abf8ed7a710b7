#include "core/passes/tuple_simplifier.h"

#include "core/passes/pass_util.h"

namespace plexa {
namespace {

// The x of tuple(gte(x, 0), ..., gte(x, n-1)), or nullptr.
Instruction* TupleOfAllElements(Instruction* tuple) {
  if (tuple->operand_count() == 0) return nullptr;
  Instruction* source = nullptr;
  for (int64_t i = 0; i < tuple->operand_count(); ++i) {
    Instruction* op = tuple->mutable_operand(i);
    if (op->opcode() != HloOpcode::kGetTupleElement || op->tuple_index() != i) {
      return nullptr;
    }
    if (source == nullptr) source = op->mutable_operand(0);
    if (op->operand(0) != source) return nullptr;
  }
  if (source->shape().tuple_shapes_size() != tuple->operand_count()) {
    return nullptr;
  }
  return source;
}

}  // namespace

absl::StatusOr<bool> TupleSimplifier::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      Instruction* replacement = nullptr;
      if (inst->opcode() == HloOpcode::kGetTupleElement &&
          inst->operand(0)->opcode() == HloOpcode::kTuple) {
        replacement =
            inst->mutable_operand(0)->mutable_operand(inst->tuple_index());
      } else if (inst->opcode() == HloOpcode::kTuple) {
        replacement = TupleOfAllElements(inst);
      }
      if (replacement == nullptr ||
          !Shape::Equal().IgnoreLayout()(inst->shape(), replacement->shape())) {
        continue;
      }
      if (options_.is_layout_sensitive &&
          !(inst->shape() == replacement->shape())) {
        continue;
      }
      absl::Status s = ReplaceInstruction(inst, replacement, &side_effects);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
