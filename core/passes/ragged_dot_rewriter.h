// Rewrites ragged-dot into a masked dot, as XLA's RaggedDotRewriter
// (xla/hlo/transforms/expanders) does for backends without a ragged-dot
// kernel, so a backend's own dot runs it:
//
//   ends   = inclusive cumulative sum of group_sizes (s64, a reduce-window)
//   starts = ends - group_sizes
//   mask[g, ...] = starts[.., g] <= iota(ragged dim) < ends[.., g]
//   x'     = select(mask, broadcast(x) with a leading group dimension, 0)
//
// then, by mode (core/infer/shape_inference.h: RaggedDotMode):
//   non-contracting: dot(lhs', rhs) contracting lhs' group dimension with
//     the rhs group dimension (besides the contracting ones);
//   contracting:     dot(lhs', rhs') with the group dimensions as a leading
//     batch dimension;
//   batch:           dot(lhs, rhs) (XLA's expander reads no group sizes).
//
// The values are the evaluator's (core/eval/ragged_dot.cc) except where it
// multiplies a zeroed entry by an inf or NaN of another group (the
// evaluator skips those products; XLA's expansion gives NaN there). The
// running sums are in s64 (XLA's use the group_sizes type). The expanded
// operands are the number of groups times larger.
#ifndef PLEXA_CORE_PASSES_RAGGED_DOT_REWRITER_H_
#define PLEXA_CORE_PASSES_RAGGED_DOT_REWRITER_H_

#include "core/passes/pass.h"

namespace plexa {

class RaggedDotRewriter : public Pass {
 public:
  absl::string_view name() const override { return "ragged-dot-rewriter"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_RAGGED_DOT_REWRITER_H_
