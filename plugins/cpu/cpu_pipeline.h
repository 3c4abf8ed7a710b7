// The CPU plugin's pass pipeline: the default pipeline with batch-norm
// expansion, then reduction splitting, loop and input fusion (not dot
// output fusion: dots stay GEMM calls) and dead-code elimination.
#ifndef PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_
#define PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_

#include "absl/status/status.h"
#include "core/ir/module.h"
#include "plugins/cpu/cpu_extension.h"

namespace plexa::cpu {

// `module` must be verified; it is verified again afterwards. An
// `extension` (may be null) rewrites the module after the default pipeline,
// before the CPU's own passes.
absl::Status RunCpuPipeline(Module* module, CpuExtension* extension = nullptr);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_PIPELINE_H_
