#include "plugins/common/reduction_splitter.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
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
      // The reduced dimensions must be 0 .. k-1 (or, when the options allow,
      // the last k).
      std::vector<int64_t> dims(r->dimensions().begin(), r->dimensions().end());
      std::sort(dims.begin(), dims.end());
      const int64_t rank = xs.rank();
      const int64_t k = static_cast<int64_t>(dims.size());
      bool leading = true, trailing = options_.trailing;
      for (int64_t i = 0; i < k; ++i) {
        leading &= dims[i] == i;
        trailing &= dims[i] == rank - k + i;
      }
      if (!(leading || trailing) || dims.empty() ||
          !InitMayRepeat(*r->to_apply(), *r->operand(1))) {
        continue;
      }
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
      // The kept dimensions, and where the reduced ones sit among them.
      const int64_t at = leading ? 0 : rank - k;
      std::vector<int64_t> kept_dims;
      for (int64_t d = 0; d < rank; ++d) {
        if (d < at || d >= at + k) kept_dims.push_back(xs.dimensions(d));
      }
      const auto with = [&](std::initializer_list<int64_t> middle) {
        std::vector<int64_t> out(kept_dims.begin(), kept_dims.begin() + at);
        out.insert(out.end(), middle);
        out.insert(out.end(), kept_dims.begin() + at, kept_dims.end());
        return out;
      };
      // x -> [R, K...] -> (padded with the init to [P·R/P, K...]) ->
      // [P, R/P, K...]; or the same with R last.
      Instruction* source = x;
      if (parts * per_part != reduced) {
        source = c->AddInstruction(Instruction::Create(
            HloOpcode::kReshape, RowMajorShape(t, with({reduced})), {x}));
        InstructionAttrs pad_attrs;
        PaddingConfig padding;
        padding.dimensions.resize(kept_dims.size() + 1);
        padding.dimensions[at].edge_padding_high = parts * per_part - reduced;
        pad_attrs.padding_config = std::move(padding);
        source = c->AddInstruction(Instruction::Create(
            HloOpcode::kPad, RowMajorShape(t, with({parts * per_part})),
            {source, r->mutable_operand(1)}, pad_attrs));
      }
      Instruction* reshaped = c->AddInstruction(Instruction::Create(
          HloOpcode::kReshape, RowMajorShape(t, with({parts, per_part})),
          {source}));
      InstructionAttrs inner_attrs;
      inner_attrs.dimensions = {at + 1};
      Instruction* partial = c->AddInstruction(Instruction::Create(
          HloOpcode::kReduce, RowMajorShape(t, with({parts})),
          {reshaped, r->mutable_operand(1)}, inner_attrs, {r->to_apply()}));
      InstructionAttrs outer_attrs;
      outer_attrs.dimensions = {at};
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
