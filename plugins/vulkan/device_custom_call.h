// Custom calls as device kernels. With the client option
// `kernel_dir=DIR`, a custom-call target T for which DIR holds T.spv (a
// SPIR-V module) or T.comp (GLSL compute source, compiled in process by
// glslang as the generated kernels are) runs on the device: the plugin
// builds a pipeline for it at compile time and dispatches it in the
// executable's command buffers between its own kernels, without a host
// round trip. Other targets keep the host path (docs/vulkan.md).
//
// The kernel's interface is the generated kernels' own: entry point
// `main`; push constants holding, in order, the 64-bit device address
// (GL_EXT_buffer_reference) of each operand, of the result, then the
// result's element count as a uint64; a 1-D dispatch of
// ceil(count / local_size_x) workgroups, at most the device's
// maxComputeWorkGroupCount[0] (so a kernel for large arrays loops with a
// grid stride). Operands and result are dense arrays in the layouts the
// program gives them (row-major unless it says otherwise); the result is
// one array.
#ifndef PLEXA_PLUGINS_VULKAN_DEVICE_CUSTOM_CALL_H_
#define PLEXA_PLUGINS_VULKAN_DEVICE_CUSTOM_CALL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace plexa::vulkan {

struct DeviceKernelFile {
  std::string path;  // DIR/T.spv or DIR/T.comp
  std::vector<uint32_t> spirv;
  uint32_t local_size_x = 0;  // from the module's LocalSize
};

// The option's directory must exist: InvalidArgument naming it otherwise.
absl::Status CheckKernelDirectory(const std::string& dir);

// The kernel for custom-call target `target` in `dir` (T.spv before
// T.comp), nullopt when there is none (or `target` is not a plain file
// name). A file that is not SPIR-V, GLSL that does not compile, or a
// module without a LocalSize execution mode is an error naming the file
// and `instruction`.
absl::StatusOr<std::optional<DeviceKernelFile>> FindDeviceKernel(
    const std::string& dir, const std::string& target,
    const std::string& instruction);

// The x size of the first LocalSize execution mode of a SPIR-V module,
// or nullopt (none, or not SPIR-V: the magic number is checked).
std::optional<uint32_t> SpirvLocalSizeX(absl::Span<const uint32_t> spirv);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_DEVICE_CUSTOM_CALL_H_
