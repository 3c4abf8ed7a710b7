// A static cost estimate of a module, as XLA's HloCostAnalysis gives one
// (and PJRT reports with an executable): floating-point operations,
// transcendental operations and bytes accessed. What plugins report
// through the ABI (executable statistics) and what `plexa run --report`
// prints.
//
// The model, per instruction of the entry computation and of what it calls:
//   - elementwise: one op per result element; exp, log, tanh, logistic,
//     sqrt, rsqrt, cbrt, pow, sin, cos, tan, erf, atan2, expm1, log1p count
//     as transcendentals instead;
//   - dot: 2 * result elements * the contracting dimensions' product;
//   - convolution: 2 * result elements * kernel window elements * input
//     features per group;
//   - reduce: (operand elements) * (instructions in the reducer), summed
//     over the operands of a variadic reduce; reduce-window: result elements
//     * window elements * reducer instructions;
//   - fusion: the sum over its fused computation's instructions for flops;
//     its bytes are its operands' and its result's, read and written once;
//   - while: its condition and body counted once (the trip count is not
//     known statically); conditional: the most expensive branch; call: its
//     computation;
//   - everything else (data movement: copy, transpose, slice, ...): no
//     flops, its operands' and result's bytes.
// Bytes accessed: for every instruction that is not free (parameter,
// constant, tuple, get-tuple-element, bitcast), its array operands' and
// array result's bytes (inside a fusion only the fusion's own).
#ifndef PLEXA_CORE_IR_COST_ANALYSIS_H_
#define PLEXA_CORE_IR_COST_ANALYSIS_H_

#include <cstdint>

#include "core/ir/module.h"

namespace plexa {

struct ModuleCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
};

ModuleCost AnalyzeCost(const Module& module);

// The floating-point operations of a dot or a convolution by the model
// above (0 for any other instruction): what backends compare with a
// threshold to decide whether a library call pays for its overhead.
double DotOrConvolutionFlops(const Instruction& instruction);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_COST_ANALYSIS_H_
