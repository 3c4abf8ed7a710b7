#include "core/passes/while_loop_simplifier.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/passes/call_inliner.h"
#include "core/passes/evaluate_util.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

using InstructionMap = absl::flat_hash_map<const Instruction*, Instruction*>;

bool HasControlDependencies(const Computation& c) {
  for (const Instruction* inst : c.instructions()) {
    if (!inst->control_predecessors().empty() ||
        !inst->control_successors().empty()) {
      return true;
    }
  }
  return false;
}

// Parameter 0 is read only through get-tuple-element.
bool ParameterOnlyThroughGte(const Computation& c) {
  const Instruction* p = c.parameter_instruction(0);
  if (p == nullptr || c.root_instruction() == p) return false;
  for (const Instruction* u : p->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

// A get-tuple-element of `c`'s parameter 0.
bool IsParameterElement(const Instruction& inst, const Computation& c) {
  return inst.opcode() == HloOpcode::kGetTupleElement &&
         inst.operand(0) == c.parameter_instruction(0);
}

// Removes a while (or another instruction whose side effects a rewrite has
// taken over) that has no users left, then operands left dead.
absl::Status RemoveReplaced(Instruction* inst) {
  std::vector<Instruction*> operands(inst->operands().begin(),
                                     inst->operands().end());
  const std::vector<Instruction*> preds = inst->control_predecessors();
  const std::vector<Instruction*> succs = inst->control_successors();
  for (Instruction* p : preds) {
    for (Instruction* s : succs) p->AddControlDependencyTo(s);
  }
  inst->DropAllControlDependencies();
  absl::Status s = inst->parent()->RemoveInstruction(inst);
  if (!s.ok()) return s;
  SideEffects side_effects;
  for (Instruction* op : operands) {
    absl::StatusOr<int64_t> removed = RemoveIfDead(op, &side_effects);
    if (!removed.ok()) return removed.status();
  }
  return absl::OkStatus();
}

// ---- Rebuilding loop computations ------------------------------------------

// Returns a replacement for an instruction of the source computation (built
// in `target` from the new parameter), or nullptr to clone it.
using Substitute = std::function<absl::StatusOr<Instruction*>(
    const Instruction& inst, Instruction* new_param, Computation* target)>;
using MakeRoot = std::function<absl::StatusOr<Instruction*>(
    const InstructionMap& map, Instruction* new_param, Computation* target)>;

// A copy of the one-parameter computation `source` whose parameter has
// `param_shape`. Instructions are cloned in post order, only those in
// `keep` when it is given; every use of the old parameter must be
// substituted.
absl::StatusOr<Computation*> RebuildLoopComputation(
    const Computation& source, Module* module, const Shape& param_shape,
    const absl::flat_hash_set<const Instruction*>* keep,
    const Substitute& substitute, const MakeRoot& make_root,
    bool rebuilds_root) {
  auto target = std::make_unique<Computation>(source.name());
  const Instruction* old_param = source.parameter_instruction(0);
  InstructionAttrs attrs;
  attrs.parameter_number = 0;
  auto param = Instruction::Create(HloOpcode::kParameter, param_shape, {},
                                   std::move(attrs));
  param->set_name(old_param->name());
  Instruction* new_param = target->AddInstruction(std::move(param));
  InstructionMap map;
  for (const Instruction* inst : source.MakeInstructionPostOrder()) {
    if (inst == old_param) continue;
    if (keep != nullptr && !keep->contains(inst)) continue;
    // The root is rebuilt by make_root; clone it only if it is used.
    if (inst == source.root_instruction() && inst->user_count() == 0 &&
        rebuilds_root) {
      continue;
    }
    absl::StatusOr<Instruction*> sub =
        substitute(*inst, new_param, target.get());
    if (!sub.ok()) return sub.status();
    if (*sub != nullptr) {
      map[inst] = *sub;
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands()) {
      auto it = map.find(op);
      if (it == map.end()) {
        return absl::InternalError(absl::StrCat(
            "while-loop simplifier: rebuilding ", source.name(), ": ",
            inst->name(), " needs ", op->name(), ", which was not kept"));
      }
      operands.push_back(it->second);
    }
    map[inst] = AddClone(target.get(), *inst, std::move(operands));
  }
  absl::StatusOr<Instruction*> root = make_root(map, new_param, target.get());
  if (!root.ok()) return root.status();
  target->set_root_instruction(*root);
  return module->AddComputation(std::move(target));
}

// Element indices of the parameter that `inst` reads, transitively.
absl::flat_hash_set<int64_t> ElementsRead(const Instruction* inst,
                                          const Computation& c) {
  absl::flat_hash_set<int64_t> read;
  absl::flat_hash_set<const Instruction*> seen = {inst};
  std::vector<const Instruction*> work = {inst};
  while (!work.empty()) {
    const Instruction* x = work.back();
    work.pop_back();
    if (IsParameterElement(*x, c)) {
      read.insert(x->tuple_index());
      continue;
    }
    for (const Instruction* op : x->operands()) {
      if (seen.insert(op).second) work.push_back(op);
    }
  }
  return read;
}

// ---- 1. Constant trip counts
// -------------------------------------------------

// What is known at compile time about a loop state: the whole value, or
// some tuple elements.
struct KnownState {
  std::optional<Literal> whole;
  absl::flat_hash_map<int64_t, Literal> elements;
  bool empty() const { return !whole.has_value() && elements.empty(); }
};

KnownState KnownFromInit(const Instruction& init) {
  KnownState known;
  if (init.opcode() == HloOpcode::kConstant) {
    known.whole = init.literal();
  } else if (init.opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < init.operand_count(); ++i) {
      if (init.operand(i)->opcode() == HloOpcode::kConstant) {
        known.elements.emplace(i, init.operand(i)->literal());
      }
    }
  }
  return known;
}

absl::flat_hash_map<const Instruction*, const Literal*> Bind(
    const Computation& c, const KnownState& known) {
  absl::flat_hash_map<const Instruction*, const Literal*> bound;
  const Instruction* p = c.parameter_instruction(0);
  if (known.whole.has_value()) {
    bound[p] = &*known.whole;
    return bound;
  }
  for (const Instruction* u : p->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) continue;
    auto it = known.elements.find(u->tuple_index());
    if (it != known.elements.end()) bound[u] = &it->second;
  }
  return bound;
}

std::optional<bool> EvaluateCondition(const Computation& cond,
                                      const KnownState& known) {
  if (known.empty()) return std::nullopt;
  std::optional<Literal> v =
      EvaluateSubgraph(*cond.root_instruction(), Bind(cond, known));
  if (!v.has_value() || !v->shape().IsScalar() ||
      v->shape().element_type() != PRED) {
    return std::nullopt;
  }
  return v->Get<bool>({});
}

KnownState Step(const Computation& body, const KnownState& known) {
  KnownState next;
  const auto bound = Bind(body, known);
  const Instruction* root = body.root_instruction();
  if (root->opcode() == HloOpcode::kTuple) {
    for (int64_t i = 0; i < root->operand_count(); ++i) {
      std::optional<Literal> v = EvaluateSubgraph(*root->operand(i), bound);
      if (v.has_value()) next.elements.emplace(i, std::move(*v));
    }
  } else {
    next.whole = EvaluateSubgraph(*root, bound);
  }
  return next;
}

enum class TripCountResult { kUnknown, kRemoved, kInlined };

absl::StatusOr<TripCountResult> SimplifyConstantTripCount(Instruction* w) {
  const Computation& cond = *w->while_condition();
  const Computation& body = *w->while_body();
  SideEffects side_effects;
  if (cond.num_parameters() != 1 || body.num_parameters() != 1 ||
      side_effects.ComputationHas(&cond)) {
    return TripCountResult::kUnknown;
  }
  const KnownState initial = KnownFromInit(*w->operand(0));
  const std::optional<bool> first = EvaluateCondition(cond, initial);
  if (!first.has_value()) return TripCountResult::kUnknown;
  if (!*first) {
    // Zero iterations: the loop's value is its initial value.
    absl::Status s = w->ReplaceAllUsesWith(w->mutable_operand(0));
    if (!s.ok()) return s;
    s = RemoveReplaced(w);
    if (!s.ok()) return s;
    return TripCountResult::kRemoved;
  }
  const std::optional<bool> second =
      EvaluateCondition(cond, Step(body, initial));
  if (!second.has_value() || *second) return TripCountResult::kUnknown;
  // One iteration: the body applied to the initial value.
  absl::StatusOr<Computation*> c = InlineCallSites(
      w->parent(), {w}, [](const Instruction& i) { return i.while_body(); });
  if (!c.ok()) return c.status();
  return TripCountResult::kInlined;
}

// Common preconditions of 2 and 3: a tuple state, a tuple body root that
// nothing else in the body reads, parameters read through
// get-tuple-element, no control dependencies.
bool HasSimpleTupleState(const Instruction& w) {
  const Computation& cond = *w.while_condition();
  const Computation& body = *w.while_body();
  return w.shape().IsTuple() && cond.num_parameters() == 1 &&
         body.num_parameters() == 1 &&
         body.root_instruction()->opcode() == HloOpcode::kTuple &&
         body.root_instruction()->user_count() == 0 &&
         w.control_predecessors().empty() && w.control_successors().empty() &&
         !HasControlDependencies(cond) && !HasControlDependencies(body) &&
         ParameterOnlyThroughGte(cond) && ParameterOnlyThroughGte(body);
}

// The elements of `init` as separate values: its operands if it is a tuple
// instruction, else new get-tuple-elements.
absl::StatusOr<std::vector<Instruction*>> InitElements(Instruction* init,
                                                       int64_t n) {
  std::vector<Instruction*> out;
  for (int64_t i = 0; i < n; ++i) {
    if (init->opcode() == HloOpcode::kTuple) {
      out.push_back(init->mutable_operand(i));
      continue;
    }
    absl::StatusOr<Instruction*> gte = AddGte(init->parent(), init, i);
    if (!gte.ok()) return gte.status();
    out.push_back(*gte);
  }
  return out;
}

absl::StatusOr<Instruction*> AddWhile(Computation* c, Instruction* init,
                                      const Instruction& original,
                                      Computation* cond, Computation* body) {
  return AddInstruction(c, HloOpcode::kWhile, {init}, original.attrs(),
                        {cond, body}, nullptr, original.name());
}

// ---- 2. Dead tuple elements
// --------------------------------------------------

absl::StatusOr<bool> RemoveDeadElements(Instruction* w) {
  Computation* c = w->parent();
  if (!HasSimpleTupleState(*w) || c->root_instruction() == w) return false;
  const Computation& cond = *w->while_condition();
  const Computation& body = *w->while_body();
  const Instruction* root = body.root_instruction();
  const int64_t n = w->shape().tuple_shapes_size();

  std::vector<bool> live(n, false);
  std::vector<int64_t> work;
  auto mark = [&](int64_t i) {
    if (!live[i]) {
      live[i] = true;
      work.push_back(i);
    }
  };
  for (const Instruction* u : w->users()) {
    if (u->opcode() != HloOpcode::kGetTupleElement) return false;
    mark(u->tuple_index());
  }
  for (const Instruction* u : cond.parameter_instruction(0)->users()) {
    mark(u->tuple_index());
  }
  SideEffects side_effects;
  std::vector<const Instruction*> effects;
  for (const Instruction* inst : body.instructions()) {
    if (side_effects.Has(*inst)) {
      effects.push_back(inst);
      for (int64_t i : ElementsRead(inst, body)) mark(i);
    }
  }
  while (!work.empty()) {
    const int64_t j = work.back();
    work.pop_back();
    for (int64_t i : ElementsRead(root->operand(j), body)) mark(i);
  }
  std::vector<int64_t> kept;
  std::vector<int64_t> new_index(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    if (live[i]) {
      new_index[i] = static_cast<int64_t>(kept.size());
      kept.push_back(i);
    }
  }
  if (static_cast<int64_t>(kept.size()) == n) return false;

  auto narrow = [&](const Shape& tuple) {
    std::vector<Shape> elements;
    for (int64_t i : kept) elements.push_back(tuple.tuple_shapes(i));
    return Shape(std::move(elements));
  };
  Substitute remap = [&](const Instruction& inst, Instruction* param,
                         Computation* target) -> absl::StatusOr<Instruction*> {
    const Computation& source = *inst.parent();
    if (!IsParameterElement(inst, source)) return nullptr;
    const int64_t j = new_index[inst.tuple_index()];
    if (j < 0) {
      return absl::InternalError(
          absl::StrCat("while-loop simplifier: dead element ",
                       inst.tuple_index(), " is read by ", inst.name()));
    }
    return AddGte(target, param, j, inst.name());
  };

  // The body keeps what the live outputs and the side effects need.
  absl::flat_hash_set<const Instruction*> needed;
  std::vector<const Instruction*> stack;
  for (int64_t i : kept) stack.push_back(root->operand(i));
  stack.insert(stack.end(), effects.begin(), effects.end());
  while (!stack.empty()) {
    const Instruction* x = stack.back();
    stack.pop_back();
    if (!needed.insert(x).second || IsParameterElement(*x, body)) continue;
    for (const Instruction* op : x->operands()) stack.push_back(op);
  }
  Module* module = c->parent();
  absl::StatusOr<Computation*> new_body = RebuildLoopComputation(
      body, module, narrow(body.parameter_instruction(0)->shape()), &needed,
      remap,
      [&](const InstructionMap& map, Instruction*,
          Computation* target) -> absl::StatusOr<Instruction*> {
        std::vector<Instruction*> elements;
        for (int64_t i : kept) elements.push_back(map.at(root->operand(i)));
        return AddInstruction(target, HloOpcode::kTuple, std::move(elements),
                              {}, {}, nullptr, root->name());
      },
      /*rebuilds_root=*/true);
  if (!new_body.ok()) return new_body.status();
  absl::StatusOr<Computation*> new_cond = RebuildLoopComputation(
      cond, module, narrow(cond.parameter_instruction(0)->shape()), nullptr,
      remap,
      [&](const InstructionMap& map, Instruction*,
          Computation*) -> absl::StatusOr<Instruction*> {
        return map.at(cond.root_instruction());
      },
      /*rebuilds_root=*/false);
  if (!new_cond.ok()) return new_cond.status();

  Instruction* init = w->mutable_operand(0);
  absl::StatusOr<std::vector<Instruction*>> elements = InitElements(init, n);
  if (!elements.ok()) return elements.status();
  std::vector<Instruction*> kept_elements;
  for (int64_t i : kept) kept_elements.push_back((*elements)[i]);
  absl::StatusOr<Instruction*> new_init =
      AddInstruction(c, HloOpcode::kTuple, std::move(kept_elements));
  if (!new_init.ok()) return new_init.status();
  absl::StatusOr<Instruction*> new_w =
      AddWhile(c, *new_init, *w, *new_cond, *new_body);
  if (!new_w.ok()) return new_w.status();

  const std::vector<Instruction*> users = w->users();
  for (Instruction* u : users) {
    absl::StatusOr<Instruction*> gte =
        AddGte(c, *new_w, new_index[u->tuple_index()]);
    if (!gte.ok()) return gte.status();
    *(*gte)->mutable_shape() = u->shape();
    // Not ReplaceInstruction: it could remove `w` (its last user gone)
    // before RemoveReplaced below.
    absl::Status s = u->ReplaceAllUsesWith(*gte);
    if (!s.ok()) return s;
    const std::vector<Instruction*> preds = u->control_predecessors();
    const std::vector<Instruction*> succs = u->control_successors();
    for (Instruction* p : preds) {
      for (Instruction* q : succs) p->AddControlDependencyTo(q);
    }
    u->DropAllControlDependencies();
    s = c->RemoveInstruction(u);
    if (!s.ok()) return s;
  }
  // Get-tuple-elements of the old init made for elements that are dead
  // (while `w` still uses the init, so only they can go).
  if (init->opcode() != HloOpcode::kTuple) {
    SideEffects none;
    for (Instruction* e : *elements) {
      absl::StatusOr<int64_t> removed = RemoveIfDead(e, &none);
      if (!removed.ok()) return removed.status();
    }
  }
  absl::Status s = RemoveReplaced(w);
  if (!s.ok()) return s;
  return true;
}

// ---- 3. Loop-invariant code motion
// -------------------------------------------

bool ShapeHasToken(const Shape& s) {
  if (s.IsToken()) return true;
  for (const Shape& e : s.tuple_shapes()) {
    if (ShapeHasToken(e)) return true;
  }
  return false;
}

// Cheap to recompute or growing the state if hoisted.
bool NotWorthHoisting(HloOpcode op) {
  switch (op) {
    case HloOpcode::kConstant:
    case HloOpcode::kIota:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kParameter:
    case HloOpcode::kTuple:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kAfterAll:
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<bool> HoistInvariants(Instruction* w) {
  if (!HasSimpleTupleState(*w)) return false;
  Computation* c = w->parent();
  const Computation& cond = *w->while_condition();
  const Computation& body = *w->while_body();
  const Instruction* root = body.root_instruction();
  const int64_t n = w->shape().tuple_shapes_size();
  const std::vector<Instruction*> order = body.MakeInstructionPostOrder();

  SideEffects side_effects;
  absl::flat_hash_set<const Instruction*> invariant;
  for (const Instruction* inst : order) {
    if (inst->opcode() == HloOpcode::kParameter || inst == root ||
        ShapeHasToken(inst->shape())) {
      continue;
    }
    if (IsParameterElement(*inst, body)) {
      const int64_t i = inst->tuple_index();
      const Instruction* out = root->operand(i);
      if (IsParameterElement(*out, body) && out->tuple_index() == i) {
        invariant.insert(inst);
      }
      continue;
    }
    if (inst->opcode() == HloOpcode::kCustomCall || side_effects.Has(*inst)) {
      continue;
    }
    bool all = true;
    for (const Instruction* op : inst->operands())
      all &= invariant.contains(op);
    if (all) invariant.insert(inst);
  }
  std::vector<const Instruction*> hoisted;
  for (const Instruction* inst : order) {
    if (!invariant.contains(inst) || NotWorthHoisting(inst->opcode())) {
      continue;
    }
    bool variant_user = false;
    for (const Instruction* u : inst->users()) {
      variant_user |= !invariant.contains(u);
    }
    if (variant_user) hoisted.push_back(inst);
  }
  if (hoisted.empty()) return false;

  // Compute the hoisted values before the loop: clone the invariant
  // instructions they need, with state elements read from the init.
  Instruction* init = w->mutable_operand(0);
  absl::StatusOr<std::vector<Instruction*>> elements = InitElements(init, n);
  if (!elements.ok()) return elements.status();
  absl::flat_hash_set<const Instruction*> needed;
  std::vector<const Instruction*> stack(hoisted.begin(), hoisted.end());
  while (!stack.empty()) {
    const Instruction* x = stack.back();
    stack.pop_back();
    if (!needed.insert(x).second || IsParameterElement(*x, body)) continue;
    for (const Instruction* op : x->operands()) stack.push_back(op);
  }
  InstructionMap outside;
  for (const Instruction* inst : order) {
    if (!needed.contains(inst)) continue;
    if (IsParameterElement(*inst, body)) {
      outside[inst] = (*elements)[inst->tuple_index()];
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* op : inst->operands()) {
      operands.push_back(outside.at(op));
    }
    outside[inst] = AddClone(c, *inst, std::move(operands));
  }

  absl::flat_hash_map<const Instruction*, int64_t> slot;
  std::vector<Instruction*> new_elements = *elements;
  for (const Instruction* h : hoisted) {
    slot[h] = n + static_cast<int64_t>(slot.size());
    new_elements.push_back(outside.at(h));
  }
  auto widen = [&](const Shape& tuple) {
    std::vector<Shape> shapes = tuple.tuple_shapes();
    for (const Instruction* h : hoisted) shapes.push_back(h->shape());
    return Shape(std::move(shapes));
  };
  Substitute remap = [&](const Instruction& inst, Instruction* param,
                         Computation* target) -> absl::StatusOr<Instruction*> {
    if (IsParameterElement(inst, *inst.parent())) {
      return AddGte(target, param, inst.tuple_index(), inst.name());
    }
    auto it = slot.find(&inst);
    if (it == slot.end()) return nullptr;
    return AddGte(target, param, it->second, inst.name());
  };
  Module* module = c->parent();
  absl::StatusOr<Computation*> new_body = RebuildLoopComputation(
      body, module, widen(body.parameter_instruction(0)->shape()), nullptr,
      remap,
      [&](const InstructionMap& map, Instruction*,
          Computation* target) -> absl::StatusOr<Instruction*> {
        std::vector<Instruction*> outs;
        for (int64_t i = 0; i < n; ++i) {
          outs.push_back(map.at(root->operand(i)));
        }
        // A hoisted value passes through unchanged: its stand-in, the
        // get-tuple-element of its new slot.
        for (const Instruction* h : hoisted) outs.push_back(map.at(h));
        return AddInstruction(target, HloOpcode::kTuple, std::move(outs), {},
                              {}, nullptr, root->name());
      },
      /*rebuilds_root=*/true);
  if (!new_body.ok()) return new_body.status();
  absl::StatusOr<Computation*> new_cond = RebuildLoopComputation(
      cond, module, widen(cond.parameter_instruction(0)->shape()), nullptr,
      remap,
      [&](const InstructionMap& map, Instruction*,
          Computation*) -> absl::StatusOr<Instruction*> {
        return map.at(cond.root_instruction());
      },
      /*rebuilds_root=*/false);
  if (!new_cond.ok()) return new_cond.status();

  absl::StatusOr<Instruction*> new_init =
      AddInstruction(c, HloOpcode::kTuple, std::move(new_elements));
  if (!new_init.ok()) return new_init.status();
  absl::StatusOr<Instruction*> new_w =
      AddWhile(c, *new_init, *w, *new_cond, *new_body);
  if (!new_w.ok()) return new_w.status();
  // The old loop's value: the first n elements of the new one.
  std::vector<Instruction*> outs;
  for (int64_t i = 0; i < n; ++i) {
    absl::StatusOr<Instruction*> gte = AddGte(c, *new_w, i);
    if (!gte.ok()) return gte.status();
    outs.push_back(*gte);
  }
  absl::StatusOr<Instruction*> value =
      AddInstruction(c, HloOpcode::kTuple, std::move(outs));
  if (!value.ok()) return value.status();
  *(*value)->mutable_shape() = w->shape();
  absl::Status s = w->ReplaceAllUsesWith(*value);
  if (!s.ok()) return s;
  s = RemoveReplaced(w);
  if (!s.ok()) return s;
  return true;
}

absl::StatusOr<bool> RunOnce(Module& module) {
  bool changed = false;
  for (Computation* c : module.MakeComputationPostOrder()) {
    std::vector<Instruction*> whiles;
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      if (inst->opcode() == HloOpcode::kWhile &&
          inst->while_condition() != nullptr && inst->while_body() != nullptr) {
        whiles.push_back(inst);
      }
    }
    for (Instruction* w : whiles) {
      absl::StatusOr<TripCountResult> trip = SimplifyConstantTripCount(w);
      if (!trip.ok()) return trip.status();
      if (*trip == TripCountResult::kInlined) {
        // The computation may have been rebuilt; the rest of its loops
        // wait for the next round.
        changed = true;
        break;
      }
      if (*trip == TripCountResult::kRemoved) {
        changed = true;
        continue;
      }
      // Both rewrites put a new while at the end of the computation; a
      // loop with side effects (an rng inside) must keep its place among
      // the other side effects, so the computation is then rebuilt in the
      // recorded order.
      const bool has_side_effects = SideEffects().Has(*w);
      const std::vector<int64_t> before =
          has_side_effects ? ExecutionOrderIds(*c) : std::vector<int64_t>();
      const int64_t id = w->unique_id();
      absl::StatusOr<bool> r = RemoveDeadElements(w);
      if (!r.ok()) return r.status();
      if (!*r) {
        r = HoistInvariants(w);
        if (!r.ok()) return r.status();
      }
      if (!*r) continue;
      changed = true;
      if (has_side_effects) {
        absl::StatusOr<Computation*> rebuilt =
            RestoreExecutionOrder(c, before, id);
        if (!rebuilt.ok()) return rebuilt.status();
        break;  // `c` is gone; its other loops wait for the next round
      }
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> WhileLoopSimplifier::Run(Module& module) {
  bool changed = false;
  // Each round may expose more (a loop freed of dead elements may now
  // have invariants); a few rounds reach the fixpoint in practice.
  for (int round = 0; round < 8; ++round) {
    absl::StatusOr<bool> r = RunOnce(module);
    if (!r.ok()) return r.status();
    if (!*r) break;
    changed = true;
  }
  return changed;
}

}  // namespace plexa
