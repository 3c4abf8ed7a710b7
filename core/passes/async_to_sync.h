// Runs the asynchronous forms and the ordering-only instructions of XLA's
// HLO as their synchronous meaning, so no backend ever sees them:
//   async-start(operands), calls=%w -> [async-update]* -> async-done
//       becomes call(operands), to_apply=%w at the done (the call inliner,
//       which runs next in the default pipeline, then inlines it; this is
//       what XLA's ConvertAsyncCollectivesToSync does for an async-start:
//       the wrapped instruction on the start's operands);
//   copy-done(copy-start(x)) becomes copy(x);
//   add-dependency(x, token) becomes x (the token only ordered x after
//       it; Plexa's instructions run in program order);
//   domain(x), domain={...} becomes x (a sharding domain is the identity
//       on one device).
// The async collectives (all-reduce-start, ...) keep their own opcodes:
// backends run them through the toolkit's collective thunks.
#ifndef PLEXA_CORE_PASSES_ASYNC_TO_SYNC_H_
#define PLEXA_CORE_PASSES_ASYNC_TO_SYNC_H_

#include "core/passes/pass.h"

namespace plexa {

class AsyncToSync : public Pass {
 public:
  absl::string_view name() const override { return "async-to-sync"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_ASYNC_TO_SYNC_H_
