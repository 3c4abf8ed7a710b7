// Scans written as reduce-windows, rewritten in blocks (XLA's
// ReduceWindowRewriter does the same). JAX writes cumsum, cumprod, cummax
// and cummin as a reduce-window whose window covers the whole of one
// dimension of length N, padded by N - 1 before it (or after it, for
// reverse=True): element i reduces elements 0..i. Run as written that is
// N²/2 applications of the reducer (a 46,592-element cumsum took over 20 s
// on every backend). In blocks of B (the base length):
//
//   x [.., N, ..] -> (padded with the init to M·B) -> [.., M, B, ..]
//   inner = the scan within each block (a reduce-window of B)
//   outer = the scan of the blocks' totals (a reduce-window of M; rewritten
//           the same way while M > B)
//   result = reducer(outer shifted by one block (the init first), inner)
//            -> [.., M·B, ..] -> the N elements
//
// which is about N·B + N applications. Applies to single-input
// reduce-windows with stride 1, no dilation or reversal, windows of 1 in
// every other dimension, N > B, and a reducer that is add, multiply,
// maximum, minimum, and or or whose init may repeat (core/ir/reducer.h:
// the rewrite starts every block from the init). Floating-point sums are
// reassociated, as XLA's rewrite does.
#ifndef PLEXA_CORE_PASSES_REDUCE_WINDOW_REWRITER_H_
#define PLEXA_CORE_PASSES_REDUCE_WINDOW_REWRITER_H_

#include <cstdint>

#include "core/passes/pass.h"

namespace plexa {

class ReduceWindowRewriter : public Pass {
 public:
  explicit ReduceWindowRewriter(int64_t base_length = 128)
      : base_length_(base_length) {}
  absl::string_view name() const override { return "reduce-window-rewriter"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  int64_t base_length_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_REDUCE_WINDOW_REWRITER_H_
