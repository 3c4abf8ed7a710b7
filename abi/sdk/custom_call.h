// Custom-call targets: a process-wide registry (filled through
// PLX_CustomCall_Register) and the resolver used at compile time.
//
// Resolution order (docs/abi.md): the registry, then the libraries named in
// the compile options (dlopen'ed in order), then the process itself
// (dlsym(RTLD_DEFAULT)). An unresolved target is NOT_FOUND naming the
// target and every place searched.
#ifndef PLEXA_ABI_SDK_CUSTOM_CALL_H_
#define PLEXA_ABI_SDK_CUSTOM_CALL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace plexa::sdk {

struct CustomCallTarget {
  void* function = nullptr;
  int32_t api_version = 0;  // 0: void(void* out, void** in); 1: call frame
  std::string found_in;     // "registry", a library path, or "process"
};

class CustomCallRegistry {
 public:
  static CustomCallRegistry& Global();
  // `platform` must be ours or "*"; checked by the caller.
  void Register(const std::string& name, void* function, int32_t api_version);
  bool Lookup(absl::string_view name, CustomCallTarget* out) const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  CustomCallRegistry();
};

// Resolves targets for one compilation. Libraries are opened when the
// resolver is created (an unloadable library is an error naming it) and
// stay loaded as long as any executable holds the resolver.
class CustomCallResolver {
 public:
  static absl::StatusOr<std::shared_ptr<CustomCallResolver>> Create(
      const std::vector<std::string>& libraries);
  ~CustomCallResolver();
  absl::StatusOr<CustomCallTarget> Resolve(absl::string_view name) const;

 private:
  CustomCallResolver() = default;
  std::vector<std::pair<std::string, void*>> libraries_;  // path, handle
};

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_CUSTOM_CALL_H_
