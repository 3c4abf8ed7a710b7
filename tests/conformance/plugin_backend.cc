// Plugins loaded through the C ABI (abi/host) as conformance backends:
// the reference plugin ("referenceplugin") is registered here; other
// plugins register themselves with MakePluginBackend (plugin_backend.h),
// so the whole suite runs through dlopen, the function table, buffers and
// executables.
// Programs are handed over in the plexa-module format when the plugin
// accepts it (else HLO text), exactly as `plexa run --backend=...` does.
#include "tests/conformance/plugin_backend.h"

#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/proto/module_proto.h"
#include "core/text/hlo_printer.h"
#include "tests/conformance/backend.h"

namespace plexa {
namespace {

// Enough virtual devices for the suite's replicated cases.
constexpr int64_t kDevices = 4;

absl::StatusOr<std::vector<Literal>> RunOnPlugin(
    const std::string& path, const Module& module,
    const std::vector<std::vector<Literal>>& per_replica_inputs,
    HostFeeds* feeds = nullptr) {
  auto plugin = host::Plugin::Load(path);
  if (!plugin.ok()) return plugin.status();
  std::vector<host::Plugin::Option> options;
  const std::string& name = (*plugin)->attributes().name;
  if (name == "reference" || name == "cpu") {
    options.push_back({"num_devices", PLX_Value_INT64, "", kDevices});
  }
  auto client = (*plugin)->CreateClient(options);
  if (!client.ok()) return client.status();
  const int64_t replicas = static_cast<int64_t>(per_replica_inputs.size());
  host::CompileOptions compile;
  compile.num_replicas = replicas;
  bool proto = false;
  for (const std::string& f : (*plugin)->attributes().formats) {
    proto |= f == "plexa-module";
  }
  absl::StatusOr<std::unique_ptr<host::Executable>> exe;
  if (proto) {
    auto bytes = SerializeModule(module);
    if (!bytes.ok()) return bytes.status();
    exe = (*client)->Compile(*bytes, "plexa-module", compile);
  } else {
    exe = (*client)->Compile(PrintModule(module), "hlo-text", compile);
  }
  if (!exe.ok()) return exe.status();
  const int64_t devices = static_cast<int64_t>((*client)->devices().size());
  std::vector<std::vector<std::unique_ptr<host::Buffer>>> owned(replicas);
  std::vector<std::vector<host::Buffer*>> args(replicas);
  for (int64_t r = 0; r < replicas; ++r) {
    for (const Literal& in : per_replica_inputs[r]) {
      auto leaves = host::ParameterBuffers(**client, in, r % devices);
      if (!leaves.ok()) return leaves.status();
      for (auto& b : *leaves) {
        args[r].push_back(b.get());
        owned[r].push_back(std::move(b));
      }
    }
  }
  auto outputs = (*exe)->Execute(args, {}, feeds);
  if (!outputs.ok()) return outputs.status();
  const Shape result_shape =
      module.entry_computation()->root_instruction()->shape();
  std::vector<Literal> results;
  for (auto& replica : *outputs) {
    std::vector<Literal> leaves;
    for (auto& b : replica) {
      auto lit = b->ToLiteral();
      if (!lit.ok()) return lit.status();
      leaves.push_back(std::move(*lit));
    }
    auto result = AssembleFromArrayLeaves(result_shape, std::move(leaves));
    if (!result.ok()) return result.status();
    results.push_back(std::move(*result));
  }
  return results;
}

}  // namespace

ConformanceBackend MakePluginBackend(std::string name, std::string path) {
  ConformanceBackend backend;
  backend.name = std::move(name);
  backend.run = [path](const Module& module,
                       const std::vector<std::vector<Literal>>& inputs) {
    return RunOnPlugin(path, module, inputs);
  };
  // Host feed queues through the ABI's PLX_FeedsExtension.
  backend.run_with_feeds = [path](const Module& module,
                                  const std::vector<Literal>& inputs,
                                  const std::vector<Literal>& infeed)
      -> absl::StatusOr<ConformanceFeedResult> {
    return RunWithFeedQueues(
        infeed, [&](HostFeeds* feeds) -> absl::StatusOr<Literal> {
          auto results = RunOnPlugin(path, module, {inputs}, feeds);
          if (!results.ok()) return results.status();
          return std::move(results->front());
        });
  };
  return backend;
}

}  // namespace plexa

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    referenceplugin,
    plexa::MakePluginBackend("referenceplugin", PLEXA_REFERENCE_PLUGIN));
