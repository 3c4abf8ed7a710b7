// Compute dispatches as thunks. Each kernel's push constants are the device
// addresses of its operands and its result (mapped device memory, found
// from the frame's slot pointers). Consecutive kernels of a computation run
// as one batch: one command buffer with a barrier between dispatches, one
// submission and one wait, instead of one round trip per kernel.
#ifndef PLEXA_PLUGINS_VULKAN_KERNEL_THUNK_H_
#define PLEXA_PLUGINS_VULKAN_KERNEL_THUNK_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "plugins/common/thunk.h"
#include "plugins/vulkan/glsl_emitter.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {

class KernelThunk : public backend::Thunk {
 public:
  // `grid`: the workgroups to dispatch; all 0: 1-D over `elements` in
  // workgroups of `local_size` invocations. `push_count`: the push
  // constants end with `elements` as a uint64 (device custom calls,
  // device_custom_call.h; the generated kernels know their sizes).
  KernelThunk(VulkanDevice* device, const ComputePipeline* pipeline,
              int64_t elements, const uint32_t grid[3], bool push_count = false,
              int64_t local_size = kWorkgroupSize)
      : device_(device),
        pipeline_(pipeline),
        elements_(elements),
        grid_{grid[0], grid[1], grid[2]},
        push_count_(push_count),
        local_size_(local_size) {}

  absl::Status Run(backend::Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kKernel;
  }
  // Appends the push constants for a run on `f`.
  absl::Status AppendAddresses(const backend::Frame& f,
                               std::vector<uint64_t>* out) const;
  // Records the dispatch with the addresses AppendAddresses gave.
  void Record(VkCommandBuffer cb, const uint64_t* addresses) const;
  size_t num_addresses() const {
    return inputs.size() + outputs.size() + (push_count_ ? 1 : 0);
  }

 private:
  VulkanDevice* device_;
  const ComputePipeline* pipeline_;
  int64_t elements_;
  uint32_t grid_[3];
  bool push_count_;
  int64_t local_size_;
};

class KernelBatchThunk : public backend::Thunk {
 public:
  KernelBatchThunk(VulkanDevice* device,
                   std::vector<std::unique_ptr<KernelThunk>> kernels);
  absl::Status Run(backend::Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kKernel;
  }
  void CollectSteps(std::vector<const Thunk*>* out) const override {
    for (const auto& k : kernels_) out->push_back(k.get());
  }
  size_t size() const { return kernels_.size(); }

 private:
  VulkanDevice* device_;
  std::vector<std::unique_ptr<KernelThunk>> kernels_;
};

// Replaces every run of two or more consecutive KernelThunks of `cc` with
// a KernelBatchThunk (after buffer assignment: the order, and so every
// slot's lifetime, stays as it was). Returns the number of batches.
int BatchKernels(backend::CompiledComputation& cc, VulkanDevice* device);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_KERNEL_THUNK_H_
