// Rewrites scan into a while loop, as XLA's ScanExpander does for backends
// without a scan of their own:
//
//   (outs..., carries...) = scan(xs..., inits...), dimensions={d}, to_apply=f
//   ->
//   state = (k: s32[], xs..., out_buffers..., carries...)
//   while k < n:                       (n: the length of dimension d)
//     t       = is_reverse ? n - 1 - k : k
//     slice_i = reshape(dynamic-slice(x_i, t along d))
//     (o..., c...) = f(slice..., carries...)      (f inlined)
//     out_j   = dynamic-update-slice(out_j, reshape(o_j), t along d)
//     k, carries = k + 1, c
//
// The output buffers start as zeros; a scan of length 0 returns them
// (empty) and the inits. Values are the evaluator's (core/eval/
// scan_shuffle.cc: the same steps in the same order). A backend whose
// loops run their bodies on a device keeps the whole scan there (the
// Vulkan plugin). Not in the default pipeline: PipelineOptions::expand_scan.
#ifndef PLEXA_CORE_PASSES_SCAN_EXPANDER_H_
#define PLEXA_CORE_PASSES_SCAN_EXPANDER_H_

#include "core/passes/pass.h"

namespace plexa {

class ScanExpander : public Pass {
 public:
  absl::string_view name() const override { return "scan-expander"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_SCAN_EXPANDER_H_
