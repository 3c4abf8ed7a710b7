#include "plugins/common/slot_access.h"

#include <cstring>

namespace plexa::backend {

absl::Status CopySlotBytes(ExecContext& ctx, uint8_t* dst, const uint8_t* src,
                           int64_t bytes) {
  if (bytes <= 0 || dst == src) return absl::OkStatus();
  if (auto* access = dynamic_cast<SlotAccess*>(&ctx)) {
    return access->CopySlotBytes(dst, src, bytes);
  }
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

absl::Status ReadSlotBytes(ExecContext& ctx, const uint8_t* src, void* dst,
                           int64_t bytes) {
  if (bytes <= 0) return absl::OkStatus();
  if (auto* access = dynamic_cast<SlotAccess*>(&ctx)) {
    return access->ReadSlotBytes(src, dst, bytes);
  }
  std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

}  // namespace plexa::backend
