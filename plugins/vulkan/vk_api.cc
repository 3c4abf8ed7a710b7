#include "plugins/vulkan/vk_api.h"

#include <dlfcn.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace plexa::vulkan {

absl::StatusOr<VkApi> VkApi::Load() {
  static std::once_flag once;
  static void* handle = nullptr;
  static std::string error;
  std::call_once(once, [] {
    for (const char* name : {"libvulkan.so.1", "libvulkan.so"}) {
      handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (handle != nullptr) return;
      const char* e = dlerror();
      error = e != nullptr ? e : name;
    }
  });
  if (handle == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no Vulkan loader (libvulkan.so.1): ", error));
  }
  VkApi api;
  api.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(handle, "vkGetInstanceProcAddr"));
  if (api.vkGetInstanceProcAddr == nullptr) {
    return absl::NotFoundError(
        "the Vulkan loader has no vkGetInstanceProcAddr");
  }
#define PLEXA_VK_LOAD_GLOBAL(name)                                 \
  api.name = reinterpret_cast<PFN_##name>(                         \
      api.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));           \
  if (api.name == nullptr) {                                       \
    return absl::NotFoundError("the Vulkan loader has no " #name); \
  }
  PLEXA_VK_GLOBAL_FUNCTIONS(PLEXA_VK_LOAD_GLOBAL)
#undef PLEXA_VK_LOAD_GLOBAL
  return api;
}

absl::Status VkApi::LoadInstance(VkInstance instance) {
#define PLEXA_VK_LOAD_INSTANCE(name)                                           \
  name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (name == nullptr) {                                                       \
    return absl::NotFoundError("the Vulkan instance has no " #name);           \
  }
  PLEXA_VK_INSTANCE_FUNCTIONS(PLEXA_VK_LOAD_INSTANCE)
#undef PLEXA_VK_LOAD_INSTANCE
  return absl::OkStatus();
}

const char* VkResultName(VkResult r) {
  switch (r) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
      return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    default:
      return "VkResult error";
  }
}

absl::Status VkError(const char* what, VkResult r) {
  std::string msg = absl::StrCat(what, " failed: ", VkResultName(r), " (",
                                 static_cast<int>(r), ")");
  if (r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
    return absl::ResourceExhaustedError(msg);
  }
  return absl::InternalError(msg);
}

}  // namespace plexa::vulkan
