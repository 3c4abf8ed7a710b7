#include "plugins/common/thunk_emitter.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/all_gather_thunk.h"
#include "plugins/common/all_reduce_thunk.h"
#include "plugins/common/all_to_all_thunk.h"
#include "plugins/common/buffer_assignment.h"
#include "plugins/common/collective_broadcast_thunk.h"
#include "plugins/common/collective_permute_thunk.h"
#include "plugins/common/control_flow_thunks.h"
#include "plugins/common/fft_topk_thunks.h"
#include "plugins/common/ragged_all_to_all_thunk.h"
#include "plugins/common/reducer.h"
#include "plugins/common/reference_thunk.h"
#include "plugins/common/rng_state_thunk.h"

namespace plexa::backend {

int ThunkEmitter::NewSlot(CompiledComputation& cc, const Shape& shape,
                          SlotKind kind) {
  Slot s;
  s.shape = WithLayout(shape);
  s.bytes = SlotBytes(s.shape);
  s.kind = kind;
  cc.slots.push_back(std::move(s));
  return static_cast<int>(cc.slots.size()) - 1;
}

std::vector<int> ThunkEmitter::NewLeaves(CompiledComputation& cc,
                                         const Shape& shape) {
  std::vector<Shape> leaves;
  FlattenLeafShapes(shape, &leaves);
  std::vector<int> out;
  for (const Shape& l : leaves) out.push_back(NewSlot(cc, l, SlotKind::kTemp));
  return out;
}

namespace {

// The leaves of `shape` (an array or a tuple of arrays), in order.
std::vector<Shape> Leaves(const Shape& shape) {
  std::vector<Shape> out;
  FlattenLeafShapes(shape, &out);
  return out;
}

}  // namespace

void ThunkEmitter::AddRuntimeThunk(CompiledComputation& cc,
                                   const Instruction& h,
                                   std::unique_ptr<Thunk> t) {
  t->inputs = OperandLeaves(h);
  t->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = t->outputs;
  Add(cc, std::move(t));
  ++stats_->runtime_thunks;
}

std::vector<int> ThunkEmitter::OperandLeaves(const Instruction& h) {
  std::vector<int> out;
  for (const Instruction* op : h.operands()) {
    const std::vector<int>& l = leaves_[op];
    out.insert(out.end(), l.begin(), l.end());
  }
  return out;
}

absl::StatusOr<CompiledComputation*> ThunkEmitter::Compile(const Computation& c,
                                                           bool is_entry) {
  if (auto it = compiled_.find(&c); it != compiled_.end()) return it->second;
  auto owned = std::make_unique<CompiledComputation>();
  CompiledComputation& cc = *owned;
  cc.computation = &c;
  cc.id = static_cast<int>(computations_.size());
  computations_.push_back(std::move(owned));
  compiled_[&c] = &cc;

  // Parameters first: their leaves are numbered in order.
  int64_t param_leaf = 0;
  for (const Instruction* p : c.parameter_instructions()) {
    std::vector<Shape> shapes;
    FlattenLeafShapes(p->shape(), &shapes);
    std::vector<int> ls;
    for (const Shape& s : shapes) {
      const int slot = NewSlot(cc, s, SlotKind::kParameter);
      cc.slots[slot].index = param_leaf++;
      cc.param_leaves.push_back(slot);
      ls.push_back(slot);
    }
    leaves_[p] = std::move(ls);
  }
  for (const Instruction* h : c.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kParameter) continue;
    const size_t first = cc.thunks.size();
    if (absl::Status s = EmitInstruction(cc, *h); !s.ok()) return s;
    // What a profile calls the thunks of `h` (a backend may name them
    // itself).
    for (size_t i = first; i < cc.thunks.size(); ++i) {
      Thunk& t = *cc.thunks[i];
      if (t.name.empty()) t.name = h->name();
      if (t.kind.empty()) t.kind = std::string(HloOpcodeString(h->opcode()));
    }
  }
  MakeUpdatesInPlace(cc, c, !is_entry && OnlyAWhileBody(c));
  // Results: a leaf that is a parameter, a constant or repeated is copied
  // into a fresh temporary, so a computation's results never alias its
  // inputs or each other (while bodies rely on it).
  std::vector<int> roots = leaves_[c.root_instruction()];
  absl::flat_hash_map<int, int> seen;
  for (size_t i = 0; i < roots.size(); ++i) {
    // A copy: NewSlot below may move the slots.
    const Slot slot = cc.slots[roots[i]];
    const bool fresh = slot.kind == SlotKind::kTemp && !seen.contains(roots[i]);
    seen[roots[i]] = 1;
    if (fresh) continue;
    if (!is_entry && slot.kind == SlotKind::kParameter &&
        slot.index == static_cast<int64_t>(i)) {
      continue;  // passes straight through (the while state stays put)
    }
    const int copy = NewSlot(cc, slot.shape, SlotKind::kTemp);
    Add(cc, std::make_unique<CopyThunk>(roots[i], copy, slot.bytes));
    roots[i] = copy;
  }
  cc.result_leaves = roots;
  if (is_entry) {
    // The caller's result buffers are the array leaves (tokens have none).
    int64_t next = 0;
    for (int root : roots) {
      if (cc.slots[root].shape.IsToken()) continue;
      cc.slots[root].kind = SlotKind::kResult;
      cc.slots[root].index = next++;
    }
  }
  if (absl::Status s = AssignBuffersFor(cc); !s.ok()) return s;
  return &cc;
}

absl::Status ThunkEmitter::AssignBuffersFor(CompiledComputation& cc) {
  const int64_t n = static_cast<int64_t>(cc.slots.size());
  std::vector<int64_t> def(n, -1), last(n, -1);
  for (size_t t = 0; t < cc.thunks.size(); ++t) {
    for (int s : cc.thunks[t]->outputs) {
      if (def[s] == -1) def[s] = static_cast<int64_t>(t);
      last[s] = std::max<int64_t>(last[s], static_cast<int64_t>(t));
    }
    for (int s : cc.thunks[t]->inputs) {
      last[s] = std::max<int64_t>(last[s], static_cast<int64_t>(t));
    }
  }
  const int64_t end = static_cast<int64_t>(cc.thunks.size());
  for (int s : cc.result_leaves) last[s] = end;
  std::vector<LiveValue> values;
  std::vector<int> which;
  for (int64_t s = 0; s < n; ++s) {
    if (cc.slots[s].kind != SlotKind::kTemp) continue;
    LiveValue v;
    v.bytes = cc.slots[s].bytes;
    v.def = def[s] == -1 ? 0 : def[s];
    v.last_use = std::max(v.def, last[s]);
    values.push_back(v);
    which.push_back(static_cast<int>(s));
  }
  BufferAssignment a = AssignBuffers(values);
  for (size_t i = 0; i < which.size(); ++i) {
    cc.slots[which[i]].offset = a.offsets[i];
  }
  cc.arena_bytes = a.arena_bytes;
  cc.unshared_bytes = a.total_bytes;
  stats_->peak_temp_bytes += a.arena_bytes;
  stats_->unshared_temp_bytes += a.total_bytes;
  return absl::OkStatus();
}

// A dynamic-update-slice or a scatter (Thunk::CanUpdateInPlace) may write
// into its operand's buffer instead of a copy when no thunk after it reads
// that buffer (the operand is dead), the
// buffer is not a result of the computation, and it is a temporary of this
// computation or, in a while body, the loop state (WhileThunk hands the body
// its own state buffers; the condition has already run). The result then
// IS that buffer: later readers of the result and the computation's results
// are renamed to it. A scan's carried array is updated in place this way,
// and passes straight through the body (no copy per iteration).
void ThunkEmitter::MakeUpdatesInPlace(CompiledComputation& cc,
                                      const Computation& c,
                                      bool parameters_writable) {
  for (size_t p = 0; p < cc.thunks.size(); ++p) {
    Thunk* t = cc.thunks[p].get();
    if (!t->CanUpdateInPlace()) continue;
    const int s = t->inputs[0];
    const int r = t->outputs[0];
    const SlotKind kind = cc.slots[s].kind;
    if (kind != SlotKind::kTemp &&
        !(parameters_writable && kind == SlotKind::kParameter)) {
      continue;
    }
    const std::vector<int>& roots = leaves_[c.root_instruction()];
    bool read = std::find(roots.begin(), roots.end(), s) != roots.end();
    for (size_t i = 1; i < t->inputs.size(); ++i) read |= t->inputs[i] == s;
    for (size_t q = p + 1; q < cc.thunks.size() && !read; ++q) {
      for (int i : cc.thunks[q]->inputs) read |= i == s;
    }
    if (read) continue;
    for (size_t q = p + 1; q < cc.thunks.size(); ++q) {
      for (int& i : cc.thunks[q]->inputs) {
        if (i == r) i = s;
      }
    }
    for (const Instruction* inst : c.instructions()) {
      auto it = leaves_.find(inst);
      if (it == leaves_.end()) continue;
      for (int& l : it->second) {
        if (l == r) l = s;
      }
    }
    t->outputs[0] = s;
    cc.slots[r].bytes = 0;  // never used now
    ++stats_->in_place_updates;
  }
}

bool ThunkEmitter::OnlyAWhileBody(const Computation& c) {
  bool body = false;
  for (const Computation* other : c.parent()->computations()) {
    for (const Instruction* inst : other->instructions()) {
      for (const Computation* called : inst->called_computations()) {
        if (called != &c) continue;
        if (inst->opcode() == HloOpcode::kWhile && inst->while_body() == &c &&
            inst->while_condition() != &c) {
          body = true;
        } else {
          return false;
        }
      }
    }
  }
  return body;
}

void ThunkEmitter::EmitReference(CompiledComputation& cc,
                                 const Instruction& h) {
  auto t = std::make_unique<ReferenceThunk>(&h);
  t->inputs = OperandLeaves(h);
  t->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = t->outputs;
  Add(cc, std::move(t));
  ++stats_->reference_thunks;
  const std::string op(HloOpcodeString(h.opcode()));
  if (std::find(stats_->reference_ops.begin(), stats_->reference_ops.end(),
                op) == stats_->reference_ops.end()) {
    stats_->reference_ops.push_back(op);
  }
}

absl::Status ThunkEmitter::EmitInstruction(CompiledComputation& cc,
                                           const Instruction& h) {
  switch (h.opcode()) {
    case HloOpcode::kTuple:
      leaves_[&h] = OperandLeaves(h);
      return absl::OkStatus();
    case HloOpcode::kOptimizationBarrier:
      leaves_[&h] = OperandLeaves(h);  // a copy (inserting may rehash)
      return absl::OkStatus();
    case HloOpcode::kGetTupleElement: {
      const Shape& ts = h.operand(0)->shape();
      int64_t start = 0;
      for (int64_t i = 0; i < h.tuple_index(); ++i) {
        start += LeafCount(ts.tuple_shapes(i));
      }
      const std::vector<int>& all = leaves_[h.operand(0)];
      const int64_t count = LeafCount(h.shape());
      leaves_[&h] =
          std::vector<int>(all.begin() + start, all.begin() + start + count);
      return absl::OkStatus();
    }
    case HloOpcode::kConstant:
      return EmitConstant(cc, h);
    case HloOpcode::kWhile: {
      absl::StatusOr<CompiledComputation*> cond =
          Compile(*h.while_condition(), false);
      if (!cond.ok()) return cond.status();
      absl::StatusOr<CompiledComputation*> body =
          Compile(*h.while_body(), false);
      if (!body.ok()) return body.status();
      auto t = std::make_unique<WhileThunk>(*cond, *body);
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kConditional:
    case HloOpcode::kCall: {
      const bool is_call = h.opcode() == HloOpcode::kCall;
      std::vector<const CompiledComputation*> branches;
      for (const Computation* c : h.called_computations()) {
        absl::StatusOr<CompiledComputation*> b = Compile(*c, false);
        if (!b.ok()) return b.status();
        branches.push_back(*b);
      }
      std::vector<int> branch_leaves;
      std::vector<int> inputs;
      if (is_call) {
        inputs = OperandLeaves(h);
        branch_leaves.push_back(static_cast<int>(inputs.size()));
      } else {
        inputs = leaves_[h.operand(0)];
        for (int64_t i = 1; i < h.operand_count(); ++i) {
          const std::vector<int>& l = leaves_[h.operand(i)];
          inputs.insert(inputs.end(), l.begin(), l.end());
          branch_leaves.push_back(static_cast<int>(l.size()));
        }
      }
      const bool pred = !is_call && h.operand(0)->shape().element_type() ==
                                        PrimitiveType::PRED;
      auto t = std::make_unique<BranchThunk>(
          std::move(branches), std::move(branch_leaves), !is_call, pred);
      t->inputs = std::move(inputs);
      t->outputs = NewLeaves(cc, h.shape());
      leaves_[&h] = t->outputs;
      Add(cc, std::move(t));
      ++stats_->runtime_thunks;
      return absl::OkStatus();
    }
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return EmitAllReduce(cc, h);
    case HloOpcode::kAllGatherStart:
      return EmitAllGatherOrReduceScatter(cc, h);
    case HloOpcode::kCollectivePermuteStart:
      return EmitCollectivePermute(cc, h);
    case HloOpcode::kAllReduceDone:
      // The -start computed (synchronously): its leaves.
      leaves_[&h] = leaves_[h.operand(0)];
      return absl::OkStatus();
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone: {
      // Element 1 of the -start's leaves: what it computed.
      const Shape& start = h.operand(0)->shape();
      const size_t skip = Leaves(start.tuple_shapes(0)).size();
      const size_t take = Leaves(start.tuple_shapes(1)).size();
      const std::vector<int>& l = leaves_[h.operand(0)];
      leaves_[&h] = std::vector<int>(l.begin() + skip, l.begin() + skip + take);
      return absl::OkStatus();
    }
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
      return EmitAllGatherOrReduceScatter(cc, h);
    case HloOpcode::kCollectivePermute:
      return EmitCollectivePermute(cc, h);
    case HloOpcode::kCollectiveBroadcast:
      return EmitCollectiveBroadcast(cc, h);
    case HloOpcode::kAllToAll:
      return EmitAllToAll(cc, h);
    case HloOpcode::kCollectiveReduce:
      return EmitCollectiveReduce(cc, h);
    case HloOpcode::kRaggedAllToAll:
      return EmitRaggedAllToAll(cc, h);
    case HloOpcode::kFft:
    case HloOpcode::kTopK:
      return EmitFftOrTopK(cc, h);
    case HloOpcode::kRngGetAndUpdateState:
      // Host state that outlives the run: the thunk keeps it.
      AddRuntimeThunk(
          cc, h,
          std::make_unique<RngGetAndUpdateStateThunk>(h.attrs().rng_delta));
      return absl::OkStatus();
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      // The default pipeline's send-recv-lowering runs channels as
      // collective-permute (CollectivePermuteThunk), the send's value, or
      // infeed/outfeed; one that reaches the emitter was not lowered.
      return absl::UnimplementedError(absl::StrCat(
          "instruction '", h.name(), "' (", HloOpcodeString(h.opcode()),
          ") reached the thunk emitter: channels run only after the "
          "send-recv-lowering pass (core/passes/send_recv_lowering.h)"));
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
      // Through the evaluator, which talks to the execution's HostFeeds
      // (ExecContext::feeds): feeds are host round trips, not kernels.
      EmitReference(cc, h);
      ++stats_->runtime_thunks;
      return absl::OkStatus();
    default:
      return EmitBackendInstruction(cc, h);
  }
}

absl::Status ThunkEmitter::EmitConstant(CompiledComputation& cc,
                                        const Instruction& h) {
  const Literal& lit = h.literal();
  std::vector<Literal> leaf_values;
  std::function<void(const Literal&)> flatten = [&](const Literal& l) {
    if (l.shape().IsTuple()) {
      for (Literal& e : Literal(l).DecomposeTuple()) flatten(e);
    } else {
      leaf_values.push_back(Literal(l));
    }
  };
  flatten(lit);
  std::vector<Shape> shapes;
  FlattenLeafShapes(h.shape(), &shapes);
  std::vector<int> ls;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Literal v = std::move(leaf_values[i]);
    const Layout want = LayoutUtil::EffectiveLayout(shapes[i]);
    if (shapes[i].IsArray() &&
        !(LayoutUtil::EffectiveLayout(v.shape()) == want)) {
      absl::StatusOr<Literal> relaid = v.Relayout(want);
      if (!relaid.ok()) return relaid.status();
      v = std::move(*relaid);
    }
    constants_.push_back(std::make_unique<Literal>(std::move(v)));
    const int slot = NewSlot(cc, shapes[i], SlotKind::kConstant);
    cc.slots[slot].constant = constants_.back()->data().data();
    ls.push_back(slot);
  }
  leaves_[&h] = std::move(ls);
  return absl::OkStatus();
}

namespace {

// The reducer of an all-reduce or reduce-scatter when the toolkit's
// thunks apply it to every leaf: add, multiply, maximum, minimum, and, or
// (reducer.h) on dense f32, f64, integers and pred (and/or not on floats).
std::optional<HloOpcode> NativeReducer(const Instruction& h,
                                       const std::vector<Shape>& leaves) {
  const std::optional<MatchedReducer> reducer = MatchReducer(*h.to_apply());
  if (!reducer.has_value()) return std::nullopt;
  const HloOpcode r = reducer->opcode;
  for (const Shape& s : leaves) {
    const PrimitiveType et = s.element_type();
    const bool type_ok = et == PrimitiveType::F32 || et == PrimitiveType::F64 ||
                         primitive_util::IsIntegralType(et) ||
                         et == PrimitiveType::PRED;
    const bool bitwise_on_float =
        (r == HloOpcode::kAnd || r == HloOpcode::kOr) &&
        primitive_util::IsFloatingPointType(et);
    if (!type_ok || bitwise_on_float || !ShapeUtil::IsDenseArray(s)) {
      return std::nullopt;
    }
  }
  return r;
}

// A collective that copies its array operands' bytes (collective-permute,
// collective-broadcast): operand i and result `out` have one layout (layout
// assignment gives both the default).
absl::Status CheckBytesMove(const Instruction& h, const Shape& out,
                            int64_t i = 0) {
  const Shape& in = h.operand(i)->shape();
  if (!out.IsArray() || !in.IsArray() ||
      !(LayoutUtil::EffectiveLayout(in) == LayoutUtil::EffectiveLayout(out)) ||
      ShapeUtil::ByteSizeOf(in) != ShapeUtil::ByteSizeOf(out)) {
    return absl::InternalError(absl::StrCat(
        h.name(), ": ", HloOpcodeString(h.opcode()), " of ", in.ToString(),
        " to ", out.ToString(), " changes the layout"));
  }
  return absl::OkStatus();
}

// The leaves of h's operands, in order.
std::vector<Shape> OperandLeafShapes(const Instruction& h) {
  std::vector<Shape> out;
  for (const Instruction* op : h.operands())
    FlattenLeafShapes(op->shape(), &out);
  return out;
}

absl::Status UnsupportedReducer(const Instruction& h) {
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": ", HloOpcodeString(h.opcode()),
      " across replicas supports the reducers add, multiply, maximum, "
      "minimum, and, or on f32, f64, integers and pred; this one applies ",
      h.to_apply()->name()));
}

// all-gather and reduce-scatter move rows of row-major buffers (layout
// assignment gives their operands and results the default layout).
absl::Status CheckRowMajor(const Instruction& h,
                           const std::vector<Shape>& leaves) {
  for (const Shape& s : leaves) {
    if (s.has_layout() && (!LayoutUtil::IsMonotonicWithDim0Major(s.layout()) ||
                           !ShapeUtil::IsDenseArray(s))) {
      return absl::InternalError(
          absl::StrCat(h.name(), ": ", HloOpcodeString(h.opcode()),
                       " needs the default layout; got ", s.ToString(),
                       " (layout assignment did not run?)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// A reducing collective whose reducer the thunks do not apply: where every
// group is one device (the identity, or its one piece) the evaluator runs
// it; across devices it is refused.
absl::Status ThunkEmitter::EmitOnOneReplica(
    CompiledComputation& cc, const Instruction& h,
    const std::vector<std::vector<int64_t>>& groups) {
  for (const std::vector<int64_t>& g : groups) {
    if (g.size() != 1) return UnsupportedReducer(h);
  }
  EmitReference(cc, h);
  return absl::OkStatus();
}

void ThunkEmitter::AddCollectiveThunk(CompiledComputation& cc,
                                      const Instruction& h,
                                      std::unique_ptr<Thunk> t) {
  t->inputs = OperandLeaves(h);
  t->outputs = NewLeaves(cc, CollectiveResultShape(h));
  std::vector<int> leaves = t->outputs;
  if (h.opcode() == HloOpcode::kAllGatherStart ||
      h.opcode() == HloOpcode::kCollectivePermuteStart) {
    // A -start's tuple: its operands, what it computes, and
    // (collective-permute-start) two u32[] contexts, zero.
    leaves = t->inputs;
    leaves.insert(leaves.end(), t->outputs.begin(), t->outputs.end());
    for (int64_t i = 2; i < h.shape().tuple_shapes_size(); ++i) {
      const Shape& context = h.shape().tuple_shapes(i);
      constants_.push_back(std::make_unique<Literal>(context));
      const int slot = NewSlot(cc, context, SlotKind::kConstant);
      cc.slots[slot].constant = constants_.back()->data().data();
      leaves.push_back(slot);
    }
  }
  leaves_[&h] = std::move(leaves);
  Add(cc, std::move(t));
  ++stats_->runtime_thunks;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> ThunkEmitter::DeviceGroupsOf(
    const Instruction& h) const {
  // Every device a group names must run (CollectiveDeviceGroups checks),
  // and every device that runs must be in a group (the evaluator's rules):
  // otherwise a collective would silently act on a subset, or a device
  // left out would wait for the others at a meeting they never join.
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                         CollectiveDeviceGroups(h, grid_));
  std::vector<bool> named(grid_.size(), false);
  for (const std::vector<int64_t>& g : groups) {
    for (int64_t d : g) named[d] = true;
  }
  for (int64_t d = 0; d < grid_.size(); ++d) {
    if (!named[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(h.name(), ": ", grid_.Name(d), " of the ", grid_.size(),
                       " device(s) that run is in none of the replica_groups"));
    }
  }
  return groups;
}

absl::Status ThunkEmitter::EmitAllReduce(CompiledComputation& cc,
                                         const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  std::vector<Shape> shapes = Leaves(h.shape());
  const std::optional<HloOpcode> r = NativeReducer(h, shapes);
  if (!r.has_value()) return EmitOnOneReplica(cc, h, groups);
  AddRuntimeThunk(cc, h,
                  std::make_unique<AllReduceThunk>(
                      h.name(), *r, std::move(shapes), std::move(groups)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitAllGatherOrReduceScatter(CompiledComputation& cc,
                                                        const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  std::vector<Shape> operands = OperandLeafShapes(h);
  const std::vector<Shape> results = Leaves(CollectiveResultShape(h));
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, operands));
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, results));
  const bool gather = h.opcode() != HloOpcode::kReduceScatter;
  const int64_t d = h.attrs().dimensions.at(0);
  // With replica_groups={} the group is every replica (partition, device):
  // the result shape (written, not inferred) must fit that many.
  const int64_t n = static_cast<int64_t>(groups.at(0).size());
  for (size_t i = 0; i < operands.size() && i < results.size(); ++i) {
    const int64_t in = operands[i].dimensions(d);
    const int64_t out = results[i].dimensions(d);
    if (gather ? out != in * n : out * n != in) {
      return absl::InvalidArgumentError(
          absl::StrCat(h.name(), ": ", HloOpcodeString(h.opcode()), " of ",
                       operands[i].ToString(), " over groups of ", n,
                       " device(s) cannot give ", results[i].ToString()));
    }
  }
  std::unique_ptr<Thunk> t;
  if (gather) {
    t = std::make_unique<AllGatherThunk>(h.name(), std::move(operands), d,
                                         std::move(groups));
  } else {
    const std::optional<HloOpcode> r = NativeReducer(h, operands);
    if (!r.has_value()) return EmitOnOneReplica(cc, h, groups);
    t = std::make_unique<ReduceScatterThunk>(h.name(), *r, std::move(operands),
                                             d, std::move(groups));
  }
  AddCollectiveThunk(cc, h, std::move(t));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitCollectivePermute(CompiledComputation& cc,
                                                 const Instruction& h) {
  // The pairs as devices; every device a pair names must run.
  PLEXA_ASSIGN_OR_RETURN(auto pairs,
                         DevicePairs(h, h.attrs().source_target_pairs, grid_));
  // One operand gives an array; several (XLA's combined form) a tuple of
  // theirs, leaf i from operand i.
  const Shape& result = CollectiveResultShape(h);
  std::vector<int64_t> bytes;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    const Shape& out = result.IsTuple() ? result.tuple_shapes(i) : result;
    PLEXA_RETURN_IF_ERROR(CheckBytesMove(h, out, i));
    bytes.push_back(ShapeUtil::ByteSizeOf(out));
  }
  AddCollectiveThunk(cc, h,
                     std::make_unique<CollectivePermuteThunk>(
                         h.name(), std::move(pairs), std::move(bytes)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitCollectiveBroadcast(CompiledComputation& cc,
                                                   const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  const Shape& out = h.shape();
  PLEXA_RETURN_IF_ERROR(CheckBytesMove(h, out));
  AddCollectiveThunk(
      cc, h,
      std::make_unique<CollectiveBroadcastThunk>(h.name(), std::move(groups),
                                                 ShapeUtil::ByteSizeOf(out)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitCollectiveReduce(CompiledComputation& cc,
                                                const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  std::vector<Shape> data = OperandLeafShapes(h);
  if (h.attrs().has_dynamic_root) data.pop_back();  // the roots
  const std::optional<HloOpcode> r = NativeReducer(h, data);
  if (!r.has_value()) return EmitOnOneReplica(cc, h, groups);
  AddRuntimeThunk(cc, h,
                  std::make_unique<CollectiveReduceThunk>(
                      h.name(), *r, std::move(data), h.attrs().has_dynamic_root,
                      std::move(groups)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitRaggedAllToAll(CompiledComputation& cc,
                                              const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  const std::vector<Shape> operands = OperandLeafShapes(h);
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, operands));
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, Leaves(h.shape())));
  const Shape& input = operands.at(0);
  const Shape& output = operands.at(1);
  const Shape& offsets = operands.at(2);
  // What the run needs beyond XLA's verifier: rows of one kind on both
  // sides, and s32 or s64 offset vectors (rank-2 offsets: XLA does not
  // say what they mean).
  const bool rows_match =
      input.rank() >= 1 && input.rank() == output.rank() &&
      input.element_type() == output.element_type() &&
      std::equal(input.dimensions().begin() + 1, input.dimensions().end(),
                 output.dimensions().begin() + 1);
  const PrimitiveType t = offsets.element_type();
  if (!rows_match || offsets.rank() != 1 ||
      (t != PrimitiveType::S32 && t != PrimitiveType::S64)) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(),
        ": ragged-all-to-all runs rows of one element type and "
        "size (input ",
        input.ToString(), ", output ", output.ToString(),
        ") with s32 or s64 offset vectors (got ", offsets.ToString(), ")"));
  }
  AddRuntimeThunk(cc, h,
                  std::make_unique<RaggedAllToAllThunk>(
                      h.name(), input, output, t, offsets.dimensions(0),
                      std::move(groups)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitAllToAll(CompiledComputation& cc,
                                        const Instruction& h) {
  PLEXA_ASSIGN_OR_RETURN(auto groups, DeviceGroupsOf(h));
  std::vector<Shape> operands = OperandLeafShapes(h);
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, operands));
  PLEXA_RETURN_IF_ERROR(CheckRowMajor(h, Leaves(h.shape())));
  const int64_t n = static_cast<int64_t>(groups.at(0).size());
  std::optional<int64_t> split;
  if (!h.attrs().dimensions.empty()) split = h.attrs().dimensions[0];
  // What the run needs beyond the verifier: with replica_groups={} the
  // group is every replica (partition); in the tuple form every member
  // sends operand j's shape as result j.
  bool fits = split.has_value() ? operands.size() == 1 &&
                                      operands[0].dimensions(*split) % n == 0
                                : static_cast<int64_t>(operands.size()) == n;
  for (const Shape& s : operands) {
    fits &= split.has_value() || ShapeUtil::SameDimensions(s, operands[0]);
  }
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(), ": all-to-all over groups of ", n,
        " device(s) needs one operand whose split dimension divides by the "
        "group size, or one operand of one shape per member; got ",
        operands.size(), " operand(s) ",
        operands.empty() ? "" : operands[0].ToString()));
  }
  AddRuntimeThunk(cc, h,
                  std::make_unique<AllToAllThunk>(h.name(), std::move(operands),
                                                  split, std::move(groups)));
  return absl::OkStatus();
}

absl::Status ThunkEmitter::EmitFftOrTopK(CompiledComputation& cc,
                                         const Instruction& h) {
  std::vector<Shape> operands = OperandLeafShapes(h);
  std::vector<Shape> results = Leaves(h.shape());
  // Layout assignment gives both the default layout; a module compiled
  // without it (or a layout the kernels cannot read) takes the evaluator.
  auto row_major = [](const std::vector<Shape>& leaves) {
    for (const Shape& s : leaves) {
      if (s.has_layout() &&
          (!LayoutUtil::IsMonotonicWithDim0Major(s.layout()) ||
           !ShapeUtil::IsDenseArray(s))) {
        return false;
      }
    }
    return true;
  };
  if (operands.size() != 1 || !row_major(operands) || !row_major(results)) {
    EmitReference(cc, h);
    return absl::OkStatus();
  }
  std::unique_ptr<Thunk> t;
  if (h.opcode() == HloOpcode::kFft) {
    if (results.size() != 1) {
      EmitReference(cc, h);
      return absl::OkStatus();
    }
    t = std::make_unique<FftThunk>(h.attrs().fft_type, h.attrs().fft_length,
                                   operands[0], results[0]);
  } else {
    if (results.size() != 2) {
      EmitReference(cc, h);
      return absl::OkStatus();
    }
    t = std::make_unique<TopKThunk>(operands[0], h.attrs().k,
                                    h.attrs().largest);
  }
  AddRuntimeThunk(cc, h, std::move(t));
  return absl::OkStatus();
}

}  // namespace plexa::backend
