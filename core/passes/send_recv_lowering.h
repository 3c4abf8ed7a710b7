// Runs XLA's channels (send, recv, send-done, recv-done) as the
// instructions backends already have, so no backend sees them:
//   recv-done of channel N, its send in the same computation:
//       with _xla_send_recv_source_target_pairs  the recv-done's data is
//           collective-permute(the send's data) with those pairs (a send
//           and a recv across replicas are a collective-permute in two
//           halves: a target replica gets its source's data, any other
//           zeros);
//       without  the send's data itself (one replica's send and recv);
//     its token is after-all(the recv's token);
//   send-done becomes after-all(the send's token);
//   is_host_transfer=true: send-done(send(d, t)) becomes outfeed(d, t) and
//       recv-done(recv(t)) becomes infeed(t), the host's queues (the
//       channel_id is not carried).
// A channel this cannot express (its send in another computation, or the
// send's data computed from the recv-done) is refused with UNIMPLEMENTED
// naming the recv-done. The evaluator runs the channel instructions
// themselves (core/eval/channels.cc); the conformance cases check both.
#ifndef PLEXA_CORE_PASSES_SEND_RECV_LOWERING_H_
#define PLEXA_CORE_PASSES_SEND_RECV_LOWERING_H_

#include "core/passes/pass.h"

namespace plexa {

class SendRecvLowering : public Pass {
 public:
  absl::string_view name() const override { return "send-recv-lowering"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_SEND_RECV_LOWERING_H_
