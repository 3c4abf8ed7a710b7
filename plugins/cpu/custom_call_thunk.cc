#include "plugins/cpu/custom_call_thunk.h"

namespace plexa::cpu {

absl::Status CustomCallThunk::Run(Frame& f) const {
  if (typed_ != nullptr) return RunTyped(f);
  // Tuple operands and results are arrays of pointers to their leaves
  // (flattened one level, as XLA CPU passes them).
  std::vector<std::vector<const void*>> tuples;
  tuples.reserve(operand_leaf_counts_.size());
  std::vector<const void*> in;
  size_t k = 0;
  for (int count : operand_leaf_counts_) {
    if (count == -1) {
      in.push_back(f.ptr[inputs[k++]]);
      continue;
    }
    tuples.emplace_back();
    for (int j = 0; j < count; ++j) tuples.back().push_back(f.ptr[inputs[k++]]);
    in.push_back(tuples.back().data());
  }
  std::vector<void*> outs;
  void* out = nullptr;
  if (tuple_result_) {
    for (int s : outputs) outs.push_back(f.ptr[s]);
    out = outs.data();
  } else {
    out = f.ptr[outputs[0]];
  }
  reinterpret_cast<CustomCallFn>(target_.function)(out, in.data());
  return absl::OkStatus();
}

absl::Status CustomCallThunk::RunTyped(Frame& f) const {
  auto arrays = [&](const std::vector<int>& slots) {
    std::vector<sdk::CallFrameArray> out;
    for (int s : slots) {
      const Shape& shape = f.cc->slots[s].shape;
      if (shape.IsArray()) out.push_back({f.ptr[s], &shape});
    }
    return out;
  };
  return sdk::CallTypedCustomCall(*typed_, arrays(inputs), arrays(outputs),
                                  f.ctx->call_frames);
}

}  // namespace plexa::cpu
