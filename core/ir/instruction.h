// Instruction: one HLO operation. A small value-like node: opcode, shape,
// operands, called computations and typed attributes (attributes.h). There
// is no subclass per opcode; what an opcode uses is listed in docs/ops.md.
#ifndef PLEXA_CORE_IR_INSTRUCTION_H_
#define PLEXA_CORE_IR_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/ir/opcode.h"
#include "core/shape/shape.h"

namespace plexa {

class Computation;

class Instruction {
 public:
  static std::unique_ptr<Instruction> Create(
      HloOpcode opcode, Shape shape, std::vector<Instruction*> operands = {},
      InstructionAttrs attrs = {}, std::vector<Computation*> called = {});

  Instruction(const Instruction&) = delete;
  Instruction& operator=(const Instruction&) = delete;
  ~Instruction();

  HloOpcode opcode() const { return opcode_; }

  const std::string& name() const { return name_; }
  // Sets the name as is; Computation::AddInstruction makes it unique.
  void set_name(std::string name) { name_ = std::move(name); }

  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  // Operands. Users are tracked both ways.
  int64_t operand_count() const {
    return static_cast<int64_t>(operands_.size());
  }
  const Instruction* operand(int64_t i) const { return operands_[i]; }
  Instruction* mutable_operand(int64_t i) { return operands_[i]; }
  absl::Span<Instruction* const> operands() const { return operands_; }
  const std::vector<Instruction*>& users() const { return users_; }
  int64_t user_count() const { return static_cast<int64_t>(users_.size()); }
  void AppendOperand(Instruction* operand);
  // Replaces operand i; the shapes must agree ignoring layout.
  absl::Status ReplaceOperandWith(int64_t i, Instruction* new_operand);
  // Makes every user of this instruction (and the computation root, if it
  // is this) use `other` instead. The shapes must agree ignoring layout.
  absl::Status ReplaceAllUsesWith(Instruction* other);
  // Drops all operands (updating their user lists). For removal.
  void DetachOperands();

  // Called computations, by role:
  //   call, map, reduce, reduce-window, all-reduce, sort, scatter, fusion,
  //   custom-call (optional): [to_apply]
  //   while: [condition, body]
  //   select-and-scatter: [select, scatter]
  //   conditional: branch computations in order (true, false for a pred)
  const std::vector<Computation*>& called_computations() const {
    return called_;
  }
  void set_called_computations(std::vector<Computation*> c) {
    called_ = std::move(c);
  }
  Computation* to_apply() const;
  Computation* while_condition() const;
  Computation* while_body() const;
  Computation* select() const;
  Computation* scatter() const;
  // Replaces every reference to `old_c` with `new_c`.
  void ReplaceCalledComputation(Computation* old_c, Computation* new_c);

  const InstructionAttrs& attrs() const { return attrs_; }
  InstructionAttrs* mutable_attrs() { return &attrs_; }

  // Control dependencies (control-predecessors={...} in text).
  const std::vector<Instruction*>& control_predecessors() const {
    return control_predecessors_;
  }
  const std::vector<Instruction*>& control_successors() const {
    return control_successors_;
  }
  void AddControlDependencyTo(Instruction* successor);
  void DropAllControlDependencies();

  Computation* parent() const { return parent_; }
  // Id unique within the module's lifetime; assigned on insertion.
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  // Convenience accessors for common attributes.
  absl::Span<const int64_t> dimensions() const { return attrs_.dimensions; }
  int64_t dimensions(int64_t i) const { return attrs_.dimensions[i]; }
  int64_t parameter_number() const { return attrs_.parameter_number; }
  int64_t tuple_index() const { return attrs_.tuple_index; }
  const Literal& literal() const { return *attrs_.literal; }

  // Structural equality of opcode, shape, attributes and called
  // computations (by pointer), and operands compared with `eq_operands`.
  template <typename EqOperands>
  bool Identical(const Instruction& other, EqOperands eq_operands) const;
  bool SameAttributesAs(const Instruction& other) const;

 private:
  friend class Computation;
  Instruction(HloOpcode opcode, Shape shape);
  void RemoveUser(Instruction* user);
  void AddUser(Instruction* user);

  HloOpcode opcode_;
  Shape shape_;
  std::string name_;
  std::vector<Instruction*> operands_;
  std::vector<Instruction*> users_;
  // Membership index of users_, built once an instruction has many users
  // so that adding users stays O(1) for values with huge fan-out.
  std::unique_ptr<absl::flat_hash_set<Instruction*>> user_set_;
  std::vector<Computation*> called_;
  std::vector<Instruction*> control_predecessors_;
  std::vector<Instruction*> control_successors_;
  InstructionAttrs attrs_;
  Computation* parent_ = nullptr;
  int64_t unique_id_ = -1;
};

template <typename EqOperands>
bool Instruction::Identical(const Instruction& other,
                            EqOperands eq_operands) const {
  if (opcode_ != other.opcode_ || shape_ != other.shape_ ||
      operands_.size() != other.operands_.size() || called_ != other.called_ ||
      !SameAttributesAs(other)) {
    return false;
  }
  for (size_t i = 0; i < operands_.size(); ++i) {
    if (!eq_operands(operands_[i], other.operands_[i])) return false;
  }
  return true;
}

// The shape a collective computes: for all-gather-start and
// collective-permute-start, the element their -done returns (element 1);
// for any other instruction its shape.
const Shape& CollectiveResultShape(const Instruction& instruction);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_INSTRUCTION_H_
