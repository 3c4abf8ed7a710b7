#include "abi/sdk/handles.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/shape/layout_util.h"

namespace plexa::sdk {
namespace {

struct Registry {
  std::mutex mu;  // std::mutex for ThreadSanitizer: see event.h
  absl::flat_hash_map<const void*, HandleKind> live;  // guarded by mu
};

Registry& GetRegistry() {
  static Registry* const r = new Registry();
  return *r;
}

const char* KindName(HandleKind k) {
  switch (k) {
    case HandleKind::kClient:
      return "PLX_Client";
    case HandleKind::kDevice:
      return "PLX_Device";
    case HandleKind::kBuffer:
      return "PLX_Buffer";
    case HandleKind::kExecutable:
      return "PLX_Executable";
    case HandleKind::kEvent:
      return "PLX_Event";
    case HandleKind::kMemory:
      return "PLX_Memory";
  }
  return "handle";
}

}  // namespace

void RegisterHandle(const void* p, HandleKind kind) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.live[p] = kind;
}

void UnregisterHandle(const void* p) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.live.erase(p);
}

absl::Status CheckHandle(const void* p, HandleKind kind, const char* function,
                         const char* argument) {
  if (p == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": ", argument, " is NULL"));
  }
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.live.find(p);
  if (it == r.live.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        function, ": ", argument, " is not a live ", KindName(kind),
        " of this plugin (already destroyed, or never created by it)"));
  }
  if (it->second != kind) {
    return absl::InvalidArgumentError(
        absl::StrCat(function, ": ", argument, " is a ", KindName(it->second),
                     ", expected a ", KindName(kind)));
  }
  return absl::OkStatus();
}

}  // namespace plexa::sdk
