// Running a module on a plugin from the host, the one way every host tool
// does it (`plexa run`, the conformance suite): compile in the best format
// the plugin reads, upload each replica's entry parameters once (tuples
// flattened to array leaves), then execute as often as wanted and
// reassemble each replica's result into the entry result shape.
#ifndef PLEXA_ABI_HOST_REPLICATED_RUN_H_
#define PLEXA_ABI_HOST_REPLICATED_RUN_H_

#include <memory>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/status/statusor.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

namespace plexa::host {

// Compiles `module` on `client`: the serialized plexa-module when the plugin
// lists that format, else HLO text.
absl::StatusOr<std::unique_ptr<Executable>> CompileModule(
    Client& client, const Module& module, const CompileOptions& options = {});

class ReplicatedRun {
 public:
  // Uploads per_replica_inputs[r] (the entry parameters of replica r, in
  // order) to device r % (number of devices). `result_shape` is the entry
  // result's shape (tuples are reassembled from the array leaves).
  static absl::StatusOr<std::unique_ptr<ReplicatedRun>> Create(
      Client& client, std::unique_ptr<Executable> executable,
      Shape result_shape,
      const std::vector<std::vector<Literal>>& per_replica_inputs);

  // Executes once (the inputs stay on the device) and returns one result
  // per replica. `feeds` is used during the call only.
  absl::StatusOr<std::vector<Literal>> Run(HostFeeds* feeds = nullptr,
                                           Profiler* profiler = nullptr) const;
  // The same through ABI 1.2's asynchronous calls: ExecuteAsync, then a
  // ToLiteralAsync of every output before any is awaited (for a plugin
  // without the 1.2 slots, what Run does).
  absl::StatusOr<std::vector<Literal>> RunAsync(
      HostFeeds* feeds = nullptr, Profiler* profiler = nullptr) const;

  const Executable& executable() const { return *executable_; }

 private:
  ReplicatedRun() = default;
  std::unique_ptr<Executable> executable_;
  Shape result_shape_;
  std::vector<std::vector<std::unique_ptr<Buffer>>> inputs_;
  // The arguments' handles, replica by replica.
  std::vector<std::vector<Buffer*>> Arguments() const;
  // Each replica's output leaves assembled into the entry result.
  absl::StatusOr<std::vector<Literal>> Assemble(
      std::vector<std::vector<Literal>> leaves) const;
};

}  // namespace plexa::host

#endif  // PLEXA_ABI_HOST_REPLICATED_RUN_H_
