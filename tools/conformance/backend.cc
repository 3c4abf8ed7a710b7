#include "tools/conformance/backend.h"

#include <utility>

namespace plexa {
namespace {

std::vector<ConformanceBackend>& Registry() {
  // Function-local static: safe to use from other static initialisers.
  static auto* const registry = new std::vector<ConformanceBackend>();
  return *registry;
}

}  // namespace

bool RegisterConformanceBackend(ConformanceBackend backend) {
  Registry().push_back(std::move(backend));
  return true;
}

absl::StatusOr<ConformanceFeedResult> RunWithFeedQueues(
    const std::vector<Literal>& infeed,
    const std::function<absl::StatusOr<Literal>(HostFeeds* feeds)>& run) {
  HostFeedQueue in_queue;
  HostFeedQueue out_queue;
  for (const Literal& l : infeed) in_queue.Push(l);
  QueueFeeds feeds(&in_queue, &out_queue);
  absl::StatusOr<Literal> result = run(&feeds);
  if (!result.ok()) return result.status();
  ConformanceFeedResult out;
  out.result = *std::move(result);
  while (std::optional<Literal> l = out_queue.Pop()) {
    out.outfeed.push_back(*std::move(l));
  }
  return out;
}

const std::vector<ConformanceBackend>& ConformanceBackends() {
  return Registry();
}

}  // namespace plexa
