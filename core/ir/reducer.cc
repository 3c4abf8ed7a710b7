#include "core/ir/reducer.h"

#include "core/literal/literal.h"

namespace plexa {

std::optional<bool> MatchParameterOperands(const Computation& c,
                                           const Instruction& root) {
  if (c.num_parameters() != 2 || root.operand_count() != 2) {
    return std::nullopt;
  }
  const Instruction* a = root.operand(0);
  const Instruction* b = root.operand(1);
  if (a->opcode() != HloOpcode::kParameter ||
      b->opcode() != HloOpcode::kParameter ||
      a->parameter_number() == b->parameter_number()) {
    return std::nullopt;
  }
  return a->parameter_number() == 1;
}

std::optional<MatchedReducer> MatchReducer(const Computation& c) {
  const Instruction* root = c.root_instruction();
  if (root == nullptr) return std::nullopt;
  switch (root->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kMultiply:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
      break;
    default:
      return std::nullopt;
  }
  const std::optional<bool> swapped = MatchParameterOperands(c, *root);
  if (!swapped.has_value()) return std::nullopt;
  return MatchedReducer{root->opcode(), *swapped};
}

bool InitMayRepeat(const Computation& reducer, const Instruction& init) {
  const std::optional<MatchedReducer> m = MatchReducer(reducer);
  if (!m.has_value()) return false;
  if (m->opcode != HloOpcode::kAdd && m->opcode != HloOpcode::kMultiply) {
    return true;
  }
  if (init.opcode() != HloOpcode::kConstant || !init.shape().IsScalar()) {
    return false;
  }
  const double identity = m->opcode == HloOpcode::kAdd ? 0.0 : 1.0;
  return init.literal().GetAsDouble({}) == identity;  // -0 counts as 0
}

}  // namespace plexa
