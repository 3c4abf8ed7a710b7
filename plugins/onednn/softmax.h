// Softmax and log-softmax as JAX writes them (after the default pipeline),
// run as oneDNN's softmax_forward / logsoftmax_forward:
//
//   m = reduce(x, -inf), dimensions={d}, to_apply=max
//   s = subtract(x, broadcast(m))          broadcast over every dim but d
//   e = exponential(s)
//   z = reduce(e, 0), dimensions={d}, to_apply=add
//   softmax:     divide(e, broadcast(z))
//   log-softmax: subtract(s, broadcast(log(z)))
//
// Every intermediate must be used only inside the pattern. Only with
// relaxed NaN semantics: oneDNN's row maximum skips a NaN (the other
// elements of the row come out finite, where HLO's are NaN). oneDNN has
// fast kernels only for the innermost (stride-1) axis with the result in
// the input's layout; other softmaxes stay on the CPU plugin.
#ifndef PLEXA_PLUGINS_ONEDNN_SOFTMAX_H_
#define PLEXA_PLUGINS_ONEDNN_SOFTMAX_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/instruction.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/onednn/onednn_plan.h"

namespace plexa::onednn {

struct SoftmaxMatch {
  const Instruction* input = nullptr;  // x
  int64_t axis = 0;
  bool log = false;
  // Every instruction of the pattern, operands first (the constants
  // included): the members of the fusion that replaces it.
  std::vector<Instruction*> members;
};

// The softmax whose result is `root`, if it is one.
std::optional<SoftmaxMatch> MatchSoftmax(const Instruction& root);

// The primitive: data in x's layout, read and written in place.
absl::StatusOr<Plan> BuildSoftmaxPlan(const SoftmaxMatch& match,
                                      const Shape& result,
                                      const dnnl::engine& engine);

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_SOFTMAX_H_
