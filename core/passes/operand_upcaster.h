// operand-upcaster: a dot or convolution whose two operands have different
// element types (XLA accepts them: its InferDotOpShape no longer compares
// them, and its verifier allows mixed precision on dot and convolution)
// gets both operands converted to its result type, as XLA's
// OperandUpcaster converts operands for wider accumulation. Then every
// backend sees one operand type, and the value is the evaluator's (which
// converts both operands to the result type).
//
//   f32[2,2] dot(bf16[2,3] a, s8[3,2] b)
//   -> f32[2,2] dot(f32[2,3] convert(a), f32[3,2] convert(b))
#ifndef PLEXA_CORE_PASSES_OPERAND_UPCASTER_H_
#define PLEXA_CORE_PASSES_OPERAND_UPCASTER_H_

#include "core/passes/pass.h"

namespace plexa {

class OperandUpcaster : public Pass {
 public:
  absl::string_view name() const override { return "operand-upcaster"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_OPERAND_UPCASTER_H_
