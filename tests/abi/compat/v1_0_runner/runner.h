// The v1.0 runner plugin's objects and the helpers its entry points share
// (plugin.cc: errors, plugin, client, devices, events, buffers and the
// table; executable.cc: compile, execute, serialization, custom calls).
//
// The only ABI header is the FROZEN v1.0 one (tests/abi/frozen/v1_0): no
// SDK, no abi/shape, no current header. This is what a third party who
// wrote a real backend against ABI 1.0 ships, so today's host can be checked
// on the whole data path of an old plugin (tests/abi/v1_0_plugin_test.cc,
// the plexa_abi_v1_0_runner_* ctests). Every v1.0 slot does what the 1.0
// header says:
//   - errors: its own PLX_Error (a code and a message);
//   - a client with "num_devices" virtual devices (default 1, at most 8);
//   - buffers holding a Literal in the layout the caller gave (row-major,
//     minor_to_major or layout text), copied back in any
//     host_minor_to_major; Delete frees the contents, the handle stays;
//   - Compile of "hlo-text" with the core parser and verifier; execution by
//     the reference evaluator (core/eval), replicas on threads;
//   - donation as 1.0 said it: donated arguments are deleted when the
//     execution completes;
//   - events: the plugin is synchronous, so every event is ready when it
//     is handed out; IsReady, Await, OnReady and Destroy still behave as
//     the header says (OnReady calls back at once, on the calling thread);
//   - custom calls: a registry filled by PLX_CustomCall_Register (api
//     version 0, `void f(void* out, void** in)`, or 1, the typed call
//     frame), then the compile options' custom_call_libraries, then the
//     process (dlsym), resolved at compile time;
//   - Serialize / DeserializeExecutable: the program text and the compile
//     options, compiled again (targets resolved again).
#ifndef PLEXA_TESTS_ABI_COMPAT_V1_0_RUNNER_RUNNER_H_
#define PLEXA_TESTS_ABI_COMPAT_V1_0_RUNNER_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

static_assert(PLX_API_MAJOR == 1 && PLX_API_MINOR == 0,
              "the v1.0 runner plugin is built against the frozen 1.0 header "
              "only (tests/abi/frozen/v1_0)");

namespace plexa::v1_0_runner {

inline constexpr uint32_t kClientMagic = 0x31434c54;  // one per handle kind
inline constexpr uint32_t kBufferMagic = 0x31425546;
inline constexpr uint32_t kExecutableMagic = 0x31455845;
inline constexpr uint32_t kEventMagic = 0x31455654;
inline constexpr char kPlatform[] = "host";
inline constexpr char kFormat[] = "hlo-text";
inline constexpr int64_t kMaxDevices = 8;

// A PLX_ArrayShape view of a Shape, pointing into this object's members:
// never copied or moved once handed out (kept in a std::deque).
struct ShapeView {
  explicit ShapeView(const Shape& shape);
  ShapeView(const ShapeView&) = delete;
  ShapeView& operator=(const ShapeView&) = delete;

  std::vector<int64_t> dims, minor_to_major;
  std::string layout_text;
  PLX_ArrayShape view{};
};

// A registered or looked-up custom-call target.
struct Target {
  void* function = nullptr;
  int32_t api_version = 0;  // 0: original; 1: typed call frame
};
using Targets = absl::flat_hash_map<std::string, Target>;

// dlopen handles of the custom_call_libraries an executable was compiled
// with: closed when the executable is gone.
class Libraries {
 public:
  Libraries() = default;
  Libraries(const Libraries&) = delete;
  Libraries& operator=(const Libraries&) = delete;
  ~Libraries();
  void Add(void* handle) { handles_.push_back(handle); }
  const std::vector<void*>& handles() const { return handles_; }

 private:
  std::vector<void*> handles_;
};

struct ProgramOptions {
  int64_t num_replicas = 1;
  std::vector<int64_t> device_assignment;  // empty: replica r on device r
  std::vector<std::string> custom_call_libraries;
};

}  // namespace plexa::v1_0_runner

struct PLX_Error {
  PLX_Error_Code code;
  std::string message;
};

struct PLX_Device {
  int64_t id;
};

struct PLX_Client {
  uint32_t magic = plexa::v1_0_runner::kClientMagic;
  std::vector<std::unique_ptr<PLX_Device>> owned_devices;
  std::vector<PLX_Device*> devices;
  // Client_Destroy refuses while any is alive.
  std::atomic<int64_t> live_buffers{0};
  std::atomic<int64_t> live_executables{0};
};

struct PLX_Buffer {
  PLX_Buffer(PLX_Client* c, PLX_Device* d, plexa::Literal v);
  ~PLX_Buffer();

  // A copy of the contents; FAILED_PRECONDITION once deleted.
  absl::StatusOr<plexa::Literal> Read() const;
  void Delete();
  bool IsDeleted() const;

  uint32_t magic = plexa::v1_0_runner::kBufferMagic;
  PLX_Client* const client;
  PLX_Device* const device;
  const plexa::Shape shape;  // with the device layout
  const plexa::v1_0_runner::ShapeView view;

 private:
  mutable std::mutex mu_;
  std::optional<plexa::Literal> value_;  // guarded by mu_; empty: deleted
};

struct PLX_Event {
  uint32_t magic = plexa::v1_0_runner::kEventMagic;
  absl::Status status;  // a synchronous plugin: ready from the start
};

struct PLX_Executable {
  ~PLX_Executable();

  uint32_t magic = plexa::v1_0_runner::kExecutableMagic;
  PLX_Client* client = nullptr;  // counted in live_executables once set
  std::string program;           // the HLO text, for Serialize
  plexa::v1_0_runner::ProgramOptions options;
  std::unique_ptr<plexa::Module> module;
  std::vector<PLX_Device*> replica_devices;
  std::vector<plexa::Shape> parameters, outputs;  // outputs: result leaves
  std::deque<plexa::v1_0_runner::ShapeView> parameter_views, output_views;
  std::vector<PLX_ArrayShape> parameter_array, output_array;
  std::shared_ptr<const plexa::v1_0_runner::Targets> targets;
  std::shared_ptr<plexa::v1_0_runner::Libraries> libraries;
};

namespace plexa::v1_0_runner {

PLX_Error* NewError(const absl::Status& s);

// Runs an entry point's body: its status becomes an error whose message
// starts with the function's name; nothing throws across the ABI.
template <typename Body>
PLX_Error* Guard(const char* fn, Body&& body) {
  absl::Status s;
  try {
    s = body();
  } catch (const std::exception& e) {
    s = absl::InternalError(e.what());
  }
  if (s.ok()) return nullptr;
  return NewError(absl::Status(s.code(), absl::StrCat(fn, ": ", s.message())));
}

#define V1_0_RETURN_IF_ERROR(expr) \
  if (absl::Status s_ = (expr); !s_.ok()) return s_

// NULL args, or a struct_size below the v1.0 size or implausibly large.
template <typename Args>
absl::Status CheckArgs(const Args* args, size_t v1_size) {
  if (args == nullptr) return absl::InvalidArgumentError("args is NULL");
  if (args->struct_size < v1_size || args->struct_size > 65536) {
    return absl::InvalidArgumentError(absl::StrCat(
        "struct_size is ", args->struct_size, ", expected at least ", v1_size,
        " (the v1.0 size) and at most 65536"));
  }
  return absl::OkStatus();
}
#define V1_0_CHECK_ARGS(Type) \
  V1_0_RETURN_IF_ERROR(CheckArgs(args, Type##_STRUCT_SIZE))

// `h` is a live handle of the kind `magic` says.
template <typename Handle>
absl::Status CheckHandle(const Handle* h, uint32_t magic, const char* what) {
  if (h == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is NULL"));
  }
  if (h->magic != magic) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not a live handle of this plugin"));
  }
  return absl::OkStatus();
}

// Replica r runs on device r: as many replicas as devices at most.
absl::Status CheckReplicaCount(const PLX_Client& client, int64_t replicas);

// A new event, ready, carrying success.
PLX_Event* ReadyEvent();

// The v1.0 entry points executable.cc defines.
PLX_Error* ClientCompile(PLX_Client_Compile_Args* args);
PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args);
PLX_Error* ExecutableSignature(PLX_Executable_Signature_Args* args);
PLX_Error* ExecutableExecute(PLX_Executable_Execute_Args* args);
PLX_Error* ExecutableSerialize(PLX_Executable_Serialize_Args* args);
PLX_Error* ClientDeserializeExecutable(
    PLX_Client_DeserializeExecutable_Args* args);
PLX_Error* CustomCallRegister(PLX_CustomCall_Register_Args* args);

}  // namespace plexa::v1_0_runner

#endif  // PLEXA_TESTS_ABI_COMPAT_V1_0_RUNNER_RUNNER_H_
