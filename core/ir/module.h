// Module: computations, one of them the entry, plus module attributes.
#ifndef PLEXA_CORE_IR_MODULE_H_
#define PLEXA_CORE_IR_MODULE_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/ir/computation.h"

namespace plexa {

class Module {
 public:
  explicit Module(std::string name) : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  // Takes ownership; makes the computation's name unique in the module.
  Computation* AddComputation(std::unique_ptr<Computation> computation,
                              bool is_entry = false);
  // Removes a computation no instruction calls.
  absl::Status RemoveComputation(Computation* computation);

  Computation* entry_computation() const { return entry_; }
  void set_entry_computation(Computation* c) { entry_ = c; }

  // In insertion order (for parsed text, text order).
  std::vector<Computation*> computations() const;
  int64_t computation_count() const {
    return static_cast<int64_t>(computations_.size());
  }
  // Callees before callers; the entry last. Unreachable ones included.
  std::vector<Computation*> MakeComputationPostOrder() const;
  Computation* GetComputationWithName(absl::string_view name) const;

  // entry_computation_layout={(f32[2]{0})->f32[2]{0}} when given.
  const std::optional<ProgramShape>& entry_computation_layout() const {
    return entry_computation_layout_;
  }
  void set_entry_computation_layout(std::optional<ProgramShape> l) {
    entry_computation_layout_ = std::move(l);
  }

  // Module header attributes other than entry_computation_layout, kept
  // verbatim (is_scheduled=true, allow_spmd_..., frontend_attributes, ...).
  std::vector<std::pair<std::string, std::string>>*
  mutable_opaque_attributes() {
    return &opaque_attributes_;
  }
  const std::vector<std::pair<std::string, std::string>>& opaque_attributes()
      const {
    return opaque_attributes_;
  }

  int64_t NextUniqueId() { return next_unique_id_++; }

 private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  std::optional<ProgramShape> entry_computation_layout_;
  std::vector<std::pair<std::string, std::string>> opaque_attributes_;
  int64_t next_unique_id_ = 0;
};

}  // namespace plexa

#endif  // PLEXA_CORE_IR_MODULE_H_
