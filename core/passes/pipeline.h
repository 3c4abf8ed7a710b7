// Pipelines: an ordered list of passes, with the verifier between passes,
// fixpoint groups, per-pass timing and a dump of the module after each pass.
//
//   Pipeline pipeline("default");
//   pipeline.AddPass<CallInliner>();
//   Pipeline& simplify = pipeline.AddFixpoint("simplify");
//   simplify.AddPass<AlgebraicSimplifier>();
//   simplify.AddPass<DeadCodeElimination>();
//   absl::StatusOr<bool> changed = pipeline.Run(*module);
//
// A Pipeline is itself a Pass, so pipelines nest; a fixpoint group is a
// nested pipeline run again until an iteration changes nothing (or its
// iteration cap is reached, which is recorded in the stats rather than
// treated as an error: the module is still valid, just not at a fixpoint).
#ifndef PLEXA_CORE_PASSES_PIPELINE_H_
#define PLEXA_CORE_PASSES_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/passes/pass.h"

namespace plexa {

// True in debug builds: the verifier runs between passes unless turned off.
#ifdef NDEBUG
inline constexpr bool kVerifyPassesByDefault = false;
#else
inline constexpr bool kVerifyPassesByDefault = true;
#endif

struct PipelineConfig {
  // Run VerifyModule on the input and after every pass; a failure names the
  // pass that broke the module. Tests turn this on in every build.
  bool verify = kVerifyPassesByDefault;

  // Dump the module's HLO text after each pass: into `dump_dir` (created
  // if needed) as `<module>.<NNNN>.<pipeline path>.<pass>.hlo`, and/or to
  // `dump_callback(pass path, text)`. The input is dumped first as
  // `<NNNN>.input`. By default only passes that changed the module are
  // dumped.
  std::string dump_dir;
  std::function<void(absl::string_view pass_path, absl::string_view text)>
      dump_callback;
  bool dump_unchanged = false;
};

// One run of one pass.
struct PassTiming {
  std::string pass;  // "default/simplify/algebraic-simplifier"
  double milliseconds = 0;
  bool changed = false;
  int64_t iteration = 0;  // fixpoint iteration (0 outside fixpoints)
};

struct PipelineStats {
  std::vector<PassTiming> timings;
  // Fixpoint groups that stopped at their iteration cap while still
  // changing the module.
  std::vector<std::string> fixpoint_caps_hit;
  double total_milliseconds = 0;

  // One line per pass name: runs, changed runs, total time; slowest first.
  std::string Summary() const;
};

class Pipeline : public Pass {
 public:
  explicit Pipeline(std::string name, PipelineConfig config = {});
  ~Pipeline() override;

  absl::string_view name() const override { return name_; }
  absl::StatusOr<bool> Run(Module& module) override;

  // Appends a pass; returns it for configuration.
  Pass& AddPass(std::unique_ptr<Pass> pass);
  template <typename T, typename... Args>
  T& AddPass(Args&&... args) {
    auto pass = std::make_unique<T>(std::forward<Args>(args)...);
    T& ref = *pass;
    AddPass(std::move(pass));
    return ref;
  }
  // Appends a nested group run until none of its passes changes the
  // module, at most `max_iterations` times.
  Pipeline& AddFixpoint(std::string name, int64_t max_iterations = 25);
  // Appends a nested pipeline run once.
  Pipeline& AddSubPipeline(std::string name);

  int64_t pass_count() const { return static_cast<int64_t>(passes_.size()); }
  const PipelineConfig& config() const { return config_; }
  PipelineConfig* mutable_config() { return &config_; }

  // Stats of the last Run (nested pipelines report into their parent's).
  const PipelineStats& stats() const { return stats_; }

 private:
  struct Context;
  absl::StatusOr<bool> RunIn(Module& module, Context& context,
                             const std::string& prefix);
  absl::StatusOr<bool> RunOnce(Module& module, Context& context,
                               const std::string& path, int64_t iteration);

  std::string name_;
  PipelineConfig config_;
  std::vector<std::unique_ptr<Pass>> passes_;
  bool fixpoint_ = false;
  int64_t max_iterations_ = 1;
  PipelineStats stats_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_PIPELINE_H_
