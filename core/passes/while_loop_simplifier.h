// The while-loop simplifier. For each while loop, in this order:
//
// 1. Constant trip counts. When the condition can be evaluated at compile
//    time from the parts of the initial state that are constants (a
//    constant init, or constant operands of an init tuple):
//      - a loop whose condition is false on the initial state runs zero
//        times and is replaced by its initial value;
//      - a loop whose condition is true on the initial state and false
//        after one iteration (the body's outputs the condition reads are
//        also computable) runs once and is replaced by its body, inlined
//        with the initial value bound to the parameter.
//    The condition must be free of side effects (it would have run), and
//    for the one-trip case side effects of the body keep their order
//    (InlineCallSites).
//
// 2. Dead tuple elements. For a loop over a tuple whose body ends in a
//    tuple and whose condition and body read their parameter only through
//    get-tuple-element, an element is dead if no one outside reads it, the
//    condition does not read it, and no live element nor side-effecting
//    instruction of the body depends on it. Dead elements are removed from
//    the loop state (new condition and body computations; the old ones are
//    left for DCE).
//
// 3. Loop-invariant code motion. An instruction of the body is invariant if
//    it reads only constants and state elements the body passes through
//    unchanged (root element i is get-tuple-element(param, i)). Invariant
//    instructions worth it (not constants, iota, broadcasts, reshapes,
//    bitcasts, tuples or get-tuple-elements, which are cheap or would grow
//    the state, and never side-effecting ones nor custom-calls) are
//    computed once before the loop and passed in as new state elements.
//
// Loops with control dependencies inside their computations, or on the
// while itself, are left alone by 2 and 3.
#ifndef PLEXA_CORE_PASSES_WHILE_LOOP_SIMPLIFIER_H_
#define PLEXA_CORE_PASSES_WHILE_LOOP_SIMPLIFIER_H_

#include "core/passes/pass.h"

namespace plexa {

class WhileLoopSimplifier : public Pass {
 public:
  absl::string_view name() const override { return "while-loop-simplifier"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_WHILE_LOOP_SIMPLIFIER_H_
