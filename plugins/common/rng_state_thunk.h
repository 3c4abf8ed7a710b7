// rng-get-and-update-state on the host: writes the instruction's 128-bit
// state as u64[2] {low, high} and advances it by `delta`. The state lives
// in the run's ExecContext::rng_states (the executable's table: a second
// run continues where the first stopped, per replica; two executables that
// share one cached program keep two states), else in the thunk
// (core/runtime/rng_state.h: XLA's initial value, one state per
// instruction as XLA's CPU thunks).
#ifndef PLEXA_PLUGINS_COMMON_RNG_STATE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_RNG_STATE_THUNK_H_

#include <cstdint>

#include "core/runtime/rng_state.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

class RngGetAndUpdateStateThunk : public Thunk {
 public:
  explicit RngGetAndUpdateStateThunk(int64_t delta) : delta_(delta) {}
  absl::Status Run(Frame& f) const override;

 private:
  int64_t delta_;
  mutable RngStateTable states_;  // thread-safe: replicas run at once
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_RNG_STATE_THUNK_H_
