#include "plugins/vulkan/vk_device.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/vulkan/shader_cache.h"

namespace plexa::vulkan {
namespace {

absl::Status NoDevice(absl::string_view why) {
  return absl::FailedPreconditionError(absl::StrCat("no Vulkan device: ", why));
}

const char* TypeName(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

// Lower is preferred: discrete, integrated, virtual, CPU, other.
int TypeRank(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

ComputePipeline::~ComputePipeline() {
  if (device_ == nullptr) return;
  const VkApi& api = device_->api_;
  api.vkDestroyPipeline(device_->device_, pipeline_, nullptr);
  api.vkDestroyPipelineLayout(device_->device_, layout_, nullptr);
  api.vkDestroyShaderModule(device_->device_, module_, nullptr);
}

absl::StatusOr<std::unique_ptr<VulkanDevice>> VulkanDevice::Create(
    const std::string& selector, bool validation, StagingMode staging) {
  absl::StatusOr<VkApi> api = VkApi::Load();
  if (!api.ok()) return NoDevice(api.status().message());
  std::unique_ptr<VulkanDevice> d(new VulkanDevice());
  d->api_ = *api;
  const VkApi& vk = d->api_;

  uint32_t version = VK_API_VERSION_1_0;
  vk.vkEnumerateInstanceVersion(&version);
  if (version < VK_API_VERSION_1_2) {
    return NoDevice(absl::StrCat(
        "the Vulkan loader is version ", VK_API_VERSION_MAJOR(version), ".",
        VK_API_VERSION_MINOR(version), "; the plugin needs 1.2 or later"));
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "plexa";
  app.pEngineName = "plexa-vulkan";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ici{};
  ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ici.pApplicationInfo = &app;
  const char* kLayer = "VK_LAYER_KHRONOS_validation";
  const char* kDebugUtils = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
  VkDebugUtilsMessengerCreateInfoEXT dci_messenger{};
  if (validation) {
    uint32_t n = 0;
    vk.vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    if (n > 0) vk.vkEnumerateInstanceLayerProperties(&n, layers.data());
    bool found = false;
    for (const VkLayerProperties& l : layers) {
      found |= std::strcmp(l.layerName, kLayer) == 0;
    }
    if (!found) {
      return absl::FailedPreconditionError(
          "validation=1: the Vulkan validation layer "
          "VK_LAYER_KHRONOS_validation is not installed (Debian: "
          "vulkan-validationlayers)");
    }
    ici.enabledLayerCount = 1;
    ici.ppEnabledLayerNames = &kLayer;
    ici.enabledExtensionCount = 1;
    ici.ppEnabledExtensionNames = &kDebugUtils;
    dci_messenger.sType =
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    dci_messenger.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    dci_messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    dci_messenger.pfnUserCallback = &VulkanDevice::OnValidationMessage;
    dci_messenger.pUserData = d.get();
  }
  if (VkResult r = vk.vkCreateInstance(&ici, nullptr, &d->instance_);
      r != VK_SUCCESS) {
    return NoDevice(absl::StrCat("vkCreateInstance failed: ", VkResultName(r)));
  }
  if (absl::Status s = d->api_.LoadInstance(d->instance_); !s.ok()) {
    return NoDevice(s.message());
  }
  if (validation) {
    auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vk.vkGetInstanceProcAddr(d->instance_,
                                 "vkCreateDebugUtilsMessengerEXT"));
    if (create == nullptr || create(d->instance_, &dci_messenger, nullptr,
                                    &d->messenger_) != VK_SUCCESS) {
      return absl::FailedPreconditionError(
          "validation=1: cannot create a debug-utils messenger");
    }
  }

  uint32_t count = 0;
  vk.vkEnumeratePhysicalDevices(d->instance_, &count, nullptr);
  std::vector<VkPhysicalDevice> physical(count);
  if (count > 0) {
    vk.vkEnumeratePhysicalDevices(d->instance_, &count, physical.data());
  }
  if (count == 0) return NoDevice("the Vulkan loader reports no device");
  std::vector<VkPhysicalDeviceProperties> props(count);
  std::vector<std::string> listing;
  for (uint32_t i = 0; i < count; ++i) {
    vk.vkGetPhysicalDeviceProperties(physical[i], &props[i]);
    listing.push_back(absl::StrCat("[", i, "] ", props[i].deviceName, " (",
                                   TypeName(props[i].deviceType), ")"));
  }
  const std::string available = absl::StrJoin(listing, ", ");
  int chosen = -1;
  int64_t index = 0;
  if (selector.empty()) {
    for (uint32_t i = 0; i < count; ++i) {
      if (props[i].apiVersion < VK_API_VERSION_1_2) continue;
      if (chosen < 0 ||
          TypeRank(props[i].deviceType) < TypeRank(props[chosen].deviceType)) {
        chosen = static_cast<int>(i);
      }
    }
    if (chosen < 0) {
      return NoDevice(
          absl::StrCat("none supports Vulkan 1.2 (", available, ")"));
    }
  } else if (absl::SimpleAtoi(selector, &index)) {
    if (index < 0 || index >= count) {
      return NoDevice(absl::StrCat("device=", selector,
                                   " is not an index in [0, ", count, ") (",
                                   available, ")"));
    }
    chosen = static_cast<int>(index);
  } else {
    const std::string want = absl::AsciiStrToLower(selector);
    for (uint32_t i = 0; i < count && chosen < 0; ++i) {
      if (absl::StrContains(absl::AsciiStrToLower(props[i].deviceName), want)) {
        chosen = static_cast<int>(i);
      }
    }
    if (chosen < 0) {
      return NoDevice(absl::StrCat("no device name contains '", selector, "' (",
                                   available, ")"));
    }
  }
  const VkPhysicalDeviceProperties& p = props[chosen];
  if (p.apiVersion < VK_API_VERSION_1_2) {
    return NoDevice(absl::StrCat(p.deviceName, " supports only Vulkan ",
                                 VK_API_VERSION_MAJOR(p.apiVersion), ".",
                                 VK_API_VERSION_MINOR(p.apiVersion),
                                 "; the plugin needs 1.2 or later"));
  }
  d->physical_ = physical[chosen];
  d->vendor_id_ = p.vendorID;
  d->device_id_ = p.deviceID;
  std::memcpy(d->cache_uuid_, p.pipelineCacheUUID, VK_UUID_SIZE);
  d->name_ = p.deviceName;
  d->type_ = TypeName(p.deviceType);
  d->api_version_ = absl::StrCat(VK_API_VERSION_MAJOR(p.apiVersion), ".",
                                 VK_API_VERSION_MINOR(p.apiVersion), ".",
                                 VK_API_VERSION_PATCH(p.apiVersion));

  // Limits.
  VkPhysicalDeviceVulkan11Properties p11{};
  p11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &p11;
  vk.vkGetPhysicalDeviceProperties2(d->physical_, &p2);
  d->limits_.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  for (int i = 0; i < 3; ++i) {
    d->limits_.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
  }
  d->limits_.max_workgroup_size_x = p.limits.maxComputeWorkGroupSize[0];
  d->limits_.max_shared_memory = p.limits.maxComputeSharedMemorySize;
  d->limits_.max_push_constants = p.limits.maxPushConstantsSize;
  d->limits_.subgroup_size = p11.subgroupSize;
  if (absl::StrContains(d->name_, "llvmpipe")) {
    d->features_.max_loop_iterations = 65535;
  }
  d->features_.subgroups =
      p11.subgroupSize >= 8 && p11.subgroupSize % 8 == 0 &&
      (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
      (p11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
  d->limits_.max_allocation = p11.maxMemoryAllocationSize;

  // Features: buffer device address is required; the rest is used where
  // present (the code generator names what a program needs and lacks).
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  f12.pNext = &f11;
  VkPhysicalDeviceFeatures2 f2{};
  f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  f2.pNext = &f12;
  vk.vkGetPhysicalDeviceFeatures2(d->physical_, &f2);
  if (!f12.bufferDeviceAddress) {
    return NoDevice(absl::StrCat(d->name_,
                                 " lacks bufferDeviceAddress, which the "
                                 "plugin needs"));
  }
  // Core in Vulkan 1.2 and required there; checked all the same.
  if (!f12.timelineSemaphore) {
    return NoDevice(absl::StrCat(d->name_,
                                 " lacks timelineSemaphore, which the "
                                 "plugin needs"));
  }
  d->features_.float64 = f2.features.shaderFloat64;
  d->features_.int64 = f2.features.shaderInt64;
  d->features_.int16 = f2.features.shaderInt16;
  d->features_.int8 = f12.shaderInt8;
  d->features_.storage8 = f12.storageBuffer8BitAccess;
  d->features_.storage16 = f11.storageBuffer16BitAccess;
  VkPhysicalDeviceVulkan11Features e11{};
  e11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  e11.storageBuffer16BitAccess = d->features_.storage16;
  VkPhysicalDeviceVulkan12Features e12{};
  e12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  e12.pNext = &e11;
  e12.bufferDeviceAddress = VK_TRUE;
  e12.timelineSemaphore = VK_TRUE;
  e12.shaderInt8 = d->features_.int8;
  e12.storageBuffer8BitAccess = d->features_.storage8;
  VkPhysicalDeviceFeatures2 e2{};
  e2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  e2.pNext = &e12;
  e2.features.shaderFloat64 = d->features_.float64;
  e2.features.shaderInt64 = d->features_.int64;
  e2.features.shaderInt16 = d->features_.int16;

  // A compute queue.
  uint32_t families = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> qf(families);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(d->physical_, &families,
                                              qf.data());
  int family = -1;
  for (uint32_t i = 0; i < families && family < 0; ++i) {
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = static_cast<int>(i);
  }
  if (family < 0) {
    return NoDevice(absl::StrCat(d->name_, " has no compute queue"));
  }
  d->queue_family_ = static_cast<uint32_t>(family);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = d->queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &priority;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.pNext = &e2;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  if (VkResult r = vk.vkCreateDevice(d->physical_, &dci, nullptr, &d->device_);
      r != VK_SUCCESS) {
    return NoDevice(absl::StrCat("vkCreateDevice(", d->name_,
                                 ") failed: ", VkResultName(r)));
  }
  vk.vkGetDeviceQueue(d->device_, d->queue_family_, 0, &d->queue_);
  VkSemaphoreTypeCreateInfo stci{};
  stci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  stci.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  stci.initialValue = 0;
  VkSemaphoreCreateInfo sci{};
  sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  sci.pNext = &stci;
  if (VkResult r =
          vk.vkCreateSemaphore(d->device_, &sci, nullptr, &d->timeline_);
      r != VK_SUCCESS) {
    return VkError("vkCreateSemaphore (timeline)", r);
  }

  // The memory types, among those a storage buffer may use (buffers are
  // also copy sources and destinations, for the staging path).
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = 64;
  bci.usage = kBufferUsage;
  VkBuffer probe = VK_NULL_HANDLE;
  if (VkResult r = vk.vkCreateBuffer(d->device_, &bci, nullptr, &probe);
      r != VK_SUCCESS) {
    return VkError("vkCreateBuffer", r);
  }
  VkMemoryRequirements req;
  vk.vkGetBufferMemoryRequirements(d->device_, probe, &req);
  vk.vkDestroyBuffer(d->device_, probe, nullptr);
  VkPhysicalDeviceMemoryProperties mp;
  vk.vkGetPhysicalDeviceMemoryProperties(d->physical_, &mp);
  absl::StatusOr<MemoryPlan> plan = PlanMemory(mp, req.memoryTypeBits, staging);
  if (!plan.ok()) {
    return NoDevice(absl::StrCat(d->name_, ": ", plan.status().message()));
  }
  auto heap = [&](int type) {
    return mp.memoryHeaps[mp.memoryTypes[type].heapIndex].size;
  };
  d->staging_ = plan->staging;
  d->memory_mode_ = plan->mode;
  d->memory_type_ = static_cast<uint32_t>(plan->buffer_type);
  d->device_local_ = mp.memoryTypes[plan->buffer_type].propertyFlags &
                     VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  d->memory_bytes_ = heap(plan->buffer_type);
  d->host_type_ = static_cast<uint32_t>(plan->host_type);
  d->host_visible_bytes_ = heap(plan->host_type);
  // Pipelines go through a cache from the start (empty until a client
  // names a cache directory).
  if (absl::Status s = d->LoadPipelineCache(""); !s.ok()) return s;
  return d;
}

VulkanDevice::~VulkanDevice() {
  if (device_ != VK_NULL_HANDLE) api_.vkDeviceWaitIdle(device_);
  // Every submission is complete: what the completion thread has not yet
  // run is run now, and the thread stops. When the last reference to the
  // device went in one of its completions, this runs on that thread: the
  // rest are run here and the thread, which touches only `completions_`
  // from now on, is detached and ends when that completion returns.
  std::deque<std::pair<uint64_t, Done>> rest;
  {
    std::lock_guard<std::mutex> lock(completions_->mu);
    completions_->stopping = true;
    if (completions_->thread.get_id() == std::this_thread::get_id()) {
      rest.swap(completions_->pending);
      completions_->thread.detach();
    }
  }
  completions_->cv.notify_all();
  for (auto& [value, done] : rest) done(absl::OkStatus());
  rest.clear();
  if (completions_->thread.joinable()) completions_->thread.join();
  staging_pool_.clear();
  if (device_ != VK_NULL_HANDLE) {
    if (timeline_ != VK_NULL_HANDLE) {
      api_.vkDestroySemaphore(device_, timeline_, nullptr);
    }
    if (pipeline_cache_ != VK_NULL_HANDLE) {
      api_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
    }
    for (auto& s : streams_) {
      s->staging.reset();
      api_.vkDestroyCommandPool(device_, s->pool, nullptr);
    }
    api_.vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        api_.vkGetInstanceProcAddr(instance_,
                                   "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) api_.vkDestroyInstance(instance_, nullptr);
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanDevice::OnValidationMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  auto* d = static_cast<VulkanDevice*>(user);
  std::lock_guard<std::mutex> lock(d->validation_mu_);
  d->validation_errors_.push_back(data != nullptr && data->pMessage != nullptr
                                      ? data->pMessage
                                      : "(no message)");
  return VK_FALSE;
}

absl::Status VulkanDevice::TakeValidationErrors() {
  if (messenger_ == VK_NULL_HANDLE) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(validation_mu_);
  if (validation_errors_.empty()) return absl::OkStatus();
  absl::Status s = absl::InternalError(absl::StrCat(
      "Vulkan validation: ", absl::StrJoin(validation_errors_, "; ")));
  validation_errors_.clear();
  return s;
}

absl::StatusOr<std::unique_ptr<ComputePipeline>> VulkanDevice::CreatePipeline(
    absl::Span<const uint32_t> spirv, uint32_t push_constant_bytes) {
  std::unique_ptr<ComputePipeline> p(new ComputePipeline());
  p->device_ = this;
  VkShaderModuleCreateInfo smci{};
  smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smci.codeSize = spirv.size() * sizeof(uint32_t);
  smci.pCode = spirv.data();
  if (VkResult r =
          api_.vkCreateShaderModule(device_, &smci, nullptr, &p->module_);
      r != VK_SUCCESS) {
    return VkError("vkCreateShaderModule", r);
  }
  VkPushConstantRange range{};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.offset = 0;
  range.size = push_constant_bytes;
  VkPipelineLayoutCreateInfo plci{};
  plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  plci.pushConstantRangeCount = push_constant_bytes > 0 ? 1 : 0;
  plci.pPushConstantRanges = &range;
  if (VkResult r =
          api_.vkCreatePipelineLayout(device_, &plci, nullptr, &p->layout_);
      r != VK_SUCCESS) {
    return VkError("vkCreatePipelineLayout", r);
  }
  VkComputePipelineCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = p->module_;
  cpci.stage.pName = "main";
  cpci.layout = p->layout_;
  if (VkResult r = api_.vkCreateComputePipelines(device_, pipeline_cache_, 1,
                                                 &cpci, nullptr, &p->pipeline_);
      r != VK_SUCCESS) {
    return VkError("vkCreateComputePipelines", r);
  }
  if (absl::Status s = TakeValidationErrors(); !s.ok()) return s;
  return p;
}

namespace {

// The name of the pipeline cache file of a device (shader_cache.h).
std::string PipelineCacheName(uint32_t vendor, uint32_t device) {
  return absl::StrCat("pipelines-", absl::Hex(vendor), "-", absl::Hex(device),
                      ".bin");
}

}  // namespace

absl::Status VulkanDevice::LoadPipelineCache(const std::string& dir) {
  pipeline_cache_dir_ = dir;
  std::optional<std::string> data;
  if (!dir.empty()) {
    data = ReadCacheFile(dir, PipelineCacheName(vendor_id_, device_id_));
  }
  // VkPipelineCacheHeaderVersionOne: length, version, vendor, device, UUID.
  // Only data this device and driver wrote is handed to the driver.
  bool usable = data.has_value() && data->size() >= 16 + VK_UUID_SIZE;
  if (usable) {
    uint32_t header[4];
    std::memcpy(header, data->data(), sizeof(header));
    usable = header[0] >= 16 + VK_UUID_SIZE &&
             header[1] == VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
             header[2] == vendor_id_ && header[3] == device_id_ &&
             std::memcmp(data->data() + 16, cache_uuid_, VK_UUID_SIZE) == 0;
  }
  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  if (usable) {
    info.initialDataSize = data->size();
    info.pInitialData = data->data();
  }
  VkPipelineCache cache = VK_NULL_HANDLE;
  if (VkResult r = api_.vkCreatePipelineCache(device_, &info, nullptr, &cache);
      r != VK_SUCCESS) {
    return VkError("vkCreatePipelineCache", r);
  }
  if (pipeline_cache_ != VK_NULL_HANDLE) {
    api_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  }
  pipeline_cache_ = cache;
  return absl::OkStatus();
}

absl::Status VulkanDevice::SavePipelineCache() {
  if (pipeline_cache_dir_.empty() || pipeline_cache_ == VK_NULL_HANDLE) {
    return absl::OkStatus();
  }
  size_t size = 0;
  if (VkResult r =
          api_.vkGetPipelineCacheData(device_, pipeline_cache_, &size, nullptr);
      r != VK_SUCCESS) {
    return VkError("vkGetPipelineCacheData", r);
  }
  std::string data(size, '\0');
  if (VkResult r = api_.vkGetPipelineCacheData(device_, pipeline_cache_, &size,
                                               data.data());
      r != VK_SUCCESS && r != VK_INCOMPLETE) {
    return VkError("vkGetPipelineCacheData", r);
  }
  data.resize(size);
  return WriteCacheFile(pipeline_cache_dir_,
                        PipelineCacheName(vendor_id_, device_id_), data);
}

absl::StatusOr<VulkanDevice::Stream*> VulkanDevice::AcquireStream() {
  {
    std::lock_guard<std::mutex> lock(streams_mu_);
    if (!free_streams_.empty()) {
      Stream* s = free_streams_.back();
      free_streams_.pop_back();
      return s;
    }
  }
  auto s = std::make_unique<Stream>();
  VkCommandPoolCreateInfo cpci{};
  cpci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  cpci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  cpci.queueFamilyIndex = queue_family_;
  if (VkResult r = api_.vkCreateCommandPool(device_, &cpci, nullptr, &s->pool);
      r != VK_SUCCESS) {
    return VkError("vkCreateCommandPool", r);
  }
  VkCommandBufferAllocateInfo cbai{};
  cbai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cbai.commandPool = s->pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkResult r = api_.vkAllocateCommandBuffers(device_, &cbai, &s->cb);
  Stream* raw = s.get();
  {
    std::lock_guard<std::mutex> lock(streams_mu_);
    streams_.push_back(std::move(s));  // destroyed with the device
  }
  if (r != VK_SUCCESS) return VkError("creating a command buffer", r);
  return raw;
}

void VulkanDevice::ReleaseStream(Stream* s) {
  std::lock_guard<std::mutex> lock(streams_mu_);
  free_streams_.push_back(s);
}

absl::StatusOr<uint64_t> VulkanDevice::Enqueue(
    Stream* s, const std::function<void(VkCommandBuffer)>& record) {
  api_.vkResetCommandPool(device_, s->pool, 0);
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult r = api_.vkBeginCommandBuffer(s->cb, &begin);
  if (r == VK_SUCCESS) {
    // Earlier submissions' shader and copy writes are visible to this
    // one's shaders and copies, and this one's work starts after theirs (a
    // barrier's first scope reaches back over earlier submissions to the
    // queue, complete or not).
    const VkPipelineStageFlags work =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    VkMemoryBarrier before{};
    before.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    before.srcAccessMask =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask =
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
        VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    api_.vkCmdPipelineBarrier(s->cb, work, work, 0, 1, &before, 0, nullptr, 0,
                              nullptr);
    record(s->cb);
    // Shader and copy writes become visible to the host once the timeline
    // reaches this submission's value.
    VkMemoryBarrier after{};
    after.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    after.srcAccessMask =
        VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    api_.vkCmdPipelineBarrier(s->cb, work, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                              &after, 0, nullptr, 0, nullptr);
    r = api_.vkEndCommandBuffer(s->cb);
  }
  uint64_t value = 0;
  if (r == VK_SUCCESS) {
    std::lock_guard<std::mutex> lock(queue_mu_);
    value = next_value_ + 1;
    VkTimelineSemaphoreSubmitInfo tsi{};
    tsi.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
    tsi.signalSemaphoreValueCount = 1;
    tsi.pSignalSemaphoreValues = &value;
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.pNext = &tsi;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s->cb;
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &timeline_;
    r = api_.vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE);
    if (r == VK_SUCCESS) next_value_ = value;
  }
  if (r != VK_SUCCESS) return VkError("submitting a Vulkan command buffer", r);
  if (absl::Status v = TakeValidationErrors(); !v.ok()) {
    // The work was submitted: it completes before the error is returned,
    // so that nothing it touches is freed under it.
    WaitFor(value).IgnoreError();
    return v;
  }
  return value;
}

absl::Status VulkanDevice::WaitFor(uint64_t value) {
  VkSemaphoreWaitInfo wi{};
  wi.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  wi.semaphoreCount = 1;
  wi.pSemaphores = &timeline_;
  wi.pValues = &value;
  if (VkResult r = api_.vkWaitSemaphores(device_, &wi, UINT64_MAX);
      r != VK_SUCCESS) {
    return VkError("waiting for a Vulkan submission", r);
  }
  return TakeValidationErrors();
}

absl::Status VulkanDevice::RunOn(
    Stream* s, const std::function<void(VkCommandBuffer)>& record) {
  absl::StatusOr<uint64_t> value = Enqueue(s, record);
  if (!value.ok()) return value.status();
  return WaitFor(*value);
}

uint64_t VulkanDevice::submitted() const {
  std::lock_guard<std::mutex> lock(queue_mu_);
  return next_value_;
}

uint64_t VulkanDevice::completed() const {
  uint64_t value = 0;
  api_.vkGetSemaphoreCounterValue(device_, timeline_, &value);
  return value;
}

void VulkanDevice::WhenReached(uint64_t value, Done done) {
  Completions& c = *completions_;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.pending.emplace_back(value, std::move(done));
    if (!c.thread.joinable()) {
      c.thread = std::thread(&VulkanDevice::CompletionLoop, completions_, this);
    }
  }
  c.cv.notify_one();
}

void VulkanDevice::CompletionLoop(std::shared_ptr<Completions> c,
                                  VulkanDevice* device) {
  std::unique_lock<std::mutex> lock(c->mu);
  for (;;) {
    c->cv.wait(lock, [&] { return c->stopping || !c->pending.empty(); });
    // Stopping: the destructor waited for the device to go idle and runs
    // what is left itself (or this thread drains it, which no longer
    // waits: every value is reached).
    if (c->pending.empty()) return;
    const uint64_t value = c->pending.front().first;
    lock.unlock();
    absl::Status status = device->WaitFor(value);
    lock.lock();
    if (c->pending.empty()) return;  // the destructor ran it (detached)
    Done done = std::move(c->pending.front().second);
    c->pending.pop_front();
    c->running = true;
    lock.unlock();
    done(std::move(status));
    // When `done` held the last reference to the device, the destructor
    // ran on this thread, emptied the queue and detached it: `device` is
    // gone and the loop ends at the next check.
    done = nullptr;
    lock.lock();
    c->running = false;
    if (c->pending.empty()) c->idle_cv.notify_all();
  }
}

bool VulkanDevice::DrainCompletions() {
  Completions& c = *completions_;
  std::unique_lock<std::mutex> lock(c.mu);
  if (c.thread.get_id() == std::this_thread::get_id()) return false;
  const bool busy = c.running || !c.pending.empty();
  c.idle_cv.wait(lock, [&] { return c.pending.empty() && !c.running; });
  return busy;
}

absl::Status VulkanDevice::Submit(
    const std::function<void(VkCommandBuffer)>& record) {
  absl::StatusOr<Stream*> stream = AcquireStream();
  if (!stream.ok()) return stream.status();
  absl::Status s = RunOn(*stream, record);
  ReleaseStream(*stream);
  return s;
}

}  // namespace plexa::vulkan
