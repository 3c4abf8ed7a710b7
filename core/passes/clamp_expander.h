// Lowerings the builder does not already do.
//
// Clamp expansion, for backends without a clamp kernel:
//   clamp(lo, x, hi) -> minimum(hi, maximum(x, lo))
// with scalar lo/hi broadcast to x's shape first. This is SEMANTICS.md's
// clamp = min(max(operand, min), max); the operand order of minimum is
// chosen so the result is bit-identical to the evaluator's clamp even for
// signed zeros (std::min(hi, m) returns hi when m == hi, e.g. +0 for
// clamp(-1, -0, +0)). Any NaN among lo, x, hi gives a NaN either way.
//
// The other lowerings of the seed's operations happen in the builder, so
// no pass is needed for them: RngBernoulli becomes rng uniform + compare +
// convert and Collapse becomes reshape (core/builder/builder.h,
// "Lowering"); neither has an HLO opcode that could reach a pass.
#ifndef PLEXA_CORE_PASSES_CLAMP_EXPANDER_H_
#define PLEXA_CORE_PASSES_CLAMP_EXPANDER_H_

#include "core/passes/pass.h"

namespace plexa {

class ClampExpander : public Pass {
 public:
  absl::string_view name() const override { return "clamp-expander"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_CLAMP_EXPANDER_H_
