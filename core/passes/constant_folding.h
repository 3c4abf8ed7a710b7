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
//   - results that are not arrays (tuples, tokens) or that have more than
//     `max_result_elements` elements;
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
    int64_t max_result_elements = int64_t{1} << 20;
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
