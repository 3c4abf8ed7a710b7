#include "plugins/common/reducer.h"

namespace plexa::backend {

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

}  // namespace plexa::backend
