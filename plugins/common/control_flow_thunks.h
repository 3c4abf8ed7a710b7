// Host control flow: while, conditional and call run the thunk sequences of
// the computations they call (RunComputation), on the host, between the
// backend's own thunks.
#ifndef PLEXA_PLUGINS_COMMON_CONTROL_FLOW_THUNKS_H_
#define PLEXA_PLUGINS_COMMON_CONTROL_FLOW_THUNKS_H_

#include <vector>

#include "plugins/common/thunk.h"

namespace plexa::backend {

class WhileThunk : public Thunk {
 public:
  WhileThunk(const CompiledComputation* cond, const CompiledComputation* body)
      : cond_(cond), body_(body) {}
  // inputs: the operand's leaves; outputs: the loop state (= result).
  absl::Status Run(Frame& f) const override;
  StepClass step_class() const override { return StepClass::kControlFlow; }

 private:
  const CompiledComputation* cond_;
  const CompiledComputation* body_;
};

// conditional (branch index or pred) and call (one branch, no selector).
class BranchThunk : public Thunk {
 public:
  // inputs: [selector leaf (if has_selector)] then each branch's operand
  // leaves in order (counts in branch_leaves).
  BranchThunk(std::vector<const CompiledComputation*> branches,
              std::vector<int> branch_leaves, bool has_selector,
              bool pred_selector)
      : branches_(std::move(branches)),
        branch_leaves_(std::move(branch_leaves)),
        has_selector_(has_selector),
        pred_selector_(pred_selector) {}
  absl::Status Run(Frame& f) const override;
  StepClass step_class() const override { return StepClass::kControlFlow; }

 private:
  std::vector<const CompiledComputation*> branches_;
  std::vector<int> branch_leaves_;
  bool has_selector_;
  bool pred_selector_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_CONTROL_FLOW_THUNKS_H_
