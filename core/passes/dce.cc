#include "core/passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

// Removes the instructions of `c` that neither the root, nor a parameter,
// nor a side-effecting instruction needs. Returns the number removed.
absl::StatusOr<int64_t> RemoveDeadInstructions(Computation* c,
                                               SideEffects* side_effects) {
  const std::vector<Instruction*> order = c->MakeInstructionPostOrder();
  absl::flat_hash_set<const Instruction*> live;
  std::vector<const Instruction*> work;
  auto mark = [&](const Instruction* inst) {
    if (live.insert(inst).second) work.push_back(inst);
  };
  if (c->root_instruction() != nullptr) mark(c->root_instruction());
  for (const Instruction* inst : order) {
    if (inst->opcode() == HloOpcode::kParameter || side_effects->Has(*inst)) {
      mark(inst);
    }
  }
  while (!work.empty()) {
    const Instruction* inst = work.back();
    work.pop_back();
    for (const Instruction* op : inst->operands()) mark(op);
  }
  if (static_cast<int64_t>(live.size()) == c->instruction_count()) return 0;
  // Users before operands, so each removed instruction has no users left.
  int64_t removed = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Instruction* inst = *it;
    if (live.contains(inst)) continue;
    const std::vector<Instruction*> preds = inst->control_predecessors();
    const std::vector<Instruction*> succs = inst->control_successors();
    for (Instruction* p : preds) {
      for (Instruction* s : succs) p->AddControlDependencyTo(s);
    }
    inst->DropAllControlDependencies();
    absl::Status s = c->RemoveInstruction(inst);
    if (!s.ok()) return s;
    ++removed;
  }
  return removed;
}

// Computations reachable from the entry through called computations.
absl::flat_hash_set<const Computation*> Reachable(const Module& module) {
  absl::flat_hash_set<const Computation*> seen;
  std::vector<const Computation*> work;
  if (module.entry_computation() != nullptr) {
    seen.insert(module.entry_computation());
    work.push_back(module.entry_computation());
  }
  while (!work.empty()) {
    const Computation* c = work.back();
    work.pop_back();
    for (const Instruction* inst : c->instructions()) {
      for (const Computation* callee : inst->called_computations()) {
        if (seen.insert(callee).second) work.push_back(callee);
      }
    }
  }
  return seen;
}

}  // namespace

absl::StatusOr<bool> DeadCodeElimination::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  // Callers first: removing a dead call can only make its callee's
  // instructions unused by nobody else; nothing in a callee affects which
  // caller instructions are live.
  std::vector<Computation*> post = module.MakeComputationPostOrder();
  for (auto it = post.rbegin(); it != post.rend(); ++it) {
    absl::StatusOr<int64_t> removed =
        RemoveDeadInstructions(*it, &side_effects);
    if (!removed.ok()) return removed.status();
    changed |= *removed > 0;
  }
  if (!options_.remove_unused_computations) return changed;
  const absl::flat_hash_set<const Computation*> reachable = Reachable(module);
  // Callers before callees so each is uncalled when it is removed.
  post = module.MakeComputationPostOrder();
  for (auto it = post.rbegin(); it != post.rend(); ++it) {
    if (reachable.contains(*it)) continue;
    absl::Status s = module.RemoveComputation(*it);
    if (!s.ok()) return s;
    changed = true;
  }
  return changed;
}

}  // namespace plexa
