// The C entry points of every SDK-based plugin. Each one: checks its args
// (NULL, struct_size, live handles), calls the C++ object, and converts the
// status to a PLX_Error. No exception crosses the boundary.
#include "abi/sdk/plugin.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <new>
#include <type_traits>

#include "abi/sdk/entry_util.h"
#include "abi/sdk/handles.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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
static_assert(static_cast<int>(PrimitiveType::S4) == PLX_Type_S4);
static_assert(static_cast<int>(PrimitiveType::F8E5M2) == PLX_Type_F8E5M2);
static_assert(static_cast<int>(PrimitiveType::F8E4M3FN) == PLX_Type_F8E4M3FN);
static_assert(static_cast<int>(PrimitiveType::F8E4M3B11FNUZ) ==
              PLX_Type_F8E4M3B11FNUZ);
static_assert(static_cast<int>(PrimitiveType::F8E5M2FNUZ) ==
              PLX_Type_F8E5M2FNUZ);
static_assert(static_cast<int>(PrimitiveType::F8E4M3FNUZ) ==
              PLX_Type_F8E4M3FNUZ);
static_assert(static_cast<int>(PrimitiveType::F8E4M3) == PLX_Type_F8E4M3);
static_assert(static_cast<int>(PrimitiveType::F8E3M4) == PLX_Type_F8E3M4);
static_assert(static_cast<int>(PrimitiveType::F4E2M1FN) == PLX_Type_F4E2M1FN);
static_assert(static_cast<int>(PrimitiveType::F8E8M0FNU) == PLX_Type_F8E8M0FNU);

// ---------------------------------------------------------------- memories

void Memory::RecordAllocation(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  allocations_.insert(bytes);
}

void Memory::RecordFree(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = allocations_.find(bytes);
  if (it == allocations_.end()) return;  // never recorded: nothing to undo
  allocations_.erase(it);
  in_use_ -= bytes;
}

MemoryStatistics Memory::Statistics() const {
  std::lock_guard<std::mutex> lock(mu_);
  MemoryStatistics s;
  s.bytes_in_use = in_use_;
  s.peak_bytes_in_use = peak_;
  s.bytes_limit = bytes_limit_;
  s.num_allocs = static_cast<int64_t>(allocations_.size());
  s.largest_alloc_size = allocations_.empty() ? 0 : *allocations_.rbegin();
  return s;
}

Device::Device(int64_t id, std::string kind, uint64_t memory_bytes)
    : id_(id), kind_(std::move(kind)), memory_bytes_(memory_bytes) {
  AddMemory(PLX_MemoryKind_DEVICE, "device",
            memory_bytes == 0 ? -1 : static_cast<int64_t>(memory_bytes));
}

std::vector<Memory*> Device::memories() const {
  std::vector<Memory*> out;
  for (const auto& m : memories_) out.push_back(m.get());
  return out;
}

Memory* Device::AddMemory(PLX_MemoryKind kind, std::string kind_name,
                          int64_t bytes_limit) {
  memories_.push_back(
      std::make_unique<Memory>(kind, std::move(kind_name), this, bytes_limit));
  return memories_.back().get();
}

// ---------------------------------------------------------------- defaults

absl::StatusOr<std::unique_ptr<Buffer>> Client::BufferFromHostOn(
    const void* data, const Shape& shape, Device* device, Memory* memory) {
  if (memory != device->default_memory()) {
    return absl::UnimplementedError(
        absl::StrCat("this plugin places buffers only on a device's default "
                     "memory, not on its '",
                     memory->kind_name(), "' memory"));
  }
  return BufferFromHost(data, shape, device);
}

absl::StatusOr<Layout> Client::PreferredLayout(const Shape& shape,
                                               Memory*) const {
  return LayoutUtil::GetDefaultLayoutForRank(
      static_cast<int64_t>(shape.dimensions().size()));
}

absl::Status Client::CheckDeviceLayout(const Shape& shape) const {
  const Layout& l = shape.layout();
  if (!l.tiles().empty() || l.element_size_in_bits() != 0 ||
      l.memory_space() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "this plugin holds buffers in a dimension order only; ",
        shape.ToString(), " has tiles, an element size or a memory space"));
  }
  return absl::OkStatus();
}

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

absl::StatusOr<ExecutableStatistics> Executable::Statistics() const {
  ExecutableStatistics s;
  s.argument_bytes = 0;
  for (const Shape& p : parameter_shapes()) {
    s.argument_bytes += ShapeUtil::ByteSizeOf(p);
  }
  s.output_bytes = 0;
  for (const Shape& o : output_shapes())
    s.output_bytes += ShapeUtil::ByteSizeOf(o);
  return s;
}

std::string Fingerprint(absl::Span<const std::string> parts) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a offset basis
  for (const std::string& part : parts) {
    for (unsigned char c : part) {
      h ^= c;
      h *= 0x100000001b3ULL;  // FNV prime
    }
    h ^= 0xff;  // a separator no byte of a part can fake
    h *= 0x100000001b3ULL;
  }
  return absl::StrFormat("%016x", h);
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

absl::StatusOr<Client*> ClientFromHandle(PLX_Client* client,
                                         const char* function) {
  if (absl::Status s =
          CheckHandle(client, HandleKind::kClient, function, "client");
      !s.ok()) {
    return s;
  }
  return client->impl.get();
}

PLX_Error* StatusToError(absl::Status status) {
  return internal::ToError(std::move(status));
}

const PLX_Api* MakeApi(std::unique_ptr<Plugin> (*factory)()) {
  using namespace internal;  // NOLINT: the table names every entry point
  static const PLX_Api* const api = [factory] {
    g_plugin = factory().release();
    g_info = new PluginInfo(g_plugin->Info());
    auto* t = new PLX_Api{};
    t->struct_size = PLX_Api_STRUCT_SIZE;
    t->extension_start = const_cast<PLX_Extension*>(g_plugin->ApiExtensions());
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
    t->PLX_Executable_Statistics = internal::ExecutableStatistics;
    t->PLX_Buffer_ReadyEvent = BufferReadyEvent;
    t->PLX_Client_CreateUserEvent = ClientCreateUserEvent;
    t->PLX_Event_Set = EventSet;
    t->PLX_Executable_Serialize = ExecutableSerialize;
    t->PLX_Client_DeserializeExecutable = ClientDeserializeExecutable;
    t->PLX_CustomCall_Register = CustomCallRegister;
    t->PLX_Device_Memories = DeviceMemories;
    t->PLX_Memory_Describe = MemoryDescribe;
    t->PLX_Memory_Statistics = internal::MemoryStatistics;
    t->PLX_Client_PreferredLayout = ClientPreferredLayout;
    t->PLX_Buffer_Layout = BufferLayout;
    return t;
  }();
  return api;
}

}  // namespace plexa::sdk
