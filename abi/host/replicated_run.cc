#include "abi/host/replicated_run.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/base/status_macros.h"
#include "core/proto/module_proto.h"
#include "core/text/hlo_printer.h"

namespace plexa::host {

absl::StatusOr<std::unique_ptr<Executable>> CompileModule(
    Client& client, const Module& module, const CompileOptions& options) {
  const std::vector<std::string>& formats =
      client.plugin().attributes().formats;
  if (std::find(formats.begin(), formats.end(), kModuleFormatName) !=
      formats.end()) {
    PLEXA_ASSIGN_OR_RETURN(std::string bytes, SerializeModule(module));
    return client.Compile(bytes, kModuleFormatName, options);
  }
  return client.Compile(PrintModule(module), "hlo-text", options);
}

absl::StatusOr<std::unique_ptr<ReplicatedRun>> ReplicatedRun::Create(
    Client& client, std::unique_ptr<Executable> executable, Shape result_shape,
    const std::vector<std::vector<Literal>>& per_replica_inputs) {
  std::unique_ptr<ReplicatedRun> run(new ReplicatedRun);
  run->executable_ = std::move(executable);
  run->result_shape_ = std::move(result_shape);
  const int64_t devices = static_cast<int64_t>(client.devices().size());
  if (devices == 0) {
    return absl::FailedPreconditionError("the client has no devices");
  }
  for (size_t r = 0; r < per_replica_inputs.size(); ++r) {
    run->inputs_.emplace_back();
    for (const Literal& in : per_replica_inputs[r]) {
      PLEXA_ASSIGN_OR_RETURN(
          std::vector<std::unique_ptr<Buffer>> leaves,
          ParameterBuffers(client, in, static_cast<int64_t>(r) % devices));
      for (auto& b : leaves) run->inputs_.back().push_back(std::move(b));
    }
  }
  return run;
}

absl::StatusOr<std::vector<Literal>> ReplicatedRun::Run(
    HostFeeds* feeds, Profiler* profiler) const {
  std::vector<std::vector<Buffer*>> args;
  for (const auto& replica : inputs_) {
    args.emplace_back();
    for (const auto& b : replica) args.back().push_back(b.get());
  }
  PLEXA_ASSIGN_OR_RETURN(auto outputs,
                         executable_->Execute(args, {}, feeds, profiler));
  std::vector<Literal> results;
  for (auto& replica : outputs) {
    std::vector<Literal> leaves;
    for (auto& b : replica) {
      PLEXA_ASSIGN_OR_RETURN(Literal leaf, b->ToLiteral());
      leaves.push_back(std::move(leaf));
    }
    PLEXA_ASSIGN_OR_RETURN(
        Literal result,
        AssembleFromArrayLeaves(result_shape_, std::move(leaves)));
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace plexa::host
