// The C handle types behind plexa_c_api.h's opaque pointers, and the
// registry of live handles that lets every entry point reject a pointer
// that was never returned or was already destroyed (instead of crashing).
#ifndef PLEXA_ABI_SDK_HANDLES_H_
#define PLEXA_ABI_SDK_HANDLES_H_

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abi/sdk/async_work.h"
#include "abi/sdk/plugin.h"
#include "abi/shape/abi_shape.h"
#include "absl/status/status.h"

struct PLX_Error {
  absl::Status status;
  std::string message;
};

struct PLX_Event {
  std::shared_ptr<plexa::sdk::Event> event;
  // Made by PLX_Client_CreateUserEvent: the host sets it (PLX_Event_Set).
  bool user = false;
};

struct PLX_Memory {
  plexa::sdk::Memory* impl;
  PLX_Device* device;
  int64_t id;  // numbered across the client, in device order
};

struct PLX_Device {
  plexa::sdk::Device* impl;
  PLX_Client* client;
  std::vector<PLX_NamedValue> attributes;
  std::vector<std::string> attribute_strings;
  // ABI 1.2: the device's memories, the default first.
  std::vector<std::unique_ptr<PLX_Memory>> memory_handles;
  std::vector<PLX_Memory*> memories;
};

struct PLX_Client {
  std::unique_ptr<plexa::sdk::Client> impl;
  std::vector<std::unique_ptr<PLX_Device>> device_handles;
  std::vector<PLX_Device*> devices;
  std::atomic<int64_t> live_buffers{0};
  std::atomic<int64_t> live_executables{0};
  // Client option "memory_limit_bytes" (the SDK's own; the plugin never
  // sees it), else the machine's memory: every array a compiled program or
  // a buffer creation sizes must fit.
  int64_t memory_limit_bytes = 0;
  // What the typed custom calls of its executables log to (the host's
  // PLX_LoggerExtension, else stderr) and their scratch limit (ABI 1.2).
  std::shared_ptr<const plexa::sdk::CallFrameContext> call_frames;
  // Calls whose dependencies are pending run here (ABI 1.2); drained
  // before the plugin's client goes.
  std::unique_ptr<plexa::sdk::WorkQueue> queue =
      std::make_unique<plexa::sdk::WorkQueue>();
  // The client's user events, set with CANCELLED when the client goes.
  std::mutex user_events_mu;
  std::vector<std::weak_ptr<plexa::sdk::Event>> user_events;
  // PLX_Client_PreferredLayout's answers, kept for the caller (they live
  // as long as the client), one per distinct layout.
  std::mutex preferred_layouts_mu;
  std::deque<plexa::abi::LayoutStorage> preferred_layouts;
};

// Storage behind a PLX_ArrayShape handed out to the caller (never moves).
using ArrayShapeStorage = plexa::abi::ArrayShapeStorage;

struct PLX_Buffer {
  // Shared with pending work that produces or reads the buffer: the
  // plugin's memory lives until that work is done (ABI 1.2).
  std::shared_ptr<plexa::sdk::BufferSlot> slot;
  PLX_Client* client;
  ArrayShapeStorage shape;
  // PLX_Buffer_Layout's arrays (the buffer's shape never changes).
  plexa::abi::LayoutStorage layout;
};

struct PLX_Executable {
  // Shared with executions queued behind pending dependencies.
  std::shared_ptr<plexa::sdk::Executable> impl;
  PLX_Client* client;
  // The device of each replica (the compile's device assignment), where a
  // queued execution's outputs will be.
  std::vector<plexa::sdk::Device*> replica_devices;
  std::shared_ptr<plexa::sdk::CustomCallResolver> resolver;
  std::deque<ArrayShapeStorage> parameter_storage;
  std::deque<ArrayShapeStorage> output_storage;
  std::vector<PLX_ArrayShape> parameters;
  std::vector<PLX_ArrayShape> outputs;
  std::string program_shape;  // empty: not known (Signature gives NULL)
  // PLX_Executable_Statistics' fingerprint, kept for the caller (computed
  // on first call; guarded by the mutex).
  std::mutex statistics_mu;
  std::string fingerprint;
};

namespace plexa::sdk {

enum class HandleKind {
  kClient,
  kDevice,
  kBuffer,
  kExecutable,
  kEvent,
  kMemory
};

// Process-wide; thread-safe.
void RegisterHandle(const void* p, HandleKind kind);
void UnregisterHandle(const void* p);
// OK if `p` is a live handle of `kind`; otherwise an InvalidArgument that
// names the function, the argument and what is wrong with it.
absl::Status CheckHandle(const void* p, HandleKind kind, const char* function,
                         const char* argument);

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_HANDLES_H_
