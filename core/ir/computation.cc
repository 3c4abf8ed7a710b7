#include "core/ir/computation.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/ir/post_order.h"

namespace plexa {

std::string Computation::UniqueName(absl::string_view prefix) {
  std::string base(prefix);
  int64_t& next = next_suffix_[base];
  while (true) {
    std::string candidate = absl::StrCat(base, ".", next++);
    if (!by_name_.contains(candidate)) return candidate;
  }
}

Instruction* Computation::AddInstruction(
    std::unique_ptr<Instruction> instruction) {
  Instruction* inst = instruction.get();
  if (inst->name().empty()) {
    inst->set_name(UniqueName(HloOpcodeString(inst->opcode())));
  } else if (by_name_.contains(inst->name())) {
    inst->set_name(UniqueName(inst->name()));
  }
  by_name_[inst->name()] = inst;
  inst->parent_ = this;
  if (parent_) inst->unique_id_ = parent_->NextUniqueId();
  if (inst->opcode() == HloOpcode::kParameter) {
    const int64_t n = inst->parameter_number();
    if (n >= 0) {
      if (n >= num_parameters()) parameters_.resize(n + 1, nullptr);
      parameters_[n] = inst;
    }
  }
  instructions_.push_back(std::move(instruction));
  return inst;
}

absl::Status Computation::RemoveInstruction(Instruction* instruction) {
  if (instruction->user_count() != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", instruction->name(), ": it still has ",
                     instruction->user_count(), " user(s)"));
  }
  if (instruction == root_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove ", instruction->name(), ": it is the root of ", name_));
  }
  if (instruction->opcode() == HloOpcode::kParameter) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove parameter ", instruction->name(), " of ", name_));
  }
  auto it = std::find_if(instructions_.begin(), instructions_.end(),
                         [&](const std::unique_ptr<Instruction>& p) {
                           return p.get() == instruction;
                         });
  if (it == instructions_.end()) {
    return absl::NotFoundError(
        absl::StrCat(instruction->name(), " is not in computation ", name_));
  }
  instruction->DetachOperands();
  instruction->DropAllControlDependencies();
  by_name_.erase(instruction->name());
  instructions_.erase(it);
  return absl::OkStatus();
}

absl::Status Computation::RemoveInstructionAndUnusedOperands(
    Instruction* instruction) {
  std::vector<Instruction*> operands(instruction->operands().begin(),
                                     instruction->operands().end());
  absl::Status s = RemoveInstruction(instruction);
  if (!s.ok()) return s;
  absl::flat_hash_set<Instruction*> seen;
  for (Instruction* op : operands) {
    if (!seen.insert(op).second) continue;
    if (op->user_count() == 0 && op != root_ &&
        op->opcode() != HloOpcode::kParameter &&
        op->control_successors().empty()) {
      s = RemoveInstructionAndUnusedOperands(op);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

std::vector<Instruction*> Computation::instructions() const {
  std::vector<Instruction*> out;
  out.reserve(instructions_.size());
  for (const auto& i : instructions_) out.push_back(i.get());
  return out;
}

std::vector<Instruction*> Computation::MakeInstructionPostOrder() const {
  return PostOrderWithExtraPredecessor(
      *this, [](const Instruction*) -> Instruction* { return nullptr; });
}

std::vector<Instruction*> PostOrderWithExtraPredecessor(
    const Computation& computation,
    absl::FunctionRef<Instruction*(const Instruction*)> extra) {
  // Iterative DFS from every instruction in insertion order, so the order
  // is deterministic and unreachable instructions are included. Cycles (a
  // malformed graph) do not loop forever: a node on the stack is skipped;
  // the verifier reports the cycle.
  const std::vector<Instruction*> instructions = computation.instructions();
  std::vector<Instruction*> order;
  order.reserve(instructions.size());
  absl::flat_hash_map<const Instruction*, int> state;  // 1 visiting, 2 done
  for (Instruction* start : instructions) {
    if (state[start] != 0) continue;
    // (node, its extra predecessor, the next dependency to look at)
    struct Frame {
      Instruction* node;
      Instruction* extra;
      size_t next;
    };
    std::vector<Frame> stack;
    stack.push_back({start, extra(start), 0});
    state[start] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const size_t n_ops = f.node->operands().size();
      const size_t n_ctl = f.node->control_predecessors().size();
      const size_t n_all = n_ops + n_ctl + (f.extra != nullptr ? 1 : 0);
      if (f.next < n_all) {
        Instruction* dep = f.next < n_ops ? f.node->operands()[f.next]
                           : f.next < n_ops + n_ctl
                               ? f.node->control_predecessors()[f.next - n_ops]
                               : f.extra;
        ++f.next;
        if (dep->parent() != &computation) continue;
        int& st = state[dep];
        if (st == 0) {
          st = 1;
          stack.push_back({dep, extra(dep), 0});
        }
        continue;
      }
      state[f.node] = 2;
      order.push_back(f.node);
      stack.pop_back();
    }
  }
  return order;
}

Instruction* Computation::GetInstructionWithName(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

ProgramShape Computation::ComputeProgramShape() const {
  ProgramShape ps;
  for (const Instruction* p : parameters_) {
    if (p) {
      ps.parameters.push_back(p->shape());
      ps.parameter_names.push_back(p->name());
    } else {
      ps.parameters.emplace_back();
      ps.parameter_names.emplace_back();
    }
  }
  if (root_) ps.result = root_->shape();
  return ps;
}

bool Computation::IsEntryComputation() const {
  return parent_ && parent_->entry_computation() == this;
}

}  // namespace plexa
