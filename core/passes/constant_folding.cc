#include "core/passes/constant_folding.h"

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
  if (!inst.shape().IsArray() || inst.shape().is_dynamic() ||
      ShapeUtil::ElementsIn(inst.shape()) > o.max_result_elements) {
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
