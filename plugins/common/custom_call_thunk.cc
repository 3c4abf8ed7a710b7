#include "plugins/common/custom_call_thunk.h"

#include "plugins/common/custom_call.h"

namespace plexa::backend {

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

absl::StatusOr<std::unique_ptr<CustomCallThunk>> MakeCustomCallThunk(
    const Instruction& h, const sdk::CustomCallResolver& resolver,
    absl::string_view plugin, absl::string_view platform) {
  absl::StatusOr<sdk::CustomCallTarget> fn =
      ResolveCustomCallTarget(h, resolver, plugin);
  if (!fn.ok()) return fn.status();
  std::vector<int> counts;
  for (const Instruction* op : h.operands()) {
    counts.push_back(
        op->shape().IsTuple() ? static_cast<int>(LeafCount(op->shape())) : -1);
  }
  // A typed target's attributes are parsed now, once.
  std::shared_ptr<const sdk::TypedCustomCall> typed;
  if (fn->api_version == 1) {
    absl::StatusOr<std::shared_ptr<const sdk::TypedCustomCall>> made =
        sdk::TypedCustomCall::Create(h, *fn, std::string(platform));
    if (!made.ok()) return made.status();
    typed = std::move(*made);
  }
  return std::make_unique<CustomCallThunk>(
      std::move(*fn), std::move(typed), std::move(counts), h.shape().IsTuple());
}

}  // namespace plexa::backend
