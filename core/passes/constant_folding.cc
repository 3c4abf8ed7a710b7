#include "core/passes/constant_folding.h"

#include <algorithm>
#include <vector>

#include "core/passes/evaluate_util.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

bool IsConstantOrBroadcastOfConstant(const Instruction& inst) {
  return inst.opcode() == HloOpcode::kConstant ||
         (inst.opcode() == HloOpcode::kBroadcast &&
          inst.operand(0)->opcode() == HloOpcode::kConstant);
}

bool IsCandidate(const Instruction& inst, const ConstantFolding::Options& o) {
  switch (inst.opcode()) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kTuple:
    case HloOpcode::kAfterAll:
    case HloOpcode::kOptimizationBarrier:
      return false;
    default:
      break;
  }
  if (IsNotFoldable(inst) || inst.operand_count() == 0) return false;
  if (!inst.shape().IsArray() || inst.shape().is_dynamic()) return false;
  // XLA's HloConstantFolding: a pad of a broadcast by a constant is never
  // folded (it only grows a cheap broadcast into a big constant, and costs
  // compile time).
  if (inst.opcode() == HloOpcode::kPad &&
      inst.operand(0)->opcode() == HloOpcode::kBroadcast &&
      inst.operand(1)->opcode() == HloOpcode::kConstant) {
    return false;
  }
  // XLA's size rule: neither the result nor the operands together may
  // have more than the limit's elements.
  int64_t operand_elements = 0;
  for (const Instruction* op : inst.operands()) {
    if (op->shape().IsArray()) {
      operand_elements += ShapeUtil::ElementsIn(op->shape());
    }
  }
  if (std::max(ShapeUtil::ElementsIn(inst.shape()), operand_elements) >
      o.max_elements) {
    return false;
  }
  for (const Instruction* op : inst.operands()) {
    if (!IsConstantOrBroadcastOfConstant(*op)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  SubgraphEvaluationLimits limits;
  limits.max_instructions = 64;
  limits.max_while_iterations = options_.max_while_iterations;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      if (!IsCandidate(*inst, options_)) continue;
      // EvaluateSubgraph refuses non-foldable callees itself.
      std::optional<Literal> value = EvaluateSubgraph(*inst, {}, limits);
      if (!value.has_value()) continue;
      Instruction* constant = AddConstant(c, std::move(*value));
      *constant->mutable_shape() = inst->shape();
      absl::Status s = ReplaceInstruction(inst, constant, &side_effects);
      if (!s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
