// The ABI 1.2 entry points for memories and structured layouts:
// PLX_Device_Memories, PLX_Memory_Describe, PLX_Memory_Statistics,
// PLX_Client_PreferredLayout and PLX_Buffer_Layout.
#include <cstring>
#include <memory>
#include <mutex>

#include "abi/sdk/entry_util.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/shape/layout_util.h"

namespace plexa::sdk::internal {

void AddMemoryHandles(PLX_Device* device, int64_t* next_id) {
  for (Memory* m : device->impl->memories()) {
    auto mh = std::make_unique<PLX_Memory>();
    mh->impl = m;
    mh->device = device;
    mh->id = (*next_id)++;
    RegisterHandle(mh.get(), HandleKind::kMemory);
    device->memories.push_back(mh.get());
    device->memory_handles.push_back(std::move(mh));
  }
}

namespace {

// A PLX_Layout out-struct the caller gave: not NULL, and at least the
// size of its first version.
absl::Status CheckLayoutOut(const PLX_Layout* layout, const char* fn) {
  if (layout == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": layout is NULL"));
  }
  if (layout->struct_size < PLX_Layout_STRUCT_SIZE ||
      layout->struct_size > kMaxStructSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": layout->struct_size is ", layout->struct_size,
                     "; set it to PLX_Layout_STRUCT_SIZE before the call"));
  }
  return absl::OkStatus();
}

}  // namespace

PLX_Error* DeviceMemories(PLX_Device_Memories_Args* args) {
  constexpr const char* fn = "PLX_Device_Memories";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Device_Memories_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->device, HandleKind::kDevice, fn, "device"));
    args->memories = args->device->memories.data();
    args->num_memories = args->device->memories.size();
    return absl::OkStatus();
  });
}

PLX_Error* MemoryDescribe(PLX_Memory_Describe_Args* args) {
  constexpr const char* fn = "PLX_Memory_Describe";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Memory_Describe_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->memory, HandleKind::kMemory, fn, "memory"));
    const PLX_Memory* m = args->memory;
    args->id = m->id;
    args->kind = m->impl->kind();
    args->kind_name = m->impl->kind_name().c_str();
    args->device = m->device;
    return absl::OkStatus();
  });
}

PLX_Error* MemoryStatistics(PLX_Memory_Statistics_Args* args) {
  constexpr const char* fn = "PLX_Memory_Statistics";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Memory_Statistics_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->memory, HandleKind::kMemory, fn, "memory"));
    const sdk::MemoryStatistics s = args->memory->impl->Statistics();
    args->bytes_in_use = s.bytes_in_use;
    args->peak_bytes_in_use = s.peak_bytes_in_use;
    args->bytes_limit = s.bytes_limit;
    args->num_allocs = s.num_allocs;
    args->largest_alloc_size = s.largest_alloc_size;
    return absl::OkStatus();
  });
}

PLX_Error* ClientPreferredLayout(PLX_Client_PreferredLayout_Args* args) {
  constexpr const char* fn = "PLX_Client_PreferredLayout";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_PreferredLayout_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    PLEXA_RETURN_IF_ERROR(CheckLayoutOut(args->layout, fn));
    PLX_Client* c = args->client;
    Memory* memory = nullptr;
    if (args->memory != nullptr) {
      PLEXA_RETURN_IF_ERROR(
          CheckHandle(args->memory, HandleKind::kMemory, fn, "memory"));
      if (args->memory->device->client != c) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": memory belongs to another client"));
      }
      memory = args->memory->impl;
    } else {
      PLEXA_ASSIGN_OR_RETURN(Device * d, ResolveDevice(c, nullptr, fn));
      memory = d->default_memory();
    }
    // The dimensions and type, checked as any shape crossing the ABI.
    PLX_ArrayShape query{};
    query.struct_size = PLX_ArrayShape_STRUCT_SIZE;
    // Copied as bytes: a caller's out-of-range value must reach the check,
    // and loading it as the enum type would be undefined behaviour.
    std::memcpy(&query.element_type, &args->element_type,
                sizeof(query.element_type));
    query.dims = args->dims;
    query.num_dims = args->num_dims;
    PLEXA_ASSIGN_OR_RETURN(Shape shape, ReadArrayShape(&query, fn));
    PLEXA_ASSIGN_OR_RETURN(Layout layout,
                           c->impl->PreferredLayout(shape, memory));
    Shape laid_out = shape;
    *laid_out.mutable_layout() = layout;
    if (absl::Status s = LayoutUtil::ValidateLayoutForShape(layout, laid_out);
        !s.ok()) {
      return absl::InternalError(absl::StrCat(
          fn, ": the plugin preferred an invalid layout: ", s.message()));
    }
    // Answers live as long as the client: keep one storage per distinct
    // layout.
    std::lock_guard<std::mutex> lock(c->preferred_layouts_mu);
    abi::LayoutStorage probe;
    probe.Set(layout);
    for (const abi::LayoutStorage& kept : c->preferred_layouts) {
      if (kept.minor_to_major == probe.minor_to_major &&
          kept.tile_ranks == probe.tile_ranks &&
          kept.tile_dims == probe.tile_dims &&
          kept.element_size_in_bits == probe.element_size_in_bits &&
          kept.memory_space == probe.memory_space) {
        kept.Fill(args->layout);
        return absl::OkStatus();
      }
    }
    c->preferred_layouts.emplace_back().Set(layout);
    c->preferred_layouts.back().Fill(args->layout);
    return absl::OkStatus();
  });
}

PLX_Error* BufferLayout(PLX_Buffer_Layout_Args* args) {
  constexpr const char* fn = "PLX_Buffer_Layout";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Buffer_Layout_Args, fn);
    PLEXA_ASSIGN_OR_RETURN(BufferSlot * slot,
                           UsableBuffer(args->buffer, fn, "buffer"));
    PLEXA_RETURN_IF_ERROR(CheckLayoutOut(args->layout, fn));
    // Set once when the handle was made (WrapBuffer): the shape is fixed.
    args->buffer->layout.Fill(args->layout);
    args->memory = nullptr;
    Memory* memory = slot->memory();
    for (PLX_Device* d : args->buffer->client->devices) {
      for (PLX_Memory* m : d->memories) {
        if (m->impl == memory) args->memory = m;
      }
    }
    return absl::OkStatus();
  });
}

}  // namespace plexa::sdk::internal
