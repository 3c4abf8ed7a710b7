// Instruction fusion: groups a consumer with the producers it reads into a
// `fusion` instruction whose called computation holds them, as XLA prints
// it: `%fusion.0 = f32[8] fusion(%a, %b), kind=kLoop,
// calls=%fused_computation`.
//
// Kinds:
//   kLoop   an elementwise (or shape-only: broadcast, reshape, transpose,
//           slice, reverse, pad, concatenate, iota, constant) consumer with
//           the loop-fusible producers it reads, one loop over the output;
//   kInput  a reduce with the loop-fusible producers of its inputs (the
//           reduction reads the fused values directly);
//   kOutput a dot whose only user is an elementwise add, subtract,
//           multiply, maximum or minimum (a bias or scale applied to the
//           dot's output), with the loop-fusible producers of that
//           consumer's other operand.
//
// Cost rule (producers are never made much more expensive to compute):
//   - a producer whose every user ends up inside the fusion moves into it;
//   - a producer that also has users outside is duplicated into the fusion
//     (and stays for its other users) only if it is
//       free: a scalar constant, an iota, a broadcast of a scalar - into
//         any number of fusions, with its operand;
//       cheap: elementwise arithmetic that is not transcendental or a
//         division (add, subtract, multiply, negate, abs, max, min,
//         compare, select, and/or/xor/not, convert, clamp, sign, floor,
//         ceil, rounding, shifts), broadcast, reshape, slice - into at
//         most `max_duplications` fusions (default 1), and without its
//         own producers, so a duplicated chain never grows;
//     exp, log, tanh, divide, power, sqrt, transpose, pad, ... with users
//     outside stay unfused;
//   - side-effecting instructions (rng, infeed, ...) are never fused, so
//     they keep their execution order; nor are instructions with control
//     dependencies.
// Fusion runs in the entry computation and in computations reached from
// it through while, call and conditional (not inside reducers or other
// fused computations). A group has at most `max_fusion_size` instructions.
//
// Fusion is a choice of the backend: the default pipeline does not run it
// unless asked (PipelineOptions::fusion). The evaluator evaluates a fusion
// by calling its computation, so results do not change.
#ifndef PLEXA_CORE_PASSES_FUSION_H_
#define PLEXA_CORE_PASSES_FUSION_H_

#include <cstdint>
#include <functional>

#include "core/passes/pass.h"

namespace plexa {

class InstructionFusion : public Pass {
 public:
  struct Options {
    bool fuse_into_reductions = true;  // kInput
    bool output_fusion = true;         // kOutput
    int64_t max_fusion_size = 64;
    // Fusions a cheap (not free) producer may be copied into.
    int64_t max_duplications = 1;
    // A backend's veto: when set, an instruction it rejects is never part
    // of a fusion (the CPU keeps layout conversions out of its kernels).
    std::function<bool(const Instruction&)> can_fuse;
  };

  InstructionFusion() = default;
  explicit InstructionFusion(Options options) : options_(options) {}

  absl::string_view name() const override { return "fusion"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

// True for the producers the cost rule duplicates without limit.
bool IsFreeToDuplicate(const Instruction& instruction);
// True for the producers the cost rule allows to duplicate (a limited
// number of times).
bool IsCheapToDuplicate(const Instruction& instruction);
// True for the instructions a loop or input fusion may contain.
bool IsLoopFusible(const Instruction& instruction);

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_FUSION_H_
