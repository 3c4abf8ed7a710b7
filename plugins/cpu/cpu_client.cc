// The host-memory client of the CPU plugin and of the plugins built on it
// (cpu_client.h).
#include "plugins/cpu/cpu_client.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "core/ir/cost_analysis.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "plugins/common/aligned_memory.h"
#include "plugins/common/compile_cache.h"
#include "plugins/common/program_dump.h"
#include "plugins/common/run_devices.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/cpu_pipeline.h"
#include "plugins/cpu/cpu_program.h"
#include "plugins/cpu/runtime/gemm.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

using ::plexa::backend::AlignedMemory;
namespace {

using sdk::Buffer;
using sdk::Device;

// Large blocks of freed buffers, kept by the client for the next buffers of
// the same size: repeated executions then reuse memory that is already
// mapped (no page faults, no zeroing by the kernel). Bounded in total.
class MemoryCache {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 10;
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;

  absl::StatusOr<AlignedMemory> Get(size_t bytes) {
    if (bytes >= kMinBytes) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        AlignedMemory m = std::move(it->second.back());
        it->second.pop_back();
        cached_ -= bytes;
        return m;
      }
    }
    return AlignedMemory::Allocate(bytes);
  }
  void Put(AlignedMemory m) {
    const size_t bytes = m.size();
    if (bytes < kMinBytes) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (cached_ + bytes > kMaxCachedBytes) return;  // freed instead
    cached_ += bytes;
    free_[bytes].push_back(std::move(m));
  }

 private:
  std::mutex mu_;
  absl::flat_hash_map<size_t, std::vector<AlignedMemory>> free_;
  size_t cached_ = 0;
};

class CpuBuffer : public Buffer {
 public:
  CpuBuffer(Shape shape, Device* device, AlignedMemory memory,
            std::shared_ptr<MemoryCache> cache)
      : Buffer(std::move(shape), device),
        memory_(std::make_unique<AlignedMemory>(std::move(memory))),
        cache_(std::move(cache)) {}
  ~CpuBuffer() override { Release(); }

  static absl::StatusOr<std::unique_ptr<CpuBuffer>> Create(
      const Shape& shape, Device* device, std::shared_ptr<MemoryCache> cache) {
    absl::StatusOr<AlignedMemory> m = cache->Get(ShapeUtil::ByteSizeOf(shape));
    if (!m.ok()) return m.status();
    return std::make_unique<CpuBuffer>(shape, device, std::move(*m),
                                       std::move(cache));
  }

  size_t on_device_size() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ ? memory_->size() : 0;
  }
  // The memory stays valid while the caller holds the buffer (Delete
  // during an Execute that uses it is the caller's race, as in PJRT).
  void* data() {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ ? memory_->data() : nullptr;
  }

  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!memory_) return absl::FailedPreconditionError("buffer was deleted");
    const Layout mine = LayoutUtil::EffectiveLayout(shape());
    if (LayoutUtil::EffectiveLayout(host_shape) == mine) {
      if (memory_->size() > 0)
        std::memcpy(dst, memory_->data(), memory_->size());
      return absl::OkStatus();
    }
    Literal literal(shape());
    if (memory_->size() > 0) {
      std::memcpy(literal.mutable_data().data(), memory_->data(),
                  memory_->size());
    }
    absl::StatusOr<Literal> relaid =
        literal.Relayout(LayoutUtil::EffectiveLayout(host_shape));
    if (!relaid.ok()) return relaid.status();
    if (!relaid->data().empty()) {
      std::memcpy(dst, relaid->data().data(), relaid->data().size());
    }
    return absl::OkStatus();
  }

  void Delete() override { Release(); }
  bool IsDeleted() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ == nullptr;
  }

 private:
  void Release() {
    std::unique_ptr<AlignedMemory> m;
    {
      std::lock_guard<std::mutex> lock(mu_);
      m = std::move(memory_);
    }
    if (m) cache_->Put(std::move(*m));
  }

  mutable std::mutex mu_;
  std::unique_ptr<AlignedMemory> memory_;  // guarded by mu_
  std::shared_ptr<MemoryCache> cache_;
};

class CpuExecutable : public sdk::Executable {
 public:
  // `replica_devices`: one per device of an execution, replicas x
  // `num_partitions`, replica-major.
  CpuExecutable(std::shared_ptr<const CpuProgram> program,
                std::vector<Device*> replica_devices, int64_t num_partitions,
                std::shared_ptr<ThreadPool> pool,
                std::shared_ptr<MemoryCache> memory,
                std::vector<std::string> custom_call_libraries,
                std::string plugin_name)
      : plugin_name_(std::move(plugin_name)),
        program_(std::move(program)),
        replica_devices_(std::move(replica_devices)),
        num_partitions_(num_partitions),
        pool_(std::move(pool)),
        memory_(std::move(memory)),
        custom_call_libraries_(std::move(custom_call_libraries)) {}

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

  absl::StatusOr<sdk::ExecuteResult> ExecuteWithOptions(
      absl::Span<const std::vector<Buffer*>> args,
      const sdk::ExecuteOptions& options) override {
    HostFeeds* feeds = options.feeds.get();
    Profiler* profiler = options.profiler.get();
    const sdk::CallFrameContext* call_frames = options.call_frames.get();
    const int64_t replicas = static_cast<int64_t>(args.size());
    sdk::ExecuteResult out;
    out.outputs.resize(replicas);
    std::vector<std::vector<const void*>> arg_ptrs(replicas);
    std::vector<std::vector<void*>> result_ptrs(replicas);
    // Arguments in another layout than the compiled parameter's are
    // relaid out for this call.
    std::vector<Literal> relaid;
    relaid.reserve(replicas * program_->parameter_shapes().size());
    for (int64_t r = 0; r < replicas; ++r) {
      for (size_t i = 0; i < args[r].size(); ++i) {
        Buffer* b = args[r][i];
        void* p = static_cast<CpuBuffer*>(b)->data();
        if (p == nullptr) {
          return absl::FailedPreconditionError(
              absl::StrCat("argument ", i, " of replica ", r, " was deleted"));
        }
        const Shape& want = program_->parameter_shapes()[i];
        const Layout want_layout = LayoutUtil::EffectiveLayout(want);
        if (!(LayoutUtil::EffectiveLayout(b->shape()) == want_layout)) {
          Literal lit(b->shape());
          if (!lit.data().empty()) {
            std::memcpy(lit.mutable_data().data(), p, lit.data().size());
          }
          absl::StatusOr<Literal> moved = lit.Relayout(want_layout);
          if (!moved.ok()) return moved.status();
          relaid.push_back(std::move(*moved));
          p = relaid.back().mutable_data().data();
        }
        arg_ptrs[r].push_back(p);
      }
      for (const Shape& s : program_->result_shapes()) {
        absl::StatusOr<std::unique_ptr<CpuBuffer>> b =
            CpuBuffer::Create(s, replica_devices_[r], memory_);
        if (!b.ok()) return b.status();
        result_ptrs[r].push_back((*b)->data());
        out.outputs[r].push_back(std::move(*b));
      }
    }
    // Every replica of every partition.
    const DeviceGrid grid{replicas / num_partitions_, num_partitions_};
    PLEXA_RETURN_IF_ERROR(backend::RunOnDevices(grid, [&](int64_t d,
                                                          ReplicaHub* hub) {
      return program_->Run(arg_ptrs[d], result_ptrs[d], pool_.get(), d, grid,
                           hub, feeds, profiler, call_frames, &rng_states_);
    }));
    return out;
  }

  absl::StatusOr<sdk::ExecutableStatistics> Statistics() const override {
    absl::StatusOr<sdk::ExecutableStatistics> s = sdk::Executable::Statistics();
    if (!s.ok()) return s;
    const Module& m = program_->module();
    s->fingerprint = sdk::Fingerprint(
        {plugin_name_, GetHostTarget().cpu, GetHostTarget().features,
         absl::StrCat(replica_devices_.size(), ":", num_partitions_),
         PrintModule(m)});
    const ModuleCost cost = AnalyzeCost(m);
    s->flops = cost.flops;
    s->transcendentals = cost.transcendentals;
    s->bytes_accessed = cost.bytes_accessed;
    s->temp_bytes = program_->stats().peak_temp_bytes;
    s->generated_code_bytes =
        static_cast<int64_t>(program_->object_code().size());
    return s;
  }

  // Layout: magic, then length-prefixed fields: host cpu, host features,
  // replica count (and ":partitions" when more than one), custom-call
  // libraries (joined by '\n'), the optimized
  // module's text, the kernels' object code.
  absl::StatusOr<std::string> Serialize() const override;

 private:
  std::string plugin_name_;
  std::shared_ptr<const CpuProgram> program_;
  // rng-get-and-update-state's states: this executable's, across runs.
  RngStateTable rng_states_;
  std::vector<Device*> replica_devices_;
  int64_t num_partitions_;
  // Shared with the client: an executable may outlive its client.
  std::shared_ptr<ThreadPool> pool_;
  std::shared_ptr<MemoryCache> memory_;
  std::vector<std::string> custom_call_libraries_;
};

// "PLEXA-CPU-EXECUTABLE-1\n" for the CPU plugin: an executable is read
// back only by the plugin that wrote it.
std::string Magic(absl::string_view plugin_name) {
  return absl::StrCat("PLEXA-", absl::AsciiStrToUpper(plugin_name),
                      "-EXECUTABLE-1\n");
}

void PutField(std::string* out, absl::string_view field) {
  const uint64_t n = field.size();
  out->append(reinterpret_cast<const char*>(&n), sizeof(n));
  out->append(field.data(), field.size());
}

bool GetField(absl::string_view* in, std::string* field) {
  uint64_t n;
  if (in->size() < sizeof(n)) return false;
  std::memcpy(&n, in->data(), sizeof(n));
  in->remove_prefix(sizeof(n));
  if (in->size() < n) return false;
  field->assign(in->data(), n);
  in->remove_prefix(n);
  return true;
}

absl::StatusOr<std::string> CpuExecutable::Serialize() const {
  std::string out = Magic(plugin_name_);
  PutField(&out, GetHostTarget().cpu);
  PutField(&out, GetHostTarget().features);
  PutField(&out, num_partitions_ == 1
                     ? absl::StrCat(num_replicas())
                     : absl::StrCat(num_replicas(), ":", num_partitions_));
  PutField(&out, absl::StrJoin(custom_call_libraries_, "\n"));
  PutField(&out, PrintModule(program_->module()));
  PutField(&out, program_->object_code());
  return out;
}

class CpuClient : public sdk::Client {
 public:
  explicit CpuClient(CpuClientConfig config)
      : config_(std::move(config)),
        pool_(std::make_shared<ThreadPool>(
            static_cast<int>(config_.num_threads))) {
    for (int64_t i = 0; i < config_.num_devices; ++i) {
      devices_owned_.push_back(std::make_unique<Device>(
          i, absl::StrCat(config_.plugin_name, ":", GetHostTarget().cpu), 0));
      devices_.push_back(devices_owned_.back().get());
    }
  }

  absl::Span<Device* const> devices() const override { return devices_; }

  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHost(
      const void* data, const Shape& shape, Device* device) override {
    absl::StatusOr<std::unique_ptr<CpuBuffer>> b =
        CpuBuffer::Create(shape, device, memory_);
    if (!b.ok()) return b.status();
    const size_t bytes = (*b)->on_device_size();
    if (bytes > 0) std::memcpy((*b)->data(), data, bytes);
    return std::unique_ptr<Buffer>(std::move(*b));
  }

  absl::StatusOr<std::unique_ptr<sdk::Executable>> Compile(
      std::unique_ptr<Module> module, const sdk::CompileOptions& options,
      const sdk::CustomCallResolver& resolver) override {
    absl::StatusOr<std::vector<Device*>> devices =
        ReplicaDevices(options.device_assignment);
    if (!devices.ok()) return devices.status();
    // The compile cache (CompileCacheKey: the module's text, the replica
    // count, the options, the custom-call libraries and registry). A cached
    // program holds the custom-call libraries it was resolved from.
    const std::string key = backend::CompileCacheKey(
        PrintModule(*module), options, options.num_replicas);
    if (std::shared_ptr<const CpuProgram> cached = cache_.Lookup(key)) {
      PLEXA_RETURN_IF_ERROR(Dump(*cached));
      if (config_.report) {
        std::fprintf(stderr, "plexa %s: compile cache hit (%lld so far)\n",
                     config_.plugin_name.c_str(),
                     static_cast<long long>(cache_.hits()));
      }
      return std::make_unique<CpuExecutable>(
          std::move(cached), std::move(*devices), options.num_partitions, pool_,
          memory_, options.custom_call_libraries, config_.plugin_name);
    }
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status s = RunCpuPipeline(module.get(), config_.extension.get());
        !s.ok())
      return s;
    const double pipeline_ms = std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - start)
                                   .count();
    ProgramCompileOptions popts;
    popts.grid = DeviceGrid{options.num_replicas, options.num_partitions};
    popts.compile_threads = static_cast<int>(config_.num_threads);
    popts.extension = config_.extension;
    popts.platform = config_.plugin_name;
    std::string ir;
    if (!config_.dump_ir.empty()) popts.ir_dump = &ir;
    const std::string name = module->name();
    absl::StatusOr<std::shared_ptr<const CpuProgram>> program =
        CompileProgram(std::move(module), popts, resolver);
    if (!program.ok()) return program.status();
    if (!config_.dump_ir.empty()) {
      const std::string path = absl::StrCat(config_.dump_ir, "/", name, ".ll");
      std::ofstream out(path);
      out << ir;
      out.close();
      if (!out) {
        return absl::PermissionDeniedError(
            absl::StrCat("dump_ir: cannot write '", path,
                         "' (does the directory exist "
                         "and is it writable?)"));
      }
    }
    PLEXA_RETURN_IF_ERROR(Dump(**program));
    if (config_.report) Report(**program, pipeline_ms);
    cache_.Insert(key, *program);
    return std::make_unique<CpuExecutable>(
        *program, std::move(*devices), options.num_partitions, pool_, memory_,
        options.custom_call_libraries, config_.plugin_name);
  }

  absl::StatusOr<std::unique_ptr<sdk::Executable>> Deserialize(
      absl::string_view bytes) override {
    const std::string magic = Magic(config_.plugin_name);
    if (bytes.substr(0, magic.size()) != magic) {
      return absl::InvalidArgumentError(
          absl::StrCat("not a serialized ", config_.plugin_name,
                       "-plugin executable (bad magic)"));
    }
    bytes.remove_prefix(magic.size());
    std::string cpu, features, replicas, libraries, text, object;
    if (!GetField(&bytes, &cpu) || !GetField(&bytes, &features) ||
        !GetField(&bytes, &replicas) || !GetField(&bytes, &libraries) ||
        !GetField(&bytes, &text) || !GetField(&bytes, &object) ||
        !bytes.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("serialized ", config_.plugin_name,
                       "-plugin executable is truncated or corrupt"));
    }
    if (cpu != GetHostTarget().cpu || features != GetHostTarget().features) {
      return absl::FailedPreconditionError(
          absl::StrCat("the executable was compiled for CPU '", cpu,
                       "' with other features than this host ('",
                       GetHostTarget().cpu, "'); compile it again here"));
    }
    absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(text);
    if (!module.ok()) return module.status();
    if (absl::Status s = VerifyModule(**module); !s.ok()) return s;
    // "R", or "R:P" for P > 1 partitions.
    int64_t num_replicas = 1, num_partitions = 1;
    std::vector<std::string> counts = absl::StrSplit(replicas, ':');
    if (counts.size() > 2 || !absl::SimpleAtoi(counts[0], &num_replicas) ||
        num_replicas < 1 ||
        (counts.size() == 2 && (!absl::SimpleAtoi(counts[1], &num_partitions) ||
                                num_partitions < 1))) {
      return absl::InvalidArgumentError("corrupt replica count");
    }
    std::vector<int64_t> assignment;
    for (int64_t r = 0; r < num_replicas * num_partitions; ++r) {
      assignment.push_back(r % static_cast<int64_t>(devices_.size()));
    }
    absl::StatusOr<std::vector<Device*>> devices = ReplicaDevices(assignment);
    if (!devices.ok()) return devices.status();
    std::vector<std::string> libs;
    if (!libraries.empty()) libs = absl::StrSplit(libraries, '\n');
    absl::StatusOr<std::shared_ptr<sdk::CustomCallResolver>> resolver =
        sdk::CustomCallResolver::Create(libs);
    if (!resolver.ok()) return resolver.status();
    ProgramCompileOptions popts;
    popts.grid = DeviceGrid{num_replicas, num_partitions};
    popts.object_code = &object;
    popts.extension = config_.extension;
    popts.platform = config_.plugin_name;
    absl::StatusOr<std::shared_ptr<const CpuProgram>> program =
        CompileProgram(std::move(*module), popts, **resolver);
    if (!program.ok()) return program.status();
    return std::make_unique<CpuExecutable>(
        *program, std::move(*devices), num_partitions, pool_, memory_,
        std::move(libs), config_.plugin_name);
  }

 private:
  absl::StatusOr<std::vector<Device*>> ReplicaDevices(
      const std::vector<int64_t>& assignment) const {
    absl::StatusOr<std::vector<Device*>> out =
        sdk::AssignedDevices(*this, assignment);
    if (out.ok() && out->empty()) out->push_back(devices_[0]);
    return out;
  }

  // The dump_program option's files (program_dump.h), when it is set.
  absl::Status Dump(const CpuProgram& p) const {
    if (config_.dump_program.empty()) return absl::OkStatus();
    return backend::WriteProgramDump(config_.dump_program, config_.plugin_name,
                                     p.module(), p.executor());
  }

  void Report(const CpuProgram& p, double pipeline_ms) const {
    const ProgramStats& s = p.stats();
    std::fprintf(
        stderr,
        "plexa %s: %s: passes %.1f ms, codegen+LLVM %.1f ms; %lld kernels "
        "(%lld in convolution epilogues), %lld runtime thunks (%lld "
        "updating in place), %lld reference "
        "kernels%s%s; peak temporary memory %lld bytes (%lld without reuse); "
        "GEMM kernel %s\n",
        config_.plugin_name.c_str(), p.module().name().c_str(), pipeline_ms,
        s.compile_ms, static_cast<long long>(s.kernels),
        static_cast<long long>(s.conv_epilogues),
        static_cast<long long>(s.runtime_thunks),
        static_cast<long long>(s.in_place_updates),
        static_cast<long long>(s.reference_thunks),
        s.reference_ops.empty() ? "" : ": ",
        absl::StrJoin(s.reference_ops, ", ").c_str(),
        static_cast<long long>(s.peak_temp_bytes),
        static_cast<long long>(s.unshared_temp_bytes), GemmKernelName());
    if (config_.extension != nullptr) {
      const std::string line = config_.extension->Report(p.module());
      if (!line.empty()) {
        std::fprintf(stderr, "plexa %s: %s: %s\n", config_.plugin_name.c_str(),
                     p.module().name().c_str(), line.c_str());
      }
    }
  }

  CpuClientConfig config_;
  std::shared_ptr<ThreadPool> pool_;
  std::shared_ptr<MemoryCache> memory_ = std::make_shared<MemoryCache>();
  std::vector<std::unique_ptr<Device>> devices_owned_;
  std::vector<Device*> devices_;
  backend::CompileCache<CpuProgram> cache_;
};

}  // namespace

absl::StatusOr<CpuClientConfig> ParseCpuClientOptions(
    const sdk::Options& options, absl::string_view plugin_name,
    absl::Span<const char* const> extra_known) {
  std::vector<const char*> known = {"num_devices", "num_threads", "report",
                                    "dump_ir", "dump_program"};
  known.insert(known.end(), extra_known.begin(), extra_known.end());
  if (absl::Status s = sdk::CheckKnownOptions(options, known, plugin_name);
      !s.ok()) {
    return s;
  }
  CpuClientConfig config;
  config.plugin_name = std::string(plugin_name);
  auto n = sdk::GetIntOptionInRange(options, "num_devices", 1, 1, 1024);
  if (!n.ok()) return n.status();
  config.num_devices = *n;
  auto threads = sdk::GetIntOptionInRange(
      options, "num_threads", ThreadPool::DefaultNumThreads(), 1, 1024);
  if (!threads.ok()) return threads.status();
  config.num_threads = *threads;
  auto report = sdk::GetIntOption(options, "report", 0);
  if (!report.ok()) return report.status();
  // PLEXA_CPU_REPORT=1 (PLEXA_ONEDNN_REPORT=1, ...) in the environment also
  // turns the report on.
  const std::string upper = absl::AsciiStrToUpper(plugin_name);
  const char* env =
      std::getenv(absl::StrCat("PLEXA_", upper, "_REPORT").c_str());
  config.report = *report != 0 || (env != nullptr && env[0] == '1');
  if (auto it = options.find("dump_ir"); it != options.end()) {
    config.dump_ir = it->second.string_value;
  } else if (const char* dir = std::getenv(
                 absl::StrCat("PLEXA_", upper, "_DUMP_IR").c_str())) {
    config.dump_ir = dir;
  }
  PLEXA_ASSIGN_OR_RETURN(config.dump_program,
                         backend::DumpProgramOption(options, plugin_name));
  return config;
}

sdk::PluginInfo CpuClientPluginInfo(std::string name) {
  sdk::PluginInfo info;
  info.name = std::move(name);
  info.vendor = "Plexa";
  info.version = "0.1.0";
  info.platform = "host";
  info.formats = {"plexa-module", "hlo-text"};
  info.capabilities =
      PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL | PLX_CAPABILITY_CUSTOM_CALL_TYPED |
      PLX_CAPABILITY_REPLICAS | PLX_CAPABILITY_PARTITIONS |
      PLX_CAPABILITY_FEEDS | PLX_CAPABILITY_TUPLE_PARAMETERS |
      PLX_CAPABILITY_SERIALIZE_EXECUTABLE | PLX_CAPABILITY_PROFILER;
  return info;
}

std::unique_ptr<sdk::Client> MakeCpuClient(CpuClientConfig config) {
  return std::make_unique<CpuClient>(std::move(config));
}

}  // namespace plexa::cpu
