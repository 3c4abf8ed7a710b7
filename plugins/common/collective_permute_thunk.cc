#include "plugins/common/collective_permute_thunk.h"

#include <cstring>

namespace plexa::backend {

void CollectivePermuteThunk::Compute(
    Frame& f, const std::vector<std::vector<const void*>>& peers,
    int64_t me) const {
  // The group is every device in order: a device's position is its number;
  // the pairs are device numbers (DevicePairs).
  const void* const* from = nullptr;
  for (const auto& [source, target] : pairs_) {
    if (target == me && source < static_cast<int64_t>(peers.size())) {
      from = peers[source].data();
      break;
    }
  }
  for (size_t i = 0; i < bytes_.size(); ++i) {
    if (bytes_[i] == 0) continue;
    uint8_t* out = f.ptr[outputs[i]];
    if (from != nullptr) {
      std::memcpy(out, from[i], bytes_[i]);
    } else {
      std::memset(out, 0, bytes_[i]);
    }
  }
}

}  // namespace plexa::backend
