#include "plugins/cpu/cpu_pipeline.h"

#include <initializer_list>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/ir/collective_groups.h"
#include "core/passes/dce.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/fusion.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/verifier/verifier.h"
#include "plugins/common/reduction_splitter.h"

namespace plexa::cpu {

namespace {

// The CPU's kernels compute on dense arrays (any minor_to_major; no tiles,
// no padding, no sub-byte packing). An operand in such a layout is
// converted at the boundary: layout assignment copies it into the dense
// layout with the same minor_to_major first (one relayout pass over the
// array, on the reference copy kernel), so the instruction itself runs
// compiled instead of falling back to the evaluator. Instructions that
// only move or reinterpret bytes keep what they read: copy (it is the
// conversion), bitcast (it reads the physical bytes), tuples and control
// flow (layout assignment handles them), feeds, collectives (all-reduce's
// operands are in its result's layout, the others' in the default one) and
// custom calls.
std::optional<Layout> DenseOperandLayout(const Instruction& inst,
                                         int64_t operand_index) {
  if (MovesRowsBetweenDevices(inst.opcode())) return std::nullopt;
  switch (inst.opcode()) {
    case HloOpcode::kCopy:
    case HloOpcode::kBitcast:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kWhile:
    case HloOpcode::kCall:
    case HloOpcode::kConditional:
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed:
    case HloOpcode::kAllReduce:
    case HloOpcode::kCustomCall:
    case HloOpcode::kOptimizationBarrier:
    case HloOpcode::kFft:   // layout assignment gives the default layout
    case HloOpcode::kTopK:  // (the toolkit's row-major thunks)
      return std::nullopt;
    default:
      break;
  }
  const Shape& operand = inst.operand(operand_index)->shape();
  if (!operand.IsArray() || !operand.has_layout() ||
      ShapeUtil::IsDenseArray(operand)) {
    return std::nullopt;
  }
  Layout dense = LayoutUtil::MakeLayout(operand.layout().minor_to_major());
  dense.set_memory_space(operand.layout().memory_space());
  return dense;
}

}  // namespace

absl::Status RunCpuPipeline(Module* module, CpuExtension* extension) {
  PipelineOptions options;
  options.expand_batch_norm = true;
  if (extension != nullptr) {
    options.keep_batch_norm = [extension](const Instruction& bn) {
      return extension->KeepBatchNorm(bn);
    };
  }
  options.layout_preferences.required_operand_layout = DenseOperandLayout;
  absl::StatusOr<bool> changed = RunDefaultPipeline(module, options);
  if (!changed.ok()) return changed.status();
  if (extension != nullptr) {
    absl::StatusOr<bool> rewritten = extension->RewriteBeforeFusion(module);
    if (!rewritten.ok()) return rewritten.status();
    if (*rewritten) {
      if (absl::Status s = VerifyModule(*module); !s.ok()) {
        return absl::InternalError(
            absl::StrCat(extension->name(),
                         " rewrite left an invalid module: ", s.message()));
      }
    }
  }
  // Then the CPU's own choices: split reductions with tiny results, fuse
  // loops and reductions with their producers (dots stay GEMM calls).
  backend::ReductionSplitter splitter;
  InstructionFusion::Options fusion;
  fusion.output_fusion = false;
  // Layout conversions (a copy from or to a tiled, padded or sub-byte
  // layout) stay out of fusions: a kernel with one non-dense value would
  // fall back to the evaluator as a whole.
  fusion.can_fuse = [](const Instruction& inst) {
    if (!ShapeUtil::IsDenseArray(inst.shape()) && inst.shape().IsArray()) {
      return false;
    }
    for (const Instruction* op : inst.operands()) {
      if (op->shape().IsArray() && !ShapeUtil::IsDenseArray(op->shape())) {
        return false;
      }
    }
    return true;
  };
  InstructionFusion fuse(fusion);
  DeadCodeElimination dce;
  for (Pass* pass : std::initializer_list<Pass*>{&splitter, &fuse, &dce}) {
    absl::StatusOr<bool> r = pass->Run(*module);
    if (!r.ok()) return r.status();
  }
  return VerifyModule(*module);
}

}  // namespace plexa::cpu
