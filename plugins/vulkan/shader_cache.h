// The plugin's persistent cache (client option cache_dir=DIR), for
// programs compiled again in a new process, as JAX's compilation cache:
//   DIR/spirv-<key>.spv         each kernel's SPIR-V, keyed by a fingerprint
//                               of its GLSL source (which also carries the
//                               device features the kernel was written for),
//                               so glslang runs only for new kernels
//   DIR/pipelines-<v>-<d>.bin   the device's VkPipelineCache data (vendor and
//                               device ids in the name), for drivers that
//                               compile pipelines ahead
// Files are written whole under a temporary name and renamed, so processes
// sharing a directory never read a half-written file. A file that is not
// what it should be (truncated, not SPIR-V, another device's pipeline
// cache) is a miss and is written again, never an error.
#ifndef PLEXA_PLUGINS_VULKAN_SHADER_CACHE_H_
#define PLEXA_PLUGINS_VULKAN_SHADER_CACHE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace plexa::vulkan {

// Makes `dir` (one level) unless it exists; an error names it when it
// cannot be made or written.
absl::Status PrepareCacheDirectory(const std::string& dir);

// The file `dir`/`name` whole, or nothing when it cannot be read.
std::optional<std::string> ReadCacheFile(const std::string& dir,
                                         const std::string& name);
// Writes `bytes` to `dir`/`name` through a temporary file and a rename.
absl::Status WriteCacheFile(const std::string& dir, const std::string& name,
                            absl::string_view bytes);

// The cached SPIR-V of `glsl`, or nothing (a miss: absent or not SPIR-V).
std::optional<std::vector<uint32_t>> LookupSpirv(const std::string& dir,
                                                 const std::string& glsl);
absl::Status StoreSpirv(const std::string& dir, const std::string& glsl,
                        const std::vector<uint32_t>& spirv);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_SHADER_CACHE_H_
