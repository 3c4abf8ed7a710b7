#include "core/passes/cse.h"

#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

// A hash consistent with Instruction::Identical (with operands compared by
// pointer): equal instructions hash equally; the attributes not hashed here
// are compared by Identical.
size_t HashInstruction(const Instruction& inst) {
  size_t h = absl::HashOf(static_cast<int>(inst.opcode()), inst.shape());
  for (const Instruction* op : inst.operands()) {
    h = absl::HashOf(h, reinterpret_cast<uintptr_t>(op));
  }
  const InstructionAttrs& a = inst.attrs();
  h = absl::HashOf(h, a.dimensions, a.tuple_index, a.iota_dimension);
  if (inst.opcode() == HloOpcode::kConstant && a.literal != nullptr &&
      a.literal->shape().IsArray()) {
    // Literal equality ignores the layout, so hash values in logical
    // order would be needed for layouts that differ; the byte image is
    // hashed instead and only literals of one layout meet in a bucket,
    // which can only miss a merge, never make a wrong one.
    absl::Span<const uint8_t> data = a.literal->data();
    h = absl::HashOf(
        h, absl::string_view(reinterpret_cast<const char*>(data.data()),
                             data.size()));
  }
  return h;
}

absl::StatusOr<bool> RunOnComputation(Computation* c,
                                      SideEffects* side_effects) {
  bool changed = false;
  absl::flat_hash_map<size_t, std::vector<Instruction*>> seen;
  for (Instruction* inst : c->MakeInstructionPostOrder()) {
    if (inst->opcode() == HloOpcode::kParameter ||
        !inst->control_predecessors().empty() ||
        !inst->control_successors().empty() || side_effects->Has(*inst)) {
      continue;
    }
    std::vector<Instruction*>& bucket = seen[HashInstruction(*inst)];
    Instruction* match = nullptr;
    for (Instruction* candidate : bucket) {
      if (candidate->Identical(*inst,
                               [](const Instruction* a, const Instruction* b) {
                                 return a == b;
                               })) {
        match = candidate;
        break;
      }
    }
    if (match == nullptr) {
      bucket.push_back(inst);
      continue;
    }
    // `inst` has the same operands as `match`, so removing it leaves no
    // operand dead; only `inst` itself goes.
    absl::Status s = inst->ReplaceAllUsesWith(match);
    if (!s.ok()) return s;
    s = c->RemoveInstruction(inst);
    if (!s.ok()) return s;
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> CommonSubexpressionElimination::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    absl::StatusOr<bool> r = RunOnComputation(c, &side_effects);
    if (!r.ok()) return r.status();
    changed |= *r;
  }
  return changed;
}

}  // namespace plexa
