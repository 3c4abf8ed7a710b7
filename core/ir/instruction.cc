#include "core/ir/instruction.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/literal/literal.h"

namespace plexa {

Instruction::Instruction(HloOpcode opcode, Shape shape)
    : opcode_(opcode), shape_(std::move(shape)) {}

Instruction::~Instruction() = default;

std::unique_ptr<Instruction> Instruction::Create(
    HloOpcode opcode, Shape shape, std::vector<Instruction*> operands,
    InstructionAttrs attrs, std::vector<Computation*> called) {
  std::unique_ptr<Instruction> inst(new Instruction(opcode, std::move(shape)));
  for (Instruction* op : operands) inst->AppendOperand(op);
  inst->attrs_ = std::move(attrs);
  // A dot printed without dimension numbers (`dot(a, b)`) is an outer
  // product: no contracting and no batch dimensions. Keep one canonical form
  // so that every reader of the attribute sees the numbers.
  // ragged-dot likewise.
  if ((opcode == HloOpcode::kDot || opcode == HloOpcode::kRaggedDot) &&
      !inst->attrs_.dot_dimension_numbers) {
    inst->attrs_.dot_dimension_numbers.emplace();
  }
  inst->called_ = std::move(called);
  return inst;
}

void Instruction::AddUser(Instruction* user) {
  constexpr size_t kIndexThreshold = 16;
  if (user_set_) {
    if (user_set_->insert(user).second) users_.push_back(user);
    return;
  }
  if (std::find(users_.begin(), users_.end(), user) != users_.end()) return;
  users_.push_back(user);
  if (users_.size() >= kIndexThreshold) {
    user_set_ = std::make_unique<absl::flat_hash_set<Instruction*>>(
        users_.begin(), users_.end());
  }
}

void Instruction::RemoveUser(Instruction* user) {
  // A user may use us through several operand slots; drop it only when no
  // slot refers to us any more.
  if (std::find(user->operands_.begin(), user->operands_.end(), this) !=
      user->operands_.end()) {
    return;
  }
  users_.erase(std::remove(users_.begin(), users_.end(), user), users_.end());
  if (user_set_) user_set_->erase(user);
}

void Instruction::AppendOperand(Instruction* operand) {
  operands_.push_back(operand);
  operand->AddUser(this);
}

absl::Status Instruction::ReplaceOperandWith(int64_t i,
                                             Instruction* new_operand) {
  if (i < 0 || i >= operand_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("operand index ", i, " out of range for ", name_, " with ",
                     operand_count(), " operands"));
  }
  Instruction* old = operands_[i];
  if (old == new_operand) return absl::OkStatus();
  if (!Shape::Equal().IgnoreLayout()(old->shape(), new_operand->shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot replace operand ", i, " of ", name_, ": shape ",
                     old->shape().ToString(), " differs from ",
                     new_operand->shape().ToString()));
  }
  operands_[i] = new_operand;
  old->RemoveUser(this);
  new_operand->AddUser(this);
  return absl::OkStatus();
}

absl::Status Instruction::ReplaceAllUsesWith(Instruction* other) {
  if (other == this) return absl::OkStatus();
  if (!Shape::Equal().IgnoreLayout()(shape_, other->shape())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot replace uses of ", name_, " (", shape_.ToString(), ") with ",
        other->name(), " (", other->shape().ToString(), ")"));
  }
  std::vector<Instruction*> users = users_;
  for (Instruction* user : users) {
    for (Instruction*& op : user->operands_) {
      if (op == this) op = other;
    }
    other->AddUser(user);
  }
  users_.clear();
  user_set_.reset();
  if (parent_ && parent_->root_instruction() == this) {
    parent_->set_root_instruction(other);
  }
  return absl::OkStatus();
}

void Instruction::DetachOperands() {
  std::vector<Instruction*> ops = std::move(operands_);
  operands_.clear();
  for (Instruction* op : ops) op->RemoveUser(this);
}

Computation* Instruction::to_apply() const {
  return called_.empty() ? nullptr : called_[0];
}
Computation* Instruction::while_condition() const {
  return called_.size() > 0 ? called_[0] : nullptr;
}
Computation* Instruction::while_body() const {
  return called_.size() > 1 ? called_[1] : nullptr;
}
Computation* Instruction::select() const {
  return called_.size() > 0 ? called_[0] : nullptr;
}
Computation* Instruction::scatter() const {
  return called_.size() > 1 ? called_[1] : nullptr;
}

void Instruction::ReplaceCalledComputation(Computation* old_c,
                                           Computation* new_c) {
  for (Computation*& c : called_) {
    if (c == old_c) c = new_c;
  }
}

void Instruction::AddControlDependencyTo(Instruction* successor) {
  if (std::find(control_successors_.begin(), control_successors_.end(),
                successor) != control_successors_.end()) {
    return;
  }
  control_successors_.push_back(successor);
  successor->control_predecessors_.push_back(this);
}

void Instruction::DropAllControlDependencies() {
  for (Instruction* s : control_successors_) {
    auto& p = s->control_predecessors_;
    p.erase(std::remove(p.begin(), p.end(), this), p.end());
  }
  for (Instruction* p : control_predecessors_) {
    auto& s = p->control_successors_;
    s.erase(std::remove(s.begin(), s.end(), this), s.end());
  }
  control_successors_.clear();
  control_predecessors_.clear();
}

namespace {
bool SameLiteral(const std::shared_ptr<const Literal>& a,
                 const std::shared_ptr<const Literal>& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->shape() == b->shape() && *a == *b;
}
}  // namespace

bool Instruction::SameAttributesAs(const Instruction& other) const {
  const InstructionAttrs& a = attrs_;
  const InstructionAttrs& b = other.attrs_;
  // `opaque` (metadata, sharding, ...) does not change semantics and is
  // deliberately not compared.
  return a.dimensions == b.dimensions && a.iota_dimension == b.iota_dimension &&
         a.parameter_number == b.parameter_number &&
         a.tuple_index == b.tuple_index && SameLiteral(a.literal, b.literal) &&
         a.window == b.window &&
         a.convolution_dimension_numbers == b.convolution_dimension_numbers &&
         a.feature_group_count == b.feature_group_count &&
         a.batch_group_count == b.batch_group_count &&
         a.dot_dimension_numbers == b.dot_dimension_numbers &&
         a.lhs_ragged_dimensions == b.lhs_ragged_dimensions &&
         a.rhs_group_dimensions == b.rhs_group_dimensions &&
         a.dot_sparsity == b.dot_sparsity &&
         a.padding_config == b.padding_config && a.slice == b.slice &&
         a.dynamic_slice_sizes == b.dynamic_slice_sizes &&
         a.gather_dimension_numbers == b.gather_dimension_numbers &&
         a.gather_slice_sizes == b.gather_slice_sizes &&
         a.scatter_dimension_numbers == b.scatter_dimension_numbers &&
         a.indices_are_sorted == b.indices_are_sorted &&
         a.unique_indices == b.unique_indices &&
         a.comparison_direction == b.comparison_direction &&
         a.comparison_type == b.comparison_type && a.epsilon == b.epsilon &&
         a.feature_index == b.feature_index &&
         a.exponent_bits == b.exponent_bits &&
         a.mantissa_bits == b.mantissa_bits &&
         a.distribution == b.distribution &&
         a.rng_algorithm == b.rng_algorithm && a.is_stable == b.is_stable &&
         a.custom_call_target == b.custom_call_target &&
         a.backend_config == b.backend_config &&
         a.api_version == b.api_version &&
         a.has_layout_constraints == b.has_layout_constraints &&
         a.operand_shapes_with_layout == b.operand_shapes_with_layout &&
         a.custom_call_has_side_effect == b.custom_call_has_side_effect &&
         a.replica_groups == b.replica_groups && a.channel_id == b.channel_id &&
         a.use_global_device_ids == b.use_global_device_ids &&
         a.constrain_layout == b.constrain_layout &&
         a.infeed_config == b.infeed_config &&
         a.outfeed_config == b.outfeed_config &&
         a.outfeed_shape == b.outfeed_shape && a.fusion_kind == b.fusion_kind &&
         a.triangular_solve_options == b.triangular_solve_options &&
         a.cholesky_lower == b.cholesky_lower &&
         a.source_target_pairs == b.source_target_pairs &&
         a.is_host_transfer == b.is_host_transfer && a.fft_type == b.fft_type &&
         a.fft_length == b.fft_length && a.k == b.k && a.largest == b.largest &&
         a.rng_delta == b.rng_delta &&
         a.async_execution_thread == b.async_execution_thread &&
         a.cross_program_prefetch_index == b.cross_program_prefetch_index;
}

const Shape& CollectiveResultShape(const Instruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kCollectivePermuteStart:
      if (instruction.shape().IsTuple() &&
          instruction.shape().tuple_shapes_size() >= 2) {
        return instruction.shape().tuple_shapes(1);
      }
      return instruction.shape();
    default:
      return instruction.shape();
  }
}

}  // namespace plexa
