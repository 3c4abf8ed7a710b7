// The oneDNN primitives that are not a dot or a convolution with post-ops
// (those are onednn_plan.h's chains): each is a pattern of the optimized
// module, rooted at one instruction, that one primitive computes.
//
//   softmax              softmax / log-softmax as JAX writes them (softmax.h)
//   layer_normalization  (x - mean) * rsqrt(var + eps) [* scale] [+ bias]
//                        over the innermost axis, the variance written
//                        either as mean((x - mean)^2) or mean(x^2) - mean^2
//   batch_normalization  batch-norm-training (kept unexpanded for it)
//   pooling              reduce-window max (-inf init), or reduce-window add
//                        (0 init) divided by the window's size
//   reduction            reduce add/multiply/maximum/minimum from the
//                        reducer's identity
//   concat               concatenate
//   reorder              transpose, and copy between layouts
//   eltwise              a unary elementwise op, or a gelu pattern
//   binary               add/subtract/multiply/divide/maximum/minimum with
//                        at most one operand broadcast
//
// The rewrite (onednn_extension.h) makes each match a fusion of kind
// kCustom with backend_config {"onednn":"<kind>"}; the thunk matches the
// fused computation's root again with the same pattern, where the values
// the primitive reads are the fusion's parameters. NaN-sensitive ones
// (maximum, minimum, max pooling and reductions: oneDNN's drop NaNs) only
// with relaxed_nan; memory-bound ones only from min_elements up (below, a
// library call costs more than the CPU plugin's fused loops).
#ifndef PLEXA_PLUGINS_ONEDNN_PRIMITIVES_H_
#define PLEXA_PLUGINS_ONEDNN_PRIMITIVES_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/onednn/onednn_plan.h"

namespace plexa::onednn {

struct PatternMatch {
  // Every instruction of the pattern, operands before users, the root
  // last: the members of the fusion that replaces it. Constants the
  // primitive does not read (reduction inits, divisors) are members.
  std::vector<Instruction*> members;
  // The primitive; or why oneDNN or the options refuse this match (the
  // reason the report gives). plan->inputs[i].source are the values the
  // primitive reads, none of them a member.
  absl::StatusOr<Plan> plan = absl::UnknownError("not built");
};

class PrimitivePattern {
 public:
  virtual ~PrimitivePattern() = default;
  // The backend_config value ("pooling").
  virtual Plan::Kind kind() const = 0;
  // Elementwise patterns are matched after dots and convolutions took
  // their post-ops; the others before.
  virtual bool elementwise() const { return false; }
  // The pattern rooted at `root`, or nullopt when `root` is not one.
  virtual std::optional<PatternMatch> Match(
      const Instruction& root, const MatchOptions& options,
      const dnnl::engine& engine) const = 0;
};

// pattern.Match, with an error oneDNN throws (a descriptor it cannot
// create) made the match's refusal.
std::optional<PatternMatch> MatchGuarded(const PrimitivePattern& pattern,
                                         const Instruction& root,
                                         const MatchOptions& options,
                                         const dnnl::engine& engine);

// Every pattern, the larger ones first (a layer norm holds reductions).
absl::Span<const PrimitivePattern* const> PrimitivePatterns();

// The pattern of `kind`, or null.
const PrimitivePattern* FindPattern(absl::string_view kind);

// True when no member of the pattern but `root` (and scalar constants or
// broadcasts of them, which the fusion duplicates) is used outside it, and
// none has control dependencies.
bool PrivateMembers(absl::Span<Instruction* const> members,
                    const Instruction& root);

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_PRIMITIVES_H_
