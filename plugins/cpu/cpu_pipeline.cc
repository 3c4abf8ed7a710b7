#include "plugins/cpu/cpu_pipeline.h"

#include <initializer_list>

#include "core/passes/dce.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/fusion.h"
#include "core/verifier/verifier.h"
#include "plugins/cpu/reduction_splitter.h"

namespace plexa::cpu {

absl::Status RunCpuPipeline(Module* module) {
  PipelineOptions options;
  options.expand_batch_norm = true;
  absl::StatusOr<bool> changed = RunDefaultPipeline(module, options);
  if (!changed.ok()) return changed.status();
  // Then the CPU's own choices: split reductions with tiny results, fuse
  // loops and reductions with their producers (dots stay GEMM calls).
  ReductionSplitter splitter;
  InstructionFusion::Options fusion;
  fusion.output_fusion = false;
  InstructionFusion fuse(fusion);
  DeadCodeElimination dce;
  for (Pass* pass : std::initializer_list<Pass*>{&splitter, &fuse, &dce}) {
    absl::StatusOr<bool> r = pass->Run(*module);
    if (!r.ok()) return r.status();
  }
  return VerifyModule(*module);
}

}  // namespace plexa::cpu
