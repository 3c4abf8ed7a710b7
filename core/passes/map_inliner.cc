#include "core/passes/map_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

bool Inlinable(const Computation& f) {
  for (const Instruction* inst : f.instructions()) {
    const HloOpcode op = inst->opcode();
    if (op == HloOpcode::kParameter) continue;
    if (!inst->shape().IsArray() || inst->shape().rank() != 0) return false;
    if (op == HloOpcode::kConstant) continue;
    if (!IsElementwise(op) || op == HloOpcode::kMap ||
        !inst->called_computations().empty()) {
      return false;
    }
  }
  return f.root_instruction() != nullptr;
}

absl::StatusOr<bool> InlineMap(Instruction* map, SideEffects* side_effects) {
  const Computation& f = *map->to_apply();
  Computation* c = map->parent();
  const absl::Span<const int64_t> dims = map->shape().dimensions();
  absl::flat_hash_map<const Instruction*, Instruction*> value;
  for (const Instruction* inst : f.MakeInstructionPostOrder()) {
    if (inst->opcode() == HloOpcode::kParameter) {
      value[inst] = map->mutable_operand(inst->parameter_number());
      continue;
    }
    if (inst->opcode() == HloOpcode::kConstant) {
      Instruction* scalar = AddClone(c, *inst, {});
      absl::StatusOr<Instruction*> b = AddBroadcast(c, scalar, dims, {});
      if (!b.ok()) return b.status();
      value[inst] = *b;
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands())
      operands.push_back(value[op]);
    value[inst] = AddCloneWithShape(c, *inst, std::move(operands),
                                    Shape(inst->shape().element_type(), dims));
  }
  Instruction* root = value[f.root_instruction()];
  if (f.root_instruction()->opcode() != HloOpcode::kParameter) {
    *root->mutable_shape() = map->shape();  // keep the map's layout
  }
  absl::Status s = ReplaceInstruction(map, root, side_effects);
  if (!s.ok()) return s;
  return true;
}

}  // namespace

absl::StatusOr<bool> MapInliner::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      if (inst->opcode() != HloOpcode::kMap || inst->to_apply() == nullptr ||
          inst->shape().is_dynamic() || !Inlinable(*inst->to_apply())) {
        continue;
      }
      absl::StatusOr<bool> r = InlineMap(inst, &side_effects);
      if (!r.ok()) return r.status();
      changed |= *r;
    }
  }
  return changed;
}

}  // namespace plexa
