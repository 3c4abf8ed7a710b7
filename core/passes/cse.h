// Common subexpression elimination: within each computation, an
// instruction identical to an earlier one (same opcode, shape with layout,
// attributes, called computations and operands) is replaced by it.
//
// Never merged: instructions with side effects (rng, infeed, outfeed,
// all-reduce, custom-call with custom_call_has_side_effect, and anything
// calling a computation that has one: two rng draws are two different
// values), parameters, and instructions with control dependencies.
// Operand order matters (add(a, b) and add(b, a) stay two instructions, as
// in XLA).
#ifndef PLEXA_CORE_PASSES_CSE_H_
#define PLEXA_CORE_PASSES_CSE_H_

#include "core/passes/pass.h"

namespace plexa {

class CommonSubexpressionElimination : public Pass {
 public:
  absl::string_view name() const override { return "cse"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_CSE_H_
