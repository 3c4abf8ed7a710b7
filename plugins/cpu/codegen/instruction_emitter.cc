// An instruction's value at an index: parameters, constants, shape
// operations, reduce, reduce-window, gather and scalar computations, each
// as LLVM IR computing one element.
#include <algorithm>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/window_util.h"
#include "core/literal/literal.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/codegen/emitter_internal.h"

namespace plexa::cpu::emitter_internal {

absl::StatusOr<Value*> Emitter::EmitUncached(const Instruction& h, Index& idx) {
  const Shape& s = h.shape();
  switch (h.opcode()) {
    case HloOpcode::kParameter:
      return EmitLoad(1 + h.parameter_number(), s, idx);
    case HloOpcode::kConstant:
      return EmitConstant(h, idx);
    case HloOpcode::kReduce:
      return EmitReduce(h, idx);
    case HloOpcode::kReduceWindow:
      return EmitReduceWindow(h, idx);
    case HloOpcode::kGather:
      return EmitGather(h, idx);
    case HloOpcode::kCopy: {
      Index in = NewIndex(&h.operand(0)->shape(), Dims(idx), nullptr);
      if (SameDimsAndLayout(s, h.operand(0)->shape())) in.linear = idx.linear;
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kBroadcast: {
      const Shape& os = h.operand(0)->shape();
      std::vector<Value*> dims;
      if (os.rank() > 0) {
        const std::vector<Value*>& out = Dims(idx);
        for (int64_t k = 0; k < os.rank(); ++k) {
          dims.push_back(out[h.dimensions(k)]);
        }
      }
      Index in = NewIndex(&os, std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kReshape: {
      const Shape& os = h.operand(0)->shape();
      // Row-major linear positions agree between the two shapes.
      Value* row_major = nullptr;
      if (idx.linear != nullptr && IsRowMajor(s)) {
        row_major = idx.linear;
      } else {
        Shape rm = s;
        LayoutUtil::SetToDefaultLayout(&rm);
        row_major = LinearIn(idx, rm);
      }
      Shape os_rm = os;
      LayoutUtil::SetToDefaultLayout(&os_rm);
      Index in_rm = NewIndex(&os_rm, {}, row_major);
      if (os.rank() == 0) in_rm.dims.clear();
      Index in = NewIndex(&os, {}, nullptr);
      if (IsRowMajor(os)) {
        in.linear = row_major;
      } else {
        in.dims = Dims(in_rm);
      }
      if (os.rank() == 0) in.linear = C64(0);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kTranspose: {
      const std::vector<Value*>& out = Dims(idx);
      const Shape& os = h.operand(0)->shape();
      std::vector<Value*> dims(os.rank());
      for (int64_t i = 0; i < s.rank(); ++i) dims[h.dimensions(i)] = out[i];
      Index in = NewIndex(&os, std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kSlice: {
      const std::vector<Value*>& out = Dims(idx);
      std::vector<Value*> dims(s.rank());
      for (int64_t d = 0; d < s.rank(); ++d) {
        const SliceDimension& sd = h.attrs().slice[d];
        dims[d] =
            b_.CreateAdd(C64(sd.start), b_.CreateMul(out[d], C64(sd.stride)));
      }
      Index in = NewIndex(&h.operand(0)->shape(), std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kShuffle: {
      // mode=rotate (kernel_checks admits no other): (i + shift) mod n, the
      // shift normalized into [0, n).
      std::vector<Value*> dims = Dims(idx);
      for (size_t k = 0; k < h.attrs().dimensions.size(); ++k) {
        const int64_t d = h.attrs().dimensions[k];
        const int64_t n = s.dimensions(d);
        if (n == 0) continue;
        const int64_t shift = ((h.attrs().shuffle_shifts[k] % n) + n) % n;
        dims[d] = b_.CreateURem(b_.CreateAdd(dims[d], C64(shift)), C64(n));
      }
      Index in = NewIndex(&h.operand(0)->shape(), std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kReverse: {
      std::vector<Value*> dims = Dims(idx);
      for (int64_t d : h.dimensions()) {
        dims[d] = b_.CreateSub(C64(s.dimensions(d) - 1), dims[d]);
      }
      Index in = NewIndex(&h.operand(0)->shape(), std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      // Start indices are scalars (operands 1.. for dynamic-slice, 2.. for
      // dynamic-update-slice), clamped so the slice fits (XLA).
      const bool update = h.opcode() == HloOpcode::kDynamicUpdateSlice;
      const Shape& os = h.operand(0)->shape();
      const Shape& window = update ? h.operand(1)->shape() : s;
      const int64_t first = update ? 2 : 1;
      std::vector<Value*> starts(os.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        const Shape& is = h.operand(first + d)->shape();
        Index scalar = NewIndex(&is, {}, C64(0));
        absl::StatusOr<Value*> v = EmitOperand(h, first + d, scalar);
        if (!v.ok()) return v;
        Value* start = IndexToI64(*v, is.element_type());
        const int64_t hi = os.dimensions(d) - window.dimensions(d);
        start = b_.CreateSelect(b_.CreateICmpSLT(start, C64(0)), C64(0), start);
        starts[d] =
            b_.CreateSelect(b_.CreateICmpSGT(start, C64(hi)), C64(hi), start);
      }
      const std::vector<Value*>& out = Dims(idx);
      if (!update) {
        std::vector<Value*> dims(os.rank());
        for (int64_t d = 0; d < os.rank(); ++d) {
          dims[d] = b_.CreateAdd(out[d], starts[d]);
        }
        Index in = NewIndex(&os, std::move(dims), nullptr);
        return EmitOperand(h, 0, in);
      }
      // Inside the window: the update's element; else the operand's.
      Value* inside = b_.getTrue();
      std::vector<Value*> udims(window.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        Value* rel = b_.CreateSub(out[d], starts[d]);
        const int64_t n = window.dimensions(d);
        inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, C64(0)));
        inside = b_.CreateAnd(inside, b_.CreateICmpSLT(rel, C64(n)));
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(rel, C64(0)), C64(0), rel);
        udims[d] = b_.CreateSelect(b_.CreateICmpSGE(lo, C64(n)),
                                   C64(std::max<int64_t>(n - 1, 0)), lo);
      }
      Index base = NewIndex(&os, out, nullptr);
      if (SameDimsAndLayout(os, *idx.shape)) base.linear = idx.linear;
      absl::StatusOr<Value*> orig = EmitOperand(h, 0, base);
      if (!orig.ok()) return orig;
      if (ShapeUtil::ElementsIn(window) == 0) return *orig;
      Index uidx = NewIndex(&window, std::move(udims), nullptr);
      absl::StatusOr<Value*> upd = EmitOperand(h, 1, uidx);
      if (!upd.ok()) return upd;
      return b_.CreateSelect(inside, *upd, *orig);
    }
    case HloOpcode::kIota: {
      const std::vector<Value*>& out = Dims(idx);
      Value* i = out[h.attrs().iota_dimension];
      const PrimitiveType t = s.element_type();
      if (primitive_util::IsFloatingPointType(t)) {
        // Through double: exact for any index an array can have, then
        // rounded once to the type.
        Value* d = b_.CreateSIToFP(i, b_.getDoubleTy());
        if (t == PrimitiveType::F64) return d;
        if (t == PrimitiveType::F16) {
          return b_.CreateFPExt(b_.CreateFPTrunc(d, b_.getHalfTy()),
                                b_.getFloatTy());
        }
        if (t == PrimitiveType::BF16) {
          // Rounded to bf16's 8 significant bits here, to nearest even,
          // then converted exactly: through float, an index above 2^24
          // would round twice (2^24 + 2^16 + 1 to the tie 2^24 + 2^16,
          // then to 2^24, where convert's rules give 2^24 + 2^17).
          Value* width = b_.CreateSub(
              C64(64), Intrinsic(llvm::Intrinsic::ctlz, {i, b_.getFalse()}));
          Value* over = b_.CreateICmpSGT(width, C64(8));
          Value* shift =
              b_.CreateSelect(over, b_.CreateSub(width, C64(8)), C64(0));
          Value* q = b_.CreateLShr(i, shift);
          Value* rem = b_.CreateAnd(
              i, b_.CreateSub(b_.CreateShl(C64(1), shift), C64(1)));
          Value* half = b_.CreateLShr(b_.CreateShl(C64(1), shift), C64(1));
          Value* odd = b_.CreateICmpNE(b_.CreateAnd(q, C64(1)), C64(0));
          Value* up = b_.CreateAnd(
              over, b_.CreateOr(b_.CreateICmpUGT(rem, half),
                                b_.CreateAnd(b_.CreateICmpEQ(rem, half), odd)));
          q = b_.CreateAdd(q, b_.CreateZExt(up, I64()));
          return b_.CreateUIToFP(b_.CreateShl(q, shift), b_.getFloatTy());
        }
        return b_.CreateFPTrunc(d, b_.getFloatTy());
      }
      return b_.CreateTrunc(i, RegisterType(t));
    }
    case HloOpcode::kPad: {
      const Shape& os = h.operand(0)->shape();
      Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
      absl::StatusOr<Value*> pad_value = EmitOperand(h, 1, scalar);
      if (!pad_value.ok()) return pad_value;
      if (ShapeUtil::ElementsIn(os) == 0) return *pad_value;
      const std::vector<Value*>& out = Dims(idx);
      Value* inside = b_.getTrue();
      std::vector<Value*> dims(os.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        const PaddingDimension& pd = h.attrs().padding_config->dimensions[d];
        Value* rel = b_.CreateSub(out[d], C64(pd.edge_padding_low));
        Value* q = rel;
        if (pd.interior_padding > 0) {
          Value* step = C64(pd.interior_padding + 1);
          // rel may be negative: only a non-negative multiple is inside.
          Value* nonneg = b_.CreateICmpSGE(rel, C64(0));
          Value* safe = b_.CreateSelect(nonneg, rel, C64(0));
          inside = b_.CreateAnd(inside, nonneg);
          inside = b_.CreateAnd(
              inside, b_.CreateICmpEQ(b_.CreateURem(safe, step), C64(0)));
          q = b_.CreateUDiv(safe, step);
        } else {
          inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, C64(0)));
        }
        inside =
            b_.CreateAnd(inside, b_.CreateICmpSLT(q, C64(os.dimensions(d))));
        // Clamped so that the load is always in bounds.
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(q, C64(0)), C64(0), q);
        dims[d] = b_.CreateSelect(b_.CreateICmpSGE(lo, C64(os.dimensions(d))),
                                  C64(os.dimensions(d) - 1), lo);
      }
      Index in = NewIndex(&os, std::move(dims), nullptr);
      absl::StatusOr<Value*> v = EmitOperand(h, 0, in);
      if (!v.ok()) return v;
      return b_.CreateSelect(inside, *v, *pad_value);
    }
    case HloOpcode::kConcatenate: {
      const int64_t cd = h.dimensions(0);
      const std::vector<Value*>& out = Dims(idx);
      Value* result = nullptr;
      int64_t offset = 0;
      // Every operand is read at a clamped index and the right one
      // selected: branch-free, so the loop still vectorizes.
      for (int64_t i = 0; i < h.operand_count(); ++i) {
        const Shape& os = h.operand(i)->shape();
        const int64_t n = os.dimensions(cd);
        if (n == 0) continue;
        std::vector<Value*> dims = out;
        Value* rel = b_.CreateSub(out[cd], C64(offset));
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(rel, C64(0)), C64(0), rel);
        dims[cd] =
            b_.CreateSelect(b_.CreateICmpSGE(lo, C64(n)), C64(n - 1), lo);
        Index in = NewIndex(&os, std::move(dims), nullptr);
        absl::StatusOr<Value*> v = EmitOperand(h, i, in);
        if (!v.ok()) return v;
        if (result == nullptr) {
          result = *v;
        } else {
          result = b_.CreateSelect(b_.CreateICmpSGE(out[cd], C64(offset)), *v,
                                   result);
        }
        offset += n;
      }
      if (result == nullptr) {
        // Every operand is empty along the dimension, so the result has no
        // elements and this code never runs.
        return llvm::Constant::getNullValue(RegisterType(s.element_type()));
      }
      return result;
    }
    default:
      break;
  }
  // Elementwise: operands at the same index (a scalar operand of select
  // or clamp at the scalar index).
  std::vector<Value*> ops;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    const Shape& os = h.operand(i)->shape();
    absl::StatusOr<Value*> v;
    if (os.rank() == 0 && s.rank() > 0) {
      Index scalar = NewIndex(&os, {}, C64(0));
      v = EmitOperand(h, i, scalar);
    } else {
      Index in = idx;
      in.shape = &os;
      if (!SameDimsAndLayout(os, *idx.shape)) {
        Dims(idx);
        in = NewIndex(&os, idx.dims, nullptr);
      }
      // Same id: the same element of an equal-shaped value.
      v = EmitOperand(h, i, in.id == idx.id ? idx : in);
    }
    if (!v.ok()) return v;
    ops.push_back(*v);
  }
  return EmitElementwise(h, ops);
}

absl::StatusOr<Value*> Emitter::EmitReduce(const Instruction& h, Index& idx) {
  const Shape& in_shape = h.operand(0)->shape();
  const PrimitiveType t = h.shape().element_type();
  Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
  absl::StatusOr<Value*> init = EmitOperand(h, 1, scalar);
  if (!init.ok()) return init;

  // The accumulator lives in an alloca in the entry block; mem2reg turns
  // it into a phi the vectorizer recognizes as a reduction.
  llvm::IRBuilder<> entry(entry_block_, entry_block_->begin());
  llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(t));
  b_.CreateStore(*init, acc);

  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : h.dimensions()) reduced[d] = true;
  const std::vector<Value*> out_dims =
      h.shape().rank() > 0 ? Dims(idx) : std::vector<Value*>{};
  std::vector<Value*> in_dims(in_shape.rank(), nullptr);
  for (int64_t d = 0, o = 0; d < in_shape.rank(); ++d) {
    if (!reduced[d]) in_dims[d] = out_dims[o++];
  }
  // Reduced dimensions looped major to minor (the innermost loop walks
  // memory contiguously when the most-minor dimension is reduced).
  std::vector<int64_t> order;
  const std::vector<int64_t> m2m = MinorToMajor(in_shape);
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (reduced[*it]) order.push_back(*it);
  }

  // Floating-point sums and products may be reassociated here.
  llvm::FastMathFlags saved = b_.getFastMathFlags();
  std::function<absl::Status(size_t)> loop = [&](size_t level) -> absl::Status {
    if (level == order.size()) {
      Index in = NewIndex(&in_shape, in_dims, nullptr);
      absl::StatusOr<Value*> v = EmitOperand(h, 0, in);
      if (!v.ok()) return v.status();
      Value* a = b_.CreateLoad(RegisterType(t), acc);
      llvm::FastMathFlags fmf;
      fmf.setAllowReassoc();
      b_.setFastMathFlags(fmf);
      absl::StatusOr<Value*> r = EmitScalarComputation(*h.to_apply(), {a, *v});
      b_.setFastMathFlags(saved);
      if (!r.ok()) return r.status();
      b_.CreateStore(*r, acc);
      return absl::OkStatus();
    }
    const int64_t d = order[level];
    return ForLoop(C64(0), C64(in_shape.dimensions(d)), "red",
                   [&](Value* i) -> absl::Status {
                     in_dims[d] = i;
                     return loop(level + 1);
                   });
  };
  // Values cached inside the reduction loops do not dominate what follows.
  auto saved_cache = cache_;
  if (absl::Status s = loop(0); !s.ok()) return s;
  cache_ = std::move(saved_cache);
  return b_.CreateLoad(RegisterType(t), acc);
}

absl::StatusOr<Value*> Emitter::EmitReduceWindow(const Instruction& h,
                                                 Index& idx) {
  const Shape& in_shape = h.operand(0)->shape();
  const PrimitiveType t = h.shape().element_type();
  const std::vector<WindowDimension>& win = WindowOf(h).dimensions;
  Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
  absl::StatusOr<Value*> init = EmitOperand(h, 1, scalar);
  if (!init.ok()) return init;
  llvm::IRBuilder<> entry(entry_block_, entry_block_->begin());
  llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(t));
  b_.CreateStore(*init, acc);
  const std::vector<Value*> out = Dims(idx);
  const int64_t rank = in_shape.rank();
  std::vector<Value*> in_dims(rank, nullptr);
  std::vector<Value*> valid(rank, nullptr);
  std::function<absl::Status(int64_t)> loop = [&](int64_t d) -> absl::Status {
    if (d == rank) {
      Value* ok = b_.getTrue();
      for (Value* v : valid) ok = b_.CreateAnd(ok, v);
      Index in = NewIndex(&in_shape, in_dims, nullptr);
      absl::StatusOr<Value*> x = EmitOperand(h, 0, in);
      if (!x.ok()) return x.status();
      Value* a = b_.CreateLoad(RegisterType(t), acc);
      absl::StatusOr<Value*> r = EmitScalarComputation(*h.to_apply(), {a, *x});
      if (!r.ok()) return r.status();
      // Window positions outside the (padded, dilated) input add nothing.
      b_.CreateStore(b_.CreateSelect(ok, *r, a), acc);
      return absl::OkStatus();
    }
    const WindowDimension& w = win[d];
    return ForLoop(C64(0), C64(w.size), "win", [&](Value* k) -> absl::Status {
      // Position in the dilated, padded input.
      Value* pos = b_.CreateAdd(
          b_.CreateSub(b_.CreateMul(out[d], C64(w.stride)), C64(w.padding_low)),
          b_.CreateMul(k, C64(w.window_dilation)));
      Value* ok = b_.CreateICmpSGE(pos, C64(0));
      Value* safe = b_.CreateSelect(ok, pos, C64(0));
      Value* in = safe;
      if (w.base_dilation > 1) {
        ok = b_.CreateAnd(
            ok,
            b_.CreateICmpEQ(b_.CreateURem(safe, C64(w.base_dilation)), C64(0)));
        in = b_.CreateUDiv(safe, C64(w.base_dilation));
      }
      ok = b_.CreateAnd(ok, b_.CreateICmpSLT(in, C64(in_shape.dimensions(d))));
      valid[d] = ok;
      in_dims[d] =
          Clamp64(in, 0, std::max<int64_t>(in_shape.dimensions(d) - 1, 0));
      return loop(d + 1);
    });
  };
  auto saved_cache = cache_;
  if (ShapeUtil::ElementsIn(in_shape) > 0) {
    if (absl::Status st = loop(0); !st.ok()) return st;
  }
  cache_ = std::move(saved_cache);
  return b_.CreateLoad(RegisterType(t), acc);
}

absl::StatusOr<Value*> Emitter::EmitGather(const Instruction& h, Index& idx) {
  const GatherDimensionNumbers& dn = *h.attrs().gather_dimension_numbers;
  const Shape& os = h.operand(0)->shape();
  const Shape& is = h.operand(1)->shape();
  const absl::Span<const int64_t> sizes = h.attrs().gather_slice_sizes;
  const std::vector<Value*> out = Dims(idx);
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // Output batch dimensions, in order, index the indices array's
  // dimensions other than index_vector_dim.
  std::vector<Value*> batch;
  for (int64_t d = 0; d < h.shape().rank(); ++d) {
    if (!contains(dn.offset_dims, d)) batch.push_back(out[d]);
  }
  std::vector<Value*> start(os.rank(), C64(0));
  for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
    std::vector<Value*> dims;
    size_t b = 0;
    for (int64_t d = 0; d < is.rank(); ++d) {
      dims.push_back(d == dn.index_vector_dim ? C64(static_cast<int64_t>(k))
                                              : batch[b++]);
    }
    Index ii = NewIndex(&is, std::move(dims), nullptr);
    if (is.rank() == 0) ii.linear = C64(0);
    absl::StatusOr<Value*> v = EmitOperand(h, 1, ii);
    if (!v.ok()) return v;
    const int64_t m = dn.start_index_map[k];
    start[m] = Clamp64(IndexToI64(*v, is.element_type()), 0,
                       os.dimensions(m) - sizes[m]);
  }
  std::vector<int64_t> offset_dims(dn.offset_dims.begin(),
                                   dn.offset_dims.end());
  std::sort(offset_dims.begin(), offset_dims.end());
  std::vector<Value*> in_dims(os.rank());
  size_t o = 0;
  for (int64_t d = 0; d < os.rank(); ++d) {
    Value* offset = C64(0);
    if (!contains(dn.collapsed_slice_dims, d)) offset = out[offset_dims[o++]];
    in_dims[d] = b_.CreateAdd(start[d], offset);
  }
  Index in = NewIndex(&os, std::move(in_dims), nullptr);
  return EmitOperand(h, 0, in);
}

absl::StatusOr<Value*> Emitter::EmitScalarComputation(
    const Computation& c, std::vector<Value*> args) {
  absl::flat_hash_map<const Instruction*, Value*> values;
  for (const Instruction* h : c.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kParameter) {
      values[h] = args[h->parameter_number()];
      continue;
    }
    if (h->opcode() == HloOpcode::kConstant) {
      Index scalar = NewIndex(&h->shape(), {}, C64(0));
      absl::StatusOr<Value*> v = EmitConstant(*h, scalar);
      if (!v.ok()) return v;
      values[h] = *v;
      continue;
    }
    std::vector<Value*> ops;
    for (const Instruction* op : h->operands()) ops.push_back(values[op]);
    absl::StatusOr<Value*> v = EmitElementwise(*h, ops);
    if (!v.ok()) return v;
    values[h] = *v;
  }
  return values[c.root_instruction()];
}

}  // namespace plexa::cpu::emitter_internal
