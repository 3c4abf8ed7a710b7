#include "core/passes/evaluate_util.h"

#include <memory>
#include <utility>
#include <vector>

#include "core/eval/evaluator.h"
#include "core/ir/computation.h"
#include "core/ir/module.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

// True if `c` and everything it calls can be evaluated at compile time.
bool ComputationFoldable(const Computation* c,
                         absl::flat_hash_map<const Computation*, bool>* memo) {
  auto it = memo->find(c);
  if (it != memo->end()) return it->second;
  (*memo)[c] = false;
  for (const Instruction* inst : c->instructions()) {
    if (IsNotFoldable(*inst)) return false;
    for (const Computation* callee : inst->called_computations()) {
      if (!ComputationFoldable(callee, memo)) return false;
    }
  }
  (*memo)[c] = true;
  return true;
}

// Deep-copies `c` and its callees into `module`, callees first.
Computation* CloneDeep(
    const Computation* c, Module* module,
    absl::flat_hash_map<const Computation*, Computation*>* cloned) {
  auto it = cloned->find(c);
  if (it != cloned->end()) return it->second;
  for (const Instruction* inst : c->instructions()) {
    for (const Computation* callee : inst->called_computations()) {
      CloneDeep(callee, module, cloned);
    }
  }
  Computation* copy = CloneComputation(*c, module, c->name());
  for (Instruction* inst : copy->instructions()) {
    for (const Computation* callee : inst->called_computations()) {
      inst->ReplaceCalledComputation(const_cast<Computation*>(callee),
                                     cloned->at(callee));
    }
  }
  (*cloned)[c] = copy;
  return copy;
}

}  // namespace

std::optional<Literal> EvaluateSubgraph(
    const Instruction& root,
    const absl::flat_hash_map<const Instruction*, const Literal*>& known,
    const SubgraphEvaluationLimits& limits) {
  // Collect the subgraph (operands first), stopping at known values and
  // constants.
  std::vector<const Instruction*> order;
  absl::flat_hash_map<const Instruction*, int> state;
  std::vector<std::pair<const Instruction*, int64_t>> stack = {{&root, 0}};
  state[&root] = 1;
  absl::flat_hash_map<const Computation*, bool> foldable;
  while (!stack.empty()) {
    auto& [inst, next] = stack.back();
    const bool leaf =
        known.contains(inst) || inst->opcode() == HloOpcode::kConstant;
    if (!leaf) {
      if (inst->opcode() == HloOpcode::kParameter || IsNotFoldable(*inst)) {
        return std::nullopt;
      }
      for (const Computation* callee : inst->called_computations()) {
        if (!ComputationFoldable(callee, &foldable)) return std::nullopt;
      }
    }
    if (!leaf && next < inst->operand_count()) {
      const Instruction* op = inst->operand(next++);
      int& st = state[op];
      if (st == 0) {
        st = 1;
        stack.push_back({op, 0});
      }
      continue;
    }
    order.push_back(inst);
    if (static_cast<int64_t>(order.size()) > limits.max_instructions) {
      return std::nullopt;
    }
    stack.pop_back();
  }

  Module module("subgraph");
  auto entry = std::make_unique<Computation>("subgraph");
  absl::flat_hash_map<const Computation*, Computation*> cloned;
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (const Instruction* inst : order) {
    auto k = known.find(inst);
    if (k != known.end()) {
      map[inst] = AddConstant(entry.get(), *k->second);
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands()) operands.push_back(map[op]);
    Instruction* copy = AddClone(entry.get(), *inst, std::move(operands));
    for (const Computation* callee : inst->called_computations()) {
      copy->ReplaceCalledComputation(const_cast<Computation*>(callee),
                                     CloneDeep(callee, &module, &cloned));
    }
    map[inst] = copy;
  }
  entry->set_root_instruction(map[&root]);
  module.AddComputation(std::move(entry), /*is_entry=*/true);

  EvaluatorOptions options;
  options.max_while_iterations = limits.max_while_iterations;
  absl::StatusOr<Literal> value = Evaluator(options).Run(module, {});
  if (!value.ok()) return std::nullopt;
  return std::move(value).value();
}

}  // namespace plexa
