#include "plugins/vulkan/vk_client.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "abi/sdk/async_work.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "core/ir/cost_analysis.h"
#include "core/ir/opcode.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_printer.h"
#include "plugins/common/compile_cache.h"
#include "plugins/common/program_dump.h"
#include "plugins/common/run_devices.h"
#include "plugins/vulkan/device_custom_call.h"
#include "plugins/vulkan/shader_cache.h"
#include "plugins/vulkan/vk_device.h"
#include "plugins/vulkan/vk_program.h"

namespace plexa::vulkan {
namespace {

using sdk::Buffer;
using sdk::Device;

class VulkanBuffer : public Buffer {
 public:
  // The buffer keeps the Vulkan device alive: its memory must be freed
  // before the device is destroyed, whatever order the host releases
  // clients and buffers in.
  VulkanBuffer(Shape shape, Device* device, sdk::Memory* memory,
               std::shared_ptr<VulkanDevice> vk,
               std::shared_ptr<DeviceMemory> device_memory)
      : Buffer(std::move(shape), device, memory),
        vk_(std::move(vk)),
        memory_(std::move(device_memory)) {}

  // On `memory`, one of `device`'s (null: its default memory): the
  // device's buffers, or its second memory, host-visible (vk_device.h).
  static absl::StatusOr<std::unique_ptr<VulkanBuffer>> Create(
      std::shared_ptr<VulkanDevice> vk, const Shape& shape, Device* device,
      sdk::Memory* memory = nullptr) {
    const bool host_visible =
        memory != nullptr && memory->kind() == PLX_MemoryKind_HOST_VISIBLE;
    absl::StatusOr<std::unique_ptr<DeviceMemory>> m = vk->Allocate(
        ShapeUtil::ByteSizeOf(shape),
        host_visible ? MemoryPlace::kHostVisible : MemoryPlace::kDevice);
    if (!m.ok()) return m.status();
    return std::make_unique<VulkanBuffer>(shape, device, memory, std::move(vk),
                                          *std::move(m));
  }

  size_t on_device_size() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ ? memory_->size() : 0;
  }
  // The slot address (vk_device.h): mapped memory, or in staging mode
  // an address only Read/Write/Copy and kernels reach.
  uint8_t* data() {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ ? memory_->data() : nullptr;
  }
  std::shared_ptr<DeviceMemory> shared_memory() {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_;
  }

  // An upload: in staging mode the device copies the data in while the
  // host goes on (the ready event tells when); mapped memory is written at
  // once. `data` may be reused when this returns.
  absl::Status Upload(const void* data) {
    std::shared_ptr<DeviceMemory> m = shared_memory();
    if (!m) return absl::FailedPreconditionError("buffer was deleted");
    auto ready = sdk::Event::Create();
    set_ready_event(ready);
    vk_->WriteAsync(std::move(m), data,
                    [ready](absl::Status s) { ready->Set(std::move(s)); });
    return absl::OkStatus();
  }

  // In staging mode the device copies the buffer out while the host goes
  // on, and the completion thread fills `dst` (relaid, when the host asks
  // for another layout than the buffer's) and sets the event.
  absl::StatusOr<std::shared_ptr<sdk::Event>> ToHostAsync(
      void* dst, const Shape& host_shape) override {
    std::shared_ptr<DeviceMemory> m = shared_memory();
    if (!m) return absl::FailedPreconditionError("buffer was deleted");
    auto done = sdk::Event::Create();
    if (LayoutUtil::EffectiveLayout(host_shape) ==
        LayoutUtil::EffectiveLayout(shape())) {
      vk_->ReadAsync(std::move(m), dst,
                     [done](absl::Status s) { done->Set(std::move(s)); });
      return done;
    }
    auto literal = std::make_shared<Literal>(shape());
    const Layout want = LayoutUtil::EffectiveLayout(host_shape);
    vk_->ReadAsync(std::move(m), literal->mutable_data().data(),
                   [done, literal, want, dst](absl::Status s) {
                     if (s.ok()) s = CopyRelaid(*literal, want, dst);
                     done->Set(std::move(s));
                   });
    return done;
  }

  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!memory_) return absl::FailedPreconditionError("buffer was deleted");
    if (LayoutUtil::EffectiveLayout(host_shape) ==
        LayoutUtil::EffectiveLayout(shape())) {
      return vk_->Read(memory_->data(), dst, memory_->size());
    }
    Literal literal(shape());
    PLEXA_RETURN_IF_ERROR(vk_->Read(
        memory_->data(), literal.mutable_data().data(), memory_->size()));
    return CopyRelaid(literal, LayoutUtil::EffectiveLayout(host_shape), dst);
  }

  void Delete() override {
    std::shared_ptr<DeviceMemory> m;
    std::lock_guard<std::mutex> lock(mu_);
    m = std::move(memory_);
  }
  bool IsDeleted() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ == nullptr;
  }

 private:
  std::shared_ptr<VulkanDevice> vk_;
  mutable std::mutex mu_;
  // Shared with asynchronous transfers in flight, which keep it alive.
  std::shared_ptr<DeviceMemory> memory_;  // guarded by mu_

  // `literal` in layout `want`, into `dst`.
  static absl::Status CopyRelaid(const Literal& literal, const Layout& want,
                                 void* dst) {
    absl::StatusOr<Literal> relaid = literal.Relayout(want);
    if (!relaid.ok()) return relaid.status();
    if (!relaid->data().empty()) {
      std::memcpy(dst, relaid->data().data(), relaid->data().size());
    }
    return absl::OkStatus();
  }
};

// Set on a thread while it runs an execution: an execution started from
// within one (a custom call that runs a program) runs at once on that
// thread instead of waiting behind the one that started it.
thread_local bool tls_in_execution = false;

// One execution, with everything it reads and writes.
struct PendingRun {
  std::shared_ptr<const VulkanProgram> program;
  std::shared_ptr<VulkanDevice> device;
  std::shared_ptr<RngStateTable> rng_states;
  std::vector<std::vector<std::shared_ptr<DeviceMemory>>> inputs, results;
  std::vector<std::vector<Shape>> input_shapes;
  std::shared_ptr<HostFeeds> feeds;
  std::shared_ptr<Profiler> profiler;
  std::shared_ptr<const sdk::CallFrameContext> call_frames;
  DeviceGrid grid;

  absl::Status Run() {
    const size_t replicas = inputs.size();
    std::vector<std::vector<const void*>> arg_ptrs(replicas);
    std::vector<std::vector<void*>> result_ptrs(replicas);
    // Arguments in another layout than the program's are relaid into
    // device memory of their own for the run.
    std::vector<std::unique_ptr<DeviceMemory>> relaid;
    for (size_t r = 0; r < replicas; ++r) {
      for (size_t i = 0; i < inputs[r].size(); ++i) {
        uint8_t* p = inputs[r][i]->data();
        const Shape& have = input_shapes[r][i];
        const Layout want =
            LayoutUtil::EffectiveLayout(program->parameter_shapes()[i]);
        if (!(LayoutUtil::EffectiveLayout(have) == want)) {
          Literal lit(have);
          PLEXA_RETURN_IF_ERROR(
              device->Read(p, lit.mutable_data().data(), lit.data().size()));
          absl::StatusOr<Literal> moved = lit.Relayout(want);
          if (!moved.ok()) return moved.status();
          absl::StatusOr<std::unique_ptr<DeviceMemory>> m =
              device->Allocate(moved->data().size());
          if (!m.ok()) return m.status();
          PLEXA_RETURN_IF_ERROR(device->Write(
              (*m)->data(), moved->data().data(), moved->data().size()));
          p = (*m)->data();
          relaid.push_back(*std::move(m));
        }
        arg_ptrs[r].push_back(p);
      }
      for (const auto& m : results[r]) result_ptrs[r].push_back(m->data());
    }
    // Every replica of every partition.
    return backend::RunOnDevices(
        grid, [&](int64_t d, backend::ReplicaHub* hub) {
          return program->Run(arg_ptrs[d], result_ptrs[d], d, grid, hub,
                              feeds.get(), profiler.get(), call_frames.get(),
                              rng_states.get());
        });
  }
};

class VulkanExecutable : public sdk::Executable {
 public:
  VulkanExecutable(std::shared_ptr<const VulkanProgram> program,
                   std::shared_ptr<VulkanDevice> device,
                   std::vector<Device*> replica_devices, int64_t num_partitions,
                   std::shared_ptr<sdk::WorkQueue> queue)
      : program_(std::move(program)),
        device_(std::move(device)),
        replica_devices_(std::move(replica_devices)),
        num_partitions_(num_partitions),
        queue_(std::move(queue)) {}

  const std::vector<Shape>& parameter_shapes() const override {
    return program_->parameter_shapes();
  }
  const std::vector<Shape>& output_shapes() const override {
    return program_->result_shapes();
  }
  int64_t num_replicas() const override {
    return static_cast<int64_t>(replica_devices_.size()) / num_partitions_;
  }
  int64_t num_partitions() const override { return num_partitions_; }
  std::string program_shape() const override {
    ProgramShape shape =
        program_->module().entry_computation()->ComputeProgramShape();
    shape.parameter_names.clear();
    return shape.ToString();
  }

  // The outputs are made at once; the run itself goes to the client's
  // execution thread (in submission order), and the outputs' ready events
  // and the completion events tell when it is done, carrying its error if
  // it fails. With async_execution=0, or when called from a run (a custom
  // call that executes a program), it runs on the calling thread.
  absl::StatusOr<sdk::ExecuteResult> ExecuteWithOptions(
      absl::Span<const std::vector<Buffer*>> args,
      const sdk::ExecuteOptions& options) override {
    const int64_t replicas = static_cast<int64_t>(args.size());
    sdk::ExecuteResult out;
    out.outputs.resize(replicas);
    // What the run reads and writes: kept alive by it, whatever the host
    // does with the buffers' handles meanwhile.
    auto run = std::make_shared<PendingRun>();
    run->program = program_;
    run->device = device_;
    run->rng_states = rng_states_;
    run->inputs.resize(replicas);
    run->input_shapes.resize(replicas);
    run->results.resize(replicas);
    for (int64_t r = 0; r < replicas; ++r) {
      for (size_t i = 0; i < args[r].size(); ++i) {
        auto* b = static_cast<VulkanBuffer*>(args[r][i]);
        std::shared_ptr<DeviceMemory> m = b->shared_memory();
        if (m == nullptr) {
          return absl::FailedPreconditionError(
              absl::StrCat("argument ", i, " of replica ", r, " was deleted"));
        }
        run->inputs[r].push_back(std::move(m));
        run->input_shapes[r].push_back(b->shape());
      }
      for (const Shape& s : program_->result_shapes()) {
        absl::StatusOr<std::unique_ptr<VulkanBuffer>> b =
            VulkanBuffer::Create(device_, s, replica_devices_[r]);
        if (!b.ok()) return b.status();
        run->results[r].push_back((*b)->shared_memory());
        out.outputs[r].push_back(*std::move(b));
      }
    }
    run->feeds = options.feeds;
    run->profiler = options.profiler;
    run->call_frames = options.call_frames;
    run->grid = DeviceGrid{replicas / num_partitions_, num_partitions_};
    // A caller that waits anyway, with nothing queued before it, runs on
    // its own thread (no hand-over: 25 us a call on lavapipe).
    if (queue_ == nullptr || tls_in_execution ||
        (options.synchronous && queue_->Idle())) {
      PLEXA_RETURN_IF_ERROR(run->Run());
      return out;
    }
    auto done = sdk::Event::Create();
    for (auto& replica : out.outputs) {
      for (auto& b : replica) b->set_ready_event(done);
    }
    out.completion.assign(replicas, done);
    // A client's execution thread: the SDK's work queue, whose work with
    // no events to wait for runs in the order it came.
    queue_->RunAfter({}, [run, done](absl::Status) {
      tls_in_execution = true;
      absl::Status s = run->Run();
      tls_in_execution = false;
      done->Set(std::move(s));
    });
    return out;
  }

  absl::StatusOr<sdk::ExecutableStatistics> Statistics() const override {
    absl::StatusOr<sdk::ExecutableStatistics> s = sdk::Executable::Statistics();
    if (!s.ok()) return s;
    const Module& m = program_->module();
    s->fingerprint = sdk::Fingerprint({"vulkan", device_->name(),
                                       absl::StrCat(replica_devices_.size()),
                                       PrintModule(m)});
    const ModuleCost cost = AnalyzeCost(m);
    s->flops = cost.flops;
    s->transcendentals = cost.transcendentals;
    s->bytes_accessed = cost.bytes_accessed;
    s->temp_bytes = program_->stats().peak_temp_bytes;
    s->generated_code_bytes = program_->spirv_bytes();
    return s;
  }

 private:
  std::shared_ptr<const VulkanProgram> program_;
  // rng-get-and-update-state's states: this executable's, across runs.
  std::shared_ptr<RngStateTable> rng_states_ =
      std::make_shared<RngStateTable>();
  std::shared_ptr<VulkanDevice> device_;
  std::vector<Device*> replica_devices_;  // replicas x partitions
  int64_t num_partitions_;
  // The client's execution thread; null: runs on the calling thread.
  std::shared_ptr<sdk::WorkQueue> queue_;
};

sdk::OptionValue IntValue(int64_t v) {
  sdk::OptionValue o;
  o.kind = PLX_Value_INT64;
  o.int64_value = v;
  return o;
}

sdk::OptionValue StringValue(std::string v) {
  sdk::OptionValue o;
  o.kind = PLX_Value_STRING;
  o.string_value = std::move(v);
  return o;
}

struct ClientConfig {
  std::string device;
  int64_t num_devices = 1;
  bool report = false;
  bool validation = false;
  bool async_execution = true;
  StagingMode staging = StagingMode::kAuto;
  std::string dump_dir;
  std::string dump_program;           // program_dump.h
  std::string cache_dir;              // shader_cache.h
  std::string kernel_dir;             // device_custom_call.h
  std::vector<std::string> disabled;  // features the shaders must not use
  absl::flat_hash_set<HloOpcode> host_opcodes;  // run on the host evaluator
};

class VulkanClient : public sdk::Client {
 public:
  VulkanClient(ClientConfig config, std::shared_ptr<VulkanDevice> device)
      : config_(std::move(config)), device_(std::move(device)) {
    for (int64_t i = 0; i < config_.num_devices; ++i) {
      // Its memories: the device's buffers (default; device-local memory
      // when the device has it) and host-visible memory (pinned host
      // memory on a discrete GPU; the same heap on lavapipe), each
      // limited by its heap's size.
      auto d = std::make_unique<Device>(
          i, absl::StrCat("vulkan:", device_->name()), device_->memory_bytes());
      d->AddMemory(PLX_MemoryKind_HOST_VISIBLE, "pinned_host",
                   static_cast<int64_t>(device_->host_visible_bytes()));
      sdk::Options& a = d->attributes();
      const DeviceLimits& l = device_->limits();
      const DeviceFeatures& f = device_->features();
      a["name"] = StringValue(device_->name());
      a["device_type"] = StringValue(device_->type());
      a["vulkan_version"] = StringValue(device_->api_version());
      a["device_local_memory"] = IntValue(device_->device_local());
      a["staging"] = IntValue(device_->staging());
      a["memory_mode"] = StringValue(device_->memory_mode());
      a["max_storage_buffer_range"] = IntValue(l.max_storage_buffer_range);
      a["max_workgroup_count_x"] = IntValue(l.max_workgroup_count[0]);
      a["max_workgroup_count_y"] = IntValue(l.max_workgroup_count[1]);
      a["max_workgroup_count_z"] = IntValue(l.max_workgroup_count[2]);
      a["max_shared_memory_bytes"] = IntValue(l.max_shared_memory);
      a["subgroup_size"] = IntValue(l.subgroup_size);
      a["max_allocation_bytes"] = IntValue(l.max_allocation);
      a["shader_float64"] = IntValue(f.float64);
      a["shader_int64"] = IntValue(f.int64);
      a["shader_int16"] = IntValue(f.int16);
      a["shader_int8"] = IntValue(f.int8);
      devices_.push_back(d.get());
      devices_owned_.push_back(std::move(d));
    }
  }

  absl::Span<Device* const> devices() const override { return devices_; }

  // The execution thread's runs and the device's transfer completions set
  // events whose callbacks may free SDK buffers of this client's devices.
  bool Quiesce() override {
    const bool ran = queue_ != nullptr && queue_->Drain();
    const bool completed = device_->DrainCompletions();
    return ran || completed;
  }

  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHost(
      const void* data, const Shape& shape, Device* device) override {
    return BufferFromHostOn(data, shape, device, device->default_memory());
  }
  // Either memory: the device's buffers (the default), or host-visible
  // memory that kernels read in place (no copy on upload).
  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHostOn(
      const void* data, const Shape& shape, Device* device,
      sdk::Memory* memory) override {
    absl::StatusOr<std::unique_ptr<VulkanBuffer>> b =
        VulkanBuffer::Create(device_, shape, device, memory);
    if (!b.ok()) return b.status();
    PLEXA_RETURN_IF_ERROR((*b)->Upload(data));
    return std::unique_ptr<Buffer>(*std::move(b));
  }

  absl::StatusOr<std::unique_ptr<sdk::Executable>> Compile(
      std::unique_ptr<Module> module, const sdk::CompileOptions& options,
      const sdk::CustomCallResolver& resolver) override {
    absl::StatusOr<std::vector<Device*>> devices =
        sdk::AssignedDevices(*this, options.device_assignment);
    if (!devices.ok()) return devices.status();
    const std::string key = backend::CompileCacheKey(
        PrintModule(*module), options, options.num_replicas);
    if (std::shared_ptr<const VulkanProgram> cached = cache_.Lookup(key)) {
      PLEXA_RETURN_IF_ERROR(Dump(*cached));
      return std::make_unique<VulkanExecutable>(std::move(cached), device_,
                                                std::move(*devices),
                                                options.num_partitions, queue_);
    }
    ProgramOptions popts;
    popts.grid = DeviceGrid{options.num_replicas, options.num_partitions};
    popts.dump_dir = config_.dump_dir;
    popts.cache_dir = config_.cache_dir;
    popts.kernel_dir = config_.kernel_dir;
    popts.features = device_->features();
    popts.host_opcodes = config_.host_opcodes;
    for (const std::string& f : config_.disabled) {
      if (f == "float64") popts.features.float64 = false;
      if (f == "int64") popts.features.int64 = false;
      if (f == "int16") popts.features.int16 = false;
      if (f == "int8") popts.features.int8 = false;
      if (f == "subgroups") popts.features.subgroups = false;
    }
    absl::StatusOr<std::unique_ptr<VulkanProgram>> program =
        VulkanProgram::Compile(std::move(module), device_, popts, resolver);
    if (!program.ok()) return program.status();
    if (!config_.cache_dir.empty() &&
        (*program)->spirv_cache_hits() < (*program)->stats().kernels) {
      PLEXA_RETURN_IF_ERROR(device_->SavePipelineCache());
    }
    PLEXA_RETURN_IF_ERROR(Dump(**program));
    if (config_.report) {
      std::fprintf(stderr, "%s\n", (*program)->Report().c_str());
    }
    std::shared_ptr<const VulkanProgram> shared = *std::move(program);
    cache_.Insert(key, shared);
    return std::make_unique<VulkanExecutable>(std::move(shared), device_,
                                              std::move(*devices),
                                              options.num_partitions, queue_);
  }

 private:
  // The dump_program option's files, when it is set.
  absl::Status Dump(const VulkanProgram& p) const {
    if (config_.dump_program.empty()) return absl::OkStatus();
    return backend::WriteProgramDump(config_.dump_program, "vulkan", p.module(),
                                     p.executor());
  }

  ClientConfig config_;
  std::shared_ptr<VulkanDevice> device_;
  std::vector<std::unique_ptr<Device>> devices_owned_;
  std::vector<Device*> devices_;
  backend::CompileCache<VulkanProgram> cache_;
  // Executions run here, one at a time in the order they were issued
  // (null with async_execution=0). Executables share it; it drains before
  // it goes.
  std::shared_ptr<sdk::WorkQueue> queue_ =
      config_.async_execution ? std::make_shared<sdk::WorkQueue>() : nullptr;
};

}  // namespace

sdk::PluginInfo VulkanPluginInfo() {
  sdk::PluginInfo info;
  info.name = "vulkan";
  info.vendor = "Plexa";
  info.version = "0.1.0";
  info.platform = "vulkan";
  // C targets run on the host, on the mapped device memory (docs/vulkan.md).
  info.custom_call_platforms = {"host"};
  info.formats = {"plexa-module", "hlo-text"};
  info.capabilities = PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL |
                      PLX_CAPABILITY_REPLICAS | PLX_CAPABILITY_PARTITIONS |
                      PLX_CAPABILITY_FEEDS | PLX_CAPABILITY_TUPLE_PARAMETERS |
                      PLX_CAPABILITY_PROFILER | PLX_CAPABILITY_ASYNC_TRANSFERS;
  return info;
}

absl::StatusOr<std::unique_ptr<sdk::Client>> MakeVulkanClient(
    const sdk::Options& options) {
  static constexpr const char* kKnown[] = {
      "device",           "num_devices", "report",          "dump_dir",
      "disable_features", "validation",  "dump_program",    "cache_dir",
      "staging",          "kernel_dir",  "async_execution", "host_opcodes"};
  if (absl::Status s = sdk::CheckKnownOptions(options, kKnown, "vulkan");
      !s.ok()) {
    return s;
  }
  ClientConfig config;
  if (auto it = options.find("device"); it != options.end()) {
    if (it->second.kind == PLX_Value_STRING) {
      config.device = it->second.string_value;
    } else if (it->second.kind == PLX_Value_INT64) {
      config.device = absl::StrCat(it->second.int64_value);
    } else {
      return absl::InvalidArgumentError(
          "vulkan option 'device' must be an index or a name");
    }
  }
  // The string options: dump_dir as it is, the lists split at commas.
  auto string_option =
      [&](const char* name) -> absl::StatusOr<std::optional<std::string>> {
    auto it = options.find(name);
    if (it == options.end()) return std::nullopt;
    if (it->second.kind != PLX_Value_STRING) {
      return absl::InvalidArgumentError(
          absl::StrCat("vulkan option '", name, "' must be a string"));
    }
    return it->second.string_value;
  };
  PLEXA_ASSIGN_OR_RETURN(std::optional<std::string> dump_dir,
                         string_option("dump_dir"));
  if (dump_dir.has_value()) config.dump_dir = *dump_dir;
  PLEXA_ASSIGN_OR_RETURN(std::optional<std::string> disable,
                         string_option("disable_features"));
  for (absl::string_view f :
       absl::StrSplit(disable.value_or(""), ',', absl::SkipEmpty())) {
    if (f != "float64" && f != "int64" && f != "int16" && f != "int8" &&
        f != "subgroups") {
      return absl::InvalidArgumentError(
          absl::StrCat("vulkan option 'disable_features': unknown feature '", f,
                       "' (known: float64, int64, int16, int8, subgroups)"));
    }
    config.disabled.emplace_back(f);
  }
  PLEXA_ASSIGN_OR_RETURN(std::optional<std::string> host_opcodes,
                         string_option("host_opcodes"));
  for (absl::string_view name :
       absl::StrSplit(host_opcodes.value_or(""), ',', absl::SkipEmpty())) {
    std::optional<HloOpcode> op = StringToHloOpcode(name);
    if (!op.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vulkan option 'host_opcodes': '", name, "' is not an HLO opcode"));
    }
    config.host_opcodes.insert(*op);
  }
  PLEXA_ASSIGN_OR_RETURN(config.dump_program,
                         backend::DumpProgramOption(options, "vulkan"));
  // cache_dir (made if missing) and kernel_dir (must exist): directories.
  for (auto [name, field, prepare] :
       {std::tuple{"cache_dir", &config.cache_dir, &PrepareCacheDirectory},
        std::tuple{"kernel_dir", &config.kernel_dir, &CheckKernelDirectory}}) {
    auto it = options.find(name);
    if (it == options.end()) continue;
    if (it->second.kind != PLX_Value_STRING ||
        it->second.string_value.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vulkan option '", name, "' is a directory (a non-empty string)"));
    }
    *field = it->second.string_value;
    PLEXA_RETURN_IF_ERROR(prepare(*field));
  }
  absl::StatusOr<int64_t> n =
      sdk::GetIntOptionInRange(options, "num_devices", 1, 1, 1024);
  if (!n.ok()) return n.status();
  config.num_devices = *n;
  absl::StatusOr<int64_t> report =
      sdk::GetIntOptionInRange(options, "report", 0, 0, 1);
  if (!report.ok()) return report.status();
  config.report = *report != 0;
  absl::StatusOr<int64_t> validation =
      sdk::GetIntOptionInRange(options, "validation", 0, 0, 1);
  if (!validation.ok()) return validation.status();
  config.validation = *validation != 0;
  // async_execution: 1 (default) runs executions on the client's execution
  // thread, returning at once; 0 on the calling thread.
  absl::StatusOr<int64_t> async_execution =
      sdk::GetIntOptionInRange(options, "async_execution", 1, 0, 1);
  if (!async_execution.ok()) return async_execution.status();
  config.async_execution = *async_execution != 0;
  // staging: 1 always through staging copies, 0 never, absent: decided by
  // the device's memory (vk_device.h). PLEXA_VULKAN_STAGING=0/1 when the
  // option is absent.
  if (options.count("staging") > 0) {
    absl::StatusOr<int64_t> staging =
        sdk::GetIntOptionInRange(options, "staging", 0, 0, 1);
    if (!staging.ok()) return staging.status();
    config.staging = *staging != 0 ? StagingMode::kOn : StagingMode::kOff;
  } else if (const char* env = std::getenv("PLEXA_VULKAN_STAGING")) {
    const absl::string_view v = env;
    if (v == "1") {
      config.staging = StagingMode::kOn;
    } else if (v == "0") {
      config.staging = StagingMode::kOff;
    } else if (!v.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PLEXA_VULKAN_STAGING must be 0 or 1, not '", v, "'"));
    }
  }
  absl::StatusOr<std::unique_ptr<VulkanDevice>> device =
      VulkanDevice::Create(config.device, config.validation, config.staging);
  if (!device.ok()) return device.status();
  if (!config.cache_dir.empty()) {
    PLEXA_RETURN_IF_ERROR((*device)->LoadPipelineCache(config.cache_dir));
  }
  return std::make_unique<VulkanClient>(
      std::move(config), std::shared_ptr<VulkanDevice>(*std::move(device)));
}

}  // namespace plexa::vulkan
