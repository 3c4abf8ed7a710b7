#include "core/verifier/verifier.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/infer/shape_inference.h"
#include "core/ir/channels.h"
#include "core/ir/collective_groups.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

template <typename... Args>
absl::Status Error(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// "computation 'c', instruction 'x' (add)"
std::string Where(const Computation& c, const Instruction& inst) {
  return absl::StrCat("computation '", c.name(), "', instruction '",
                      inst.name(), "' (", HloOpcodeString(inst.opcode()), ")");
}

// Layouts ignored; element types, dimensions and dynamic dimensions exact;
// tuples element by element.
bool SameShapeIgnoringLayout(const Shape& a, const Shape& b) {
  return Shape::Equal().IgnoreLayout()(a, b);
}

bool Contains(const std::vector<Instruction*>& v, const Instruction* x) {
  for (const Instruction* i : v) {
    if (i == x) return true;
  }
  return false;
}

// Names, parents, parameters, root, operand and control edges of one
// computation; called computations belong to the module.
absl::Status VerifyStructure(
    const Computation& c,
    const absl::flat_hash_set<const Computation*>& module_computations) {
  const std::vector<Instruction*> instructions = c.instructions();
  absl::flat_hash_set<std::string> names;
  std::vector<const Instruction*> params;
  for (const Instruction* inst : instructions) {
    if (inst == nullptr) {
      return Error("computation '", c.name(), "' holds a null instruction.");
    }
    if (inst->name().empty()) {
      return Error("computation '", c.name(), "' has an instruction (",
                   HloOpcodeString(inst->opcode()), ") without a name.");
    }
    if (!names.insert(inst->name()).second) {
      return Error("computation '", c.name(), "': instruction name '",
                   inst->name(), "' is used more than once.");
    }
    if (inst->parent() != &c) {
      return Error(Where(c, *inst),
                   ": the instruction's parent is not this computation.");
    }
    if (inst->opcode() == HloOpcode::kParameter) params.push_back(inst);
  }

  // Parameters are numbered 0..n-1 without gaps or duplicates.
  std::vector<const Instruction*> by_number(params.size(), nullptr);
  for (const Instruction* p : params) {
    const int64_t n = p->parameter_number();
    if (n < 0 || n >= static_cast<int64_t>(params.size())) {
      return Error(Where(c, *p), ": parameter number ", n,
                   " is out of range: the computation has ", params.size(),
                   " parameter(s), numbered 0..", params.size(), "-1.");
    }
    if (by_number[n] != nullptr) {
      return Error(Where(c, *p), ": parameter number ", n, " is also used by '",
                   by_number[n]->name(), "'.");
    }
    by_number[n] = p;
  }
  if (c.num_parameters() != static_cast<int64_t>(params.size())) {
    return Error("computation '", c.name(), "' registers ", c.num_parameters(),
                 " parameters but holds ", params.size(),
                 " parameter instructions.");
  }
  for (size_t n = 0; n < by_number.size(); ++n) {
    if (c.parameter_instruction(n) != by_number[n]) {
      return Error("computation '", c.name(), "': parameter ", n, " ('",
                   by_number[n]->name(),
                   "') is not the one the computation registers.");
    }
  }

  const Instruction* root = c.root_instruction();
  if (root == nullptr) {
    return Error("computation '", c.name(), "' has no root instruction.");
  }
  if (root->parent() != &c) {
    return Error("computation '", c.name(), "': the root '", root->name(),
                 "' does not belong to it.");
  }

  for (const Instruction* inst : instructions) {
    for (int64_t i = 0; i < inst->operand_count(); ++i) {
      const Instruction* operand = inst->operand(i);
      if (operand == nullptr) {
        return Error(Where(c, *inst), ": operand ", i, " is null.");
      }
      if (operand->parent() != &c) {
        return Error(Where(c, *inst), ": operand ", i, " '", operand->name(),
                     "' belongs to another computation.");
      }
      if (!Contains(operand->users(), inst)) {
        return Error(Where(c, *inst), ": operand ", i, " '", operand->name(),
                     "' does not list it as a user.");
      }
    }
    for (const Instruction* pred : inst->control_predecessors()) {
      if (pred == nullptr || pred->parent() != &c) {
        return Error(Where(c, *inst),
                     ": a control predecessor is null or belongs to another "
                     "computation.");
      }
      if (!Contains(pred->control_successors(), inst)) {
        return Error(Where(c, *inst), ": control predecessor '", pred->name(),
                     "' does not list it as a successor.");
      }
    }
    for (const Instruction* succ : inst->control_successors()) {
      if (succ == nullptr || succ->parent() != &c) {
        return Error(Where(c, *inst),
                     ": a control successor is null or belongs to another "
                     "computation.");
      }
    }
    for (const Computation* callee : inst->called_computations()) {
      if (callee == nullptr) {
        return Error(Where(c, *inst), ": calls a null computation.");
      }
      if (!module_computations.contains(callee)) {
        return Error(Where(c, *inst), ": calls computation '", callee->name(),
                     "' which is not in the module.");
      }
    }
  }

  // No cycles through operands or control edges (iterative DFS).
  absl::flat_hash_map<const Instruction*, int> state;  // 1 on stack, 2 done
  for (const Instruction* start : instructions) {
    if (state[start] != 0) continue;
    struct Frame {
      const Instruction* inst;
      size_t next;
    };
    std::vector<Frame> stack = {{start, 0}};
    state[start] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const size_t n_ops = f.inst->operands().size();
      const size_t n_all = n_ops + f.inst->control_predecessors().size();
      if (f.next < n_all) {
        const Instruction* dep =
            f.next < n_ops ? f.inst->operands()[f.next]
                           : f.inst->control_predecessors()[f.next - n_ops];
        ++f.next;
        int& st = state[dep];
        if (st == 1) {
          return Error(Where(c, *dep),
                       ": is part of a cycle through operands or control "
                       "dependencies (reached again from '",
                       f.inst->name(), "').");
        }
        if (st == 0) {
          st = 1;
          stack.push_back({dep, 0});
        }
        continue;
      }
      state[f.inst] = 2;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

// The async pairs (XLA's verifier): a -done's operand is the matching
// -start, and a -start's one user is its -done.
absl::Status VerifyAsyncPairs(const Computation& c) {
  for (const Instruction* inst : c.instructions()) {
    if (std::optional<HloOpcode> start = AsyncStartOf(inst->opcode())) {
      if (inst->operand_count() != 1 || inst->operand(0)->opcode() != *start) {
        return Error(Where(c, *inst), ": its operand must be a ",
                     HloOpcodeString(*start), ", not ",
                     inst->operand_count() == 1
                         ? HloOpcodeString(inst->operand(0)->opcode())
                         : "that many operands",
                     ".");
      }
    }
    if (std::optional<HloOpcode> done = AsyncDoneOf(inst->opcode())) {
      if (inst->user_count() != 1 || inst->users()[0]->opcode() != *done) {
        std::vector<std::string> users;
        for (const Instruction* u : inst->users()) {
          users.push_back(absl::StrCat("'", u->name(), "' (",
                                       HloOpcodeString(u->opcode()), ")"));
        }
        return Error(Where(c, *inst), ": must have exactly one user, a ",
                     HloOpcodeString(*done), "; it has ", inst->user_count(),
                     " user(s)", users.empty() ? "" : ": ",
                     absl::StrJoin(users, ", "), ".");
      }
    }
  }
  return absl::OkStatus();
}

// The generic async wrappers and copy-start/-done (XLA's
// VerifyAsynchronousInstructionPairs): async-start's one user is an
// async-update or async-done, so is an async-update's; their operand is an
// async-start or async-update; a calls= on an update or done names the
// start's computation. copy-start's one user is a copy-done, whose operand
// is a copy-start.
absl::Status VerifyAsyncWrappers(const Computation& c) {
  auto one_user = [&](const Instruction& inst,
                      std::initializer_list<HloOpcode> allowed,
                      absl::string_view expected) -> absl::Status {
    bool ok = inst.user_count() == 1;
    if (ok) {
      ok = false;
      for (HloOpcode op : allowed) ok |= inst.users()[0]->opcode() == op;
    }
    if (ok) return absl::OkStatus();
    std::vector<std::string> users;
    for (const Instruction* u : inst.users()) {
      users.push_back(absl::StrCat("'", u->name(), "' (",
                                   HloOpcodeString(u->opcode()), ")"));
    }
    return Error(Where(c, inst), ": must have exactly one user, ", expected,
                 "; it has ", inst.user_count(), " user(s)",
                 users.empty() ? "" : ": ", absl::StrJoin(users, ", "), ".");
  };
  auto operand_is = [&](const Instruction& inst,
                        std::initializer_list<HloOpcode> allowed,
                        absl::string_view expected) -> absl::Status {
    if (inst.operand_count() != 1) {
      return Error(Where(c, inst), ": takes one operand, ", expected,
                   "; it has ", inst.operand_count(), ".");
    }
    bool ok = false;
    for (HloOpcode op : allowed) ok |= inst.operand(0)->opcode() == op;
    if (ok) return absl::OkStatus();
    return Error(Where(c, inst), ": its operand must be ", expected, ", not '",
                 inst.operand(0)->name(), "' (",
                 HloOpcodeString(inst.operand(0)->opcode()), ").");
  };
  constexpr absl::string_view kUpdateOrDone = "an async-update or async-done";
  constexpr absl::string_view kStartOrUpdate = "an async-start or async-update";
  for (const Instruction* inst : c.instructions()) {
    switch (inst->opcode()) {
      case HloOpcode::kAsyncStart:
        PLEXA_RETURN_IF_ERROR(
            one_user(*inst, {HloOpcode::kAsyncUpdate, HloOpcode::kAsyncDone},
                     kUpdateOrDone));
        break;
      case HloOpcode::kAsyncUpdate:
      case HloOpcode::kAsyncDone: {
        PLEXA_RETURN_IF_ERROR(
            operand_is(*inst, {HloOpcode::kAsyncStart, HloOpcode::kAsyncUpdate},
                       kStartOrUpdate));
        if (inst->opcode() == HloOpcode::kAsyncUpdate) {
          PLEXA_RETURN_IF_ERROR(
              one_user(*inst, {HloOpcode::kAsyncUpdate, HloOpcode::kAsyncDone},
                       kUpdateOrDone));
        }
        const Instruction* start = inst->operand(0);
        while (start->opcode() == HloOpcode::kAsyncUpdate &&
               start->operand_count() == 1) {
          start = start->operand(0);
        }
        if (start->opcode() == HloOpcode::kAsyncStart &&
            !inst->called_computations().empty() &&
            inst->called_computations() != start->called_computations()) {
          return Error(Where(c, *inst), ": calls '",
                       inst->called_computations()[0]->name(),
                       "', but its async-start '", start->name(), "' calls '",
                       start->called_computations().empty()
                           ? std::string("nothing")
                           : start->called_computations()[0]->name(),
                       "'.");
        }
        break;
      }
      case HloOpcode::kCopyStart:
        PLEXA_RETURN_IF_ERROR(
            one_user(*inst, {HloOpcode::kCopyDone}, "a copy-done"));
        break;
      case HloOpcode::kCopyDone:
        PLEXA_RETURN_IF_ERROR(
            operand_is(*inst, {HloOpcode::kCopyStart}, "a copy-start"));
        break;
      default:
        break;
    }
  }
  return absl::OkStatus();
}

// XLA's ShapeVerifier as HloVerifier runs it by default (not layout
// sensitive): every declared shape must be compatible with the inferred
// one (ShapesSame -> ShapeUtil::Compatible: element types and bounds equal;
// which dimensions are dynamic is not compared). So `s32[5]
// set-dimension-size(p, n)`, as XLA's own tests write it, verifies; the
// sizes follow the program, not the declared flags (docs/dynamic_shapes.md).
bool DeclaredShapeFits(const Shape& declared, const Shape& inferred) {
  return Shape::Equal().IgnoreLayout().IgnoreDynamicDimension()(declared,
                                                                inferred);
}

// Every instruction: a valid shape (layout included) equal, ignoring the
// layout, to what shape inference derives from its operands
// (DeclaredShapeFits says how the dynamic dimensions are compared).
absl::Status VerifyShapes(const Computation& c) {
  for (const Instruction* inst : c.MakeInstructionPostOrder()) {
    absl::Status valid = ShapeUtil::ValidateShape(inst->shape());
    if (!valid.ok()) {
      return Error(Where(c, *inst), ": invalid shape ",
                   inst->shape().ToString(), ": ", valid.message());
    }
    absl::StatusOr<Shape> inferred =
        shape_inference::InferInstructionShape(*inst);
    if (!inferred.ok()) {
      return absl::Status(
          inferred.status().code(),
          absl::StrCat(Where(c, *inst), ": ", inferred.status().message()));
    }
    if (!DeclaredShapeFits(inst->shape(), *inferred)) {
      return Error(
          Where(c, *inst), ": declared shape ", inst->shape().ToString(),
          " does not match the inferred shape ", inferred->ToString(), ".");
    }
  }
  return absl::OkStatus();
}

// Computations must not call themselves, directly or through others.
absl::Status VerifyCallGraph(const std::vector<Computation*>& computations) {
  absl::flat_hash_map<const Computation*, int> state;
  for (const Computation* start : computations) {
    if (state[start] != 0) continue;
    struct Frame {
      const Computation* c;
      std::vector<const Computation*> callees;
      size_t next;
    };
    auto callees_of = [](const Computation* c) {
      std::vector<const Computation*> out;
      for (const Instruction* inst : c->instructions()) {
        for (const Computation* callee : inst->called_computations()) {
          out.push_back(callee);
        }
      }
      return out;
    };
    std::vector<Frame> stack;
    stack.push_back({start, callees_of(start), 0});
    state[start] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.callees.size()) {
        const Computation* callee = f.callees[f.next++];
        int& st = state[callee];
        if (st == 1) {
          return Error("computation '", callee->name(),
                       "' calls itself (through '", f.c->name(), "').");
        }
        if (st == 0) {
          st = 1;
          stack.push_back({callee, callees_of(callee), 0});
        }
        continue;
      }
      state[f.c] = 2;
      stack.pop_back();
    }
  }
  return absl::OkStatus();
}

absl::Status VerifyEntryLayout(const Module& module) {
  if (!module.entry_computation_layout().has_value()) {
    return absl::OkStatus();
  }
  const ProgramShape& layout = *module.entry_computation_layout();
  const Computation& entry = *module.entry_computation();
  if (static_cast<int64_t>(layout.parameters.size()) !=
      entry.num_parameters()) {
    return Error("entry_computation_layout ", layout.ToString(), " has ",
                 layout.parameters.size(), " parameters but the entry '",
                 entry.name(), "' has ", entry.num_parameters(), ".");
  }
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const Shape& want = layout.parameters[i];
    absl::Status valid = ShapeUtil::ValidateShape(want);
    if (!valid.ok()) {
      return Error("entry_computation_layout parameter ", i, " ",
                   want.ToString(), " is invalid: ", valid.message());
    }
    const Shape& have = entry.parameter_instruction(i)->shape();
    if (!Shape::Equal().IgnoreLayout().IgnoreDynamicDimension()(want, have)) {
      return Error("entry_computation_layout parameter ", i, " ",
                   want.ToString(), " does not match parameter ", i, " of '",
                   entry.name(), "': ", have.ToString(), ".");
    }
  }
  absl::Status valid = ShapeUtil::ValidateShape(layout.result);
  if (!valid.ok()) {
    return Error("entry_computation_layout result ", layout.result.ToString(),
                 " is invalid: ", valid.message());
  }
  const Shape& root = entry.root_instruction()->shape();
  if (!Shape::Equal().IgnoreLayout().IgnoreDynamicDimension()(layout.result,
                                                              root)) {
    return Error("entry_computation_layout result ", layout.result.ToString(),
                 " does not match the root of '", entry.name(),
                 "': ", root.ToString(), ".");
  }
  return absl::OkStatus();
}

// The channel instructions (XLA's HloVerifier): send and recv may carry a
// channel_id (XLA's parser no longer requires one); send-done's operand is a
// send of the same channel and recv-done's a recv; a send or recv has exactly
// one user, its -done (XLA also lets a pipelined send/recv cross a while loop's
// state through a tuple, which Plexa does not run: it is refused here, named).
// Across the module a channel_id used by send/recv is used by nothing else, by
// at most one send and one recv (a host channel by one of them), and the data
// shapes and replica pairs (_xla_send_recv_source_target_pairs) of both
// ends agree.
absl::Status VerifyChannels(const Module& module) {
  struct Channel {
    const Instruction* send = nullptr;
    const Instruction* recv = nullptr;
    // The ends' replica pairs; empty without the attribute.
    SourceTargetPairs send_pairs;
    SourceTargetPairs recv_pairs;
  };
  absl::flat_hash_map<int64_t, Channel> channels;
  // Other instructions carrying a channel_id (all-reduce, ...), by id.
  absl::flat_hash_map<int64_t, const Instruction*> others;
  for (const Computation* c : module.computations()) {
    for (const Instruction* inst : c->instructions()) {
      const HloOpcode op = inst->opcode();
      const std::optional<int64_t>& id = inst->attrs().channel_id;
      if (!IsSendRecv(op)) {
        if (id.has_value()) others.emplace(*id, inst);
        continue;
      }
      PLEXA_ASSIGN_OR_RETURN(std::optional<SourceTargetPairs> pairs,
                             SendRecvSourceTargetPairs(*inst));
      if (pairs.has_value()) {
        // As collective-permute's: no replica a source or a target twice.
        const Shape u32(PrimitiveType::U32, {});
        const Shape* const one[] = {&u32};
        absl::StatusOr<Shape> checked =
            shape_inference::InferCollectivePermuteShape(one, *pairs);
        if (!checked.ok()) {
          return Error(Where(*c, *inst), ": ", kSendRecvPairsAttribute, ": ",
                       checked.status().message());
        }
      }
      if (op == HloOpcode::kSendDone || op == HloOpcode::kRecvDone) {
        const HloOpcode start =
            op == HloOpcode::kSendDone ? HloOpcode::kSend : HloOpcode::kRecv;
        const Instruction* operand = inst->operand(0);
        if (operand->opcode() != start) {
          return Error(Where(*c, *inst), ": its operand must be a ",
                       HloOpcodeString(start), ", not '", operand->name(),
                       "' (", HloOpcodeString(operand->opcode()),
                       "); Plexa does not run send/recv pipelined through "
                       "a loop's state.");
        }
        if (operand->attrs().channel_id != id) {
          return Error(Where(*c, *inst), ": channel_id=", id.value_or(-1),
                       " differs from its ", HloOpcodeString(start), " '",
                       operand->name(), "' (channel_id=",
                       operand->attrs().channel_id.value_or(-1), ").");
        }
        if (operand->attrs().is_host_transfer !=
            inst->attrs().is_host_transfer) {
          return Error(Where(*c, *inst),
                       ": is_host_transfer differs from "
                       "its ",
                       HloOpcodeString(start), " '", operand->name(), "'.");
        }
        continue;
      }
      const HloOpcode done =
          op == HloOpcode::kSend ? HloOpcode::kSendDone : HloOpcode::kRecvDone;
      if (inst->user_count() != 1 || inst->users()[0]->opcode() != done) {
        return Error(Where(*c, *inst), ": must have exactly one user, a ",
                     HloOpcodeString(done), "; it has ", inst->user_count(),
                     " user(s)",
                     inst->user_count() == 1
                         ? absl::StrCat(": '", inst->users()[0]->name(), "'")
                         : "",
                     ".");
      }
      // XLA's parser accepts a send or recv without channel_id (its
      // SendRecvWoChannelID test): no channel, so nothing to pair; running
      // one is refused (core/eval/channels.cc, send-recv-lowering).
      if (!id.has_value()) continue;
      Channel& ch = channels[*id];
      const Instruction*& slot = op == HloOpcode::kSend ? ch.send : ch.recv;
      if (slot != nullptr) {
        return Error(Where(*c, *inst), ": channel ", *id, " already has a ",
                     HloOpcodeString(op), ", '", slot->name(),
                     "' (one send and one recv per channel).");
      }
      slot = inst;
      if (pairs.has_value()) {
        (op == HloOpcode::kSend ? ch.send_pairs : ch.recv_pairs) = *pairs;
      }
    }
  }
  for (const auto& [id, ch] : channels) {
    const Instruction* any = ch.send != nullptr ? ch.send : ch.recv;
    auto other = others.find(id);
    if (other != others.end()) {
      return Error("instruction '", other->second->name(), "' (",
                   HloOpcodeString(other->second->opcode()),
                   "): channel_id=", id, " is also the channel of ",
                   HloOpcodeString(any->opcode()), " '", any->name(),
                   "'; a channel is used by one kind of instruction.");
    }
    if (ch.send == nullptr || ch.recv == nullptr) continue;
    // XLA: a host channel is one send or one recv with its -done.
    if (ch.send->attrs().is_host_transfer ||
        ch.recv->attrs().is_host_transfer) {
      return Error("instruction '", ch.recv->name(), "' (recv): channel ", id,
                   " is a host transfer and already has send '",
                   ch.send->name(),
                   "' (a host channel is used by one send or one recv).");
    }
    const Shape& sent = ch.send->operand(0)->shape();
    const Shape& received = ch.recv->shape().tuple_shapes(0);
    if (!SameShapeIgnoringLayout(sent, received)) {
      return Error("instruction '", ch.recv->name(), "' (recv): channel ", id,
                   " receives ", ShapeUtil::HumanString(received),
                   " but its send '", ch.send->name(), "' sends ",
                   ShapeUtil::HumanString(sent), ".");
    }
    if (!ch.send_pairs.empty() && !ch.recv_pairs.empty() &&
        ch.send_pairs != ch.recv_pairs) {
      return Error("instruction '", ch.recv->name(), "' (recv): its ",
                   kSendRecvPairsAttribute, " differ from those of send '",
                   ch.send->name(), "' on channel ", id, ".");
    }
  }
  return absl::OkStatus();
}

// XLA's group-mode rules for collectives (GetCollectiveOpGroupMode and
// the verifier's replica-group checks): use_global_device_ids needs a
// channel_id, and then names devices, so its replica_groups are explicit.
absl::Status VerifyCollectiveGroupModes(const Computation& c) {
  for (const Instruction* inst : c.instructions()) {
    if (!HasUseGlobalDeviceIds(inst->opcode())) continue;
    absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(*inst);
    if (!mode.ok()) {
      return Error("computation '", c.name(), "': ", mode.status().message());
    }
    if (*mode == CollectiveGroupMode::kFlattenedId &&
        inst->attrs().replica_groups.empty()) {
      return Error(Where(c, *inst),
                   ": use_global_device_ids=true needs explicit "
                   "replica_groups (flattened device ids).");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status VerifyModule(const Module& module) {
  const std::vector<Computation*> computations = module.computations();
  absl::flat_hash_set<const Computation*> in_module;
  absl::flat_hash_set<std::string> names;
  for (const Computation* c : computations) {
    if (c == nullptr) {
      return Error("module '", module.name(), "' holds a null computation.");
    }
    in_module.insert(c);
    if (!names.insert(c->name()).second) {
      return Error("module '", module.name(), "': computation name '",
                   c->name(), "' is used more than once.");
    }
  }
  if (module.entry_computation() == nullptr) {
    return Error("module '", module.name(), "' has no entry computation.");
  }
  if (!in_module.contains(module.entry_computation())) {
    return Error("module '", module.name(), "': the entry computation '",
                 module.entry_computation()->name(),
                 "' is not one of its computations.");
  }
  for (const Computation* c : computations) {
    absl::Status s = VerifyStructure(*c, in_module);
    if (!s.ok()) return s;
  }
  absl::Status s = VerifyCallGraph(computations);
  if (!s.ok()) return s;
  for (const Computation* c : computations) {
    s = VerifyAsyncPairs(*c);
    if (!s.ok()) return s;
    s = VerifyAsyncWrappers(*c);
    if (!s.ok()) return s;
    s = VerifyCollectiveGroupModes(*c);
    if (!s.ok()) return s;
  }
  // Callees before callers, so a caller's check sees verified signatures.
  for (const Computation* c : module.MakeComputationPostOrder()) {
    s = VerifyShapes(*c);
    if (!s.ok()) return s;
  }
  // After the shapes: every channel instruction has its operands.
  s = VerifyChannels(module);
  if (!s.ok()) return s;
  return VerifyEntryLayout(module);
}

}  // namespace plexa
