// The state of rng-get-and-update-state: a 128-bit counter per
// instruction and replica that each execution returns and then advances by
// the instruction's delta. It lives as long as the executable that owns
// the table, so a second run continues where the first stopped.
//
// The first value is XLA's (xla/backends/cpu/runtime/rng_state_thunk.cc,
// kRngStateInitialValue = 0x7012395): {0x7012395, 0} as u64[2] {low, high}.
// Like XLA's CPU thunks, each instruction has its own state; each replica
// too (a replica is a device of its own).
#ifndef PLEXA_CORE_RUNTIME_RNG_STATE_H_
#define PLEXA_CORE_RUNTIME_RNG_STATE_H_

#include <array>
#include <cstdint>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace plexa {

class RngStateTable {
 public:
  static constexpr uint64_t kInitialLow = 0x7012395;
  static constexpr uint64_t kInitialHigh = 0;

  // Returns the state of (`key`, `replica`) as {low word, high word} and
  // advances it by `delta` modulo 2^128 (a negative delta counts down, as
  // XLA's signed 128-bit addition). Thread-safe.
  std::array<uint64_t, 2> GetAndUpdate(const void* key, int64_t replica,
                                       int64_t delta);

  // {low, high} + delta modulo 2^128.
  static std::array<uint64_t, 2> Advance(std::array<uint64_t, 2> state,
                                         int64_t delta);

 private:
  std::mutex mu_;
  absl::flat_hash_map<std::pair<const void*, int64_t>, std::array<uint64_t, 2>>
      states_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_RUNTIME_RNG_STATE_H_
