// GLSL compute shaders to SPIR-V in process, with glslang's library.
#ifndef PLEXA_PLUGINS_VULKAN_SPIRV_COMPILER_H_
#define PLEXA_PLUGINS_VULKAN_SPIRV_COMPILER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace plexa::vulkan {

// Compiles one GLSL compute shader (entry point main) for Vulkan 1.2 /
// SPIR-V 1.5. Thread-safe. The error carries glslang's log and `name`.
absl::StatusOr<std::vector<uint32_t>> CompileGlslToSpirv(
    const std::string& source, const std::string& name);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_SPIRV_COMPILER_H_
