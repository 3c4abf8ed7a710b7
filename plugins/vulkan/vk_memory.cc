// VulkanDevice's memory (vk_device.h): allocations and their slot
// addresses, and host access to them — memcpy where mapped, else through
// a host-visible staging buffer with vkCmdCopyBuffer.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {
namespace {

// Each staged transfer goes through a host-visible buffer of this size,
// in chunks.
constexpr size_t kStagingBytes = size_t{8} << 20;

// The memory types the device offers a storage buffer (-1: none).
struct MemoryChoice {
  int local = -1;       // device-local, preferably not host-visible
  int local_host = -1;  // device-local, host-visible and coherent
  int host = -1;        // host-visible and coherent, preferably cached and
                        // not device-local (staging, kHostVisible)
  uint64_t largest_local_heap = 0;
};

MemoryChoice ChooseMemory(const VkPhysicalDeviceMemoryProperties& mp,
                          uint32_t allowed) {
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  auto flags = [&](int i) { return mp.memoryTypes[i].propertyFlags; };
  auto heap = [&](int i) {
    return mp.memoryHeaps[mp.memoryTypes[i].heapIndex].size;
  };
  MemoryChoice c;
  for (uint32_t h = 0; h < mp.memoryHeapCount; ++h) {
    if (mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) {
      c.largest_local_heap =
          std::max<uint64_t>(c.largest_local_heap, mp.memoryHeaps[h].size);
    }
  }
  // Types a buffer of ours must not take: protected memory, lazily
  // allocated memory, and AMD's device-coherent/uncached types (usable
  // only with a feature the plugin does not enable).
  const VkMemoryPropertyFlags unusable =
      VK_MEMORY_PROPERTY_PROTECTED_BIT |
      VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT |
      VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD |
      VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;
  for (int i = 0; i < static_cast<int>(mp.memoryTypeCount); ++i) {
    if (!(allowed & (1u << i))) continue;
    const VkMemoryPropertyFlags f = flags(i);
    if (f & unusable) continue;
    const bool local = f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    const bool visible = (f & host) == host;
    if (local &&
        (c.local < 0 || ((flags(c.local) & host) == host && !visible))) {
      c.local = i;
    }
    if (local && visible &&
        (c.local_host < 0 || heap(i) > heap(c.local_host))) {
      c.local_host = i;
    }
    if (visible) {
      auto rank = [&](int t) {
        return (flags(t) & VK_MEMORY_PROPERTY_HOST_CACHED_BIT ? 0 : 2) +
               (flags(t) & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT ? 1 : 0);
      };
      if (c.host < 0 || rank(i) < rank(c.host)) c.host = i;
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<MemoryPlan> PlanMemory(
    const VkPhysicalDeviceMemoryProperties& mp, uint32_t allowed,
    StagingMode mode) {
  const MemoryChoice c = ChooseMemory(mp, allowed);
  auto heap = [&](int type) {
    return mp.memoryHeaps[mp.memoryTypes[type].heapIndex].size;
  };
  auto mib = [](uint64_t b) { return absl::StrCat(b >> 20, " MiB"); };
  if (c.host < 0) {
    return absl::FailedPreconditionError(
        "no host-visible coherent memory type for storage buffers");
  }
  MemoryPlan plan;
  switch (mode) {
    case StagingMode::kOn:
      plan.staging = true;
      plan.mode = "staging (option staging=1)";
      break;
    case StagingMode::kOff:
      plan.mode = "direct (option staging=0)";
      break;
    case StagingMode::kAuto:
      if (c.local < 0) {
        plan.mode = "direct (the device has no device-local memory)";
      } else if (c.local_host < 0) {
        plan.staging = true;
        plan.mode = "staging (no device-local memory type is host-visible)";
      } else if (heap(c.local_host) * 4 < c.largest_local_heap) {
        plan.staging = true;
        plan.mode = absl::StrCat(
            "staging (the host-visible device-local heap is ",
            mib(heap(c.local_host)), " of ", mib(c.largest_local_heap), ")");
      } else {
        plan.mode = "direct (device-local memory is host-visible)";
      }
      break;
  }
  // Direct: the best host-visible type, device-local if possible; staging:
  // a device-local type (the host never maps it).
  const int direct = c.local_host >= 0 ? c.local_host : c.host;
  plan.buffer_type = plan.staging && c.local >= 0 ? c.local : direct;
  plan.host_type = c.host;
  return plan;
}

DeviceMemory::~DeviceMemory() {
  if (device_ == nullptr) return;
  device_->Forget(this);
  const VkApi& api = device_->api_;
  if (memory_ != VK_NULL_HANDLE && mapped_) {
    api.vkUnmapMemory(device_->device_, memory_);
  }
  if (reserved_ > 0) munmap(data_, reserved_);
  api.vkDestroyBuffer(device_->device_, buffer_, nullptr);
  api.vkFreeMemory(device_->device_, memory_, nullptr);
}

uint64_t VulkanDevice::allocated_bytes() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return allocated_;
}

absl::StatusOr<std::unique_ptr<DeviceMemory>> VulkanDevice::Allocate(
    size_t bytes, MemoryPlace place) {
  // Shaders may read a whole 32-bit word at the end of a buffer of
  // narrower elements; every allocation is padded to 64 bytes.
  const size_t size = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  if (limits_.max_allocation > 0 && size > limits_.max_allocation) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "Vulkan allocation of ", bytes, " bytes exceeds ", name_,
        "'s maxMemoryAllocationSize (", limits_.max_allocation, " bytes)"));
  }
  const bool host_visible = place == MemoryPlace::kHostVisible;
  std::unique_ptr<DeviceMemory> m(new DeviceMemory());
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = size;
  bci.usage = kBufferUsage;
  if (VkResult r = api_.vkCreateBuffer(device_, &bci, nullptr, &m->buffer_);
      r != VK_SUCCESS) {
    return VkError("vkCreateBuffer", r);
  }
  m->device_ = this;  // from here on the destructor cleans up
  VkMemoryRequirements req;
  api_.vkGetBufferMemoryRequirements(device_, m->buffer_, &req);
  VkMemoryAllocateFlagsInfo flags{};
  flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.pNext = &flags;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = host_visible ? host_type_ : memory_type_;
  if (VkResult r = api_.vkAllocateMemory(device_, &mai, nullptr, &m->memory_);
      r != VK_SUCCESS) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot allocate ", bytes, " bytes of ",
        host_visible ? "host-visible" : "device", " memory on ", name_, ": ",
        VkResultName(r), " (", allocated_bytes(), " bytes in use)"));
  }
  if (VkResult r = api_.vkBindBufferMemory(device_, m->buffer_, m->memory_, 0);
      r != VK_SUCCESS) {
    return VkError("vkBindBufferMemory", r);
  }
  if (host_visible || !staging_) {
    void* mapped = nullptr;
    if (VkResult r =
            api_.vkMapMemory(device_, m->memory_, 0, VK_WHOLE_SIZE, 0, &mapped);
        r != VK_SUCCESS) {
      return VkError("vkMapMemory", r);
    }
    m->data_ = static_cast<uint8_t*>(mapped);
    m->mapped_ = true;
  } else {
    // Address space only: the allocation's slot address, which the host
    // must reach through Read/Write (a stray access faults).
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t reserved = (size + page - 1) / page * page;
    void* range = mmap(nullptr, reserved, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "cannot reserve ", reserved, " bytes of address space for a ", bytes,
          "-byte Vulkan buffer"));
    }
    m->data_ = static_cast<uint8_t*>(range);
    m->reserved_ = reserved;
  }
  m->size_ = bytes;
  VkBufferDeviceAddressInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
  ai.buffer = m->buffer_;
  m->address_ = api_.vkGetBufferDeviceAddress(device_, &ai);
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    registry_[reinterpret_cast<uintptr_t>(m->data_)] = m.get();
    allocated_ += size;
  }
  if (absl::Status s = TakeValidationErrors(); !s.ok()) return s;
  return m;
}

void VulkanDevice::Forget(const DeviceMemory* m) {
  if (m->data_ == nullptr) return;
  std::lock_guard<std::mutex> lock(registry_mu_);
  registry_.erase(reinterpret_cast<uintptr_t>(m->data_));
  allocated_ -= std::max<size_t>(64, (m->size_ + 63) / 64 * 64);
}

uint64_t VulkanDevice::staged_bytes() const {
  std::lock_guard<std::mutex> lock(registry_mu_);
  return staged_;
}

absl::StatusOr<uint64_t> VulkanDevice::AddressOf(const void* p) const {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = registry_.upper_bound(a);
  if (it != registry_.begin()) {
    --it;
    const DeviceMemory* m = it->second;
    if (a <= it->first + std::max<size_t>(m->size_, 64)) {
      return m->address_ + (a - it->first);
    }
  }
  return absl::InternalError(
      "a kernel operand is not in Vulkan device memory (a plugin bug)");
}

absl::StatusOr<VulkanDevice::Located> VulkanDevice::Locate(const void* p,
                                                           size_t bytes) const {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  std::lock_guard<std::mutex> lock(registry_mu_);
  auto it = registry_.upper_bound(a);
  if (it != registry_.begin()) {
    --it;
    const DeviceMemory* m = it->second;
    const size_t padded = std::max<size_t>(64, (m->size_ + 63) / 64 * 64);
    if (a - it->first + bytes <= padded) {
      Located at;
      at.buffer = m->buffer_;
      at.mapped = m->mapped_ ? m->data_ : nullptr;
      at.offset = a - it->first;
      return at;
    }
  }
  return absl::InternalError(
      absl::StrCat(bytes,
                   " bytes of host access are not inside one Vulkan allocation "
                   "(a plugin bug)"));
}

absl::Status VulkanDevice::Stage(const Located& at, uint8_t* host, size_t bytes,
                                 bool to_device) {
  absl::StatusOr<Stream*> stream = AcquireStream();
  if (!stream.ok()) return stream.status();
  Stream* s = *stream;
  absl::Status status;
  if (s->staging == nullptr) {
    absl::StatusOr<std::unique_ptr<DeviceMemory>> m =
        Allocate(kStagingBytes, MemoryPlace::kHostVisible);
    if (m.ok()) {
      s->staging = *std::move(m);
    } else {
      status = m.status();
    }
  }
  for (size_t done = 0; status.ok() && done < bytes;) {
    const size_t n = std::min(kStagingBytes, bytes - done);
    if (to_device) std::memcpy(s->staging->data(), host + done, n);
    VkBufferCopy region{};
    region.size = n;
    if (to_device) {
      region.dstOffset = at.offset + done;
    } else {
      region.srcOffset = at.offset + done;
    }
    status = RunOn(s, [&](VkCommandBuffer cb) {
      if (to_device) {
        api_.vkCmdCopyBuffer(cb, s->staging->buffer_, at.buffer, 1, &region);
      } else {
        api_.vkCmdCopyBuffer(cb, at.buffer, s->staging->buffer_, 1, &region);
      }
    });
    if (status.ok() && !to_device) {
      std::memcpy(host + done, s->staging->data(), n);
    }
    done += n;
  }
  ReleaseStream(s);
  if (status.ok()) {
    std::lock_guard<std::mutex> lock(registry_mu_);
    staged_ += bytes;
  }
  return status;
}

absl::Status VulkanDevice::Write(void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  absl::StatusOr<Located> at = Locate(dst, bytes);
  if (!at.ok()) return at.status();
  if (at->mapped != nullptr) {
    std::memcpy(at->mapped + at->offset, src, bytes);
    return absl::OkStatus();
  }
  return Stage(*at, static_cast<uint8_t*>(const_cast<void*>(src)), bytes,
               /*to_device=*/true);
}

absl::Status VulkanDevice::Read(const void* src, void* dst, size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  absl::StatusOr<Located> at = Locate(src, bytes);
  if (!at.ok()) return at.status();
  if (at->mapped != nullptr) {
    std::memcpy(dst, at->mapped + at->offset, bytes);
    return absl::OkStatus();
  }
  return Stage(*at, static_cast<uint8_t*>(dst), bytes, /*to_device=*/false);
}

absl::StatusOr<std::shared_ptr<DeviceMemory>> VulkanDevice::TakeStaging(
    size_t bytes) {
  size_t size = size_t{64} << 10;
  while (size < bytes) size *= 2;
  {
    std::lock_guard<std::mutex> lock(staging_pool_mu_);
    auto it = staging_pool_.find(size);
    if (it != staging_pool_.end()) {
      std::shared_ptr<DeviceMemory> m = std::move(it->second);
      staging_pool_.erase(it);
      staging_pool_bytes_ -= size;
      return m;
    }
  }
  absl::StatusOr<std::unique_ptr<DeviceMemory>> m =
      Allocate(size, MemoryPlace::kHostVisible);
  if (!m.ok()) return m.status();
  return std::shared_ptr<DeviceMemory>(*std::move(m));
}

void VulkanDevice::GiveStaging(std::shared_ptr<DeviceMemory> m) {
  std::lock_guard<std::mutex> lock(staging_pool_mu_);
  if (staging_pool_bytes_ + m->size() > kStagingPoolBytes) return;
  staging_pool_bytes_ += m->size();
  staging_pool_.emplace(m->size(), std::move(m));
}

void VulkanDevice::WriteAsync(std::shared_ptr<DeviceMemory> dst,
                              const void* src, Done done) {
  StageAsync(std::move(dst), static_cast<uint8_t*>(const_cast<void*>(src)),
             /*to_device=*/true, std::move(done));
}

void VulkanDevice::ReadAsync(std::shared_ptr<DeviceMemory> src, void* dst,
                             Done done) {
  StageAsync(std::move(src), static_cast<uint8_t*>(dst),
             /*to_device=*/false, std::move(done));
}

void VulkanDevice::StageAsync(std::shared_ptr<DeviceMemory> memory,
                              uint8_t* host, bool to_device, Done done) {
  const size_t bytes = memory->size();
  if (bytes == 0) return done(absl::OkStatus());
  if (memory->mapped()) {
    if (to_device) {
      std::memcpy(memory->data(), host, bytes);
    } else {
      std::memcpy(host, memory->data(), bytes);
    }
    return done(absl::OkStatus());
  }
  absl::StatusOr<std::shared_ptr<DeviceMemory>> staging = TakeStaging(bytes);
  if (!staging.ok()) {
    // No staging buffer of the whole size: synchronously, in chunks.
    return done(to_device ? Write(memory->data(), host, bytes)
                          : Read(memory->data(), host, bytes));
  }
  std::shared_ptr<DeviceMemory> stage = *std::move(staging);
  if (to_device) std::memcpy(stage->data(), host, bytes);
  absl::StatusOr<Stream*> stream = AcquireStream();
  if (!stream.ok()) return done(stream.status());
  VkBufferCopy region{};
  region.size = bytes;
  absl::StatusOr<uint64_t> value = Enqueue(*stream, [&](VkCommandBuffer cb) {
    if (to_device) {
      api_.vkCmdCopyBuffer(cb, stage->buffer_, memory->buffer_, 1, &region);
    } else {
      api_.vkCmdCopyBuffer(cb, memory->buffer_, stage->buffer_, 1, &region);
    }
  });
  if (!value.ok()) {
    ReleaseStream(*stream);
    return done(value.status());
  }
  {
    std::lock_guard<std::mutex> lock(registry_mu_);
    staged_ += bytes;
  }
  // The device memory, the staging buffer and the command buffer stay
  // alive and unused by anything else until the copy is complete.
  WhenReached(*value, [this, stream = *stream, memory = std::move(memory),
                       stage = std::move(stage), host, bytes, to_device,
                       done = std::move(done)](absl::Status s) mutable {
    if (s.ok() && !to_device) std::memcpy(host, stage->data(), bytes);
    GiveStaging(std::move(stage));
    memory.reset();
    ReleaseStream(stream);
    done(std::move(s));
  });
}

absl::Status VulkanDevice::Copy(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return absl::OkStatus();
  absl::StatusOr<Located> to = Locate(dst, bytes);
  if (!to.ok()) return to.status();
  absl::StatusOr<Located> from = Locate(src, bytes);
  if (!from.ok()) return from.status();
  if (to->mapped != nullptr && from->mapped != nullptr) {
    std::memcpy(to->mapped + to->offset, from->mapped + from->offset, bytes);
    return absl::OkStatus();
  }
  VkBufferCopy region{};
  region.srcOffset = from->offset;
  region.dstOffset = to->offset;
  region.size = bytes;
  return Submit([&](VkCommandBuffer cb) {
    api_.vkCmdCopyBuffer(cb, from->buffer, to->buffer, 1, &region);
  });
}

}  // namespace plexa::vulkan
