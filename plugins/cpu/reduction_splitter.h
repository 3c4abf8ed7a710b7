// Splits a large reduction with a tiny result into two, so that threads
// share it: reduce(x[R, K], dims={0}) becomes
//   reduce(reduce(reshape(x -> [P, R/P, K]), dims={1}), dims={0})
// where the first, with P·K result elements, runs in parallel (and fuses
// the reshape into its loop) and the second adds P partial results.
// Applies to single-input reduces whose reduced dimensions are the leading
// ones of a row-major input, with R ≥ 65536 reduced elements and at most 8
// result elements. Floating-point sums are reassociated (as XLA's own
// tree reduction does). The reducer must be add, multiply, maximum,
// minimum, and or or (plugins/common/reducer.h), and for add and multiply
// the init a constant 0 or 1: the split applies the init once per part.
#ifndef PLEXA_PLUGINS_CPU_REDUCTION_SPLITTER_H_
#define PLEXA_PLUGINS_CPU_REDUCTION_SPLITTER_H_

#include "core/passes/pass.h"

namespace plexa::cpu {

class ReductionSplitter : public Pass {
 public:
  explicit ReductionSplitter(int64_t parts = 64) : parts_(parts) {}
  absl::string_view name() const override { return "cpu-reduction-splitter"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  int64_t parts_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_REDUCTION_SPLITTER_H_
