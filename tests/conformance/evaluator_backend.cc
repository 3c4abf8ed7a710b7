// Registers the reference evaluator (core/eval) as the "evaluator" backend.
#include <optional>
#include <utility>
#include <vector>

#include "core/eval/evaluator.h"
#include "core/ir/collective_groups.h"
#include "tools/conformance/backend.h"

namespace plexa {
namespace {

ConformanceBackend MakeEvaluatorBackend() {
  ConformanceBackend backend;
  backend.name = "evaluator";
  backend.run = [](const Module& module,
                   const std::vector<std::vector<Literal>>& per_replica_inputs)
      -> absl::StatusOr<std::vector<Literal>> {
    // SPMD partitions as the module's header says (num_partitions=P).
    absl::StatusOr<std::optional<int64_t>> partitions =
        ModuleHeaderCount(module, "num_partitions");
    if (!partitions.ok()) return partitions.status();
    EvaluatorOptions options;
    options.num_partitions = partitions->value_or(1);
    Evaluator evaluator(std::move(options));
    if (per_replica_inputs.size() == 1) {
      absl::StatusOr<Literal> result =
          evaluator.Run(module, per_replica_inputs[0]);
      if (!result.ok()) return result.status();
      std::vector<Literal> out;
      out.push_back(*std::move(result));
      return out;
    }
    return evaluator.RunReplicated(module, per_replica_inputs);
  };
  backend.run_with_feeds = [](const Module& module,
                              const std::vector<Literal>& inputs,
                              const std::vector<Literal>& infeed)
      -> absl::StatusOr<ConformanceFeedResult> {
    return RunWithFeedQueues(infeed,
                             [&](HostFeeds* feeds) -> absl::StatusOr<Literal> {
                               EvaluatorOptions options;
                               options.feeds = feeds;
                               Evaluator evaluator(std::move(options));
                               return evaluator.Run(module, inputs);
                             });
  };
  return backend;
}

}  // namespace
}  // namespace plexa

PLEXA_REGISTER_CONFORMANCE_BACKEND(evaluator, plexa::MakeEvaluatorBackend());
