// The C entry points for errors, the plugin, clients, devices, events and
// buffers (see entry_util.h).
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

}  // namespace plexa::sdk::internal
