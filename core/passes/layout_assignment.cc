#include "core/passes/layout_assignment.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/ir/collective_groups.h"
#include "core/passes/pass_util.h"
#include "core/shape/layout_util.h"

namespace plexa {
namespace {

Shape Defaulted(Shape shape) {
  LayoutUtil::SetToDefaultLayout(&shape);
  return shape;
}

// `shape` with the layouts of `layouts` where it has them (same structure),
// the default elsewhere.
Shape WithLayoutsOf(Shape shape, const Shape& layouts) {
  if (shape.IsTuple()) {
    if (!layouts.IsTuple() ||
        layouts.tuple_shapes_size() != shape.tuple_shapes_size()) {
      return Defaulted(std::move(shape));
    }
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      *shape.mutable_tuple_shapes(i) =
          WithLayoutsOf(shape.tuple_shapes(i), layouts.tuple_shapes(i));
    }
    return shape;
  }
  if (!shape.IsArray()) return shape;
  if (layouts.IsArray() && layouts.has_layout() &&
      layouts.rank() == shape.rank() &&
      LayoutUtil::ValidateLayoutForShape(layouts.layout(), shape).ok()) {
    shape.set_layout(layouts.layout());
  } else {
    shape.set_layout(LayoutUtil::GetDefaultLayoutForRank(shape.rank()));
  }
  return shape;
}

// Layouts equal everywhere (dimensions are equal by construction).
bool SameLayouts(const Shape& a, const Shape& b) { return a == b; }

class Assigner {
 public:
  Assigner(Module& module, const LayoutPreferences& preferences)
      : module_(module), preferences_(preferences) {}

  absl::StatusOr<bool> Run();

 private:
  // The layout-complete shape `inst` should have.
  Shape ResultShape(const Instruction& inst);
  // The shape (with layouts) operand `i` of `inst` must have, if any.
  std::optional<Shape> RequiredOperand(const Instruction& inst, int64_t i);
  // `value` in the layouts of `target` (same dimensions): `value` itself
  // if they agree, else copies (element by element for tuples).
  absl::StatusOr<Instruction*> ConvertTo(Instruction* value,
                                         const Shape& target);
  absl::StatusOr<bool> AssignComputation(Computation* c);
  // The shape before the pass (instructions the pass made: their own).
  const Shape& Original(const Instruction& inst) const {
    auto it = original_.find(&inst);
    return it == original_.end() ? inst.shape() : it->second;
  }

  Module& module_;
  const LayoutPreferences& preferences_;
  ProgramShape entry_layout_;
  // Shapes as they were before the pass (bitcast operands keep theirs).
  absl::flat_hash_map<const Instruction*, Shape> original_;
  // Computations called by fusion instructions.
  absl::flat_hash_set<const Computation*> fused_;
  // Copies made, per (value, target layout), to share them.
  absl::flat_hash_map<std::pair<const Instruction*, std::string>, Instruction*>
      copies_;
};

Shape Assigner::ResultShape(const Instruction& inst) {
  const Computation* c = inst.parent();
  const bool entry = c == module_.entry_computation();
  if (fused_.contains(c) && inst.opcode() != HloOpcode::kGetTupleElement &&
      inst.opcode() != HloOpcode::kTuple) {
    // Fusion runs after layout assignment and builds fused computations
    // from laid-out instructions: they keep their layouts.
    return WithLayoutsOf(inst.shape(), Original(inst));
  }
  if (MovesRowsBetweenDevices(inst.opcode())) {
    // Backends move rows of row-major buffers between replicas: the
    // default layout, whatever a backend prefers or the text constrains.
    return Defaulted(inst.shape());
  }
  switch (inst.opcode()) {
    case HloOpcode::kParameter:
      if (entry && inst.parameter_number() <
                       static_cast<int64_t>(entry_layout_.parameters.size())) {
        return WithLayoutsOf(inst.shape(),
                             entry_layout_.parameters[inst.parameter_number()]);
      }
      return Defaulted(inst.shape());
    case HloOpcode::kGetTupleElement: {
      const Shape& tuple = inst.operand(0)->shape();
      if (tuple.IsTuple() && inst.tuple_index() < tuple.tuple_shapes_size()) {
        return tuple.tuple_shapes(inst.tuple_index());
      }
      return Defaulted(inst.shape());
    }
    case HloOpcode::kTuple: {
      std::vector<Shape> elements;
      for (const Instruction* op : inst.operands()) {
        elements.push_back(op->shape());
      }
      return Shape(std::move(elements));
    }
    case HloOpcode::kWhile:
      return inst.while_body()->root_instruction()->shape();
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kFusion:
      // Every branch root has the default layout, so the first speaks for
      // all of them.
      return inst.called_computations().empty()
                 ? Defaulted(inst.shape())
                 : inst.called_computations()[0]->root_instruction()->shape();
    case HloOpcode::kCustomCall:
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
    case HloOpcode::kInfeed:
      // A layout written on these is a constraint.
      return WithLayoutsOf(inst.shape(), Original(inst));
    case HloOpcode::kAllReduce:
      // As in XLA, `constrain_layout=true` keeps the written layout.
      if (inst.attrs().constrain_layout) {
        return WithLayoutsOf(inst.shape(), Original(inst));
      }
      break;
    case HloOpcode::kFft:
    case HloOpcode::kTopK:
      // The toolkit's fft and topk thunks read and write row-major buffers.
      return Defaulted(inst.shape());
    default:
      break;
  }
  if (inst.shape().IsArray() && preferences_.preferred_result_layout) {
    std::optional<Layout> preferred =
        preferences_.preferred_result_layout(inst);
    if (preferred.has_value()) {
      Shape s = inst.shape();
      s.set_layout(*preferred);
      if (LayoutUtil::ValidateLayoutForShape(*preferred, s).ok()) return s;
    }
  }
  return Defaulted(inst.shape());
}

std::optional<Shape> Assigner::RequiredOperand(const Instruction& inst,
                                               int64_t i) {
  const Instruction& op = *inst.operand(i);
  if (MovesRowsBetweenDevices(inst.opcode())) {
    // Operands of collectives that move rows: the default layout.
    return Defaulted(op.shape());
  }
  switch (inst.opcode()) {
    case HloOpcode::kCustomCall:
      if (inst.attrs().has_layout_constraints &&
          i < static_cast<int64_t>(
                  inst.attrs().operand_shapes_with_layout.size())) {
        return WithLayoutsOf(op.shape(),
                             inst.attrs().operand_shapes_with_layout[i]);
      }
      break;
    case HloOpcode::kBitcast:
      return WithLayoutsOf(op.shape(), Original(op));
    case HloOpcode::kAllReduce:
      // Each operand in its result's layout (the result shape is assigned
      // before operands are looked at): a backend reduces buffers element
      // by element and may copy an operand's bytes to the result.
      if (inst.shape().IsTuple()) {
        if (i < inst.shape().tuple_shapes_size()) {
          return WithLayoutsOf(op.shape(), inst.shape().tuple_shapes(i));
        }
        break;
      }
      return WithLayoutsOf(op.shape(), inst.shape());
    case HloOpcode::kFusion: {
      // A fused computation's parameters keep their layouts.
      const Computation* fc = inst.to_apply();
      if (fc != nullptr && i < fc->num_parameters()) {
        return WithLayoutsOf(op.shape(), fc->parameter_instruction(i)->shape());
      }
      return Defaulted(op.shape());
    }
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kFft:
    case HloOpcode::kTopK:
      // Callee parameters have default layouts; so have the operands of
      // fft and topk (row-major thunks).
      return Defaulted(op.shape());
    case HloOpcode::kConditional:
      if (i > 0) return Defaulted(op.shape());
      break;
    default:
      break;
  }
  if (op.shape().IsArray() && preferences_.required_operand_layout) {
    std::optional<Layout> required =
        preferences_.required_operand_layout(inst, i);
    if (required.has_value()) {
      Shape s = op.shape();
      s.set_layout(*required);
      if (LayoutUtil::ValidateLayoutForShape(*required, s).ok()) return s;
    }
  }
  return std::nullopt;
}

absl::StatusOr<Instruction*> Assigner::ConvertTo(Instruction* value,
                                                 const Shape& target) {
  if (SameLayouts(value->shape(), target)) return value;
  const std::pair<const Instruction*, std::string> key = {value,
                                                          target.ToString()};
  auto it = copies_.find(key);
  if (it != copies_.end()) return it->second;
  Computation* c = value->parent();
  Instruction* result = nullptr;
  if (target.IsTuple()) {
    std::vector<Instruction*> elements;
    for (int64_t i = 0; i < target.tuple_shapes_size(); ++i) {
      InstructionAttrs attrs;
      attrs.tuple_index = i;
      PLEXA_ASSIGN_OR_RETURN(Instruction * gte,
                             AddInstruction(c, HloOpcode::kGetTupleElement,
                                            {value}, std::move(attrs)));
      *gte->mutable_shape() = value->shape().tuple_shapes(i);
      PLEXA_ASSIGN_OR_RETURN(Instruction * e,
                             ConvertTo(gte, target.tuple_shapes(i)));
      elements.push_back(e);
    }
    PLEXA_ASSIGN_OR_RETURN(
        result, AddInstruction(c, HloOpcode::kTuple, std::move(elements)));
  } else {
    PLEXA_ASSIGN_OR_RETURN(result,
                           AddInstruction(c, HloOpcode::kCopy, {value}));
  }
  *result->mutable_shape() = target;
  copies_[key] = result;
  return result;
}

absl::StatusOr<bool> Assigner::AssignComputation(Computation* c) {
  bool changed = false;
  const std::vector<Instruction*> order = c->MakeInstructionPostOrder();
  for (Instruction* inst : order) {
    Shape want = ResultShape(*inst);
    if (!(inst->shape() == want)) {
      *inst->mutable_shape() = std::move(want);
      changed = true;
    }
  }
  for (Instruction* inst : order) {
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      std::optional<Shape> required = RequiredOperand(*inst, i);
      if (!required.has_value() ||
          SameLayouts(inst->operand(i)->shape(), *required)) {
        continue;
      }
      PLEXA_ASSIGN_OR_RETURN(Instruction * copy,
                             ConvertTo(inst->mutable_operand(i), *required));
      PLEXA_RETURN_IF_ERROR(inst->ReplaceOperandWith(i, copy));
      changed = true;
    }
  }
  Instruction* root = c->root_instruction();
  if (fused_.contains(c)) return changed;
  const Shape root_want =
      c == module_.entry_computation()
          ? WithLayoutsOf(root->shape(), entry_layout_.result)
          : Defaulted(root->shape());
  if (!SameLayouts(root->shape(), root_want)) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * fixed, ConvertTo(root, root_want));
    c->set_root_instruction(fixed);
    changed = true;
  }
  return changed;
}

absl::StatusOr<bool> Assigner::Run() {
  bool changed = PinEntryComputationLayout(module_);
  entry_layout_ = *module_.entry_computation_layout();
  // Complete a given entry layout with defaults where it has none.
  const Computation* entry = module_.entry_computation();
  ProgramShape complete;
  for (int64_t i = 0; i < entry->num_parameters(); ++i) {
    const Shape& p = entry->parameter_instruction(i)->shape();
    complete.parameters.push_back(
        i < static_cast<int64_t>(entry_layout_.parameters.size())
            ? WithLayoutsOf(p, entry_layout_.parameters[i])
            : Defaulted(p));
  }
  complete.parameter_names = entry_layout_.parameter_names;
  complete.result =
      WithLayoutsOf(entry->root_instruction()->shape(), entry_layout_.result);
  entry_layout_ = complete;
  for (const Computation* c : module_.computations()) {
    for (const Instruction* inst : c->instructions()) {
      original_.emplace(inst, inst->shape());
      if (inst->opcode() == HloOpcode::kFusion && inst->to_apply() != nullptr) {
        fused_.insert(inst->to_apply());
      }
    }
  }
  // Callees first: an instruction forwarding a callee's result reads the
  // callee's root layout.
  for (Computation* c : module_.MakeComputationPostOrder()) {
    PLEXA_ASSIGN_OR_RETURN(bool r, AssignComputation(c));
    changed |= r;
  }
  const std::optional<ProgramShape>& recorded =
      module_.entry_computation_layout();
  if (!recorded.has_value() ||
      recorded->parameters != entry_layout_.parameters ||
      recorded->result != entry_layout_.result) {
    module_.set_entry_computation_layout(entry_layout_);
    changed = true;
  }
  return changed;
}

}  // namespace

bool PinEntryComputationLayout(Module& module) {
  if (module.entry_computation_layout().has_value() ||
      module.entry_computation() == nullptr) {
    return false;
  }
  const Computation* entry = module.entry_computation();
  ProgramShape pinned;
  for (const Instruction* p : entry->parameter_instructions()) {
    pinned.parameters.push_back(WithLayoutsOf(p->shape(), p->shape()));
    pinned.parameter_names.push_back(p->name());
  }
  const Shape& root = entry->root_instruction()->shape();
  pinned.result = WithLayoutsOf(root, root);
  module.set_entry_computation_layout(std::move(pinned));
  return true;
}

absl::StatusOr<bool> LayoutAssignment::Run(Module& module) {
  if (module.entry_computation() == nullptr) return false;
  Assigner assigner(module, preferences_);
  return assigner.Run();
}

}  // namespace plexa
