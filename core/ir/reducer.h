// The one reducer matcher: recognizes a to_apply computation (all-reduce,
// scatter, select-and-scatter, reduce, reduce-window) that is a single
// binary operation of its two distinct parameters, so a pass can rewrite
// it with the elementwise opcode and a backend can run a native kernel
// instead of calling the computation per element.
#ifndef PLEXA_CORE_IR_REDUCER_H_
#define PLEXA_CORE_IR_REDUCER_H_

#include <optional>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/opcode.h"

namespace plexa {

// When `root`'s first two operands are parameter(0) and parameter(1) of
// `c` (two parameters, two distinct ones, in either order): whether they
// come swapped (parameter(1) first). nullopt otherwise (add(p0, p0), a
// constant operand, ...).
std::optional<bool> MatchParameterOperands(const Computation& c,
                                           const Instruction& root);

struct MatchedReducer {
  HloOpcode opcode;      // kAdd, kMultiply, kMaximum, kMinimum, kAnd or kOr
  bool swapped = false;  // op(parameter(1), parameter(0))
};

// `c`'s root is add, multiply, maximum, minimum, and or or of its two
// distinct parameters, in either order; nullopt for anything else.
std::optional<MatchedReducer> MatchReducer(const Computation& c);

// Whether a reduction by `reducer` from `init` may apply the init more than
// once without changing its result, as rewrites that split a reduction in
// parts (each part starting from the init) or pad with the init do: an
// idempotent reducer (maximum, minimum, and, or) with any init, or add and
// multiply from a constant identity (0 and 1; -0 counts as 0). The
// evaluator applies the init once (docs/evaluator.md "reduce"); a sum from
// 7 split in 4 parts would add 28 more.
bool InitMayRepeat(const Computation& reducer, const Instruction& init);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_REDUCER_H_
