// The default optimization pipeline and the pass registry.
//
// RunDefaultPipeline runs, in order:
//   1. pin-entry-layout         (the result layout survives root rewrites)
//   2. async-to-sync, sharding-remover, call-inliner, map-inliner,
//      dynamic-padder           (dynamic shapes made static)
//   3. batchnorm-expander       (if expand_batch_norm)
//   4. fixpoint "simplify":     algebraic-simplifier, tuple-simplifier,
//                               constant-folding, while-loop-simplifier,
//                               cse, dce
//   5. operand-upcaster         (mixed-type dot/convolution operands
//                               converted to the result type)
//      reduce-window-rewriter   (scans as reduce-windows, in blocks)
//   6. clamp-expander           (if expand_clamp)
//   7. layout-assignment        (if assign_layouts)
//   8. fusion, dce              (if fusion)
// with the verifier between passes when `verify` is set (always in debug
// builds and tests).
#ifndef PLEXA_CORE_PASSES_DEFAULT_PIPELINE_H_
#define PLEXA_CORE_PASSES_DEFAULT_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/passes/constant_folding.h"
#include "core/passes/fusion.h"
#include "core/passes/layout_assignment.h"
#include "core/passes/pass.h"
#include "core/passes/pipeline.h"

namespace plexa {

struct PipelineOptions {
  bool verify = kVerifyPassesByDefault;
  // See PipelineConfig.
  std::string dump_dir;
  std::function<void(absl::string_view pass_path, absl::string_view text)>
      dump_callback;

  // Backend choices.
  bool expand_batch_norm = false;
  // With expand_batch_norm: the batch norms to leave unexpanded.
  std::function<bool(const Instruction&)> keep_batch_norm;
  bool expand_clamp = false;
  // scan as a while loop (ScanExpander), for backends whose loops keep
  // their bodies on a device.
  bool expand_scan = false;
  bool canonicalize_dots = false;
  bool assign_layouts = true;
  LayoutPreferences layout_preferences;
  bool fusion = false;
  InstructionFusion::Options fusion_options;

  ConstantFolding::Options constant_folding;
  int64_t max_fixpoint_iterations = 25;

  // Filled with per-pass timings when given.
  PipelineStats* stats = nullptr;
};

std::unique_ptr<Pipeline> MakeDefaultPipeline(
    const PipelineOptions& options = {});

// Runs the default pipeline on `module`; true if it changed.
absl::StatusOr<bool> RunDefaultPipeline(Module* module,
                                        const PipelineOptions& options = {});

// ---- Registry (plexa opt --passes=a,b,c) ------------------------------------

// Pass names `CreatePass` knows, sorted.
std::vector<std::string> RegisteredPassNames();
// A pass by name ("dce", "algebraic-simplifier", ..., "default" for the
// whole default pipeline built from `options`).
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(
    absl::string_view name, const PipelineOptions& options = {});

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_DEFAULT_PIPELINE_H_
