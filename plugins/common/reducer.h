// The one reducer matcher: recognizes a to_apply computation (all-reduce,
// scatter, select-and-scatter, reduce) that is a single binary operation of
// its two distinct parameters, so a backend can run a native kernel instead
// of calling the computation per element.
#ifndef PLEXA_PLUGINS_COMMON_REDUCER_H_
#define PLEXA_PLUGINS_COMMON_REDUCER_H_

#include <optional>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/opcode.h"

namespace plexa::backend {

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

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REDUCER_H_
