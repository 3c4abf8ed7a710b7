#include "core/passes/sparse_dot_expander.h"

#include <numeric>
#include <vector>

#include "core/infer/shape_inference.h"
#include "core/ir/sparse_dot.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

absl::StatusOr<Instruction*> Transposed(Computation* c, Instruction* x,
                                        const std::vector<int64_t>& perm) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity &= perm[i] == int64_t(i);
  if (identity) return x;
  InstructionAttrs t;
  t.dimensions = perm;
  return AddInstruction(c, HloOpcode::kTranspose, {x}, t);
}

absl::StatusOr<Instruction*> Reshaped(Computation* c, Instruction* x,
                                      PrimitiveType type,
                                      const std::vector<int64_t>& dims) {
  const Shape s = ShapeUtil::MakeShape(type, dims);
  return AddInstruction(c, HloOpcode::kReshape, {x}, {}, {}, &s);
}

absl::StatusOr<Instruction*> Iota(Computation* c, PrimitiveType type,
                                  const std::vector<int64_t>& dims,
                                  int64_t dimension) {
  InstructionAttrs a;
  a.iota_dimension = dimension;
  const Shape s = ShapeUtil::MakeShape(type, dims);
  return AddInstruction(c, HloOpcode::kIota, {}, a, {}, &s);
}

absl::StatusOr<Instruction*> Splat(Computation* c, PrimitiveType type,
                                   double value,
                                   const std::vector<int64_t>& dims) {
  PLEXA_ASSIGN_OR_RETURN(Instruction * scalar,
                         AddScalarConstant(c, type, value));
  return AddBroadcast(c, scalar, dims, {});
}

// The dense values of `x`, stored sparse under `d` with metadata `meta`.
absl::StatusOr<Instruction*> Decompressed(Computation* c, Instruction* x,
                                          Instruction* meta,
                                          const SparsityDescriptor& d) {
  const Shape& xs = x->shape();
  const PrimitiveType type = xs.element_type();
  const PrimitiveType u16 = sparse_dot::kMetadataType;
  const int64_t rank = xs.rank();
  const int64_t bits = sparse_dot::IndexBits(d.m);
  const int64_t per = sparse_dot::PositionsPerElement(d.m);
  const int64_t stored = xs.dimensions(d.dimension);
  const int64_t groups = stored / d.n;

  // The sparse dimension last.
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != d.dimension) perm.push_back(i);
  }
  perm.push_back(d.dimension);
  std::vector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i) inverse[perm[i]] = i;
  PLEXA_ASSIGN_OR_RETURN(Instruction * xt, Transposed(c, x, perm));
  PLEXA_ASSIGN_OR_RETURN(Instruction * mt, Transposed(c, meta, perm));
  std::vector<int64_t> prefix(xt->shape().dimensions().begin(),
                              xt->shape().dimensions().end() - 1);
  auto with = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> dims = prefix;
    dims.insert(dims.end(), tail);
    return dims;
  };
  // Broadcasts that add one trailing dimension keep the others in place.
  std::vector<int64_t> keep(rank);
  std::iota(keep.begin(), keep.end(), 0);
  std::vector<int64_t> keep_grouped(rank + 1);
  std::iota(keep_grouped.begin(), keep_grouped.end(), 0);

  // One position per stored value: [.., words, per] -> [.., stored].
  const int64_t words = mt->shape().dimensions(rank - 1);
  const std::vector<int64_t> unpacked = with({words, per});
  PLEXA_ASSIGN_OR_RETURN(Instruction * wide,
                         AddBroadcast(c, mt, unpacked, keep));
  PLEXA_ASSIGN_OR_RETURN(Instruction * slot, Iota(c, u16, unpacked, rank));
  PLEXA_ASSIGN_OR_RETURN(Instruction * width,
                         Splat(c, u16, static_cast<double>(bits), unpacked));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * shift,
      AddInstruction(c, HloOpcode::kMultiply, {slot, width}));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * shifted,
      AddInstruction(c, HloOpcode::kShiftRightLogical, {wide, shift}));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * mask,
      Splat(c, u16, static_cast<double>((int64_t{1} << bits) - 1), unpacked));
  PLEXA_ASSIGN_OR_RETURN(Instruction * pos,
                         AddInstruction(c, HloOpcode::kAnd, {shifted, mask}));
  PLEXA_ASSIGN_OR_RETURN(pos, Reshaped(c, pos, u16, with({words * per})));
  if (words * per != stored) {
    InstructionAttrs s;
    for (int64_t dim : pos->shape().dimensions()) {
      s.slice.push_back(SliceDimension{0, dim, 1});
    }
    s.slice.back().limit = stored;
    PLEXA_ASSIGN_OR_RETURN(pos, AddInstruction(c, HloOpcode::kSlice, {pos}, s));
  }
  PLEXA_ASSIGN_OR_RETURN(pos, Reshaped(c, pos, u16, with({groups, d.n})));

  // Each stored value where its position says, summed over the group.
  const std::vector<int64_t> spread = with({groups, d.n, d.m});
  PLEXA_ASSIGN_OR_RETURN(Instruction * pos_wide,
                         AddBroadcast(c, pos, spread, keep_grouped));
  PLEXA_ASSIGN_OR_RETURN(Instruction * target, Iota(c, u16, spread, rank + 1));
  InstructionAttrs eq;
  eq.comparison_direction = ComparisonDirection::kEq;
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * here,
      AddInstruction(c, HloOpcode::kCompare, {pos_wide, target}, eq));
  PLEXA_ASSIGN_OR_RETURN(Instruction * values,
                         Reshaped(c, xt, type, with({groups, d.n})));
  PLEXA_ASSIGN_OR_RETURN(Instruction * values_wide,
                         AddBroadcast(c, values, spread, keep_grouped));
  PLEXA_ASSIGN_OR_RETURN(Instruction * zeros, Splat(c, type, 0, spread));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * placed,
      AddInstruction(c, HloOpcode::kSelect, {here, values_wide, zeros}));
  PLEXA_ASSIGN_OR_RETURN(Instruction * zero, AddScalarConstant(c, type, 0));
  InstructionAttrs r;
  r.dimensions = {rank};
  Computation* add = AddScalarBinaryComputation(
      c->parent(),
      type == PrimitiveType::PRED ? HloOpcode::kOr : HloOpcode::kAdd, type);
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * dense,
      AddInstruction(c, HloOpcode::kReduce, {placed, zero}, r, {add}));
  PLEXA_ASSIGN_OR_RETURN(dense, Reshaped(c, dense, type, with({groups * d.m})));
  return Transposed(c, dense, inverse);
}

}  // namespace

absl::StatusOr<bool> SparseDotExpander::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* dot : c->MakeInstructionPostOrder()) {
      if (dot->opcode() != HloOpcode::kDot ||
          dot->attrs().dot_sparsity.empty()) {
        continue;
      }
      // What the verifier would refuse is left for it to name, and a
      // layout of positions no u16 holds for the evaluator to refuse.
      if (!shape_inference::InferInstructionShape(*dot).ok()) continue;
      const InstructionAttrs& a = dot->attrs();
      bool packs = true;
      for (const SparsityDescriptor& d : a.dot_sparsity) {
        packs &= sparse_dot::PositionsPerElement(d.m) != 0;
      }
      if (!packs) continue;
      Instruction* operands[2] = {dot->mutable_operand(0),
                                  dot->mutable_operand(1)};
      for (size_t i = 0; i < a.dot_sparsity.size(); ++i) {
        const SparsityDescriptor& d = a.dot_sparsity[i];
        PLEXA_ASSIGN_OR_RETURN(
            operands[d.index],
            Decompressed(c, operands[d.index], dot->mutable_operand(2 + i), d));
      }
      InstructionAttrs dense = a;
      dense.dot_sparsity.clear();
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * replacement,
          AddInstruction(c, HloOpcode::kDot, {operands[0], operands[1]},
                         std::move(dense), {}, &dot->shape()));
      *replacement->mutable_shape() = dot->shape();
      PLEXA_RETURN_IF_ERROR(
          ReplaceInstruction(dot, replacement, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
