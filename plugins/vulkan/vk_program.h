// A compiled Vulkan program: the toolkit's thunks (host control flow, the
// evaluator fallback, all-reduce) around compute kernels, one pipeline per
// kernel created at compile time. Every slot (parameters, results,
// temporaries, constants) is device memory (vk_device.h), which kernels
// reach by device address. In direct mode host thunks work on it in place;
// in staging mode they run on host copies (staged_host_thunk.h) and the
// toolkit's copies and predicate reads go through the device.
#ifndef PLEXA_PLUGINS_VULKAN_VK_PROGRAM_H_
#define PLEXA_PLUGINS_VULKAN_VK_PROGRAM_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/module.h"
#include "core/runtime/host_feeds.h"
#include "core/runtime/profiler.h"
#include "plugins/common/executor.h"
#include "plugins/common/thunk_emitter.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {

struct ProgramOptions {
  // The replicas and partitions it runs on.
  DeviceGrid grid;
  std::string dump_dir;  // non-empty: write each kernel's GLSL there
  // non-empty: the persistent cache of kernels' SPIR-V (shader_cache.h)
  std::string cache_dir;
  // non-empty: custom-call targets with a kernel here run on the device
  // (device_custom_call.h)
  std::string kernel_dir;
  // What the shaders may use: the device's features, less those the
  // client's disable_features option names.
  DeviceFeatures features;
  // Instructions with these opcodes run on the host evaluator (the
  // client's host_opcodes option), never in a kernel or a fusion.
  absl::flat_hash_set<HloOpcode> host_opcodes;
};

class VulkanProgram {
 public:
  // Runs the plugin's pipeline on `module` and compiles it.
  static absl::StatusOr<std::unique_ptr<VulkanProgram>> Compile(
      std::unique_ptr<Module> module, std::shared_ptr<VulkanDevice> device,
      const ProgramOptions& options, const sdk::CustomCallResolver& resolver);

  const Module& module() const { return *module_; }
  const backend::ProgramStats& stats() const { return stats_; }
  const std::vector<Shape>& parameter_shapes() const {
    return executor_->parameter_shapes();
  }
  const std::vector<Shape>& result_shapes() const {
    return executor_->result_shapes();
  }
  int64_t spirv_bytes() const { return spirv_bytes_; }
  // Kernels whose SPIR-V came from the persistent cache (cache_dir).
  int64_t spirv_cache_hits() const { return spirv_cache_hits_; }
  const backend::ProgramExecutor& executor() const { return *executor_; }
  // What ran where, for the compile report.
  std::string Report() const;

  // The run of device `device` of `grid` (one replica of one partition).
  // `args` and `results` are device memory (slot addresses, vk_device.h).
  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results, int64_t device,
                   const DeviceGrid& grid, backend::ReplicaHub* hub,
                   HostFeeds* feeds, Profiler* profiler,
                   const sdk::CallFrameContext* call_frames = nullptr,
                   RngStateTable* rng_states = nullptr) const;

 private:
  using Arenas = std::vector<std::unique_ptr<DeviceMemory>>;
  VulkanProgram() = default;

  std::unique_ptr<Module> module_;
  std::shared_ptr<VulkanDevice> device_;
  std::unique_ptr<backend::ProgramExecutor> executor_;
  std::unique_ptr<DeviceMemory> constants_;
  std::vector<std::unique_ptr<ComputePipeline>> pipelines_;
  backend::ProgramStats stats_;
  int64_t spirv_bytes_ = 0;
  int64_t spirv_cache_hits_ = 0;  // kernels whose SPIR-V came from cache_dir
  int64_t batches_ = 0;
  int64_t staged_host_thunks_ = 0;  // staging mode: StagedHostThunks
  mutable std::mutex arenas_mu_;
  mutable std::vector<Arenas> free_arenas_;  // of finished runs
};

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_VK_PROGRAM_H_
