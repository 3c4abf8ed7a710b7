#include "core/passes/send_recv_lowering.h"

#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/ir/channels.h"
#include "core/passes/pass_util.h"

namespace plexa {
namespace {

absl::Status Refuse(const Instruction& inst, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat(
      "send-recv-lowering: ", HloOpcodeString(inst.opcode()), " '", inst.name(),
      "' of channel ", inst.attrs().channel_id.value_or(-1), ": ", why));
}

// True if `target` is among the operands (transitively) of `from`.
bool DependsOn(const Instruction* from, const Instruction* target) {
  absl::flat_hash_set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {from};
  while (!stack.empty()) {
    const Instruction* node = stack.back();
    stack.pop_back();
    if (node == target) return true;
    if (!seen.insert(node).second) continue;
    for (const Instruction* op : node->operands()) stack.push_back(op);
    for (const Instruction* p : node->control_predecessors()) {
      stack.push_back(p);
    }
  }
  return false;
}

// `done` (and then its start) replaced by `replacement`, control edges
// kept: what waited for the start or the done now waits for the
// replacement's operands' users as before.
absl::Status Replace(Computation* c, Instruction* done,
                     Instruction* replacement) {
  Instruction* start = done->mutable_operand(0);
  for (Instruction* p : start->control_predecessors()) {
    p->AddControlDependencyTo(replacement);
  }
  for (Instruction* p : done->control_predecessors()) {
    if (p != start) p->AddControlDependencyTo(replacement);
  }
  for (Instruction* s : done->control_successors()) {
    replacement->AddControlDependencyTo(s);
  }
  for (Instruction* s : start->control_successors()) {
    if (s != done) replacement->AddControlDependencyTo(s);
  }
  PLEXA_RETURN_IF_ERROR(done->ReplaceAllUsesWith(replacement));
  if (c->root_instruction() == done) c->set_root_instruction(replacement);
  PLEXA_RETURN_IF_ERROR(c->RemoveInstruction(done));
  if (start->user_count() == 0) {
    PLEXA_RETURN_IF_ERROR(c->RemoveInstruction(start));
  }
  return absl::OkStatus();
}

absl::StatusOr<Instruction*> LowerRecvDone(
    Computation* c, Instruction* done,
    const absl::flat_hash_map<int64_t, Instruction*>& sends) {
  Instruction* recv = done->mutable_operand(0);
  if (done->attrs().is_host_transfer) {
    return AddInstruction(c, HloOpcode::kInfeed, {recv->mutable_operand(0)}, {},
                          {}, &done->shape());
  }
  if (!done->attrs().channel_id.has_value()) {
    return Refuse(*done,
                  "it has no channel_id, so no send pairs with it (XLA's "
                  "parser accepts that; there is nothing to run)");
  }
  auto it = sends.find(*done->attrs().channel_id);
  if (it == sends.end()) {
    return Refuse(*done,
                  absl::StrCat("its send is not in computation '", c->name(),
                               "' (Plexa runs a channel whose send "
                               "and recv are in one computation)"));
  }
  Instruction* send = it->second;
  Instruction* data = send->mutable_operand(0);
  if (DependsOn(data, done)) {
    return Refuse(*done, absl::StrCat("the data of send '", send->name(),
                                      "' is computed from this recv-done"));
  }
  PLEXA_ASSIGN_OR_RETURN(std::optional<SourceTargetPairs> pairs,
                         SendRecvSourceTargetPairs(*send));
  if (!pairs.has_value()) {
    PLEXA_ASSIGN_OR_RETURN(pairs, SendRecvSourceTargetPairs(*recv));
  }
  Instruction* value = data;
  if (pairs.has_value()) {
    InstructionAttrs attrs;
    attrs.source_target_pairs = *pairs;
    // The channel stays: with SPMD partitions a channel's pairs name
    // partitions (core/ir/collective_groups.h), as the evaluator reads them.
    attrs.channel_id = send->attrs().channel_id;
    PLEXA_ASSIGN_OR_RETURN(
        value, AddInstruction(c, HloOpcode::kCollectivePermute, {data},
                              std::move(attrs)));
  }
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * token,
      AddInstruction(c, HloOpcode::kAfterAll, {recv->mutable_operand(0)}));
  return AddInstruction(c, HloOpcode::kTuple, {value, token});
}

absl::StatusOr<Instruction*> LowerSendDone(Computation* c, Instruction* done) {
  Instruction* send = done->mutable_operand(0);
  if (done->attrs().is_host_transfer) {
    InstructionAttrs attrs;
    attrs.outfeed_shape = send->operand(0)->shape();
    return AddInstruction(c, HloOpcode::kOutfeed,
                          {send->mutable_operand(0), send->mutable_operand(1)},
                          std::move(attrs));
  }
  return AddInstruction(c, HloOpcode::kAfterAll, {send->mutable_operand(1)});
}

}  // namespace

absl::StatusOr<bool> SendRecvLowering::Run(Module& module) {
  bool changed = false;
  for (Computation* c : module.MakeComputationPostOrder()) {
    absl::flat_hash_map<int64_t, Instruction*> sends;
    // Kept apart: lowering a recv-done frees it, so the send-dones must not
    // be found by looking at the recv-dones again.
    std::vector<Instruction*> recv_dones, send_dones;
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      if (inst->opcode() == HloOpcode::kSend &&
          inst->attrs().channel_id.has_value()) {
        sends.emplace(*inst->attrs().channel_id, inst);
      }
      if (inst->opcode() == HloOpcode::kRecvDone) recv_dones.push_back(inst);
      if (inst->opcode() == HloOpcode::kSendDone) send_dones.push_back(inst);
    }
    // Every recv-done first: it reads its send's data operand.
    for (Instruction* done : recv_dones) {
      if (done->operand(0)->opcode() != HloOpcode::kRecv) {
        return Refuse(*done, "its operand is not a recv");
      }
      PLEXA_ASSIGN_OR_RETURN(Instruction * lowered,
                             LowerRecvDone(c, done, sends));
      PLEXA_RETURN_IF_ERROR(Replace(c, done, lowered));
      changed = true;
    }
    for (Instruction* done : send_dones) {
      if (done->operand(0)->opcode() != HloOpcode::kSend) {
        return Refuse(*done, "its operand is not a send");
      }
      PLEXA_ASSIGN_OR_RETURN(Instruction * lowered, LowerSendDone(c, done));
      PLEXA_RETURN_IF_ERROR(Replace(c, done, lowered));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
