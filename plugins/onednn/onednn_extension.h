// The oneDNN plugin's half of the CPU plugin (plugins/cpu/cpu_extension.h):
//   - the rewrite: after the default pipeline, each softmax and log-softmax
//     (softmax.h) becomes a fusion {"onednn":"softmax"}; each dot and
//     convolution
//     that oneDNN takes (onednn_plan.h), with the elementwise chain that
//     consumes it, becomes a fusion of kind kCustom with backend_config
//     {"onednn":"matmul"} or {"onednn":"convolution"}; its fused
//     computation still says what it computes, so the module prints,
//     serializes and runs on the evaluator as before;
//   - the thunks: each such fusion runs as one primitive built at compile.
// Everything else is the CPU plugin's compiled code.
#ifndef PLEXA_PLUGINS_ONEDNN_ONEDNN_EXTENSION_H_
#define PLEXA_PLUGINS_ONEDNN_ONEDNN_EXTENSION_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/cpu_extension.h"
#include "plugins/onednn/onednn_plan.h"

namespace plexa::onednn {

// True for a fusion the rewrite made.
bool IsOneDnnFusion(const Instruction& h);

class OneDnnExtension : public cpu::CpuExtension {
 public:
  // The CPU engine (an error when oneDNN has none).
  static absl::StatusOr<std::shared_ptr<OneDnnExtension>> Create(
      MatchOptions options, int num_threads);

  std::string name() const override { return "onednn"; }
  absl::StatusOr<bool> RewriteBeforeFusion(Module* module) override;
  absl::StatusOr<cpu::ExtensionThunk> MakeThunk(const Instruction& h) override;
  bool KeepBatchNorm(const Instruction& bn) const override;
  // "N oneDNN primitives (convolution a, matmul b, ...), P post-ops fused,
  // R reorders per execution; <implementation> xN, ...; left to the CPU
  // plugin: <why>; ..."
  std::string Report(const Module& optimized) const override;

 private:
  // A fusion of one of primitives.h's patterns.
  absl::StatusOr<cpu::ExtensionThunk> MakePatternThunk(const Instruction& h);
  // The patterns of `c` (the elementwise ones or the others) as fusions.
  absl::StatusOr<bool> FusePatterns(Module* module, Computation* c,
                                    bool elementwise);
  // Records why something stays on the CPU plugin, for the report.
  void Refused(const Module* module, absl::Status why) const;

  OneDnnExtension(dnnl::engine engine, MatchOptions options, int num_threads)
      : engine_(std::move(engine)),
        options_(options),
        num_threads_(num_threads) {}

  struct Stats {
    absl::flat_hash_map<std::string, int> primitives;  // by kind
    int post_ops = 0, reorders = 0;
    absl::flat_hash_map<std::string, int> impls;
    // Dots and convolutions left to the CPU plugin, with oneDNN's reason.
    std::vector<std::string> refused;
  };

  dnnl::engine engine_;
  MatchOptions options_;
  int num_threads_;
  mutable std::mutex mu_;
  // Per module being compiled, read by Report (bounded: programs that are
  // never reported do not pile up).
  mutable absl::flat_hash_map<const Module*, Stats> stats_;
};

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_ONEDNN_EXTENSION_H_
