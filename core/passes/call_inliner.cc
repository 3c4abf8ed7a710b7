#include "core/passes/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/passes/pass_util.h"

namespace plexa {

absl::StatusOr<Computation*> InlineCallSites(
    Computation* computation, absl::Span<Instruction* const> calls,
    Computation* (*callee_of)(const Instruction&)) {
  if (calls.empty()) return computation;
  SideEffects side_effects;
  const std::vector<Instruction*> before =
      computation->MakeInstructionPostOrder();
  absl::flat_hash_map<const Instruction*, std::vector<Instruction*>> clones;
  bool reorder = false;
  for (Instruction* call : calls) {
    Computation* callee = callee_of(*call);
    reorder |= side_effects.ComputationHas(callee);
    const int64_t first_new = computation->instruction_count();
    std::vector<Instruction*> args(call->operands().begin(),
                                   call->operands().end());
    absl::StatusOr<Instruction*> root =
        InlineComputation(computation, *callee, args);
    if (!root.ok()) return root.status();
    const std::vector<Instruction*> all = computation->instructions();
    clones[call].assign(all.begin() + first_new, all.end());
    // Only the call goes: its operands stay (possibly dead, for DCE), so
    // `before` keeps pointing at live instructions.
    absl::Status s = call->ReplaceAllUsesWith(*root);
    if (!s.ok()) return s;
    const std::vector<Instruction*> preds = call->control_predecessors();
    const std::vector<Instruction*> succs = call->control_successors();
    for (Instruction* p : preds) {
      for (Instruction* q : succs) p->AddControlDependencyTo(q);
    }
    call->DropAllControlDependencies();
    s = computation->RemoveInstruction(call);
    if (!s.ok()) return s;
  }
  if (!reorder) return computation;
  // The original execution order with each call's instructions in its
  // place: operands still come first (a call's operands precede it, its
  // users follow it).
  std::vector<Instruction*> order;
  order.reserve(computation->instruction_count());
  for (Instruction* inst : before) {
    auto it = clones.find(inst);
    if (it == clones.end()) {
      order.push_back(inst);
    } else {
      order.insert(order.end(), it->second.begin(), it->second.end());
    }
  }
  return RebuildInOrder(computation, order);
}

absl::StatusOr<bool> CallInliner::Run(Module& module) {
  bool changed = false;
  // Callees first, so an inlined body has no calls left in it.
  for (Computation* c : module.MakeComputationPostOrder()) {
    std::vector<Instruction*> calls;
    for (Instruction* inst : c->instructions()) {
      if (inst->opcode() == HloOpcode::kCall && inst->to_apply() != nullptr) {
        calls.push_back(inst);
      }
    }
    if (calls.empty()) continue;
    absl::StatusOr<Computation*> r = InlineCallSites(
        c, calls, [](const Instruction& i) { return i.to_apply(); });
    if (!r.ok()) return r.status();
    changed = true;
  }
  return changed;
}

}  // namespace plexa
