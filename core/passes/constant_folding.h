// Constant folding through the reference evaluator: an instruction whose
// operands are all constants (or broadcasts of constants) is evaluated at
// compile time and replaced by a constant, so the folded value is exactly
// what the evaluator would compute at run time.
//
// Not folded:
//   - rng, infeed, outfeed, all-reduce, replica-id, partition-id and every
//     custom-call (IsNotFoldable), nor anything calling a computation that
//     contains one;
//   - broadcast and iota: they would only turn a cheap generator into a
//     large constant (XLA makes the same choice);
//   - constants, parameters, tuples, after-all, opt-barrier (a barrier
//     exists to stop this kind of motion);
//   - a pad of a broadcast by a constant padding value (XLA's rule: it
//     would only grow a cheap broadcast into a big constant);
//   - results that are not arrays (tuples, tokens), and, as XLA's
//     HloConstantFolding, instructions whose result or whose operands
//     together have more than `max_elements` elements (XLA's
//     kMaximumConstantSizeElements, 45 million);
//   - while loops that run more than `max_while_iterations` iterations.
// If the evaluator fails on an instruction (an unsupported type, say) the
// instruction is left as it is.
#ifndef PLEXA_CORE_PASSES_CONSTANT_FOLDING_H_
#define PLEXA_CORE_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>

#include "core/passes/pass.h"

namespace plexa {

class ConstantFolding : public Pass {
 public:
  struct Options {
    // max(result elements, sum of the array operands' elements) above
    // this is not folded.
    int64_t max_elements = 45 * 1000 * 1000;
    int64_t max_while_iterations = 1000;
  };

  ConstantFolding() = default;
  explicit ConstantFolding(Options options) : options_(options) {}

  absl::string_view name() const override { return "constant-folding"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_CONSTANT_FOLDING_H_
