#include "core/ir/module.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace plexa {

Computation* Module::AddComputation(std::unique_ptr<Computation> computation,
                                    bool is_entry) {
  Computation* c = computation.get();
  if (GetComputationWithName(c->name()) != nullptr) {
    int64_t n = 1;
    std::string candidate;
    do {
      candidate = absl::StrCat(c->name(), ".", n++);
    } while (GetComputationWithName(candidate) != nullptr);
    c->set_name(candidate);
  }
  c->parent_ = this;
  for (auto& inst : c->instructions_) {
    if (inst->unique_id() < 0) inst->set_unique_id(NextUniqueId());
  }
  computations_.push_back(std::move(computation));
  if (is_entry) entry_ = c;
  return c;
}

absl::Status Module::RemoveComputation(Computation* computation) {
  if (computation == entry_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot remove the entry computation ", computation->name()));
  }
  for (const auto& c : computations_) {
    for (const auto& inst : c->instructions_) {
      for (Computation* called : inst->called_computations()) {
        if (called == computation) {
          return absl::FailedPreconditionError(
              absl::StrCat("cannot remove computation ", computation->name(),
                           ": called by ", inst->name(), " in ", c->name()));
        }
      }
    }
  }
  auto it = std::find_if(computations_.begin(), computations_.end(),
                         [&](const std::unique_ptr<Computation>& p) {
                           return p.get() == computation;
                         });
  if (it == computations_.end()) {
    return absl::NotFoundError(
        absl::StrCat(computation->name(), " is not in module ", name_));
  }
  computations_.erase(it);
  return absl::OkStatus();
}

std::vector<Computation*> Module::computations() const {
  std::vector<Computation*> out;
  out.reserve(computations_.size());
  for (const auto& c : computations_) out.push_back(c.get());
  return out;
}

std::vector<Computation*> Module::MakeComputationPostOrder() const {
  std::vector<Computation*> order;
  absl::flat_hash_map<const Computation*, int> state;
  // Entry last: visit everything else first, in insertion order.
  std::vector<Computation*> roots;
  for (const auto& c : computations_) {
    if (c.get() != entry_) roots.push_back(c.get());
  }
  if (entry_) roots.push_back(entry_);
  for (Computation* start : roots) {
    if (state[start] != 0) continue;
    // (computation, flattened list of callees, next index)
    struct Frame {
      Computation* c;
      std::vector<Computation*> callees;
      size_t next;
    };
    auto callees_of = [](Computation* c) {
      std::vector<Computation*> out;
      for (Instruction* inst : c->instructions()) {
        for (Computation* called : inst->called_computations()) {
          if (called) out.push_back(called);
        }
      }
      return out;
    };
    std::vector<Frame> stack;
    stack.push_back({start, callees_of(start), 0});
    state[start] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.callees.size()) {
        Computation* callee = f.callees[f.next++];
        int& st = state[callee];
        if (st == 0) {
          st = 1;
          stack.push_back({callee, callees_of(callee), 0});
        }
        continue;
      }
      state[f.c] = 2;
      order.push_back(f.c);
      stack.pop_back();
    }
  }
  return order;
}

Computation* Module::GetComputationWithName(absl::string_view name) const {
  for (const auto& c : computations_) {
    if (c->name() == name) return c.get();
  }
  return nullptr;
}

}  // namespace plexa
