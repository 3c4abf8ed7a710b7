#include "core/passes/ragged_dot_rewriter.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "core/infer/shape_inference.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

using shape_inference::RaggedDotMode;

std::vector<int64_t> Shifted(absl::Span<const int64_t> dims) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d + 1);
  return out;
}

// The group bounds of every group_sizes row as s64 arrays of group_sizes'
// shape: {starts, ends}, ends the inclusive running sum along the groups.
struct Bounds {
  Instruction* starts;
  Instruction* ends;
};

absl::StatusOr<Bounds> GroupBounds(Computation* c, Instruction* group_sizes) {
  const Shape& s = group_sizes->shape();
  const int64_t rank = s.rank();
  const int64_t groups = s.dimensions(rank - 1);
  Instruction* sizes = group_sizes;
  if (s.element_type() != PrimitiveType::S64) {
    Shape s64 = ShapeUtil::MakeShape(PrimitiveType::S64, s.dimensions());
    PLEXA_ASSIGN_OR_RETURN(sizes, AddInstruction(c, HloOpcode::kConvert,
                                                 {group_sizes}, {}, {}, &s64));
  }
  PLEXA_ASSIGN_OR_RETURN(Instruction * zero,
                         AddScalarConstant(c, PrimitiveType::S64, 0));
  // A cumulative sum as a reduce-window (JAX's cumsum): a window of all the
  // groups, padded below by all but one.
  InstructionAttrs w;
  w.window.emplace();
  for (int64_t d = 0; d < rank; ++d) {
    WindowDimension wd;
    if (d == rank - 1) {
      wd.size = groups;
      wd.padding_low = groups - 1;
    }
    w.window->dimensions.push_back(wd);
  }
  Computation* add = AddScalarBinaryComputation(c->parent(), HloOpcode::kAdd,
                                                PrimitiveType::S64);
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * ends,
      AddInstruction(c, HloOpcode::kReduceWindow, {sizes, zero}, w, {add}));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * starts,
      AddInstruction(c, HloOpcode::kSubtract, {ends, sizes}));
  return Bounds{starts, ends};
}

// `x` with a leading group dimension, zero outside each group along its
// ragged dimension `ragged`; `prefix` are x's dimensions that index the
// group_sizes rows (empty when group_sizes is [g]).
absl::StatusOr<Instruction*> MaskedByGroup(Computation* c, Instruction* x,
                                           int64_t ragged,
                                           absl::Span<const int64_t> prefix,
                                           const Bounds& bounds) {
  const Shape& gs = bounds.ends->shape();
  const int64_t groups = gs.dimensions(gs.rank() - 1);
  std::vector<int64_t> dims = {groups};
  for (int64_t d : x->shape().dimensions()) dims.push_back(d);

  // Where each group_sizes dimension lands in [g, x...]: the groups in
  // front, a prefix dimension at its x dimension. Broadcast dimensions must
  // increase, so the bounds are transposed into that order first.
  std::vector<int64_t> target(gs.rank());
  target[gs.rank() - 1] = 0;
  if (gs.rank() > 1) {
    for (size_t i = 0; i < prefix.size(); ++i) target[i] = prefix[i] + 1;
  }
  std::vector<int64_t> perm(gs.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(),
            [&](int64_t a, int64_t b) { return target[a] < target[b]; });
  std::vector<int64_t> sorted_target;
  for (int64_t p : perm) sorted_target.push_back(target[p]);
  auto spread = [&](Instruction* v) -> absl::StatusOr<Instruction*> {
    InstructionAttrs t;
    t.dimensions = perm;
    PLEXA_ASSIGN_OR_RETURN(Instruction * moved,
                           AddInstruction(c, HloOpcode::kTranspose, {v}, t));
    return AddBroadcast(c, moved, dims, sorted_target);
  };
  PLEXA_ASSIGN_OR_RETURN(Instruction * starts, spread(bounds.starts));
  PLEXA_ASSIGN_OR_RETURN(Instruction * ends, spread(bounds.ends));

  InstructionAttrs io;
  io.iota_dimension = ragged + 1;
  const Shape index_shape = ShapeUtil::MakeShape(PrimitiveType::S64, dims);
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * index,
      AddInstruction(c, HloOpcode::kIota, {}, io, {}, &index_shape));
  InstructionAttrs le, lt;
  le.comparison_direction = ComparisonDirection::kLe;
  lt.comparison_direction = ComparisonDirection::kLt;
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * after_start,
      AddInstruction(c, HloOpcode::kCompare, {starts, index}, le));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * before_end,
      AddInstruction(c, HloOpcode::kCompare, {index, ends}, lt));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * in_group,
      AddInstruction(c, HloOpcode::kAnd, {after_start, before_end}));

  std::vector<int64_t> shifted(x->shape().rank());
  std::iota(shifted.begin(), shifted.end(), 1);
  PLEXA_ASSIGN_OR_RETURN(Instruction * wide, AddBroadcast(c, x, dims, shifted));
  PLEXA_ASSIGN_OR_RETURN(Instruction * zero,
                         AddScalarConstant(c, x->shape().element_type(), 0));
  PLEXA_ASSIGN_OR_RETURN(Instruction * zeros, AddBroadcast(c, zero, dims, {}));
  return AddInstruction(c, HloOpcode::kSelect, {in_group, wide, zeros});
}

absl::StatusOr<Instruction*> Rewrite(Instruction* rd) {
  Computation* c = rd->parent();
  const InstructionAttrs& a = rd->attrs();
  const DotDimensionNumbers& dn = *a.dot_dimension_numbers;
  Instruction* lhs = rd->mutable_operand(0);
  Instruction* rhs = rd->mutable_operand(1);
  Instruction* group_sizes = rd->mutable_operand(2);
  const int64_t ragged = a.lhs_ragged_dimensions[0];
  const RaggedDotMode mode = shape_inference::GetRaggedDotMode(dn, ragged);
  const std::vector<int64_t> prefix =
      shape_inference::RaggedDotGroupSizesPrefix(dn, ragged,
                                                 lhs->shape().rank());

  InstructionAttrs dot;
  dot.dot_dimension_numbers.emplace();
  DotDimensionNumbers& d = *dot.dot_dimension_numbers;
  Instruction* l = lhs;
  Instruction* r = rhs;
  switch (mode) {
    case RaggedDotMode::kBatch:
      d = dn;
      break;
    case RaggedDotMode::kNonContracting: {
      PLEXA_ASSIGN_OR_RETURN(Bounds b, GroupBounds(c, group_sizes));
      PLEXA_ASSIGN_OR_RETURN(l, MaskedByGroup(c, lhs, ragged, prefix, b));
      // The new group dimension contracts with the rhs group dimension.
      d.lhs_batch_dimensions = Shifted(dn.lhs_batch_dimensions);
      d.rhs_batch_dimensions = dn.rhs_batch_dimensions;
      d.lhs_contracting_dimensions = {0};
      for (int64_t x : Shifted(dn.lhs_contracting_dimensions)) {
        d.lhs_contracting_dimensions.push_back(x);
      }
      d.rhs_contracting_dimensions = {a.rhs_group_dimensions[0]};
      for (int64_t x : dn.rhs_contracting_dimensions) {
        d.rhs_contracting_dimensions.push_back(x);
      }
      break;
    }
    case RaggedDotMode::kContracting: {
      PLEXA_ASSIGN_OR_RETURN(Bounds b, GroupBounds(c, group_sizes));
      // The rhs's ragged and prefix dimensions are the lhs's partners.
      auto partner = [&](int64_t lhs_dim) {
        for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
          if (dn.lhs_batch_dimensions[i] == lhs_dim) {
            return dn.rhs_batch_dimensions[i];
          }
        }
        for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
          if (dn.lhs_contracting_dimensions[i] == lhs_dim) {
            return dn.rhs_contracting_dimensions[i];
          }
        }
        return int64_t{-1};  // unreachable: prefix dims are batch/contracting
      };
      std::vector<int64_t> rhs_prefix;
      for (int64_t p : prefix) rhs_prefix.push_back(partner(p));
      PLEXA_ASSIGN_OR_RETURN(l, MaskedByGroup(c, lhs, ragged, prefix, b));
      PLEXA_ASSIGN_OR_RETURN(
          r, MaskedByGroup(c, rhs, partner(ragged), rhs_prefix, b));
      // The group dimension is a leading batch dimension of both.
      d.lhs_batch_dimensions = {0};
      d.rhs_batch_dimensions = {0};
      for (int64_t x : Shifted(dn.lhs_batch_dimensions)) {
        d.lhs_batch_dimensions.push_back(x);
      }
      for (int64_t x : Shifted(dn.rhs_batch_dimensions)) {
        d.rhs_batch_dimensions.push_back(x);
      }
      d.lhs_contracting_dimensions = Shifted(dn.lhs_contracting_dimensions);
      d.rhs_contracting_dimensions = Shifted(dn.rhs_contracting_dimensions);
      break;
    }
  }
  dot.backend_config = a.backend_config;
  dot.opaque = a.opaque;
  // The declared shape carries the result (preferred) element type.
  return AddInstruction(c, HloOpcode::kDot, {l, r}, std::move(dot), {},
                        &rd->shape());
}

}  // namespace

absl::StatusOr<bool> RaggedDotRewriter::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* rd : c->MakeInstructionPostOrder()) {
      if (rd->opcode() != HloOpcode::kRaggedDot) continue;
      // What the verifier would refuse is left for it to name; dynamic
      // shapes and an empty group list (a window of size 0) stay too.
      if (!shape_inference::InferInstructionShape(*rd).ok() ||
          rd->shape().is_dynamic() || rd->operand(0)->shape().is_dynamic() ||
          rd->operand(1)->shape().is_dynamic() ||
          rd->operand(2)->shape().is_dynamic()) {
        continue;
      }
      const Shape& gs = rd->operand(2)->shape();
      if (gs.dimensions(gs.rank() - 1) == 0) continue;
      PLEXA_ASSIGN_OR_RETURN(Instruction * dot, Rewrite(rd));
      *dot->mutable_shape() = rd->shape();
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(rd, dot, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
