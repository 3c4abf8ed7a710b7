// The Vulkan entry points the plugin uses, loaded at run time: libvulkan is
// dlopen'ed when the first client is created (never at plugin load), so the
// plugin loads on a machine without a Vulkan loader and reports "no Vulkan
// device" from PLX_Client_Create there. Included only by plugins/vulkan.
#ifndef PLEXA_PLUGINS_VULKAN_VK_API_H_
#define PLEXA_PLUGINS_VULKAN_VK_API_H_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include "absl/status/statusor.h"

namespace plexa::vulkan {

#define PLEXA_VK_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                \
  X(vkEnumerateInstanceVersion)      \
  X(vkEnumerateInstanceLayerProperties)

#define PLEXA_VK_INSTANCE_FUNCTIONS(X)        \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkUnmapMemory)                            \
  X(vkGetBufferDeviceAddress)                 \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkCreatePipelineCache)                    \
  X(vkDestroyPipelineCache)                   \
  X(vkGetPipelineCacheData)                   \
  X(vkDestroyPipeline)                        \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkAllocateCommandBuffers)                 \
  X(vkResetCommandPool)                       \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkCmdBindPipeline)                        \
  X(vkCmdPushConstants)                       \
  X(vkCmdDispatch)                            \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdCopyBuffer)                          \
  X(vkQueueSubmit)                            \
  X(vkCreateSemaphore)                        \
  X(vkDestroySemaphore)                       \
  X(vkWaitSemaphores)                         \
  X(vkGetSemaphoreCounterValue)               \
  X(vkDeviceWaitIdle)

// The loaded functions. Global ones are valid once Load() succeeded,
// instance ones once LoadInstance() did.
struct VkApi {
#define PLEXA_VK_DECLARE(name) PFN_##name name = nullptr;
  PLEXA_VK_GLOBAL_FUNCTIONS(PLEXA_VK_DECLARE)
  PLEXA_VK_INSTANCE_FUNCTIONS(PLEXA_VK_DECLARE)
#undef PLEXA_VK_DECLARE
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;

  // Loads libvulkan.so.1 (once per process; the handle is never closed) and
  // the global functions. NOT_FOUND when there is no loader.
  static absl::StatusOr<VkApi> Load();
  absl::Status LoadInstance(VkInstance instance);
};

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and the like.
const char* VkResultName(VkResult r);
// An error status for a failed call: `what` failed with the result's name.
absl::Status VkError(const char* what, VkResult r);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_VK_API_H_
