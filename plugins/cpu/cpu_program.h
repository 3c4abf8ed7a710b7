// The CPU plugin's compiler and executor.
//
// CompileProgram turns an optimized, fused module into a CpuProgram: per
// computation a sequence of thunks over slots (array values), with
//   - kernel thunks: JIT-compiled LLVM loops for fusions, elementwise,
//     shape and reduce instructions (codegen/kernel_emitter.h);
//   - runtime thunks: dot (packed GEMM), convolution (im2col + GEMM),
//     all-reduce across replicas, custom calls, copies;
//   - control-flow thunks: while, conditional and call run their
//     computations' thunk sequences;
//   - reference-kernel thunks: the remaining operations (gather, scatter,
//     sort, rng, dynamic-slice, reduce-window, f16/bf16/complex
//     arithmetic, ...) run through the reference evaluator on the
//     instruction alone (docs/cpu.md lists them).
// get-tuple-element, tuple, parameters and constants cost nothing: they
// name slots. Temporaries share memory after their last use
// (buffer_assignment.h).
#ifndef PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_
#define PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/eval/evaluator.h"
#include "core/ir/module.h"
#include "plugins/cpu/runtime/aligned_memory.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

// void(void* out, const void** in): custom-call convention api_version 0.
using CustomCallFn = void (*)(void* out, const void** in);
// A resolved custom-call target: `function` is a CustomCallFn (api_version
// 0) or a PLX_CustomCall_Typed (api_version 1: the ABI's call frame).
struct CustomCallTargetFn {
  void* function = nullptr;
  int32_t api_version = 0;
};
using CustomCallLookup = std::function<absl::StatusOr<CustomCallTargetFn>(
    const std::string& target)>;

struct ProgramStats {
  int64_t kernels = 0;              // JIT-compiled loop kernels
  int64_t runtime_thunks = 0;       // dot, convolution, all-reduce, ...
  int64_t reference_thunks = 0;     // operations run by the evaluator
  int64_t conv_epilogues = 0;       // loop fusions run inside a convolution
  int64_t in_place_updates = 0;     // dynamic-update-slices, scatters
  int64_t peak_temp_bytes = 0;      // sum over computations of arena sizes
  int64_t unshared_temp_bytes = 0;  // without buffer reuse
  double compile_ms = 0;            // codegen + LLVM
  std::vector<std::string> reference_ops;  // "gather", ...
};

class CpuProgram;

struct ProgramCompileOptions {
  int64_t num_replicas = 1;
  // When set, the kernels' object code is taken from here (executable
  // deserialization; PackObjects form) instead of running LLVM.
  const std::string* object_code = nullptr;
  // LLVM modules compiled in parallel (kernels are spread over them).
  int compile_threads = 1;
  std::string* ir_dump = nullptr;
};

// `module` must be verified, optimized and fused (CpuPipeline below).
absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
    std::unique_ptr<Module> module, const ProgramCompileOptions& options,
    const CustomCallLookup& custom_calls);

// The plugin's pass pipeline: the default pipeline with batch-norm
// expansion, loop and input fusion (not dot output fusion).
absl::Status RunCpuPipeline(Module* module);

// Replicas of one execution meet here for all-reduce.
class ReplicaHub;

class CpuProgram {
 public:
  ~CpuProgram();
  const Module& module() const { return *module_; }
  const ProgramStats& stats() const { return stats_; }
  // The kernels' object code (PackObjects of the ELF objects).
  std::string object_code() const;
  // Shapes of the flattened result leaves, with layouts.
  const std::vector<Shape>& result_shapes() const { return result_shapes_; }
  const std::vector<Shape>& parameter_shapes() const {
    return parameter_shapes_;
  }

  // Runs replica `replica_id` of `replica_count`. `args` are the memory of
  // the entry parameters' array leaves (dense, in parameter_shapes()
  // layouts); `results` one pointer per result array leaf, each
  // result_shapes()[i] bytes, filled. infeed/outfeed use `feeds` (may be
  // null: reaching one is then an error).
  absl::Status Run(absl::Span<const void* const> args,
                   absl::Span<void* const> results, ThreadPool* pool,
                   int64_t replica_id, int64_t replica_count, ReplicaHub* hub,
                   HostFeeds* feeds = nullptr) const;

  struct Computation_;

 private:
  friend absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
      std::unique_ptr<Module>, const ProgramCompileOptions&,
      const CustomCallLookup&);
  CpuProgram() = default;
  std::unique_ptr<Module> module_;
  struct State;
  std::unique_ptr<State> state_;
  ProgramStats stats_;
  std::vector<Shape> result_shapes_;
  std::vector<Shape> parameter_shapes_;
};

class ReplicaHub {
 public:
  explicit ReplicaHub(int64_t replica_count);
  ~ReplicaHub();
  // Every replica calls this with its leaf pointers, in the same program
  // order; returns every replica's pointers once all have arrived (index
  // = replica id). Then each replica reads what it needs and calls Leave;
  // the pointers stay valid until every replica has left. Cancel releases
  // every waiting replica with an error (a replica failed).
  absl::StatusOr<std::vector<std::vector<const void*>>> Arrive(
      int64_t replica, std::vector<const void*> leaves);
  absl::Status Leave();
  void Cancel(const absl::Status& status);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_PROGRAM_H_
