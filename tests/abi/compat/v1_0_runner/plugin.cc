// The v1.0 runner plugin (runner.h says what it is): errors, the plugin,
// clients and devices, events, buffers, and the table.
#include <dlfcn.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "tests/abi/compat/v1_0_runner/runner.h"

// PLX_Type and the core's PrimitiveType share their numbering in 1.0.
static_assert(static_cast<int>(plexa::PRED) == PLX_Type_PRED &&
              static_cast<int>(plexa::F32) == PLX_Type_F32 &&
              static_cast<int>(plexa::C128) == PLX_Type_C128);

PLX_Buffer::PLX_Buffer(PLX_Client* c, PLX_Device* d, plexa::Literal v)
    : client(c), device(d), shape(v.shape()), view(v.shape()) {
  value_ = std::move(v);
  ++client->live_buffers;
}

PLX_Buffer::~PLX_Buffer() {
  magic = 0;
  --client->live_buffers;
}

absl::StatusOr<plexa::Literal> PLX_Buffer::Read() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!value_) return absl::FailedPreconditionError("the buffer was deleted");
  return *value_;
}

void PLX_Buffer::Delete() {
  std::lock_guard<std::mutex> lock(mu_);
  value_.reset();
}

bool PLX_Buffer::IsDeleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !value_.has_value();
}

namespace plexa::v1_0_runner {

PLX_Error* NewError(const absl::Status& s) {
  return new PLX_Error{static_cast<PLX_Error_Code>(s.code()),
                       std::string(s.message())};
}

ShapeView::ShapeView(const Shape& shape) {
  dims.assign(shape.dimensions().begin(), shape.dimensions().end());
  const Layout layout = LayoutUtil::EffectiveLayout(shape);
  minor_to_major.assign(layout.minor_to_major().begin(),
                        layout.minor_to_major().end());
  if (LayoutUtil::IsTiled(shape) || LayoutUtil::IsPadded(shape)) {
    layout_text = layout.ToString();
  }
  view.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  view.element_type = static_cast<PLX_Type>(shape.element_type());
  view.dims = dims.data();
  view.num_dims = dims.size();
  view.minor_to_major = minor_to_major.data();
  view.layout = layout_text.empty() ? nullptr : layout_text.c_str();
}

Libraries::~Libraries() {
  for (void* h : handles_) dlclose(h);
}

// Replica r on device r: as many replicas as devices at most.
absl::Status CheckReplicaCount(const PLX_Client& client, int64_t replicas) {
  const int64_t devices = static_cast<int64_t>(client.devices.size());
  if (replicas < 1 || replicas > devices) {
    return absl::InvalidArgumentError(absl::StrCat(
        replicas, " replica(s) on a client with ", devices, " device(s)"));
  }
  return absl::OkStatus();
}

PLX_Event* ReadyEvent() { return new PLX_Event(); }

namespace {

// ------------------------------------------------------------- errors

void ErrorDestroy(PLX_Error_Destroy_Args* args) {
  if (args == nullptr ||
      args->struct_size < PLX_Error_Destroy_Args_STRUCT_SIZE) {
    return;
  }
  delete args->error;
}

void ErrorMessage(PLX_Error_Message_Args* args) {
  if (args == nullptr ||
      args->struct_size < PLX_Error_Message_Args_STRUCT_SIZE) {
    return;
  }
  args->message = args->error ? args->error->message.data() : "";
  args->message_size = args->error ? args->error->message.size() : 0;
}

PLX_Error* ErrorGetCode(PLX_Error_GetCode_Args* args) {
  return Guard("PLX_Error_GetCode", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Error_GetCode_Args);
    if (args->error == nullptr) {
      return absl::InvalidArgumentError("error is NULL");
    }
    args->code = args->error->code;
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------- plugin

PLX_Error* PluginInitialize(PLX_Plugin_Initialize_Args* args) {
  return Guard("PLX_Plugin_Initialize", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Plugin_Initialize_Args);
    return absl::OkStatus();
  });
}

const char* const kFormats[] = {kFormat};

PLX_Error* PluginAttributes(PLX_Plugin_Attributes_Args* args) {
  return Guard("PLX_Plugin_Attributes", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Plugin_Attributes_Args);
    args->name = "v1_0-runner";
    args->vendor = "Plexa tests";
    args->version = "frozen-1.0-runner";
    args->platform = kPlatform;
    args->abi_major = PLX_API_MAJOR;
    args->abi_minor = PLX_API_MINOR;
    args->formats = kFormats;
    args->num_formats = 1;
    args->capabilities =
        PLX_CAPABILITY_SERIALIZE_EXECUTABLE |
        PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL | PLX_CAPABILITY_CUSTOM_CALL_TYPED |
        PLX_CAPABILITY_REPLICAS | PLX_CAPABILITY_DEVICE_MEMORY_IS_HOST;
    args->attributes = nullptr;
    args->num_attributes = 0;
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------- client

PLX_Error* ClientCreate(PLX_Client_Create_Args* args) {
  return Guard("PLX_Client_Create", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_Create_Args);
    if (args->num_options > 0 && args->options == nullptr) {
      return absl::InvalidArgumentError("options is NULL");
    }
    int64_t num_devices = 1;
    for (size_t i = 0; i < args->num_options; ++i) {
      const PLX_NamedValue& o = args->options[i];
      const std::string name = o.name ? o.name : "(null)";
      if (name != "num_devices") {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown option '", name, "' (the v1.0 runner knows num_devices)"));
      }
      if (o.kind != PLX_Value_INT64 || o.int64_value < 1 ||
          o.int64_value > kMaxDevices) {
        return absl::InvalidArgumentError(absl::StrCat(
            "option 'num_devices' must be an int64 in [1, ", kMaxDevices, "]"));
      }
      num_devices = o.int64_value;
    }
    auto client = std::make_unique<PLX_Client>();
    for (int64_t d = 0; d < num_devices; ++d) {
      client->owned_devices.push_back(std::make_unique<PLX_Device>());
      client->owned_devices.back()->id = d;
      client->devices.push_back(client->owned_devices.back().get());
    }
    args->client = client.release();
    return absl::OkStatus();
  });
}

PLX_Error* ClientDestroy(PLX_Client_Destroy_Args* args) {
  return Guard("PLX_Client_Destroy", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_Destroy_Args);
    if (args->client == nullptr) return absl::OkStatus();
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    const int64_t buffers = args->client->live_buffers;
    const int64_t executables = args->client->live_executables;
    if (buffers > 0 || executables > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("the client still has ", buffers, " buffer(s) and ",
                       executables, " executable(s)"));
    }
    args->client->magic = 0;
    delete args->client;
    return absl::OkStatus();
  });
}

PLX_Error* ClientDevices(PLX_Client_Devices_Args* args) {
  return Guard("PLX_Client_Devices", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_Devices_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    args->devices = args->client->devices.data();
    args->num_devices = args->client->devices.size();
    return absl::OkStatus();
  });
}

PLX_Error* ClientDefaultDeviceAssignment(
    PLX_Client_DefaultDeviceAssignment_Args* args) {
  return Guard("PLX_Client_DefaultDeviceAssignment", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_DefaultDeviceAssignment_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    V1_0_RETURN_IF_ERROR(CheckReplicaCount(*args->client, args->num_replicas));
    if (args->device_ids == nullptr) {
      return absl::InvalidArgumentError("device_ids is NULL");
    }
    for (int64_t r = 0; r < args->num_replicas; ++r) args->device_ids[r] = r;
    return absl::OkStatus();
  });
}

PLX_Error* DeviceDescribe(PLX_Device_Describe_Args* args) {
  return Guard("PLX_Device_Describe", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Device_Describe_Args);
    if (args->device == nullptr) {
      return absl::InvalidArgumentError("device is NULL");
    }
    args->id = args->device->id;
    args->kind = "test:v1_0-runner";
    args->memory_bytes = 0;
    args->attributes = nullptr;
    args->num_attributes = 0;
    return absl::OkStatus();
  });
}

// `device` (NULL: the first) when it is one of the client's.
absl::StatusOr<PLX_Device*> ClientDevice(const PLX_Client& client,
                                         PLX_Device* device) {
  if (device == nullptr) return client.devices[0];
  for (PLX_Device* d : client.devices) {
    if (d == device) return d;
  }
  return absl::InvalidArgumentError("device is not a device of this client");
}

// ------------------------------------------------------------- events

PLX_Error* EventDestroy(PLX_Event_Destroy_Args* args) {
  return Guard("PLX_Event_Destroy", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Event_Destroy_Args);
    if (args->event == nullptr) return absl::OkStatus();
    V1_0_RETURN_IF_ERROR(CheckHandle(args->event, kEventMagic, "event"));
    args->event->magic = 0;
    delete args->event;
    return absl::OkStatus();
  });
}

PLX_Error* EventIsReady(PLX_Event_IsReady_Args* args) {
  return Guard("PLX_Event_IsReady", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Event_IsReady_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->event, kEventMagic, "event"));
    args->is_ready = true;
    return absl::OkStatus();
  });
}

// The error the event carries (NULL on success), owned by the caller.
PLX_Error* EventAwait(PLX_Event_Await_Args* args) {
  const PLX_Event* event = nullptr;
  if (PLX_Error* e = Guard("PLX_Event_Await", [&]() -> absl::Status {
        V1_0_CHECK_ARGS(PLX_Event_Await_Args);
        V1_0_RETURN_IF_ERROR(CheckHandle(args->event, kEventMagic, "event"));
        event = args->event;
        return absl::OkStatus();
      })) {
    return e;
  }
  return event->status.ok() ? nullptr : NewError(event->status);
}

PLX_Error* EventOnReady(PLX_Event_OnReady_Args* args) {
  const PLX_Event* event = nullptr;
  if (PLX_Error* e = Guard("PLX_Event_OnReady", [&]() -> absl::Status {
        V1_0_CHECK_ARGS(PLX_Event_OnReady_Args);
        V1_0_RETURN_IF_ERROR(CheckHandle(args->event, kEventMagic, "event"));
        if (args->callback == nullptr) {
          return absl::InvalidArgumentError("callback is NULL");
        }
        event = args->event;
        return absl::OkStatus();
      })) {
    return e;
  }
  // Ready already: at once, on this thread; the callback owns the error.
  args->callback(event->status.ok() ? nullptr : NewError(event->status),
                 args->user_arg);
  return nullptr;
}

// Stores a ready event where the caller asked for one (`where` may be NULL).
void HandOutEvent(PLX_Event** where) {
  if (where != nullptr) *where = ReadyEvent();
}

// ------------------------------------------------------------- shapes

// A PLX_ArrayShape the host filled, as a Shape with its layout: the layout
// text, else minor_to_major, else row-major. Only the 1.0 element types.
absl::StatusOr<Shape> ShapeFromAbi(const PLX_ArrayShape* s) {
  if (s == nullptr) return absl::InvalidArgumentError("shape is NULL");
  if (s->struct_size < PLX_ArrayShape_STRUCT_SIZE) {
    return absl::InvalidArgumentError(absl::StrCat("shape struct_size ",
                                                   s->struct_size, " < ",
                                                   PLX_ArrayShape_STRUCT_SIZE));
  }
  int32_t type;
  std::memcpy(&type, &s->element_type, sizeof(type));
  if (type <= PLX_Type_INVALID || type > PLX_Type_C128) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type ", type, " is not a PLX_Type of ABI 1.0"));
  }
  if (s->num_dims > 64 || (s->num_dims > 0 && s->dims == nullptr)) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad dims (", s->num_dims, " of them)"));
  }
  absl::StatusOr<Shape> shape =
      ShapeUtil::MakeValidatedShape(static_cast<plexa::PrimitiveType>(type),
                                    absl::MakeConstSpan(s->dims, s->num_dims));
  if (!shape.ok()) return absl::InvalidArgumentError(shape.status().message());
  if (s->layout != nullptr) {
    absl::StatusOr<Layout> layout = plexa::ParseLayout(s->layout);
    if (!layout.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "layout '", s->layout, "': ", layout.status().message()));
    }
    *shape->mutable_layout() = *layout;
  } else if (s->minor_to_major != nullptr) {
    *shape->mutable_layout() = LayoutUtil::MakeLayout(
        absl::MakeConstSpan(s->minor_to_major, s->num_dims));
  } else {
    LayoutUtil::SetToDefaultLayout(&*shape);
  }
  if (absl::Status v =
          LayoutUtil::ValidateLayoutForShape(shape->layout(), *shape);
      !v.ok()) {
    return absl::InvalidArgumentError(v.message());
  }
  return shape;
}

// ------------------------------------------------------------- buffers

PLX_Error* ClientBufferFromHost(PLX_Client_BufferFromHost_Args* args) {
  return Guard("PLX_Client_BufferFromHost", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_BufferFromHost_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    absl::StatusOr<PLX_Device*> device =
        ClientDevice(*args->client, args->device);
    if (!device.ok()) return device.status();
    absl::StatusOr<Shape> shape = ShapeFromAbi(args->shape);
    if (!shape.ok()) return shape.status();
    Literal value(*shape);
    if (args->data_size != value.data().size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("data_size is ", args->data_size, " bytes, ",
                       shape->ToString(), " needs ", value.data().size()));
    }
    if (!value.data().empty()) {
      if (args->data == nullptr) {
        return absl::InvalidArgumentError("data is NULL");
      }
      std::memcpy(value.mutable_data().data(), args->data, args->data_size);
    }
    args->buffer = new PLX_Buffer(args->client, *device, std::move(value));
    HandOutEvent(args->done_with_host_buffer);
    return absl::OkStatus();
  });
}

PLX_Error* BufferShape(PLX_Buffer_Shape_Args* args) {
  return Guard("PLX_Buffer_Shape", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_Shape_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    args->shape = args->buffer->view.view;
    args->device = args->buffer->device;
    args->on_device_size =
        args->buffer->IsDeleted()
            ? 0
            : static_cast<size_t>(ShapeUtil::ByteSizeOf(args->buffer->shape));
    return absl::OkStatus();
  });
}

PLX_Error* BufferToHost(PLX_Buffer_ToHost_Args* args) {
  return Guard("PLX_Buffer_ToHost", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_ToHost_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    Shape host = args->buffer->shape;
    if (args->host_minor_to_major != nullptr) {
      *host.mutable_layout() = LayoutUtil::MakeLayout(absl::MakeConstSpan(
          args->host_minor_to_major, static_cast<size_t>(host.rank())));
      V1_0_RETURN_IF_ERROR(
          LayoutUtil::ValidateLayoutForShape(host.layout(), host));
    } else {
      LayoutUtil::SetToDefaultLayout(&host);
    }
    const size_t needed = static_cast<size_t>(ShapeUtil::ByteSizeOf(host));
    if (args->dst == nullptr) {
      args->dst_size = needed;
      return absl::OkStatus();
    }
    if (args->dst_size < needed) {
      return absl::InvalidArgumentError(
          absl::StrCat("dst_size is ", args->dst_size, " bytes, ",
                       host.ToString(), " needs ", needed));
    }
    absl::StatusOr<Literal> value = args->buffer->Read();
    if (!value.ok()) return value.status();
    absl::StatusOr<Literal> moved = value->Relayout(host.layout());
    if (!moved.ok()) return moved.status();
    if (!moved->data().empty()) {
      std::memcpy(args->dst, moved->data().data(), moved->data().size());
    }
    HandOutEvent(args->event);
    return absl::OkStatus();
  });
}

PLX_Error* BufferCopyToDevice(PLX_Buffer_CopyToDevice_Args* args) {
  return Guard("PLX_Buffer_CopyToDevice", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_CopyToDevice_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    PLX_Client* client = args->buffer->client;
    if (args->dst_device == nullptr) {
      return absl::InvalidArgumentError("dst_device is NULL");
    }
    absl::StatusOr<PLX_Device*> device =
        ClientDevice(*client, args->dst_device);
    if (!device.ok()) return device.status();
    absl::StatusOr<Literal> value = args->buffer->Read();
    if (!value.ok()) return value.status();
    args->dst_buffer = new PLX_Buffer(client, *device, std::move(*value));
    return absl::OkStatus();
  });
}

PLX_Error* BufferDelete(PLX_Buffer_Delete_Args* args) {
  return Guard("PLX_Buffer_Delete", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_Delete_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    args->buffer->Delete();
    return absl::OkStatus();
  });
}

PLX_Error* BufferIsDeleted(PLX_Buffer_IsDeleted_Args* args) {
  return Guard("PLX_Buffer_IsDeleted", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_IsDeleted_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    args->is_deleted = args->buffer->IsDeleted();
    return absl::OkStatus();
  });
}

PLX_Error* BufferDestroy(PLX_Buffer_Destroy_Args* args) {
  return Guard("PLX_Buffer_Destroy", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Buffer_Destroy_Args);
    if (args->buffer == nullptr) return absl::OkStatus();
    V1_0_RETURN_IF_ERROR(CheckHandle(args->buffer, kBufferMagic, "buffer"));
    delete args->buffer;
    return absl::OkStatus();
  });
}

// ------------------------------------------------------------- table

const PLX_Api kApi = {
    PLX_Api_STRUCT_SIZE,
    nullptr,
    {PLX_ApiVersion_STRUCT_SIZE, nullptr, PLX_API_MAJOR, PLX_API_MINOR},
    ErrorDestroy,
    ErrorMessage,
    ErrorGetCode,
    PluginInitialize,
    PluginAttributes,
    ClientCreate,
    ClientDestroy,
    ClientDevices,
    ClientDefaultDeviceAssignment,
    DeviceDescribe,
    EventDestroy,
    EventIsReady,
    EventAwait,
    EventOnReady,
    ClientBufferFromHost,
    BufferShape,
    BufferToHost,
    BufferCopyToDevice,
    BufferDelete,
    BufferIsDeleted,
    BufferDestroy,
    ClientCompile,
    ExecutableDestroy,
    ExecutableSignature,
    ExecutableExecute,
    ExecutableSerialize,
    ClientDeserializeExecutable,
    CustomCallRegister,
};

}  // namespace
}  // namespace plexa::v1_0_runner

extern "C" PLX_EXPORT const PLX_Api* PLX_GetApi(void) {
  return &plexa::v1_0_runner::kApi;
}
