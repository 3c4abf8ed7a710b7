// One Vulkan device for the plugin: instance and physical-device selection,
// the logical device with the features the code generator uses, memory
// (buffers with device addresses, persistently mapped), compute pipelines
// and one-shot command submission. Included only by plugins/vulkan.
//
// Memory model: every allocation is a VkBuffer in a memory type that is
// host-visible and coherent, device-local when the device has such a type
// (lavapipe, integrated GPUs, discrete GPUs with resizable BAR); it stays
// mapped, so host code (uploads, downloads, the evaluator fallback) reads
// and writes it in place and shaders address it by its device address
// (buffer_device_address: no descriptor sets, no maxStorageBufferRange
// limit). AddressOf() turns a mapped pointer back into a device address.
#ifndef PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_
#define PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
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

// One mapped allocation. Freed (and forgotten by AddressOf) on destruction.
class DeviceMemory {
 public:
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  uint64_t address() const { return address_; }

 private:
  friend class VulkanDevice;
  DeviceMemory() = default;
  VulkanDevice* device_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;  // what was asked for
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
  static absl::StatusOr<std::unique_ptr<VulkanDevice>> Create(
      const std::string& selector, bool validation = false);
  ~VulkanDevice();

  const VkApi& api() const { return api_; }
  VkDevice device() const { return device_; }
  const std::string& name() const { return name_; }
  const std::string& type() const { return type_; }
  const std::string& api_version() const { return api_version_; }
  const DeviceFeatures& features() const { return features_; }
  const DeviceLimits& limits() const { return limits_; }
  bool device_local() const { return device_local_; }
  uint64_t memory_bytes() const { return memory_bytes_; }
  uint64_t allocated_bytes() const;

  // A mapped allocation of at least `bytes` (0 allowed). RESOURCE_EXHAUSTED
  // (naming the size and the device's limit) when it cannot be had.
  absl::StatusOr<std::unique_ptr<DeviceMemory>> Allocate(size_t bytes);
  // The device address of `p`, a pointer into a live allocation (or one
  // past its end); INTERNAL when it is not in one.
  absl::StatusOr<uint64_t> AddressOf(const void* p) const;

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
    VkFence fence = VK_NULL_HANDLE;
  };
  VulkanDevice() = default;
  // The validation layer's errors since the last call, as one status.
  absl::Status TakeValidationErrors();
  static VKAPI_ATTR VkBool32 VKAPI_CALL OnValidationMessage(
      VkDebugUtilsMessageSeverityFlagBitsEXT severity,
      VkDebugUtilsMessageTypeFlagsEXT types,
      const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
  absl::StatusOr<Stream*> AcquireStream();
  void ReleaseStream(Stream* s);
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
  uint32_t memory_type_ = 0;
  bool device_local_ = false;
  uint64_t memory_bytes_ = 0;
  std::string name_, type_, api_version_;
  DeviceFeatures features_;
  DeviceLimits limits_;

  std::mutex queue_mu_;
  std::mutex streams_mu_;
  std::vector<std::unique_ptr<Stream>> streams_;  // all, guarded
  std::vector<Stream*> free_streams_;             // guarded
  mutable std::mutex registry_mu_;
  std::map<uintptr_t, const DeviceMemory*> registry_;  // by mapped base
  uint64_t allocated_ = 0;  // guarded by registry_mu_
};

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_VK_DEVICE_H_
