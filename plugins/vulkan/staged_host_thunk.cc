#include "plugins/vulkan/staged_host_thunk.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "plugins/common/aligned_memory.h"
#include "plugins/common/control_flow_thunks.h"
#include "plugins/vulkan/kernel_thunk.h"

namespace plexa::vulkan {

StagedHostThunk::StagedHostThunk(VulkanDevice* device,
                                 std::unique_ptr<backend::Thunk> inner)
    : device_(device), inner_(std::move(inner)) {
  inputs = inner_->inputs;
  outputs = inner_->outputs;
  name = inner_->name;
  kind = inner_->kind;
}

absl::Status StagedHostThunk::Run(backend::Frame& f) const {
  // The host frame: this thunk's slots point at host copies (one per
  // distinct slot address: an update in place reads and writes one).
  backend::Frame host = f;
  absl::flat_hash_map<const uint8_t*, backend::AlignedMemory> copies;
  auto bind = [&](int s, bool download) -> absl::Status {
    const int64_t bytes = f.cc->slots[s].bytes;
    if (bytes <= 0) return absl::OkStatus();
    uint8_t* device_ptr = f.ptr[s];
    auto it = copies.find(device_ptr);
    if (it == copies.end()) {
      absl::StatusOr<backend::AlignedMemory> m =
          backend::AlignedMemory::Allocate(bytes);
      if (!m.ok()) return m.status();
      if (download) {
        if (absl::Status st = device_->Read(device_ptr, m->data(), bytes);
            !st.ok()) {
          return st;
        }
      }
      it = copies.emplace(device_ptr, *std::move(m)).first;
    }
    host.ptr[s] = static_cast<uint8_t*>(it->second.data());
    return absl::OkStatus();
  };
  for (int s : inputs) {
    if (absl::Status st = bind(s, true); !st.ok()) return st;
  }
  for (int s : outputs) {
    if (absl::Status st = bind(s, false); !st.ok()) return st;
  }
  if (absl::Status st = inner_->Run(host); !st.ok()) return st;
  for (int s : outputs) {
    const int64_t bytes = f.cc->slots[s].bytes;
    if (bytes <= 0) continue;
    if (absl::Status st = device_->Write(f.ptr[s], host.ptr[s], bytes);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

int StageHostThunks(backend::CompiledComputation& cc, VulkanDevice* device) {
  int wrapped = 0;
  for (std::unique_ptr<backend::Thunk>& t : cc.thunks) {
    const backend::Thunk* raw = t.get();
    if (dynamic_cast<const KernelThunk*>(raw) != nullptr ||
        dynamic_cast<const KernelBatchThunk*>(raw) != nullptr ||
        dynamic_cast<const backend::CopyThunk*>(raw) != nullptr ||
        dynamic_cast<const backend::WhileThunk*>(raw) != nullptr ||
        dynamic_cast<const backend::BranchThunk*>(raw) != nullptr) {
      continue;
    }
    t = std::make_unique<StagedHostThunk>(device, std::move(t));
    ++wrapped;
  }
  return wrapped;
}

}  // namespace plexa::vulkan
