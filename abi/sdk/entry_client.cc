// The C entry points for errors, the plugin, clients, devices, events and
// buffers (see entry_util.h).
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abi/sdk/entry_util.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/ir/memory_limit.h"
#include "core/literal/literal.h"
#include "core/proto/module_proto.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"

namespace plexa::sdk::internal {

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
    // The host's log (a PLX_LoggerExtension, ABI 1.2) for custom calls.
    auto call_frames = ReadCallFrameContext(args->extension_start,
                                            "PLX_Client_Create", *limit);
    if (!call_frames.ok()) return call_frames.status();
    auto client = g_plugin->CreateClient(*options);
    if (!client.ok()) return client.status();
    auto* h = new PLX_Client;
    h->memory_limit_bytes = *limit;
    h->call_frames = std::move(*call_frames);
    h->impl = std::move(*client);
    int64_t next_memory_id = 0;
    for (Device* d : h->impl->devices()) {
      auto dh = std::make_unique<PLX_Device>();
      dh->impl = d;
      dh->client = h;
      FillNamedValues(d->attributes(), &dh->attributes);
      AddMemoryHandles(dh.get(), &next_memory_id);
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
    // Work still in flight (of buffers destroyed while pending) completes
    // first; work waiting on a user event nobody set fails instead of
    // hanging.
    {
      std::lock_guard<std::mutex> lock(c->user_events_mu);
      for (const auto& weak : c->user_events) {
        if (std::shared_ptr<Event> e = weak.lock()) {
          e->TrySet(absl::CancelledError(
              "the client was destroyed before the user event was set"));
        }
      }
    }
    // The SDK's queue and the plugin's own threads may feed each other:
    // drained until neither has anything left.
    do {
      c->queue->Drain();
    } while (c->impl->Quiesce());
    for (auto& d : c->device_handles) {
      for (auto& m : d->memory_handles) UnregisterHandle(m.get());
      UnregisterHandle(d.get());
    }
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
    if (args->event->user) {
      // Nobody can set it any more: what waits on it fails, not hangs.
      args->event->event->TrySet(absl::CancelledError(
          "the user event was destroyed before PLX_Event_Set"));
    }
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

PLX_Error* ClientCreateUserEvent(PLX_Client_CreateUserEvent_Args* args) {
  constexpr const char* fn = "PLX_Client_CreateUserEvent";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_CreateUserEvent_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    std::shared_ptr<Event> event = Event::Create();
    {
      PLX_Client* c = args->client;
      std::lock_guard<std::mutex> lock(c->user_events_mu);
      // Forget the events that are gone, so the list does not grow forever.
      std::erase_if(c->user_events,
                    [](const std::weak_ptr<Event>& w) { return w.expired(); });
      c->user_events.push_back(event);
    }
    PLX_Event* h = WrapEvent(std::move(event));
    h->user = true;
    args->event = h;
    return absl::OkStatus();
  });
}

PLX_Error* EventSet(PLX_Event_Set_Args* args) {
  constexpr const char* fn = "PLX_Event_Set";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Event_Set_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->event, HandleKind::kEvent, fn, "event"));
    if (!args->event->user) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn,
                       ": event is not a user event (only events from "
                       "PLX_Client_CreateUserEvent are set by the host)"));
    }
    const int64_t code = RawEnum(args->code);
    if (code < PLX_Error_Code_OK || code > PLX_Error_Code_UNAUTHENTICATED) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": code ", code, " is not a PLX_Error_Code"));
    }
    if (args->message == nullptr && args->message_size > 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": message is NULL but message_size is ", args->message_size));
    }
    absl::Status status;
    if (code != PLX_Error_Code_OK) {
      status = absl::Status(
          static_cast<absl::StatusCode>(code),
          args->message_size == 0
              ? std::string("the host set the user event with an error")
              : std::string(args->message, args->message_size));
    }
    if (!args->event->event->TrySet(std::move(status))) {
      return absl::FailedPreconditionError(
          absl::StrCat(fn, ": the user event was already set"));
    }
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

// A buffer handle that the caller may use: live, and neither deleted nor
// donated.
absl::StatusOr<BufferSlot*> UsableBuffer(PLX_Buffer* buffer, const char* fn,
                                         const char* what) {
  PLEXA_RETURN_IF_ERROR(CheckHandle(buffer, HandleKind::kBuffer, fn, what));
  PLEXA_RETURN_IF_ERROR(
      buffer->slot->CheckUsable(absl::StrCat(fn, ": ", what)));
  return buffer->slot.get();
}

// What BufferFromHost hands the plugin: the host data as the plugin takes
// it (the caller's memory, or a staging copy gathered from strides or
// converted to the requested device layout) and its shape.
struct HostArray {
  const void* data = nullptr;
  Shape shape;
  // Owns `data` when it is a staging copy (shared with queued work).
  std::shared_ptr<std::vector<uint8_t>> staging;
};

// A sub-byte array crosses the ABI as a dense packed buffer: its layout
// may order the dimensions but not pad or tile them.
absl::Status CheckDenseSubByte(const Shape& shape, const char* fn) {
  if (ShapeUtil::ByteSizeOf(shape) != ShapeUtil::ElementsIn(shape)) {
    return absl::UnimplementedError(absl::StrCat(
        fn, ": ", shape.ToString(),
        ": a packed sub-byte buffer with padding or tiles in its layout"));
  }
  return absl::OkStatus();
}

// ToHostAsync of a sub-byte array: the plugin writes the core's form (a
// byte an element) into a staging buffer, packed into `dst` when done.
absl::StatusOr<std::shared_ptr<Event>> ToHostPacked(Buffer& buffer, void* dst,
                                                    const Shape& host,
                                                    WorkQueue& queue) {
  auto staging =
      std::make_shared<std::vector<uint8_t>>(ShapeUtil::ByteSizeOf(host));
  PLEXA_ASSIGN_OR_RETURN(std::shared_ptr<Event> copied,
                         buffer.ToHostAsync(staging->data(), host));
  auto done = Event::Create();
  const PrimitiveType type = host.element_type();
  queue.RunAfter({copied}, [staging, dst, type, done](absl::Status s) {
    if (s.ok()) {
      abi::PackSubByte(type, *staging, static_cast<uint8_t*>(dst));
    }
    done->Set(s);
  });
  return done;
}

// Reads the caller's data, byte_strides and device_layout (the 1.2 fields
// only when struct_size covers them).
absl::StatusOr<HostArray> ReadHostArray(
    const PLX_Client_BufferFromHost_Args* args, const Client& client,
    int64_t memory_limit_bytes, const char* fn) {
  HostArray out;
  PLEXA_ASSIGN_OR_RETURN(out.shape, ReadArrayShape(args->shape, fn));
  PLEXA_RETURN_IF_ERROR(CheckShapeFitsLimit(out.shape, memory_limit_bytes,
                                            absl::StrCat(fn, ": shape")));
  const bool has_1_2 =
      args->struct_size >=
      PLX_STRUCT_SIZE(PLX_Client_BufferFromHost_Args, device_layout);
  const int64_t* strides = has_1_2 ? args->byte_strides : nullptr;
  const PLX_Layout* device_layout = has_1_2 ? args->device_layout : nullptr;
  const size_t needed = ShapeUtil::ByteSizeOf(out.shape);
  const PrimitiveType type = out.shape.element_type();
  if (primitive_util::IsSubByteType(type)) {
    // Packed across the ABI, one a byte in the plugin (abi/shape).
    PLEXA_RETURN_IF_ERROR(CheckDenseSubByte(out.shape, fn));
    if (strides != nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          fn, ": byte_strides of the packed type ", primitive_util::Name(type),
          " (elements share bytes); pass the dense buffer"));
    }
    const size_t packed = abi::AbiByteSize(out.shape);
    if (args->data_size != packed) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": data_size is ", args->data_size, " bytes but ",
                       out.shape.ToString(), " packs into ", packed));
    }
    if (args->data == nullptr && packed > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": data is NULL"));
    }
    out.staging = std::make_shared<std::vector<uint8_t>>(needed);
    abi::UnpackSubByte(type, static_cast<const uint8_t*>(args->data),
                       absl::MakeSpan(*out.staging));
    out.data = out.staging->data();
  } else if (strides != nullptr) {
    if (args->shape->minor_to_major != nullptr ||
        args->shape->layout != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn,
                       ": byte_strides are given, so shape->minor_to_major "
                       "and shape->layout must be NULL"));
    }
    const auto span = absl::MakeConstSpan(strides, args->num_byte_strides);
    PLEXA_ASSIGN_OR_RETURN(abi::StridedView view,
                           abi::AnalyzeStrides(out.shape, span, fn));
    const uint64_t reach =
        static_cast<uint64_t>(view.max_offset - view.min_offset);
    if (args->data_size < reach) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": data_size is ", args->data_size,
                       " bytes but the strides {", absl::StrJoin(span, ","),
                       "} of ", out.shape.ToString(), " reach ", reach));
    }
    if (args->data == nullptr && reach > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": data is NULL"));
    }
    const auto* origin = static_cast<const uint8_t*>(args->data);
    if (view.dense) {
      // A dense array in another dimension order: that order is its
      // layout, and no copy is needed.
      *out.shape.mutable_layout() = LayoutUtil::MakeLayout(view.minor_to_major);
      out.data = origin + view.min_offset;
    } else {
      out.staging = std::make_shared<std::vector<uint8_t>>(needed);
      abi::GatherStrided(origin, out.shape, span, out.staging->data());
      out.data = out.staging->data();
    }
  } else {
    if (args->data_size != needed) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": data_size is ", args->data_size, " bytes but ",
                       out.shape.ToString(), " needs ", needed));
    }
    if (args->data == nullptr && needed > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": data is NULL"));
    }
    out.data = args->data;
  }
  if (device_layout != nullptr) {
    const std::string what = absl::StrCat(fn, ": device_layout");
    PLEXA_ASSIGN_OR_RETURN(
        Layout layout,
        abi::LayoutFromAbi(device_layout,
                           static_cast<int64_t>(out.shape.dimensions().size()),
                           what));
    if (layout.memory_space() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " has memory space ", layout.memory_space(),
                       "; name the memory in the memory field instead"));
    }
    Shape device_shape = out.shape;
    *device_shape.mutable_layout() = layout;
    PLEXA_RETURN_IF_ERROR(
        LayoutUtil::ValidateLayoutForShape(layout, device_shape));
    if (absl::Status s = client.CheckDeviceLayout(device_shape); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
    }
    if (!(device_shape.layout() == out.shape.layout())) {
      // Converted on the host, before the plugin sees it.
      Literal host(out.shape);
      std::memcpy(host.mutable_data().data(), out.data, needed);
      PLEXA_ASSIGN_OR_RETURN(Literal converted, host.Relayout(layout));
      out.staging = std::make_shared<std::vector<uint8_t>>(
          converted.data().begin(), converted.data().end());
      out.data = out.staging->data();
    }
    out.shape = std::move(device_shape);
  }
  return out;
}

PLX_Error* ClientBufferFromHost(PLX_Client_BufferFromHost_Args* args) {
  constexpr const char* fn = "PLX_Client_BufferFromHost";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.2: a 1.0/1.1 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    PLX_Memory* memory_handle =
        args->struct_size >=
                PLX_STRUCT_SIZE(PLX_Client_BufferFromHost_Args, memory)
            ? args->memory
            : nullptr;
    PLX_Device* device_handle = args->device;
    if (memory_handle != nullptr) {
      PLEXA_RETURN_IF_ERROR(
          CheckHandle(memory_handle, HandleKind::kMemory, fn, "memory"));
      if (memory_handle->device->client != args->client) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": memory belongs to another client"));
      }
      if (device_handle != nullptr && device_handle != memory_handle->device) {
        return absl::InvalidArgumentError(absl::StrCat(
            fn, ": memory ", memory_handle->id, " belongs to device ",
            memory_handle->device->impl->id(), ", not to the device given (",
            device_handle->impl->id(), ")"));
      }
      device_handle = memory_handle->device;
    }
    auto device = ResolveDevice(args->client, device_handle, fn);
    if (!device.ok()) return device.status();
    Memory* memory = memory_handle != nullptr ? memory_handle->impl
                                              : (*device)->default_memory();
    Client* client = args->client->impl.get();
    PLEXA_ASSIGN_OR_RETURN(
        HostArray host,
        ReadHostArray(args, *client, args->client->memory_limit_bytes, fn));
    PLEXA_ASSIGN_OR_RETURN(EventList waits, ReadWaitEvents(args, fn));
    const bool synchronous = args->done_with_host_buffer == nullptr;
    std::shared_ptr<BufferSlot> slot;
    if (synchronous || AllReady(waits)) {
      // The caller asked to wait, or there is nothing to wait for: copy now.
      absl::Status waited = synchronous ? AwaitAll(waits) : FirstError(waits);
      if (!waited.ok() && synchronous) return waited;
      if (!waited.ok()) {
        slot = BufferSlot::Failed(host.shape, *device, waited);
      } else {
        auto buffer =
            client->BufferFromHostOn(host.data, host.shape, *device, memory);
        if (!buffer.ok()) return buffer.status();
        slot = BufferSlot::Wrap(std::move(*buffer));
      }
      if (synchronous) {
        // The host memory may be reused on return. A failed copy hands out
        // no buffer (nothing for the caller to leak).
        absl::Status s = slot->ready()->Await();
        if (!s.ok()) return s;
      }
    } else {
      // Queued until the host's events are ready; the host keeps `data`
      // until done_with_host_buffer (the new buffer's ready event).
      slot = BufferSlot::Pending(host.shape, *device, memory);
      Device* dev = *device;
      args->client->queue->RunAfter(
          waits, [client, host, dev, memory, slot](absl::Status s) {
            if (!s.ok()) {
              slot->Fulfil(s);
              return;
            }
            slot->Fulfil(
                client->BufferFromHostOn(host.data, host.shape, dev, memory));
          });
    }
    std::shared_ptr<Event> ready = slot->ready();
    PLEXA_ASSIGN_OR_RETURN(args->buffer, WrapBuffer(args->client, slot));
    if (!synchronous) *args->done_with_host_buffer = WrapEvent(ready);
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
    Device* dev = b->slot->device();
    args->device = nullptr;
    for (PLX_Device* d : b->client->devices) {
      if (d->impl == dev) args->device = d;
    }
    // While queued work has not made the plugin's buffer: what it will take.
    Buffer* impl = b->slot->impl();
    args->on_device_size = impl != nullptr
                               ? impl->on_device_size()
                               : ShapeUtil::ByteSizeOf(b->slot->shape());
    return absl::OkStatus();
  });
}

PLX_Error* BufferReadyEvent(PLX_Buffer_ReadyEvent_Args* args) {
  constexpr const char* fn = "PLX_Buffer_ReadyEvent";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_ReadyEvent_Args, fn);
    PLEXA_ASSIGN_OR_RETURN(BufferSlot * slot,
                           UsableBuffer(args->buffer, fn, "buffer"));
    args->event = WrapEvent(slot->ready());
    return absl::OkStatus();
  });
}

PLX_Error* BufferToHost(PLX_Buffer_ToHost_Args* args) {
  constexpr const char* fn = "PLX_Buffer_ToHost";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.2: a 1.0/1.1 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Buffer_ToHost_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->buffer, HandleKind::kBuffer, fn, "buffer"));
    std::shared_ptr<BufferSlot> slot = args->buffer->slot;
    PLEXA_RETURN_IF_ERROR(slot->CheckUsable(absl::StrCat(fn, ": the buffer")));
    Shape host = slot->shape();
    host.clear_layout();
    if (args->host_minor_to_major != nullptr) {
      *host.mutable_layout() = LayoutUtil::MakeLayout(absl::MakeConstSpan(
          args->host_minor_to_major, host.dimensions().size()));
      PLEXA_RETURN_IF_ERROR(
          LayoutUtil::ValidateLayoutForShape(host.layout(), host));
    } else {
      LayoutUtil::SetToDefaultLayout(&host);
    }
    const bool packed = primitive_util::IsSubByteType(host.element_type());
    if (packed) PLEXA_RETURN_IF_ERROR(CheckDenseSubByte(host, fn));
    const size_t needed = abi::AbiByteSize(host);
    if (args->dst == nullptr) {
      args->dst_size = needed;
      return absl::OkStatus();
    }
    if (args->dst_size < needed) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": dst_size is ", args->dst_size, " bytes but ",
                       slot->shape().ToString(), " needs ", needed));
    }
    PLEXA_ASSIGN_OR_RETURN(EventList deps, ReadWaitEvents(args, fn));
    deps.push_back(slot->ready());
    void* dst = args->dst;
    WorkQueue* queue = args->buffer->client->queue.get();
    if (args->event == nullptr) {
      // Synchronous: wait here, and report the producer's error.
      PLEXA_RETURN_IF_ERROR(AwaitAll(deps));
      if (!packed) return slot->impl()->ToHost(dst, host);
      PLEXA_ASSIGN_OR_RETURN(std::shared_ptr<Event> e,
                             ToHostPacked(*slot->impl(), dst, host, *queue));
      return e->Await();
    }
    if (AllReady(deps)) {
      absl::Status waited = FirstError(deps);
      if (!waited.ok()) {
        *args->event = WrapEvent(Event::Ready(waited));
        return absl::OkStatus();
      }
      auto e = packed ? ToHostPacked(*slot->impl(), dst, host, *queue)
                      : slot->impl()->ToHostAsync(dst, host);
      if (!e.ok()) return e.status();
      if (!(*e)->IsReady()) {
        slot->BeginUse();
        slot->EndUseWhenReady(*e);
      }
      *args->event = WrapEvent(*e);
      return absl::OkStatus();
    }
    // Queued until the buffer and the host's events are ready; the buffer
    // is not freed before the copy is done.
    auto done = Event::Create();
    slot->BeginUse();
    slot->EndUseWhenReady(done);
    queue->RunAfter(
        deps, [slot, dst, host, done, packed, queue](absl::Status s) {
          if (!s.ok()) {
            done->Set(s);
            return;
          }
          absl::StatusOr<std::shared_ptr<Event>> e =
              packed ? ToHostPacked(*slot->impl(), dst, host, *queue)
                     : slot->impl()->ToHostAsync(dst, host);
          if (!e.ok()) {
            done->Set(e.status());
            return;
          }
          Forward(*e, done);
        });
    *args->event = WrapEvent(done);
    return absl::OkStatus();
  });
}

PLX_Error* BufferCopyToDevice(PLX_Buffer_CopyToDevice_Args* args) {
  constexpr const char* fn = "PLX_Buffer_CopyToDevice";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.2: a 1.0/1.1 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->buffer, HandleKind::kBuffer, fn, "buffer"));
    PLX_Client* client = args->buffer->client;
    auto device = ResolveDevice(client, args->dst_device, fn);
    if (!device.ok()) return device.status();
    std::shared_ptr<BufferSlot> src = args->buffer->slot;
    PLEXA_RETURN_IF_ERROR(src->CheckUsable(absl::StrCat(fn, ": the buffer")));
    PLEXA_ASSIGN_OR_RETURN(EventList deps, ReadWaitEvents(args, fn));
    deps.push_back(src->ready());
    Client* impl = client->impl.get();
    Device* dev = *device;
    std::shared_ptr<BufferSlot> dst;
    if (AllReady(deps)) {
      absl::Status waited = FirstError(deps);
      if (!waited.ok()) {
        dst = BufferSlot::Failed(src->shape(), dev, waited);
      } else {
        auto copy = impl->CopyToDevice(src->impl(), dev);
        if (!copy.ok()) return copy.status();
        dst = BufferSlot::Wrap(std::move(*copy));
        if (!dst->ready()->IsReady()) {
          src->BeginUse();
          src->EndUseWhenReady(dst->ready());
        }
      }
    } else {
      dst = BufferSlot::Pending(src->shape(), dev);
      src->BeginUse();
      src->EndUseWhenReady(dst->ready());
      client->queue->RunAfter(deps, [impl, src, dst, dev](absl::Status s) {
        if (!s.ok()) {
          dst->Fulfil(s);
          return;
        }
        dst->Fulfil(impl->CopyToDevice(src->impl(), dev));
      });
    }
    PLEXA_ASSIGN_OR_RETURN(args->dst_buffer,
                           WrapBuffer(client, std::move(dst)));
    return absl::OkStatus();
  });
}

PLX_Error* BufferDelete(PLX_Buffer_Delete_Args* args) {
  return Guard("PLX_Buffer_Delete", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_Delete_Args, "PLX_Buffer_Delete");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_Delete", "buffer"));
    // Deferred past pending producers and consumers (BufferSlot).
    args->buffer->slot->Delete();
    return absl::OkStatus();
  });
}

PLX_Error* BufferIsDeleted(PLX_Buffer_IsDeleted_Args* args) {
  return Guard("PLX_Buffer_IsDeleted", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_IsDeleted_Args, "PLX_Buffer_IsDeleted");
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->buffer, HandleKind::kBuffer,
                                      "PLX_Buffer_IsDeleted", "buffer"));
    args->is_deleted = args->buffer->slot->IsDeleted();
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
    // The plugin's buffer goes with the last pending work that holds the
    // slot (at once when there is none).
    delete args->buffer;
    return absl::OkStatus();
  });
}

}  // namespace plexa::sdk::internal
