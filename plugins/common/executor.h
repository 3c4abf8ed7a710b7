// Runs compiled computations: RunComputation binds a computation's slots
// (parameters, constants, its arena, the caller's result buffers) and runs
// its thunks in order; control-flow thunks call it for the computations
// they run. ProgramExecutor owns a program's computations and keeps the
// arenas of finished runs for the next ones (no allocation or page faults
// per execution once warm; one set per concurrent run).
#ifndef PLEXA_PLUGINS_COMMON_EXECUTOR_H_
#define PLEXA_PLUGINS_COMMON_EXECUTOR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/literal/literal.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

// Runs `cc` on `params` (one pointer per parameter leaf); `results` gets a
// pointer per result leaf. `bound_results` are the entry computation's
// result buffers (kResult slots); empty for other computations.
absl::Status RunComputation(const CompiledComputation& cc,
                            absl::Span<uint8_t* const> params, ExecContext& ctx,
                            std::vector<uint8_t*>* results,
                            absl::Span<void* const> bound_results);

class ProgramExecutor {
 public:
  ProgramExecutor(
      std::vector<std::unique_ptr<CompiledComputation>> computations,
      const CompiledComputation* entry,
      std::vector<std::unique_ptr<Literal>> constants);

  const CompiledComputation& entry() const { return *entry_; }
  // Shapes of the entry's array parameter and result leaves (the ABI's
  // flattening: tokens hold no data).
  const std::vector<Shape>& parameter_shapes() const {
    return parameter_shapes_;
  }
  const std::vector<Shape>& result_shapes() const { return result_shapes_; }
  // Every computation's steps (DescribeSteps, thunk.h).
  std::string DescribeSteps() const {
    return backend::DescribeSteps(computations_);
  }

  // Runs the entry computation with `ctx` (replica, hub, feeds and the
  // backend's own fields set by the caller; its arenas are filled here).
  // `args` are the memory of the entry parameters' array leaves, `results`
  // one pointer per result array leaf.
  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results, ExecContext& ctx) const;

 private:
  std::vector<std::unique_ptr<CompiledComputation>> computations_;
  const CompiledComputation* entry_;
  std::vector<std::unique_ptr<Literal>> constants_;  // the slots point here
  std::vector<Shape> parameter_shapes_;
  std::vector<Shape> result_shapes_;
  mutable std::mutex arenas_mu_;
  mutable std::vector<std::vector<AlignedMemory>> free_arenas_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_EXECUTOR_H_
