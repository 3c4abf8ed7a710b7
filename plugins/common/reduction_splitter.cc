#include "plugins/common/reduction_splitter.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reducer.h"

namespace plexa::backend {
namespace {

bool RowMajor(const Shape& s) {
  return !s.has_layout() || LayoutUtil::IsMonotonicWithDim0Major(s.layout());
}

Shape RowMajorShape(PrimitiveType t, std::vector<int64_t> dims) {
  Shape s(t, dims);
  LayoutUtil::SetToDefaultLayout(&s);
  return s;
}

// The split applies the init value once per part and once more to the
// partial results; the evaluator (docs/evaluator.md "reduce") applies it
// once. That is the same only when applying it again changes nothing: an
// idempotent reducer (maximum, minimum, and, or) or an init that is a
// constant identity (0 for add, 1 for multiply). A sum with init 7 split
// into 4 parts would otherwise add 35.
bool InitMayRepeat(const Instruction& reduce) {
  const std::optional<MatchedReducer> m = MatchReducer(*reduce.to_apply());
  if (!m.has_value()) return false;
  if (m->opcode != HloOpcode::kAdd && m->opcode != HloOpcode::kMultiply) {
    return true;
  }
  const Instruction& init = *reduce.operand(1);
  if (init.opcode() != HloOpcode::kConstant || !init.shape().IsScalar()) {
    return false;
  }
  const double identity = m->opcode == HloOpcode::kAdd ? 0.0 : 1.0;
  return init.literal().GetAsDouble({}) == identity;  // -0 counts as 0
}

}  // namespace

absl::StatusOr<bool> ReductionSplitter::Run(Module& module) {
  bool changed = false;
  for (Computation* c : module.computations()) {
    for (Instruction* r : c->MakeInstructionPostOrder()) {
      if (r->opcode() != HloOpcode::kReduce || r->operand_count() != 2 ||
          !r->shape().IsArray()) {
        continue;
      }
      Instruction* x = r->mutable_operand(0);
      const Shape& xs = x->shape();
      if (!RowMajor(xs) || !RowMajor(r->shape()) || LayoutUtil::IsTiled(xs)) {
        continue;
      }
      // The reduced dimensions must be 0 .. k-1.
      std::vector<int64_t> dims(r->dimensions().begin(), r->dimensions().end());
      std::sort(dims.begin(), dims.end());
      bool leading = true;
      for (size_t i = 0; i < dims.size(); ++i)
        leading &= dims[i] == static_cast<int64_t>(i);
      if (!leading || dims.empty() || !InitMayRepeat(*r)) continue;
      int64_t reduced = 1;
      for (int64_t d : dims) reduced *= xs.dimensions(d);
      const int64_t kept = ShapeUtil::ElementsIn(r->shape());
      if (reduced < options_.min_reduced || kept > options_.max_result ||
          kept == 0) {
        continue;
      }
      int64_t parts = options_.parts;
      if (options_.balanced) {
        parts = static_cast<int64_t>(std::ceil(std::sqrt(reduced)));
      } else {
        while (parts > 1 && reduced % parts != 0) parts /= 2;
      }
      if (parts < 2) continue;
      const int64_t per_part = (reduced + parts - 1) / parts;
      const PrimitiveType t = xs.element_type();
      std::vector<int64_t> kept_dims(xs.dimensions().begin() + dims.size(),
                                     xs.dimensions().end());
      // x -> [R, K...] -> (padded with the init to [P·R/P, K...]) ->
      // [P, R/P, K...]
      std::vector<int64_t> flat = {reduced};
      flat.insert(flat.end(), kept_dims.begin(), kept_dims.end());
      Instruction* source = x;
      if (parts * per_part != reduced) {
        source = c->AddInstruction(Instruction::Create(
            HloOpcode::kReshape, RowMajorShape(t, flat), {x}));
        InstructionAttrs pad_attrs;
        PaddingConfig padding;
        padding.dimensions.resize(flat.size());
        padding.dimensions[0].edge_padding_high = parts * per_part - reduced;
        pad_attrs.padding_config = std::move(padding);
        flat[0] = parts * per_part;
        source = c->AddInstruction(
            Instruction::Create(HloOpcode::kPad, RowMajorShape(t, flat),
                                {source, r->mutable_operand(1)}, pad_attrs));
      }
      std::vector<int64_t> split = {parts, per_part};
      split.insert(split.end(), kept_dims.begin(), kept_dims.end());
      Instruction* reshaped = c->AddInstruction(Instruction::Create(
          HloOpcode::kReshape, RowMajorShape(t, split), {source}));
      std::vector<int64_t> partial_dims = {parts};
      partial_dims.insert(partial_dims.end(), kept_dims.begin(),
                          kept_dims.end());
      InstructionAttrs inner_attrs;
      inner_attrs.dimensions = {1};
      Instruction* partial = c->AddInstruction(Instruction::Create(
          HloOpcode::kReduce, RowMajorShape(t, partial_dims),
          {reshaped, r->mutable_operand(1)}, inner_attrs, {r->to_apply()}));
      InstructionAttrs outer_attrs;
      outer_attrs.dimensions = {0};
      Instruction* total = c->AddInstruction(Instruction::Create(
          HloOpcode::kReduce, r->shape(), {partial, r->mutable_operand(1)},
          outer_attrs, {r->to_apply()}));
      if (absl::Status s = r->ReplaceAllUsesWith(total); !s.ok()) return s;
      if (absl::Status s = c->RemoveInstruction(r); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa::backend
