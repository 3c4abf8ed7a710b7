// The interface through which a backend joins the conformance suite.
//
// A backend registers one ConformanceBackend at static-initialisation time
// from a source file compiled into plexa_conformance_test:
//
//   PLEXA_REGISTER_CONFORMANCE_BACKEND(my_backend, [] {
//     plexa::ConformanceBackend b;
//     b.name = "my_backend";
//     b.run = [](const plexa::Module& module,
//                const std::vector<std::vector<plexa::Literal>>& inputs)
//         -> absl::StatusOr<std::vector<plexa::Literal>> { ... };
//     return b;
//   }());
//
// and the suite runs every case file against it (see README.md).
#ifndef PLEXA_TOOLS_CONFORMANCE_BACKEND_H_
#define PLEXA_TOOLS_CONFORMANCE_BACKEND_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/eval/evaluator.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

namespace plexa {

// What a run with host feed queues produces: the result and everything the
// program pushed to its outfeed, oldest first.
struct ConformanceFeedResult {
  Literal result;
  std::vector<Literal> outfeed;
};

// Runs `run` with a QueueFeeds whose infeed queue holds `infeed` and whose
// outfeed queue starts empty; returns the result and the outfeed contents.
absl::StatusOr<ConformanceFeedResult> RunWithFeedQueues(
    const std::vector<Literal>& infeed,
    const std::function<absl::StatusOr<Literal>(HostFeeds* feeds)>& run);

struct ConformanceBackend {
  // Short identifier: [A-Za-z0-9]+ (it becomes part of test names and is
  // the first column of skips.txt).
  std::string name;

  // Runs the module's entry computation once per replica.
  // per_replica_inputs.size() is the replica count (1 for an ordinary
  // case); element r holds replica r's entry arguments, in parameter order.
  // Returns one result per replica, in replica order. Results may be in any
  // layout (the suite compares values, not layouts).
  std::function<absl::StatusOr<std::vector<Literal>>(
      const Module& module,
      const std::vector<std::vector<Literal>>& per_replica_inputs)>
      run;

  // Optional. Runs one replica with a host infeed queue holding `infeed`
  // (oldest first) and an empty outfeed queue, and returns the result with
  // the outfeed contents. Backends that leave it empty must list the cases
  // with `// infeed:` / `// outfeed:` lines in skips.txt.
  std::function<absl::StatusOr<ConformanceFeedResult>(
      const Module& module, const std::vector<Literal>& inputs,
      const std::vector<Literal>& infeed)>
      run_with_feeds;
};

// Adds a backend (call before main, e.g. through the macro). Returns true
// so it can initialise a static. A second backend with the same name is an
// error reported by the suite.
bool RegisterConformanceBackend(ConformanceBackend backend);

// All registered backends, in registration order.
const std::vector<ConformanceBackend>& ConformanceBackends();

}  // namespace plexa

#define PLEXA_REGISTER_CONFORMANCE_BACKEND(id, ...)           \
  static const bool plexa_conformance_backend_registered_##id \
      [[maybe_unused]] = ::plexa::RegisterConformanceBackend(__VA_ARGS__)

#endif  // PLEXA_TOOLS_CONFORMANCE_BACKEND_H_
