// Rewrites a dot with structured-sparse operands (sparsity=L.1@2:4,
// core/ir/sparse_dot.h) into the decompression of each sparse operand and a
// dense dot, so every backend's own dot kernel runs it. Per sparse operand
// x (stored values, n per group of m along dimension d) and its u16
// metadata:
//
//   x', meta' = x and meta with d moved last (transpose)
//   pos  = (broadcast(meta') >> (iota * bits)) & (2^bits - 1), one position
//          per stored value ([.., S], reshaped [.., S/n, n])
//   x''  = reduce-add over the n stored values of
//          select(pos == iota(m), broadcast(x'), 0)      [.., S/n, m]
//   then reshaped [.., S/n*m] and transposed back.
//
// For metadata the evaluator accepts (positions increasing within each
// group, below m) the values equal the evaluator's. Other metadata has no
// meaning anywhere (the evaluator names the element); here values sharing
// a position add and positions >= m drop. The decompressed operand is m/n
// times the stored one.
//
// In the default pipeline, ahead of every pass that rewrites dots: none of
// them, and no plugin, sees a sparse dot.
#ifndef PLEXA_CORE_PASSES_SPARSE_DOT_EXPANDER_H_
#define PLEXA_CORE_PASSES_SPARSE_DOT_EXPANDER_H_

#include "core/passes/pass.h"

namespace plexa {

class SparseDotExpander : public Pass {
 public:
  absl::string_view name() const override { return "sparse-dot-expander"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_SPARSE_DOT_EXPANDER_H_
