#include "core/passes/pass_util.h"

#include <memory>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/infer/shape_inference.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa {

// ---- Side effects ----------------------------------------------------------

bool HasSideEffectNoRecurse(const Instruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kRng:
    case HloOpcode::kRngGetAndUpdateState:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return true;
    case HloOpcode::kCustomCall:
      return instruction.attrs().custom_call_has_side_effect;
    default:
      return IsCollective(instruction.opcode());
  }
}

bool IsNotFoldable(const Instruction& instruction) {
  switch (instruction.opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
    case HloOpcode::kCustomCall:
      return true;
    default:
      return HasSideEffectNoRecurse(instruction);
  }
}

bool SideEffects::Has(const Instruction& instruction) {
  if (HasSideEffectNoRecurse(instruction)) return true;
  for (const Computation* c : instruction.called_computations()) {
    if (ComputationHas(c)) return true;
  }
  return false;
}

bool SideEffects::ComputationHas(const Computation* computation) {
  if (computation == nullptr) return false;
  auto it = memo_.find(computation);
  if (it != memo_.end()) return it->second;
  // The call graph is acyclic (verified), so the recursion ends; mark
  // first anyway so a malformed graph cannot recurse forever.
  memo_[computation] = false;
  bool has = false;
  for (const Instruction* inst : computation->instructions()) {
    if (Has(*inst)) {
      has = true;
      break;
    }
  }
  memo_[computation] = has;
  return has;
}

// ---- Making instructions ---------------------------------------------------

absl::StatusOr<Instruction*> AddInstruction(Computation* computation,
                                            HloOpcode opcode,
                                            std::vector<Instruction*> operands,
                                            InstructionAttrs attrs,
                                            std::vector<Computation*> called,
                                            const Shape* declared,
                                            absl::string_view name) {
  std::vector<const Shape*> shapes;
  shapes.reserve(operands.size());
  for (const Instruction* op : operands) shapes.push_back(&op->shape());
  std::vector<ProgramShape> signatures;
  for (const Computation* c : called) {
    signatures.push_back(c->ComputeProgramShape());
  }
  absl::StatusOr<Shape> shape =
      shape_inference::InferShape(opcode, shapes, attrs, signatures, declared);
  if (!shape.ok()) return shape.status();
  std::unique_ptr<Instruction> inst =
      Instruction::Create(opcode, std::move(*shape), std::move(operands),
                          std::move(attrs), std::move(called));
  if (!name.empty()) inst->set_name(std::string(name));
  return computation->AddInstruction(std::move(inst));
}

Instruction* AddCloneWithShape(Computation* computation,
                               const Instruction& original,
                               std::vector<Instruction*> operands,
                               Shape shape) {
  std::unique_ptr<Instruction> inst = Instruction::Create(
      original.opcode(), std::move(shape), std::move(operands),
      original.attrs(), original.called_computations());
  inst->set_name(original.name());
  return computation->AddInstruction(std::move(inst));
}

Instruction* AddClone(Computation* computation, const Instruction& original,
                      std::vector<Instruction*> operands) {
  return AddCloneWithShape(computation, original, std::move(operands),
                           original.shape());
}

Instruction* AddConstant(Computation* computation, Literal literal,
                         absl::string_view name) {
  Shape shape = literal.shape();
  shape.clear_layout();
  InstructionAttrs attrs;
  attrs.literal = std::make_shared<const Literal>(std::move(literal));
  std::unique_ptr<Instruction> inst = Instruction::Create(
      HloOpcode::kConstant, std::move(shape), {}, std::move(attrs));
  if (!name.empty()) inst->set_name(std::string(name));
  return computation->AddInstruction(std::move(inst));
}

absl::StatusOr<Instruction*> AddScalarConstant(Computation* computation,
                                               PrimitiveType type,
                                               double value) {
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no scalar constant of type ", primitive_util::Name(type)));
  }
  Literal literal(ShapeUtil::MakeScalarShape(type));
  absl::Status s = primitive_util::IsComplexType(type)
                       ? literal.SetFromComplex({}, {value, 0.0})
                       : literal.SetFromDouble({}, value);
  if (!s.ok()) return s;
  return AddConstant(computation, std::move(literal));
}

absl::StatusOr<Instruction*> AddBroadcast(
    Computation* computation, Instruction* operand,
    absl::Span<const int64_t> dims, absl::Span<const int64_t> dimensions) {
  const Shape declared(operand->shape().element_type(), dims);
  InstructionAttrs attrs;
  attrs.dimensions.assign(dimensions.begin(), dimensions.end());
  return AddInstruction(computation, HloOpcode::kBroadcast, {operand},
                        std::move(attrs), {}, &declared);
}

absl::StatusOr<Instruction*> AddGte(Computation* c, Instruction* tuple,
                                    int64_t index, absl::string_view name) {
  InstructionAttrs attrs;
  attrs.tuple_index = index;
  return AddInstruction(c, HloOpcode::kGetTupleElement, {tuple},
                        std::move(attrs), {}, nullptr, name);
}

Computation* AddScalarBinaryComputation(Module* module, HloOpcode opcode,
                                        PrimitiveType type) {
  auto c = std::make_unique<Computation>(
      absl::StrCat(HloOpcodeString(opcode), ".", primitive_util::Name(type)));
  const Shape scalar = ShapeUtil::MakeScalarShape(type);
  InstructionAttrs a0, a1;
  a0.parameter_number = 0;
  a1.parameter_number = 1;
  auto lhs = Instruction::Create(HloOpcode::kParameter, scalar, {}, a0);
  lhs->set_name("lhs");
  auto rhs = Instruction::Create(HloOpcode::kParameter, scalar, {}, a1);
  rhs->set_name("rhs");
  Instruction* l = c->AddInstruction(std::move(lhs));
  Instruction* r = c->AddInstruction(std::move(rhs));
  Instruction* root =
      c->AddInstruction(Instruction::Create(opcode, scalar, {l, r}));
  c->set_root_instruction(root);
  return module->AddComputation(std::move(c));
}

// ---- Replacing and removing ------------------------------------------------

bool IsDead(const Instruction& instruction, SideEffects* side_effects) {
  const Computation* parent = instruction.parent();
  return instruction.user_count() == 0 &&
         (parent == nullptr || parent->root_instruction() != &instruction) &&
         instruction.opcode() != HloOpcode::kParameter &&
         !side_effects->Has(instruction);
}

namespace {

// Keeps the order between the predecessors and successors of `inst` when
// it goes away: every predecessor becomes a predecessor of every successor.
void RelinkControlDependencies(Instruction* inst) {
  const std::vector<Instruction*> preds = inst->control_predecessors();
  const std::vector<Instruction*> succs = inst->control_successors();
  for (Instruction* p : preds) {
    for (Instruction* s : succs) p->AddControlDependencyTo(s);
  }
  inst->DropAllControlDependencies();
}

}  // namespace

absl::StatusOr<int64_t> RemoveIfDead(Instruction* instruction,
                                     SideEffects* side_effects) {
  int64_t removed = 0;
  absl::flat_hash_set<Instruction*> gone;
  std::vector<Instruction*> work = {instruction};
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    if (gone.contains(inst) || !IsDead(*inst, side_effects)) continue;
    std::vector<Instruction*> operands(inst->operands().begin(),
                                       inst->operands().end());
    RelinkControlDependencies(inst);
    absl::Status s = inst->parent()->RemoveInstruction(inst);
    if (!s.ok()) return s;
    gone.insert(inst);
    ++removed;
    for (Instruction* op : operands) {
      if (!gone.contains(op)) work.push_back(op);
    }
  }
  return removed;
}

bool LayoutIsObserved(const Instruction& instruction) {
  for (const Instruction* user : instruction.users()) {
    if (user->opcode() == HloOpcode::kBitcast) return true;
  }
  return false;
}

absl::Status ReplaceInstruction(Instruction* old_instruction,
                                Instruction* replacement,
                                SideEffects* side_effects) {
  if (old_instruction == replacement) return absl::OkStatus();
  absl::Status s = old_instruction->ReplaceAllUsesWith(replacement);
  if (!s.ok()) return s;
  absl::StatusOr<int64_t> removed = RemoveIfDead(old_instruction, side_effects);
  return removed.status();
}

// ---- Computations ----------------------------------------------------------

namespace {

// Clones `order` (every instruction of `source`, operands first) into
// `target`; parameters are cloned too unless `args` is given, in which
// case parameter i becomes args[i].
absl::StatusOr<absl::flat_hash_map<const Instruction*, Instruction*>>
CloneInstructions(const Computation& source,
                  absl::Span<Instruction* const> order, Computation* target,
                  const absl::Span<Instruction* const>* args) {
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  map.reserve(order.size());
  for (Instruction* inst : order) {
    if (args != nullptr && inst->opcode() == HloOpcode::kParameter) {
      const int64_t n = inst->parameter_number();
      if (n < 0 || n >= static_cast<int64_t>(args->size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("inlining ", source.name(), ": parameter ", n,
                         " has no argument (", args->size(), " given)"));
      }
      map[inst] = (*args)[n];
      continue;
    }
    std::vector<Instruction*> operands;
    operands.reserve(inst->operand_count());
    for (Instruction* op : inst->operands()) {
      auto it = map.find(op);
      if (it == map.end()) {
        return absl::InternalError(absl::StrCat(
            "cloning ", source.name(), ": operand ", op->name(), " of ",
            inst->name(), " comes after it in the given order"));
      }
      operands.push_back(it->second);
    }
    map[inst] = AddClone(target, *inst, std::move(operands));
  }
  for (Instruction* inst : order) {
    if (args != nullptr && inst->opcode() == HloOpcode::kParameter) continue;
    for (Instruction* succ : inst->control_successors()) {
      auto it = map.find(succ);
      if (it != map.end()) map[inst]->AddControlDependencyTo(it->second);
    }
  }
  return map;
}

}  // namespace

Computation* CloneComputation(const Computation& computation, Module* module,
                              absl::string_view name) {
  auto clone = std::make_unique<Computation>(std::string(name));
  const std::vector<Instruction*> order =
      computation.MakeInstructionPostOrder();
  absl::StatusOr<absl::flat_hash_map<const Instruction*, Instruction*>> map =
      CloneInstructions(computation, order, clone.get(), nullptr);
  // A post order always lists operands first, so cloning cannot fail.
  clone->set_root_instruction(map->at(computation.root_instruction()));
  return module->AddComputation(std::move(clone));
}

absl::StatusOr<Instruction*> InlineComputation(
    Computation* into, const Computation& callee,
    absl::Span<Instruction* const> args) {
  const std::vector<Instruction*> order = callee.MakeInstructionPostOrder();
  absl::StatusOr<absl::flat_hash_map<const Instruction*, Instruction*>> map =
      CloneInstructions(callee, order, into, &args);
  if (!map.ok()) return map.status();
  return map->at(callee.root_instruction());
}

absl::StatusOr<Computation*> RebuildInOrder(
    Computation* computation, absl::Span<Instruction* const> order) {
  if (static_cast<int64_t>(order.size()) != computation->instruction_count()) {
    return absl::InternalError(
        absl::StrCat("rebuilding ", computation->name(), ": the order lists ",
                     order.size(), " instructions, the computation has ",
                     computation->instruction_count()));
  }
  Module* module = computation->parent();
  auto rebuilt = std::make_unique<Computation>(computation->name());
  absl::StatusOr<absl::flat_hash_map<const Instruction*, Instruction*>> map =
      CloneInstructions(*computation, order, rebuilt.get(), nullptr);
  if (!map.ok()) return map.status();
  rebuilt->set_root_instruction(map->at(computation->root_instruction()));
  Computation* fresh = rebuilt.get();
  for (Computation* c : module->computations()) {
    for (Instruction* inst : c->instructions()) {
      inst->ReplaceCalledComputation(computation, fresh);
    }
  }
  const bool is_entry = module->entry_computation() == computation;
  if (is_entry) module->set_entry_computation(fresh);
  absl::Status s = module->RemoveComputation(computation);
  if (!s.ok()) return s;
  return module->AddComputation(std::move(rebuilt), is_entry);
}

std::vector<int64_t> ExecutionOrderIds(const Computation& computation) {
  std::vector<int64_t> ids;
  for (const Instruction* inst : computation.MakeInstructionPostOrder()) {
    ids.push_back(inst->unique_id());
  }
  return ids;
}

absl::StatusOr<Computation*> RestoreExecutionOrder(
    Computation* computation, absl::Span<const int64_t> before,
    int64_t replaced) {
  absl::flat_hash_map<int64_t, Instruction*> by_id;
  for (Instruction* inst : computation->instructions()) {
    by_id[inst->unique_id()] = inst;
  }
  const absl::flat_hash_set<int64_t> old_ids(before.begin(), before.end());
  std::vector<Instruction*> added;
  for (Instruction* inst : computation->instructions()) {
    if (!old_ids.contains(inst->unique_id())) added.push_back(inst);
  }
  std::vector<Instruction*> order;
  order.reserve(by_id.size());
  for (int64_t id : before) {
    if (id == replaced) order.insert(order.end(), added.begin(), added.end());
    auto it = by_id.find(id);
    if (it != by_id.end()) order.push_back(it->second);
  }
  return RebuildInOrder(computation, order);
}

// ---- Constants -------------------------------------------------------------

bool IsAllEqualTo(const Instruction& instruction, double value) {
  if (instruction.opcode() == HloOpcode::kBroadcast) {
    return IsAllEqualTo(*instruction.operand(0), value);
  }
  if (instruction.opcode() != HloOpcode::kConstant ||
      instruction.attrs().literal == nullptr) {
    return false;
  }
  const Literal& lit = instruction.literal();
  if (!lit.shape().IsArray() || ShapeUtil::ElementsIn(lit.shape()) == 0) {
    return false;
  }
  const bool complex =
      primitive_util::IsComplexType(lit.shape().element_type());
  bool all = true;
  ShapeUtil::ForEachIndex(lit.shape(), [&](absl::Span<const int64_t> index) {
    if (!all) return;
    if (complex) {
      const std::complex<double> v = lit.GetAsComplex(index);
      all = v.real() == value && v.imag() == 0;
    } else {
      all = lit.GetAsDouble(index) == value;
    }
  });
  return all;
}

int64_t CountInstructions(const Module& module) {
  int64_t n = 0;
  for (const Computation* c : module.computations()) {
    n += c->instruction_count();
  }
  return n;
}

Shape WithDefaultLayout(Shape shape) {
  LayoutUtil::SetToDefaultLayoutIfEmpty(&shape);
  return shape;
}

absl::StatusOr<Instruction*> FuseInstructions(
    Computation* computation, absl::Span<Instruction* const> members,
    Instruction* root, FusionKind kind, std::string backend_config) {
  absl::flat_hash_set<const Instruction*> in_group(members.begin(),
                                                   members.end());
  std::vector<Instruction*> externals;
  absl::flat_hash_set<const Instruction*> listed;
  for (const Instruction* m : members) {
    for (Instruction* op : m->operands()) {
      if (!in_group.contains(op) && listed.insert(op).second) {
        externals.push_back(op);
      }
    }
  }
  auto fused = std::make_unique<Computation>("fused_computation");
  absl::flat_hash_map<const Instruction*, Instruction*> map;
  for (size_t i = 0; i < externals.size(); ++i) {
    InstructionAttrs attrs;
    attrs.parameter_number = static_cast<int64_t>(i);
    auto param = Instruction::Create(HloOpcode::kParameter,
                                     externals[i]->shape(), {}, attrs);
    param->set_name(absl::StrCat("param_", i));
    map[externals[i]] = fused->AddInstruction(std::move(param));
  }
  for (const Instruction* m : members) {
    std::vector<Instruction*> operands;
    for (const Instruction* op : m->operands()) operands.push_back(map.at(op));
    map[m] = AddClone(fused.get(), *m, std::move(operands));
  }
  fused->set_root_instruction(map.at(root));
  Computation* fc = computation->parent()->AddComputation(std::move(fused));
  InstructionAttrs attrs;
  attrs.fusion_kind = kind;
  attrs.backend_config = std::move(backend_config);
  Instruction* fusion = computation->AddInstruction(Instruction::Create(
      HloOpcode::kFusion, root->shape(), externals, std::move(attrs), {fc}));
  PLEXA_RETURN_IF_ERROR(root->ReplaceAllUsesWith(fusion));
  // Users first, so each has no users left when it goes.
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    if ((*it)->user_count() == 0 && *it != fusion) {
      PLEXA_RETURN_IF_ERROR(computation->RemoveInstruction(*it));
    }
  }
  return fusion;
}

std::vector<Computation*> ControlFlowComputations(const Module& module) {
  std::vector<Computation*> out;
  absl::flat_hash_set<const Computation*> seen;
  std::vector<Computation*> work;
  if (module.entry_computation() != nullptr) {
    work.push_back(module.entry_computation());
    seen.insert(module.entry_computation());
  }
  while (!work.empty()) {
    Computation* c = work.back();
    work.pop_back();
    out.push_back(c);
    for (const Instruction* inst : c->instructions()) {
      const HloOpcode op = inst->opcode();
      if (op != HloOpcode::kWhile && op != HloOpcode::kCall &&
          op != HloOpcode::kConditional) {
        continue;
      }
      for (Computation* callee : inst->called_computations()) {
        if (seen.insert(callee).second) work.push_back(callee);
      }
    }
  }
  return out;
}

}  // namespace plexa
