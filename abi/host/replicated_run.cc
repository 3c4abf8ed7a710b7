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

std::vector<std::vector<Buffer*>> ReplicatedRun::Arguments() const {
  std::vector<std::vector<Buffer*>> args;
  for (const auto& replica : inputs_) {
    args.emplace_back();
    for (const auto& b : replica) args.back().push_back(b.get());
  }
  return args;
}

absl::StatusOr<std::vector<Literal>> ReplicatedRun::Assemble(
    std::vector<std::vector<Literal>> leaves) const {
  std::vector<Literal> results;
  for (auto& replica : leaves) {
    PLEXA_ASSIGN_OR_RETURN(
        Literal result,
        AssembleFromArrayLeaves(result_shape_, std::move(replica)));
    results.push_back(std::move(result));
  }
  return results;
}

absl::StatusOr<std::vector<Literal>> ReplicatedRun::Run(
    HostFeeds* feeds, Profiler* profiler) const {
  PLEXA_ASSIGN_OR_RETURN(
      auto outputs, executable_->Execute(Arguments(), {}, feeds, profiler));
  std::vector<std::vector<Literal>> leaves(outputs.size());
  for (size_t r = 0; r < outputs.size(); ++r) {
    for (auto& b : outputs[r]) {
      PLEXA_ASSIGN_OR_RETURN(Literal leaf, b->ToLiteral());
      leaves[r].push_back(std::move(leaf));
    }
  }
  return Assemble(std::move(leaves));
}

absl::StatusOr<std::vector<Literal>> ReplicatedRun::RunAsync(
    HostFeeds* feeds, Profiler* profiler) const {
  PLEXA_ASSIGN_OR_RETURN(
      Executable::Async run,
      executable_->ExecuteAsync(Arguments(), {}, {}, feeds, profiler));
  std::vector<std::vector<Literal>> leaves(run.outputs.size());
  std::vector<std::unique_ptr<Event>> downloads;
  for (size_t r = 0; r < run.outputs.size(); ++r) {
    leaves[r].resize(run.outputs[r].size());
    for (size_t i = 0; i < run.outputs[r].size(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(std::unique_ptr<Event> e,
                             run.outputs[r][i]->ToLiteralAsync(&leaves[r][i]));
      downloads.push_back(std::move(e));
    }
  }
  // Every event is awaited (the literals and feeds are in use until then);
  // the first error is the run's.
  absl::Status status;
  for (auto& e : run.completion) {
    absl::Status s = e->Await();
    if (status.ok()) status = s;
  }
  for (auto& e : downloads) {
    absl::Status s = e->Await();
    if (status.ok()) status = s;
  }
  if (!status.ok()) return status;
  return Assemble(std::move(leaves));
}

}  // namespace plexa::host
