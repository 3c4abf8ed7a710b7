// The CPU plugin's pass pipeline: the default pipeline with batch-norm
// expansion, then reduction splitting, loop and input fusion (not dot
// output fusion: dots stay GEMM calls) and dead-code elimination.
#ifndef PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_
#define PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_

#include "absl/status/status.h"
#include "core/ir/module.h"

namespace plexa::cpu {

// `module` must be verified; it is verified again afterwards.
absl::Status RunCpuPipeline(Module* module);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_
