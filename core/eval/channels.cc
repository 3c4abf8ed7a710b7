// send, recv, send-done, recv-done: XLA's channels, run synchronously.
//
// A send of channel N hands its data over when it runs:
//   with _xla_send_recv_source_target_pairs  every replica meets at the
//       send, as at a collective-permute with those pairs: a target
//       replica gets its source's data, any other replica zeros;
//   without  the data stays on the replica (a send and a recv of one
//       program, the same replica).
// What the send delivered waits on the replica until the recv-done of
// channel N takes it; the interpreter runs a computation's send before
// the recv-done of its channel (evaluator.cc, GetPlan). recv's own data
// element is zeros (its buffer is only defined after recv-done). The u32[]
// context element of send and recv is 0.
// is_host_transfer=true: the data goes to the host as outfeed does
// (send-done) and comes from it as infeed does (recv-done), on the same
// queues; the channel_id is not carried.
#include "core/ir/channels.h"

#include <utility>
#include <vector>

#include "core/eval/eval_internal.h"

namespace plexa::eval {

namespace {

absl::Status ChannelError(absl::StatusCode code, const Instruction& instr,
                          absl::string_view what) {
  return absl::Status(
      code, absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

absl::StatusOr<int64_t> ChannelOf(const Instruction& instr) {
  if (!instr.attrs().channel_id.has_value()) {
    return ChannelError(absl::StatusCode::kInvalidArgument, instr,
                        "has no channel_id, so it pairs with nothing (XLA's "
                        "parser accepts that; there is nothing to run)");
  }
  return *instr.attrs().channel_id;
}

// (data, u32[] 0, token[]): send's and recv's value.
Literal StartTuple(Literal data) {
  std::vector<Literal> parts;
  parts.push_back(std::move(data));
  parts.push_back(MakeLiteral(Shape(PrimitiveType::U32, {})));
  parts.push_back(MakeTokenLiteral());
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace

absl::StatusOr<Literal> EvalSend(Interpreter& interp, const Instruction& instr,
                                 Operands ops) {
  PLEXA_ASSIGN_OR_RETURN(int64_t channel, ChannelOf(instr));
  if (!instr.attrs().is_host_transfer) {
    absl::StatusOr<std::optional<SourceTargetPairs>> pairs =
        SendRecvSourceTargetPairs(instr);
    if (!pairs.ok()) {
      return ChannelError(absl::StatusCode::kInvalidArgument, instr,
                          pairs.status().message());
    }
    Literal delivered;
    if (pairs->has_value()) {
      PLEXA_ASSIGN_OR_RETURN(
          delivered, PermuteAcrossReplicas(interp, instr, **pairs, ops.first(1),
                                           instr.operand(0)->shape()));
    } else {
      delivered = Literal(*ops[0]);
    }
    interp.channel_deliveries()[channel] = std::move(delivered);
  }
  return StartTuple(Literal(*ops[0]));
}

absl::StatusOr<Literal> EvalRecv(Interpreter&, const Instruction& instr,
                                 Operands) {
  return StartTuple(MakeLiteral(instr.shape().tuple_shapes(0)));
}

absl::StatusOr<Literal> EvalSendDone(Interpreter& interp,
                                     const Instruction& instr, Operands ops) {
  if (instr.attrs().is_host_transfer) {
    absl::Status s = interp.feeds().Outfeed(interp.device(), instr.name(),
                                            Literal(ops[0]->tuple_element(0)));
    if (!s.ok()) {
      return ChannelError(s.code(), instr, s.message());
    }
  }
  return MakeTokenLiteral();
}

absl::StatusOr<Literal> EvalRecvDone(Interpreter& interp,
                                     const Instruction& instr, Operands ops) {
  if (instr.attrs().is_host_transfer) return EvalInfeed(interp, instr, ops);
  PLEXA_ASSIGN_OR_RETURN(int64_t channel, ChannelOf(instr));
  auto it = interp.channel_deliveries().find(channel);
  if (it == interp.channel_deliveries().end()) {
    return ChannelError(
        absl::StatusCode::kFailedPrecondition, instr,
        absl::StrCat("no send of channel ", channel,
                     " ran before it on this replica (Plexa runs a channel "
                     "within one program: its send and recv in one "
                     "computation, the send's data not computed from the "
                     "recv-done)"));
  }
  std::vector<Literal> parts;
  parts.push_back(std::move(it->second));
  parts.push_back(MakeTokenLiteral());
  interp.channel_deliveries().erase(it);
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace plexa::eval
