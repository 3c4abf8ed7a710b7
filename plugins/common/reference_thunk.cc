#include "plugins/common/reference_thunk.h"

#include <cstring>
#include <utility>
#include <vector>

#include "core/eval/evaluator.h"
#include "core/shape/layout_util.h"

namespace plexa::backend {

absl::Status ReferenceThunk::Run(Frame& f) const {
  if (f.ctx->evaluator == nullptr) {
    EvaluatorOptions options;
    options.verify_module = false;
    options.feeds = f.ctx->feeds;
    f.ctx->evaluator = std::make_unique<InstructionEvaluator>(
        std::move(options), f.ctx->device_index(), f.ctx->grid());
  }
  std::vector<Literal> operands;
  size_t k = 0;
  for (const Instruction* op : instr_->operands()) {
    operands.push_back(Assemble(op->shape(), f, &k));
  }
  std::vector<const Literal*> ptrs;
  for (const Literal& l : operands) ptrs.push_back(&l);
  absl::StatusOr<Literal> result = f.ctx->evaluator->Evaluate(*instr_, ptrs);
  if (!result.ok()) return result.status();
  size_t out = 0;
  return Scatter(std::move(*result), f, &out);
}

Literal ReferenceThunk::Assemble(const Shape& shape, Frame& f,
                                 size_t* k) const {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& e : shape.tuple_shapes()) {
      elements.push_back(Assemble(e, f, k));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  const int s = inputs[(*k)++];
  const Slot& slot = f.cc->slots[s];
  Literal lit(slot.shape);
  if (slot.bytes > 0) {
    std::memcpy(lit.mutable_data().data(), f.ptr[s], slot.bytes);
  }
  return lit;
}

absl::Status ReferenceThunk::Scatter(Literal value, Frame& f, size_t* k) const {
  if (value.shape().IsTuple()) {
    for (Literal& e : std::move(value).DecomposeTuple()) {
      if (absl::Status s = Scatter(std::move(e), f, k); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  const int s = outputs[(*k)++];
  const Slot& slot = f.cc->slots[s];
  if (slot.bytes == 0) return absl::OkStatus();
  const Layout want = LayoutUtil::EffectiveLayout(slot.shape);
  if (!(LayoutUtil::EffectiveLayout(value.shape()) == want)) {
    absl::StatusOr<Literal> relaid = value.Relayout(want);
    if (!relaid.ok()) return relaid.status();
    value = std::move(*relaid);
  }
  std::memcpy(f.ptr[s], value.data().data(), slot.bytes);
  return absl::OkStatus();
}

}  // namespace plexa::backend
