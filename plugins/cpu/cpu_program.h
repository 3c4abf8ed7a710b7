// The CPU plugin's compiled program: what CompileProgram makes of an
// optimized, fused module (cpu_pipeline.h) and how it runs.
//
// CpuThunkEmitter (cpu_thunk_emitter.h) on the toolkit's ThunkEmitter
// (plugins/common/thunk_emitter.h) turns each computation into a sequence
// of thunks over slots:
//   - kernel thunks: JIT-compiled LLVM loops for fusions, elementwise,
//     shape and reduce instructions (kernel_thunk.h,
//     codegen/kernel_emitter.h);
//   - runtime thunks, one file each: dot (gemm_thunk.h), convolution
//     (conv_thunk.h), dynamic-update-slice, scatter, select-and-scatter,
//     sort, custom calls; all-reduce across replicas (the toolkit's
//     all_reduce_thunk.h);
//   - control-flow thunks: while, conditional and call run their
//     computations' thunk sequences (the toolkit's control_flow_thunks.h);
//   - reference thunks: the remaining operations (gather, rng,
//     dynamic-slice, reduce-window, f16/bf16/complex arithmetic, feeds,
//     ...) run through the reference evaluator on the instruction alone
//     (the toolkit's reference_thunk.h; docs/cpu.md lists them).
// get-tuple-element, tuple, parameters and constants cost nothing: they
// name slots. Temporaries share memory after their last use (the toolkit's
// buffer_assignment.h); the toolkit's ProgramExecutor runs the entry
// computation and reuses arenas across runs. The JIT library of kernels
// and the custom-call libraries the program calls live as long as it does.
#ifndef PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_
#define PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/eval/evaluator.h"
#include "core/ir/module.h"
#include "plugins/common/executor.h"
#include "plugins/common/thunk.h"
#include "plugins/common/thunk_emitter.h"
#include "plugins/cpu/cpu_extension.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

using backend::ProgramStats;
using backend::ReplicaHub;

class CpuProgram;

struct ProgramCompileOptions {
  // The replicas and partitions it runs on.
  DeviceGrid grid;
  // When set, the kernels' object code is taken from here (executable
  // deserialization; PackObjects form) instead of running LLVM.
  const std::string* object_code = nullptr;
  // LLVM modules compiled in parallel (kernels are spread over them).
  int compile_threads = 1;
  std::string* ir_dump = nullptr;
  // Makes the thunks of the instructions it claims (cpu_extension.h); may
  // be null. The program keeps it.
  std::shared_ptr<CpuExtension> extension;
  // The platform typed custom calls see ("cpu", "onednn": the plugin).
  std::string platform = "cpu";
};

// `module` must be verified, optimized and fused (RunCpuPipeline).
// Custom-call targets are resolved with `custom_calls`; the program keeps
// the libraries they come from.
absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
    std::unique_ptr<Module> module, const ProgramCompileOptions& options,
    const sdk::CustomCallResolver& custom_calls);

class CpuProgram {
 public:
  ~CpuProgram();
  const Module& module() const { return *module_; }
  const ProgramStats& stats() const { return stats_; }
  // Its computations and their thunks (what dump_program describes).
  const backend::ProgramExecutor& executor() const;
  // The kernels' object code (PackObjects of the ELF objects).
  std::string object_code() const;
  // Shapes of the flattened result leaves, with layouts.
  const std::vector<Shape>& result_shapes() const;
  const std::vector<Shape>& parameter_shapes() const;

  // Runs device `device` of `grid` (replica device / partitions, partition
  // device % partitions). `args` are the memory of
  // the entry parameters' array leaves (dense, in parameter_shapes()
  // layouts); `results` one pointer per result array leaf, each
  // result_shapes()[i] bytes, filled. infeed/outfeed use `feeds` (may be
  // null: reaching one is then an error). With a `profiler`, every thunk's
  // run is reported to it. Typed custom calls log to `call_frames` (null:
  // stderr).
  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results, ThreadPool* pool,
                   int64_t device, const DeviceGrid& grid, ReplicaHub* hub,
                   HostFeeds* feeds = nullptr, Profiler* profiler = nullptr,
                   const sdk::CallFrameContext* call_frames = nullptr,
                   RngStateTable* rng_states = nullptr) const;

 private:
  friend absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
      std::unique_ptr<Module>, const ProgramCompileOptions&,
      const sdk::CustomCallResolver&);
  CpuProgram() = default;
  std::unique_ptr<Module> module_;
  struct State;
  std::unique_ptr<State> state_;
  ProgramStats stats_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_
