// Post orders with dependencies the IR does not hold as edges.
#ifndef PLEXA_CORE_IR_POST_ORDER_H_
#define PLEXA_CORE_IR_POST_ORDER_H_

#include <vector>

#include "absl/functional/function_ref.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"

namespace plexa {

// Computation::MakeInstructionPostOrder (a DFS from every instruction in
// insertion order, operands and control predecessors first), where
// `extra(node)`, when not null, is one more instruction of the computation
// to run before `node` (the evaluator runs a channel's send before its
// recv-done). A cycle through an extra edge is not reported: the node on
// the stack is skipped, so an operand may then come after its user.
std::vector<Instruction*> PostOrderWithExtraPredecessor(
    const Computation& computation,
    absl::FunctionRef<Instruction*(const Instruction*)> extra);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_POST_ORDER_H_
