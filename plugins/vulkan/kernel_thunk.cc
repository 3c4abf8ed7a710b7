#include "plugins/vulkan/kernel_thunk.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "plugins/vulkan/glsl_emitter.h"

namespace plexa::vulkan {

absl::Status KernelThunk::AppendAddresses(const backend::Frame& f,
                                          std::vector<uint64_t>* out) const {
  for (const std::vector<int>* slots : {&inputs, &outputs}) {
    for (int s : *slots) {
      absl::StatusOr<uint64_t> a = device_->AddressOf(f.ptr[s]);
      if (!a.ok()) return a.status();
      out->push_back(*a);
    }
  }
  if (push_count_) out->push_back(static_cast<uint64_t>(elements_));
  return absl::OkStatus();
}

void KernelThunk::Record(VkCommandBuffer cb, const uint64_t* addresses) const {
  if (elements_ == 0) return;
  const uint32_t groups = static_cast<uint32_t>(
      std::min<int64_t>((elements_ + local_size_ - 1) / local_size_,
                        device_->limits().max_workgroup_count[0]));
  const VkApi& vk = device_->api();
  vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE,
                       pipeline_->pipeline());
  vk.vkCmdPushConstants(
      cb, pipeline_->layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
      static_cast<uint32_t>(num_addresses() * sizeof(uint64_t)), addresses);
  if (grid_[0] > 0) {
    vk.vkCmdDispatch(cb, grid_[0], grid_[1], grid_[2]);
  } else {
    vk.vkCmdDispatch(cb, groups, 1, 1);
  }
}

absl::Status KernelThunk::Run(backend::Frame& f) const {
  if (elements_ == 0) return absl::OkStatus();
  std::vector<uint64_t> addresses;
  if (absl::Status s = AppendAddresses(f, &addresses); !s.ok()) return s;
  return device_->Submit(
      [&](VkCommandBuffer cb) { Record(cb, addresses.data()); });
}

KernelBatchThunk::KernelBatchThunk(
    VulkanDevice* device, std::vector<std::unique_ptr<KernelThunk>> kernels)
    : device_(device), kernels_(std::move(kernels)) {
  for (const auto& k : kernels_) {
    inputs.insert(inputs.end(), k->inputs.begin(), k->inputs.end());
    outputs.insert(outputs.end(), k->outputs.begin(), k->outputs.end());
  }
  name = absl::StrCat(kernels_.front()->name, " .. ", kernels_.back()->name,
                      " (", kernels_.size(), " kernels)");
  kind = "vulkan";
}

absl::Status KernelBatchThunk::Run(backend::Frame& f) const {
  std::vector<uint64_t> addresses;
  for (const auto& k : kernels_) {
    if (absl::Status s = k->AppendAddresses(f, &addresses); !s.ok()) return s;
  }
  const VkApi& vk = device_->api();
  return device_->Submit([&](VkCommandBuffer cb) {
    const uint64_t* next = addresses.data();
    for (size_t i = 0; i < kernels_.size(); ++i) {
      if (i > 0) {
        // Each dispatch sees the writes of the ones before it, and none
        // overwrites what an earlier one still reads.
        VkMemoryBarrier barrier{};
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        barrier.srcAccessMask =
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
        barrier.dstAccessMask =
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                &barrier, 0, nullptr, 0, nullptr);
      }
      kernels_[i]->Record(cb, next);
      next += kernels_[i]->num_addresses();
    }
  });
}

int BatchKernels(backend::CompiledComputation& cc, VulkanDevice* device) {
  std::vector<std::unique_ptr<backend::Thunk>> out;
  std::vector<std::unique_ptr<KernelThunk>> run;
  int batches = 0;
  auto flush = [&] {
    if (run.size() >= 2) {
      out.push_back(std::make_unique<KernelBatchThunk>(device, std::move(run)));
      ++batches;
    } else if (run.size() == 1) {
      out.push_back(std::move(run.front()));
    }
    run.clear();
  };
  for (auto& t : cc.thunks) {
    if (dynamic_cast<KernelThunk*>(t.get()) != nullptr) {
      run.emplace_back(static_cast<KernelThunk*>(t.release()));
    } else {
      flush();
      out.push_back(std::move(t));
    }
  }
  flush();
  cc.thunks = std::move(out);
  return batches;
}

}  // namespace plexa::vulkan
