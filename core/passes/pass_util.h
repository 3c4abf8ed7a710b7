// Helpers shared by the passes: side-effect queries, making instructions
// with inferred shapes, replacing and removing instructions, cloning and
// inlining computations.
#ifndef PLEXA_CORE_PASSES_PASS_UTIL_H_
#define PLEXA_CORE_PASSES_PASS_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/base/status_macros.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

// Status plumbing for the passes.

namespace plexa {

// ---- Side effects ----------------------------------------------------------

// Instructions whose execution matters beyond their value, as XLA's
// HasSideEffectNoRecurse: rng (it advances the generator: removing,
// merging or reordering one changes every later draw), infeed, outfeed,
// custom-call with custom_call_has_side_effect=true, all-reduce (a
// rendezvous with the other replicas). No pass removes, merges, duplicates
// or moves them across each other.
bool HasSideEffectNoRecurse(const Instruction& instruction);

// Values that differ between replicas or runs even with equal operands:
// the side-effecting ops plus replica-id, partition-id and every
// custom-call (its target is opaque). Never constant-folded.
bool IsNotFoldable(const Instruction& instruction);

// Memoised side-effect queries that look through called computations
// (a call, while, fusion, ... whose computation has an rng has a side
// effect). Valid while the queried computations are not changed.
class SideEffects {
 public:
  bool Has(const Instruction& instruction);
  bool ComputationHas(const Computation* computation);

 private:
  absl::flat_hash_map<const Computation*, bool> memo_;
};

// ---- Making instructions ---------------------------------------------------

// Adds an instruction whose shape comes from shape inference (no layout);
// `declared` is needed for the ops shape inference takes it from (broadcast,
// reshape, iota, ...). The name is derived from the opcode unless given.
absl::StatusOr<Instruction*> AddInstruction(
    Computation* computation, HloOpcode opcode,
    std::vector<Instruction*> operands, InstructionAttrs attrs = {},
    std::vector<Computation*> called = {}, const Shape* declared = nullptr,
    absl::string_view name = "");

// A copy of `original` (opcode, shape, attributes, called computations,
// name) with other operands, added to `computation`.
Instruction* AddClone(Computation* computation, const Instruction& original,
                      std::vector<Instruction*> operands);
// As AddClone, with another shape.
Instruction* AddCloneWithShape(Computation* computation,
                               const Instruction& original,
                               std::vector<Instruction*> operands, Shape shape);

// A scalar constant of `type` holding `value` (converted as
// Literal::SetFromDouble does; complex types get (value, 0)).
absl::StatusOr<Instruction*> AddScalarConstant(Computation* computation,
                                               PrimitiveType type,
                                               double value);
Instruction* AddConstant(Computation* computation, Literal literal,
                         absl::string_view name = "");

// `operand` broadcast to `shape`'s dimensions (element type of operand);
// `dimensions` maps operand dimensions to result dimensions.
absl::StatusOr<Instruction*> AddBroadcast(Computation* computation,
                                          Instruction* operand,
                                          absl::Span<const int64_t> dims,
                                          absl::Span<const int64_t> dimensions);

// Element `index` of the tuple-valued `tuple`.
absl::StatusOr<Instruction*> AddGte(Computation* computation,
                                    Instruction* tuple, int64_t index,
                                    absl::string_view name = "");

// The same scalar computation `lhs op rhs` over `type`, e.g. an add
// reducer, added to `module` (named "<op>.<type>").
Computation* AddScalarBinaryComputation(Module* module, HloOpcode opcode,
                                        PrimitiveType type);

// ---- Replacing and removing
// --------------------------------------------------

// Makes every user of `old_instruction` (and the root, if it is one) use
// `replacement`, then removes `old_instruction` and any operand left dead
// (RemoveIfDead). The shapes must agree ignoring layout. Control
// dependencies of `old_instruction` are relinked from its predecessors to
// its successors, so no ordering between other instructions is lost.
absl::Status ReplaceInstruction(Instruction* old_instruction,
                                Instruction* replacement,
                                SideEffects* side_effects);

// True if a user of `instruction` reads its physical layout, not only its
// value: a `bitcast` reinterprets its operand's bytes, so handing it a value
// in another layout (removing a layout-changing copy, say) changes its
// result. Passes that replace values ignoring layout must keep such values.
bool LayoutIsObserved(const Instruction& instruction);

// True if `instruction` can be removed without changing the program: no
// users, not a root, not a parameter, no side effect (looking through
// called computations).
bool IsDead(const Instruction& instruction, SideEffects* side_effects);

// Removes `instruction` if it is dead, then its operands that became dead,
// transitively. Returns the number of instructions removed.
absl::StatusOr<int64_t> RemoveIfDead(Instruction* instruction,
                                     SideEffects* side_effects);

// ---- Computations ----------------------------------------------------------

// A deep copy of `computation` (same called computations) added to
// `module` under `name`.
Computation* CloneComputation(const Computation& computation, Module* module,
                              absl::string_view name);

// Clones the instructions of `callee` into `into` with parameter i
// replaced by args[i] (operand order). Returns the clone of the root.
// Instructions are added in `callee`'s post order; control dependencies
// inside `callee` are copied.
absl::StatusOr<Instruction*> InlineComputation(
    Computation* into, const Computation& callee,
    absl::Span<Instruction* const> args);

// Replaces `computation` by a copy whose instructions are inserted in
// `order` (which must list every instruction, operands first). The
// evaluator and the printer follow insertion order, so this is how a pass
// puts side-effecting instructions back in the order the original program
// ran them. Every reference to the old computation (called computations,
// the entry) is updated; returns the new computation.
absl::StatusOr<Computation*> RebuildInOrder(
    Computation* computation, absl::Span<Instruction* const> order);

// The unique ids of `computation`'s instructions in execution (post)
// order, to restore it after a rewrite (RestoreExecutionOrder).
std::vector<int64_t> ExecutionOrderIds(const Computation& computation);

// After a rewrite replaced the instruction whose id is `replaced` by
// instructions added since `before` was taken (ExecutionOrderIds), rebuilds
// `computation` (RebuildInOrder) so the added instructions run where the
// replaced one ran and every other instruction keeps its recorded order.
// Added instructions must only read instructions that ran before the
// replaced one, or each other. For rewrites of side-effecting instructions
// (a while loop with an rng inside), whose place in the order matters.
absl::StatusOr<Computation*> RestoreExecutionOrder(
    Computation* computation, absl::Span<const int64_t> before,
    int64_t replaced);

// ---- Constants -------------------------------------------------------------

// The computations that run as steps of a program: the entry and those it
// reaches through while, call and conditional (not reducers, comparators,
// scatter or map computations, fused computations). Fusion and backend
// rewrites work in these.
std::vector<Computation*> ControlFlowComputations(const Module& module);

// Replaces `members` (instructions of `computation`, operands before
// users, `root` among them and the only one whose value is used outside)
// with one fusion instruction of `kind` whose fused computation holds
// clones of them; its operands are the values the members read from
// outside, in first-use order. Members left without users afterwards are
// removed; a member also used outside stays, duplicated into the fusion.
absl::StatusOr<Instruction*> FuseInstructions(
    Computation* computation, absl::Span<Instruction* const> members,
    Instruction* root, FusionKind kind, std::string backend_config = "");

// True if `instruction` is a constant, or a broadcast of a constant, whose
// every element equals `value` (for complex: real part `value`, imaginary
// 0; pred: 0 or 1). A zero-element array never matches.
bool IsAllEqualTo(const Instruction& instruction, double value);

// Total instruction count over every computation of `module`.
int64_t CountInstructions(const Module& module);

// Default layouts on every array of `shape` (recursively) where missing.
Shape WithDefaultLayout(Shape shape);

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_PASS_UTIL_H_
