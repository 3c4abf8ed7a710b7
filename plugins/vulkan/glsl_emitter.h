// GLSL compute shaders for instructions: one invocation per output element
// (a grid-stride loop, so any element count runs within the device's
// workgroup-count limit), the value of every instruction a GLSL function of
// its multi-index. Elementwise operations are expressions; broadcast,
// reshape, transpose, slice, pad, concatenate, iota, reverse, copy,
// dynamic-slice and dynamic-update-slice are index maps; reduce and
// reduce-window are loops with the reducer's body; dot is a loop over the
// contracting dimensions. Buffers are reached by device address (push
// constants), so there are no descriptor sets.
//
// The semantics are the evaluator's and the CPU code generator's (XLA's):
// NaN-propagating max/min, integer division by zero, shifts past the
// width, saturating float-to-int conversion, f16/bf16 rounded after every
// operation (they compute in f32).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "core/ir/instruction.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {

inline constexpr int kWorkgroupSize = 64;

struct GlslKernel {
  std::string source;
  // Device addresses pushed, in order: one per operand of the instruction,
  // then the result.
  int num_buffers = 0;
  int64_t elements = 0;  // result elements: invocations to run
  // Workgroups to dispatch in x, y, z; all 0: enough 1-D workgroups of
  // kWorkgroupSize for `elements` (capped by the device, the shader loops).
  uint32_t grid[3] = {0, 0, 0};
};

// The tiled GEMM for a dot of f32 matrices (one contracting dimension, one
// free dimension per side, at most one batch dimension, any dense
// layouts). With `subgroup_broadcast_8` (subgroups of a multiple of 8
// invocations that can broadcast): 8x128 result tiles per workgroup of 64
// invocations, each keeping 8x2 elements in registers, A handed between
// lanes by subgroupBroadcast, no shared memory and no barrier; otherwise
// 64x64 tiles per workgroup of 16x16 invocations, each computing 4x4
// elements from tiles of the operands staged in shared memory. NOT_FOUND
// when `h` is not such a dot, its grid would exceed `max_groups`, or its k
// loop `max_loop_iterations` (0: no limit; DeviceFeatures).
absl::StatusOr<GlslKernel> EmitTiledGemm(const Instruction& h,
                                         const uint32_t max_groups[3],
                                         bool subgroup_broadcast_8,
                                         int64_t max_loop_iterations);

// The shader for `h` (an array-valued instruction whose operands are
// arrays). UNIMPLEMENTED when the generator has no code for it (the plugin
// then runs it on the host); FAILED_PRECONDITION naming the instruction and
// the feature when the device lacks one the instruction needs.
absl::StatusOr<GlslKernel> EmitGlslKernel(const Instruction& h,
                                          const DeviceFeatures& features,
                                          int max_buffers);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_H_
