// What the oneDNN patterns (primitives.h, layer_norm.cc) and the post-op
// matcher (onednn_plan.cc) share: building a single-primitive plan,
// recognizing unary elementwise ops and gelu patterns, and the rule for
// when a memory-bound elementwise op is worth a library call.
#ifndef PLEXA_PLUGINS_ONEDNN_PATTERN_UTIL_H_
#define PLEXA_PLUGINS_ONEDNN_PATTERN_UTIL_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/onednn/onednn_plan.h"

namespace plexa::onednn {

class PrimitivePattern;

// "oneDNN does not take <root>: <why>".
absl::Status Refuse(const Instruction& root, absl::string_view why);

// An error when `shape` has fewer than options.min_elements elements, or
// when `slower_here` (a pattern oneDNN runs slower than the CPU plugin on
// this machine) and not options.all_primitives.
absl::Status RefuseUnlessLarge(const Instruction& root, const Shape& shape,
                               const MatchOptions& options,
                               bool slower_here = false);

// Sets the plan's implementation, primitive and scratch from `pd`; refuses
// oneDNN's reference implementations (loops slower than the CPU plugin's).
absl::StatusOr<Plan> FinishPlan(const Instruction& root, Plan plan,
                                const dnnl::primitive_desc_base& pd,
                                bool allow_reference = false);

// An argument read or written in place, in the program's layout.
PlanArg InPlace(int dnnl_arg, const Instruction* source,
                const dnnl::memory::desc& md);

// Attributes with the scratchpad in user mode.
dnnl::primitive_attr UserScratchpad();

// A unary elementwise function of `x` that oneDNN's eltwise computes:
// tanh, logistic, sqrt, abs; and gelu as
// JAX and PyTorch write it, the tanh approximation
//   x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
// and the exact form
//   x * 0.5 * (1 + erf(x / sqrt(2)))    (or x * (1/sqrt(2)))
// with the products in any order and association.
struct EltwiseOp {
  const Instruction* x = nullptr;
  dnnl::algorithm alg = dnnl::algorithm::undef;
  float alpha = 0.0f, beta = 0.0f;
  // Every instruction of the function but x, operands first, the root
  // last (for a single op, just the root).
  std::vector<Instruction*> members;
};
std::optional<EltwiseOp> MatchEltwise(const Instruction& root);

// The gelu whose input is `x`, found from x's users, when every user of x
// is inside it (so it can follow x as a post-op).
std::optional<EltwiseOp> MatchGeluOf(const Instruction& x);

// oneDNN's binary algorithm for add, subtract, multiply, divide, maximum,
// minimum.
std::optional<dnnl::algorithm> BinaryAlgorithm(HloOpcode opcode);

// True when the CPU plugin would not fuse the elementwise pattern
// `members` (rooted at `root`) with a neighbour: no value it reads is an
// elementwise op or broadcast used only by it, and no user of root is
// elementwise. Only then is a library call no slower than the CPU's loop
// fusion (which reads and writes each array once for a whole chain).
bool Isolated(const Instruction& root, absl::Span<Instruction* const> members);

// True when a value the pattern reads is an elementwise op (or broadcast,
// reshape, ...) used only by it: the CPU plugin would fuse it into the
// pattern's loop (a reduction reads x * x without writing it), where a
// primitive needs it written out first.
bool ReadsAFusibleProducer(absl::Span<Instruction* const> members);

// The layer-norm pattern (layer_norm.cc).
const PrimitivePattern& LayerNormPattern();

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_PATTERN_UTIL_H_
