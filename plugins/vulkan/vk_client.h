// The Vulkan plugin's client: options, devices (two memories each: the
// device's buffers and host-visible memory), buffers in device memory,
// executables over VulkanProgram (vk_program.h).
//
// Client options:
//   device       index or name substring of the Vulkan device (default:
//                a discrete GPU, then integrated, then virtual, then CPU)
//   num_devices  virtual devices on that one Vulkan device, for replicas
//                (default 1)
//   report       1: print each compile's report (kernels on the device,
//                instructions on the host) to stderr
//   dump_dir     write each kernel's GLSL there
//   validation   1: run with VK_LAYER_KHRONOS_validation; a validation
//                error fails the call that caused it
//   staging      1: the device's buffers in device memory the host does not
//                map, reached through staging copies (vk_device.h); 0:
//                in host-visible memory, mapped; absent: decided by the
//                device's memory types (PLEXA_VULKAN_STAGING=0/1 in the
//                environment when the option is absent)
//   disable_features
//                comma-separated float64, int64, int16, int8: compile as
//                for a device without them (a program that needs one is
//                then a compile error naming the instruction and feature)
//   host_opcodes comma-separated HLO opcode names ("sine,power"): those
//                instructions run on the host evaluator (in place on the
//                device memory, or through staging copies) instead of in
//                a kernel: to work around a device's bug in one operation,
//                or to compare; the tests use it for the host path
#ifndef PLEXA_PLUGINS_VULKAN_VK_CLIENT_H_
#define PLEXA_PLUGINS_VULKAN_VK_CLIENT_H_

#include <memory>

#include "abi/sdk/plugin.h"
#include "absl/status/statusor.h"

namespace plexa::vulkan {

sdk::PluginInfo VulkanPluginInfo();

// "no Vulkan device: ..." (FAILED_PRECONDITION) when there is none.
absl::StatusOr<std::unique_ptr<sdk::Client>> MakeVulkanClient(
    const sdk::Options& options);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_VK_CLIENT_H_
