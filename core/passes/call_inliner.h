// The call inliner: replaces every `call` by a copy of the called
// computation's instructions (parameters bound to the call's operands).
// Computations that end up uncalled are left for DCE.
//
// Side effects keep their order: the evaluator runs instructions in
// insertion order (post order from the first instruction), so when the
// inlined computation has a side effect (an rng, say) the caller is
// rebuilt with the inlined instructions at the call's place, and every
// rng draws the same numbers as before.
#ifndef PLEXA_CORE_PASSES_CALL_INLINER_H_
#define PLEXA_CORE_PASSES_CALL_INLINER_H_

#include "absl/types/span.h"
#include "core/ir/computation.h"
#include "core/passes/pass.h"

namespace plexa {

class CallInliner : public Pass {
 public:
  absl::string_view name() const override { return "call-inliner"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

// Replaces each of `calls` (instructions of `computation` that call one
// computation each, through operands bound to its parameters: call, or a
// while known to run once) by the instructions of the called computation
// (`callee_of(instruction)`), keeping side-effecting instructions in
// execution order. Returns the computation, which is a new object when it
// had to be rebuilt.
absl::StatusOr<Computation*> InlineCallSites(
    Computation* computation, absl::Span<Instruction* const> calls,
    Computation* (*callee_of)(const Instruction&));

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_CALL_INLINER_H_
