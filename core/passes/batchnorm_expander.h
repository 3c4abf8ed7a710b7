// The batch-norm expander: rewrites batch-norm-training, -inference and
// -grad into elementwise operations, broadcasts and reductions, for
// backends without a fused kernel. With m the number of elements per
// feature (all dimensions but feature_index) and sums over those
// dimensions:
//
//   training:  mean = sum(x) / m
//              var  = sum((x - mean)^2) / m        (biased, as XLA)
//              y    = (x - mean) * (scale * rsqrt(var + eps)) + offset
//              result (y, mean, var)
//   inference: y    = (x - mean) * (scale * rsqrt(var + eps)) + offset
//   grad:      rstd = rsqrt(var + eps),  x^ = (x - mean) * rstd
//              grad_offset = sum(dy)
//              grad_scale  = sum(dy * x^)
//              grad_x      = scale * rstd *
//                            (dy - grad_offset / m - x^ * grad_scale / m)
//              result (grad_x, grad_scale, grad_offset)
//
// The gradient is the real one (SEMANTICS.md "BatchNormGrad": seed 004's
// formulas multiply by sqrt(var + eps), which is wrong). f16 and bf16
// inputs are computed in f32 and the results converted back, so the sums
// do not lose precision. The evaluator computes batch norms in double, so
// results agree to rounding, not bit for bit.
#ifndef PLEXA_CORE_PASSES_BATCHNORM_EXPANDER_H_
#define PLEXA_CORE_PASSES_BATCHNORM_EXPANDER_H_

#include <functional>

#include "core/ir/instruction.h"
#include "core/passes/pass.h"

namespace plexa {

class BatchNormExpander : public Pass {
 public:
  struct Options {
    bool expand_training = true;
    bool expand_inference = true;
    bool expand_grad = true;
    // Batch norms this returns true for stay as they are (a backend with
    // a fused kernel for them).
    std::function<bool(const Instruction&)> keep;
  };

  BatchNormExpander() = default;
  explicit BatchNormExpander(Options options) : options_(options) {}

  absl::string_view name() const override { return "batchnorm-expander"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_BATCHNORM_EXPANDER_H_
