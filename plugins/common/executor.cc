#include "plugins/common/executor.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace plexa::backend {

absl::Status RunComputation(const CompiledComputation& cc,
                            absl::Span<uint8_t* const> params, ExecContext& ctx,
                            std::vector<uint8_t*>* results,
                            absl::Span<void* const> bound_results) {
  absl::StatusOr<uint8_t*> arena = ctx.ArenaFor(cc.id, cc.arena_bytes);
  if (!arena.ok()) return arena.status();
  Frame f;
  f.cc = &cc;
  f.ctx = &ctx;
  f.ptr.resize(cc.slots.size());
  uint8_t* base = *arena;
  for (size_t s = 0; s < cc.slots.size(); ++s) {
    const Slot& slot = cc.slots[s];
    switch (slot.kind) {
      case SlotKind::kParameter:
        f.ptr[s] = params[slot.index];
        break;
      case SlotKind::kConstant:
        f.ptr[s] = const_cast<uint8_t*>(slot.constant);
        break;
      case SlotKind::kTemp:
        f.ptr[s] = base + slot.offset;
        break;
      case SlotKind::kResult:
        f.ptr[s] = static_cast<uint8_t*>(bound_results[slot.index]);
        break;
    }
  }
  if (ctx.profiler == nullptr) {
    for (const auto& t : cc.thunks) {
      if (absl::Status s = t->Run(f); !s.ok()) return s;
    }
  } else {
    const uint64_t thread = CurrentThreadId();
    for (const auto& t : cc.thunks) {
      ProfileEvent e;
      e.begin_ns = MonotonicNanos();
      absl::Status s = t->Run(f);
      e.end_ns = MonotonicNanos();
      e.name = t->name;
      e.kind = t->kind;
      e.replica = ctx.device_index();
      e.thread_id = thread;
      ctx.profiler->Record(e);
      if (!s.ok()) return s;
    }
  }
  results->clear();
  for (int s : cc.result_leaves) results->push_back(f.ptr[s]);
  return absl::OkStatus();
}

ProgramExecutor::ProgramExecutor(
    std::vector<std::unique_ptr<CompiledComputation>> computations,
    const CompiledComputation* entry,
    std::vector<std::unique_ptr<Literal>> constants)
    : computations_(std::move(computations)),
      entry_(entry),
      constants_(std::move(constants)) {
  for (int s : entry_->param_leaves) {
    const Shape& shape = entry_->slots[s].shape;
    if (shape.IsArray()) parameter_shapes_.push_back(shape);
  }
  for (int s : entry_->result_leaves) {
    const Shape& shape = entry_->slots[s].shape;
    if (shape.IsArray()) result_shapes_.push_back(shape);
  }
}

absl::Status ProgramExecutor::Run(absl::Span<const void* const> args,
                                  absl::Span<void* const> results,
                                  ExecContext& ctx) const {
  const CompiledComputation& entry = *entry_;
  // Entry parameters arrive as their array leaves; token leaves have no
  // memory.
  if (args.size() != parameter_shapes_.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the program takes ", parameter_shapes_.size(),
                     " parameter arrays, got ", args.size()));
  }
  {
    std::lock_guard<std::mutex> lock(arenas_mu_);
    if (!free_arenas_.empty()) {
      ctx.arenas = std::move(free_arenas_.back());
      free_arenas_.pop_back();
    }
  }
  ctx.arenas.resize(computations_.size());
  std::vector<uint8_t*> params;
  size_t next = 0;
  for (int s : entry.param_leaves) {
    params.push_back(
        entry.slots[s].shape.IsToken()
            ? nullptr
            : static_cast<uint8_t*>(const_cast<void*>(args[next++])));
  }
  std::vector<uint8_t*> out;
  absl::Status status = RunComputation(entry, params, ctx, &out, results);
  std::lock_guard<std::mutex> lock(arenas_mu_);
  free_arenas_.push_back(std::move(ctx.arenas));
  return status;
}

}  // namespace plexa::backend
