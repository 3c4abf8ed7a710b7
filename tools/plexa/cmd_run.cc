// plexa run PROGRAM.hlo [--input=a.npy ...] [--output=out.npy |
//   --output-dir=DIR] [--backend=NAME|PATH] [--replicas=N]
//   [--partitions=N] [--print]
//   [--repeat=N] [--seed=N] [--no-opt] [--threads=N] [--report]
//   [--infeed=x.npy ...] [--outfeed-dir=DIR] [--memory-limit=BYTES]
//   [--custom-call-lib=PATH ...] (`plexa run --help` explains each)
//
// --memory-limit (default: the machine's memory) bounds every array the
// program sizes, checked before anything is allocated for it (and passed to
// the plugin as its client option memory_limit_bytes): a program that needs
// more fails with RESOURCE_EXHAUSTED naming the instruction.
//
// Host feeds: the --infeed files fill one queue (in order) that the
// program's infeed instructions read, shared by all replicas and filled
// anew for every --repeat; outfeed values are printed with --print and
// written to DIR/0.npy, DIR/1.npy, ... (in the order they were sent) with
// --outfeed-dir.
//
// The backend is the CPU plugin unless --backend names another plugin (by
// name or path) or `interpreter` (the evaluator in process).
//
// --custom-call-lib=PATH (repeatable): custom-call targets are looked up in
// these libraries, in order, before the process's own symbols; a plugin gets
// them as its compile options' custom_call_libraries.
//
// The default optimization pipeline (core/passes/default_pipeline.h) runs
// on the program before it is compiled or interpreted, unless --no-opt.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi/host/replicated_run.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/ir/collective_groups.h"
#include "core/ir/memory_limit.h"
#include "core/npy/npy.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/dynamic_padder.h"
#include "core/runtime/profiler.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

// "1000", "64K", "512M", "2G", "1T" (powers of 1024) -> bytes.
absl::StatusOr<int64_t> ParseByteCount(const std::string& text) {
  std::string digits = text;
  int64_t scale = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K':
      case 'k':
        scale = int64_t{1} << 10;
        break;
      case 'M':
      case 'm':
        scale = int64_t{1} << 20;
        break;
      case 'G':
      case 'g':
        scale = int64_t{1} << 30;
        break;
      case 'T':
      case 't':
        scale = int64_t{1} << 40;
        break;
      default:
        break;
    }
    if (scale != 1) digits.pop_back();
  }
  int64_t value = 0;
  if (!absl::SimpleAtoi(digits, &value) || value < 1 ||
      value > std::numeric_limits<int64_t>::max() / scale) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--memory-limit expects a positive byte count such as 1000, 64K, "
        "512M or 2G, got '",
        text, "'"));
  }
  return value * scale;
}

// splitmix64: a small, well-mixed generator for the seeded random inputs.
uint64_t NextRandom(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Floats uniform in [-1, 1); integers in [0, 10); pred fair coin.
absl::StatusOr<Literal> RandomLiteral(const Shape& shape, uint64_t* state) {
  if (shape.IsTuple()) {
    std::vector<Literal> elems;
    for (const Shape& s : shape.tuple_shapes()) {
      auto e = RandomLiteral(s, state);
      if (!e.ok()) return e.status();
      elems.push_back(std::move(*e));
    }
    return Literal::MakeTuple(std::move(elems));
  }
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot make a random input of shape ", shape.ToString()));
  }
  Shape s = shape;
  LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  Literal lit(s);
  const PrimitiveType t = s.element_type();
  absl::Status status;
  ShapeUtil::ForEachIndex(s, [&](absl::Span<const int64_t> index) {
    const uint64_t r = NextRandom(state);
    const double unit = static_cast<double>(r >> 11) * 0x1.0p-53;
    if (primitive_util::IsFloatingPointType(t) ||
        primitive_util::IsComplexType(t)) {
      status.Update(lit.SetFromDouble(index, 2 * unit - 1));
    } else if (t == PRED) {
      status.Update(lit.SetFromInt64(index, r & 1));
    } else {
      status.Update(lit.SetFromInt64(index, static_cast<int64_t>(r % 10)));
    }
  });
  if (!status.ok()) return status;
  return lit;
}

absl::StatusOr<std::vector<Literal>> ReadInputs(const Args& args,
                                                const ProgramShape& program) {
  std::vector<std::string> paths = args.GetAll("input");
  std::vector<Literal> inputs;
  if (paths.empty()) {
    uint64_t seed = 0;
    if (auto s = args.Get("seed")) {
      if (!absl::SimpleAtoi(*s, &seed)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--seed expects an integer, got '", *s, "'"));
      }
    }
    if (!program.parameters.empty()) {
      std::fprintf(stderr,
                   "note: no --input given; using seeded random inputs "
                   "(seed %llu)\n",
                   static_cast<unsigned long long>(seed));
    }
    uint64_t state = seed;
    for (const Shape& p : program.parameters) {
      // A dynamic parameter gets an argument of its bound.
      auto lit = RandomLiteral(
          p.IsArray() ? Shape(p.element_type(), p.dimensions()) : p, &state);
      if (!lit.ok()) return lit.status();
      inputs.push_back(std::move(*lit));
    }
    return inputs;
  }
  if (paths.size() != program.parameters.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the program takes ", program.parameters.size(), " parameter(s) but ",
        paths.size(), " --input file(s) were given"));
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    const Shape& param = program.parameters[i];
    auto lit = ReadNpyFile(paths[i], param.IsArray()
                                         ? std::optional(param.element_type())
                                         : std::nullopt);
    if (!lit.ok()) return lit.status();
    // A dynamic dimension takes any size up to its bound.
    const bool fits =
        param.IsArray() && param.is_dynamic()
            ? lit->shape().IsArray() && lit->shape().rank() == param.rank() &&
                  [&] {
                    for (int64_t d = 0; d < param.rank(); ++d) {
                      const int64_t got = lit->shape().dimensions(d);
                      if (param.is_dynamic_dimension(d)
                              ? got > param.dimensions(d)
                              : got != param.dimensions(d)) {
                        return false;
                      }
                    }
                    return true;
                  }()
            : Shape::Equal().IgnoreLayout()(lit->shape(), param);
    if (!fits) {
      return absl::InvalidArgumentError(
          absl::StrCat(paths[i], ": holds ", lit->shape().ToString(false),
                       " but parameter ", i, " is ", param.ToString(false)));
    }
    inputs.push_back(std::move(*lit));
  }
  return inputs;
}

struct Runner {
  // Runs once with the given host feeds (and profiler, may be null);
  // returns one result per replica.
  std::function<absl::StatusOr<std::vector<Literal>>(HostFeeds* feeds,
                                                     Profiler* profiler)>
      run;
};

// --custom-call-lib=PATH: the libraries, loaded (RTLD_LOCAL) for as long as
// a runner holds them. Loading them here also gives every backend the same
// early error for a library that cannot be loaded.
class CustomCallLibraries {
 public:
  static absl::StatusOr<std::shared_ptr<CustomCallLibraries>> Load(
      const std::vector<std::string>& paths) {
    auto libs = std::make_shared<CustomCallLibraries>();
    for (const std::string& path : paths) {
      // dlopen searches the library path for a bare name; a file given
      // relative to the working directory is meant as such.
      const std::string name =
          path.find('/') == std::string::npos && std::filesystem::exists(path)
              ? "./" + path
              : path;
      void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        const char* why = dlerror();
        return absl::NotFoundError(
            absl::StrCat("--custom-call-lib: cannot load '", path,
                         "': ", why ? why : "dlopen failed"));
      }
      libs->handles_.push_back(handle);
      libs->paths_.push_back(name);
    }
    return libs;
  }
  CustomCallLibraries() = default;
  CustomCallLibraries(const CustomCallLibraries&) = delete;
  CustomCallLibraries& operator=(const CustomCallLibraries&) = delete;
  ~CustomCallLibraries() {
    for (void* h : handles_) dlclose(h);
  }
  const std::vector<std::string>& paths() const { return paths_; }

  // The libraries in the order given, then the process (registry, dlsym).
  CustomCallTarget Resolve(absl::string_view target) const {
    const std::string name(target);
    for (void* h : handles_) {
      if (void* f = dlsym(h, name.c_str())) {
        return reinterpret_cast<CustomCallTarget>(f);
      }
    }
    return DefaultCustomCallResolver(target);
  }

 private:
  std::vector<void*> handles_;
  std::vector<std::string> paths_;
};

absl::StatusOr<Runner> MakeInterpreterRunner(
    const Module& module, std::vector<Literal> inputs, const DeviceGrid& grid,
    int64_t memory_limit, std::shared_ptr<CustomCallLibraries> libraries) {
  auto shared = std::make_shared<std::vector<Literal>>(std::move(inputs));
  return Runner{
      [&module, shared, grid, memory_limit, libraries](
          HostFeeds* feeds, Profiler*) -> absl::StatusOr<std::vector<Literal>> {
        EvaluatorOptions options;
        options.feeds = feeds;
        options.memory_limit_bytes = memory_limit;
        options.num_partitions = grid.partitions;
        if (!libraries->paths().empty()) {
          options.custom_call_resolver = [libraries](absl::string_view t) {
            return libraries->Resolve(t);
          };
        }
        Evaluator evaluator(std::move(options));
        if (grid.size() == 1) {
          auto r = evaluator.Run(module, *shared);
          if (!r.ok()) return r.status();
          std::vector<Literal> out;
          out.push_back(std::move(*r));
          return out;
        }
        return evaluator.RunReplicated(module, grid.size(), *shared);
      }};
}

// Client options for the plugins that take them (reference, cpu, onednn and
// vulkan: num_devices; cpu and onednn: num_threads; cpu, onednn and vulkan:
// report).
struct PluginFlags {
  int64_t threads = 0;  // 0: the plugin's default
  bool report = false;
  int64_t memory_limit = 0;  // 0: the plugin's default (the machine's memory)
  // --plugin-option=NAME=VALUE: client options passed as they are.
  std::vector<host::Plugin::Option> extra;
  bool profile = false;  // --profile: the plugin must report profiles
  // --custom-call-lib: handed to the plugin in the compile options.
  std::vector<std::string> custom_call_libraries;
};

absl::StatusOr<Runner> MakePluginRunner(const std::string& backend,
                                        const Module& module,
                                        const std::vector<Literal>& inputs,
                                        const DeviceGrid& grid,
                                        const PluginFlags& flags) {
  auto plugin = host::Plugin::Load(backend);
  if (!plugin.ok()) return plugin.status();
  std::vector<host::Plugin::Option> options;
  const std::string& name = (*plugin)->attributes().name;
  // The CPU plugin and the plugins built on its client (onednn).
  const bool cpu_client = name == "cpu" || name == "onednn";
  const bool vulkan = name == "vulkan";
  if ((name == "reference" || cpu_client || vulkan) && grid.size() > 1) {
    options.push_back({"num_devices", PLX_Value_INT64, "", grid.size()});
  }
  if (flags.profile && !(*plugin)->HasCapability(PLX_CAPABILITY_PROFILER)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--profile: plugin '", name,
        "' does not report profiles (no PLX_CAPABILITY_PROFILER); the cpu "
        "and onednn plugins do"));
  }
  if ((flags.threads > 0 && !cpu_client) ||
      (flags.report && !cpu_client && !vulkan)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--threads and --report are options of the cpu and onednn plugins "
        "(--report of the vulkan plugin too), not of '",
        name, "'"));
  }
  if (flags.threads > 0) {
    options.push_back({"num_threads", PLX_Value_INT64, "", flags.threads});
  }
  if (flags.report) options.push_back({"report", PLX_Value_INT64, "", 1});
  if (flags.memory_limit > 0) {
    options.push_back(
        {"memory_limit_bytes", PLX_Value_INT64, "", flags.memory_limit});
  }
  options.insert(options.end(), flags.extra.begin(), flags.extra.end());
  auto client = (*plugin)->CreateClient(options);
  if (!client.ok()) return client.status();
  host::CompileOptions compile;
  compile.num_replicas = grid.replicas;
  compile.num_partitions = grid.partitions;
  compile.custom_call_libraries = flags.custom_call_libraries;
  auto exe = host::CompileModule(**client, module, compile);
  if (!exe.ok()) return exe.status();
  if (flags.report) {
    // What the plugin says of the executable (ABI 1.2), when it can.
    auto stats = (*exe)->GetStatistics();
    if (stats.ok()) {
      std::fprintf(
          stderr,
          "executable: fingerprint %s; %.4g flops, %.4g "
          "transcendentals, %.4g bytes accessed (static estimate, "
          "loop bodies once); arguments %lld bytes, outputs %lld, "
          "temporaries %lld, generated code %lld\n",
          stats->fingerprint.empty() ? "unknown" : stats->fingerprint.c_str(),
          stats->flops, stats->transcendentals, stats->bytes_accessed,
          static_cast<long long>(stats->argument_bytes),
          static_cast<long long>(stats->output_bytes),
          static_cast<long long>(stats->temp_bytes),
          static_cast<long long>(stats->generated_code_bytes));
    }
  }
  // Every device (replica and partition) runs on the same inputs; they are
  // uploaded once and stay on the devices for every --repeat.
  std::shared_ptr<host::ReplicatedRun> run = nullptr;
  {
    auto created = host::ReplicatedRun::Create(
        **client, std::move(*exe),
        module.entry_computation()->root_instruction()->shape(),
        std::vector<std::vector<Literal>>(grid.size(), inputs));
    if (!created.ok()) return created.status();
    run = std::move(*created);
  }
  // The run's buffers and executable keep the C client alive (ClientRef);
  // the host::Client itself may go.
  return Runner{[run](HostFeeds* feeds, Profiler* profiler) {
    return run->Run(feeds, profiler);
  }};
}

// --profile=FILE: the events as a Chrome trace (Perfetto and
// chrome://tracing open it) and, on stderr, the steps that took longest.
absl::Status WriteProfile(const std::string& path,
                          const std::vector<RecordingProfiler::Event>& events,
                          absl::string_view module_name) {
  std::ofstream out(path);
  out << ChromeTraceJson(events, absl::StrCat("plexa run ", module_name));
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("--profile: cannot write '", path, "'"));
  }
  struct Total {
    std::string kind;
    int64_t count = 0;
    int64_t ns = 0;
  };
  std::map<std::string, Total> totals;
  for (const RecordingProfiler::Event& e : events) {
    Total& t = totals[e.name];
    t.kind = e.kind;
    ++t.count;
    t.ns += e.end_ns - e.begin_ns;
  }
  std::vector<std::pair<std::string, Total>> sorted(totals.begin(),
                                                    totals.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.ns > b.second.ns;
  });
  std::fprintf(stderr, "profile: %zu events in %s; longest steps (total):\n",
               events.size(), path.c_str());
  for (size_t i = 0; i < sorted.size() && i < 10; ++i) {
    const Total& t = sorted[i].second;
    std::fprintf(stderr, "  %10.3f ms  %5lld x  %-20s %s\n", t.ns / 1e6,
                 static_cast<long long>(t.count), t.kind.c_str(),
                 sorted[i].first.c_str());
  }
  return absl::OkStatus();
}

absl::Status WriteResult(const Args& args, const Literal& result,
                         const std::string& suffix) {
  if (auto out = args.Get("output")) {
    if (result.shape().IsTuple()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the result is a tuple ", result.shape().ToString(),
                       "; use --output-dir=DIR to get one .npy per element"));
    }
    std::string path = *out;
    if (!suffix.empty()) {
      // Replicas: out.npy -> out.replica1.npy
      std::filesystem::path p(path);
      path = (p.parent_path() /
              (p.stem().string() + suffix + p.extension().string()))
                 .string();
    }
    return WriteNpyFile(path, result);
  }
  if (auto dir = args.Get("output-dir")) {
    std::filesystem::path base = std::filesystem::path(*dir);
    if (!suffix.empty()) base /= suffix.substr(1);
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    if (ec) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create directory '", base.string(), "': ", ec.message()));
    }
    if (!result.shape().IsTuple()) {
      return WriteNpyFile((base / "0.npy").string(), result);
    }
    for (int64_t i = 0; i < result.tuple_element_count(); ++i) {
      const Literal& e = result.tuple_element(i);
      if (e.shape().IsToken()) {
        // Tokens order side effects and hold no data: nothing to write.
        std::fprintf(stderr,
                     "plexa run: tuple element %lld is a token (no data); "
                     "no %lld.npy written\n",
                     static_cast<long long>(i), static_cast<long long>(i));
        continue;
      }
      if (e.shape().IsTuple()) {
        return absl::UnimplementedError(absl::StrCat(
            "tuple element ", i, " is itself a tuple (", e.shape().ToString(),
            "); nested tuples cannot be written as .npy"));
      }
      absl::Status s =
          WriteNpyFile((base / absl::StrCat(i, ".npy")).string(), e);
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

// Prints (--print) and writes (--outfeed-dir) what the program sent to its
// outfeed, oldest first.
absl::Status WriteOutfeed(const Args& args, HostFeedQueue* outfeed) {
  std::optional<std::string> dir = args.Get("outfeed-dir");
  if (dir) {
    std::error_code ec;
    std::filesystem::create_directories(*dir, ec);
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create directory '", *dir, "': ", ec.message()));
    }
  }
  for (int64_t n = 0; std::optional<Literal> l = outfeed->Pop(); ++n) {
    if (args.Has("print")) {
      std::printf("outfeed %lld: %s\n", static_cast<long long>(n),
                  l->ToString().c_str());
    }
    if (!dir) continue;
    if (!l->shape().IsArray()) {
      return absl::UnimplementedError(
          absl::StrCat("outfeed value ", n, " is a ", l->shape().ToString(),
                       "; only arrays can be written as .npy"));
    }
    absl::Status s = WriteNpyFile(
        (std::filesystem::path(*dir) / absl::StrCat(n, ".npy")).string(), *l);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

int RunRun(const Args& args) {
  if (args.positional.size() != 1) {
    std::fprintf(stderr, "error: usage: plexa run PROGRAM.hlo [options]\n");
    return 2;
  }
  if (args.Has("output") && args.Has("output-dir")) {
    return ReportError(absl::InvalidArgumentError(
        "give either --output or --output-dir, not both"));
  }
  int64_t replicas = 1, partitions = 1, repeat = 1;
  if (auto r = args.Get("replicas")) {
    if (!absl::SimpleAtoi(*r, &replicas) || replicas < 1) {
      return ReportError(absl::InvalidArgumentError(absl::StrCat(
          "--replicas expects a positive integer, got '", *r, "'")));
    }
  }
  if (auto p = args.Get("partitions")) {
    if (!absl::SimpleAtoi(*p, &partitions) || partitions < 1) {
      return ReportError(absl::InvalidArgumentError(absl::StrCat(
          "--partitions expects a positive integer, got '", *p, "'")));
    }
  }
  if (auto r = args.Get("repeat")) {
    if (!absl::SimpleAtoi(*r, &repeat) || repeat < 1) {
      return ReportError(absl::InvalidArgumentError(
          absl::StrCat("--repeat expects a positive integer, got '", *r, "'")));
    }
  }
  PluginFlags flags;
  if (auto m = args.Get("memory-limit")) {
    absl::StatusOr<int64_t> bytes = ParseByteCount(*m);
    if (!bytes.ok()) return ReportError(bytes.status());
    flags.memory_limit = *bytes;
  }
  auto libraries = CustomCallLibraries::Load(args.GetAll("custom-call-lib"));
  if (!libraries.ok()) return ReportError(libraries.status());
  flags.custom_call_libraries = (*libraries)->paths();
  auto module = LoadModule(args.positional[0]);
  if (!module.ok()) return ReportError(module.status());
  // The module header as XLA prints it: replica_count and num_partitions
  // (an SPMD-partitioned program) are the defaults of --replicas and
  // --partitions.
  for (const auto& [name, flag, value] :
       {std::tuple("replica_count", "replicas", &replicas),
        std::tuple("num_partitions", "partitions", &partitions)}) {
    absl::StatusOr<std::optional<int64_t>> n =
        ModuleHeaderCount(**module, name);
    if (!n.ok()) {
      return ReportError(absl::InvalidArgumentError(
          absl::StrCat(args.positional[0], ": ", n.status().message())));
    }
    if (n->has_value() && !args.Has(flag)) *value = **n;
  }
  if (replicas * partitions > 4096) {
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat(replicas, " replicas x ", partitions,
                     " partitions is more than 4096 devices")));
  }
  const DeviceGrid grid{replicas, partitions};
  // Dynamic shapes (f32[<=8]) are lowered to static ones here, for every
  // backend: arguments are padded to their bounds with their sizes passed
  // beside them, and results are cut to their run-time sizes
  // (core/passes/dynamic_padder.h, docs/dynamic_shapes.md).
  absl::StatusOr<DynamicSignature> dynamic = LowerDynamicShapes(module->get());
  if (!dynamic.ok()) return ReportError(dynamic.status());
  // Before anything is allocated for it (random inputs, constant folding):
  // every array the program sizes must fit in the limit.
  absl::Status fits = CheckModuleFitsLimit(
      **module,
      flags.memory_limit > 0 ? flags.memory_limit : MachineMemoryBytes());
  if (!fits.ok()) return ReportError(fits);
  if (!args.Has("no-opt")) {
    absl::StatusOr<bool> optimized = RunDefaultPipeline(module->get());
    if (!optimized.ok()) return ReportError(optimized.status());
  }
  // The parameters as written: what --input files must hold.
  ProgramShape program;
  program.parameters = dynamic->parameters;
  program.result = dynamic->result;
  // An HloSnapshot's own arguments are the inputs when no --input is given.
  absl::StatusOr<std::vector<Literal>> inputs = std::vector<Literal>();
  if (args.GetAll("input").empty()) {
    inputs = LoadSnapshotArguments(args.positional[0]);
    if (inputs.ok() && !inputs->empty() &&
        inputs->size() != program.parameters.size()) {
      inputs = absl::InvalidArgumentError(absl::StrCat(
          "the snapshot holds ", inputs->size(), " argument(s) for ",
          program.parameters.size(), " parameter(s)"));
    }
  }
  if (inputs.ok() && inputs->empty()) inputs = ReadInputs(args, program);
  if (inputs.ok()) inputs = PadDynamicArguments(*dynamic, *std::move(inputs));
  if (!inputs.ok()) return ReportError(inputs.status());

  if (auto t = args.Get("threads")) {
    if (!absl::SimpleAtoi(*t, &flags.threads) || flags.threads < 1) {
      return ReportError(absl::InvalidArgumentError(absl::StrCat(
          "--threads expects a positive integer, got '", *t, "'")));
    }
  }
  flags.report = args.Has("report");
  absl::StatusOr<std::vector<host::Plugin::Option>> extra =
      ParsePluginOptions(args);
  if (!extra.ok()) return ReportError(extra.status());
  flags.extra = *std::move(extra);
  const std::string backend = args.Get("backend").value_or("cpu");
  const std::optional<std::string> profile_path = args.Get("profile");
  flags.profile = profile_path.has_value();
  if (flags.profile && backend == "interpreter") {
    return ReportError(absl::FailedPreconditionError(
        "--profile: the interpreter does not report profiles; the cpu and "
        "onednn plugins do"));
  }
  absl::StatusOr<Runner> runner =
      backend == "interpreter"
          ? MakeInterpreterRunner(**module, std::move(*inputs), grid,
                                  flags.memory_limit, *libraries)
          : MakePluginRunner(backend, **module, *inputs, grid, flags);
  if (!runner.ok()) return ReportError(runner.status());

  std::vector<Literal> infeed;
  for (const std::string& path : args.GetAll("infeed")) {
    auto lit = ReadNpyFile(path, std::nullopt);
    if (!lit.ok()) return ReportError(lit.status());
    infeed.push_back(std::move(*lit));
  }
  std::vector<double> times_ms;
  absl::StatusOr<std::vector<Literal>> results;
  HostFeedQueue outfeed;
  RecordingProfiler profiler;
  for (int64_t i = 0; i < repeat; ++i) {
    HostFeedQueue infeed_queue;
    for (const Literal& l : infeed) infeed_queue.Push(l);
    HostFeedQueue run_outfeed;
    QueueFeeds feeds(&infeed_queue, &run_outfeed);
    const auto start = std::chrono::steady_clock::now();
    results = runner->run(&feeds, flags.profile ? &profiler : nullptr);
    const auto end = std::chrono::steady_clock::now();
    if (!results.ok()) return ReportError(results.status());
    if (i == 0) {  // every run sends the same values: keep the first's
      while (std::optional<Literal> l = run_outfeed.Pop()) {
        outfeed.Push(*std::move(l));
      }
    }
    times_ms.push_back(
        std::chrono::duration<double, std::milli>(end - start).count());
  }
  for (size_t r = 0; r < results->size(); ++r) {
    absl::StatusOr<Literal> cut =
        SliceDynamicResult(*dynamic, std::move((*results)[r]));
    if (!cut.ok()) return ReportError(cut.status());
    const Literal& result = *cut;
    // One result per device: out.replica1.npy, or with partitions
    // out.replica1.partition0.npy.
    const int64_t d = static_cast<int64_t>(r);
    const std::string suffix =
        results->size() == 1 ? ""
        : partitions == 1    ? absl::StrCat(".replica", d)
                             : absl::StrCat(".replica", grid.ReplicaOf(d),
                                            ".partition", grid.PartitionOf(d));
    absl::Status s = WriteResult(args, result, suffix);
    if (!s.ok()) return ReportError(s);
    if (args.Has("print")) {
      if (results->size() > 1) std::printf("%s: ", grid.Name(d).c_str());
      std::printf("%s\n", result.ToString().c_str());
    }
  }
  absl::Status outfeed_status = WriteOutfeed(args, &outfeed);
  if (!outfeed_status.ok()) return ReportError(outfeed_status);
  if (profile_path) {
    absl::Status written =
        WriteProfile(*profile_path, profiler.events(), (*module)->name());
    if (!written.ok()) return ReportError(written);
  }
  if (args.Has("repeat")) {
    std::sort(times_ms.begin(), times_ms.end());
    std::fprintf(stderr, "time over %lld run(s): min %.3f ms, median %.3f ms\n",
                 static_cast<long long>(repeat), times_ms.front(),
                 times_ms[times_ms.size() / 2]);
  }
  return 0;
}

}  // namespace plexa::cli
