#include "core/passes/algebraic_simplifier.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {

namespace {

bool IsIota(absl::Span<const int64_t> v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> v(std::max<int64_t>(0, end - begin));
  std::iota(v.begin(), v.end(), begin);
  return v;
}

// Dimensions of a dot operand that are neither batch nor contracting, in
// increasing order.
std::vector<int64_t> FreeDimensions(int64_t rank,
                                    absl::Span<const int64_t> batch,
                                    absl::Span<const int64_t> contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) ==
            contracting.end()) {
      free.push_back(d);
    }
  }
  return free;
}

bool SameIgnoringLayout(const Shape& a, const Shape& b) {
  return Shape::Equal().IgnoreLayout()(a, b);
}

class Simplifier {
 public:
  explicit Simplifier(const AlgebraicSimplifier::Options& options)
      : options_(options) {}

  absl::StatusOr<bool> Visit(Instruction* inst);

 private:
  // Replaces `old` by an instruction that already exists.
  absl::StatusOr<bool> UseExisting(Instruction* old, Instruction* existing);
  // Replaces `old` by a new instruction computing the same value; the new
  // one takes `old`'s shape (so its layout).
  absl::StatusOr<bool> UseNew(Instruction* old,
                              absl::StatusOr<Instruction*> created);
  // A copy of `dot` with other operands and dimension numbers (same shape).
  Instruction* NewDot(Instruction* dot, Instruction* lhs, Instruction* rhs,
                      DotDimensionNumbers dnums);

  absl::StatusOr<bool> HandleAdd(Instruction* inst);
  absl::StatusOr<bool> HandleMultiply(Instruction* inst);
  absl::StatusOr<bool> HandleAndOr(Instruction* inst);
  absl::StatusOr<bool> HandleSelect(Instruction* inst);
  absl::StatusOr<bool> HandleReshape(Instruction* inst);
  absl::StatusOr<bool> HandleTranspose(Instruction* inst);
  absl::StatusOr<bool> HandleBroadcast(Instruction* inst);
  absl::StatusOr<bool> HandleSlice(Instruction* inst);
  absl::StatusOr<bool> HandlePad(Instruction* inst);
  absl::StatusOr<bool> HandleReverse(Instruction* inst);
  absl::StatusOr<bool> HandleCopy(Instruction* inst);
  absl::StatusOr<bool> HandleGather(Instruction* inst);
  absl::StatusOr<bool> HandleDot(Instruction* inst);
  absl::StatusOr<bool> FoldTransposeIntoDot(Instruction* dot, int64_t side);
  absl::StatusOr<bool> CanonicalizeDot(Instruction* dot);

  const AlgebraicSimplifier::Options& options_;
  SideEffects side_effects_;
};

absl::StatusOr<bool> Simplifier::UseExisting(Instruction* old,
                                             Instruction* existing) {
  if (!SameIgnoringLayout(old->shape(), existing->shape())) return false;
  if (!(old->shape() == existing->shape()) &&
      (options_.is_layout_sensitive || LayoutIsObserved(*old))) {
    // Before layout assignment layouts are free, except where a bitcast
    // reads the bytes: a copy that changes the layout under a bitcast
    // changes what the bitcast means, so it stays.
    return false;
  }
  absl::Status s = ReplaceInstruction(old, existing, &side_effects_);
  if (!s.ok()) return s;
  return true;
}

absl::StatusOr<bool> Simplifier::UseNew(Instruction* old,
                                        absl::StatusOr<Instruction*> created) {
  // Rewrites only build instructions that shape inference accepts for
  // operands of a verified module; a refusal is a bug in the rewrite.
  if (!created.ok()) {
    return absl::InternalError(absl::StrCat("algebraic simplifier: rewriting ",
                                            old->name(), ": ",
                                            created.status().message()));
  }
  Instruction* fresh = *created;
  if (!SameIgnoringLayout(old->shape(), fresh->shape())) {
    return absl::InternalError(absl::StrCat(
        "algebraic simplifier: the rewrite of ", old->name(), " has shape ",
        fresh->shape().ToString(), " instead of ", old->shape().ToString()));
  }
  *fresh->mutable_shape() = old->shape();
  absl::Status s = ReplaceInstruction(old, fresh, &side_effects_);
  if (!s.ok()) return s;
  return true;
}

absl::StatusOr<bool> Simplifier::Visit(Instruction* inst) {
  // Dynamic dimensions would have to be tracked through every rewrite;
  // such instructions are left alone.
  if (inst->shape().is_dynamic()) return false;
  for (const Instruction* op : inst->operands()) {
    if (op->shape().is_dynamic()) return false;
  }
  switch (inst->opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
      return HandleAdd(inst);
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
      return HandleMultiply(inst);
    case HloOpcode::kNegate:
    case HloOpcode::kNot:
      // f(f(x)) = x for these involutions.
      if (inst->operand(0)->opcode() == inst->opcode()) {
        return UseExisting(inst, inst->mutable_operand(0)->mutable_operand(0));
      }
      return false;
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
      return HandleAndOr(inst);
    case HloOpcode::kSelect:
      return HandleSelect(inst);
    case HloOpcode::kConvert:
      if (inst->operand(0)->shape().element_type() ==
          inst->shape().element_type()) {
        return UseExisting(inst, inst->mutable_operand(0));
      }
      return false;
    case HloOpcode::kReshape:
      return HandleReshape(inst);
    case HloOpcode::kTranspose:
      return HandleTranspose(inst);
    case HloOpcode::kBroadcast:
      return HandleBroadcast(inst);
    case HloOpcode::kSlice:
      return HandleSlice(inst);
    case HloOpcode::kConcatenate:
      if (inst->operand_count() == 1) {
        return UseExisting(inst, inst->mutable_operand(0));
      }
      return false;
    case HloOpcode::kPad:
      return HandlePad(inst);
    case HloOpcode::kReverse:
      return HandleReverse(inst);
    case HloOpcode::kCopy:
      return HandleCopy(inst);
    case HloOpcode::kGather:
      return HandleGather(inst);
    case HloOpcode::kDot:
      // A sparse dot's metadata operand ties it to its operands' layout:
      // the sparse-dot-expander rewrites it first.
      if (!inst->attrs().dot_sparsity.empty()) return false;
      return HandleDot(inst);
    default:
      return false;
  }
}

absl::StatusOr<bool> Simplifier::HandleAdd(Instruction* inst) {
  // x + 0, x - 0 -> x; 0 + x -> x (see the header on -0).
  if (IsAllEqualTo(*inst->operand(1), 0)) {
    return UseExisting(inst, inst->mutable_operand(0));
  }
  if (inst->opcode() == HloOpcode::kAdd && IsAllEqualTo(*inst->operand(0), 0)) {
    return UseExisting(inst, inst->mutable_operand(1));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleMultiply(Instruction* inst) {
  // x * 1, x / 1 -> x; 1 * x -> x.
  if (IsAllEqualTo(*inst->operand(1), 1)) {
    return UseExisting(inst, inst->mutable_operand(0));
  }
  if (inst->opcode() == HloOpcode::kMultiply &&
      IsAllEqualTo(*inst->operand(0), 1)) {
    return UseExisting(inst, inst->mutable_operand(1));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleAndOr(Instruction* inst) {
  if (inst->shape().element_type() != PRED) return false;
  // and(x, true) = x, or(x, false) = x.
  const double identity = inst->opcode() == HloOpcode::kAnd ? 1 : 0;
  if (IsAllEqualTo(*inst->operand(1), identity)) {
    return UseExisting(inst, inst->mutable_operand(0));
  }
  if (IsAllEqualTo(*inst->operand(0), identity)) {
    return UseExisting(inst, inst->mutable_operand(1));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleSelect(Instruction* inst) {
  if (IsAllEqualTo(*inst->operand(0), 1)) {
    return UseExisting(inst, inst->mutable_operand(1));
  }
  if (IsAllEqualTo(*inst->operand(0), 0)) {
    return UseExisting(inst, inst->mutable_operand(2));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleReshape(Instruction* inst) {
  Instruction* operand = inst->mutable_operand(0);
  if (inst->shape().is_dynamic() || operand->shape().is_dynamic()) {
    return false;
  }
  // To the operand's own dimensions: nothing to do.
  if (ShapeUtil::SameDimensions(inst->shape(), operand->shape())) {
    return UseExisting(inst, operand);
  }
  // reshape(reshape(x)) = reshape(x): both read x in row-major order.
  if (operand->opcode() == HloOpcode::kReshape &&
      !operand->operand(0)->shape().is_dynamic()) {
    return UseNew(inst, AddInstruction(inst->parent(), HloOpcode::kReshape,
                                       {operand->mutable_operand(0)}, {}, {},
                                       &inst->shape()));
  }
  // reshape(broadcast(scalar)) = broadcast(scalar).
  if (operand->opcode() == HloOpcode::kBroadcast &&
      operand->operand(0)->shape().rank() == 0) {
    return UseNew(inst,
                  AddBroadcast(inst->parent(), operand->mutable_operand(0),
                               inst->shape().dimensions(), {}));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleTranspose(Instruction* inst) {
  Instruction* operand = inst->mutable_operand(0);
  const absl::Span<const int64_t> perm = inst->dimensions();
  if (IsIota(perm)) return UseExisting(inst, operand);
  if (operand->opcode() == HloOpcode::kTranspose) {
    // Result dimension i is operand dimension perm[i], which is x's
    // dimension inner[perm[i]].
    const absl::Span<const int64_t> inner = operand->dimensions();
    InstructionAttrs attrs;
    for (int64_t p : perm) attrs.dimensions.push_back(inner[p]);
    Instruction* x = operand->mutable_operand(0);
    if (IsIota(attrs.dimensions)) return UseExisting(inst, x);
    return UseNew(inst, AddInstruction(inst->parent(), HloOpcode::kTranspose,
                                       {x}, std::move(attrs)));
  }
  if (operand->opcode() == HloOpcode::kBroadcast &&
      operand->operand(0)->shape().rank() == 0) {
    return UseNew(inst,
                  AddBroadcast(inst->parent(), operand->mutable_operand(0),
                               inst->shape().dimensions(), {}));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleBroadcast(Instruction* inst) {
  Instruction* operand = inst->mutable_operand(0);
  if (ShapeUtil::SameDimensions(inst->shape(), operand->shape()) &&
      IsIota(inst->dimensions()) &&
      inst->shape().dynamic_dimensions() ==
          operand->shape().dynamic_dimensions()) {
    return UseExisting(inst, operand);
  }
  if (operand->opcode() == HloOpcode::kBroadcast) {
    // x's dimension j is the inner result's dimension inner[j], which is
    // our dimension outer[inner[j]].
    std::vector<int64_t> dims;
    for (int64_t d : operand->dimensions()) dims.push_back(inst->dimensions(d));
    return UseNew(inst,
                  AddBroadcast(inst->parent(), operand->mutable_operand(0),
                               inst->shape().dimensions(), dims));
  }
  return false;
}

absl::StatusOr<bool> Simplifier::HandleSlice(Instruction* inst) {
  Instruction* operand = inst->mutable_operand(0);
  if (operand->shape().is_dynamic()) return false;
  const std::vector<SliceDimension>& slice = inst->attrs().slice;
  bool full = true;
  for (size_t d = 0; d < slice.size(); ++d) {
    full &= slice[d].start == 0 && slice[d].stride == 1 &&
            slice[d].limit == operand->shape().dimensions(d);
  }
  if (full) return UseExisting(inst, operand);
  if (operand->opcode() != HloOpcode::kSlice) return false;
  // Element j of the outer slice is inner element s2 + j*t2, which is x's
  // element s1 + (s2 + j*t2)*t1.
  const std::vector<SliceDimension>& inner = operand->attrs().slice;
  InstructionAttrs attrs;
  for (size_t d = 0; d < slice.size(); ++d) {
    const SliceDimension& o = slice[d];
    const SliceDimension& i = inner[d];
    const int64_t count = inst->shape().dimensions(d);
    SliceDimension c;
    if (count == 0) {
      c = {0, 0, 1};
    } else {
      c.start = i.start + o.start * i.stride;
      c.stride = i.stride * o.stride;
      c.limit = c.start + (count - 1) * c.stride + 1;
    }
    attrs.slice.push_back(c);
  }
  return UseNew(
      inst, AddInstruction(inst->parent(), HloOpcode::kSlice,
                           {operand->mutable_operand(0)}, std::move(attrs)));
}

absl::StatusOr<bool> Simplifier::HandlePad(Instruction* inst) {
  const std::optional<PaddingConfig>& config = inst->attrs().padding_config;
  if (!config.has_value()) return false;
  for (const PaddingDimension& d : config->dimensions) {
    if (d.edge_padding_low != 0 || d.edge_padding_high != 0 ||
        d.interior_padding != 0) {
      return false;
    }
  }
  return UseExisting(inst, inst->mutable_operand(0));
}

absl::StatusOr<bool> Simplifier::HandleReverse(Instruction* inst) {
  Instruction* operand = inst->mutable_operand(0);
  bool any = false;
  for (int64_t d : inst->dimensions()) any |= inst->shape().dimensions(d) > 1;
  if (!any) return UseExisting(inst, operand);
  if (operand->opcode() != HloOpcode::kReverse) return false;
  // Reversing a dimension twice restores it: keep the dimensions reversed
  // an odd number of times.
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < inst->shape().rank(); ++d) {
    const bool outer =
        std::find(inst->dimensions().begin(), inst->dimensions().end(), d) !=
        inst->dimensions().end();
    const bool in =
        std::find(operand->dimensions().begin(), operand->dimensions().end(),
                  d) != operand->dimensions().end();
    if (outer != in) dims.push_back(d);
  }
  Instruction* x = operand->mutable_operand(0);
  if (dims.empty()) return UseExisting(inst, x);
  InstructionAttrs attrs;
  attrs.dimensions = std::move(dims);
  return UseNew(inst, AddInstruction(inst->parent(), HloOpcode::kReverse, {x},
                                     std::move(attrs)));
}

absl::StatusOr<bool> Simplifier::HandleCopy(Instruction* inst) {
  // A copy is a value-level identity. Once layouts are assigned it is how
  // a layout changes, so it stays unless the layouts already agree
  // (UseExisting checks that in layout-sensitive mode).
  return UseExisting(inst, inst->mutable_operand(0));
}

absl::StatusOr<bool> Simplifier::HandleGather(Instruction* inst) {
  // As XLA: a gather from an operand with no elements (or whose slices have
  // none) reads nothing, and its result is zeros.
  const Shape& operand = inst->operand(0)->shape();
  bool empty_slice = ShapeUtil::ElementsIn(operand) == 0;
  for (int64_t size : inst->attrs().gather_slice_sizes) {
    empty_slice |= size == 0;
  }
  if (!empty_slice || !inst->shape().IsArray() || inst->shape().is_dynamic()) {
    return false;
  }
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * zero,
      AddScalarConstant(inst->parent(), inst->shape().element_type(), 0));
  return UseNew(
      inst, AddBroadcast(inst->parent(), zero, inst->shape().dimensions(), {}));
}

Instruction* Simplifier::NewDot(Instruction* dot, Instruction* lhs,
                                Instruction* rhs, DotDimensionNumbers dnums) {
  InstructionAttrs attrs = dot->attrs();
  attrs.dot_dimension_numbers = std::move(dnums);
  // Named after the opcode, like every instruction a rewrite makes.
  return dot->parent()->AddInstruction(
      Instruction::Create(HloOpcode::kDot, dot->shape(), {lhs, rhs},
                          std::move(attrs), dot->called_computations()));
}

absl::StatusOr<bool> Simplifier::HandleDot(Instruction* inst) {
  if (!inst->attrs().dot_dimension_numbers.has_value()) return false;
  if (options_.fold_transpose_into_dot) {
    for (int64_t side = 0; side < 2; ++side) {
      absl::StatusOr<bool> folded = FoldTransposeIntoDot(inst, side);
      if (!folded.ok() || *folded) return folded;
    }
  }
  if (options_.canonicalize_dots) return CanonicalizeDot(inst);
  return false;
}

absl::StatusOr<bool> Simplifier::FoldTransposeIntoDot(Instruction* dot,
                                                      int64_t side) {
  Instruction* t = dot->mutable_operand(side);
  if (t->opcode() != HloOpcode::kTranspose) return false;
  const DotDimensionNumbers& dn = *dot->attrs().dot_dimension_numbers;
  const std::vector<int64_t>& batch =
      side == 0 ? dn.lhs_batch_dimensions : dn.rhs_batch_dimensions;
  const std::vector<int64_t>& contracting =
      side == 0 ? dn.lhs_contracting_dimensions : dn.rhs_contracting_dimensions;
  const absl::Span<const int64_t> perm = t->dimensions();
  // Operand dimension d is dimension perm[d] of the transpose's operand.
  // The free dimensions must stay in increasing order, or the dot's result
  // would come out permuted.
  int64_t previous = -1;
  for (int64_t d : FreeDimensions(t->shape().rank(), batch, contracting)) {
    if (perm[d] <= previous) return false;
    previous = perm[d];
  }
  DotDimensionNumbers folded = dn;
  std::vector<int64_t>& new_batch =
      side == 0 ? folded.lhs_batch_dimensions : folded.rhs_batch_dimensions;
  std::vector<int64_t>& new_contracting =
      side == 0 ? folded.lhs_contracting_dimensions
                : folded.rhs_contracting_dimensions;
  for (int64_t& d : new_batch) d = perm[d];
  for (int64_t& d : new_contracting) d = perm[d];
  Instruction* x = t->mutable_operand(0);
  Instruction* lhs = side == 0 ? x : dot->mutable_operand(0);
  Instruction* rhs = side == 1 ? x : dot->mutable_operand(1);
  if (options_.canonicalize_dots &&
      !IsCanonicalDot(folded, lhs->shape().rank(), rhs->shape().rank())) {
    return false;
  }
  return UseNew(dot, NewDot(dot, lhs, rhs, std::move(folded)));
}

absl::StatusOr<bool> Simplifier::CanonicalizeDot(Instruction* dot) {
  const DotDimensionNumbers& dn = *dot->attrs().dot_dimension_numbers;
  Instruction* lhs = dot->mutable_operand(0);
  Instruction* rhs = dot->mutable_operand(1);
  const int64_t lr = lhs->shape().rank();
  const int64_t rr = rhs->shape().rank();
  if (IsCanonicalDot(dn, lr, rr)) return false;
  const int64_t b = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  const int64_t k = static_cast<int64_t>(dn.lhs_contracting_dimensions.size());
  // lhs -> [batch, free, contracting], rhs -> [batch, contracting, free].
  std::vector<int64_t> lperm = dn.lhs_batch_dimensions;
  for (int64_t d : FreeDimensions(lr, dn.lhs_batch_dimensions,
                                  dn.lhs_contracting_dimensions)) {
    lperm.push_back(d);
  }
  lperm.insert(lperm.end(), dn.lhs_contracting_dimensions.begin(),
               dn.lhs_contracting_dimensions.end());
  std::vector<int64_t> rperm = dn.rhs_batch_dimensions;
  rperm.insert(rperm.end(), dn.rhs_contracting_dimensions.begin(),
               dn.rhs_contracting_dimensions.end());
  for (int64_t d : FreeDimensions(rr, dn.rhs_batch_dimensions,
                                  dn.rhs_contracting_dimensions)) {
    rperm.push_back(d);
  }
  auto transpose =
      [&](Instruction* x,
          std::vector<int64_t> perm) -> absl::StatusOr<Instruction*> {
    if (IsIota(perm)) return x;
    InstructionAttrs attrs;
    attrs.dimensions = std::move(perm);
    return AddInstruction(dot->parent(), HloOpcode::kTranspose, {x},
                          std::move(attrs));
  };
  absl::StatusOr<Instruction*> new_lhs = transpose(lhs, std::move(lperm));
  if (!new_lhs.ok()) return new_lhs.status();
  absl::StatusOr<Instruction*> new_rhs = transpose(rhs, std::move(rperm));
  if (!new_rhs.ok()) return new_rhs.status();
  DotDimensionNumbers canonical;
  canonical.lhs_batch_dimensions = Range(0, b);
  canonical.rhs_batch_dimensions = Range(0, b);
  canonical.lhs_contracting_dimensions = Range(lr - k, lr);
  canonical.rhs_contracting_dimensions = Range(b, b + k);
  return UseNew(dot, NewDot(dot, *new_lhs, *new_rhs, std::move(canonical)));
}

}  // namespace

bool IsCanonicalDot(const DotDimensionNumbers& dn, int64_t lhs_rank,
                    int64_t rhs_rank) {
  const int64_t b = static_cast<int64_t>(dn.lhs_batch_dimensions.size());
  const int64_t k = static_cast<int64_t>(dn.lhs_contracting_dimensions.size());
  (void)rhs_rank;
  return dn.lhs_batch_dimensions == Range(0, b) &&
         dn.rhs_batch_dimensions == Range(0, b) &&
         dn.lhs_contracting_dimensions == Range(lhs_rank - k, lhs_rank) &&
         dn.rhs_contracting_dimensions == Range(b, b + k);
}

absl::StatusOr<bool> AlgebraicSimplifier::Run(Module& module) {
  bool changed = false;
  Simplifier simplifier(options_);
  for (Computation* c : module.MakeComputationPostOrder()) {
    // A rewrite removes only the visited instruction and operands of it
    // (which come earlier in the post order), so the rest of the list
    // stays valid.
    for (Instruction* inst : c->MakeInstructionPostOrder()) {
      absl::StatusOr<bool> r = simplifier.Visit(inst);
      if (!r.ok()) return r.status();
      changed |= *r;
    }
  }
  return changed;
}

}  // namespace plexa
