// Layout assignment: gives every array in every instruction's shape a
// layout, and inserts `copy` instructions where a value must change layout.
//
// Layouts chosen (seed 000: the default is major-to-minor, {n-1,...,0}):
//   - entry parameters and the entry result: entry_computation_layout when
//     the module has one, else the layouts the entry's parameters and root
//     carry (the default where they have none). The pass then records the
//     result as the module's entry_computation_layout, so plugins see it;
//   - a custom-call's result: the layout written on it, if any (a
//     constraint of the target); its operands: operand_layout_constraints
//     when given;
//   - a copy or a bitcast keeps the layout written on it (a copy exists to
//     change layout; a bitcast's meaning depends on layouts), and a
//     bitcast's operand keeps the layout it had;
//   - get-tuple-element, tuple, and instructions whose value is a called
//     computation's result (while, call, conditional, fusion) take the
//     layouts of what they forward;
//   - parameters and results of computations other than the entry (while
//     bodies, reducers, branches, ...): the default layout, so callers and
//     callees agree without knowing each other;
//   - fused computations (fusion runs after layout assignment and builds
//     them from laid-out instructions) keep their layouts; a fusion's
//     operands must match its parameters' layouts;
//   - every other instruction: the backend's preference
//     (Options::preferred_result_layout), else the default.
// Where an operand's layout differs from what its user requires (a
// custom-call constraint, a callee's parameter, the backend's
// Options::required_operand_layout, the entry result), a copy to the
// required layout is inserted (element by element for tuples).
//
// The pass is idempotent: run again, it finds every constraint met.
#ifndef PLEXA_CORE_PASSES_LAYOUT_ASSIGNMENT_H_
#define PLEXA_CORE_PASSES_LAYOUT_ASSIGNMENT_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "core/ir/module.h"
#include "core/passes/pass.h"
#include "core/shape/layout.h"

namespace plexa {

// How a backend (a plugin's compile hook) states its preferences. Both
// hooks are optional; returning nullopt means "no preference".
struct LayoutPreferences {
  // The layout an instruction's (array) result should get when nothing
  // else constrains it. Asked for instructions free to choose only.
  std::function<std::optional<Layout>(const Instruction&)>
      preferred_result_layout;
  // The layout (array) operand `operand_index` of an instruction must have
  // when the instruction reads it; a copy is inserted if it has another.
  std::function<std::optional<Layout>(const Instruction&,
                                      int64_t operand_index)>
      required_operand_layout;
};

class LayoutAssignment : public Pass {
 public:
  LayoutAssignment() = default;
  explicit LayoutAssignment(LayoutPreferences preferences)
      : preferences_(std::move(preferences)) {}

  absl::string_view name() const override { return "layout-assignment"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  LayoutPreferences preferences_;
};

// Sets the module's entry_computation_layout, if it has none, from the
// entry's parameters and root (default layouts where they have none), so
// later passes that move the root keep the result layout the program had.
// Returns true if it set one.
bool PinEntryComputationLayout(Module& module);

// PinEntryComputationLayout as a pass: the default pipeline runs it first,
// before any rewrite can replace the entry's root.
class EntryLayoutPinning : public Pass {
 public:
  absl::string_view name() const override { return "pin-entry-layout"; }
  absl::StatusOr<bool> Run(Module& module) override {
    return PinEntryComputationLayout(module);
  }
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_LAYOUT_ASSIGNMENT_H_
