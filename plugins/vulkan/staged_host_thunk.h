// The staging path's host steps (vk_device.h: device memory the host does
// not map). A thunk that computes on the host — the evaluator fallback,
// custom calls, collectives, fft and topk, rng-get-and-update-state,
// infeed/outfeed — runs on host copies of its slots: each input is read
// from the device first (through a staging buffer), each output written
// back after. The toolkit's own data-moving steps (copies, while loop
// state and predicates, conditional selectors and results) need no
// wrapper: they reach slot memory through backend::SlotAccess, which the
// plugin's execution context implements in this mode.
#ifndef PLEXA_PLUGINS_VULKAN_STAGED_HOST_THUNK_H_
#define PLEXA_PLUGINS_VULKAN_STAGED_HOST_THUNK_H_

#include <memory>
#include <vector>

#include "plugins/common/thunk.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {

class StagedHostThunk : public backend::Thunk {
 public:
  StagedHostThunk(VulkanDevice* device, std::unique_ptr<backend::Thunk> inner);
  absl::Status Run(backend::Frame& f) const override;
  backend::StepClass step_class() const override {
    return inner_->step_class();
  }
  void CollectSteps(std::vector<const Thunk*>* out) const override {
    inner_->CollectSteps(out);
  }

 private:
  VulkanDevice* device_;
  std::unique_ptr<backend::Thunk> inner_;
};

// Wraps every thunk of `cc` that computes on the host in a StagedHostThunk
// (all but kernels, batches of kernels, copies, while and conditional).
// Returns how many.
int StageHostThunks(backend::CompiledComputation& cc, VulkanDevice* device);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_STAGED_HOST_THUNK_H_
