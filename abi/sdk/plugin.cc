// The C entry points of every SDK-based plugin. Each one: checks its args
// (NULL, struct_size, live handles), calls the C++ object, and converts the
// status to a PLX_Error. No exception crosses the boundary.
#include "abi/sdk/plugin.h"

#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>

#include "abi/sdk/handles.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/ir/memory_limit.h"
#include "core/proto/module_proto.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"

namespace plexa::sdk {

// Element types cross the ABI with the core's numbering.
static_assert(static_cast<int>(PrimitiveType::PRED) == PLX_Type_PRED);
static_assert(static_cast<int>(PrimitiveType::S64) == PLX_Type_S64);
static_assert(static_cast<int>(PrimitiveType::U64) == PLX_Type_U64);
static_assert(static_cast<int>(PrimitiveType::BF16) == PLX_Type_BF16);
static_assert(static_cast<int>(PrimitiveType::C128) == PLX_Type_C128);

// ---------------------------------------------------------------- defaults

absl::StatusOr<std::shared_ptr<Event>> Buffer::ToHostAsync(
    void* dst, const Shape& host_shape) {
  return Event::Ready(ToHost(dst, host_shape));
}

absl::StatusOr<ExecuteResult> Executable::Execute(
    absl::Span<const std::vector<Buffer*>>) {
  return absl::UnimplementedError(
      "this plugin implements neither Execute nor ExecuteWithOptions");
}

absl::StatusOr<ExecuteResult> Executable::ExecuteWithOptions(
    absl::Span<const std::vector<Buffer*>> args, const ExecuteOptions&) {
  return Execute(args);
}

absl::StatusOr<std::string> Executable::Serialize() const {
  return absl::UnimplementedError("this plugin cannot serialize executables");
}

absl::StatusOr<std::unique_ptr<Buffer>> Client::CopyToDevice(Buffer* buffer,
                                                             Device* device) {
  Shape host_shape = buffer->shape();
  LayoutUtil::SetToDefaultLayout(&host_shape);
  std::vector<uint8_t> staging(ShapeUtil::ByteSizeOf(host_shape));
  absl::Status s = buffer->ToHost(staging.data(), host_shape);
  if (!s.ok()) return s;
  return BufferFromHost(staging.data(), host_shape, device);
}

absl::StatusOr<std::unique_ptr<Executable>> Client::Deserialize(
    absl::string_view) {
  return absl::UnimplementedError("this plugin cannot deserialize executables");
}

absl::StatusOr<std::vector<int64_t>> Client::DefaultDeviceAssignment(
    int64_t num_replicas) const {
  const auto devs = devices();
  if (devs.empty())
    return absl::FailedPreconditionError("client has no devices");
  std::vector<int64_t> out;
  for (int64_t r = 0; r < num_replicas; ++r) {
    out.push_back(devs[r % devs.size()]->id());
  }
  return out;
}

absl::Status CheckKnownOptions(const Options& options,
                               absl::Span<const char* const> known,
                               absl::string_view plugin_name) {
  for (const auto& [name, value] : options) {
    bool ok = false;
    for (const char* k : known) ok |= name == k;
    if (!ok) {
      std::string list;
      for (const char* k : known)
        absl::StrAppend(&list, list.empty() ? "" : ", ", k);
      return absl::InvalidArgumentError(
          absl::StrCat("plugin '", plugin_name, "' has no option '", name,
                       "' (known: ", list.empty() ? "none" : list, ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> GetIntOption(const Options& options,
                                     absl::string_view name, int64_t dflt) {
  auto it = options.find(std::string(name));
  if (it == options.end()) return dflt;
  if (it->second.kind != PLX_Value_INT64) {
    return absl::InvalidArgumentError(
        absl::StrCat("option '", name, "' must be an integer"));
  }
  return it->second.int64_value;
}

absl::StatusOr<int64_t> GetIntOptionInRange(const Options& options,
                                            absl::string_view name,
                                            int64_t dflt, int64_t lo,
                                            int64_t hi) {
  absl::StatusOr<int64_t> v = GetIntOption(options, name, dflt);
  if (!v.ok()) return v.status();
  if (*v < lo || *v > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be in [", lo, ", ", hi, "], got ", *v));
  }
  return *v;
}

absl::StatusOr<std::vector<Device*>> AssignedDevices(
    const Client& client, absl::Span<const int64_t> assignment) {
  absl::Span<Device* const> devices = client.devices();
  std::vector<Device*> out;
  for (int64_t id : assignment) {
    if (id < 0 || id >= static_cast<int64_t>(devices.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "device assignment names device ", id, "; the client has ",
          devices.size(), " (option num_devices)"));
    }
    out.push_back(devices[id]);
  }
  return out;
}

namespace {

// Upper bound on a plausible struct_size: a newer caller may pass a larger
// struct than we know, but not megabytes.
constexpr size_t kMaxStructSize = 1 << 16;

Plugin* g_plugin = nullptr;
PluginInfo* g_info = nullptr;

PLX_Error* ToError(absl::Status s) {
  if (s.ok()) return nullptr;
  auto* e = new PLX_Error;
  e->message = std::string(s.message());
  e->status = std::move(s);
  return e;
}

template <typename Args>
absl::Status CheckArgs(const Args* args, size_t v1_size, const char* fn) {
  if (args == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": args is NULL"));
  }
  if (args->struct_size < v1_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": struct_size is ", args->struct_size, " but the args struct has ",
        v1_size, " bytes since ABI 1.0 (set struct_size to the _STRUCT_SIZE ",
        "macro of the header you compile against)"));
  }
  if (args->struct_size > kMaxStructSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": struct_size ", args->struct_size,
                     " is implausibly large (uninitialized?)"));
  }
  return absl::OkStatus();
}

// Every error names the call it came from (docs/abi.md "Errors"): errors
// produced below the entry points (the parser, the verifier, the plugin's
// own classes) do not know it, so it is prefixed here.
absl::Status NameFunction(absl::Status s, const char* fn) {
  if (s.ok() || absl::StartsWith(s.message(), fn)) return s;
  return absl::Status(s.code(), absl::StrCat(fn, ": ", s.message()));
}

// Runs `body` and turns its status (or any exception) into a PLX_Error.
template <typename Body>
PLX_Error* Guard(const char* fn, Body&& body) {
  try {
    return ToError(NameFunction(body(), fn));
  } catch (const std::bad_alloc&) {
    // Sizes a program decides are checked against the memory limit before
    // they are allocated; this is what the machine refused beyond that.
    return ToError(absl::ResourceExhaustedError(
        absl::StrCat(fn, ": out of memory (an allocation failed)")));
  } catch (const std::exception& e) {
    return ToError(absl::InternalError(
        absl::StrCat(fn, ": internal exception: ", e.what())));
  } catch (...) {
    return ToError(absl::InternalError(absl::StrCat(fn, ": internal error")));
  }
}

// The smallest struct_size a caller may pass is the 1.0 size: the
// _STRUCT_SIZE macro for structs that never grew, the _STRUCT_SIZE_1_0
// macro (PLX_CHECK_ARGS_SIZE) for those that did.
#define PLX_CHECK_ARGS_SIZE(size, fn) \
  if (absl::Status s = CheckArgs(args, (size), fn); !s.ok()) return s
#define PLX_CHECK_ARGS(ArgsType, fn) \
  PLX_CHECK_ARGS_SIZE(ArgsType##_STRUCT_SIZE, fn)

// Reads an enum field a C caller filled. C lets any int through an enum;
// loading an out-of-range value as the C++ enum type is undefined (UBSan's
// -fsanitize=enum stops there), so read the bits as the underlying integer
// and validate that.
template <typename E>
int64_t RawEnum(const E& field) {
  std::make_signed_t<std::underlying_type_t<E>> v;
  std::memcpy(&v, &field, sizeof(v));
  return static_cast<int64_t>(v);
}

absl::StatusOr<Options> ReadOptions(const PLX_NamedValue* values, size_t n,
                                    const char* fn) {
  Options out;
  if (n > 0 && values == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": ", n, " options given but the array is NULL"));
  }
  for (size_t i = 0; i < n; ++i) {
    const PLX_NamedValue& v = values[i];
    if (v.struct_size < PLX_NamedValue_STRUCT_SIZE || v.name == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": option ", i, " has a bad struct_size or a NULL name"));
    }
    OptionValue o;
    const int64_t kind = RawEnum(v.kind);
    if (kind < PLX_Value_STRING || kind > PLX_Value_FLOAT) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": option '", v.name, "' has unknown kind ", kind));
    }
    o.kind = v.kind;
    switch (v.kind) {
      case PLX_Value_STRING:
        if (v.string_value == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              fn, ": option '", v.name, "' has a NULL string value"));
        }
        o.string_value = v.string_value;
        break;
      case PLX_Value_INT64:
        o.int64_value = v.int64_value;
        break;
      case PLX_Value_BOOL:
        o.bool_value = v.bool_value;
        break;
      case PLX_Value_FLOAT:
        o.float_value = v.float_value;
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": option '", v.name, "' has unknown kind ",
                         static_cast<int>(v.kind)));
    }
    out[v.name] = std::move(o);
  }
  return out;
}

absl::StatusOr<Shape> ReadArrayShape(const PLX_ArrayShape* s, const char* fn) {
  return abi::ShapeFromAbi(s, fn);
}

absl::StatusOr<PLX_Buffer*> WrapBuffer(PLX_Client* client,
                                       std::unique_ptr<Buffer> b) {
  auto h = std::make_unique<PLX_Buffer>();
  PLEXA_RETURN_IF_ERROR(h->shape.Set(b->shape()));
  h->impl = std::move(b);
  h->client = client;
  client->live_buffers.fetch_add(1);
  RegisterHandle(h.get(), HandleKind::kBuffer);
  return h.release();
}

PLX_Event* WrapEvent(std::shared_ptr<Event> e) {
  auto* h = new PLX_Event{std::move(e)};
  RegisterHandle(h, HandleKind::kEvent);
  return h;
}

// ------------------------------------------------------------------ Errors

void ErrorDestroy(PLX_Error_Destroy_Args* args) {
  if (args == nullptr || args->struct_size < PLX_Error_Destroy_Args_STRUCT_SIZE)
    return;
  delete args->error;
}

void ErrorMessage(PLX_Error_Message_Args* args) {
  if (args == nullptr || args->struct_size < PLX_Error_Message_Args_STRUCT_SIZE)
    return;
  if (args->error == nullptr) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  args->message = args->error->message.c_str();
  args->message_size = args->error->message.size();
}

PLX_Error* ErrorGetCode(PLX_Error_GetCode_Args* args) {
  return Guard("PLX_Error_GetCode", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Error_GetCode_Args, "PLX_Error_GetCode");
    if (args->error == nullptr) {
      return absl::InvalidArgumentError("PLX_Error_GetCode: error is NULL");
    }
    args->code = static_cast<PLX_Error_Code>(args->error->status.code());
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ Plugin

PLX_Error* PluginInitialize(PLX_Plugin_Initialize_Args* args) {
  return Guard("PLX_Plugin_Initialize", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Plugin_Initialize_Args, "PLX_Plugin_Initialize");
    static std::mutex mu;  // std::mutex for ThreadSanitizer: see event.h
    static bool done = false;
    static absl::Status result;
    std::lock_guard<std::mutex> lock(mu);
    if (!done) {
      result = g_plugin->Initialize();
      done = true;
    }
    return result;
  });
}

struct AttributeStorage {
  std::vector<const char*> formats;
  std::vector<PLX_NamedValue> attributes;
};

void FillNamedValues(const Options& opts, std::vector<PLX_NamedValue>* out) {
  for (const auto& [name, v] : opts) {
    PLX_NamedValue nv{};
    nv.struct_size = PLX_NamedValue_STRUCT_SIZE;
    nv.name = name.c_str();
    nv.kind = v.kind;
    nv.string_value = v.string_value.c_str();
    nv.int64_value = v.int64_value;
    nv.bool_value = v.bool_value;
    nv.float_value = v.float_value;
    out->push_back(nv);
  }
}

PLX_Error* PluginAttributes(PLX_Plugin_Attributes_Args* args) {
  return Guard("PLX_Plugin_Attributes", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Plugin_Attributes_Args, "PLX_Plugin_Attributes");
    static AttributeStorage* storage = [] {
      auto* s = new AttributeStorage;
      for (const std::string& f : g_info->formats)
        s->formats.push_back(f.c_str());
      FillNamedValues(g_info->attributes, &s->attributes);
      return s;
    }();
    args->name = g_info->name.c_str();
    args->vendor = g_info->vendor.c_str();
    args->version = g_info->version.c_str();
    args->platform = g_info->platform.c_str();
    args->abi_major = PLX_API_MAJOR;
    args->abi_minor = PLX_API_MINOR;
    args->formats = storage->formats.data();
    args->num_formats = storage->formats.size();
    args->capabilities = g_info->capabilities;
    args->attributes = storage->attributes.data();
    args->num_attributes = storage->attributes.size();
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ Client

PLX_Error* ClientCreate(PLX_Client_Create_Args* args) {
  return Guard("PLX_Client_Create", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_Create_Args, "PLX_Client_Create");
    auto options =
        ReadOptions(args->options, args->num_options, "PLX_Client_Create");
    if (!options.ok()) return options.status();
    // memory_limit_bytes is the SDK's: checked here for every plugin.
    auto limit =
        GetIntOptionInRange(*options, kMemoryLimitOption, MachineMemoryBytes(),
                            1, std::numeric_limits<int64_t>::max());
    if (!limit.ok()) return limit.status();
    options->erase(kMemoryLimitOption);
    auto client = g_plugin->CreateClient(*options);
    if (!client.ok()) return client.status();
    auto* h = new PLX_Client;
    h->memory_limit_bytes = *limit;
    h->impl = std::move(*client);
    for (Device* d : h->impl->devices()) {
      auto dh = std::make_unique<PLX_Device>();
      dh->impl = d;
      dh->client = h;
      FillNamedValues(d->attributes(), &dh->attributes);
      h->devices.push_back(dh.get());
      RegisterHandle(dh.get(), HandleKind::kDevice);
      h->device_handles.push_back(std::move(dh));
    }
    RegisterHandle(h, HandleKind::kClient);
    args->client = h;
    return absl::OkStatus();
  });
}

PLX_Error* ClientDestroy(PLX_Client_Destroy_Args* args) {
  return Guard("PLX_Client_Destroy", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_Destroy_Args, "PLX_Client_Destroy");
    if (args->client == nullptr) return absl::OkStatus();
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->client, HandleKind::kClient,
                                      "PLX_Client_Destroy", "client"));
    PLX_Client* c = args->client;
    if (c->live_buffers.load() != 0 || c->live_executables.load() != 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PLX_Client_Destroy: the client still has ", c->live_buffers.load(),
          " buffer(s) and ", c->live_executables.load(),
          " executable(s); destroy them first"));
    }
    for (auto& d : c->device_handles) UnregisterHandle(d.get());
    UnregisterHandle(c);
    delete c;
    return absl::OkStatus();
  });
}

PLX_Error* ClientDevices(PLX_Client_Devices_Args* args) {
  return Guard("PLX_Client_Devices", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_Devices_Args, "PLX_Client_Devices");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->client, HandleKind::kClient,
                                      "PLX_Client_Devices", "client"));
    args->devices = args->client->devices.data();
    args->num_devices = args->client->devices.size();
    return absl::OkStatus();
  });
}

PLX_Error* ClientDefaultDeviceAssignment(
    PLX_Client_DefaultDeviceAssignment_Args* args) {
  constexpr const char* fn = "PLX_Client_DefaultDeviceAssignment";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_DefaultDeviceAssignment_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    if (args->num_replicas < 1 || args->device_ids == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": need num_replicas >= 1 and a device_ids array (got ",
          args->num_replicas, ", ", args->device_ids ? "array" : "NULL", ")"));
    }
    auto ids = args->client->impl->DefaultDeviceAssignment(args->num_replicas);
    if (!ids.ok()) return ids.status();
    std::copy(ids->begin(), ids->end(), args->device_ids);
    return absl::OkStatus();
  });
}

PLX_Error* DeviceDescribe(PLX_Device_Describe_Args* args) {
  return Guard("PLX_Device_Describe", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Device_Describe_Args, "PLX_Device_Describe");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->device, HandleKind::kDevice,
                                      "PLX_Device_Describe", "device"));
    const Device* d = args->device->impl;
    args->id = d->id();
    args->kind = d->kind().c_str();
    args->memory_bytes = d->memory_bytes();
    args->attributes = args->device->attributes.data();
    args->num_attributes = args->device->attributes.size();
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ Events

PLX_Error* EventDestroy(PLX_Event_Destroy_Args* args) {
  return Guard("PLX_Event_Destroy", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Event_Destroy_Args, "PLX_Event_Destroy");
    if (args->event == nullptr) return absl::OkStatus();
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->event, HandleKind::kEvent,
                                      "PLX_Event_Destroy", "event"));
    UnregisterHandle(args->event);
    delete args->event;
    return absl::OkStatus();
  });
}

PLX_Error* EventIsReady(PLX_Event_IsReady_Args* args) {
  return Guard("PLX_Event_IsReady", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Event_IsReady_Args, "PLX_Event_IsReady");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->event, HandleKind::kEvent,
                                      "PLX_Event_IsReady", "event"));
    args->is_ready = args->event->event->IsReady();
    return absl::OkStatus();
  });
}

PLX_Error* EventAwait(PLX_Event_Await_Args* args) {
  return Guard("PLX_Event_Await", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Event_Await_Args, "PLX_Event_Await");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->event, HandleKind::kEvent,
                                      "PLX_Event_Await", "event"));
    return args->event->event->Await();
  });
}

PLX_Error* EventOnReady(PLX_Event_OnReady_Args* args) {
  return Guard("PLX_Event_OnReady", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Event_OnReady_Args, "PLX_Event_OnReady");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->event, HandleKind::kEvent,
                                      "PLX_Event_OnReady", "event"));
    if (args->callback == nullptr) {
      return absl::InvalidArgumentError("PLX_Event_OnReady: callback is NULL");
    }
    PLX_Event_Callback* cb = args->callback;
    void* user = args->user_arg;
    args->event->event->OnReady(
        [cb, user](absl::Status s) { cb(ToError(std::move(s)), user); });
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ Buffers

absl::StatusOr<Device*> ResolveDevice(PLX_Client* client, PLX_Device* device,
                                      const char* fn) {
  if (device == nullptr) {
    if (client->devices.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(fn, ": the client has no devices"));
    }
    return client->devices[0]->impl;
  }
  PLEXA_RETURN_IF_ERROR(CheckHandle(device, HandleKind::kDevice, fn, "device"));
  if (device->client != client) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": device belongs to another client"));
  }
  return device->impl;
}

PLX_Error* ClientBufferFromHost(PLX_Client_BufferFromHost_Args* args) {
  constexpr const char* fn = "PLX_Client_BufferFromHost";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_BufferFromHost_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    auto device = ResolveDevice(args->client, args->device, fn);
    if (!device.ok()) return device.status();
    auto shape = ReadArrayShape(args->shape, fn);
    if (!shape.ok()) return shape.status();
    const size_t needed = ShapeUtil::ByteSizeOf(*shape);
    if (args->data_size != needed) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": data_size is ", args->data_size, " bytes but ",
                       shape->ToString(), " needs ", needed));
    }
    if (args->data == nullptr && needed > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": data is NULL"));
    }
    PLEXA_RETURN_IF_ERROR(CheckShapeFitsLimit(
        *shape, args->client->memory_limit_bytes, absl::StrCat(fn, ": shape")));
    auto buffer =
        args->client->impl->BufferFromHost(args->data, *shape, *device);
    if (!buffer.ok()) return buffer.status();
    std::shared_ptr<Event> ready = (*buffer)->ready_event();
    if (args->done_with_host_buffer == nullptr) {
      // Synchronous contract: the host memory may be reused on return. A
      // failed copy hands out no buffer (nothing for the caller to leak).
      absl::Status s = ready->Await();
      if (!s.ok()) return s;
    }
    PLEXA_ASSIGN_OR_RETURN(args->buffer,
                           WrapBuffer(args->client, std::move(*buffer)));
    if (args->done_with_host_buffer != nullptr) {
      *args->done_with_host_buffer = WrapEvent(ready);
    }
    return absl::OkStatus();
  });
}

PLX_Error* BufferShape(PLX_Buffer_Shape_Args* args) {
  return Guard("PLX_Buffer_Shape", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_Shape_Args, "PLX_Buffer_Shape");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_Shape", "buffer"));
    PLX_Buffer* b = args->buffer;
    args->shape = b->shape.view;
    Device* dev = b->impl->device();
    args->device = nullptr;
    for (PLX_Device* d : b->client->devices) {
      if (d->impl == dev) args->device = d;
    }
    args->on_device_size = b->impl->on_device_size();
    return absl::OkStatus();
  });
}

PLX_Error* BufferToHost(PLX_Buffer_ToHost_Args* args) {
  constexpr const char* fn = "PLX_Buffer_ToHost";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_ToHost_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->buffer, HandleKind::kBuffer, fn, "buffer"));
    Buffer* b = args->buffer->impl.get();
    if (b->IsDeleted()) {
      return absl::FailedPreconditionError(
          absl::StrCat(fn, ": the buffer was deleted"));
    }
    Shape host = b->shape();
    host.clear_layout();
    if (args->host_minor_to_major != nullptr) {
      *host.mutable_layout() = LayoutUtil::MakeLayout(absl::MakeConstSpan(
          args->host_minor_to_major, host.dimensions().size()));
      PLEXA_RETURN_IF_ERROR(
          LayoutUtil::ValidateLayoutForShape(host.layout(), host));
    } else {
      LayoutUtil::SetToDefaultLayout(&host);
    }
    const size_t needed = ShapeUtil::ByteSizeOf(host);
    if (args->dst == nullptr) {
      args->dst_size = needed;
      return absl::OkStatus();
    }
    if (args->dst_size < needed) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": dst_size is ", args->dst_size, " bytes but ",
                       b->shape().ToString(), " needs ", needed));
    }
    PLEXA_RETURN_IF_ERROR(b->ready_event()->Await());
    if (args->event != nullptr) {
      auto e = b->ToHostAsync(args->dst, host);
      if (!e.ok()) return e.status();
      *args->event = WrapEvent(*e);
      return absl::OkStatus();
    }
    return b->ToHost(args->dst, host);
  });
}

PLX_Error* BufferCopyToDevice(PLX_Buffer_CopyToDevice_Args* args) {
  constexpr const char* fn = "PLX_Buffer_CopyToDevice";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_CopyToDevice_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->buffer, HandleKind::kBuffer, fn, "buffer"));
    PLX_Client* client = args->buffer->client;
    auto device = ResolveDevice(client, args->dst_device, fn);
    if (!device.ok()) return device.status();
    if (args->buffer->impl->IsDeleted()) {
      return absl::FailedPreconditionError(
          absl::StrCat(fn, ": the buffer was deleted"));
    }
    auto copy = client->impl->CopyToDevice(args->buffer->impl.get(), *device);
    if (!copy.ok()) return copy.status();
    PLEXA_ASSIGN_OR_RETURN(args->dst_buffer,
                           WrapBuffer(client, std::move(*copy)));
    return absl::OkStatus();
  });
}

PLX_Error* BufferDelete(PLX_Buffer_Delete_Args* args) {
  return Guard("PLX_Buffer_Delete", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_Delete_Args, "PLX_Buffer_Delete");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_Delete", "buffer"));
    args->buffer->impl->Delete();
    return absl::OkStatus();
  });
}

PLX_Error* BufferIsDeleted(PLX_Buffer_IsDeleted_Args* args) {
  return Guard("PLX_Buffer_IsDeleted", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_IsDeleted_Args, "PLX_Buffer_IsDeleted");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_IsDeleted", "buffer"));
    args->is_deleted = args->buffer->impl->IsDeleted();
    return absl::OkStatus();
  });
}

PLX_Error* BufferDestroy(PLX_Buffer_Destroy_Args* args) {
  return Guard("PLX_Buffer_Destroy", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_Destroy_Args, "PLX_Buffer_Destroy");
    if (args->buffer == nullptr) return absl::OkStatus();
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_Destroy", "buffer"));
    UnregisterHandle(args->buffer);
    args->buffer->client->live_buffers.fetch_sub(1);
    delete args->buffer;
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------------ Compile

absl::StatusOr<CompileOptions> ReadCompileOptions(const PLX_CompileOptions* o,
                                                  const char* fn) {
  CompileOptions out;
  if (o == nullptr) return out;
  if (o->struct_size < PLX_CompileOptions_STRUCT_SIZE ||
      o->struct_size > kMaxStructSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": options->struct_size is ", o->struct_size,
                     ", expected at least ", PLX_CompileOptions_STRUCT_SIZE));
  }
  out.num_replicas = o->num_replicas == 0 ? 1 : o->num_replicas;
  if (out.num_replicas < 0 || out.num_replicas > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": num_replicas ", o->num_replicas, " out of range"));
  }
  if (o->device_assignment != nullptr) {
    out.device_assignment.assign(o->device_assignment,
                                 o->device_assignment + out.num_replicas);
  }
  out.optimization_level = o->optimization_level;
  if (o->num_custom_call_libraries > 0 && o->custom_call_libraries == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": custom_call_libraries is NULL"));
  }
  for (size_t i = 0; i < o->num_custom_call_libraries; ++i) {
    if (o->custom_call_libraries[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": custom_call_libraries[", i, "] is NULL"));
    }
    out.custom_call_libraries.emplace_back(o->custom_call_libraries[i]);
  }
  auto opts = ReadOptions(o->options, o->num_options, fn);
  if (!opts.ok()) return opts.status();
  out.options = std::move(*opts);
  return out;
}

// A plugin's signature must be flat (array leaves only): a tuple or token
// shape cannot be described by a PLX_ArrayShape.
absl::Status CheckFlatSignature(const Executable& exe, const char* fn) {
  for (const auto* list : {&exe.parameter_shapes(), &exe.output_shapes()}) {
    for (const Shape& s : *list) {
      if (!s.IsArray()) {
        return absl::InternalError(absl::StrCat(
            fn, ": the plugin's executable lists a ",
            list == &exe.parameter_shapes() ? "parameter" : "output",
            " of shape ", s.ToString(),
            "; signatures hold array leaves only "
            "(ShapeUtil::ArrayLeafShapes)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PLX_Executable*> WrapExecutable(
    PLX_Client* client, std::unique_ptr<Executable> exe,
    std::shared_ptr<CustomCallResolver> resolver) {
  auto h = std::make_unique<PLX_Executable>();
  for (const Shape& s : exe->parameter_shapes()) {
    PLEXA_RETURN_IF_ERROR(h->parameter_storage.emplace_back().Set(s));
  }
  for (const Shape& s : exe->output_shapes()) {
    PLEXA_RETURN_IF_ERROR(h->output_storage.emplace_back().Set(s));
  }
  for (auto& s : h->parameter_storage) h->parameters.push_back(s.view);
  for (auto& s : h->output_storage) h->outputs.push_back(s.view);
  h->program_shape = exe->program_shape();
  h->impl = std::move(exe);
  h->client = client;
  h->resolver = std::move(resolver);
  client->live_executables.fetch_add(1);
  RegisterHandle(h.get(), HandleKind::kExecutable);
  return h.release();
}

PLX_Error* ClientCompile(PLX_Client_Compile_Args* args) {
  constexpr const char* fn = "PLX_Client_Compile";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_Compile_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    if (args->program == nullptr || args->format == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": program and format must not be NULL"));
    }
    const std::string format = args->format;
    bool accepted = false;
    for (const std::string& f : g_info->formats) accepted |= f == format;
    if (!accepted) {
      std::string list;
      for (const std::string& f : g_info->formats) {
        absl::StrAppend(&list, list.empty() ? "" : ", ", f);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": plugin '", g_info->name, "' does not accept format '", format,
          "' (accepts: ", list, ")"));
    }
    auto options = ReadCompileOptions(args->options, fn);
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<Module>> module;
    if (format == "hlo-text") {
      module =
          ParseHloModule(absl::string_view(args->program, args->program_size));
    } else if (format == kModuleFormatName) {
      // DeserializeModule verifies what it returns.
      module = DeserializeModule(
          absl::string_view(args->program, args->program_size));
    } else {
      return absl::UnimplementedError(
          absl::StrCat(fn, ": no decoder for format '", format, "'"));
    }
    if (!module.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("program: ", module.status().message()));
    }
    if (format != kModuleFormatName) {
      PLEXA_RETURN_IF_ERROR(VerifyModule(**module));
    }
    PLEXA_RETURN_IF_ERROR(
        CheckModuleFitsLimit(**module, args->client->memory_limit_bytes));
    auto resolver = CustomCallResolver::Create(options->custom_call_libraries);
    if (!resolver.ok()) return resolver.status();
    if (options->device_assignment.empty()) {
      auto ids =
          args->client->impl->DefaultDeviceAssignment(options->num_replicas);
      if (!ids.ok()) return ids.status();
      options->device_assignment = std::move(*ids);
    }
    auto exe =
        args->client->impl->Compile(std::move(*module), *options, **resolver);
    if (!exe.ok()) return exe.status();
    PLEXA_RETURN_IF_ERROR(CheckFlatSignature(**exe, fn));
    PLEXA_ASSIGN_OR_RETURN(
        args->executable,
        WrapExecutable(args->client, std::move(*exe), std::move(*resolver)));
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args) {
  return Guard("PLX_Executable_Destroy", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Destroy_Args, "PLX_Executable_Destroy");
    if (args->executable == nullptr) return absl::OkStatus();
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      "PLX_Executable_Destroy", "executable"));
    UnregisterHandle(args->executable);
    args->executable->client->live_executables.fetch_sub(1);
    delete args->executable;
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableSignature(PLX_Executable_Signature_Args* args) {
  constexpr const char* fn = "PLX_Executable_Signature";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.1: a 1.0 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Executable_Signature_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    PLX_Executable* e = args->executable;
    args->parameters = e->parameters.data();
    args->num_parameters = e->parameters.size();
    args->outputs = e->outputs.data();
    args->num_outputs = e->outputs.size();
    args->num_replicas = e->impl->num_replicas();
    // A 1.0 caller's struct ends before program_shape: not written then.
    if (args->struct_size >=
        PLX_STRUCT_SIZE(PLX_Executable_Signature_Args, program_shape)) {
      args->program_shape =
          e->program_shape.empty() ? nullptr : e->program_shape.c_str();
    }
    return absl::OkStatus();
  });
}

// HostFeeds over a PLX_FeedsExtension: the plugin's side of the host's
// feed callbacks. Each call lays the value out as the ABI says (array leaves,
// depth first, default row-major layout) and converts a failure code and
// message into a status.
class AbiFeeds : public HostFeeds {
 public:
  explicit AbiFeeds(const PLX_FeedsExtension& ext)
      : user_data_(ext.user_data), infeed_(ext.infeed), outfeed_(ext.outfeed) {}

  absl::StatusOr<Literal> Infeed(int64_t replica, absl::string_view instruction,
                                 const Shape& data_shape) override {
    if (infeed_ == nullptr) {
      return absl::FailedPreconditionError(
          "the host's PLX_FeedsExtension has no infeed callback");
    }
    Shape shape = data_shape;
    LayoutUtil::SetToDefaultLayout(&shape);
    Literal value(shape);
    std::vector<Literal*> leaves;
    CollectLeaves(&value, &leaves);
    PLEXA_RETURN_IF_ERROR(Call(infeed_, replica, instruction, shape, leaves));
    return value;
  }

  absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                       Literal value) override {
    if (outfeed_ == nullptr) {
      return absl::FailedPreconditionError(
          "the host's PLX_FeedsExtension has no outfeed callback");
    }
    Shape shape = value.shape();
    LayoutUtil::SetToDefaultLayout(&shape);
    std::vector<Literal*> leaves;
    CollectLeaves(&value, &leaves);
    for (Literal* leaf : leaves) {
      Shape want = leaf->shape();
      LayoutUtil::SetToDefaultLayout(&want);
      if (!(LayoutUtil::EffectiveLayout(leaf->shape()) == want.layout())) {
        absl::StatusOr<Literal> moved = leaf->Relayout(want.layout());
        if (!moved.ok()) return moved.status();
        *leaf = std::move(*moved);
      }
    }
    return Call(outfeed_, replica, instruction, shape, leaves);
  }

 private:
  static void CollectLeaves(Literal* value, std::vector<Literal*>* out) {
    if (value->shape().IsTuple()) {
      for (int64_t i = 0; i < value->tuple_element_count(); ++i) {
        CollectLeaves(value->mutable_tuple_element(i), out);
      }
    } else if (value->shape().IsArray()) {
      out->push_back(value);
    }
  }

  absl::Status Call(PLX_Feed_Callback* fn, int64_t replica,
                    absl::string_view instruction, const Shape& shape,
                    const std::vector<Literal*>& leaves) {
    std::vector<ArrayShapeStorage> storage(leaves.size());
    std::vector<PLX_ArrayShape> views;
    std::vector<void*> data;
    for (size_t i = 0; i < leaves.size(); ++i) {
      PLEXA_RETURN_IF_ERROR(storage[i].Set(leaves[i]->shape()));
      storage[i].view.minor_to_major = nullptr;  // row-major by contract
      views.push_back(storage[i].view);
      data.push_back(leaves[i]->mutable_data().data());
    }
    const std::string name(instruction);
    const std::string shape_text = shape.ToString(true);
    PLX_FeedArgs args{};
    args.struct_size = PLX_FeedArgs_STRUCT_SIZE;
    args.replica = replica;
    args.instruction = name.c_str();
    args.shape = shape_text.c_str();
    args.leaves = views.data();
    args.num_leaves = views.size();
    args.data = data.data();
    const int32_t code = fn(user_data_, &args);
    if (code == PLX_Error_Code_OK) return absl::OkStatus();
    const absl::StatusCode status_code =
        code > 0 && code <= PLX_Error_Code_UNAUTHENTICATED
            ? static_cast<absl::StatusCode>(code)
            : absl::StatusCode::kUnknown;
    return absl::Status(
        status_code,
        absl::StrCat("the host's ", fn == infeed_ ? "infeed" : "outfeed",
                     " callback failed: ",
                     args.error_message != nullptr ? args.error_message
                                                   : "(no message)"));
  }

  void* user_data_;
  PLX_Feed_Callback* infeed_;
  PLX_Feed_Callback* outfeed_;
};

// Reads the extensions of an Execute call that this SDK knows; unknown
// types are skipped, as the ABI says.
absl::Status ReadExecuteExtensions(PLX_Extension* chain, const char* fn,
                                   ExecuteOptions* options) {
  int hops = 0;
  for (PLX_Extension* e = chain; e != nullptr; e = e->next) {
    if (++hops > 256) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": the extension chain has more than 256 links (a cycle?)"));
    }
    if (e->type != PLX_ExtensionType_FEEDS) continue;
    if (e->struct_size < PLX_FeedsExtension_STRUCT_SIZE ||
        e->struct_size > kMaxStructSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": PLX_FeedsExtension struct_size is ", e->struct_size,
          ", expected at least ", PLX_FeedsExtension_STRUCT_SIZE));
    }
    if (options->feeds != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": two PLX_FeedsExtension in one call"));
    }
    options->feeds = std::make_shared<AbiFeeds>(
        *reinterpret_cast<const PLX_FeedsExtension*>(e));
  }
  return absl::OkStatus();
}

PLX_Error* ExecutableExecute(PLX_Executable_Execute_Args* args) {
  constexpr const char* fn = "PLX_Executable_Execute";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Execute_Args, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    PLX_Executable* e = args->executable;
    Executable* exe = e->impl.get();
    const size_t replicas = static_cast<size_t>(exe->num_replicas());
    if (args->num_replicas != replicas) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": executable was compiled for ", replicas,
                       " replica(s), num_replicas is ", args->num_replicas));
    }
    const auto& params = exe->parameter_shapes();
    if (args->num_arguments != params.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": the program takes ", params.size(),
                       " argument(s), num_arguments is ", args->num_arguments));
    }
    if (args->num_outputs < exe->output_shapes().size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": the program has ", exe->output_shapes().size(),
          " output(s), the outputs arrays have room for ", args->num_outputs));
    }
    if ((params.size() > 0 && args->arguments == nullptr) ||
        args->outputs == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": arguments or outputs is NULL"));
    }
    std::vector<std::vector<Buffer*>> per_replica(replicas);
    for (size_t r = 0; r < replicas; ++r) {
      if (args->outputs[r] == nullptr && !exe->output_shapes().empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": outputs[", r, "] is NULL"));
      }
      if (params.empty()) continue;
      if (args->arguments[r] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": arguments[", r, "] is NULL"));
      }
      for (size_t i = 0; i < params.size(); ++i) {
        PLX_Buffer* b = args->arguments[r][i];
        const std::string what = absl::StrCat("arguments[", r, "][", i, "]");
        PLEXA_RETURN_IF_ERROR(
            CheckHandle(b, HandleKind::kBuffer, fn, what.c_str()));
        if (b->client != e->client) {
          return absl::InvalidArgumentError(
              absl::StrCat(fn, ": ", what, " belongs to another client"));
        }
        if (b->impl->IsDeleted()) {
          return absl::FailedPreconditionError(
              absl::StrCat(fn, ": ", what, " was deleted"));
        }
        if (!Shape::Equal().IgnoreLayout()(b->impl->shape(), params[i])) {
          return absl::InvalidArgumentError(absl::StrCat(
              fn, ": ", what, " has shape ", b->impl->shape().ToString(),
              " but parameter ", i, " is ", params[i].ToString()));
        }
        per_replica[r].push_back(b->impl.get());
      }
    }
    for (size_t d = 0; d < args->num_donated; ++d) {
      if (args->donated == nullptr || args->donated[d] < 0 ||
          static_cast<size_t>(args->donated[d]) >= params.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": donated argument index out of range"));
      }
    }
    ExecuteOptions options;
    PLEXA_RETURN_IF_ERROR(
        ReadExecuteExtensions(args->extension_start, fn, &options));
    auto result = exe->ExecuteWithOptions(per_replica, options);
    if (!result.ok()) return result.status();
    if (result->outputs.size() != replicas) {
      return absl::InternalError(absl::StrCat(
          fn, ": plugin returned outputs for ", result->outputs.size(),
          " replicas, expected ", replicas));
    }
    std::vector<std::shared_ptr<Event>> completion = result->completion;
    if (completion.empty()) completion.assign(replicas, Event::Ready());
    for (size_t r = 0; r < replicas; ++r) {
      for (size_t i = 0; i < result->outputs[r].size(); ++i) {
        // Output shapes were checked when the executable was wrapped.
        PLEXA_ASSIGN_OR_RETURN(
            args->outputs[r][i],
            WrapBuffer(e->client, std::move(result->outputs[r][i])));
      }
      for (size_t d = 0; d < args->num_donated; ++d) {
        Buffer* donated = per_replica[r][args->donated[d]];
        completion[r]->OnReady([donated](absl::Status) { donated->Delete(); });
      }
    }
    if (args->completion_events != nullptr) {
      for (size_t r = 0; r < replicas; ++r) {
        args->completion_events[r] = WrapEvent(completion[r]);
      }
      return absl::OkStatus();
    }
    for (size_t r = 0; r < replicas; ++r) {
      PLEXA_RETURN_IF_ERROR(completion[r]->Await());
    }
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableSerialize(PLX_Executable_Serialize_Args* args) {
  constexpr const char* fn = "PLX_Executable_Serialize";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Serialize_Args, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    auto bytes = args->executable->impl->Serialize();
    if (!bytes.ok()) return bytes.status();
    auto* owned = new std::string(std::move(*bytes));
    args->bytes = owned->data();
    args->bytes_size = owned->size();
    args->bytes_owner = owned;
    args->bytes_deleter = [](void* p) { delete static_cast<std::string*>(p); };
    return absl::OkStatus();
  });
}

PLX_Error* ClientDeserializeExecutable(
    PLX_Client_DeserializeExecutable_Args* args) {
  constexpr const char* fn = "PLX_Client_DeserializeExecutable";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_DeserializeExecutable_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    if (args->bytes == nullptr && args->bytes_size > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": bytes is NULL"));
    }
    auto exe = args->client->impl->Deserialize(
        absl::string_view(args->bytes, args->bytes_size));
    if (!exe.ok()) return exe.status();
    PLEXA_RETURN_IF_ERROR(CheckFlatSignature(**exe, fn));
    PLEXA_ASSIGN_OR_RETURN(
        args->executable,
        WrapExecutable(args->client, std::move(*exe), nullptr));
    return absl::OkStatus();
  });
}

PLX_Error* CustomCallRegister(PLX_CustomCall_Register_Args* args) {
  constexpr const char* fn = "PLX_CustomCall_Register";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_CustomCall_Register_Args, fn);
    if (args->name == nullptr || args->name[0] == '\0' ||
        args->function == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": name and function must be given"));
    }
    if (args->api_version != 0 && args->api_version != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": api_version ", args->api_version,
          " is not supported (0: void(void*, void**); 1: typed call frame)"));
    }
    const std::string platform = args->platform ? args->platform : "*";
    if (platform != "*" && platform != g_info->platform) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": target '", args->name, "' is for platform '", platform,
          "' but this plugin's platform is '", g_info->platform, "'"));
    }
    CustomCallRegistry::Global().Register(args->name, args->function,
                                          args->api_version);
    return absl::OkStatus();
  });
}

}  // namespace

const PLX_Api* MakeApi(std::unique_ptr<Plugin> (*factory)()) {
  static const PLX_Api* const api = [factory] {
    g_plugin = factory().release();
    g_info = new PluginInfo(g_plugin->Info());
    auto* t = new PLX_Api{};
    t->struct_size = PLX_Api_STRUCT_SIZE;
    t->extension_start = nullptr;
    t->version = {PLX_ApiVersion_STRUCT_SIZE, nullptr, PLX_API_MAJOR,
                  PLX_API_MINOR};
    t->PLX_Error_Destroy = ErrorDestroy;
    t->PLX_Error_Message = ErrorMessage;
    t->PLX_Error_GetCode = ErrorGetCode;
    t->PLX_Plugin_Initialize = PluginInitialize;
    t->PLX_Plugin_Attributes = PluginAttributes;
    t->PLX_Client_Create = ClientCreate;
    t->PLX_Client_Destroy = ClientDestroy;
    t->PLX_Client_Devices = ClientDevices;
    t->PLX_Client_DefaultDeviceAssignment = ClientDefaultDeviceAssignment;
    t->PLX_Device_Describe = DeviceDescribe;
    t->PLX_Event_Destroy = EventDestroy;
    t->PLX_Event_IsReady = EventIsReady;
    t->PLX_Event_Await = EventAwait;
    t->PLX_Event_OnReady = EventOnReady;
    t->PLX_Client_BufferFromHost = ClientBufferFromHost;
    t->PLX_Buffer_Shape = BufferShape;
    t->PLX_Buffer_ToHost = BufferToHost;
    t->PLX_Buffer_CopyToDevice = BufferCopyToDevice;
    t->PLX_Buffer_Delete = BufferDelete;
    t->PLX_Buffer_IsDeleted = BufferIsDeleted;
    t->PLX_Buffer_Destroy = BufferDestroy;
    t->PLX_Client_Compile = ClientCompile;
    t->PLX_Executable_Destroy = ExecutableDestroy;
    t->PLX_Executable_Signature = ExecutableSignature;
    t->PLX_Executable_Execute = ExecutableExecute;
    t->PLX_Executable_Serialize = ExecutableSerialize;
    t->PLX_Client_DeserializeExecutable = ClientDeserializeExecutable;
    t->PLX_CustomCall_Register = CustomCallRegister;
    return t;
  }();
  return api;
}

}  // namespace plexa::sdk
