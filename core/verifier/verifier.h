// The module verifier: the invariant every pass and every plugin relies on.
//
// Checks: every instruction's shape agrees with shape inference (layouts
// ignored, element types and dimensions exact); operand counts match the
// opcode table; each computation has a root and parameters numbered 0..n-1
// without gaps or duplicates; called computations have the signatures their
// callers need (reduce's reducer, while's condition/body, ...); no cycles
// through operands or control edges; instruction names unique within their
// computation; an entry computation exists and matches
// entry_computation_layout when one is given; layouts (if present) valid.
// The first error found is returned, naming the computation and instruction.
#ifndef PLEXA_CORE_VERIFIER_VERIFIER_H_
#define PLEXA_CORE_VERIFIER_VERIFIER_H_

#include "absl/status/status.h"
#include "core/ir/module.h"

namespace plexa {

absl::Status VerifyModule(const Module& module);

}  // namespace plexa

#endif  // PLEXA_CORE_VERIFIER_VERIFIER_H_
