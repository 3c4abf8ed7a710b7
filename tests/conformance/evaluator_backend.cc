// Registers the reference evaluator (core/eval) as the "evaluator" backend.
#include <optional>
#include <utility>
#include <vector>

#include "core/eval/evaluator.h"
#include "tests/conformance/backend.h"

namespace plexa {
namespace {

ConformanceBackend MakeEvaluatorBackend() {
  ConformanceBackend backend;
  backend.name = "evaluator";
  backend.run = [](const Module& module,
                   const std::vector<std::vector<Literal>>& per_replica_inputs)
      -> absl::StatusOr<std::vector<Literal>> {
    Evaluator evaluator;
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
    HostFeedQueue in_queue;
    HostFeedQueue out_queue;
    for (const Literal& l : infeed) in_queue.Push(l);
    EvaluatorOptions options;
    options.infeed = &in_queue;
    options.outfeed = &out_queue;
    Evaluator evaluator(std::move(options));
    absl::StatusOr<Literal> result = evaluator.Run(module, inputs);
    if (!result.ok()) return result.status();
    ConformanceFeedResult out;
    out.result = *std::move(result);
    while (std::optional<Literal> l = out_queue.Pop()) {
      out.outfeed.push_back(*std::move(l));
    }
    return out;
  };
  return backend;
}

}  // namespace
}  // namespace plexa

PLEXA_REGISTER_CONFORMANCE_BACKEND(evaluator, plexa::MakeEvaluatorBackend());
