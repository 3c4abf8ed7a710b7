#include "core/runtime/rng_state.h"

namespace plexa {

std::array<uint64_t, 2> RngStateTable::Advance(std::array<uint64_t, 2> state,
                                               int64_t delta) {
  const uint64_t add_low = static_cast<uint64_t>(delta);
  const uint64_t add_high = delta < 0 ? ~uint64_t{0} : 0;  // sign extension
  const uint64_t low = state[0] + add_low;
  const uint64_t carry = low < state[0] ? 1 : 0;
  return {low, state[1] + add_high + carry};
}

std::array<uint64_t, 2> RngStateTable::GetAndUpdate(const void* key,
                                                    int64_t replica,
                                                    int64_t delta) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] =
      states_.try_emplace(std::make_pair(key, replica),
                          std::array<uint64_t, 2>{kInitialLow, kInitialHigh});
  const std::array<uint64_t, 2> current = it->second;
  it->second = Advance(current, delta);
  return current;
}

}  // namespace plexa
