// A oneDNN primitive as a thunk: built once at compile (onednn_plan.h),
// executed per run on the program's memory. Inputs are the fusion's
// operands; the outputs are the result and the scratch (the primitive's
// scratchpad in user mode and the reordered copies of arguments whose
// layout the primitive chose), a temporary of the program's arena.
#ifndef PLEXA_PLUGINS_ONEDNN_ONEDNN_THUNK_H_
#define PLEXA_PLUGINS_ONEDNN_ONEDNN_THUNK_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/common/thunk.h"
#include "plugins/onednn/onednn_plan.h"

namespace plexa::onednn {

class OneDnnThunk : public backend::Thunk {
 public:
  // `input_index[i]` is the thunk input that holds plan.inputs[i].
  // `num_threads` is the OpenMP team size the primitive runs with.
  OneDnnThunk(Plan plan, std::vector<int> input_index, dnnl::engine engine,
              int num_threads);

  absl::Status Run(backend::Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kLibrary;
  }

  const Plan& plan() const { return plan_; }

 private:
  Plan plan_;
  std::vector<int> input_index_;
  dnnl::engine engine_;
  std::vector<dnnl::reorder> to_prim_;  // per input (empty when none)
  dnnl::reorder from_prim_;             // dst, when reordered
  int num_threads_;
};

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_ONEDNN_THUNK_H_
