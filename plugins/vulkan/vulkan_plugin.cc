// The Vulkan compute plugin: modules compiled to GLSL compute shaders,
// SPIR-V through glslang, run on any Vulkan 1.2+ device (Mesa's lavapipe
// on a machine without a GPU). docs/vulkan.md describes the design, the
// options and what runs on the device and what on the host.
#include <memory>

#include "abi/sdk/plugin.h"
#include "plugins/vulkan/vk_client.h"

namespace plexa::vulkan {
namespace {

class VulkanPlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override { return VulkanPluginInfo(); }

  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    return MakeVulkanClient(options);
  }
};

std::unique_ptr<sdk::Plugin> MakeVulkanPlugin() {
  return std::make_unique<VulkanPlugin>();
}

}  // namespace
}  // namespace plexa::vulkan

PLEXA_DEFINE_PLUGIN(plexa::vulkan::MakeVulkanPlugin)
