// How the toolkit's own data-moving steps reach slot memory: CopyThunk's
// copies, WhileThunk's loop state and its condition's predicate,
// BranchThunk's selector and results.
//
// By default slots are host memory and these steps are memcpy. A backend
// whose slots the host cannot read or write in place (the Vulkan plugin's
// staging mode: device-local buffers, docs/vulkan.md) also derives its
// ExecContext from SlotAccess, and these steps then go through it. (Thunks
// that compute on the host — the evaluator fallback, custom calls,
// collectives — are the backend's to wrap: it knows their slots.)
#ifndef PLEXA_PLUGINS_COMMON_SLOT_ACCESS_H_
#define PLEXA_PLUGINS_COMMON_SLOT_ACCESS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

class SlotAccess {
 public:
  virtual ~SlotAccess() = default;
  // Copies `bytes` bytes from slot memory `src` to slot memory `dst` (they
  // do not overlap, or are equal).
  virtual absl::Status CopySlotBytes(uint8_t* dst, const uint8_t* src,
                                     int64_t bytes) = 0;
  // Copies `bytes` bytes of slot memory `src` to host memory `dst`.
  virtual absl::Status ReadSlotBytes(const uint8_t* src, void* dst,
                                     int64_t bytes) = 0;
};

// Through `ctx` when it is a SlotAccess, else memcpy. Nothing to do when
// `bytes` is 0 or `dst` is `src`.
absl::Status CopySlotBytes(ExecContext& ctx, uint8_t* dst, const uint8_t* src,
                           int64_t bytes);
absl::Status ReadSlotBytes(ExecContext& ctx, const uint8_t* src, void* dst,
                           int64_t bytes);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_SLOT_ACCESS_H_
