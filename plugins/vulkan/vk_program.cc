#include "plugins/vulkan/vk_program.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/passes/dce.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/fusion.h"
#include "core/shape/shape_util.h"
#include "core/verifier/verifier.h"
#include "plugins/common/custom_call_thunk.h"
#include "plugins/common/reduction_splitter.h"
#include "plugins/common/slot_access.h"
#include "plugins/vulkan/device_custom_call.h"
#include "plugins/vulkan/glsl_emitter.h"
#include "plugins/vulkan/kernel_thunk.h"
#include "plugins/vulkan/shader_cache.h"
#include "plugins/vulkan/spirv_compiler.h"
#include "plugins/vulkan/staged_host_thunk.h"

namespace plexa::vulkan {
namespace {

using backend::CompiledComputation;
using backend::Frame;
using backend::Thunk;

class VulkanThunkEmitter : public backend::ThunkEmitter {
 public:
  VulkanThunkEmitter(const DeviceGrid& grid, VulkanDevice* device,
                     const ProgramOptions& options,
                     const sdk::CustomCallResolver& custom_calls,
                     backend::ProgramStats* stats)
      : ThunkEmitter(grid, stats),
        device_(device),
        options_(options),
        custom_calls_(custom_calls) {}

  std::vector<std::unique_ptr<ComputePipeline>>& pipelines() {
    return pipelines_;
  }
  int64_t spirv_bytes() const { return spirv_bytes_; }
  int64_t spirv_cache_hits() const { return spirv_cache_hits_; }

 protected:
  absl::Status EmitBackendInstruction(CompiledComputation& cc,
                                      const Instruction& h) override {
    if (h.opcode() == HloOpcode::kCustomCall && !options_.kernel_dir.empty()) {
      absl::StatusOr<std::optional<DeviceKernelFile>> k = FindDeviceKernel(
          options_.kernel_dir, h.attrs().custom_call_target, h.name());
      if (!k.ok()) return k.status();
      if (k->has_value()) return EmitDeviceCustomCall(cc, h, **k);
    }
    if (h.opcode() == HloOpcode::kCustomCall) {
      // The target runs on the host, on the mapped device memory: its
      // typed frame says platform "host" (host pointers, no stream), not
      // "vulkan" (a command buffer and device addresses, docs/abi.md).
      absl::StatusOr<std::unique_ptr<backend::CustomCallThunk>> t =
          backend::MakeCustomCallThunk(h, custom_calls_, "the Vulkan plugin",
                                       "host");
      if (!t.ok()) return t.status();
      AddRuntimeThunk(cc, h, *std::move(t));
      return absl::OkStatus();
    }
    const int max_buffers =
        static_cast<int>(device_->limits().max_push_constants / 8);
    if (options_.host_opcodes.contains(h.opcode())) {
      EmitReference(cc, h);  // the client's host_opcodes option
      return absl::OkStatus();
    }
    absl::StatusOr<GlslKernel> kernel = EmitTiledGemm(
        h, device_->limits().max_workgroup_count, options_.features.subgroups,
        options_.features.max_loop_iterations);
    if (absl::IsNotFound(kernel.status())) {
      kernel = EmitGlslKernel(h, options_.features, max_buffers);
    }
    if (absl::IsUnimplemented(kernel.status())) {
      // No generated code: the host runs it on the evaluator, in place on
      // the mapped device memory.
      EmitReference(cc, h);
      return absl::OkStatus();
    }
    if (!kernel.ok()) return kernel.status();
    const std::string name =
        absl::StrCat("k", pipelines_.size(), "_", h.name());
    if (!options_.dump_dir.empty()) {
      std::ofstream out(absl::StrCat(options_.dump_dir, "/", name, ".comp"));
      out << kernel->source;
    }
    absl::StatusOr<std::vector<uint32_t>> spirv = absl::UnknownError("");
    if (std::optional<std::vector<uint32_t>> cached =
            options_.cache_dir.empty()
                ? std::nullopt
                : LookupSpirv(options_.cache_dir, kernel->source)) {
      spirv = *std::move(cached);
      ++spirv_cache_hits_;
    } else {
      spirv = CompileGlslToSpirv(kernel->source, h.name());
      if (!spirv.ok()) return spirv.status();
      if (!options_.cache_dir.empty()) {
        PLEXA_RETURN_IF_ERROR(
            StoreSpirv(options_.cache_dir, kernel->source, *spirv));
      }
    }
    spirv_bytes_ += static_cast<int64_t>(spirv->size() * 4);
    absl::StatusOr<std::unique_ptr<ComputePipeline>> pipeline =
        device_->CreatePipeline(*spirv, kernel->num_buffers * 8);
    if (!pipeline.ok()) return pipeline.status();
    auto t = std::make_unique<KernelThunk>(device_, pipeline->get(),
                                           kernel->elements, kernel->grid);
    pipelines_.push_back(*std::move(pipeline));
    t->kind = "vulkan";
    AddRuntimeThunk(cc, h, std::move(t));
    --stats_->runtime_thunks;  // AddRuntimeThunk counted it
    ++stats_->kernels;
    return absl::OkStatus();
  }

 private:
  // A custom call whose target has a kernel in kernel_dir: dispatched like
  // a generated kernel, the push constants ending with the element count
  // (device_custom_call.h).
  absl::Status EmitDeviceCustomCall(CompiledComputation& cc,
                                    const Instruction& h,
                                    const DeviceKernelFile& k) {
    auto refuse = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(
          h.name(), ": custom-call target '", h.attrs().custom_call_target,
          "' has the device kernel ", k.path, ", but ", why));
    };
    if (!h.shape().IsArray() || !ShapeUtil::IsDenseArray(h.shape())) {
      return refuse(
          absl::StrCat("a device kernel's result is one dense "
                       "array, not ",
                       h.shape().ToString()));
    }
    for (const Instruction* op : h.operands()) {
      if (!op->shape().IsArray() || !ShapeUtil::IsDenseArray(op->shape())) {
        return refuse(absl::StrCat("its operand ", op->name(), " is ",
                                   op->shape().ToString(),
                                   ", not a dense array"));
      }
    }
    const int64_t words = h.operand_count() + 2;  // addresses, result, count
    if (words * 8 >
        static_cast<int64_t>(device_->limits().max_push_constants)) {
      return refuse(absl::StrCat("its ", h.operand_count(),
                                 " operands, result and count need ", words * 8,
                                 " bytes of push constants and the device has ",
                                 device_->limits().max_push_constants));
    }
    absl::StatusOr<std::unique_ptr<ComputePipeline>> pipeline =
        device_->CreatePipeline(k.spirv, static_cast<uint32_t>(words * 8));
    if (!pipeline.ok()) {
      return refuse(absl::StrCat("the device refused its pipeline: ",
                                 pipeline.status().message()));
    }
    const uint32_t grid[3] = {0, 0, 0};
    auto t = std::make_unique<KernelThunk>(
        device_, pipeline->get(), ShapeUtil::ElementsIn(h.shape()), grid,
        /*push_count=*/true, k.local_size_x);
    pipelines_.push_back(*std::move(pipeline));
    spirv_bytes_ += static_cast<int64_t>(k.spirv.size() * 4);
    t->kind = "vulkan";
    AddRuntimeThunk(cc, h, std::move(t));
    --stats_->runtime_thunks;  // AddRuntimeThunk counted it
    ++stats_->kernels;
    return absl::OkStatus();
  }

  VulkanDevice* device_;
  const ProgramOptions& options_;
  const sdk::CustomCallResolver& custom_calls_;
  std::vector<std::unique_ptr<ComputePipeline>> pipelines_;
  int64_t spirv_bytes_ = 0;
  int64_t spirv_cache_hits_ = 0;
};

// Per run: temporaries in device memory, from the program's pool.
struct VulkanExecContext : backend::ExecContext {
  VulkanDevice* device = nullptr;
  std::vector<std::unique_ptr<DeviceMemory>> device_arenas;

  absl::StatusOr<uint8_t*> ArenaFor(int id, int64_t bytes) override {
    if (device_arenas.size() <= static_cast<size_t>(id)) {
      device_arenas.resize(id + 1);
    }
    std::unique_ptr<DeviceMemory>& m = device_arenas[id];
    if (m == nullptr || m->size() < static_cast<size_t>(bytes)) {
      m.reset();
      absl::StatusOr<std::unique_ptr<DeviceMemory>> fresh =
          device->Allocate(bytes);
      if (!fresh.ok()) return fresh.status();
      m = *std::move(fresh);
    }
    return m->data();
  }
};

// In staging mode the toolkit's data-moving steps (slot_access.h) copy on
// the device and read predicates and selectors through a staging buffer.
struct StagedExecContext : VulkanExecContext, backend::SlotAccess {
  absl::Status CopySlotBytes(uint8_t* dst, const uint8_t* src,
                             int64_t bytes) override {
    return device->Copy(dst, src, bytes);
  }
  absl::Status ReadSlotBytes(const uint8_t* src, void* dst,
                             int64_t bytes) override {
    return device->Read(src, dst, bytes);
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<VulkanProgram>> VulkanProgram::Compile(
    std::unique_ptr<Module> module, std::shared_ptr<VulkanDevice> device,
    const ProgramOptions& options, const sdk::CustomCallResolver& resolver) {
  const auto start = std::chrono::steady_clock::now();
  PipelineOptions pipeline;
  // Batch norms become elementwise operations and reductions, which the
  // code generator has.
  pipeline.expand_batch_norm = true;
  // A scan becomes a while loop: its steps' kernels run on the device, the
  // loop on the host (as every while), its buffers resident.
  pipeline.expand_scan = true;
  // Loop and reduce fusions: one kernel computes a whole group, each fused
  // value a function of its index (no temporaries in memory between them).
  // A constant array stays a slot of its own (the shader reads it from
  // memory), and so does anything not dense.
  pipeline.fusion = true;
  pipeline.fusion_options.output_fusion = false;
  // An instruction the generator has no code for stays out of fusions too
  // (else the whole fusion would run on the host).
  const DeviceFeatures features = options.features;
  const int max_buffers =
      static_cast<int>(device->limits().max_push_constants / 8);
  pipeline.fusion_options.can_fuse =
      [features, max_buffers,
       host = options.host_opcodes](const Instruction& inst) {
        if (host.contains(inst.opcode())) return false;
        if (inst.opcode() == HloOpcode::kConstant && inst.shape().rank() > 0) {
          return false;
        }
        if (inst.shape().IsArray() && !ShapeUtil::IsDenseArray(inst.shape())) {
          return false;
        }
        for (const Instruction* op : inst.operands()) {
          if (op->shape().IsArray() && !ShapeUtil::IsDenseArray(op->shape())) {
            return false;
          }
        }
        if (inst.opcode() == HloOpcode::kParameter ||
            inst.opcode() == HloOpcode::kConstant) {
          return true;
        }
        return !absl::IsUnimplemented(
            EmitGlslKernel(inst, features, max_buffers).status());
      };
  // The default pipeline without its fusion, then long reductions split in
  // two balanced stages (many invocations share them, and no invocation
  // loops past the device's limit), then fusion.
  InstructionFusion fuse(pipeline.fusion_options);
  pipeline.fusion = false;
  absl::StatusOr<bool> changed = RunDefaultPipeline(module.get(), pipeline);
  if (!changed.ok()) return changed.status();
  backend::ReductionSplitter splitter(backend::ReductionSplitterOptions{
      .min_reduced = 8192,
      .max_result = std::numeric_limits<int64_t>::max(),
      .balanced = true,
      .trailing = true});
  DeadCodeElimination dce;
  for (Pass* pass : std::initializer_list<Pass*>{&splitter, &fuse, &dce}) {
    absl::StatusOr<bool> r = pass->Run(*module);
    if (!r.ok()) return r.status();
  }
  if (absl::Status s = VerifyModule(*module); !s.ok()) return s;

  std::unique_ptr<VulkanProgram> p(new VulkanProgram());
  p->device_ = std::move(device);
  VulkanThunkEmitter emitter(options.grid, p->device_.get(), options, resolver,
                             &p->stats_);
  absl::StatusOr<CompiledComputation*> entry =
      emitter.Compile(*module->entry_computation(), true);
  if (!entry.ok()) return entry.status();
  p->pipelines_ = std::move(emitter.pipelines());
  p->spirv_bytes_ = emitter.spirv_bytes();
  p->spirv_cache_hits_ = emitter.spirv_cache_hits();
  std::vector<std::unique_ptr<CompiledComputation>> computations =
      emitter.TakeComputations();

  for (auto& cc : computations) {
    p->batches_ += BatchKernels(*cc, p->device_.get());
    if (p->device_->staging()) {
      p->staged_host_thunks_ += StageHostThunks(*cc, p->device_.get());
    }
  }
  // Constants move to device memory, so kernels can read them.
  int64_t constant_bytes = 0;
  for (const auto& cc : computations) {
    for (const backend::Slot& slot : cc->slots) {
      if (slot.kind == backend::SlotKind::kConstant) {
        constant_bytes += (slot.bytes + 63) / 64 * 64;
      }
    }
  }
  absl::StatusOr<std::unique_ptr<DeviceMemory>> constants =
      p->device_->Allocate(constant_bytes);
  if (!constants.ok()) return constants.status();
  p->constants_ = *std::move(constants);
  int64_t offset = 0;
  for (auto& cc : computations) {
    for (backend::Slot& slot : cc->slots) {
      if (slot.kind != backend::SlotKind::kConstant) continue;
      uint8_t* dst = p->constants_->data() + offset;
      PLEXA_RETURN_IF_ERROR(p->device_->Write(dst, slot.constant, slot.bytes));
      slot.constant = dst;
      offset += (slot.bytes + 63) / 64 * 64;
    }
  }
  p->executor_ = std::make_unique<backend::ProgramExecutor>(
      std::move(computations), *entry, std::move(emitter.constants()));
  p->module_ = std::move(module);
  p->stats_.compile_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
  return p;
}

std::string VulkanProgram::Report() const {
  return absl::StrCat(
      "plexa vulkan: ", module_->name(), " on ", device_->name(), ": ",
      stats_.kernels, " kernels on the device, ", stats_.reference_thunks,
      " instructions on the host evaluator",
      stats_.reference_ops.empty()
          ? ""
          : absl::StrCat(" (", absl::StrJoin(stats_.reference_ops, ", "), ")"),
      ", ", stats_.runtime_thunks, " other host thunks; ", spirv_bytes_,
      " bytes of SPIR-V",
      spirv_cache_hits_ > 0
          ? absl::StrCat(" (", spirv_cache_hits_, " of ", stats_.kernels,
                         " kernels from the cache)")
          : "",
      "; ", batches_, " batches of consecutive kernels; memory ",
      device_->memory_mode(),
      device_->staging() ? absl::StrCat(", ", staged_host_thunks_,
                                        " host steps through staging copies")
                         : "",
      "; ", stats_.peak_temp_bytes, " bytes of temporaries; compiled in ",
      stats_.compile_ms, " ms");
}

absl::Status VulkanProgram::Run(absl::Span<const void* const> args,
                                absl::Span<void* const> results, int64_t device,
                                const DeviceGrid& grid,
                                backend::ReplicaHub* hub, HostFeeds* feeds,
                                Profiler* profiler,
                                const sdk::CallFrameContext* call_frames,
                                RngStateTable* rng_states) const {
  StagedExecContext staged;
  VulkanExecContext direct;
  VulkanExecContext& ctx = device_->staging() ? staged : direct;
  ctx.rng_states = rng_states;
  ctx.device = device_.get();
  ctx.replica_id = grid.ReplicaOf(device);
  ctx.replica_count = grid.replicas;
  ctx.partition_id = grid.PartitionOf(device);
  ctx.partition_count = grid.partitions;
  ctx.hub = hub;
  ctx.feeds = feeds;
  ctx.profiler = profiler;
  ctx.call_frames = call_frames;  // custom calls log to the client's log
  {
    std::lock_guard<std::mutex> lock(arenas_mu_);
    if (!free_arenas_.empty()) {
      ctx.device_arenas = std::move(free_arenas_.back());
      free_arenas_.pop_back();
    }
  }
  absl::Status s = executor_->Run(args, results, ctx);
  std::lock_guard<std::mutex> lock(arenas_mu_);
  free_arenas_.push_back(std::move(ctx.device_arenas));
  return s;
}

}  // namespace plexa::vulkan
