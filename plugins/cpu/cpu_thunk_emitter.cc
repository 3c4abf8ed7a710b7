#include "plugins/cpu/cpu_thunk_emitter.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/custom_call_thunk.h"
#include "plugins/cpu/dynamic_update_slice_thunk.h"
#include "plugins/cpu/gemm_thunk.h"
#include "plugins/cpu/scatter_thunk.h"
#include "plugins/cpu/select_and_scatter_thunk.h"

namespace plexa::cpu {

absl::Status CpuThunkEmitter::EmitBackendInstruction(CompiledComputation& cc,
                                                     const Instruction& h) {
  if (extension_ != nullptr) {
    absl::StatusOr<ExtensionThunk> t = extension_->MakeThunk(h);
    if (!t.ok()) return t.status();
    if (t->thunk != nullptr) {
      Thunk* thunk = t->thunk.get();
      AddRuntimeThunk(cc, h, std::move(t->thunk));
      if (t->scratch_bytes > 0) {
        thunk->outputs.push_back(NewSlot(
            cc, ShapeUtil::MakeShape(PrimitiveType::U8, {t->scratch_bytes}),
            SlotKind::kTemp));
      }
      return absl::OkStatus();
    }
  }
  switch (h.opcode()) {
    case HloOpcode::kCustomCall:
      return EmitCustomCall(cc, h);
    case HloOpcode::kScatter: {
      std::optional<ScatterDesc> desc = MakeScatterDesc(h);
      if (!desc.has_value()) {
        EmitReference(cc, h);  // variadic, other types or computations
        return absl::OkStatus();
      }
      auto t = std::make_unique<ScatterThunk>(
          std::move(*desc), WithLayout(h.operand(0)->shape()));
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kSelectAndScatter: {
      std::unique_ptr<Thunk> t = MakeSelectAndScatter(h);
      if (t == nullptr) {
        EmitReference(cc, h);  // dilated windows, other computations
        return absl::OkStatus();
      }
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kSort:
      return EmitSort(cc, h);
    case HloOpcode::kDot: {
      // A sparse dot (the default pipeline expands them) runs on the
      // reference kernel, which decompresses its operands.
      std::unique_ptr<Thunk> t =
          h.attrs().dot_sparsity.empty() ? MakeGemmThunk(h) : nullptr;
      if (t == nullptr) {
        EmitReference(cc, h);
        return absl::OkStatus();
      }
      AddRuntimeThunk(cc, h, std::move(t));
      return absl::OkStatus();
    }
    case HloOpcode::kConvolution: {
      std::optional<ConvDims> dims = MakeConvDims(h);
      if (!dims.has_value()) {
        EmitReference(cc, h);
        return absl::OkStatus();
      }
      EmitConv(cc, h, std::move(*dims));
      return absl::OkStatus();
    }
    case HloOpcode::kDynamicUpdateSlice: {
      if (std::unique_ptr<Thunk> t = MakeDynamicUpdateSliceThunk(h)) {
        AddRuntimeThunk(cc, h, std::move(t));
        return absl::OkStatus();
      }
      break;  // a generated kernel (other layouts)
    }
    default:
      break;
  }
  return EmitKernel(cc, h);
}

absl::Status CpuThunkEmitter::EmitCustomCall(CompiledComputation& cc,
                                             const Instruction& h) {
  absl::StatusOr<std::unique_ptr<backend::CustomCallThunk>> t =
      backend::MakeCustomCallThunk(h, custom_calls_, "the CPU plugin",
                                   platform_);
  if (!t.ok()) return t.status();
  AddRuntimeThunk(cc, h, *std::move(t));
  return absl::OkStatus();
}

absl::Status CpuThunkEmitter::EmitSort(CompiledComputation& cc,
                                       const Instruction& h) {
  std::vector<Shape> shapes;
  bool ok = KernelModule::CanEmitComparator(*h.to_apply()).ok();
  for (const Instruction* op : h.operands()) {
    ok &= ShapeUtil::IsDenseArray(op->shape()) && op->shape().rank() > 0;
    shapes.push_back(WithLayout(op->shape()));
  }
  std::vector<Shape> out_shapes;
  FlattenLeafShapes(h.shape(), &out_shapes);
  for (size_t i = 0; ok && i < out_shapes.size(); ++i) {
    ok &= LayoutUtil::EffectiveLayout(out_shapes[i]) ==
          LayoutUtil::EffectiveLayout(shapes[i]);
  }
  if (!ok) {
    EmitReference(cc, h);
    return absl::OkStatus();
  }
  const std::string name = absl::StrCat("plexa_cmp", sort_thunks_.size());
  if (absl::Status s = kernels_->AddComparator(*h.to_apply(), name); !s.ok()) {
    return s;
  }
  auto t =
      std::make_unique<SortThunk>(name, std::move(shapes), h.dimensions(0));
  t->inputs = OperandLeaves(h);
  t->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = t->outputs;
  sort_thunks_.push_back(t.get());
  Add(cc, std::move(t));
  ++stats_->runtime_thunks;
  return absl::OkStatus();
}

void CpuThunkEmitter::EmitConv(CompiledComputation& cc, const Instruction& h,
                               ConvDims dims) {
  std::unique_ptr<Thunk> thunk;
  if (h.shape().element_type() == PrimitiveType::F32) {
    auto conv = std::make_unique<ConvThunk<float>>(std::move(dims));
    f32_convs_[&h] = conv.get();
    thunk = std::move(conv);
  } else {
    thunk = std::make_unique<ConvThunk<double>>(std::move(dims));
  }
  AddRuntimeThunk(cc, h, std::move(thunk));
}

absl::Status CpuThunkEmitter::EmitKernel(CompiledComputation& cc,
                                         const Instruction& h) {
  if (KernelModule::CanEmit(h).ok()) {
    if (absl::StatusOr<bool> fused = FuseIntoConvolution(cc, h);
        !fused.ok() || *fused) {
      return fused.status();
    }
    const std::string name = absl::StrCat("plexa_k", kernel_thunks_.size());
    absl::StatusOr<KernelShape> ks = kernels_->AddKernel(h, name);
    if (!ks.ok()) {
      // An operation the emitter turned down after all: the reference
      // kernel runs it.
      EmitReference(cc, h);
      return absl::OkStatus();
    }
    auto t = std::make_unique<KernelThunk>(name, *ks);
    t->inputs = OperandLeaves(h);
    t->outputs = NewLeaves(cc, h.shape());
    leaves_[&h] = t->outputs;
    kernel_thunks_.push_back(t.get());
    Add(cc, std::move(t));
    ++stats_->kernels;
    return absl::OkStatus();
  }
  EmitReference(cc, h);
  return absl::OkStatus();
}

// A loop fusion whose only use of a f32 convolution is elementwise (its
// result element i reads the convolution's element i) and which is that
// convolution's only user becomes the convolution's epilogue: it runs on
// each block of rows the convolution finishes, while they are in cache.
absl::StatusOr<bool> CpuThunkEmitter::FuseIntoConvolution(
    CompiledComputation& cc, const Instruction& h) {
  if (h.opcode() != HloOpcode::kFusion ||
      h.attrs().fusion_kind != FusionKind::kLoop) {
    return false;
  }
  int64_t k = -1;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    if (f32_convs_.contains(h.operand(i))) {
      if (k >= 0) return false;  // two convolutions (or the same twice)
      k = i;
    }
  }
  if (k < 0) return false;
  const Instruction* conv = h.operand(k);
  ConvThunk<float>* thunk = f32_convs_[conv];
  if (conv->user_count() != 1 || conv->parent() != h.parent()) return false;
  const Shape out = WithLayout(h.shape());
  const Shape conv_out = WithLayout(conv->shape());
  if (out.dimensions() != conv_out.dimensions() ||
      !(LayoutUtil::EffectiveLayout(out) ==
        LayoutUtil::EffectiveLayout(conv_out))) {
    return false;
  }
  // Everything that depends on the convolution inside the fusion is
  // elementwise over the result's dimensions.
  const Computation& fused = *h.to_apply();
  std::vector<const Instruction*> work = {fused.parameter_instruction(k)};
  absl::flat_hash_set<const Instruction*> seen;
  while (!work.empty()) {
    const Instruction* x = work.back();
    work.pop_back();
    for (const Instruction* u : x->users()) {
      if (!seen.insert(u).second) continue;
      if (!IsElementwise(u->opcode()) ||
          u->shape().dimensions() != out.dimensions()) {
        return false;
      }
      work.push_back(u);
    }
  }
  const ConvolutionDimensionNumbers& dn =
      *conv->attrs().convolution_dimension_numbers;
  const int64_t batch_dim = dn.output_batch_dimension;
  const int64_t spatial0 = dn.output_spatial_dimensions.size() >= 2
                               ? dn.output_spatial_dimensions[0]
                               : -1;
  const int64_t minor = LayoutUtil::EffectiveLayout(out).minor_to_major(0);
  if (minor == batch_dim || minor == spatial0) return false;
  auto it = std::find_if(cc.thunks.begin(), cc.thunks.end(),
                         [&](const auto& t) { return t.get() == thunk; });
  if (it == cc.thunks.end()) return false;
  const std::string name = absl::StrCat("plexa_k", kernel_thunks_.size());
  absl::StatusOr<KernelShape> ks = kernels_->AddKernel(h, name);
  if (!ks.ok()) return false;  // the ordinary path decides what runs it
  // The convolution's thunk moves here (after the epilogue's other
  // operands); nothing between needs its result (this is its only user).
  std::unique_ptr<Thunk> owned = std::move(*it);
  cc.thunks.erase(it);
  auto kt = std::make_unique<KernelThunk>(name, *ks);
  kt->inputs = OperandLeaves(h);
  kt->outputs = NewLeaves(cc, h.shape());
  leaves_[&h] = kt->outputs;
  kernel_thunks_.push_back(kt.get());
  ++stats_->kernels;
  // The combined thunk reads the epilogue's operands and writes both
  // results (the convolution's stays a temporary the epilogue reads).
  for (int s : kt->inputs) thunk->inputs.push_back(s);
  for (int s : kt->outputs) thunk->outputs.push_back(s);
  thunk->SetEpilogue(std::move(kt), out, batch_dim, spatial0);
  ++stats_->conv_epilogues;
  Add(cc, std::move(owned));
  return true;
}

}  // namespace plexa::cpu
