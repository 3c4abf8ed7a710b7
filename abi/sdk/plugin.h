// The plugin SDK: implement a Plexa plugin in C++ by subclassing Plugin,
// Client, Device, Buffer and Executable; PLEXA_DEFINE_PLUGIN turns them
// into the C function table (plexa_c_api.h) with every argument checked
// (NULL, struct_size, handles that are not live), every status converted
// to a PLX_Error, and nothing thrown across the boundary.
//
// A plugin links plexa_sdk (and the core) statically and exports only
// PLX_GetApi. See docs/abi.md for a complete ~50-line plugin.
#ifndef PLEXA_ABI_SDK_PLUGIN_H_
#define PLEXA_ABI_SDK_PLUGIN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "abi/sdk/event.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/module.h"
#include "core/runtime/custom_call.h"
#include "core/runtime/host_feeds.h"
#include "core/runtime/profiler.h"
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

namespace plexa::sdk {

class Client;

// Key/value options as given to PLX_Client_Create / compile options.
struct OptionValue {
  PLX_ValueKind kind = PLX_Value_STRING;
  std::string string_value;
  int64_t int64_value = 0;
  bool bool_value = false;
  double float_value = 0;
};
using Options = std::map<std::string, OptionValue>;

struct CompileOptions {
  int64_t num_replicas = 1;
  // ABI 1.3: the partitions of each replica; a plugin that runs them
  // returns an executable whose num_partitions() is this.
  int64_t num_partitions = 1;
  // num_replicas * num_partitions ids, replica-major.
  std::vector<int64_t> device_assignment;
  int32_t optimization_level = 2;
  std::vector<std::string> custom_call_libraries;
  Options options;
};

class Device;

// What PLX_Memory_Statistics reports (ABI 1.2); -1 where unknown.
struct MemoryStatistics {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t bytes_limit = -1;
  int64_t num_allocs = 0;
  int64_t largest_alloc_size = 0;
};

// One of a device's memories (ABI 1.2): where buffers can live. The SDK
// counts in it every buffer the host owns (on_device_size, from the
// buffer's creation until its memory is freed or donated); a plugin
// records its own allocations there too (execution temporaries) with
// RecordAllocation/RecordFree. Thread-safe.
class Memory {
 public:
  Memory(PLX_MemoryKind kind, std::string kind_name, Device* device,
         int64_t bytes_limit)
      : kind_(kind),
        kind_name_(std::move(kind_name)),
        device_(device),
        bytes_limit_(bytes_limit) {}
  PLX_MemoryKind kind() const { return kind_; }
  const std::string& kind_name() const { return kind_name_; }
  Device* device() const { return device_; }
  void RecordAllocation(int64_t bytes);
  void RecordFree(int64_t bytes);
  MemoryStatistics Statistics() const;

 private:
  const PLX_MemoryKind kind_;
  const std::string kind_name_;
  Device* const device_;
  const int64_t bytes_limit_;
  mutable std::mutex mu_;
  int64_t in_use_ = 0;                  // guarded by mu_
  int64_t peak_ = 0;                    // guarded by mu_
  std::multiset<int64_t> allocations_;  // guarded by mu_
};

class Device {
 public:
  // Every device has its default memory: kind DEVICE ("device"), limited
  // to memory_bytes (unknown when 0).
  Device(int64_t id, std::string kind, uint64_t memory_bytes = 0);
  virtual ~Device() = default;
  int64_t id() const { return id_; }
  const std::string& kind() const { return kind_; }
  uint64_t memory_bytes() const { return memory_bytes_; }
  Options& attributes() { return attributes_; }
  // The device's memories, the default first (ABI 1.2).
  std::vector<Memory*> memories() const;
  Memory* default_memory() const { return memories_.front().get(); }
  // Adds a memory (before the client is handed to the SDK); -1: no limit
  // known.
  Memory* AddMemory(PLX_MemoryKind kind, std::string kind_name,
                    int64_t bytes_limit);

 private:
  int64_t id_;
  std::string kind_;
  uint64_t memory_bytes_;
  Options attributes_;
  std::vector<std::unique_ptr<Memory>> memories_;
};

// A device-resident array.
class Buffer {
 public:
  // `shape` is an array shape with a layout.
  // `memory`: one of device's memories; null: its default memory.
  Buffer(Shape shape, Device* device, Memory* memory = nullptr)
      : shape_(std::move(shape)),
        device_(device),
        memory_(memory != nullptr ? memory : device->default_memory()) {}
  virtual ~Buffer() = default;

  const Shape& shape() const { return shape_; }
  Device* device() const { return device_; }
  Memory* memory() const { return memory_; }
  // Bytes the buffer occupies on the device.
  virtual size_t on_device_size() const = 0;
  // Copies the contents to host memory laid out as `host_shape` (same
  // dimensions and type, a layout of the host's choosing); dst has
  // ShapeUtil::ByteSizeOf(host_shape) bytes. The returned event is ready
  // when dst is filled (the default implementation is synchronous).
  virtual absl::StatusOr<std::shared_ptr<Event>> ToHostAsync(
      void* dst, const Shape& host_shape);
  virtual absl::Status ToHost(void* dst, const Shape& host_shape) = 0;
  // Frees the device memory. Further ToHost/Execute use is an error. The
  // SDK calls it only when no work that the SDK knows of (a queued call, an
  // execution it handed the buffer to) is pending on the buffer.
  virtual void Delete() = 0;
  virtual bool IsDeleted() const = 0;
  // Ready when the contents are valid (after an async upload or run), or
  // carrying the error of the work that failed to produce them: what
  // PLX_Buffer_ReadyEvent hands out (ABI 1.2).
  std::shared_ptr<Event> ready_event() const { return ready_; }
  void set_ready_event(std::shared_ptr<Event> e) { ready_ = std::move(e); }

 private:
  Shape shape_;
  Device* device_;
  Memory* memory_;
  std::shared_ptr<Event> ready_ = Event::Ready();
};

struct ExecuteResult {
  // outputs[replica][i]: the flattened result leaves.
  std::vector<std::vector<std::unique_ptr<Buffer>>> outputs;
  // One per replica, or empty when execution already completed.
  std::vector<std::shared_ptr<Event>> completion;
};

// What one PLX_Executable_Execute call carries besides the arguments.
struct ExecuteOptions {
  // The host's feed callbacks (a PLX_FeedsExtension on the call, ABI 1.1),
  // or null. Stays valid as long as a copy of the pointer is kept.
  std::shared_ptr<HostFeeds> feeds;
  // The host's profiler (a PLX_ProfilerExtension on the call, ABI 1.2), or
  // null. A plugin with PLX_CAPABILITY_PROFILER reports each step to it.
  std::shared_ptr<Profiler> profiler;
  // ABI 1.2: the client's log and scratch limit for typed custom calls
  // (CallTypedCustomCall); null: stderr and the machine's memory.
  std::shared_ptr<const CallFrameContext> call_frames;
  // ABI 1.2, only for an executable whose AcceptsPendingArguments() is
  // true (otherwise the SDK waits for them before calling): the host's
  // wait_events, every one of which must be ready before any replica
  // starts (an error among them fails the execution with it), and the
  // donated argument indices, whose buffers the plugin may reuse for its
  // outputs (the host can no longer read them).
  std::vector<std::shared_ptr<Event>> wait_events;
  std::vector<int64_t> donated;
  // The host waits for this execution's completion before the call
  // returns (PLX_Executable_Execute without completion_events): a plugin
  // that completes executions later may as well run this one on the
  // calling thread.
  bool synchronous = false;
};

// What PLX_Executable_Statistics reports (ABI 1.2); -1 (an empty
// fingerprint) where the plugin does not know.
struct ExecutableStatistics {
  std::string fingerprint;  // hex digits
  double flops = -1, transcendentals = -1, bytes_accessed = -1;
  int64_t argument_bytes = -1, output_bytes = -1, temp_bytes = -1,
          generated_code_bytes = -1;
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Array shapes with layouts; the SDK checks Execute's arguments against
  // them (count, type, dimensions) before calling Execute. Entry
  // parameters and results are flattened to their array leaves
  // (ShapeUtil::ArrayLeafShapes: tuples flattened, tokens left out).
  virtual const std::vector<Shape>& parameter_shapes() const = 0;
  virtual const std::vector<Shape>& output_shapes() const = 0;
  virtual int64_t num_replicas() const { return 1; }
  // ABI 1.3: the partitions of each replica (SPMD); Execute's args then
  // hold num_replicas() * num_partitions() lists, device d being replica
  // d / num_partitions(), partition d % num_partitions(). The SDK refuses a
  // compilation whose executable has another count than was asked for.
  virtual int64_t num_partitions() const { return 1; }
  // The unflattened entry signature (Signature's program_shape), e.g.
  // ProgramShape::ToString() of the entry computation; "" if unknown.
  virtual std::string program_shape() const { return ""; }
  // args[replica][i]. Thread-safe: called concurrently. A plugin overrides
  // one of the two: the SDK calls ExecuteWithOptions, whose default calls
  // Execute (which by default is UNIMPLEMENTED).
  virtual absl::StatusOr<ExecuteResult> Execute(
      absl::Span<const std::vector<Buffer*>> args);
  virtual absl::StatusOr<ExecuteResult> ExecuteWithOptions(
      absl::Span<const std::vector<Buffer*>> args,
      const ExecuteOptions& options);
  // ABI 1.2. false (the default): the SDK calls ExecuteWithOptions only
  // once every argument's ready event and every wait event is ready (it
  // queues the call on the client's work queue when one is pending, so
  // the host never waits), and the plugin may read its arguments at once.
  // true: the plugin orders the work itself: it is called at once with
  // arguments that may still be pending and options.wait_events, and
  // waits for them on its own queue before running (an argument's or wait
  // event's error fails the execution and its outputs with that error).
  virtual bool AcceptsPendingArguments() const { return false; }
  virtual absl::StatusOr<std::string> Serialize() const;
  // Default: the argument and output bytes (from the shapes above), the
  // rest unknown. Thread-safe.
  virtual absl::StatusOr<ExecutableStatistics> Statistics() const;
};

// A stable hex fingerprint of `parts` (FNV-1a, 64 bits): for executables'
// fingerprints (the optimized program's text, the plugin, the target).
std::string Fingerprint(absl::Span<const std::string> parts);

class Client {
 public:
  virtual ~Client() = default;
  virtual absl::Span<Device* const> devices() const = 0;
  // data holds ShapeUtil::ByteSizeOf(shape) bytes laid out as shape says
  // (checked by the SDK).
  virtual absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHost(
      const void* data, const Shape& shape, Device* device) = 0;
  // ABI 1.2: the same on `memory`, one of device's memories (checked by
  // the SDK). Default: the device's default memory through
  // BufferFromHost; any other is UNIMPLEMENTED naming it.
  virtual absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHostOn(
      const void* data, const Shape& shape, Device* device, Memory* memory);
  // ABI 1.2: the layout the plugin prefers for `shape` (dimensions and
  // type; its layout is ignored) on `memory`. Default: row-major.
  virtual absl::StatusOr<Layout> PreferredLayout(const Shape& shape,
                                                 Memory* memory) const;
  // ABI 1.2: whether buffers of the plugin can take `layout` for `shape`
  // (a device_layout request). Default: a dimension order only, no tiles,
  // element size or memory space.
  virtual absl::Status CheckDeviceLayout(const Shape& shape) const;
  // Default: through host memory. The SDK calls it (and BufferFromHost,
  // Buffer::ToHost and ToHostAsync) only once the source buffer and the
  // host's wait events are ready (ABI 1.2); a plugin that queues the copy
  // returns a buffer whose ready event is still pending.
  virtual absl::StatusOr<std::unique_ptr<Buffer>> CopyToDevice(Buffer* buffer,
                                                               Device* device);
  // The module is parsed and verified by the SDK; custom-call targets are
  // to be resolved with `resolver`, which knows the registry and the
  // libraries named in the options.
  virtual absl::StatusOr<std::unique_ptr<Executable>> Compile(
      std::unique_ptr<Module> module, const CompileOptions& options,
      const CustomCallResolver& resolver) = 0;
  virtual absl::StatusOr<std::unique_ptr<Executable>> Deserialize(
      absl::string_view bytes);
  // Default: replica r on device r % num_devices.
  virtual absl::StatusOr<std::vector<int64_t>> DefaultDeviceAssignment(
      int64_t num_replicas) const;
  // PLX_Client_Destroy calls it (with no buffer or executable left) before
  // anything is torn down: a plugin that completes work on threads of its
  // own (setting events, whose callbacks may free SDK buffers that refer
  // to this client's devices and memories) blocks here until that work is
  // done, and returns whether there was any (the SDK then drains its own
  // queue, which such work may have fed, and asks again). Default: none.
  virtual bool Quiesce() { return false; }
};

struct PluginInfo {
  std::string name;
  std::string vendor;
  std::string version;
  std::string platform;
  // Platforms whose custom-call targets the plugin also runs, besides its
  // own and "*" (PLX_CustomCall_Register refuses any other): the Vulkan
  // plugin runs "host" targets on mapped device memory between kernels.
  std::vector<std::string> custom_call_platforms;
  std::vector<std::string> formats = {"hlo-text"};
  uint64_t capabilities = 0;
  Options attributes;
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual PluginInfo Info() const = 0;
  virtual absl::Status Initialize() { return absl::OkStatus(); }
  // Options the plugin does not know must be rejected by name.
  virtual absl::StatusOr<std::unique_ptr<Client>> CreateClient(
      const Options& options) = 0;
  // ABI 1.2: the plugin's own extension tables, chained (PLX_Api.
  // extension_start; each begins with a PLX_ApiExtension), or null. They
  // must live as long as the process (static storage).
  virtual const PLX_Extension* ApiExtensions() const { return nullptr; }
};

// For the functions of a plugin's extension tables, which take the ABI's
// handles: the client behind `client` (a live PLX_Client of this plugin,
// else INVALID_ARGUMENT naming `function`), and a status as the PLX_Error
// such a function returns (NULL for OK).
absl::StatusOr<Client*> ClientFromHandle(PLX_Client* client,
                                         const char* function);
PLX_Error* StatusToError(absl::Status status);

// Builds the C table for a plugin made by `factory` (called once, on
// first use). The table and the plugin live until the process exits.
const PLX_Api* MakeApi(std::unique_ptr<Plugin> (*factory)());

// Rejects options not in `known` with an error naming the first one.
absl::Status CheckKnownOptions(const Options& options,
                               absl::Span<const char* const> known,
                               absl::string_view plugin_name);
// Reads an int64 option with a default; wrong kinds are errors.
absl::StatusOr<int64_t> GetIntOption(const Options& options,
                                     absl::string_view name, int64_t dflt);
// The same, and the value must lie in [lo, hi] (the error names the range).
// The client option every SDK plugin takes (handled by the SDK, never passed
// to Plugin::CreateClient): the largest array, in bytes, that a compiled
// program or a buffer creation may size; default the machine's memory.
// Larger ones fail with RESOURCE_EXHAUSTED naming the instruction.
inline constexpr const char kMemoryLimitOption[] = "memory_limit_bytes";

absl::StatusOr<int64_t> GetIntOptionInRange(const Options& options,
                                            absl::string_view name,
                                            int64_t dflt, int64_t lo,
                                            int64_t hi);
// The devices of `client` a compile's device assignment names, checked.
absl::StatusOr<std::vector<Device*>> AssignedDevices(
    const Client& client, absl::Span<const int64_t> assignment);

}  // namespace plexa::sdk

// Exports PLX_GetApi for the plugin made by `factory_fn` (a function
// `std::unique_ptr<plexa::sdk::Plugin> f()`).
#define PLEXA_DEFINE_PLUGIN(factory_fn)                   \
  extern "C" PLX_EXPORT const PLX_Api* PLX_GetApi(void) { \
    return ::plexa::sdk::MakeApi(factory_fn);             \
  }

#endif  // PLEXA_ABI_SDK_PLUGIN_H_
