#include "core/runtime/custom_call.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace plexa {
namespace {

struct Registry {
  std::mutex mu;
  absl::flat_hash_map<std::string, CustomCallTarget> targets;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed
  return *registry;
}

}  // namespace

void RegisterCustomCallTarget(absl::string_view name, CustomCallTarget target) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.targets[std::string(name)] = target;
}

CustomCallTarget FindRegisteredCustomCallTarget(absl::string_view name) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.targets.find(std::string(name));
  return it == r.targets.end() ? nullptr : it->second;
}

CustomCallTarget DefaultCustomCallResolver(absl::string_view name) {
  if (CustomCallTarget t = FindRegisteredCustomCallTarget(name)) return t;
  const std::string symbol(name);
  void* sym = dlsym(RTLD_DEFAULT, symbol.c_str());
  return reinterpret_cast<CustomCallTarget>(sym);
}

}  // namespace plexa
