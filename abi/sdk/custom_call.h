// Custom-call targets: a process-wide registry (filled through
// PLX_CustomCall_Register) and the resolver used at compile time.
//
// Resolution order (docs/abi.md): the registry, then the libraries named in
// the compile options (dlopen'ed in order), then the process itself
// (dlsym(RTLD_DEFAULT)). An unresolved target is NOT_FOUND naming the
// target and every place searched.
#ifndef PLEXA_ABI_SDK_CUSTOM_CALL_H_
#define PLEXA_ABI_SDK_CUSTOM_CALL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

namespace plexa::sdk {

// A library opened for custom calls; dlclose'd when the last owner lets go.
class CustomCallLibrary {
 public:
  // dlopen(path, RTLD_NOW | RTLD_LOCAL); an unloadable library is NOT_FOUND
  // naming it.
  static absl::StatusOr<std::shared_ptr<const CustomCallLibrary>> Open(
      const std::string& path);
  ~CustomCallLibrary();
  CustomCallLibrary(const CustomCallLibrary&) = delete;
  CustomCallLibrary& operator=(const CustomCallLibrary&) = delete;

  const std::string& path() const { return path_; }
  // dlsym in this library; nullptr when it does not export `symbol`.
  void* Find(const std::string& symbol) const;

 private:
  CustomCallLibrary(std::string path, void* handle)
      : path_(std::move(path)), handle_(handle) {}
  std::string path_;
  void* handle_;
};

struct CustomCallTarget {
  void* function = nullptr;
  int32_t api_version = 0;  // 0: void(void* out, void** in); 1: call frame
  std::string found_in;     // "registry", a library path, or "process"
  // The library `function` lives in (null for the registry and the
  // process). Whoever keeps `function` to call later keeps this too: the
  // code stays loaded as long as it is held.
  std::shared_ptr<const CustomCallLibrary> library;
};

class CustomCallRegistry {
 public:
  static CustomCallRegistry& Global();
  // `platform` must be ours or "*"; checked by the caller.
  void Register(const std::string& name, void* function, int32_t api_version);
  bool Lookup(absl::string_view name, CustomCallTarget* out) const;
  // Changes with every Register (compile caches key on it).
  uint64_t generation() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
  CustomCallRegistry();
};

// Resolves targets for one compilation. Libraries are opened when the
// resolver is created (an unloadable library is an error naming it) and
// stay loaded as long as the resolver or any target resolved from them
// (CustomCallTarget::library) is held.
class CustomCallResolver {
 public:
  static absl::StatusOr<std::shared_ptr<CustomCallResolver>> Create(
      const std::vector<std::string>& libraries);
  absl::StatusOr<CustomCallTarget> Resolve(absl::string_view name) const;

 private:
  CustomCallResolver() = default;
  std::vector<std::shared_ptr<const CustomCallLibrary>> libraries_;
};

// The typed convention (api_version 1): a call-frame buffer for `data`
// holding an array of `shape` in the row-major layout (dims point into
// `shape`, which must outlive the call).
PLX_CallFrameBuffer MakeCallFrameBuffer(void* data, const Shape& shape);

// Calls the api_version 1 target `function` with a PLX_CallFrame over
// `args`, `results` and `backend_config`. A non-zero return is an Internal
// error naming `call` (the instruction) and quoting the target's message.
absl::Status CallTypedCustomCall(void* function, absl::string_view call,
                                 absl::Span<const PLX_CallFrameBuffer> args,
                                 absl::Span<const PLX_CallFrameBuffer> results,
                                 absl::string_view backend_config);

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_CUSTOM_CALL_H_
