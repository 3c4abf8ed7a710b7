#include "plugins/common/control_flow_thunks.h"

#include <cstring>

#include "plugins/common/executor.h"
#include "plugins/common/slot_access.h"

namespace plexa::backend {

absl::Status WhileThunk::Run(Frame& f) const {
  const size_t n = outputs.size();
  std::vector<uint8_t*> state(n);
  for (size_t i = 0; i < n; ++i) {
    state[i] = f.ptr[outputs[i]];
    if (absl::Status s = CopySlotBytes(*f.ctx, state[i], f.ptr[inputs[i]],
                                       f.cc->slots[outputs[i]].bytes);
        !s.ok()) {
      return s;
    }
  }
  std::vector<uint8_t*> results;
  while (true) {
    if (absl::Status s = RunComputation(*cond_, state, *f.ctx, &results, {});
        !s.ok()) {
      return s;
    }
    uint8_t predicate = 0;
    if (absl::Status s = ReadSlotBytes(*f.ctx, results[0], &predicate, 1);
        !s.ok()) {
      return s;
    }
    if (predicate == 0) break;
    if (absl::Status s = RunComputation(*body_, state, *f.ctx, &results, {});
        !s.ok()) {
      return s;
    }
    for (size_t i = 0; i < n; ++i) {
      if (absl::Status s = CopySlotBytes(*f.ctx, state[i], results[i],
                                         f.cc->slots[outputs[i]].bytes);
          !s.ok()) {
        return s;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status BranchThunk::Run(Frame& f) const {
  int64_t branch = 0;
  size_t k = 0;
  if (has_selector_) {
    const uint8_t* sel = f.ptr[inputs[k++]];
    if (pred_selector_) {
      uint8_t pred = 0;
      if (absl::Status s = ReadSlotBytes(*f.ctx, sel, &pred, 1); !s.ok()) {
        return s;
      }
      branch = pred != 0 ? 0 : 1;  // true -> first, false -> second
    } else {
      int32_t index;
      if (absl::Status s = ReadSlotBytes(*f.ctx, sel, &index, sizeof(index));
          !s.ok()) {
        return s;
      }
      const int64_t n = static_cast<int64_t>(branches_.size());
      // Out of range selects the last branch (XLA).
      branch = (index < 0 || index >= n) ? n - 1 : index;
    }
  }
  for (int64_t b = 0; b < branch; ++b) k += branch_leaves_[b];
  std::vector<uint8_t*> params;
  for (int j = 0; j < branch_leaves_[branch]; ++j) {
    params.push_back(f.ptr[inputs[k + j]]);
  }
  std::vector<uint8_t*> results;
  if (absl::Status s =
          RunComputation(*branches_[branch], params, *f.ctx, &results, {});
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (absl::Status s = CopySlotBytes(*f.ctx, f.ptr[outputs[i]], results[i],
                                       f.cc->slots[outputs[i]].bytes);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace plexa::backend
