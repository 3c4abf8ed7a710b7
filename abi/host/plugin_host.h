// The host side of the Plexa ABI: load plugins, and C++ RAII wrappers over
// the C API returning absl::StatusOr. What `plexa run` and the tests use.
//
//   auto plugin = host::Plugin::Load("reference");   // name or path
//   auto client = (*plugin)->CreateClient({});
//   auto exe = (*client)->Compile(text, "hlo-text", {});
//   auto in = (*client)->BufferFromLiteral(literal);
//   auto out = (*exe)->Execute({{in->get()}});
//   auto result = out[0][0]->ToLiteral();
//
// Loading checks the entry symbol, the ABI major (must equal ours), the
// table size and every v1.0 slot, and initializes the plugin; a mismatch is
// an error naming the plugin path and both versions. No handle is leaked on
// any failure path.
#ifndef PLEXA_ABI_HOST_PLUGIN_HOST_H_
#define PLEXA_ABI_HOST_PLUGIN_HOST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/literal/literal.h"
#include "core/runtime/custom_call.h"
#include "core/runtime/host_feeds.h"
#include "core/runtime/profiler.h"
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

namespace plexa::host {

class Client;
class Buffer;
class Executable;
class Event;

// Converts a PLX_Error into a status and destroys it. OK for NULL.
absl::Status ConsumeError(const PLX_Api* api, PLX_Error* error);

struct PluginAttributes {
  std::string name, vendor, version, platform;
  int32_t abi_major = 0, abi_minor = 0;
  std::vector<std::string> formats;
  uint64_t capabilities = 0;
};

class Plugin : public std::enable_shared_from_this<Plugin> {
 public:
  // `name_or_path`: a path (contains '/' or ends in ".so"), or a plugin
  // name looked up as libplexa_plugin_NAME.so in $PLEXA_PLUGIN_PATH
  // (':'-separated), then beside the running program (DIR, DIR/plugins,
  // DIR/../lib/plexa).
  static absl::StatusOr<std::shared_ptr<Plugin>> Load(
      const std::string& name_or_path);
  // Where a name is searched, in order.
  static std::vector<std::string> SearchDirectories();

  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  const PLX_Api* api() const { return api_; }
  const std::string& path() const { return path_; }
  const PluginAttributes& attributes() const { return attributes_; }
  bool HasCapability(uint64_t bit) const {
    return (attributes_.capabilities & bit) != 0;
  }
  // The ABI 1.2 asynchronous-execution slots (PLX_Buffer_ReadyEvent,
  // PLX_Client_CreateUserEvent, PLX_Event_Set): the plugin honours
  // wait_events. Without them (a 1.0/1.1 plugin) the host library waits for
  // a call's wait list itself, on the calling thread, before the call.
  bool HasAsyncEvents() const;
  // The ABI 1.2 memory and layout slots (PLX_Device_Memories ...
  // PLX_Buffer_Layout) and the fields memory, byte_strides and
  // device_layout of PLX_Client_BufferFromHost_Args, which a plugin
  // without them would not read.
  bool HasMemories() const;
  // ABI 1.2: the plugin's extension table of `type` (on PLX_Api.
  // extension_start) when its version is at least `min_version` and its
  // struct_size covers `min_size` bytes (what the caller will read); null
  // otherwise, and for a plugin without tables.
  const PLX_ApiExtension* FindApiExtension(int32_t type, int32_t min_version,
                                           size_t min_size) const;

  absl::Status RegisterCustomCall(const std::string& name, void* function,
                                  int32_t api_version,
                                  const std::string& platform = "*");

  struct Option {
    std::string name;
    PLX_ValueKind kind = PLX_Value_INT64;
    std::string string_value;
    int64_t int64_value = 0;
    bool bool_value = false;
    double float_value = 0;
  };
  // `extensions` is chained on PLX_Client_Create_Args (a
  // PLX_LoggerExtension, ABI 1.2: it must outlive the client).
  absl::StatusOr<std::unique_ptr<Client>> CreateClient(
      const std::vector<Option>& options = {},
      PLX_Extension* extensions = nullptr);

 private:
  Plugin() = default;
  void* handle_ = nullptr;
  const PLX_Api* api_ = nullptr;
  std::string path_;
  PluginAttributes attributes_;
};

struct DeviceInfo {
  PLX_Device* handle = nullptr;
  int64_t id = 0;
  std::string kind;
  uint64_t memory_bytes = 0;
  // The device's attributes (PLX_Device_Describe), each value as text:
  // strings as they are, integers and floats in decimal, bools as
  // true/false.
  std::vector<std::pair<std::string, std::string>> attributes;
};

// One of a device's memories (ABI 1.2).
struct MemoryInfo {
  PLX_Memory* handle = nullptr;
  int64_t id = 0;
  // The PLX_MemoryKind value as the plugin gave it: a later minor may add
  // kinds this host does not know (MemoryKindName says so).
  int64_t kind = 0;
  std::string kind_name;  // the plugin's own name ("device", ...)
  int64_t device_index = 0;
};
// The PLX_CAPABILITY_* bits set in `capabilities`, by name
// ("serialize-executable", ...); a bit this host does not know as
// "bit N (unknown to ABI 1.x)".
std::vector<std::string> CapabilityNames(uint64_t capabilities);

// "device", "host_visible", "host", or "kind N (unknown to ABI 1.x)".
std::string MemoryKindName(int64_t kind);

struct MemoryStatistics {
  int64_t bytes_in_use = -1, peak_bytes_in_use = -1, bytes_limit = -1,
          num_allocs = -1, largest_alloc_size = -1;
};

// Where and how an upload lands (ABI 1.2 fields of
// PLX_Client_BufferFromHost_Args).
struct UploadOptions {
  int64_t device_index = 0;
  PLX_Memory* memory = nullptr;         // null: the device's default memory
  std::optional<Layout> device_layout;  // unset: the host data's layout
};

struct CompileOptions {
  int64_t num_replicas = 1;
  // SPMD partitions of each replica (ABI 1.3; a plugin of an older minor
  // is refused more than one). Execute then takes num_replicas *
  // num_partitions argument lists, replica-major.
  int64_t num_partitions = 1;
  // num_replicas * num_partitions device ids, or empty for the default.
  std::vector<int64_t> device_assignment;
  int32_t optimization_level = 2;
  std::vector<std::string> custom_call_libraries;
};

// The C client is shared by the host::Client and every Buffer and
// Executable made from it: PLX_Client_Destroy runs when the last of them is
// gone, so objects may outlive the host::Client in any order (the ABI
// refuses to destroy a client that still has buffers or executables).
using ClientRef = std::shared_ptr<PLX_Client>;

// A plugin's event (PLX_Event), owned. For a plugin without ABI 1.2's
// asynchronous slots, Buffer::ReadyEvent gives a host-side event that is
// already ready (such a plugin's calls return only after their work).
// Thread-safe like PLX_Event: any method from any thread.
class Event {
 public:
  // Takes ownership of `event` (null: a host-side event, already ready).
  Event(std::shared_ptr<Plugin> plugin, PLX_Event* event)
      : plugin_(std::move(plugin)), event_(event) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Null for a host-side event.
  PLX_Event* handle() const { return event_; }
  const Plugin& plugin() const { return *plugin_; }
  bool IsReady() const;
  // Blocks until ready; the error the event carries.
  absl::Status Await() const;
  // fn(status) once, when ready: at once on this thread if it is, else on
  // the thread that makes it ready. fn must not block.
  absl::Status OnReady(std::function<void(absl::Status)> fn) const;
  // A user event (Client::CreateUserEvent) only: makes it ready, with
  // `status` (OK, or the error the work waiting on it fails with).
  absl::Status Set(const absl::Status& status);

 private:
  std::shared_ptr<Plugin> plugin_;
  PLX_Event* event_;  // null: host-side, ready
};

// What a call waits for (ABI 1.2 wait_events): events of this plugin are
// handed to it; events of another plugin are bridged with a user event of
// this client (set when theirs is); for a plugin without the 1.2 slots the
// host awaits them all before the call.
using WaitList = absl::Span<Event* const>;

class Client {
 public:
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const std::vector<DeviceInfo>& devices() const { return devices_; }
  Plugin& plugin() const { return *plugin_; }
  PLX_Client* handle() const { return client_.get(); }

  // Copies a literal (any layout) to device `device_index`.
  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromLiteral(
      const Literal& literal, int64_t device_index = 0);
  absl::StatusOr<std::unique_ptr<Executable>> Compile(
      absl::string_view program, const std::string& format,
      const CompileOptions& options = {});
  absl::StatusOr<std::unique_ptr<Executable>> DeserializeExecutable(
      absl::string_view bytes);

  // ABI 1.2. A user event of this client: pending until Event::Set.
  // UNIMPLEMENTED for a plugin without the asynchronous slots.
  absl::StatusOr<std::unique_ptr<Event>> CreateUserEvent();
  // An asynchronous upload: returns at once (after `wait`, for a plugin
  // without the 1.2 slots). `literal` must stay alive and unchanged until
  // done_with_host is ready.
  struct Upload {
    std::unique_ptr<Buffer> buffer;
    std::unique_ptr<Event> done_with_host;
  };
  absl::StatusOr<Upload> BufferFromLiteralAsync(const Literal& literal,
                                                int64_t device_index = 0,
                                                WaitList wait = {});
  // ABI 1.2 (UNIMPLEMENTED, naming the plugin's ABI, without the memory
  // slots): the memories of device `device_index`, the default first.
  absl::StatusOr<std::vector<MemoryInfo>> Memories(int64_t device_index) const;
  absl::StatusOr<MemoryStatistics> GetMemoryStatistics(
      const MemoryInfo& memory) const;
  // The layout the plugin prefers for `type` and `dims` on `memory` (null:
  // the first device's default memory).
  absl::StatusOr<Layout> PreferredLayout(PrimitiveType type,
                                         absl::Span<const int64_t> dims,
                                         PLX_Memory* memory = nullptr) const;
  // A synchronous upload of host data: dense as `shape` says (its layout)
  // when byte_strides is empty, else a strided view with `data` at element
  // [0, ..., 0] (shape's layout ignored) and data_size the bytes it spans.
  // With a plugin without the memory slots, strides are gathered on the
  // host and a memory or device layout is UNIMPLEMENTED.
  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHostData(
      const void* data, size_t data_size, const Shape& shape,
      absl::Span<const int64_t> byte_strides,
      const UploadOptions& options = {});
  // A copy to another device of this client; the copy's ReadyEvent tells
  // when it is done.
  absl::StatusOr<std::unique_ptr<Buffer>> CopyToDevice(const Buffer& buffer,
                                                       int64_t device_index,
                                                       WaitList wait = {});

 private:
  friend class Plugin;
  Client(std::shared_ptr<Plugin> plugin, PLX_Client* client);
  // BufferFromLiteral (synchronous: no event) and BufferFromLiteralAsync.
  absl::StatusOr<Upload> UploadLiteral(const Literal& literal,
                                       int64_t device_index, WaitList wait,
                                       bool synchronous);
  std::shared_ptr<Plugin> plugin_;
  ClientRef client_;
  std::vector<DeviceInfo> devices_;
};

class Buffer {
 public:
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  PLX_Buffer* handle() const { return buffer_; }
  // Array shape with the device layout.
  absl::StatusOr<Shape> shape() const;
  // Copies to host into a literal with the default layout.
  absl::StatusOr<Literal> ToLiteral() const;
  absl::Status Delete();
  absl::StatusOr<bool> IsDeleted() const;
  // ABI 1.2: ready when the contents are defined (or carrying the error of
  // the work that failed to produce them). For a plugin without the 1.2
  // slots: an event already ready.
  absl::StatusOr<std::unique_ptr<Event>> ReadyEvent() const;
  // ABI 1.2: the buffer's layout on the device (structured: tiles,
  // element size, memory space) and the memory it lives in.
  struct Placement {
    Layout layout;
    PLX_Memory* memory = nullptr;
  };
  absl::StatusOr<Placement> GetPlacement() const;
  // An asynchronous download into *out (given the buffer's shape in the
  // default layout here); *out must stay alive until the event is ready.
  absl::StatusOr<std::unique_ptr<Event>> ToLiteralAsync(
      Literal* out, WaitList wait = {}) const;
  // Copies the buffer, row-major, into caller memory of `dst_size` bytes
  // (at least the shape's byte size): what ToLiteral does, for a host that
  // owns its arrays (the Python package writes into numpy's storage).
  absl::Status ToHostBuffer(void* dst, size_t dst_size) const;
  // The same, asynchronously: `dst` is written until the event is ready.
  absl::StatusOr<std::unique_ptr<Event>> ToHostBufferAsync(
      void* dst, size_t dst_size, WaitList wait = {}) const;

 private:
  friend class Client;
  friend class Executable;
  Buffer(std::shared_ptr<Plugin> plugin, ClientRef client, PLX_Buffer* buffer)
      : plugin_(std::move(plugin)),
        client_(std::move(client)),
        buffer_(buffer) {}
  std::shared_ptr<Plugin> plugin_;
  ClientRef client_;  // released after the buffer is destroyed
  PLX_Buffer* buffer_;
};

class Executable {
 public:
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  PLX_Executable* handle() const { return executable_; }
  // The flattened signature: array leaves (tuples flattened, tokens left
  // out; ShapeUtil::ArrayLeafShapes).
  const std::vector<Shape>& parameter_shapes() const { return parameters_; }
  const std::vector<Shape>& output_shapes() const { return outputs_; }
  // The unflattened entry signature, when the plugin gives it (ABI 1.1).
  const std::optional<ProgramShape>& program_shape() const {
    return program_shape_;
  }
  int64_t num_replicas() const { return num_replicas_; }
  // 1 for a plugin of ABI 1.2 or older.
  int64_t num_partitions() const { return num_partitions_; }

  // args[replica][i] (array leaves, as parameter_shapes()); returns
  // outputs[replica][i] (the result's array leaves; AssembleFromArrayLeaves
  // rebuilds the result). Waits for completion. With `feeds`, the
  // program's infeed and outfeed talk to it (a PLX_FeedsExtension on the
  // call; the plugin needs PLX_CAPABILITY_FEEDS). `feeds` is used only
  // during the call. With `profiler`, a plugin with
  // PLX_CAPABILITY_PROFILER reports every step of the execution to it (a
  // PLX_ProfilerExtension; others run unprofiled).
  absl::StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Execute(
      const std::vector<std::vector<Buffer*>>& args,
      absl::Span<const int64_t> donated = {}, HostFeeds* feeds = nullptr,
      Profiler* profiler = nullptr);
  absl::StatusOr<std::string> Serialize() const;

  // ABI 1.2: the same, returning at once with outputs that may still be
  // pending (pass them straight to the next ExecuteAsync) and a completion
  // event per replica. The execution waits for its arguments and `wait`
  // inside the plugin (for a plugin without the 1.2 slots, the host waits
  // for `wait` first). Donated arguments are invalid from this call on.
  struct Async {
    std::vector<std::vector<std::unique_ptr<Buffer>>> outputs;
    std::vector<std::unique_ptr<Event>> completion;
  };
  absl::StatusOr<Async> ExecuteAsync(
      const std::vector<std::vector<Buffer*>>& args,
      absl::Span<const int64_t> donated = {}, WaitList wait = {},
      HostFeeds* feeds = nullptr, Profiler* profiler = nullptr);

  // PLX_Executable_Statistics (ABI 1.2): fingerprint, cost estimate, memory;
  // -1 where the plugin does not know. UNIMPLEMENTED for a plugin whose
  // table has no such slot (built for ABI 1.0 or 1.1).
  struct Statistics {
    std::string fingerprint;
    double flops = -1, transcendentals = -1, bytes_accessed = -1;
    int64_t argument_bytes = -1, output_bytes = -1, temp_bytes = -1,
            generated_code_bytes = -1;
  };
  absl::StatusOr<Statistics> GetStatistics() const;

 private:
  friend class Client;
  Executable(std::shared_ptr<Plugin> plugin, ClientRef client,
             PLX_Executable* executable)
      : plugin_(std::move(plugin)),
        client_(std::move(client)),
        executable_(executable) {}
  absl::Status LoadSignature();
  // Execute and ExecuteAsync: completion is null for a synchronous call.
  absl::StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>> Run(
      const std::vector<std::vector<Buffer*>>& args,
      absl::Span<const int64_t> donated, WaitList wait, HostFeeds* feeds,
      Profiler* profiler, std::vector<std::unique_ptr<Event>>* completion);
  std::shared_ptr<Plugin> plugin_;
  ClientRef client_;  // released after the executable is destroyed
  PLX_Executable* executable_;
  std::vector<Shape> parameters_;
  std::vector<Shape> outputs_;
  std::optional<ProgramShape> program_shape_;
  int64_t num_replicas_ = 1;
  int64_t num_partitions_ = 1;
};

// The buffers for one entry parameter on `device_index`: its array leaves
// (a tuple parameter needs PLX_CAPABILITY_TUPLE_PARAMETERS; an array gives
// one buffer, a token none).
absl::StatusOr<std::vector<std::unique_ptr<Buffer>>> ParameterBuffers(
    Client& client, const Literal& parameter, int64_t device_index = 0);

// Converts an array shape a plugin returned (with its layout) to a Shape,
// validated (abi::ShapeFromAbi); errors begin "plugin's <context>".
absl::StatusOr<Shape> ShapeFromAbi(const PLX_ArrayShape& shape,
                                   absl::string_view context);

}  // namespace plexa::host

#endif  // PLEXA_ABI_HOST_PLUGIN_HOST_H_
