// The "select" half of XLA's select-and-scatter: for every window (one per
// source element), the operand element the select function picks. The
// "scatter" half is then a scatter (scatter.h) of the source into those
// positions, which is how the CPU plugin runs the whole operation.
//
// Semantics (the reference evaluator's, core/eval/reduction.cc): source
// positions s are visited row-major; window element w of source position s
// is operand index s * stride - padding_low + w (per dimension), skipped
// when outside the operand (padding). Elements are visited row-major over
// the window; the first one inside the operand is selected, and each later
// candidate c replaces the selection x unless select(x, c) is true, where
// select is the comparison `x DIR c` (GE keeps the first of equal maxima).
// Comparisons are C++'s: with a NaN every direction is false, so a NaN
// candidate replaces the selection and a NaN selection is replaced.
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_SELECT_AND_SCATTER_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_SELECT_AND_SCATTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "plugins/cpu/runtime/scatter.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

enum class SelectDirection : int32_t { kGe, kGt, kLe, kLt };

struct WindowSelectDesc {
  ScatterType element_type = ScatterType::kF32;  // not kPred
  SelectDirection direction = SelectDirection::kGe;
  ScatterArray operand;              // dims and element strides
  std::vector<int64_t> source_dims;  // one window per source element
  // Per dimension: window size, stride and low padding (no dilation).
  std::vector<int64_t> window_size, window_stride, padding_low;
};

// Writes, for each source position p (row-major), the selected operand
// index to selected[p * rank + d] for each dimension d, or -1 in every
// dimension when the window lies entirely in the padding (a scatter then
// skips it). Windows are independent: `pool` (may be null) shares them
// out. InvalidArgument for inconsistent descriptions. Thread-safe.
absl::Status SelectInWindows(const WindowSelectDesc& desc, const void* operand,
                             int64_t* selected, ThreadPool* pool = nullptr);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_SELECT_AND_SCATTER_H_
