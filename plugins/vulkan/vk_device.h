// One Vulkan device for the plugin: instance and physical-device selection,
// the logical device with the features the code generator uses, memory
// (buffers with device addresses), compute pipelines and one-shot command
// submission (vk_device.cc; memory in vk_memory.cc). Included only by
// plugins/vulkan.
//
// Memory model. Shaders address every buffer by its device address
// (buffer_device_address: no descriptor sets, no maxStorageBufferRange
// limit); host code names device memory by a host pointer, its "slot
// address" (DeviceMemory::data()), which AddressOf() turns into a device
// address and Read/Write/Copy reach. Two modes:
//   - direct: buffers live in a host-visible coherent memory type
//     (device-local too when there is one: lavapipe, integrated GPUs,
//     discrete GPUs with resizable BAR) and stay mapped; the slot address
//     is the mapped pointer, so host code reads and writes in place and
//     Read/Write/Copy are memcpy;
//   - staging: buffers live in device-local memory the host does not map
//     (discrete GPUs without resizable BAR, or option staging=1); the slot
//     address is a reserved range of host address space with no access
//     rights (touching it faults), and Read/Write go through a
//     host-visible staging buffer with vkCmdCopyBuffer, Copy is one
//     vkCmdCopyBuffer on the device.
// Allocations in MemoryPlace::kHostVisible are always mapped.
//
// Submission. Every command buffer submitted to the device's one queue
// signals its timeline semaphore with the next value, in submission order.
// A synchronous submission (Submit, Read, Write, Copy) waits for its value
// on the calling thread. An asynchronous one (WriteAsync, ReadAsync: the
// plugin's uploads and downloads in staging mode) returns at once; the
// device's completion thread waits for the values in order and runs each
// one's completion (what sets the ABI's events). Each submission begins
// with a barrier whose first scope covers every earlier submission, so
// work runs in submission order whatever thread submitted it.
#ifndef PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_
#define PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "plugins/vulkan/vk_api.h"

namespace plexa::vulkan {

// What the shaders may use; the code generator checks it per instruction.
struct DeviceFeatures {
  bool float64 = false;    // shaderFloat64
  bool int64 = false;      // shaderInt64
  bool int16 = false;      // shaderInt16
  bool int8 = false;       // shaderInt8
  bool storage8 = false;   // storageBuffer8BitAccess
  bool storage16 = false;  // storageBuffer16BitAccess
  // Compute shaders have subgroups of a multiple of 8 invocations with
  // subgroupBroadcast (the ballot operations).
  bool subgroups = false;
  // The most loop iterations one invocation may run, 0 for no limit.
  // llvmpipe (lavapipe) stops every loop of an invocation after 65535
  // iterations in total (gallivm's loop limiter), silently: a kernel that
  // needs more would compute a wrong value, so the emitter leaves such an
  // instruction to the host.
  int64_t max_loop_iterations = 0;
};

struct DeviceLimits {
  uint64_t max_storage_buffer_range = 0;
  uint32_t max_workgroup_count[3] = {0, 0, 0};
  uint32_t max_workgroup_size_x = 0;
  uint32_t max_shared_memory = 0;
  uint32_t subgroup_size = 0;
  uint32_t max_push_constants = 0;
  uint64_t max_allocation = 0;
};

class VulkanDevice;

// Where an allocation lives.
enum class MemoryPlace {
  kDevice,       // the device's buffers (device-local when it has such)
  kHostVisible,  // host-visible coherent memory, mapped, read by shaders
                 // through its device address (PCIe on a discrete GPU)
};

// How the device's buffers are reached (see the file comment).
enum class StagingMode {
  kAuto,  // staging when device-local memory is not host-visible, or its
          // host-visible part is small (VulkanDevice::Create)
  kOn,    // always staging (option staging=1: tests the path on lavapipe)
  kOff,   // never: buffers in host-visible memory (option staging=0)
};

// How a device's memory is used, from its memory types (vk_memory.cc).
struct MemoryPlan {
  int buffer_type = -1;  // the memory type of the device's buffers
  int host_type = -1;    // of kHostVisible allocations and staging buffers:
                         // host-visible and coherent, cached and not
                         // device-local where there is such a type
  bool staging = false;
  std::string mode;  // "direct (why)" or "staging (why)"
};
// `allowed`: the memory types a storage buffer may use (its requirements'
// memoryTypeBits). kAuto stages when no allowed type is both device-local
// and host-visible-coherent, or when the heap of the largest such type is
// under a quarter of the largest device-local heap; it is direct when the
// device has no device-local memory at all. FAILED_PRECONDITION when no
// allowed type is host-visible and coherent.
absl::StatusOr<MemoryPlan> PlanMemory(
    const VkPhysicalDeviceMemoryProperties& mp, uint32_t allowed,
    StagingMode mode);

// One allocation. Freed (and forgotten by AddressOf) on destruction, which
// must come before the device's (holders keep the device alive).
class DeviceMemory {
 public:
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  // The slot address: the mapped memory when mapped(), else a reserved
  // host address range that must not be touched (VulkanDevice::Read,
  // Write and Copy reach it).
  uint8_t* data() const { return data_; }
  bool mapped() const { return mapped_; }
  size_t size() const { return size_; }
  uint64_t address() const { return address_; }

 private:
  friend class VulkanDevice;
  DeviceMemory() = default;
  VulkanDevice* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint8_t* data_ = nullptr;
  bool mapped_ = false;
  size_t reserved_ = 0;  // bytes of reserved address space (not mapped)
  size_t size_ = 0;      // what was asked for
  uint64_t address_ = 0;
};

// A compute pipeline whose only interface is push constants.
class ComputePipeline {
 public:
  ~ComputePipeline();
  VkPipeline pipeline() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }

 private:
  friend class VulkanDevice;
  ComputePipeline() = default;
  VulkanDevice* device_ = nullptr;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

class VulkanDevice {
 public:
  // `selector`: "" picks the best device (discrete GPU, then integrated,
  // then virtual, then CPU); a number picks that index; anything else the
  // first device whose name contains it (case-insensitive). No loader, no
  // device or no match: FAILED_PRECONDITION "no Vulkan device: ...".
  // `validation`: run with VK_LAYER_KHRONOS_validation (Debian's
  // vulkan-validationlayers); any error it reports fails the call that
  // caused it (FAILED_PRECONDITION when the layer is not installed).
  // `staging`: kAuto uses the staging path when no memory type is both
  // device-local and host-visible, or when the heap of the best such type
  // is under a quarter of the largest device-local heap (a 256 MiB BAR
  // window beside gigabytes of VRAM); memory_mode() says which and why.
  static absl::StatusOr<std::unique_ptr<VulkanDevice>> Create(
      const std::string& selector, bool validation = false,
      StagingMode staging = StagingMode::kAuto);
  ~VulkanDevice();

  const VkApi& api() const { return api_; }
  VkDevice device() const { return device_; }
  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  const std::string& api_version() const { return api_version_; }
  const DeviceFeatures& features() const { return features_; }
  const DeviceLimits& limits() const { return limits_; }
  // Whether the device's buffers are device-local memory.
  bool device_local() const { return device_local_; }
  // Whether the device's buffers are reached through staging copies.
  bool staging() const { return staging_; }
  // "direct" or "staging", and why (for the compile report).
  const std::string& memory_mode() const { return memory_mode_; }
  // The size of the heap the device's buffers come from.
  uint64_t memory_bytes() const { return memory_bytes_; }
  // The size of the heap of MemoryPlace::kHostVisible allocations.
  uint64_t host_visible_bytes() const { return host_visible_bytes_; }
  uint64_t allocated_bytes() const;
  // Bytes moved through staging buffers (Read and Write of unmapped
  // memory) since the device was created.
  uint64_t staged_bytes() const;

  // An allocation of at least `bytes` (0 allowed). RESOURCE_EXHAUSTED
  // (naming the size and the device's limit) when it cannot be had.
  absl::StatusOr<std::unique_ptr<DeviceMemory>> Allocate(
      size_t bytes, MemoryPlace place = MemoryPlace::kDevice);
  // The device address of `p`, a slot address in a live allocation (or one
  // past its end); INTERNAL when it is not in one.
  absl::StatusOr<uint64_t> AddressOf(const void* p) const;

  // Host access to device memory by slot address: `bytes` bytes at `dst`
  // (`src`) must lie in one live allocation (INTERNAL otherwise, a plugin
  // bug). Mapped memory: memcpy. Unmapped: through this thread's staging
  // buffer, in chunks, with vkCmdCopyBuffer, waiting for each. Thread-safe;
  // every earlier submission's writes are visible to them.
  absl::Status Write(void* dst, const void* src, size_t bytes);
  absl::Status Read(const void* src, void* dst, size_t bytes);
  // Device memory to device memory (not overlapping): memcpy when both are
  // mapped, else one vkCmdCopyBuffer.
  absl::Status Copy(void* dst, const void* src, size_t bytes);

  // A completion: called once with the transfer's status.
  using Done = std::function<void(absl::Status)>;
  // Asynchronous host transfers of a whole allocation. WriteAsync copies
  // `src` into a staging buffer of its own before it returns (the host may
  // reuse `src` at once) and has the device copy that into `dst`;
  // ReadAsync has the device copy `src` into a staging buffer, and `dst`
  // is filled from it on the completion thread (it must stay valid until
  // `done`). `done` runs exactly once: on the calling thread before the
  // call returns when there is no device work (mapped memory: a memcpy)
  // or when the transfer fails to start, otherwise on the completion
  // thread once the copy is complete. The allocation stays alive until
  // then (it is shared). When a staging buffer of the whole size cannot be
  // had (over the device's largest allocation, or memory exhausted) the
  // transfer is done synchronously in chunks, as Write and Read do.
  void WriteAsync(std::shared_ptr<DeviceMemory> dst, const void* src,
                  Done done);
  void ReadAsync(std::shared_ptr<DeviceMemory> src, void* dst, Done done);
  // Blocks until the completion thread has nothing pending or running
  // (at once on that thread itself); returns whether it had anything.
  bool DrainCompletions();
  // Submissions made so far and completed so far (the timeline's values;
  // for tests and statistics).
  uint64_t submitted() const;
  uint64_t completed() const;

  absl::StatusOr<std::unique_ptr<ComputePipeline>> CreatePipeline(
      absl::Span<const uint32_t> spirv, uint32_t push_constant_bytes);

  // The device's VkPipelineCache, which every pipeline goes through:
  // LoadPipelineCache starts it from `dir`'s file for this device
  // (shader_cache.h; a missing file or one from another device or driver
  // starts it empty) and SavePipelineCache writes it back there. Without a
  // directory the cache lives as long as the device.
  absl::Status LoadPipelineCache(const std::string& dir);
  absl::Status SavePipelineCache();

  // Records commands with `record` into a fresh command buffer, submits it
  // and waits; the host then sees every shader write. Thread-safe.
  absl::Status Submit(const std::function<void(VkCommandBuffer)>& record);

 private:
  friend class DeviceMemory;
  friend class ComputePipeline;
  struct Stream {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    // Host-visible, mapped; made on the first synchronous staged transfer.
    std::unique_ptr<DeviceMemory> staging;
  };
  // The completion thread's queue: asynchronous submissions' timeline
  // values and what runs once each is reached, in registration order.
  // Shared with the thread, which outlives the device when a completion
  // releases the last reference to it (see ~VulkanDevice).
  struct Completions {
    std::mutex mu;
    std::condition_variable cv;
    std::condition_variable idle_cv;                // pending empty, !running
    std::deque<std::pair<uint64_t, Done>> pending;  // guarded by mu
    bool running = false;                           // guarded by mu
    bool stopping = false;                          // guarded by mu
    std::thread thread;                             // started on first use
  };
  // Where a slot address lies.
  struct Located {
    VkBuffer buffer = VK_NULL_HANDLE;
    uint8_t* mapped = nullptr;  // the mapped base, or null
    size_t offset = 0;
  };
  // Every buffer: a storage buffer with a device address, and a copy
  // source and destination (the staging path, Copy).
  static constexpr VkBufferUsageFlags kBufferUsage =
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
      VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

  VulkanDevice() = default;
  // The validation layer's errors since the last call, as one status.
  absl::Status TakeValidationErrors();
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnValidationMessage(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity,
      VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  absl::StatusOr<Stream*> AcquireStream();
  void ReleaseStream(Stream* s);
  // Records with `record` into `s`'s command buffer (between barriers that
  // order it after every earlier submission and make its writes visible
  // to the host) and submits it; returns the timeline value it signals.
  absl::StatusOr<uint64_t> Enqueue(
      Stream* s, const std::function<void(VkCommandBuffer)>& record);
  // Blocks until the timeline reaches `value`.
  absl::Status WaitFor(uint64_t value);
  // Enqueue, then WaitFor.
  absl::Status RunOn(Stream* s,
                     const std::function<void(VkCommandBuffer)>& record);
  // Runs `done` on the completion thread once the timeline reaches
  // `value`. Completions run in the order they were registered: two
  // threads may register theirs out of value order, and then the later
  // value's wait covers the earlier one.
  void WhenReached(uint64_t value, Done done);
  static void CompletionLoop(std::shared_ptr<Completions> c,
                             VulkanDevice* device);
  // Host-visible staging buffers for asynchronous transfers, reused: sizes
  // are powers of two from 64 KiB, and at most kStagingPoolBytes of them
  // are kept (a fresh allocation costs a page fault per 4 KiB on first
  // touch, which dominated a transfer's time on lavapipe).
  static constexpr size_t kStagingPoolBytes = size_t{128} << 20;
  absl::StatusOr<std::shared_ptr<DeviceMemory>> TakeStaging(size_t bytes);
  void GiveStaging(std::shared_ptr<DeviceMemory> m);
  // The asynchronous transfer behind WriteAsync and ReadAsync.
  void StageAsync(std::shared_ptr<DeviceMemory> memory, uint8_t* host,
                  bool to_device, Done done);
  absl::StatusOr<Located> Locate(const void* p, size_t bytes) const;
  // `bytes` bytes between host memory and unmapped device memory `at`.
  absl::Status Stage(const Located& at, uint8_t* host, size_t bytes,
                     bool to_device);
  void Forget(const DeviceMemory* m);

  VkApi api_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  std::mutex validation_mu_;
  std::vector<std::string> validation_errors_;  // guarded
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  std::string pipeline_cache_dir_;
  // VkPipelineCacheHeaderVersionOne's identity of this device and driver.
  uint32_t vendor_id_ = 0, device_id_ = 0;
  uint8_t cache_uuid_[VK_UUID_SIZE] = {};
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t memory_type_ = 0;  // the device's buffers
  uint32_t host_type_ = 0;    // kHostVisible allocations, staging buffers
  bool device_local_ = false;
  bool staging_ = false;
  std::string memory_mode_;
  uint64_t memory_bytes_ = 0;
  uint64_t host_visible_bytes_ = 0;
  std::string name_, type_, api_version_;
  DeviceFeatures features_;
  DeviceLimits limits_;

  mutable std::mutex queue_mu_;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint64_t next_value_ = 0;  // guarded by queue_mu_: the last one signalled
  std::shared_ptr<Completions> completions_ = std::make_shared<Completions>();
  std::mutex staging_pool_mu_;
  std::multimap<size_t, std::shared_ptr<DeviceMemory>>
      staging_pool_;               // guarded
  size_t staging_pool_bytes_ = 0;  // guarded
  std::mutex streams_mu_;
  std::vector<std::unique_ptr<Stream>> streams_;  // all, guarded
  std::vector<Stream*> free_streams_;             // guarded
  mutable std::mutex registry_mu_;
  std::map<uintptr_t, const DeviceMemory*> registry_;  // by slot address
  uint64_t allocated_ = 0;  // guarded by registry_mu_
  uint64_t staged_ = 0;     // guarded by registry_mu_
};

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_
