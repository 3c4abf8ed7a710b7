// Plugins loaded through the C ABI (abi/host) as conformance backends
// (the in-tree plugins register themselves with MakePluginBackend; `plexa
// test-plugin` makes one for any plugin), so the whole suite runs through
// dlopen, the function table, buffers and executables.
// Programs are handed over in the plexa-module format when the plugin
// accepts it (else HLO text), exactly as `plexa run --backend=...` does.
#include "tools/conformance/plugin_backend.h"

#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi/host/replicated_run.h"
#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/ir/collective_groups.h"
#include "tools/conformance/backend.h"

namespace plexa {
namespace {

absl::StatusOr<std::vector<Literal>> RunOnPlugin(
    const std::string& path, std::vector<host::Plugin::Option> options,
    const std::vector<std::string>& custom_call_libraries, const Module& module,
    const std::vector<std::vector<Literal>>& per_replica_inputs,
    bool asynchronous, HostFeeds* feeds = nullptr) {
  auto plugin = host::Plugin::Load(path);
  if (!plugin.ok()) return plugin.status();
  auto client = (*plugin)->CreateClient(options);
  if (!client.ok()) return client.status();
  // SPMD partitions as the module's header says (num_partitions=P); the
  // inputs are one list per device, replicas x partitions.
  absl::StatusOr<std::optional<int64_t>> partitions =
      ModuleHeaderCount(module, "num_partitions");
  if (!partitions.ok()) return partitions.status();
  host::CompileOptions compile;
  compile.num_partitions = partitions->value_or(1);
  compile.num_replicas =
      static_cast<int64_t>(per_replica_inputs.size()) / compile.num_partitions;
  compile.custom_call_libraries = custom_call_libraries;
  auto exe = host::CompileModule(**client, module, compile);
  if (!exe.ok()) return exe.status();
  auto run = host::ReplicatedRun::Create(
      **client, std::move(*exe),
      module.entry_computation()->root_instruction()->shape(),
      per_replica_inputs);
  if (!run.ok()) return run.status();
  return asynchronous ? (*run)->RunAsync(feeds) : (*run)->Run(feeds);
}

}  // namespace

ConformanceBackend MakePluginBackend(
    std::string name, std::string path,
    std::vector<host::Plugin::Option> options,
    std::vector<std::string> custom_call_libraries, bool asynchronous) {
  ConformanceBackend backend;
  backend.name = std::move(name);
  backend.run = [path, options, custom_call_libraries, asynchronous](
                    const Module& module,
                    const std::vector<std::vector<Literal>>& inputs) {
    return RunOnPlugin(path, options, custom_call_libraries, module, inputs,
                       asynchronous);
  };
  // Host feed queues through the ABI's PLX_FeedsExtension.
  backend.run_with_feeds = [path, options, custom_call_libraries, asynchronous](
                               const Module& module,
                               const std::vector<Literal>& inputs,
                               const std::vector<Literal>& infeed)
      -> absl::StatusOr<ConformanceFeedResult> {
    return RunWithFeedQueues(
        infeed, [&](HostFeeds* feeds) -> absl::StatusOr<Literal> {
          auto results = RunOnPlugin(path, options, custom_call_libraries,
                                     module, {inputs}, asynchronous, feeds);
          if (!results.ok()) return results.status();
          return std::move(results->front());
        });
  };
  return backend;
}

}  // namespace plexa
