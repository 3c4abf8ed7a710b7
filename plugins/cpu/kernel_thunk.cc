#include "plugins/cpu/kernel_thunk.h"

#include <algorithm>
#include <vector>

namespace plexa::cpu {

absl::Status KernelThunk::Run(Frame& f) const {
  void* buffers[64];
  std::vector<void*> heap;
  void** b = buffers;
  const size_t n = outputs.size() + inputs.size();
  if (n > 64) {
    heap.resize(n);
    b = heap.data();
  }
  CollectBuffers(f, b);
  const int64_t rows = shape_.rows;
  if (rows == 0) return absl::OkStatus();
  const int64_t per_row =
      std::max<int64_t>(1, shape_.row_length * shape_.cost_per_element);
  // About 32K element-operations per chunk keeps the split worth it.
  const int64_t min_rows = std::max<int64_t>(1, 32768 / per_row);
  KernelFn fn = fn_;
  void* const* bp = b;
  PoolOf(f)->ParallelFor(rows, min_rows,
                         [fn, bp](int64_t lo, int64_t hi) { fn(bp, lo, hi); });
  return absl::OkStatus();
}

}  // namespace plexa::cpu
