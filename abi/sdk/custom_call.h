// Custom-call targets: a process-wide registry (filled through
// PLX_CustomCall_Register), the resolver used at compile time, and the
// typed call (api_version 1): the PLX_CallFrame of ABI 1.2 with its
// attributes, layouts, log and scratch memory.
//
// Resolution order (docs/abi.md): the registry, then the libraries named in
// the compile options (dlopen'ed in order), then the process itself
// (dlsym(RTLD_DEFAULT)). An unresolved target is NOT_FOUND naming the
// target and every place searched.
#ifndef PLEXA_ABI_SDK_CUSTOM_CALL_H_
#define PLEXA_ABI_SDK_CUSTOM_CALL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi/sdk/custom_call_attributes.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
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

// ---- The typed call frame (api_version 1; ABI 1.2 fields) ----

// What a client lends the typed custom calls of its executables: its log
// (the host's PLX_LoggerExtension, else stderr) and its memory limit, which
// bounds the scratch memory of one call. Shared by the client and the
// executions in flight. Thread-safe.
class CallFrameContext {
 public:
  // stderr, scratch up to `scratch_limit_bytes` per call.
  explicit CallFrameContext(int64_t scratch_limit_bytes);
  // The host's log: `callback(user_data, ...)`; callback is not null.
  CallFrameContext(PLX_Log_Callback* callback, void* user_data,
                   int64_t scratch_limit_bytes);
  // stderr and the machine's memory: for executions the SDK did not start.
  static const CallFrameContext& Default();

  // One line to the host's callback, or to stderr as
  // "plexa WARNING: <message>".
  void Log(PLX_LogSeverity severity, absl::string_view message) const;
  int64_t scratch_limit_bytes() const { return scratch_limit_bytes_; }

 private:
  PLX_Log_Callback* callback_ = nullptr;
  void* user_data_ = nullptr;
  int64_t scratch_limit_bytes_;
};

// Reads the PLX_LoggerExtension in an args struct's extension chain (other
// types are skipped): a context logging to it, or to stderr when there is
// none. A bad extension (struct_size, NULL callback, two of them, a cycle)
// is InvalidArgument naming `fn`.
absl::StatusOr<std::shared_ptr<const CallFrameContext>> ReadCallFrameContext(
    const PLX_Extension* chain, const char* fn, int64_t scratch_limit_bytes);

// One array a typed target reads or writes: `data` (a host pointer for a
// host-memory plugin) holding an array of `shape` in the shape's layout
// (none: row-major). `shape` must outlive the call.
struct CallFrameArray {
  void* data = nullptr;
  const Shape* shape = nullptr;
};

// A custom call with a typed target, as compiled: everything each call of
// the instruction passes besides its buffers. Immutable; shared by the
// executions of a program.
struct TypedCustomCall {
  // For api_version=API_VERSION_TYPED_FFI, parses `h`'s backend_config as
  // the attribute dictionary (custom_call_attributes.h) once, now; a
  // malformed one is InvalidArgument naming the instruction and the
  // offset. Other api_versions get no attributes (backend_config stays the
  // text). `platform` is what the frame's platform says ("cpu", ...).
  static absl::StatusOr<std::shared_ptr<const TypedCustomCall>> Create(
      const Instruction& h, CustomCallTarget target, std::string platform);

  CustomCallTarget target;  // api_version 1; holds its library
  std::string instruction;  // the custom call's name
  std::string target_name;  // its custom_call_target
  std::string platform;
  std::string backend_config;
  std::shared_ptr<const CustomCallAttributes> attributes;  // never null
};

// For a plugin whose buffers are device memory (a frame with a stream):
// `bytes` of it aligned to `alignment` (checked: a power of two, at most
// 4096) for one call's scratch, kept until the work the target records
// into the stream is done (the plugin's business), or nullptr with the
// reason in `*why`.
using DeviceScratch =
    std::function<void*(size_t bytes, size_t alignment, std::string* why)>;

// Calls `call`'s target with a PLX_CallFrame over `args` and `results` (the
// array leaves of the operands and of the result, in order): platform,
// `stream` (NULL for host-memory plugins), each array's shape with its
// layout, the attributes, and the call-frame API (log through `context`,
// prefixed with "custom-call <instruction>: "; scratch: host memory freed
// when the target returns, or with a `stream`, device memory from
// `device_scratch` (none: NULL and logged)). A non-zero return is an error with
// the frame's error_code (0 or not a PLX_Error_Code: INTERNAL) naming the
// instruction and the target and quoting the target's message. `context` null:
// the default (stderr). Thread-safe.
absl::Status CallTypedCustomCall(const TypedCustomCall& call,
                                 absl::Span<const CallFrameArray> args,
                                 absl::Span<const CallFrameArray> results,
                                 const CallFrameContext* context,
                                 void* stream = nullptr,
                                 const DeviceScratch* device_scratch = nullptr);

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_CUSTOM_CALL_H_
