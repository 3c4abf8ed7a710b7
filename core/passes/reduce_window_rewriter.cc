#include "core/passes/reduce_window_rewriter.h"

#include <optional>
#include <utility>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/module.h"
#include "core/ir/reducer.h"
#include "core/ir/window_util.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

struct Scan {
  int64_t dim = 0;
  bool reverse = false;  // element i reduces i..N-1
};

// The scan `rw` computes, when it is one this pass rewrites.
std::optional<Scan> MatchScan(const Instruction& rw, int64_t base) {
  if (rw.opcode() != HloOpcode::kReduceWindow || rw.operand_count() != 2 ||
      !rw.shape().IsArray() || !rw.attrs().window.has_value() ||
      rw.to_apply() == nullptr) {
    return std::nullopt;
  }
  const Shape& xs = rw.operand(0)->shape();
  if (!xs.IsArray() || !ShapeUtil::SameDimensions(xs, rw.shape())) {
    return std::nullopt;
  }
  const std::vector<WindowDimension>& window = WindowOf(rw).dimensions;
  if (static_cast<int64_t>(window.size()) != xs.rank()) return std::nullopt;
  std::optional<Scan> scan;
  for (int64_t d = 0; d < xs.rank(); ++d) {
    const WindowDimension& w = window[d];
    if (w.stride != 1 || w.window_dilation != 1 || w.base_dilation != 1 ||
        w.window_reversal) {
      return std::nullopt;
    }
    if (w.size == 1 && w.padding_low == 0 && w.padding_high == 0) continue;
    const int64_t n = xs.dimensions(d);
    if (scan.has_value() || w.size != n || n <= base) return std::nullopt;
    if (w.padding_low == n - 1 && w.padding_high == 0) {
      scan = Scan{d, false};
    } else if (w.padding_low == 0 && w.padding_high == n - 1) {
      scan = Scan{d, true};
    } else {
      return std::nullopt;
    }
  }
  if (!scan.has_value() || !InitMayRepeat(*rw.to_apply(), *rw.operand(1))) {
    return std::nullopt;
  }
  return scan;
}

class ScanRewrite {
 public:
  ScanRewrite(Computation* c, Instruction* rw, Scan scan, int64_t block)
      : c_(c),
        rw_(rw),
        scan_(scan),
        block_(block),
        type_(rw->shape().element_type()) {}

  // The replacement of rw; `outer` gets the scan of the blocks' totals (a
  // reduce-window the pass may rewrite again).
  Instruction* Build(Instruction** outer) {
    Instruction* x = rw_->mutable_operand(0);
    Instruction* init = rw_->mutable_operand(1);
    const int64_t d = scan_.dim;
    const std::vector<int64_t> dims(x->shape().dimensions().begin(),
                                    x->shape().dimensions().end());
    const int64_t n = dims[d];
    const int64_t m = (n + block_ - 1) / block_;
    const int64_t padded = m * block_;
    // x padded with the init to M·B (before it for a reverse scan, so the
    // blocks end where x ends) and split into [.., M, B, ..].
    std::vector<int64_t> padded_dims = dims;
    padded_dims[d] = padded;
    Instruction* xp = x;
    if (padded > n) {
      xp = Pad(x, init, d, padded - n, /*before=*/scan_.reverse, padded_dims);
    }
    std::vector<int64_t> split = dims;
    split[d] = m;
    split.insert(split.begin() + d + 1, block_);
    Instruction* blocks = Add(HloOpcode::kReshape, split, {xp});
    Instruction* inner = ScanOf(blocks, init, d + 1, split);
    // The blocks' totals: the last element of each block (the first, for
    // a reverse scan), scanned across blocks.
    std::vector<SliceDimension> at(split.size());
    for (size_t i = 0; i < split.size(); ++i) at[i] = {0, split[i], 1};
    const int64_t last = scan_.reverse ? 0 : block_ - 1;
    at[d + 1] = {last, last + 1, 1};
    std::vector<int64_t> one = split;
    one[d + 1] = 1;
    InstructionAttrs slice_attrs;
    slice_attrs.slice = at;
    Instruction* total_slice =
        Add(HloOpcode::kSlice, one, {inner}, slice_attrs);
    std::vector<int64_t> totals_dims = dims;
    totals_dims[d] = m;
    Instruction* totals = Add(HloOpcode::kReshape, totals_dims, {total_slice});
    *outer = ScanOf(totals, init, d, totals_dims);
    // What precedes each block: the scan of the blocks before it, the init
    // for the first.
    std::vector<int64_t> shifted_dims = totals_dims;
    shifted_dims[d] = m + 1;
    Instruction* shifted =
        Pad(*outer, init, d, 1, /*before=*/!scan_.reverse, shifted_dims);
    std::vector<SliceDimension> keep(totals_dims.size());
    for (size_t i = 0; i < totals_dims.size(); ++i) {
      keep[i] = {0, totals_dims[i], 1};
    }
    keep[d] =
        scan_.reverse ? SliceDimension{1, m + 1, 1} : SliceDimension{0, m, 1};
    InstructionAttrs keep_attrs;
    keep_attrs.slice = keep;
    Instruction* before =
        Add(HloOpcode::kSlice, totals_dims, {shifted}, keep_attrs);
    InstructionAttrs bcast_attrs;
    for (int64_t i = 0; i < static_cast<int64_t>(totals_dims.size()); ++i) {
      bcast_attrs.dimensions.push_back(i <= d ? i : i + 1);
    }
    Instruction* spread =
        Add(HloOpcode::kBroadcast, split, {before}, bcast_attrs);
    const HloOpcode op = MatchReducer(*rw_->to_apply())->opcode;
    Instruction* combined = Add(op, split, {spread, inner});
    Instruction* merged = Add(HloOpcode::kReshape, padded_dims, {combined});
    if (padded == n) return merged;
    std::vector<SliceDimension> result(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) result[i] = {0, dims[i], 1};
    result[d] = scan_.reverse ? SliceDimension{padded - n, padded, 1}
                              : SliceDimension{0, n, 1};
    InstructionAttrs result_attrs;
    result_attrs.slice = result;
    return Add(HloOpcode::kSlice, dims, {merged}, result_attrs);
  }

 private:
  Instruction* Add(HloOpcode opcode, const std::vector<int64_t>& dims,
                   std::vector<Instruction*> operands,
                   InstructionAttrs attrs = {},
                   std::vector<Computation*> called = {}) {
    return c_->AddInstruction(
        Instruction::Create(opcode, Shape(type_, dims), std::move(operands),
                            std::move(attrs), std::move(called)));
  }

  // `x` padded by `count` init values in dimension d, before or after it.
  Instruction* Pad(Instruction* x, Instruction* init, int64_t d, int64_t count,
                   bool before, const std::vector<int64_t>& dims) {
    PaddingConfig padding;
    padding.dimensions.resize(dims.size());
    if (before) {
      padding.dimensions[d].edge_padding_low = count;
    } else {
      padding.dimensions[d].edge_padding_high = count;
    }
    InstructionAttrs attrs;
    attrs.padding_config = std::move(padding);
    return Add(HloOpcode::kPad, dims, {x, init}, std::move(attrs));
  }

  // The scan of `x` along `d` in the direction of the original.
  Instruction* ScanOf(Instruction* x, Instruction* init, int64_t d,
                      const std::vector<int64_t>& dims) {
    Window window;
    window.dimensions.resize(dims.size());
    const int64_t n = dims[d];
    window.dimensions[d].size = n;
    if (scan_.reverse) {
      window.dimensions[d].padding_high = n - 1;
    } else {
      window.dimensions[d].padding_low = n - 1;
    }
    InstructionAttrs attrs;
    attrs.window = std::move(window);
    return Add(HloOpcode::kReduceWindow, dims, {x, init}, std::move(attrs),
               {rw_->to_apply()});
  }

  Computation* c_;
  Instruction* rw_;
  Scan scan_;
  int64_t block_;
  PrimitiveType type_;
};

}  // namespace

absl::StatusOr<bool> ReduceWindowRewriter::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.computations()) {
    std::vector<Instruction*> work;
    for (Instruction* h : c->MakeInstructionPostOrder()) {
      if (MatchScan(*h, base_length_).has_value()) work.push_back(h);
    }
    while (!work.empty()) {
      Instruction* rw = work.back();
      work.pop_back();
      const std::optional<Scan> scan = MatchScan(*rw, base_length_);
      if (!scan.has_value()) continue;
      Instruction* outer = nullptr;
      Instruction* replacement =
          ScanRewrite(c, rw, *scan, base_length_).Build(&outer);
      PLEXA_RETURN_IF_ERROR(ReplaceInstruction(rw, replacement, &side_effects));
      if (MatchScan(*outer, base_length_).has_value()) work.push_back(outer);
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
