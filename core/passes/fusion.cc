#include "core/passes/fusion.h"

#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"

namespace plexa {

bool IsLoopFusible(const Instruction& inst) {
  if (!inst.shape().IsArray() || !inst.control_predecessors().empty() ||
      !inst.control_successors().empty()) {
    return false;
  }
  switch (inst.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kConstant:
      return true;
    case HloOpcode::kMap:
      return false;
    default:
      // Elementwise operations have no side effects and call nothing.
      return IsElementwise(inst.opcode());
  }
}

bool IsCheapToDuplicate(const Instruction& inst) {
  switch (inst.opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kCompare:
    case HloOpcode::kSelect:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
    case HloOpcode::kNot:
    case HloOpcode::kConvert:
    case HloOpcode::kClamp:
    case HloOpcode::kSign:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kBroadcast:
    case HloOpcode::kIota:
    case HloOpcode::kReshape:
    case HloOpcode::kSlice:
      return true;
    case HloOpcode::kConstant:
      return inst.shape().IsArray() && inst.shape().rank() == 0;
    default:
      return false;
  }
}

namespace {

bool IsOutputFusionConsumer(HloOpcode op) {
  return op == HloOpcode::kAdd || op == HloOpcode::kSubtract ||
         op == HloOpcode::kMultiply || op == HloOpcode::kMaximum ||
         op == HloOpcode::kMinimum;
}

struct Group {
  Instruction* root = nullptr;
  FusionKind kind = FusionKind::kLoop;
  absl::flat_hash_set<const Instruction*> members;  // root included
  absl::flat_hash_set<const Instruction*> moved;    // root included
};

class FusionPlanner {
 public:
  FusionPlanner(Computation* c, const InstructionFusion::Options& options)
      : c_(c), options_(options), order_(c->MakeInstructionPostOrder()) {
    for (size_t i = 0; i < order_.size(); ++i) pos_[order_[i]] = i;
  }

  // Plans every group, users first.
  void Plan() {
    for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
      Instruction* r = *it;
      if (removed_.contains(r)) continue;
      std::optional<Group> g = Grow(r);
      if (!g.has_value()) continue;
      for (const Instruction* m : g->moved) removed_.insert(m);
      for (const Instruction* m : g->members) {
        for (const Instruction* op : m->operands()) {
          if (!g->members.contains(op)) external_use_.insert(op);
        }
      }
      groups_.push_back(std::move(*g));
    }
  }

  // Builds the planned fusions; returns how many.
  absl::StatusOr<int64_t> Build();

 private:
  std::optional<Group> Grow(Instruction* r);
  // Options::can_fuse, when set.
  bool Allowed(const Instruction& inst) const;
  // `p` may move into a group whose moved set is `moved`: nothing outside
  // it reads p afterwards.
  bool CanMove(const Instruction& p,
               const absl::flat_hash_set<const Instruction*>& moved) const {
    if (external_use_.contains(&p)) return false;
    for (const Instruction* u : p.users()) {
      if (!removed_.contains(u) && !moved.contains(u)) return false;
    }
    return true;
  }

  Computation* c_;
  const InstructionFusion::Options& options_;
  std::vector<Instruction*> order_;
  absl::flat_hash_map<const Instruction*, size_t> pos_;
  // Moved members and roots of the groups planned so far.
  absl::flat_hash_set<const Instruction*> removed_;
  // Operands of planned fusions (read by a fusion instruction).
  absl::flat_hash_set<const Instruction*> external_use_;
  std::vector<Group> groups_;
};

bool FusionPlanner::Allowed(const Instruction& inst) const {
  return !options_.can_fuse || options_.can_fuse(inst);
}

std::optional<Group> FusionPlanner::Grow(Instruction* r) {
  Group g;
  g.root = r;
  if (r->opcode() == HloOpcode::kReduce && options_.fuse_into_reductions &&
      r->control_predecessors().empty() && r->control_successors().empty()) {
    g.kind = FusionKind::kInput;
  } else if (IsLoopFusible(*r) && r->operand_count() > 0 && Allowed(*r)) {
    g.kind = FusionKind::kLoop;
  } else {
    return std::nullopt;
  }
  g.members.insert(r);
  g.moved.insert(r);
  // Candidates, users first (largest post-order position first).
  using Entry = std::pair<size_t, Instruction*>;
  std::priority_queue<Entry> queue;
  absl::flat_hash_set<const Instruction*> queued;
  auto push_operands = [&](Instruction* m) {
    for (Instruction* op : m->operands()) {
      if (queued.insert(op).second) queue.push({pos_.at(op), op});
    }
  };
  const Instruction* dot = nullptr;
  if (g.kind == FusionKind::kLoop && options_.output_fusion &&
      IsOutputFusionConsumer(r->opcode())) {
    for (Instruction* op : r->operands()) {
      if (op->opcode() == HloOpcode::kDot && op->attrs().dot_sparsity.empty() &&
          op->user_count() == 1 && op->shape().IsArray() &&
          op->control_predecessors().empty() &&
          op->control_successors().empty() && !removed_.contains(op) &&
          CanMove(*op, g.moved)) {
        dot = op;
        g.kind = FusionKind::kOutput;
        g.members.insert(op);
        g.moved.insert(op);
        queued.insert(op);  // its operands stay outside
        break;
      }
    }
  }
  push_operands(r);
  while (!queue.empty() &&
         static_cast<int64_t>(g.members.size()) < options_.max_fusion_size) {
    Instruction* p = queue.top().second;
    queue.pop();
    if (p == dot || g.members.contains(p) || removed_.contains(p) ||
        !IsLoopFusible(*p) || !Allowed(*p)) {
      continue;
    }
    if (CanMove(*p, g.moved)) {
      g.moved.insert(p);
    } else if (!IsCheapToDuplicate(*p)) {
      continue;
    }
    g.members.insert(p);
    push_operands(p);
  }
  if (g.members.size() < 2) return std::nullopt;
  return g;
}

absl::StatusOr<int64_t> FusionPlanner::Build() {
  for (const Group& g : groups_) {
    std::vector<Instruction*> members;
    for (Instruction* inst : order_) {
      if (g.members.contains(inst)) members.push_back(inst);
    }
    PLEXA_RETURN_IF_ERROR(
        FuseInstructions(c_, members, g.root, g.kind).status());
  }
  return static_cast<int64_t>(groups_.size());
}

}  // namespace

absl::StatusOr<bool> InstructionFusion::Run(Module& module) {
  int64_t fused = 0;
  for (Computation* c : ControlFlowComputations(module)) {
    FusionPlanner planner(c, options_);
    planner.Plan();
    PLEXA_ASSIGN_OR_RETURN(int64_t n, planner.Build());
    fused += n;
  }
  return fused > 0;
}

}  // namespace plexa
