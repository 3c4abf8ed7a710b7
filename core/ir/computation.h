// Computation: a DAG of instructions with parameters and one root.
#ifndef PLEXA_CORE_IR_COMPUTATION_H_
#define PLEXA_CORE_IR_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/instruction.h"

namespace plexa {

class Module;

class Computation {
 public:
  explicit Computation(std::string name) : name_(std::move(name)) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // Takes ownership. Gives the instruction a name unique within this
  // computation (its own if free, else name.N; opcode-based if empty).
  // A parameter is registered by its parameter_number.
  Instruction* AddInstruction(std::unique_ptr<Instruction> instruction);
  // Removes an instruction that has no users and is not the root.
  absl::Status RemoveInstruction(Instruction* instruction);
  // Removes `instruction` and, transitively, operands left without users.
  absl::Status RemoveInstructionAndUnusedOperands(Instruction* instruction);

  Instruction* root_instruction() const { return root_; }
  void set_root_instruction(Instruction* root) { root_ = root; }

  int64_t num_parameters() const {
    return static_cast<int64_t>(parameters_.size());
  }
  // nullptr if parameter i was not added (the verifier reports gaps).
  Instruction* parameter_instruction(int64_t i) const {
    return i < num_parameters() ? parameters_[i] : nullptr;
  }
  const std::vector<Instruction*>& parameter_instructions() const {
    return parameters_;
  }

  // Instructions in insertion order (for parsed text, text order).
  int64_t instruction_count() const {
    return static_cast<int64_t>(instructions_.size());
  }
  std::vector<Instruction*> instructions() const;
  // Operands (and control predecessors) before users; every instruction,
  // including ones unreachable from the root. Deterministic.
  std::vector<Instruction*> MakeInstructionPostOrder() const;

  Instruction* GetInstructionWithName(absl::string_view name) const;

  ProgramShape ComputeProgramShape() const;

  Module* parent() const { return parent_; }
  bool IsEntryComputation() const;

  // A fresh name "prefix.N" not used in this computation.
  std::string UniqueName(absl::string_view prefix);

 private:
  friend class Module;
  std::string name_;
  std::vector<std::unique_ptr<Instruction>> instructions_;
  std::vector<Instruction*> parameters_;
  absl::flat_hash_map<std::string, Instruction*> by_name_;
  absl::flat_hash_map<std::string, int64_t> next_suffix_;
  Instruction* root_ = nullptr;
  Module* parent_ = nullptr;
};

}  // namespace plexa

#endif  // PLEXA_CORE_IR_COMPUTATION_H_
