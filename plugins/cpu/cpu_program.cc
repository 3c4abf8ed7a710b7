#include "plugins/cpu/cpu_program.h"

#include <chrono>
#include <utility>

#include "plugins/common/executor.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/codegen/kernel_emitter.h"
#include "plugins/cpu/cpu_thunk.h"
#include "plugins/cpu/cpu_thunk_emitter.h"

namespace plexa::cpu {

struct CpuProgram::State {
  std::unique_ptr<backend::ProgramExecutor> executor;
  std::unique_ptr<JitLibrary> library;
  // Its thunks may use what the extension owns (an engine).
  std::shared_ptr<CpuExtension> extension;
};

CpuProgram::~CpuProgram() = default;

const backend::ProgramExecutor& CpuProgram::executor() const {
  return *state_->executor;
}

std::string CpuProgram::object_code() const {
  return PackObjects(state_->library ? state_->library->objects()
                                     : std::vector<std::string>{});
}

const std::vector<Shape>& CpuProgram::result_shapes() const {
  return state_->executor->result_shapes();
}

const std::vector<Shape>& CpuProgram::parameter_shapes() const {
  return state_->executor->parameter_shapes();
}

absl::StatusOr<std::shared_ptr<const CpuProgram>> CompileProgram(
    std::unique_ptr<Module> module, const ProgramCompileOptions& options,
    const sdk::CustomCallResolver& custom_calls) {
  const auto start = std::chrono::steady_clock::now();
  std::shared_ptr<CpuProgram> program(new CpuProgram());
  program->state_ = std::make_unique<CpuProgram::State>();
  KernelModule kernels(module->name(), options.compile_threads);
  program->state_->extension = options.extension;
  CpuThunkEmitter compiler(options.grid, custom_calls, &kernels,
                           &program->stats_, options.extension.get(),
                           options.platform);
  absl::StatusOr<CompiledComputation*> entry =
      compiler.Compile(*module->entry_computation(), /*is_entry=*/true);
  if (!entry.ok()) return entry.status();
  CpuProgram::State& st = *program->state_;
  st.executor = std::make_unique<backend::ProgramExecutor>(
      compiler.TakeComputations(), *entry, std::move(compiler.constants()));

  if (!compiler.kernel_thunks().empty() || !compiler.sort_thunks().empty()) {
    std::vector<std::string> objects;
    if (options.object_code != nullptr) {
      absl::StatusOr<std::vector<std::string>> unpacked =
          UnpackObjects(*options.object_code);
      if (!unpacked.ok()) return unpacked.status();
      objects = std::move(*unpacked);
    } else {
      absl::StatusOr<std::vector<std::string>> compiled =
          kernels.Compile(options.ir_dump);
      if (!compiled.ok()) return compiled.status();
      objects = std::move(*compiled);
    }
    absl::StatusOr<std::unique_ptr<JitLibrary>> lib =
        JitLibrary::Load(std::move(objects));
    if (!lib.ok()) return lib.status();
    st.library = std::move(*lib);
    for (KernelThunk* t : compiler.kernel_thunks()) {
      absl::StatusOr<void*> fn = st.library->Lookup(t->name());
      if (!fn.ok()) return fn.status();
      t->set_fn(reinterpret_cast<KernelFn>(*fn));
    }
    for (SortThunk* t : compiler.sort_thunks()) {
      absl::StatusOr<void*> fn = st.library->Lookup(t->name());
      if (!fn.ok()) return fn.status();
      t->set_fn(reinterpret_cast<ComparatorFn>(*fn));
    }
  }
  program->module_ = std::move(module);
  program->stats_.compile_ms = std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
  return std::shared_ptr<const CpuProgram>(std::move(program));
}

absl::Status CpuProgram::Run(absl::Span<const void* const> args,
                             absl::Span<void* const> results, ThreadPool* pool,
                             int64_t device, const DeviceGrid& grid,
                             ReplicaHub* hub, HostFeeds* feeds,
                             Profiler* profiler,
                             const sdk::CallFrameContext* call_frames,
                             RngStateTable* rng_states) const {
  CpuExecContext ctx;
  ctx.rng_states = rng_states;
  ctx.profiler = profiler;
  ctx.call_frames = call_frames;
  ctx.pool = pool;
  ctx.replica_id = grid.ReplicaOf(device);
  ctx.replica_count = grid.replicas;
  ctx.partition_id = grid.PartitionOf(device);
  ctx.partition_count = grid.partitions;
  ctx.hub = hub;
  ctx.feeds = feeds;
  return state_->executor->Run(args, results, ctx);
}

}  // namespace plexa::cpu
