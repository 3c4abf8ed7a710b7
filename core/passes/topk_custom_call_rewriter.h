// Rewrites XLA's well-known TopK custom call into the topk opcode:
//
//   %r = (f32[4,2], s32[4,2]) custom-call(f32[4,16] %x),
//        custom_call_target="TopK"
//   ->
//   %r = (f32[4,2], s32[4,2]) topk(f32[4,16] %x), k=2, largest=true
//
// The call (what jax.lax.top_k and XLA's TopkRewriter leave in HLO) has one
// operand of rank 1 ([n]) or 2 ([batch, n]) and returns (values, s32
// indices) of the operand's shape with the last dimension k, largest first;
// k is read from that shape. A call whose shapes are not of that form is a
// located error: the target is XLA's and no backend registers it.
#ifndef PLEXA_CORE_PASSES_TOPK_CUSTOM_CALL_REWRITER_H_
#define PLEXA_CORE_PASSES_TOPK_CUSTOM_CALL_REWRITER_H_

#include "core/passes/pass.h"

namespace plexa {

class TopKCustomCallRewriter : public Pass {
 public:
  absl::string_view name() const override {
    return "topk-custom-call-rewriter";
  }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_TOPK_CUSTOM_CALL_REWRITER_H_
