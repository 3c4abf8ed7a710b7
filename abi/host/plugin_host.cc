#include "abi/host/plugin_host.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <type_traits>

#include "abi/shape/abi_shape.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"

namespace plexa::host {
namespace {

// Fills struct_size and zeroes the rest: every call site starts from this.
template <typename Args>
Args MakeArgs(size_t size) {
  Args a{};
  a.struct_size = size;
  return a;
}
#define PLX_ARGS(Type) MakeArgs<Type>(Type##_STRUCT_SIZE)

#define RETURN_IF_PLX_ERROR(api, call) \
  if (absl::Status s_ = ConsumeError((api), (call)); !s_.ok()) return s_

std::string ExecutableDirectory() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return ".";
  return exe.parent_path().string();
}

// Every v1.0 slot, with its name, for the completeness check.
struct SlotCheck {
  const char* name;
  size_t offset;
};
#define PLX_SLOT(s) \
  { #s, offsetof(PLX_Api, s) }
constexpr SlotCheck kV1Slots[] = {
    PLX_SLOT(PLX_Error_Destroy),
    PLX_SLOT(PLX_Error_Message),
    PLX_SLOT(PLX_Error_GetCode),
    PLX_SLOT(PLX_Plugin_Initialize),
    PLX_SLOT(PLX_Plugin_Attributes),
    PLX_SLOT(PLX_Client_Create),
    PLX_SLOT(PLX_Client_Destroy),
    PLX_SLOT(PLX_Client_Devices),
    PLX_SLOT(PLX_Client_DefaultDeviceAssignment),
    PLX_SLOT(PLX_Device_Describe),
    PLX_SLOT(PLX_Event_Destroy),
    PLX_SLOT(PLX_Event_IsReady),
    PLX_SLOT(PLX_Event_Await),
    PLX_SLOT(PLX_Event_OnReady),
    PLX_SLOT(PLX_Client_BufferFromHost),
    PLX_SLOT(PLX_Buffer_Shape),
    PLX_SLOT(PLX_Buffer_ToHost),
    PLX_SLOT(PLX_Buffer_CopyToDevice),
    PLX_SLOT(PLX_Buffer_Delete),
    PLX_SLOT(PLX_Buffer_IsDeleted),
    PLX_SLOT(PLX_Buffer_Destroy),
    PLX_SLOT(PLX_Client_Compile),
    PLX_SLOT(PLX_Executable_Destroy),
    PLX_SLOT(PLX_Executable_Signature),
    PLX_SLOT(PLX_Executable_Execute),
    PLX_SLOT(PLX_Executable_Serialize),
    PLX_SLOT(PLX_Client_DeserializeExecutable),
    PLX_SLOT(PLX_CustomCall_Register),
};
#undef PLX_SLOT

// Closes a dlopen handle unless released.
struct HandleCloser {
  void* handle;
  ~HandleCloser() {
    if (handle) dlclose(handle);
  }
};

}  // namespace

absl::Status ConsumeError(const PLX_Api* api, PLX_Error* error) {
  if (error == nullptr) return absl::OkStatus();
  auto msg_args = PLX_ARGS(PLX_Error_Message_Args);
  msg_args.error = error;
  api->PLX_Error_Message(&msg_args);
  std::string message(msg_args.message ? msg_args.message : "",
                      msg_args.message_size);
  auto code_args = PLX_ARGS(PLX_Error_GetCode_Args);
  code_args.error = error;
  absl::StatusCode code = absl::StatusCode::kUnknown;
  if (PLX_Error* code_error = api->PLX_Error_GetCode(&code_args);
      code_error == nullptr) {
    code = static_cast<absl::StatusCode>(code_args.code);
  } else {
    // Cannot happen with a correct plugin; do not leak the second error.
    auto d = PLX_ARGS(PLX_Error_Destroy_Args);
    d.error = code_error;
    api->PLX_Error_Destroy(&d);
  }
  auto destroy = PLX_ARGS(PLX_Error_Destroy_Args);
  destroy.error = error;
  api->PLX_Error_Destroy(&destroy);
  if (code == absl::StatusCode::kOk) code = absl::StatusCode::kUnknown;
  return absl::Status(code, message);
}

std::vector<std::string> Plugin::SearchDirectories() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("PLEXA_PLUGIN_PATH")) {
    for (absl::string_view d : absl::StrSplit(env, ':', absl::SkipEmpty())) {
      dirs.emplace_back(d);
    }
  }
  const std::string exe_dir = ExecutableDirectory();
  dirs.push_back(exe_dir);
  dirs.push_back(exe_dir + "/plugins");
  dirs.push_back(exe_dir + "/../lib/plexa");
  return dirs;
}

absl::StatusOr<std::shared_ptr<Plugin>> Plugin::Load(
    const std::string& name_or_path) {
  std::string path = name_or_path;
  const bool is_path = absl::StrContains(name_or_path, '/') ||
                       absl::EndsWith(name_or_path, ".so");
  if (!is_path) {
    const std::string file =
        absl::StrCat("libplexa_plugin_", name_or_path, ".so");
    std::vector<std::string> tried;
    path.clear();
    for (const std::string& dir : SearchDirectories()) {
      std::string candidate = absl::StrCat(dir, "/", file);
      if (std::filesystem::exists(candidate)) {
        path = candidate;
        break;
      }
      tried.push_back(dir);
    }
    if (path.empty()) {
      return absl::NotFoundError(
          absl::StrCat("no plugin named '", name_or_path, "': ", file,
                       " is not in ", absl::StrJoin(tried, ", "),
                       " (set PLEXA_PLUGIN_PATH or give a path)"));
    }
  }
  HandleCloser handle{dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (handle.handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(absl::StrCat(
        "cannot load plugin '", path, "': ", why ? why : "dlopen failed"));
  }
  auto* get_api = reinterpret_cast<PLX_GetApi_Fn*>(
      dlsym(handle.handle, PLX_GET_API_SYMBOL));
  if (get_api == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path, "' is not a Plexa plugin: it does not export ",
                     PLX_GET_API_SYMBOL));
  }
  const PLX_Api* api = get_api();
  if (api == nullptr) {
    return absl::InternalError(
        absl::StrCat("plugin '", path, "': PLX_GetApi returned NULL"));
  }
  // The version is at a fixed place in every major; read it first.
  const size_t version_end =
      offsetof(PLX_Api, version) + PLX_STRUCT_SIZE(PLX_ApiVersion, minor);
  if (api->struct_size < version_end) {
    return absl::InvalidArgumentError(absl::StrCat(
        "plugin '", path, "': its function table is ", api->struct_size,
        " bytes, too small to hold an ABI version"));
  }
  if (api->version.major != PLX_API_MAJOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "plugin '", path, "' was built for Plexa ABI ", api->version.major, ".",
        api->version.minor, "; this host speaks ABI ", PLX_API_MAJOR, ".",
        PLX_API_MINOR,
        ". Plugins load only into hosts of the same major "
        "version: rebuild the plugin against ABI ",
        PLX_API_MAJOR, ".x"));
  }
  if (api->struct_size < PLX_Api_STRUCT_SIZE_1_0) {
    return absl::FailedPreconditionError(
        absl::StrCat("plugin '", path, "' (ABI ", api->version.major, ".",
                     api->version.minor, ") has a ", api->struct_size,
                     "-byte function table; ABI ", PLX_API_MAJOR,
                     ".0 requires ", PLX_Api_STRUCT_SIZE_1_0));
  }
  for (const SlotCheck& slot : kV1Slots) {
    void* fn;
    std::memcpy(&fn, reinterpret_cast<const char*>(api) + slot.offset,
                sizeof(fn));
    if (fn == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "plugin '", path, "' leaves the required ABI 1.0 entry point ",
          slot.name, " empty"));
    }
  }
  std::shared_ptr<Plugin> plugin(new Plugin());
  plugin->api_ = api;
  plugin->path_ = path;

  auto init = PLX_ARGS(PLX_Plugin_Initialize_Args);
  RETURN_IF_PLX_ERROR(api, api->PLX_Plugin_Initialize(&init));
  auto attrs = PLX_ARGS(PLX_Plugin_Attributes_Args);
  RETURN_IF_PLX_ERROR(api, api->PLX_Plugin_Attributes(&attrs));
  PluginAttributes& a = plugin->attributes_;
  a.name = attrs.name ? attrs.name : "";
  a.vendor = attrs.vendor ? attrs.vendor : "";
  a.version = attrs.version ? attrs.version : "";
  a.platform = attrs.platform ? attrs.platform : "";
  a.abi_major = attrs.abi_major;
  a.abi_minor = attrs.abi_minor;
  for (size_t i = 0; i < attrs.num_formats; ++i) {
    if (attrs.formats && attrs.formats[i])
      a.formats.emplace_back(attrs.formats[i]);
  }
  a.capabilities = attrs.capabilities;
  // Ownership of the dlopen handle passes to the plugin object only now
  // that everything succeeded.
  plugin->handle_ = handle.handle;
  handle.handle = nullptr;
  return plugin;
}

Plugin::~Plugin() {
  if (handle_) dlclose(handle_);
}

bool Plugin::HasAsyncEvents() const {
  return PLX_API_HAS_SLOT(api_, PLX_Buffer_ReadyEvent) &&
         PLX_API_HAS_SLOT(api_, PLX_Client_CreateUserEvent) &&
         PLX_API_HAS_SLOT(api_, PLX_Event_Set);
}

bool Plugin::HasMemories() const {
  return PLX_API_HAS_SLOT(api_, PLX_Device_Memories) &&
         PLX_API_HAS_SLOT(api_, PLX_Memory_Describe) &&
         PLX_API_HAS_SLOT(api_, PLX_Memory_Statistics) &&
         PLX_API_HAS_SLOT(api_, PLX_Client_PreferredLayout) &&
         PLX_API_HAS_SLOT(api_, PLX_Buffer_Layout);
}

const PLX_ApiExtension* Plugin::FindApiExtension(int32_t type,
                                                 int32_t min_version,
                                                 size_t min_size) const {
  // A 1.0/1.1 plugin's extension_start is NULL (the header said so since
  // 1.0); a chain is bounded in case a table's `next` is garbage.
  const PLX_Extension* e = api_->extension_start;
  for (int n = 0; e != nullptr && n < 1024; e = e->next, ++n) {
    if (e->type != type) continue;
    if (e->struct_size < std::max(min_size, PLX_ApiExtension_STRUCT_SIZE)) {
      return nullptr;
    }
    const auto* table = reinterpret_cast<const PLX_ApiExtension*>(e);
    return table->version >= min_version ? table : nullptr;
  }
  return nullptr;
}

std::vector<std::string> CapabilityNames(uint64_t capabilities) {
  static constexpr std::pair<uint64_t, const char*> kKnown[] = {
      {PLX_CAPABILITY_SERIALIZE_EXECUTABLE, "serialize-executable"},
      {PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL, "custom-call-original"},
      {PLX_CAPABILITY_CUSTOM_CALL_TYPED, "custom-call-typed"},
      {PLX_CAPABILITY_REPLICAS, "replicas"},
      {PLX_CAPABILITY_DEVICE_MEMORY_IS_HOST, "device-memory-is-host"},
      {PLX_CAPABILITY_ASYNC_TRANSFERS, "async-transfers"},
      {PLX_CAPABILITY_FEEDS, "feeds"},
      {PLX_CAPABILITY_TUPLE_PARAMETERS, "tuple-parameters"},
      {PLX_CAPABILITY_PROFILER, "profiler"},
      {PLX_CAPABILITY_PARTITIONS, "partitions"},
  };
  std::vector<std::string> names;
  uint64_t known = 0;
  for (const auto& [bit, name] : kKnown) {
    known |= bit;
    if ((capabilities & bit) != 0) names.emplace_back(name);
  }
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t mask = uint64_t{1} << bit;
    if ((capabilities & mask) != 0 && (known & mask) == 0) {
      names.push_back(absl::StrCat("bit ", bit, " (unknown to ABI ",
                                   PLX_API_MAJOR, ".", PLX_API_MINOR, ")"));
    }
  }
  return names;
}

std::string MemoryKindName(int64_t kind) {
  switch (kind) {
    case PLX_MemoryKind_DEVICE:
      return "device";
    case PLX_MemoryKind_HOST_VISIBLE:
      return "host_visible";
    case PLX_MemoryKind_HOST:
      return "host";
    default:
      return absl::StrCat("kind ", kind, " (unknown to ABI ", PLX_API_MAJOR,
                          ".", PLX_API_MINOR, ")");
  }
}

// ------------------------------------------------------------------ Event

Event::~Event() {
  if (event_ == nullptr) return;
  auto args = PLX_ARGS(PLX_Event_Destroy_Args);
  args.event = event_;
  ConsumeError(plugin_->api(), plugin_->api()->PLX_Event_Destroy(&args))
      .IgnoreError();
}

bool Event::IsReady() const {
  if (event_ == nullptr) return true;
  auto args = PLX_ARGS(PLX_Event_IsReady_Args);
  args.event = event_;
  // A live handle cannot fail; if it did, "ready" makes Await report it.
  if (!ConsumeError(plugin_->api(), plugin_->api()->PLX_Event_IsReady(&args))
           .ok()) {
    return true;
  }
  return args.is_ready;
}

absl::Status Event::Await() const {
  if (event_ == nullptr) return absl::OkStatus();
  auto args = PLX_ARGS(PLX_Event_Await_Args);
  args.event = event_;
  return ConsumeError(plugin_->api(), plugin_->api()->PLX_Event_Await(&args));
}

namespace {
struct OnReadyCall {
  const PLX_Api* api;
  std::function<void(absl::Status)> fn;
};
void OnReadyTrampoline(PLX_Error* error, void* user) {
  std::unique_ptr<OnReadyCall> call(static_cast<OnReadyCall*>(user));
  call->fn(ConsumeError(call->api, error));
}
}  // namespace

absl::Status Event::OnReady(std::function<void(absl::Status)> fn) const {
  if (event_ == nullptr) {
    fn(absl::OkStatus());
    return absl::OkStatus();
  }
  auto call =
      std::make_unique<OnReadyCall>(OnReadyCall{plugin_->api(), std::move(fn)});
  auto args = PLX_ARGS(PLX_Event_OnReady_Args);
  args.event = event_;
  args.callback = OnReadyTrampoline;
  args.user_arg = call.get();
  absl::Status s =
      ConsumeError(plugin_->api(), plugin_->api()->PLX_Event_OnReady(&args));
  if (s.ok()) call.release();  // the trampoline owns it now
  return s;
}

absl::Status Event::Set(const absl::Status& status) {
  if (event_ == nullptr || !plugin_->HasAsyncEvents()) {
    return absl::FailedPreconditionError(
        "Event::Set: not a user event (Client::CreateUserEvent)");
  }
  auto args = PLX_ARGS(PLX_Event_Set_Args);
  args.event = event_;
  args.code = static_cast<PLX_Error_Code>(status.code());
  args.message = status.message().data();
  args.message_size = status.message().size();
  return ConsumeError(plugin_->api(), plugin_->api()->PLX_Event_Set(&args));
}

namespace {

// The PLX_Event handles to pass as a call's wait_events (see WaitList).
// `bridges` keeps the user events made for other plugins' events.
absl::StatusOr<std::vector<PLX_Event*>> PrepareWaitList(
    const std::shared_ptr<Plugin>& plugin, PLX_Client* client, WaitList wait,
    std::vector<std::shared_ptr<Event>>* bridges) {
  std::vector<PLX_Event*> handles;
  for (Event* e : wait) {
    if (e == nullptr) {
      return absl::InvalidArgumentError("a wait list holds a null event");
    }
  }
  if (!plugin->HasAsyncEvents()) {
    // The plugin would not read wait_events: wait here.
    for (Event* e : wait) PLEXA_RETURN_IF_ERROR(e->Await());
    return handles;
  }
  for (Event* e : wait) {
    if (e->handle() == nullptr) continue;  // host-side: ready
    if (&e->plugin() == plugin.get()) {
      handles.push_back(e->handle());
      continue;
    }
    // Another plugin's event: a user event of ours follows it.
    auto u = PLX_ARGS(PLX_Client_CreateUserEvent_Args);
    u.client = client;
    RETURN_IF_PLX_ERROR(plugin->api(),
                        plugin->api()->PLX_Client_CreateUserEvent(&u));
    std::shared_ptr<Event> bridge(new Event(plugin, u.event));
    PLEXA_RETURN_IF_ERROR(
        e->OnReady([bridge](absl::Status s) { bridge->Set(s).IgnoreError(); }));
    handles.push_back(u.event);
    // Held by the callback until it has run, and by the caller until the
    // call has taken the handle.
    bridges->push_back(std::move(bridge));
  }
  return handles;
}

}  // namespace

absl::Status Plugin::RegisterCustomCall(const std::string& name, void* function,
                                        int32_t api_version,
                                        const std::string& platform) {
  auto args = PLX_ARGS(PLX_CustomCall_Register_Args);
  args.name = name.c_str();
  args.platform = platform.c_str();
  args.function = function;
  args.api_version = api_version;
  return ConsumeError(api_, api_->PLX_CustomCall_Register(&args));
}

absl::StatusOr<std::unique_ptr<Client>> Plugin::CreateClient(
    const std::vector<Option>& options, PLX_Extension* extensions) {
  std::vector<PLX_NamedValue> values;
  for (const Option& o : options) {
    PLX_NamedValue v{};
    v.struct_size = PLX_NamedValue_STRUCT_SIZE;
    v.name = o.name.c_str();
    v.kind = o.kind;
    v.string_value = o.string_value.c_str();
    v.int64_value = o.int64_value;
    v.bool_value = o.bool_value;
    v.float_value = o.float_value;
    values.push_back(v);
  }
  auto args = PLX_ARGS(PLX_Client_Create_Args);
  args.extension_start = extensions;
  args.options = values.data();
  args.num_options = values.size();
  RETURN_IF_PLX_ERROR(api_, api_->PLX_Client_Create(&args));
  std::unique_ptr<Client> client(new Client(shared_from_this(), args.client));
  auto devs = PLX_ARGS(PLX_Client_Devices_Args);
  devs.client = args.client;
  RETURN_IF_PLX_ERROR(api_, api_->PLX_Client_Devices(&devs));
  for (size_t i = 0; i < devs.num_devices; ++i) {
    auto d = PLX_ARGS(PLX_Device_Describe_Args);
    d.device = devs.devices[i];
    RETURN_IF_PLX_ERROR(api_, api_->PLX_Device_Describe(&d));
    DeviceInfo info{
        devs.devices[i], d.id, d.kind ? d.kind : "", d.memory_bytes, {}};
    if (d.num_attributes > 0 && d.attributes == nullptr) {
      return absl::InternalError(absl::StrCat(
          "plugin '", attributes_.name, "': PLX_Device_Describe gave ",
          d.num_attributes, " attributes and a NULL array"));
    }
    for (size_t j = 0; j < d.num_attributes; ++j) {
      const PLX_NamedValue& v = d.attributes[j];
      std::string value;
      // Read as an integer: a later minor's kind is out of this enum's range.
      std::underlying_type_t<PLX_ValueKind> kind;
      std::memcpy(&kind, &v.kind, sizeof(kind));
      switch (kind) {
        case PLX_Value_STRING:
          value = v.string_value ? v.string_value : "";
          break;
        case PLX_Value_INT64:
          value = absl::StrCat(v.int64_value);
          break;
        case PLX_Value_BOOL:
          value = v.bool_value ? "true" : "false";
          break;
        case PLX_Value_FLOAT:
          value = absl::StrCat(v.float_value);
          break;
        default:
          value = absl::StrCat("(value kind ", static_cast<int64_t>(kind),
                               ", unknown to ABI ", PLX_API_MAJOR, ".",
                               PLX_API_MINOR, ")");
      }
      info.attributes.emplace_back(v.name ? v.name : "", std::move(value));
    }
    client->devices_.push_back(std::move(info));
  }
  return client;
}

Client::Client(std::shared_ptr<Plugin> plugin, PLX_Client* client)
    : plugin_(plugin), client_(client, [plugin](PLX_Client* c) {
        auto args = PLX_ARGS(PLX_Client_Destroy_Args);
        args.client = c;
        // Every buffer and executable holds a reference, so none is alive
        // here and the destroy cannot be refused for them.
        ConsumeError(plugin->api(), plugin->api()->PLX_Client_Destroy(&args))
            .IgnoreError();
      }) {}

// The C client goes when the last Buffer or Executable made from it does.
Client::~Client() = default;

namespace {
absl::Status CheckDeviceIndex(int64_t index, size_t num_devices) {
  if (index < 0 || index >= static_cast<int64_t>(num_devices)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device index ", index, " out of range (", num_devices, " devices)"));
  }
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<std::unique_ptr<Buffer>> Client::BufferFromLiteral(
    const Literal& literal, int64_t device_index) {
  PLEXA_ASSIGN_OR_RETURN(Upload upload,
                         UploadLiteral(literal, device_index, {}, true));
  return std::move(upload.buffer);
}

absl::StatusOr<Client::Upload> Client::BufferFromLiteralAsync(
    const Literal& literal, int64_t device_index, WaitList wait) {
  return UploadLiteral(literal, device_index, wait, false);
}

absl::StatusOr<Client::Upload> Client::UploadLiteral(const Literal& literal,
                                                     int64_t device_index,
                                                     WaitList wait,
                                                     bool synchronous) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("only arrays can be transferred, not ", shape.ToString()));
  }
  PLEXA_RETURN_IF_ERROR(CheckDeviceIndex(device_index, devices_.size()));
  abi::ArrayShapeStorage abi_shape;
  PLEXA_RETURN_IF_ERROR(abi_shape.Set(shape));
  // The sub-byte types cross the ABI packed (abi/shape); the literal holds
  // a byte an element. The packed copy lives only through this call, so
  // the upload is synchronous.
  std::vector<uint8_t> packed;
  const void* data = literal.data().data();
  size_t data_size = literal.data().size();
  if (primitive_util::IsSubByteType(shape.element_type())) {
    packed.resize(abi::AbiByteSize(shape));
    abi::PackSubByte(shape.element_type(), literal.data(), packed.data());
    data = packed.data();
    data_size = packed.size();
    synchronous = true;
  }
  std::vector<std::shared_ptr<Event>> bridges;
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<PLX_Event*> waits,
      PrepareWaitList(plugin_, client_.get(), wait, &bridges));
  PLX_Event* done = nullptr;
  auto args = PLX_ARGS(PLX_Client_BufferFromHost_Args);
  args.client = client_.get();
  args.device = devices_[device_index].handle;
  args.data = data;
  args.data_size = data_size;
  args.shape = &abi_shape.view;
  args.done_with_host_buffer = synchronous ? nullptr : &done;
  args.wait_events = waits.data();
  args.num_wait_events = waits.size();
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Client_BufferFromHost(&args));
  Upload upload;
  upload.buffer.reset(new Buffer(plugin_, client_, args.buffer));
  // A NULL event is a ready one (the plugin was done within the call).
  upload.done_with_host.reset(new Event(plugin_, done));
  return upload;
}

namespace {
absl::Status NoMemories(const Plugin& plugin, absl::string_view what) {
  const PLX_Api* api = plugin.api();
  return absl::UnimplementedError(
      absl::StrCat("plugin '", plugin.path(), "' (ABI ", api->version.major,
                   ".", api->version.minor,
                   ") has no memory and layout slots (ABI 1.2): ", what));
}
}  // namespace

absl::StatusOr<std::vector<MemoryInfo>> Client::Memories(
    int64_t device_index) const {
  if (!plugin_->HasMemories()) {
    return NoMemories(*plugin_, "it cannot list memories");
  }
  PLEXA_RETURN_IF_ERROR(CheckDeviceIndex(device_index, devices_.size()));
  const PLX_Api* api = plugin_->api();
  auto args = PLX_ARGS(PLX_Device_Memories_Args);
  args.device = devices_[device_index].handle;
  RETURN_IF_PLX_ERROR(api, api->PLX_Device_Memories(&args));
  if (args.num_memories == 0 || args.memories == nullptr) {
    return absl::InternalError(absl::StrCat(
        "plugin '", plugin_->path(), "' lists no memory for device ",
        devices_[device_index].id, " (every device has its default memory)"));
  }
  std::vector<MemoryInfo> out;
  for (size_t i = 0; i < args.num_memories; ++i) {
    auto d = PLX_ARGS(PLX_Memory_Describe_Args);
    d.memory = args.memories[i];
    RETURN_IF_PLX_ERROR(api, api->PLX_Memory_Describe(&d));
    MemoryInfo m;
    m.handle = args.memories[i];
    m.id = d.id;
    // Read as an integer: a newer plugin may send a kind this host's enum
    // does not have.
    int32_t raw;
    std::memcpy(&raw, &d.kind, sizeof(raw));
    m.kind = raw;
    m.kind_name = d.kind_name != nullptr ? d.kind_name : "";
    m.device_index = device_index;
    out.push_back(std::move(m));
  }
  return out;
}

absl::StatusOr<MemoryStatistics> Client::GetMemoryStatistics(
    const MemoryInfo& memory) const {
  if (!plugin_->HasMemories()) {
    return NoMemories(*plugin_, "no memory statistics");
  }
  const PLX_Api* api = plugin_->api();
  auto args = PLX_ARGS(PLX_Memory_Statistics_Args);
  args.memory = memory.handle;
  RETURN_IF_PLX_ERROR(api, api->PLX_Memory_Statistics(&args));
  MemoryStatistics s;
  s.bytes_in_use = args.bytes_in_use;
  s.peak_bytes_in_use = args.peak_bytes_in_use;
  s.bytes_limit = args.bytes_limit;
  s.num_allocs = args.num_allocs;
  s.largest_alloc_size = args.largest_alloc_size;
  return s;
}

namespace {
// A PLX_Layout the plugin filled, read back (checked like any input).
absl::StatusOr<Layout> ReadLayout(const PLX_Layout& l, int64_t rank,
                                  absl::string_view what) {
  return abi::LayoutFromAbi(&l, rank, what);
}
}  // namespace

absl::StatusOr<Layout> Client::PreferredLayout(PrimitiveType type,
                                               absl::Span<const int64_t> dims,
                                               PLX_Memory* memory) const {
  if (!plugin_->HasMemories()) {
    return NoMemories(*plugin_, "no preferred layouts");
  }
  const PLX_Api* api = plugin_->api();
  PLX_Layout layout{};
  layout.struct_size = PLX_Layout_STRUCT_SIZE;
  auto args = PLX_ARGS(PLX_Client_PreferredLayout_Args);
  args.client = client_.get();
  args.memory = memory;
  args.element_type = static_cast<PLX_Type>(type);
  args.dims = dims.data();
  args.num_dims = dims.size();
  args.layout = &layout;
  RETURN_IF_PLX_ERROR(api, api->PLX_Client_PreferredLayout(&args));
  return ReadLayout(layout, static_cast<int64_t>(dims.size()),
                    "PLX_Client_PreferredLayout result");
}

absl::StatusOr<std::unique_ptr<Buffer>> Client::BufferFromHostData(
    const void* data, size_t data_size, const Shape& shape,
    absl::Span<const int64_t> byte_strides, const UploadOptions& options) {
  PLEXA_RETURN_IF_ERROR(
      CheckDeviceIndex(options.device_index, devices_.size()));
  const bool has_memories = plugin_->HasMemories();
  if (!has_memories &&
      (options.memory != nullptr || options.device_layout.has_value())) {
    return NoMemories(*plugin_,
                      "it cannot place a buffer on a memory or in "
                      "a requested device layout");
  }
  Shape host_shape = shape;
  std::vector<uint8_t> gathered;
  if (!byte_strides.empty() &&
      primitive_util::IsSubByteType(shape.element_type())) {
    return absl::UnimplementedError(
        absl::StrCat("BufferFromHostData: byte_strides of the packed type ",
                     primitive_util::Name(shape.element_type()),
                     " (elements share bytes); pass the dense buffer"));
  }
  if (!byte_strides.empty()) {
    host_shape.clear_layout();
    LayoutUtil::SetToDefaultLayout(&host_shape);
    if (!has_memories) {
      // An older plugin would not read byte_strides: gather here.
      PLEXA_ASSIGN_OR_RETURN(
          abi::StridedView view,
          abi::AnalyzeStrides(host_shape, byte_strides, "BufferFromHostData"));
      if (data_size < static_cast<size_t>(view.max_offset - view.min_offset)) {
        return absl::InvalidArgumentError(
            absl::StrCat("BufferFromHostData: data_size ", data_size,
                         " is less than the strides reach"));
      }
      gathered.resize(ShapeUtil::ByteSizeOf(host_shape));
      abi::GatherStrided(static_cast<const uint8_t*>(data), host_shape,
                         byte_strides, gathered.data());
      data = gathered.data();
      data_size = gathered.size();
      byte_strides = {};
    }
  }
  abi::ArrayShapeStorage abi_shape;
  PLEXA_RETURN_IF_ERROR(abi_shape.Set(host_shape));
  if (!byte_strides.empty()) {
    abi_shape.view.minor_to_major = nullptr;
    abi_shape.view.layout = nullptr;
  }
  abi::LayoutStorage layout_storage;
  PLX_Layout device_layout{};
  if (options.device_layout.has_value()) {
    layout_storage.Set(*options.device_layout);
    device_layout.struct_size = PLX_Layout_STRUCT_SIZE;
    layout_storage.Fill(&device_layout);
  }
  // A 1.0/1.1 plugin gets the struct size it knows.
  auto args = MakeArgs<PLX_Client_BufferFromHost_Args>(
      has_memories ? PLX_Client_BufferFromHost_Args_STRUCT_SIZE
                   : PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0);
  args.client = client_.get();
  args.device = options.memory != nullptr
                    ? nullptr
                    : devices_[options.device_index].handle;
  args.data = data;
  args.data_size = data_size;
  args.shape = &abi_shape.view;
  if (has_memories) {
    args.memory = options.memory;
    args.byte_strides = byte_strides.empty() ? nullptr : byte_strides.data();
    args.num_byte_strides = byte_strides.size();
    args.device_layout =
        options.device_layout.has_value() ? &device_layout : nullptr;
  }
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Client_BufferFromHost(&args));
  return std::unique_ptr<Buffer>(new Buffer(plugin_, client_, args.buffer));
}

absl::StatusOr<std::unique_ptr<Event>> Client::CreateUserEvent() {
  const PLX_Api* api = plugin_->api();
  if (!plugin_->HasAsyncEvents()) {
    return absl::UnimplementedError(absl::StrCat(
        "plugin '", plugin_->path(), "' (ABI ", api->version.major, ".",
        api->version.minor,
        ") has no PLX_Client_CreateUserEvent: it cannot wait for the host's "
        "events"));
  }
  auto args = PLX_ARGS(PLX_Client_CreateUserEvent_Args);
  args.client = client_.get();
  RETURN_IF_PLX_ERROR(api, api->PLX_Client_CreateUserEvent(&args));
  return std::unique_ptr<Event>(new Event(plugin_, args.event));
}

absl::StatusOr<std::unique_ptr<Buffer>> Client::CopyToDevice(
    const Buffer& buffer, int64_t device_index, WaitList wait) {
  PLEXA_RETURN_IF_ERROR(CheckDeviceIndex(device_index, devices_.size()));
  std::vector<std::shared_ptr<Event>> bridges;
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<PLX_Event*> waits,
      PrepareWaitList(plugin_, client_.get(), wait, &bridges));
  auto args = PLX_ARGS(PLX_Buffer_CopyToDevice_Args);
  args.buffer = buffer.handle();
  args.dst_device = devices_[device_index].handle;
  args.wait_events = waits.data();
  args.num_wait_events = waits.size();
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Buffer_CopyToDevice(&args));
  return std::unique_ptr<Buffer>(new Buffer(plugin_, client_, args.dst_buffer));
}

absl::StatusOr<std::unique_ptr<Executable>> Client::Compile(
    absl::string_view program, const std::string& format,
    const CompileOptions& options) {
  std::vector<const char*> libs;
  for (const std::string& l : options.custom_call_libraries) {
    libs.push_back(l.c_str());
  }
  const PluginAttributes& plugin = plugin_->attributes();
  if (options.num_partitions > 1 &&
      !plugin_->HasCapability(PLX_CAPABILITY_PARTITIONS)) {
    // A plugin of ABI 1.2 or older would not read num_partitions and would
    // run one partition: part of the answer.
    return absl::UnimplementedError(
        absl::StrCat("plugin '", plugin.name, "' (ABI ", plugin.abi_major, ".",
                     plugin.abi_minor,
                     ") does not run SPMD partitions (no "
                     "PLX_CAPABILITY_PARTITIONS); ",
                     options.num_partitions, " partitions were asked for"));
  }
  PLX_CompileOptions o{};
  o.struct_size = PLX_CompileOptions_STRUCT_SIZE;
  o.num_replicas = options.num_replicas;
  o.num_partitions = options.num_partitions;
  o.device_assignment = options.device_assignment.empty()
                            ? nullptr
                            : options.device_assignment.data();
  if (!options.device_assignment.empty() &&
      static_cast<int64_t>(options.device_assignment.size()) !=
          options.num_replicas * options.num_partitions) {
    return absl::InvalidArgumentError(absl::StrCat(
        "device_assignment has ", options.device_assignment.size(),
        " entries for ", options.num_replicas, " replicas",
        options.num_partitions > 1
            ? absl::StrCat(" x ", options.num_partitions, " partitions")
            : ""));
  }
  o.optimization_level = options.optimization_level;
  o.custom_call_libraries = libs.data();
  o.num_custom_call_libraries = libs.size();
  auto args = PLX_ARGS(PLX_Client_Compile_Args);
  args.client = client_.get();
  args.program = program.data();
  args.program_size = program.size();
  args.format = format.c_str();
  args.options = &o;
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Client_Compile(&args));
  std::unique_ptr<Executable> exe(
      new Executable(plugin_, client_, args.executable));
  if (absl::Status s = exe->LoadSignature(); !s.ok()) return s;
  return exe;
}

absl::StatusOr<std::unique_ptr<Executable>> Client::DeserializeExecutable(
    absl::string_view bytes) {
  auto args = PLX_ARGS(PLX_Client_DeserializeExecutable_Args);
  args.client = client_.get();
  args.bytes = bytes.data();
  args.bytes_size = bytes.size();
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Client_DeserializeExecutable(&args));
  std::unique_ptr<Executable> exe(
      new Executable(plugin_, client_, args.executable));
  if (absl::Status s = exe->LoadSignature(); !s.ok()) return s;
  return exe;
}

absl::StatusOr<std::vector<std::unique_ptr<Buffer>>> ParameterBuffers(
    Client& client, const Literal& parameter, int64_t device_index) {
  if (parameter.shape().IsTuple() &&
      !client.plugin().HasCapability(PLX_CAPABILITY_TUPLE_PARAMETERS)) {
    return absl::UnimplementedError(
        absl::StrCat("plugin '", client.plugin().attributes().name, "' (ABI ",
                     client.plugin().attributes().abi_major, ".",
                     client.plugin().attributes().abi_minor,
                     ") does not take tuple-shaped parameters (",
                     parameter.shape().ToString(),
                     "): it lacks PLX_CAPABILITY_TUPLE_PARAMETERS"));
  }
  std::vector<std::unique_ptr<Buffer>> out;
  for (const Literal& leaf : FlattenArrayLeaves(parameter)) {
    auto b = client.BufferFromLiteral(leaf, device_index);
    if (!b.ok()) return b.status();
    out.push_back(std::move(*b));
  }
  return out;
}

absl::StatusOr<Shape> ShapeFromAbi(const PLX_ArrayShape& s,
                                   absl::string_view context) {
  return abi::ShapeFromAbi(&s, absl::StrCat("plugin's ", context));
}

Buffer::~Buffer() {
  auto args = PLX_ARGS(PLX_Buffer_Destroy_Args);
  args.buffer = buffer_;
  ConsumeError(plugin_->api(), plugin_->api()->PLX_Buffer_Destroy(&args))
      .IgnoreError();
}

absl::StatusOr<Shape> Buffer::shape() const {
  auto args = PLX_ARGS(PLX_Buffer_Shape_Args);
  args.buffer = buffer_;
  RETURN_IF_PLX_ERROR(plugin_->api(), plugin_->api()->PLX_Buffer_Shape(&args));
  return ShapeFromAbi(args.shape, "PLX_Buffer_Shape result");
}

absl::StatusOr<Buffer::Placement> Buffer::GetPlacement() const {
  if (!plugin_->HasMemories()) {
    return NoMemories(*plugin_, "no buffer layouts");
  }
  PLEXA_ASSIGN_OR_RETURN(Shape s, shape());
  const PLX_Api* api = plugin_->api();
  PLX_Layout layout{};
  layout.struct_size = PLX_Layout_STRUCT_SIZE;
  auto args = PLX_ARGS(PLX_Buffer_Layout_Args);
  args.buffer = buffer_;
  args.layout = &layout;
  RETURN_IF_PLX_ERROR(api, api->PLX_Buffer_Layout(&args));
  Placement p;
  PLEXA_ASSIGN_OR_RETURN(
      p.layout, ReadLayout(layout, static_cast<int64_t>(s.dimensions().size()),
                           "PLX_Buffer_Layout result"));
  p.memory = args.memory;
  return p;
}

absl::StatusOr<Literal> Buffer::ToLiteral() const {
  auto shape = this->shape();
  if (!shape.ok()) return shape.status();
  Shape host = *shape;
  LayoutUtil::SetToDefaultLayout(&host);
  Literal literal(host);
  if (primitive_util::IsSubByteType(host.element_type())) {
    // Packed across the ABI, a byte an element in the literal.
    std::vector<uint8_t> packed(abi::AbiByteSize(host));
    PLEXA_RETURN_IF_ERROR(ToHostBuffer(packed.data(), packed.size()));
    abi::UnpackSubByte(host.element_type(), packed.data(),
                       literal.mutable_data());
    return literal;
  }
  PLEXA_RETURN_IF_ERROR(ToHostBuffer(literal.mutable_data().data(),
                                     literal.mutable_data().size()));
  return literal;
}

absl::Status Buffer::ToHostBuffer(void* dst, size_t dst_size) const {
  auto args = PLX_ARGS(PLX_Buffer_ToHost_Args);
  args.buffer = buffer_;
  args.dst = dst;
  args.dst_size = dst_size;
  return ConsumeError(plugin_->api(), plugin_->api()->PLX_Buffer_ToHost(&args));
}

absl::Status Buffer::Delete() {
  auto args = PLX_ARGS(PLX_Buffer_Delete_Args);
  args.buffer = buffer_;
  return ConsumeError(plugin_->api(), plugin_->api()->PLX_Buffer_Delete(&args));
}

absl::StatusOr<std::unique_ptr<Event>> Buffer::ReadyEvent() const {
  const PLX_Api* api = plugin_->api();
  if (!plugin_->HasAsyncEvents()) {
    // Every call of such a plugin returns after its work: ready.
    return std::unique_ptr<Event>(new Event(plugin_, nullptr));
  }
  auto args = PLX_ARGS(PLX_Buffer_ReadyEvent_Args);
  args.buffer = buffer_;
  RETURN_IF_PLX_ERROR(api, api->PLX_Buffer_ReadyEvent(&args));
  return std::unique_ptr<Event>(new Event(plugin_, args.event));
}

absl::StatusOr<std::unique_ptr<Event>> Buffer::ToLiteralAsync(
    Literal* out, WaitList wait) const {
  auto shape = this->shape();
  if (!shape.ok()) return shape.status();
  Shape host = *shape;
  LayoutUtil::SetToDefaultLayout(&host);
  if (primitive_util::IsSubByteType(host.element_type())) {
    // Unpacked on the host once copied: waits here, then a ready event.
    if (!wait.empty()) {
      return absl::UnimplementedError(
          absl::StrCat("ToLiteralAsync with wait events of a packed ",
                       primitive_util::Name(host.element_type()), " buffer"));
    }
    PLEXA_ASSIGN_OR_RETURN(*out, ToLiteral());
    return std::unique_ptr<Event>(new Event(plugin_, nullptr));
  }
  *out = Literal(host);
  return ToHostBufferAsync(out->mutable_data().data(),
                           out->mutable_data().size(), wait);
}

absl::StatusOr<std::unique_ptr<Event>> Buffer::ToHostBufferAsync(
    void* dst, size_t dst_size, WaitList wait) const {
  std::vector<std::shared_ptr<Event>> bridges;
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<PLX_Event*> waits,
      PrepareWaitList(plugin_, client_.get(), wait, &bridges));
  PLX_Event* done = nullptr;
  auto args = PLX_ARGS(PLX_Buffer_ToHost_Args);
  args.buffer = buffer_;
  args.dst = dst;
  args.dst_size = dst_size;
  args.event = &done;
  args.wait_events = waits.data();
  args.num_wait_events = waits.size();
  RETURN_IF_PLX_ERROR(plugin_->api(), plugin_->api()->PLX_Buffer_ToHost(&args));
  return std::unique_ptr<Event>(new Event(plugin_, done));
}

absl::StatusOr<bool> Buffer::IsDeleted() const {
  auto args = PLX_ARGS(PLX_Buffer_IsDeleted_Args);
  args.buffer = buffer_;
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Buffer_IsDeleted(&args));
  return args.is_deleted;
}

Executable::~Executable() {
  auto args = PLX_ARGS(PLX_Executable_Destroy_Args);
  args.executable = executable_;
  ConsumeError(plugin_->api(), plugin_->api()->PLX_Executable_Destroy(&args))
      .IgnoreError();
}

absl::Status Executable::LoadSignature() {
  auto args = PLX_ARGS(PLX_Executable_Signature_Args);
  args.executable = executable_;
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Executable_Signature(&args));
  for (size_t i = 0; i < args.num_parameters; ++i) {
    auto s = ShapeFromAbi(args.parameters[i],
                          absl::StrCat("signature parameter ", i));
    if (!s.ok()) return s.status();
    parameters_.push_back(*s);
  }
  for (size_t i = 0; i < args.num_outputs; ++i) {
    auto s =
        ShapeFromAbi(args.outputs[i], absl::StrCat("signature output ", i));
    if (!s.ok()) return s.status();
    outputs_.push_back(*s);
  }
  num_replicas_ = args.num_replicas;
  // Zero-initialized: a plugin of ABI 1.2 or older leaves it 0.
  num_partitions_ = args.num_partitions > 0 ? args.num_partitions : 1;
  if (args.program_shape != nullptr) {
    absl::StatusOr<ProgramShape> program =
        ParseProgramShape(args.program_shape);
    if (!program.ok()) {
      return absl::InternalError(absl::StrCat(
          "plugin '", plugin_->path(), "' gave an unreadable program_shape '",
          args.program_shape, "': ", program.status().message()));
    }
    program_shape_ = std::move(*program);
  }
  return absl::OkStatus();
}

namespace {

// The host's side of PLX_ProfilerExtension: the plugin's events into a
// Profiler. A malformed event (short struct, NULL strings) is dropped: a
// profile must never fail an execution.
void ProfileCallback(void* user_data, const PLX_ProfileEvent* event) {
  if (event == nullptr || event->struct_size < PLX_ProfileEvent_STRUCT_SIZE ||
      event->name == nullptr || event->kind == nullptr) {
    return;
  }
  ProfileEvent e;
  e.name = event->name;
  e.kind = event->kind;
  e.replica = event->replica;
  e.thread_id = event->thread_id;
  e.begin_ns = event->begin_ns;
  e.end_ns = event->end_ns;
  static_cast<Profiler*>(user_data)->Record(e);
}

// The host's side of PLX_FeedsExtension: C callbacks that turn a PLX_FeedArgs
// into HostFeeds calls. Nothing may throw through the plugin's frames, and
// a failure comes back as a code and a message kept in a thread-local
// string (the ABI lets it live until the next call on this thread).
int32_t FailFeed(PLX_FeedArgs* args, const absl::Status& status) {
  thread_local std::string message;
  message = std::string(status.message());
  args->error_message = message.c_str();
  return static_cast<int32_t>(status.code());
}

absl::Status CheckFeedArgs(const PLX_FeedArgs* args) {
  if (args->struct_size < PLX_FeedArgs_STRUCT_SIZE) {
    return absl::InvalidArgumentError(absl::StrCat("PLX_FeedArgs struct_size ",
                                                   args->struct_size, " < ",
                                                   PLX_FeedArgs_STRUCT_SIZE));
  }
  if (args->shape == nullptr ||
      (args->num_leaves > 0 &&
       (args->leaves == nullptr || args->data == nullptr))) {
    return absl::InvalidArgumentError(
        "PLX_FeedArgs: shape, leaves or data is NULL");
  }
  return absl::OkStatus();
}

// The literal's array leaves in the default layout, checked against the
// plugin's leaf list.
absl::StatusOr<std::vector<Literal>> LeavesForAbi(Literal value,
                                                  const PLX_FeedArgs& args) {
  std::vector<Literal> leaves = FlattenArrayLeaves(std::move(value));
  if (leaves.size() != args.num_leaves) {
    return absl::InvalidArgumentError(
        absl::StrCat(leaves.size(), " array leaves for ", args.num_leaves,
                     " expected by the plugin"));
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    absl::StatusOr<Shape> want =
        ShapeFromAbi(args.leaves[i], absl::StrCat("feed leaf ", i));
    if (!want.ok()) return want.status();
    if (!Shape::Equal().IgnoreLayout()(leaves[i].shape(), *want)) {
      return absl::InvalidArgumentError(
          absl::StrCat("leaf ", i, " is ", leaves[i].shape().ToString(false),
                       ", the plugin expects ", want->ToString(false)));
    }
    const Layout row_major = LayoutUtil::GetDefaultLayoutForRank(want->rank());
    if (!(LayoutUtil::EffectiveLayout(leaves[i].shape()) == row_major)) {
      absl::StatusOr<Literal> moved = leaves[i].Relayout(row_major);
      if (!moved.ok()) return moved.status();
      leaves[i] = std::move(*moved);
    }
  }
  return leaves;
}

// What both callbacks do around their own part: check the arguments, parse
// the data shape, run `body`, and turn its status (or an exception) into a
// code and message for the plugin.
template <typename Body>
int32_t RunFeedCallback(PLX_FeedArgs* args, Body&& body) {
  if (args == nullptr) return PLX_Error_Code_INVALID_ARGUMENT;
  try {
    absl::Status s = CheckFeedArgs(args);
    if (s.ok()) {
      absl::StatusOr<Shape> shape = ParseShape(args->shape);
      s = shape.ok() ? body(*shape) : shape.status();
    }
    return s.ok() ? PLX_Error_Code_OK : FailFeed(args, s);
  } catch (const std::exception& e) {
    return FailFeed(args, absl::InternalError(e.what()));
  }
}

int32_t InfeedCallback(void* user_data, PLX_FeedArgs* args) {
  return RunFeedCallback(args, [&](const Shape& shape) -> absl::Status {
    absl::StatusOr<Literal> value = static_cast<HostFeeds*>(user_data)->Infeed(
        args->replica, args->instruction ? args->instruction : "", shape);
    if (!value.ok()) return value.status();
    if (!Shape::Equal().IgnoreLayout()(value->shape(), shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat("the infeed expects ", shape.ToString(false),
                       " but the host has ", value->shape().ToString(false)));
    }
    absl::StatusOr<std::vector<Literal>> leaves =
        LeavesForAbi(std::move(*value), *args);
    if (!leaves.ok()) return leaves.status();
    for (size_t i = 0; i < leaves->size(); ++i) {
      absl::Span<const uint8_t> bytes = (*leaves)[i].data();
      if (!bytes.empty()) {
        std::memcpy(args->data[i], bytes.data(), bytes.size());
      }
    }
    return absl::OkStatus();
  });
}

int32_t OutfeedCallback(void* user_data, PLX_FeedArgs* args) {
  return RunFeedCallback(args, [&](Shape shape) -> absl::Status {
    LayoutUtil::SetToDefaultLayout(&shape);
    // Fill a zeroed literal leaf by leaf from the plugin's data.
    std::vector<Literal> leaves = FlattenArrayLeaves(Literal(shape));
    if (leaves.size() != args->num_leaves) {
      return absl::InvalidArgumentError(
          absl::StrCat("the shape ", args->shape, " has ", leaves.size(),
                       " array leaves, the plugin gave ", args->num_leaves));
    }
    for (size_t i = 0; i < leaves.size(); ++i) {
      absl::Span<uint8_t> bytes = leaves[i].mutable_data();
      if (!bytes.empty()) {
        std::memcpy(bytes.data(), args->data[i], bytes.size());
      }
    }
    absl::StatusOr<Literal> assembled =
        AssembleFromArrayLeaves(shape, std::move(leaves));
    if (!assembled.ok()) return assembled.status();
    return static_cast<HostFeeds*>(user_data)->Outfeed(
        args->replica, args->instruction ? args->instruction : "",
        std::move(*assembled));
  });
}

}  // namespace

absl::StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>>
Executable::Execute(const std::vector<std::vector<Buffer*>>& args,
                    absl::Span<const int64_t> donated, HostFeeds* feeds,
                    Profiler* profiler) {
  return Run(args, donated, {}, feeds, profiler, nullptr);
}

absl::StatusOr<Executable::Async> Executable::ExecuteAsync(
    const std::vector<std::vector<Buffer*>>& args,
    absl::Span<const int64_t> donated, WaitList wait, HostFeeds* feeds,
    Profiler* profiler) {
  Async result;
  PLEXA_ASSIGN_OR_RETURN(result.outputs, Run(args, donated, wait, feeds,
                                             profiler, &result.completion));
  return result;
}

absl::StatusOr<std::vector<std::vector<std::unique_ptr<Buffer>>>>
Executable::Run(const std::vector<std::vector<Buffer*>>& args,
                absl::Span<const int64_t> donated, WaitList wait,
                HostFeeds* feeds, Profiler* profiler,
                std::vector<std::unique_ptr<Event>>* completion) {
  const size_t replicas = args.size();
  std::vector<std::vector<PLX_Buffer*>> in(replicas);
  std::vector<PLX_Buffer* const*> in_ptrs(replicas);
  std::vector<std::vector<PLX_Buffer*>> out(
      replicas, std::vector<PLX_Buffer*>(outputs_.size(), nullptr));
  std::vector<PLX_Buffer**> out_ptrs(replicas);
  size_t num_args = replicas ? args[0].size() : 0;
  for (size_t r = 0; r < replicas; ++r) {
    if (args[r].size() != num_args) {
      return absl::InvalidArgumentError(
          absl::StrCat("replica ", r, " has ", args[r].size(),
                       " arguments, replica 0 has ", num_args));
    }
    for (Buffer* b : args[r]) in[r].push_back(b ? b->handle() : nullptr);
    in_ptrs[r] = in[r].data();
    out_ptrs[r] = out[r].data();
  }
  auto a = PLX_ARGS(PLX_Executable_Execute_Args);
  a.executable = executable_;
  a.num_replicas = replicas;
  a.arguments = in_ptrs.data();
  a.num_arguments = num_args;
  a.donated = donated.data();
  a.num_donated = donated.size();
  a.outputs = out_ptrs.data();
  a.num_outputs = outputs_.size();
  std::vector<PLX_Event*> completion_events(replicas, nullptr);
  a.completion_events = completion ? completion_events.data() : nullptr;
  std::vector<std::shared_ptr<Event>> bridges;
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<PLX_Event*> waits,
      PrepareWaitList(plugin_, client_.get(), wait, &bridges));
  a.wait_events = waits.data();
  a.num_wait_events = waits.size();
  PLX_FeedsExtension feeds_ext{};
  if (feeds != nullptr) {
    feeds_ext.struct_size = PLX_FeedsExtension_STRUCT_SIZE;
    feeds_ext.type = PLX_ExtensionType_FEEDS;
    feeds_ext.user_data = feeds;
    feeds_ext.infeed = InfeedCallback;
    feeds_ext.outfeed = OutfeedCallback;
    a.extension_start = reinterpret_cast<PLX_Extension*>(&feeds_ext);
  }
  PLX_ProfilerExtension profiler_ext{};
  if (profiler != nullptr) {
    profiler_ext.struct_size = PLX_ProfilerExtension_STRUCT_SIZE;
    profiler_ext.type = PLX_ExtensionType_PROFILER;
    profiler_ext.next = a.extension_start;
    profiler_ext.user_data = profiler;
    profiler_ext.callback = ProfileCallback;
    a.extension_start = reinterpret_cast<PLX_Extension*>(&profiler_ext);
  }
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Executable_Execute(&a));
  std::vector<std::vector<std::unique_ptr<Buffer>>> result(replicas);
  for (size_t r = 0; r < replicas; ++r) {
    for (PLX_Buffer* b : out[r]) {
      result[r].push_back(
          std::unique_ptr<Buffer>(new Buffer(plugin_, client_, b)));
    }
    if (completion != nullptr) {
      completion->push_back(
          std::unique_ptr<Event>(new Event(plugin_, completion_events[r])));
    }
  }
  return result;
}

absl::StatusOr<Executable::Statistics> Executable::GetStatistics() const {
  const PLX_Api* api = plugin_->api();
  if (!PLX_API_HAS_SLOT(api, PLX_Executable_Statistics)) {
    return absl::UnimplementedError(absl::StrCat(
        "plugin '", plugin_->path(), "' (ABI ", api->version.major, ".",
        api->version.minor, ") has no PLX_Executable_Statistics"));
  }
  auto args = PLX_ARGS(PLX_Executable_Statistics_Args);
  args.executable = executable_;
  RETURN_IF_PLX_ERROR(api, api->PLX_Executable_Statistics(&args));
  Statistics s;
  if (args.fingerprint != nullptr) s.fingerprint = args.fingerprint;
  s.flops = args.flops;
  s.transcendentals = args.transcendentals;
  s.bytes_accessed = args.bytes_accessed;
  s.argument_bytes = args.argument_bytes;
  s.output_bytes = args.output_bytes;
  s.temp_bytes = args.temp_bytes;
  s.generated_code_bytes = args.generated_code_bytes;
  return s;
}

absl::StatusOr<std::string> Executable::Serialize() const {
  auto args = PLX_ARGS(PLX_Executable_Serialize_Args);
  args.executable = executable_;
  RETURN_IF_PLX_ERROR(plugin_->api(),
                      plugin_->api()->PLX_Executable_Serialize(&args));
  std::string bytes(args.bytes, args.bytes_size);
  if (args.bytes_deleter) args.bytes_deleter(args.bytes_owner);
  return bytes;
}

}  // namespace plexa::host
