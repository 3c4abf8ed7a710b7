#include "plugins/common/rng_state_thunk.h"

#include <array>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace plexa::backend {

absl::Status RngGetAndUpdateStateThunk::Run(Frame& f) const {
  if (outputs.size() != 1) {
    return absl::InternalError(absl::StrCat("rng-get-and-update-state ", name,
                                            ": expected one output slot, got ",
                                            outputs.size()));
  }
  const int64_t replica = f.ctx != nullptr ? f.ctx->device_index() : 0;
  RngStateTable& table = f.ctx != nullptr && f.ctx->rng_states != nullptr
                             ? *f.ctx->rng_states
                             : states_;
  const std::array<uint64_t, 2> state =
      table.GetAndUpdate(this, replica, delta_);
  std::memcpy(f.ptr[outputs[0]], state.data(), sizeof(state));
  return absl::OkStatus();
}

}  // namespace plexa::backend
