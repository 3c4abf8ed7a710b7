// Splits a large reduction into two, so that many threads or invocations
// share it: reduce(x[R, K], dims={0}) becomes
//   reduce(reduce(reshape(x -> [P, R/P, K]), dims={1}), dims={0})
// where the first, with P·K result elements, runs in parallel (and fuses
// the reshape into its loop) and the second reduces P partial results.
// Applies to single-input reduces whose reduced dimensions are the leading
// ones of a row-major input (or the trailing ones, `trailing`: the same
// with R last), with at least `min_reduced` reduced elements
// and at most `max_result` result elements. Floating-point sums are
// reassociated (as XLA's own tree reduction does). The reducer must be add,
// multiply, maximum, minimum, and or or (reducer.h), and for add and
// multiply the init a constant 0 or 1: the split applies the init once per
// part, so it must change nothing when applied again.
//
// The CPU plugin's defaults: R ≥ 65536, K ≤ 8, P = 64 parts (halved until
// it divides R). The Vulkan plugin's (`balanced`): P about √R, so that
// neither stage loops much longer than the other in one invocation
// (lavapipe stops an invocation's loops at 65535 iterations), with x padded
// with the init value up to a multiple of P when P does not divide R (the
// init changes nothing where it may repeat), over leading or trailing
// dimensions.
#ifndef PLEXA_PLUGINS_COMMON_REDUCTION_SPLITTER_H_
#define PLEXA_PLUGINS_COMMON_REDUCTION_SPLITTER_H_

#include <cstdint>

#include "core/passes/pass.h"

namespace plexa::backend {

struct ReductionSplitterOptions {
  int64_t min_reduced = 65536;
  int64_t max_result = 8;
  // The parts: at most this many, halved until they divide R.
  int64_t parts = 64;
  // Instead: about √R parts, the operand padded to a multiple of them.
  bool balanced = false;
  // Also reductions over the trailing dimensions (row sums):
  // reduce(x[K, R], dims={1}) through x -> [K, P, R/P].
  bool trailing = false;
};

class ReductionSplitter : public Pass {
 public:
  explicit ReductionSplitter(ReductionSplitterOptions options = {})
      : options_(options) {}
  // The CPU plugin's splitter with `parts` parts (the tests').
  explicit ReductionSplitter(int64_t parts)
      : options_{.min_reduced = 65536, .max_result = 8, .parts = parts} {}
  absl::string_view name() const override { return "reduction-splitter"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  ReductionSplitterOptions options_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REDUCTION_SPLITTER_H_
