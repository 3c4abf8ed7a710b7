// The CPU plugin's benchmarks (issue 6): each workload runs through the C ABI
// (host::Plugin -> Client -> Compile -> Execute) and is compared with a peer
// measured in the same run:
//
//   1. dot f32 1024^3 and 2048^3           GFLOP/s vs oneDNN matmul
//   2. tanh(a*b+c) over 16M f32            GB/s vs a STREAM triad (2 threads)
//                                          and time vs PyTorch eager
//   3. sum over 16M f32; softmax over f32[4096,1024] (last axis, as JAX
//      writes it)                          time vs PyTorch
//   4. MLP 784-1024-1024-10 (relu, batch 256) and a conv block (8x64x56x56
//      NCHW, 3x3 64->64, pad 1, batch-norm inference, relu)
//                                          time vs PyTorch
//   5. compile time of examples/mlp.hlo (parse, default pipeline, Compile on
//      a new client each time) and the per-Execute overhead of an f32[1] add
//
// The programs are bench/programs/*.hlo. Buffers are made once; a run times
// Execute alone (outputs are freed outside the timed region, except in the
// overhead measurement, which times Execute + freeing the outputs). Every
// measurement is warmed up, then runs for about --seconds (at least 5
// runs); best and median are printed, ratios use medians. Results are
// checked against a host reference (printed; never a timed assertion).
// The ratio is always "how many times better Plexa is": Plexa's throughput
// over the peer's (GFLOP/s, GB/s), or the peer's time over Plexa's.
//
// The PyTorch peer is bench/torch_peer.py run through popen before anything
// else starts threads here. oneDNN (OpenMP) and PyTorch read
// OMP_NUM_THREADS when they load: if it is not --threads, the program sets
// it and re-executes itself.
//
// Usage: cpu_bench [--plugin=NAME|PATH] [--threads=2] [--seconds=1.5]
//                  [--only=dot,tanh,sum,softmax,mlp,conv,compile,overhead]
//                  [--python=/usr/bin/python3] [--torch-peer=PATH]
//                  [--no-torch] [--programs=DIR]
//   cpu_bench --hlo=FILE... [--dump-ir=DIR]   time any programs (random f32
//                                             inputs), for reproducers; with
//                                             --baseline, a table of each
//                                             beside the baseline plugin
// The plugin is found as plexa run finds it ($PLEXA_PLUGIN_PATH, then beside
// this program), else the one built with this tree.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bench/stream_triad.h"
#include "core/passes/default_pipeline.h"
#include "core/proto/module_proto.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"

namespace plexa::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// ---- Flags --------------------------------------------------------------

struct Flags {
  std::string plugin;
  int threads = 2;
  double seconds = 1.5;
  std::vector<std::string> only;
  std::string python = "/usr/bin/python3";
  std::string torch_peer = PLEXA_SOURCE_DIR "/bench/torch_peer.py";
  bool torch = true;
  std::string programs = PLEXA_SOURCE_DIR "/bench/programs";
  std::string examples = PLEXA_SOURCE_DIR "/examples";
  std::vector<std::string> hlo;  // --hlo: time these programs only
  std::string dump_ir;           // the plugin's dump_ir option
  // --baseline: another plugin timed on the same programs in the same run
  // (mlp, conv, resnet), e.g. the CPU plugin beside the oneDNN plugin.
  std::string baseline;
  // --plugin-option=NAME=INT: client options of the plugin under test.
  std::vector<std::pair<std::string, int64_t>> plugin_options;

  bool Want(absl::string_view name) const {
    return only.empty() ||
           std::find(only.begin(), only.end(), std::string(name)) != only.end();
  }
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](absl::string_view name) -> const char* {
      const std::string prefix = absl::StrCat("--", name, "=");
      return arg.rfind(prefix, 0) == 0 ? argv[i] + prefix.size() : nullptr;
    };
    if (const char* v = value("plugin")) {
      f.plugin = v;
    } else if (const char* v = value("threads")) {
      if (!absl::SimpleAtoi(v, &f.threads) || f.threads < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--threads expects a positive integer, got '", v, "'"));
      }
    } else if (const char* v = value("seconds")) {
      if (!absl::SimpleAtod(v, &f.seconds) || !(f.seconds > 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--seconds expects a positive number, got '", v, "'"));
      }
    } else if (const char* v = value("only")) {
      f.only = absl::StrSplit(v, ',', absl::SkipEmpty());
    } else if (const char* v = value("python")) {
      f.python = v;
    } else if (const char* v = value("torch-peer")) {
      f.torch_peer = v;
    } else if (arg == "--no-torch") {
      f.torch = false;
    } else if (const char* v = value("programs")) {
      f.programs = v;
    } else if (const char* v = value("hlo")) {
      f.hlo.push_back(v);
    } else if (const char* v = value("dump-ir")) {
      f.dump_ir = v;
    } else if (const char* v = value("baseline")) {
      f.baseline = v;
    } else if (const char* v = value("plugin-option")) {
      std::pair<std::string, std::string> kv = absl::StrSplit(v, '=');
      int64_t n = 0;
      if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &n)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--plugin-option expects NAME=INTEGER, got '", v, "'"));
      }
      f.plugin_options.emplace_back(kv.first, n);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown argument '", arg,
          "'; usage: cpu_bench [--plugin=NAME|PATH] [--baseline=NAME|PATH] "
          "[--plugin-option=NAME=INT]... [--threads=N] "
          "[--seconds=S] [--only=dot,tanh,sum,softmax,mlp,conv,resnet,"
          "bf16dot,compile,overhead] [--python=PATH] [--torch-peer=PATH] "
          "[--no-torch] [--programs=DIR] [--hlo=FILE]... [--dump-ir=DIR]"));
    }
  }
  return f;
}

// ---- Timing -------------------------------------------------------------

struct Stats {
  double best = 0, median = 0;  // seconds per run
  int runs = 0;
  // CPU time other processes used during the measurement, in cores (the
  // machine is shared: 0 is quiet, 1 is one core taken by someone else);
  // negative when unknown.
  double others = -1;
  bool ok() const { return runs > 0; }
};

// CPU time (seconds) of all CPUs that was not idle, and of this process with
// its waited-for children (/proc/stat, /proc/self/stat).
struct CpuSample {
  double busy = 0, self = 0;
  Clock::time_point when;
};

CpuSample SampleCpu() {
  CpuSample s;
  s.when = Clock::now();
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0,
         softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >>
      steal;
  s.busy = (user + nice + system + irq + softirq + steal) / tick;
  std::ifstream self("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(self)),
                   std::istreambuf_iterator<char>());
  // The fields after the command name (which may hold spaces) start with
  // field 3; utime, stime, cutime, cstime are fields 14-17.
  const size_t close = text.rfind(')');
  if (close != std::string::npos && close + 2 < text.size()) {
    std::vector<std::string> f =
        absl::StrSplit(text.substr(close + 2), ' ', absl::SkipEmpty());
    double total = 0;
    for (size_t i = 11; i < 15 && i < f.size(); ++i) {
      double v = 0;
      if (absl::SimpleAtod(f[i], &v)) total += v;
    }
    s.self = total / tick;
  }
  return s;
}

// The average number of cores other processes kept busy from a to b.
double OtherLoad(const CpuSample& a, const CpuSample& b) {
  const double wall = Seconds(a.when, b.when);
  if (wall <= 0) return 0;
  return std::max(0.0, ((b.busy - a.busy) - (b.self - a.self)) / wall);
}

// `run` performs one run and returns the seconds it measured (so a run can
// keep untimed work, such as freeing outputs, out of the measurement).
template <typename Run>
Stats Measure(Run run, double budget_s, int min_runs = 5, int max_runs = 500) {
  run();  // warm-up: page faults, packing buffers, thread start, caches
  const double one = std::max(run(), 1e-7);
  const int runs =
      std::clamp(static_cast<int>(budget_s / one), min_runs, max_runs);
  std::vector<double> t;
  t.reserve(runs);
  const CpuSample before = SampleCpu();
  for (int r = 0; r < runs; ++r) t.push_back(run());
  const CpuSample after = SampleCpu();
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2], runs, OtherLoad(before, after)};
}

std::string FormatTime(double s) {
  if (s >= 1) return absl::StrFormat("%.3f s", s);
  if (s >= 1e-3) return absl::StrFormat("%.3f ms", s * 1e3);
  return absl::StrFormat("%.3f µs", s * 1e6);
}

void PrintStats(absl::string_view who, const Stats& s,
                const std::string& extra = "") {
  const std::string others =
      s.others >= 0
          ? absl::StrFormat(" [other processes: %.2f cores]", s.others)
          : "";
  std::printf("  %-28s best %s, median %s over %d runs%s%s\n",
              std::string(who).c_str(), FormatTime(s.best).c_str(),
              FormatTime(s.median).c_str(), s.runs, extra.c_str(),
              others.c_str());
}

// ---- Random data (splitmix64), uniform in [-scale, scale) ----------------

struct Random {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  float Uniform(float scale) {
    const float unit = static_cast<float>(Next() >> 40) * 0x1.0p-24f;
    return (2 * unit - 1) * scale;
  }
};

std::vector<float> RandomVector(size_t n, float scale, uint64_t seed) {
  Random rng{seed};
  std::vector<float> v(n);
  for (float& x : v) x = rng.Uniform(scale);
  return v;
}

// Page-aligned, huge-page-advised memory for the peers, as the plugin's
// buffers are (plugins/cpu/runtime/aligned_memory.cc).
struct HostArray {
  float* data = nullptr;
  size_t size = 0;
  explicit HostArray(size_t n) : size(n) {
    const size_t align = 2 << 20;
    const size_t bytes = (n * sizeof(float) + align - 1) / align * align;
    void* p = nullptr;
    if (posix_memalign(&p, align, bytes) != 0) {
      std::fprintf(stderr, "cpu_bench: cannot allocate %zu bytes\n", bytes);
      std::exit(1);
    }
    madvise(p, bytes, MADV_HUGEPAGE);
    data = static_cast<float*>(p);
  }
  ~HostArray() { std::free(data); }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
};

// ---- The PyTorch peer -----------------------------------------------------

struct TorchResults {
  std::string config;  // the torch_peer_config line, or why there is none
  double others = -1;  // other processes' load over the whole peer run
  std::map<std::string, Stats> stats;
  const Stats* Get(const std::string& name) const {
    auto it = stats.find(name);
    return it == stats.end() ? nullptr : &it->second;
  }
};

std::string TorchNames(const Flags& f) {
  std::vector<std::string> names;
  if (f.Want("dot")) {
    names.push_back("dot_1024");
    names.push_back("dot_2048");
  }
  if (f.Want("tanh")) names.push_back("fused_tanh");
  if (f.Want("sum")) names.push_back("reduce_sum");
  if (f.Want("softmax")) {
    names.push_back("softmax");
    names.push_back("softmax_composed");
  }
  if (f.Want("mlp")) names.push_back("mlp");
  if (f.Want("conv")) names.push_back("conv_block");
  if (f.Want("resnet")) names.push_back("resnet_block");
  if (f.Want("overhead")) names.push_back("add_scalar1");
  std::string out;
  for (const std::string& n : names)
    absl::StrAppend(&out, out.empty() ? "" : ",", n);
  return out;
}

TorchResults RunTorchPeer(const Flags& f) {
  TorchResults r;
  const std::string names = TorchNames(f);
  if (!f.torch || names.empty() || !f.hlo.empty()) {
    r.config = "PyTorch peer not run (--no-torch or nothing selected)";
    return r;
  }
  const std::string cmd =
      absl::StrCat("'", f.python, "' '", f.torch_peer,
                   "' --threads=", f.threads, " --only=", names, " 2>&1");
  std::printf("PyTorch peer: %s\n", cmd.c_str());
  std::fflush(stdout);
  const CpuSample before = SampleCpu();
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    r.config = "PyTorch peer could not be started";
    return r;
  }
  char line[4096];
  std::string other;
  while (std::fgets(line, sizeof(line), pipe) != nullptr) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (s.rfind("torch_peer_config ", 0) == 0) {
      r.config = s.substr(std::strlen("torch_peer_config "));
      continue;
    }
    if (s.rfind("torch_peer ", 0) != 0) {
      absl::StrAppend(&other, "    | ", s, "\n");
      continue;
    }
    std::string name;
    Stats st;
    for (absl::string_view kv : absl::StrSplit(s, ' ', absl::SkipEmpty())) {
      std::pair<std::string, std::string> p = absl::StrSplit(kv, '=');
      if (p.first == "name") name = p.second;
      if (p.first == "best_s") (void)absl::SimpleAtod(p.second, &st.best);
      if (p.first == "median_s") (void)absl::SimpleAtod(p.second, &st.median);
      if (p.first == "runs") (void)absl::SimpleAtoi(p.second, &st.runs);
    }
    if (!name.empty() && st.runs > 0) r.stats[name] = st;
  }
  const int status = pclose(pipe);
  r.others = OtherLoad(before, SampleCpu());
  for (auto& [name, st] : r.stats) st.others = r.others;
  if (status != 0 || r.config.empty()) {
    std::printf("  PyTorch peer exited with status %d; its output:\n%s", status,
                other.c_str());
    if (r.config.empty()) r.config = "PyTorch peer failed (see above)";
  }
  return r;
}

// ---- oneDNN matmul peer ---------------------------------------------------

// What both oneDNN peers share: the engine and stream, the implementation
// oneDNN chose, and oneDNN's exceptions as statuses.
class DnnlPeer {
 public:
  const std::string& impl() const { return impl_; }

 protected:
  template <typename F>
  static absl::Status Guard(absl::string_view what, F f) {
    try {
      f();
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN ", what, " failed: ", e.what()));
    }
    return absl::OkStatus();
  }
  dnnl::engine engine_;
  dnnl::stream stream_;
  std::string impl_;
};

// C[m,n] = A[m,k] B[k,n], row-major; the primitive is created once.
class DnnlMatmul : public DnnlPeer {
 public:
  static absl::StatusOr<std::unique_ptr<DnnlMatmul>> Create(int64_t m,
                                                            int64_t k,
                                                            int64_t n) {
    auto mm = std::unique_ptr<DnnlMatmul>(new DnnlMatmul());
    try {
      using dt = dnnl::memory::data_type;
      using tag = dnnl::memory::format_tag;
      mm->engine_ = dnnl::engine(dnnl::engine::kind::cpu, 0);
      mm->stream_ = dnnl::stream(mm->engine_);
      dnnl::memory::desc a_md({m, k}, dt::f32, tag::ab);
      dnnl::memory::desc b_md({k, n}, dt::f32, tag::ab);
      dnnl::memory::desc c_md({m, n}, dt::f32, tag::ab);
#if DNNL_VERSION_MAJOR >= 3
      dnnl::matmul::primitive_desc pd(mm->engine_, a_md, b_md, c_md);
#else
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md),
                                      mm->engine_);
#endif
      mm->impl_ = pd.impl_info_str();
      mm->prim_ = dnnl::matmul(pd);
      mm->a_ = dnnl::memory(a_md, mm->engine_, DNNL_MEMORY_NONE);
      mm->b_ = dnnl::memory(b_md, mm->engine_, DNNL_MEMORY_NONE);
      mm->c_ = dnnl::memory(c_md, mm->engine_, DNNL_MEMORY_NONE);
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN matmul setup failed: ", e.what()));
    }
    return mm;
  }

  absl::Status Run(const float* a, const float* b, float* c) {
    return Guard("matmul", [&] {
      a_.set_data_handle(const_cast<float*>(a));
      b_.set_data_handle(const_cast<float*>(b));
      c_.set_data_handle(c);
      prim_.execute(
          stream_,
          {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}});
      stream_.wait();
    });
  }

 private:
  DnnlMatmul() = default;
  dnnl::matmul prim_;
  dnnl::memory a_, b_, c_;
};

// ---- oneDNN convolution block peer ----------------------------------------

// What a user of oneDNN writes for conv 3x3 (pad 1) + batch-norm inference
// + relu on NCHW arrays: one convolution_forward choosing its layouts
// (format any), batch norm as per-channel binary post-ops (subtract the
// mean, multiply by scale/sqrt(var+eps), add the offset) and relu as an
// eltwise post-op; reorders from and to NCHW (the weights too) every run,
// as the plugin does with parameters.
class DnnlConvBlock : public DnnlPeer {
 public:
  static absl::StatusOr<std::unique_ptr<DnnlConvBlock>> Create(
      int64_t n, int64_t c, int64_t h, int64_t w, int64_t o) {
    auto cb = std::unique_ptr<DnnlConvBlock>(new DnnlConvBlock());
    try {
      using dt = dnnl::memory::data_type;
      using tag = dnnl::memory::format_tag;
      dnnl::engine& e = cb->engine_;
      e = dnnl::engine(dnnl::engine::kind::cpu, 0);
      cb->stream_ = dnnl::stream(e);
      const dnnl::memory::desc src({n, c, h, w}, dt::f32, tag::nchw);
      const dnnl::memory::desc wei({o, c, 3, 3}, dt::f32, tag::oihw);
      const dnnl::memory::desc dst({n, o, h, w}, dt::f32, tag::nchw);
      const dnnl::memory::desc chan({1, o, 1, 1}, dt::f32, tag::nchw);
      dnnl::post_ops ops;
      ops.append_binary(dnnl::algorithm::binary_sub, chan);
      ops.append_binary(dnnl::algorithm::binary_mul, chan);
      ops.append_binary(dnnl::algorithm::binary_add, chan);
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0, 0);
      dnnl::primitive_attr attr;
      attr.set_post_ops(ops);
      auto any = [](const dnnl::memory::desc& md) {
        return dnnl::memory::desc(md.dims(), md.data_type(), tag::any);
      };
      dnnl::convolution_forward::primitive_desc pd(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                          dnnl::algorithm::convolution_auto,
                                          any(src), any(wei), any(dst), {1, 1},
                                          {0, 0}, {1, 1}, {1, 1}),
          attr, e);
      cb->impl_ = pd.impl_info_str();
      cb->conv_ = dnnl::convolution_forward(pd);
      cb->src_ = dnnl::memory(src, e, DNNL_MEMORY_NONE);
      cb->wei_ = dnnl::memory(wei, e, DNNL_MEMORY_NONE);
      cb->dst_ = dnnl::memory(dst, e, DNNL_MEMORY_NONE);
      cb->mean_ = dnnl::memory(chan, e, DNNL_MEMORY_NONE);
      cb->mul_ = dnnl::memory(chan, e, DNNL_MEMORY_NONE);
      cb->add_ = dnnl::memory(chan, e, DNNL_MEMORY_NONE);
      cb->psrc_ = dnnl::memory(pd.src_desc(), e);
      cb->pwei_ = dnnl::memory(pd.weights_desc(), e);
      cb->pdst_ = dnnl::memory(pd.dst_desc(), e);
      cb->to_src_ = dnnl::reorder(cb->src_, cb->psrc_);
      cb->to_wei_ = dnnl::reorder(cb->wei_, cb->pwei_);
      cb->from_dst_ = dnnl::reorder(cb->pdst_, cb->dst_);
    } catch (const dnnl::error& e) {
      return absl::InternalError(
          absl::StrCat("oneDNN convolution setup failed: ", e.what()));
    }
    return cb;
  }

  absl::Status Run(const float* x, const float* k, const float* mean,
                   const float* mul, const float* add, float* out) {
    return Guard("convolution", [&] {
      src_.set_data_handle(const_cast<float*>(x));
      wei_.set_data_handle(const_cast<float*>(k));
      mean_.set_data_handle(const_cast<float*>(mean));
      mul_.set_data_handle(const_cast<float*>(mul));
      add_.set_data_handle(const_cast<float*>(add));
      dst_.set_data_handle(out);
      to_src_.execute(stream_, src_, psrc_);
      to_wei_.execute(stream_, wei_, pwei_);
      conv_.execute(
          stream_,
          {{DNNL_ARG_SRC, psrc_},
           {DNNL_ARG_WEIGHTS, pwei_},
           {DNNL_ARG_DST, pdst_},
           {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mean_},
           {DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, mul_},
           {DNNL_ARG_ATTR_MULTIPLE_POST_OP(2) | DNNL_ARG_SRC_1, add_}});
      from_dst_.execute(stream_, pdst_, dst_);
      stream_.wait();
    });
  }

 private:
  DnnlConvBlock() = default;
  dnnl::convolution_forward conv_;
  dnnl::reorder to_src_, to_wei_, from_dst_;
  dnnl::memory src_, wei_, dst_, mean_, mul_, add_, psrc_, pwei_, pdst_;
};

// ---- Plexa through the ABI ------------------------------------------------

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Parse -> default pipeline -> the plugin's format (as `plexa run` does).
absl::StatusOr<std::pair<std::string, std::string>> PrepareProgram(
    absl::string_view text, const host::Plugin& plugin) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  absl::StatusOr<bool> changed = RunDefaultPipeline(module->get());
  if (!changed.ok()) return changed.status();
  const std::vector<std::string>& formats = plugin.attributes().formats;
  if (std::find(formats.begin(), formats.end(), kModuleFormatName) !=
      formats.end()) {
    absl::StatusOr<std::string> bytes = SerializeModule(**module);
    if (!bytes.ok()) return bytes.status();
    return std::make_pair(std::move(*bytes), std::string(kModuleFormatName));
  }
  return std::make_pair(PrintModule(**module), std::string("hlo-text"));
}

absl::StatusOr<std::unique_ptr<host::Executable>> CompileFile(
    host::Client& client, const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto program = PrepareProgram(*text, client.plugin());
  if (!program.ok()) {
    return absl::Status(program.status().code(),
                        absl::StrCat(path, ": ", program.status().message()));
  }
  auto exe = client.Compile(program->first, program->second);
  if (!exe.ok()) {
    return absl::Status(exe.status().code(),
                        absl::StrCat(path, ": ", exe.status().message()));
  }
  return exe;
}

// A compiled program with its input buffers (made once).
struct Session {
  std::unique_ptr<host::Executable> exe;
  std::vector<std::unique_ptr<host::Buffer>> inputs;
  std::vector<host::Buffer*> args;

  // One timed Execute; the outputs are freed after the clock stops (or kept
  // in `keep`).
  absl::StatusOr<double> TimedRun(
      std::vector<std::unique_ptr<host::Buffer>>* keep = nullptr) {
    const auto start = Clock::now();
    auto out = exe->Execute({args});
    const auto end = Clock::now();
    if (!out.ok()) return out.status();
    if (keep != nullptr) *keep = std::move((*out)[0]);
    return Seconds(start, end);
  }
};

absl::StatusOr<Session> MakeSession(
    host::Client& client, const std::string& path,
    const std::vector<const std::vector<float>*>& inputs) {
  Session s;
  auto exe = CompileFile(client, path);
  if (!exe.ok()) return exe.status();
  s.exe = std::move(*exe);
  const std::vector<Shape>& params = s.exe->parameter_shapes();
  if (params.size() != inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": takes ", params.size(), " parameters, ",
                     inputs.size(), " inputs given"));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    Shape shape = ShapeUtil::MakeShape(F32, params[i].dimensions());
    Literal lit(shape);
    if (lit.data().size() != inputs[i]->size() * sizeof(float)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": parameter ", i, " is ", params[i].ToString(),
                       ", input has ", inputs[i]->size(), " elements"));
    }
    std::memcpy(lit.mutable_data().data(), inputs[i]->data(),
                lit.data().size());
    if (params[i].element_type() != F32) {  // bf16 programs
      absl::StatusOr<Literal> converted = lit.Convert(params[i].element_type());
      if (!converted.ok()) return converted.status();
      lit = std::move(*converted);
    }
    auto b = client.BufferFromLiteral(lit);
    if (!b.ok()) return b.status();
    s.inputs.push_back(std::move(*b));
    s.args.push_back(s.inputs.back().get());
  }
  return s;
}

absl::StatusOr<std::vector<float>> ToFloats(const host::Buffer& b) {
  absl::StatusOr<Literal> lit = b.ToLiteral();
  if (!lit.ok()) return lit.status();
  std::vector<float> v(lit->data().size() / sizeof(float));
  std::memcpy(v.data(), lit->data().data(), v.size() * sizeof(float));
  return v;
}

// Runs `session` for about `budget` seconds (timing Execute alone); the last
// output is kept in *result.
absl::StatusOr<Stats> MeasureSession(Session& s, double budget,
                                     std::vector<float>* result) {
  absl::Status status;
  std::vector<std::unique_ptr<host::Buffer>> keep;
  Stats st = Measure(
      [&]() -> double {
        if (!status.ok()) return 1;
        absl::StatusOr<double> t = s.TimedRun(&keep);
        if (!t.ok()) {
          status = t.status();
          return 1;
        }
        keep.clear();  // freed outside the measurement
        return *t;
      },
      budget);
  if (!status.ok()) return status;
  // One more for the result check.
  absl::StatusOr<double> t = s.TimedRun(&keep);
  if (!t.ok()) return t.status();
  if (keep.empty()) return absl::InternalError("the program has no output");
  absl::StatusOr<std::vector<float>> v = ToFloats(*keep[0]);
  if (!v.ok()) return v.status();
  *result = std::move(*v);
  return st;
}

// ---- The table ------------------------------------------------------------

struct Row {
  std::string workload, plexa, peer, ratio, target, check;
  std::string others;  // cores other processes used while measuring
};

// Plexa's advantage from the medians, and from the best runs.
std::string Ratio(double median_ratio, double best_ratio) {
  return absl::StrFormat("%.2fx (best %.2fx)", median_ratio, best_ratio);
}

std::string OthersText(double a, double b = -1) {
  const double m = std::max(a, b);
  return m < 0 ? "?" : absl::StrFormat("%.2f", m);
}

// Checks are printed, never asserted: `err` against `tolerance`.
std::string Check(double err, double tolerance) {
  const std::string verdict = err <= tolerance ? "ok" : "WRONG";
  std::printf("  check: %s (max error %.3g, tolerance %.1g)\n", verdict.c_str(),
              err, tolerance);
  return absl::StrFormat("%s (%.1e)", verdict, err);
}

// One output of a 3x3, pad-1, unit-stride convolution of `in(ic, y, x)`
// (c input features, h x w images) with OIHW weights `k`, in double.
double Conv3x3At(const std::function<double(int64_t, int64_t, int64_t)>& in,
                 const std::vector<float>& k, int64_t c, int64_t h, int64_t w,
                 int64_t oc, int64_t y, int64_t x) {
  double acc = 0;
  for (int64_t ic = 0; ic < c; ++ic) {
    for (int64_t ky = 0; ky < 3; ++ky) {
      for (int64_t kx = 0; kx < 3; ++kx) {
        const int64_t iy = y + ky - 1, ix = x + kx - 1;
        if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
        acc += in(ic, iy, ix) * k[((oc * c + ic) * 3 + ky) * 3 + kx];
      }
    }
  }
  return acc;
}

// num_threads for the plugins that run on the host's cores (platform
// "host": cpu, onednn, reference); a device plugin (vulkan) has no such
// option and refuses unknown ones.
std::vector<host::Plugin::Option> ThreadOptions(const host::Plugin& plugin,
                                                int threads) {
  if (plugin.attributes().platform != "host") return {};
  return {{"num_threads", PLX_Value_INT64, "", threads}};
}

class Bench {
 public:
  // `baseline` (may be null): a second plugin's client timed on the same
  // programs (--baseline).
  Bench(Flags flags, TorchResults torch, host::Client& client,
        host::Client* baseline)
      : f_(std::move(flags)),
        torch_(std::move(torch)),
        client_(client),
        baseline_(baseline) {}

  // A "vs the baseline plugin" row: the same program and inputs on the
  // --baseline plugin, measured now.
  // With `mine_out`, the check compares the two plugins' first outputs
  // (max |difference| / (1 + |baseline|)).
  void BaselineRow(const std::string& workload, const std::string& file,
                   const std::vector<const std::vector<float>*>& inputs,
                   const Stats& mine, const std::string& mine_text,
                   std::string check,
                   const std::vector<float>* mine_out = nullptr) {
    if (baseline_ == nullptr) return;
    const std::string who = baseline_->plugin().attributes().name;
    absl::StatusOr<Session> s = MakeSession(*baseline_, Path(file), inputs);
    if (!s.ok()) return Fail(absl::StrCat(workload, " vs ", who), s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> base = MeasureSession(*s, f_.seconds, &out);
    if (!base.ok()) {
      return Fail(absl::StrCat(workload, " vs ", who), base.status());
    }
    if (mine_out != nullptr) {
      double err = mine_out->size() == out.size() ? 0 : INFINITY;
      for (size_t i = 0; i < out.size() && i < mine_out->size(); ++i) {
        err = std::max(err, std::fabs(double{(*mine_out)[i]} - out[i]) /
                                (1 + std::fabs(double{out[i]})));
      }
      check = Check(err, 1e-4);
    }
    PrintStats(absl::StrCat(who, " plugin"), *base);
    std::printf("  ratio (%s plugin time / Plexa time): %.2fx\n", who.c_str(),
                base->median / mine.median);
    rows_.push_back({absl::StrCat(workload, " vs the ", who, " plugin"),
                     mine_text,
                     absl::StrCat(who, " plugin ", FormatTime(base->median)),
                     Ratio(base->median / mine.median, base->best / mine.best),
                     "—", check, OthersText(mine.others, base->others)});
  }

  void Fail(absl::string_view workload, const absl::Status& s) {
    std::printf("  %s: error: %s\n", std::string(workload).c_str(),
                s.ToString().c_str());
    rows_.push_back({std::string(workload), "error", "", "", "", ""});
  }

  // A program of --programs, or a path as given (with a '/').
  std::string Path(absl::string_view file) const {
    if (absl::StrContains(file, '/')) return std::string(file);
    return absl::StrCat(f_.programs, "/", file);
  }

  // A "vs PyTorch" row from a time ratio.
  void TorchRow(const std::string& workload, const std::string& torch_name,
                const Stats& mine, const std::string& mine_text,
                const std::string& target, const std::string& check) {
    const Stats* t = torch_.Get(torch_name);
    if (t == nullptr) {
      rows_.push_back({workload, mine_text, "PyTorch: not measured", "n/a",
                       target, check, OthersText(mine.others)});
      return;
    }
    PrintStats(absl::StrCat("PyTorch ", torch_name), *t);
    std::printf("  ratio (PyTorch time / Plexa time): %.2fx\n",
                t->median / mine.median);
    rows_.push_back({workload, mine_text,
                     absl::StrCat("PyTorch ", FormatTime(t->median)),
                     Ratio(t->median / mine.median, t->best / mine.best),
                     target, check, OthersText(mine.others, t->others)});
  }

  void Dot(int64_t n) {
    const std::string name = absl::StrCat("dot f32 ", n, "^3");
    std::printf("\n== %s (GFLOP/s) ==\n", name.c_str());
    const std::vector<float> a = RandomVector(n * n, 1, 1 + n);
    const std::vector<float> b = RandomVector(n * n, 1, 2 + n);
    absl::StatusOr<Session> s =
        MakeSession(client_, Path(absl::StrCat("dot_", n, ".hlo")), {&a, &b});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> c;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &c);
    if (!mine.ok()) return Fail(name, mine.status());
    const double flops = 2.0 * n * n * n;
    PrintStats(
        "Plexa", *mine,
        absl::StrFormat(" -> %.1f GFLOP/s", flops / mine->median * 1e-9));
    s->inputs.clear();

    auto mm = DnnlMatmul::Create(n, n, n);
    if (!mm.ok()) return Fail(name, mm.status());
    HostArray ha(n * n), hb(n * n), hc(n * n);
    std::copy(a.begin(), a.end(), ha.data);
    std::copy(b.begin(), b.end(), hb.data);
    absl::Status status;
    Stats peer = Measure(
        [&] {
          const auto start = Clock::now();
          status.Update((*mm)->Run(ha.data, hb.data, hc.data));
          return Seconds(start, Clock::now());
        },
        f_.seconds);
    // Let oneDNN's OpenMP threads stop spinning before the next measurement.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (!status.ok()) return Fail(name, status);
    PrintStats(absl::StrCat("oneDNN matmul (", (*mm)->impl(), ")"), peer,
               absl::StrFormat(" -> %.1f GFLOP/s", flops / peer.median * 1e-9));
    // Relative to the largest |c|; both sum k products of values in [-1,1).
    double err = 0, scale = 0;
    for (int64_t i = 0; i < n * n; ++i) {
      err = std::max(err, std::fabs(double(c[i]) - hc.data[i]));
      scale = std::max(scale, std::fabs(double(hc.data[i])));
    }
    const std::string check = Check(err / scale, 1e-4);
    const double ratio = peer.median / mine->median;
    std::printf("  ratio (Plexa GFLOP/s / oneDNN GFLOP/s): %.2fx\n", ratio);
    const std::string mine_text =
        absl::StrFormat("%.1f GFLOP/s (%s)", flops / mine->median * 1e-9,
                        FormatTime(mine->median));
    rows_.push_back(
        {name, mine_text,
         absl::StrFormat("oneDNN %.1f GFLOP/s", flops / peer.median * 1e-9),
         Ratio(ratio, peer.best / mine->best), ">= 0.8x", check,
         OthersText(mine->others, peer.others)});
    TorchRow(absl::StrCat(name, " (info: vs PyTorch/OpenBLAS)"),
             absl::StrCat("dot_", n), *mine, mine_text, "—", check);
  }

  void FusedTanh() {
    const std::string name = "tanh(a*b+c) f32 16M";
    std::printf("\n== %s (GB/s: 3 reads + 1 write of 4 bytes) ==\n",
                name.c_str());
    const size_t n = size_t{1} << 24;
    const std::vector<float> a = RandomVector(n, 1, 11);
    const std::vector<float> b = RandomVector(n, 2, 12);
    const std::vector<float> c = RandomVector(n, 1, 13);
    absl::StatusOr<Session> s =
        MakeSession(client_, Path("fused_tanh.hlo"), {&a, &b, &c});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    s->inputs.clear();
    const double bytes = 16.0 * n;
    const double gbs = bytes / mine->median * 1e-9;
    PrintStats("Plexa", *mine, absl::StrFormat(" -> %.1f GB/s", gbs));
    double err = 0;
    for (size_t i = 0; i < n; ++i) {
      const double ref = std::tanh(double(a[i]) * b[i] + c[i]);
      err = std::max(err, std::fabs(ref - out[i]));
    }
    const std::string check = Check(err, 1e-5);

    // The triad: a = b + s*c, 2 reads + 1 write.
    HostArray ta(n), tb(n), tc(n);
    Fill(ta.data, 0, n, f_.threads);
    Fill(tb.data, 1, n, f_.threads);
    Fill(tc.data, 2, n, f_.threads);
    Stats triad = Measure(
        [&] {
          const auto start = Clock::now();
          Triad(ta.data, tb.data, tc.data, 3.0f, n, f_.threads);
          return Seconds(start, Clock::now());
        },
        f_.seconds);
    const double triad_gbs = 12.0 * n / triad.median * 1e-9;
    PrintStats(absl::StrFormat("STREAM triad (%d threads)", f_.threads), triad,
               absl::StrFormat(" -> %.1f GB/s", triad_gbs));
    std::printf("  ratio (Plexa GB/s / triad GB/s): %.2fx\n", gbs / triad_gbs);
    const std::string mine_text =
        absl::StrFormat("%.1f GB/s (%s)", gbs, FormatTime(mine->median));
    rows_.push_back(
        {absl::StrCat(name, " vs STREAM triad"), mine_text,
         absl::StrFormat("triad %.1f GB/s (%s)", triad_gbs,
                         FormatTime(triad.median)),
         Ratio(gbs / triad_gbs, (16.0 / mine->best) / (12.0 / triad.best)),
         ">= 0.7x", check, OthersText(mine->others, triad.others)});
    TorchRow(absl::StrCat(name, " vs PyTorch"), "fused_tanh", *mine, mine_text,
             ">= 3x", check);
  }

  void Sum() {
    const std::string name = "sum f32 16M -> scalar";
    std::printf("\n== %s ==\n", name.c_str());
    const size_t n = size_t{1} << 24;
    const std::vector<float> x = RandomVector(n, 1, 21);
    absl::StatusOr<Session> s =
        MakeSession(client_, Path("reduce_sum.hlo"), {&x});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    const double gbs = 4.0 * n / mine->median * 1e-9;
    PrintStats("Plexa", *mine, absl::StrFormat(" -> %.1f GB/s", gbs));
    double ref = 0, abs_sum = 0;
    for (float v : x) {
      ref += v;
      abs_sum += std::fabs(v);
    }
    // f32 accumulation: relative to sum |x|.
    const std::string check = Check(std::fabs(ref - out[0]) / abs_sum, 1e-5);
    TorchRow(name, "reduce_sum", *mine,
             absl::StrFormat("%s (%.1f GB/s)", FormatTime(mine->median), gbs),
             "> 1x (none set)", check);
  }

  void Softmax() {
    const std::string name = "softmax f32[4096,1024] last axis";
    std::printf("\n== %s ==\n", name.c_str());
    const int64_t rows = 4096, cols = 1024;
    const std::vector<float> x = RandomVector(rows * cols, 4, 31);
    absl::StatusOr<Session> s = MakeSession(client_, Path("softmax.hlo"), {&x});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    // At least one read and one write of the array.
    const double gbs = 8.0 * rows * cols / mine->median * 1e-9;
    PrintStats("Plexa", *mine,
               absl::StrFormat(" -> %.1f GB/s (1 read + 1 write)", gbs));
    double err = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = x.data() + r * cols;
      const double mx = *std::max_element(row, row + cols);
      double sum = 0;
      for (int64_t j = 0; j < cols; ++j) sum += std::exp(row[j] - mx);
      for (int64_t j = 0; j < cols; ++j) {
        const double ref = std::exp(row[j] - mx) / sum;
        err = std::max(err, std::fabs(ref - out[r * cols + j]) / ref);
      }
    }
    const std::string check = Check(err, 1e-5);
    const std::string mine_text =
        absl::StrFormat("%s (%.1f GB/s)", FormatTime(mine->median), gbs);
    TorchRow(absl::StrCat(name, " vs torch.softmax"), "softmax", *mine,
             mine_text, "> 1x (none set)", check);
    TorchRow(absl::StrCat(name, " vs PyTorch op by op"), "softmax_composed",
             *mine, mine_text, "> 1x (none set)", check);
  }

  void Mlp() {
    const std::string name = "MLP 784-1024-1024-10 relu, batch 256";
    std::printf("\n== %s ==\n", name.c_str());
    const int64_t batch = 256, d0 = 784, d1 = 1024, d2 = 1024, d3 = 10;
    const std::vector<float> x = RandomVector(batch * d0, 1, 41);
    const std::vector<float> w1 = RandomVector(d0 * d1, 0.05f, 42);
    const std::vector<float> b1 = RandomVector(d1, 0.05f, 43);
    const std::vector<float> w2 = RandomVector(d1 * d2, 0.05f, 44);
    const std::vector<float> b2 = RandomVector(d2, 0.05f, 45);
    const std::vector<float> w3 = RandomVector(d2 * d3, 0.05f, 46);
    const std::vector<float> b3 = RandomVector(d3, 0.05f, 47);
    absl::StatusOr<Session> s = MakeSession(client_, Path("mlp.hlo"),
                                            {&x, &w1, &b1, &w2, &b2, &w3, &b3});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    const double flops = 2.0 * batch * (d0 * d1 + d1 * d2 + d2 * d3);
    const double gflops = flops / mine->median * 1e-9;
    PrintStats("Plexa", *mine, absl::StrFormat(" -> %.1f GFLOP/s", gflops));
    // Reference for every 16th row, in double.
    auto layer = [](const std::vector<double>& in, const std::vector<float>& w,
                    const std::vector<float>& bias, bool relu) {
      const size_t k = in.size(), n = bias.size();
      std::vector<double> o(n);
      for (size_t j = 0; j < n; ++j) {
        double acc = bias[j];
        for (size_t i = 0; i < k; ++i) acc += in[i] * w[i * n + j];
        o[j] = relu ? std::max(acc, 0.0) : acc;
      }
      return o;
    };
    double err = 0, scale = 0;
    for (int64_t r = 0; r < batch; r += 16) {
      std::vector<double> h(x.begin() + r * d0, x.begin() + (r + 1) * d0);
      h = layer(layer(layer(h, w1, b1, true), w2, b2, true), w3, b3, false);
      for (int64_t j = 0; j < d3; ++j) {
        err = std::max(err, std::fabs(h[j] - out[r * d3 + j]));
        scale = std::max(scale, std::fabs(h[j]));
      }
    }
    const std::string check = Check(err / scale, 1e-4);
    const std::string mine_text =
        absl::StrFormat("%s (%.1f GFLOP/s)", FormatTime(mine->median), gflops);
    TorchRow(name, "mlp", *mine, mine_text, "> 1x", check);
    BaselineRow(name, "mlp.hlo", {&x, &w1, &b1, &w2, &b2, &w3, &b3}, *mine,
                mine_text, check);
  }

  void Conv() {
    const std::string name =
        "conv block 8x64x56x56 NCHW, 3x3 64->64 pad 1, BN, relu";
    std::printf("\n== %s ==\n", name.c_str());
    const int64_t nb = 8, c = 64, h = 56, w = 56, o = 64;
    const std::vector<float> x = RandomVector(nb * c * h * w, 1, 51);
    const std::vector<float> k = RandomVector(o * c * 9, 0.05f, 52);
    const std::vector<float> scale = RandomVector(o, 1, 53);
    const std::vector<float> offset = RandomVector(o, 1, 54);
    const std::vector<float> mean = RandomVector(o, 1, 55);
    std::vector<float> var = RandomVector(o, 0.5f, 56);
    for (float& v : var) v += 1.0f;  // positive
    absl::StatusOr<Session> s =
        MakeSession(client_, Path("conv_block.hlo"),
                    {&x, &k, &scale, &offset, &mean, &var});
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    const double flops = 2.0 * nb * o * h * w * c * 9;
    const double gflops = flops / mine->median * 1e-9;
    PrintStats("Plexa", *mine, absl::StrFormat(" -> %.1f GFLOP/s", gflops));
    // 4096 sampled outputs, in double.
    Random rng{57};
    double err = 0, max_ref = 0;
    for (int t = 0; t < 4096; ++t) {
      const int64_t bn = rng.Next() % nb, oc = rng.Next() % o,
                    y = rng.Next() % h, xx = rng.Next() % w;
      auto input = [&](int64_t ic, int64_t iy, int64_t ix) {
        return double(x[((bn * c + ic) * h + iy) * w + ix]);
      };
      const double acc = Conv3x3At(input, k, c, h, w, oc, y, xx);
      double ref =
          (acc - mean[oc]) / std::sqrt(double(var[oc]) + 1e-5) * scale[oc] +
          offset[oc];
      ref = std::max(ref, 0.0);
      err =
          std::max(err, std::fabs(ref - out[((bn * o + oc) * h + y) * w + xx]));
      max_ref = std::max(max_ref, std::fabs(ref));
    }
    const std::string check = Check(err / max_ref, 1e-4);
    const std::string mine_text =
        absl::StrFormat("%s (%.1f GFLOP/s)", FormatTime(mine->median), gflops);
    TorchRow(name, "conv_block", *mine, mine_text, "> 1x", check);
    BaselineRow(name, "conv_block.hlo", {&x, &k, &scale, &offset, &mean, &var},
                *mine, mine_text, check);
    ConvDirectRow(name, x, k, scale, offset, mean, var, *mine, mine_text);
  }

  // The conv block on oneDNN directly (DnnlConvBlock), same inputs.
  void ConvDirectRow(const std::string& name, const std::vector<float>& x,
                     const std::vector<float>& k,
                     const std::vector<float>& scale,
                     const std::vector<float>& offset,
                     const std::vector<float>& mean,
                     const std::vector<float>& var, const Stats& mine,
                     const std::string& mine_text) {
    const int64_t nb = 8, c = 64, h = 56, w = 56, o = 64;
    auto cb = DnnlConvBlock::Create(nb, c, h, w, o);
    if (!cb.ok()) return Fail(name, cb.status());
    HostArray hx(x.size()), hk(k.size()), out(nb * o * h * w);
    std::copy(x.begin(), x.end(), hx.data);
    std::copy(k.begin(), k.end(), hk.data);
    std::vector<float> mul(o);
    for (int64_t i = 0; i < o; ++i) {
      mul[i] = scale[i] / std::sqrt(var[i] + 1e-5f);
    }
    absl::Status status;
    Stats peer = Measure(
        [&] {
          const auto start = Clock::now();
          status.Update((*cb)->Run(hx.data, hk.data, mean.data(), mul.data(),
                                   offset.data(), out.data));
          return Seconds(start, Clock::now());
        },
        f_.seconds);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (!status.ok()) return Fail(name, status);
    PrintStats(absl::StrCat("oneDNN conv+post-ops (", (*cb)->impl(), ")"),
               peer);
    std::printf("  ratio (oneDNN time / Plexa time): %.2fx\n",
                peer.median / mine.median);
    rows_.push_back({absl::StrCat(name, " vs oneDNN conv + post-ops"),
                     mine_text,
                     absl::StrCat("oneDNN ", FormatTime(peer.median), " (",
                                  (*cb)->impl(), ")"),
                     Ratio(peer.median / mine.median, peer.best / mine.best),
                     ">= 0.95x (onednn plugin)", "—",
                     OthersText(mine.others, peer.others)});
  }

  void Resnet() {
    const std::string name =
        "ResNet basic block 8x64x56x56 NCHW (2x conv-BN-relu, residual)";
    std::printf("\n== %s ==\n", name.c_str());
    const int64_t nb = 8, c = 64, h = 56, w = 56;
    const std::vector<float> x = RandomVector(nb * c * h * w, 1, 61);
    std::vector<std::vector<float>> p;  // k1, s1, o1, m1, v1, k2, ...
    for (int conv = 0; conv < 2; ++conv) {
      p.push_back(RandomVector(c * c * 9, 0.05f, 62 + 10 * conv));
      p.push_back(RandomVector(c, 1, 63 + 10 * conv));
      p.push_back(RandomVector(c, 1, 64 + 10 * conv));
      p.push_back(RandomVector(c, 1, 65 + 10 * conv));
      p.push_back(RandomVector(c, 0.5f, 66 + 10 * conv));
      for (float& v : p.back()) v += 1.0f;  // positive variance
    }
    std::vector<const std::vector<float>*> inputs = {&x};
    for (const std::vector<float>& v : p) inputs.push_back(&v);
    absl::StatusOr<Session> s =
        MakeSession(client_, Path("resnet_block.hlo"), inputs);
    if (!s.ok()) return Fail(name, s.status());
    std::vector<float> out;
    absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
    if (!mine.ok()) return Fail(name, mine.status());
    const double flops = 2 * 2.0 * nb * c * h * w * c * 9;
    const double gflops = flops / mine->median * 1e-9;
    PrintStats("Plexa", *mine, absl::StrFormat(" -> %.1f GFLOP/s", gflops));
    // 256 sampled outputs in double: the first block's relu output over
    // each sample's 3x3 neighbourhood, then the second convolution.
    auto bn = [&](int conv, int64_t ch, double v) {
      const std::vector<float>* q = &p[5 * conv];
      return (v - q[3][ch]) / std::sqrt(double(q[4][ch]) + 1e-5) * q[1][ch] +
             q[2][ch];
    };
    Random rng{67};
    double err = 0, max_ref = 0;
    for (int t = 0; t < 256; ++t) {
      const int64_t b = rng.Next() % nb, oc = rng.Next() % c,
                    y = rng.Next() % h, xx = rng.Next() % w;
      auto input = [&](int64_t ic, int64_t iy, int64_t ix) {
        return double(x[((b * c + ic) * h + iy) * w + ix]);
      };
      auto r1 = [&](int64_t ic, int64_t iy, int64_t ix) {
        return std::max(bn(0, ic, Conv3x3At(input, p[0], c, h, w, ic, iy, ix)),
                        0.0);
      };
      double ref =
          bn(1, oc, Conv3x3At(r1, p[5], c, h, w, oc, y, xx)) + input(oc, y, xx);
      ref = std::max(ref, 0.0);
      err =
          std::max(err, std::fabs(ref - out[((b * c + oc) * h + y) * w + xx]));
      max_ref = std::max(max_ref, std::fabs(ref));
    }
    const std::string check = Check(err / max_ref, 1e-4);
    const std::string mine_text =
        absl::StrFormat("%s (%.1f GFLOP/s)", FormatTime(mine->median), gflops);
    TorchRow(name, "resnet_block", *mine, mine_text, "> 1x", check);
    BaselineRow(name, "resnet_block.hlo", inputs, *mine, mine_text, check);
  }

  // bf16 operands, f32 accumulation and result, against the f32 dot on
  // the same plugin.
  void Bf16Dot() {
    const int64_t n = 2048;
    const std::string name = "dot bf16 2048^3 (f32 result) vs f32 dot";
    std::printf("\n== %s ==\n", name.c_str());
    const std::vector<float> a = RandomVector(n * n, 1, 71);
    const std::vector<float> b = RandomVector(n * n, 1, 72);
    absl::StatusOr<Session> s16 =
        MakeSession(client_, Path("dot_2048_bf16.hlo"), {&a, &b});
    if (!s16.ok()) return Fail(name, s16.status());
    std::vector<float> c16;
    absl::StatusOr<Stats> mine = MeasureSession(*s16, f_.seconds, &c16);
    if (!mine.ok()) return Fail(name, mine.status());
    s16->inputs.clear();
    const double flops = 2.0 * n * n * n;
    PrintStats(
        "Plexa bf16", *mine,
        absl::StrFormat(" -> %.1f GFLOP/s", flops / mine->median * 1e-9));
    absl::StatusOr<Session> s32 =
        MakeSession(client_, Path("dot_2048.hlo"), {&a, &b});
    if (!s32.ok()) return Fail(name, s32.status());
    std::vector<float> c32;
    absl::StatusOr<Stats> f32 = MeasureSession(*s32, f_.seconds, &c32);
    if (!f32.ok()) return Fail(name, f32.status());
    PrintStats("Plexa f32", *f32,
               absl::StrFormat(" -> %.1f GFLOP/s", flops / f32->median * 1e-9));
    // Against a double dot of the bf16-rounded operands, 256 samples.
    auto bf16 = [](float v) {
      uint32_t u;
      std::memcpy(&u, &v, 4);
      u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
      std::memcpy(&v, &u, 4);
      return double(v);
    };
    Random rng{73};
    double err = 0, scale = 0;
    for (int t = 0; t < 256; ++t) {
      const int64_t i = rng.Next() % n, j = rng.Next() % n;
      double ref = 0;
      for (int64_t k = 0; k < n; ++k)
        ref += bf16(a[i * n + k]) * bf16(b[k * n + j]);
      err = std::max(err, std::fabs(ref - c16[i * n + j]));
      scale = std::max(scale, std::fabs(ref));
    }
    const std::string check = Check(err / scale, 1e-4);
    rows_.push_back(
        {name,
         absl::StrFormat("%.1f GFLOP/s (%s)", flops / mine->median * 1e-9,
                         FormatTime(mine->median)),
         absl::StrFormat("f32 %.1f GFLOP/s (%s)", flops / f32->median * 1e-9,
                         FormatTime(f32->median)),
         Ratio(f32->median / mine->median, f32->best / mine->best),
         "> 1x on AVX-512 BF16", check, OthersText(mine->others, f32->others)});
  }

  // Parse -> default pipeline -> Compile on a new client each time.
  void CompileTime() {
    const std::string name = "compile examples/mlp.hlo";
    std::printf(
        "\n== %s (new client each time; client creation not timed) ==\n",
        name.c_str());
    absl::StatusOr<std::string> text =
        ReadFile(absl::StrCat(f_.examples, "/mlp.hlo"));
    if (!text.ok()) return Fail(name, text.status());
    host::Plugin& plugin = client_.plugin();
    std::vector<double> total, front, compile;
    const int runs = 25, warmup = 2;
    const CpuSample before = SampleCpu();
    for (int i = 0; i < runs + warmup; ++i) {
      auto client = plugin.CreateClient(ThreadOptions(plugin, f_.threads));
      if (!client.ok()) return Fail(name, client.status());
      const auto t0 = Clock::now();
      auto program = PrepareProgram(*text, plugin);
      if (!program.ok()) return Fail(name, program.status());
      const auto t1 = Clock::now();
      auto exe = (*client)->Compile(program->first, program->second);
      const auto t2 = Clock::now();
      if (!exe.ok()) return Fail(name, exe.status());
      if (i == 0) {
        std::printf("  first compile in this process: %s\n",
                    FormatTime(Seconds(t0, t2)).c_str());
      }
      if (i < warmup) continue;
      total.push_back(Seconds(t0, t2));
      front.push_back(Seconds(t0, t1));
      compile.push_back(Seconds(t1, t2));
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double med = median(total);
    const double others = OtherLoad(before, SampleCpu());
    std::printf(
        "  median over %d: %s (parse + default pipeline + serialize "
        "%s, plugin Compile %s); best %s\n",
        runs, FormatTime(med).c_str(), FormatTime(median(front)).c_str(),
        FormatTime(median(compile)).c_str(),
        FormatTime(*std::min_element(total.begin(), total.end())).c_str());
    rows_.push_back({name, absl::StrFormat("%.1f ms median", med * 1e3),
                     "budget 100 ms",
                     absl::StrFormat("%.2fx of budget", med / 0.1), "< 100 ms",
                     "—", OthersText(others)});
  }

  // Execute + freeing the outputs of an f32[1] add, inputs made once.
  void Overhead() {
    const std::string name = "execute overhead, f32[1] add";
    std::printf("\n== %s (Execute + free outputs) ==\n", name.c_str());
    const std::vector<float> a = {1.5f}, b = {2.25f};
    absl::StatusOr<Session> s =
        MakeSession(client_, Path("add_scalar1.hlo"), {&a, &b});
    if (!s.ok()) return Fail(name, s.status());
    const int per_batch = 20000, batches = 7;
    absl::Status status;
    auto batch = [&]() -> double {
      const auto start = Clock::now();
      for (int i = 0; i < per_batch && status.ok(); ++i) {
        auto out = s->exe->Execute({s->args});
        if (!out.ok()) status = out.status();
      }  // outputs freed here, inside the timed loop
      return Seconds(start, Clock::now()) / per_batch;
    };
    Stats mine = Measure(batch, 0, batches, batches);
    if (!status.ok()) return Fail(name, status);
    PrintStats(
        absl::StrFormat("Plexa (per execute, %d x %d)", batches, per_batch),
        mine);
    std::vector<std::unique_ptr<host::Buffer>> keep;
    absl::StatusOr<double> t = s->TimedRun(&keep);
    if (!t.ok()) return Fail(name, t.status());
    absl::StatusOr<std::vector<float>> v = ToFloats(*keep[0]);
    if (!v.ok()) return Fail(name, v.status());
    const std::string check = Check(std::fabs((*v)[0] - 3.75), 0);
    TorchRow(name, "add_scalar1", mine,
             absl::StrFormat("%.2f µs", mine.median * 1e6), "< 5 µs", check);
    // The ratio column of this row is against PyTorch's eager add.
  }

  // --hlo with --baseline: each program (random f32 inputs in [-1, 1)) on
  // the plugin and on the baseline, a row each, their results compared.
  void Programs(const std::vector<std::string>& files) {
    for (const std::string& file : files) {
      const std::string name(
          absl::StripSuffix(file.substr(file.find_last_of('/') + 1), ".hlo"));
      std::printf("\n== %s ==\n", name.c_str());
      auto exe = CompileFile(client_, Path(file));
      if (!exe.ok()) return Fail(name, exe.status());
      std::vector<std::vector<float>> data;
      int seed = 71;
      for (const Shape& p : (*exe)->parameter_shapes()) {
        data.push_back(RandomVector(ShapeUtil::ElementsIn(p), 1, seed++));
      }
      std::vector<const std::vector<float>*> inputs;
      for (const std::vector<float>& d : data) inputs.push_back(&d);
      absl::StatusOr<Session> s = MakeSession(client_, Path(file), inputs);
      if (!s.ok()) return Fail(name, s.status());
      std::vector<float> out;
      absl::StatusOr<Stats> mine = MeasureSession(*s, f_.seconds, &out);
      if (!mine.ok()) return Fail(name, mine.status());
      PrintStats("Plexa", *mine);
      BaselineRow(name, file, inputs, *mine, FormatTime(mine->median), "",
                  &out);
    }
  }

  void PrintTable() const {
    std::printf(
        "\n| workload | Plexa | peer | ratio | target | check | other "
        "load |\n");
    std::printf("| --- | --- | --- | --- | --- | --- | --- |\n");
    for (const Row& r : rows_) {
      std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.workload.c_str(),
                  r.plexa.c_str(), r.peer.c_str(), r.ratio.c_str(),
                  r.target.c_str(), r.check.c_str(), r.others.c_str());
    }
    std::printf(
        "\nratio: Plexa throughput / peer throughput (= peer time / Plexa "
        "time; for the triad, GB/s counted 3R+1W vs 2R+1W), from the medians "
        "and (best) from the best runs.\nother load: cores that other "
        "processes kept busy while the row was measured (max of Plexa's and "
        "the peer's measurement; the PyTorch figure covers its whole run); "
        "0 is a quiet machine.\n");
  }

 private:
  Flags f_;
  TorchResults torch_;
  host::Client& client_;
  host::Client* baseline_;
  std::vector<Row> rows_;
};

// --hlo=FILE: times any program (f32 parameters uniform in [-1, 1), others
// zero) and prints the bytes of its parameters and results per second; for
// reproducers.
absl::Status TimeHloFile(host::Client& client, const std::string& path,
                         double budget) {
  auto exe = CompileFile(client, path);
  if (!exe.ok()) return exe.status();
  Session s;
  s.exe = std::move(*exe);
  double bytes = 0;
  Random rng{1};
  for (const Shape& p : s.exe->parameter_shapes()) {
    Literal lit(ShapeUtil::MakeShape(p.element_type(), p.dimensions()));
    if (p.element_type() == F32) {
      std::vector<float> v(lit.data().size() / sizeof(float));
      for (float& x : v) x = rng.Uniform(1);
      std::memcpy(lit.mutable_data().data(), v.data(), lit.data().size());
    }
    bytes += lit.data().size();
    auto b = client.BufferFromLiteral(lit);
    if (!b.ok()) return b.status();
    s.inputs.push_back(std::move(*b));
    s.args.push_back(s.inputs.back().get());
  }
  for (const Shape& o : s.exe->output_shapes()) {
    bytes += ShapeUtil::ByteSizeOf(o);
  }
  absl::Status status;
  std::vector<std::unique_ptr<host::Buffer>> keep;
  Stats st = Measure(
      [&]() -> double {
        absl::StatusOr<double> t = s.TimedRun(&keep);
        keep.clear();
        if (!t.ok()) status = t.status();
        return t.ok() ? *t : 1;
      },
      budget);
  if (!status.ok()) return status;
  std::printf("%s\n", path.c_str());
  PrintStats("Plexa", st,
             absl::StrFormat(" -> %.2f GB/s (parameters + results)",
                             bytes / st.median * 1e-9));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<host::Plugin>> LoadPlugin(const Flags& f) {
  if (!f.plugin.empty()) return host::Plugin::Load(f.plugin);
  absl::StatusOr<std::shared_ptr<host::Plugin>> p = host::Plugin::Load("cpu");
  if (p.ok()) return p;
  return host::Plugin::Load(PLEXA_CPU_PLUGIN);
}

int Main(int argc, char** argv) {
  absl::StatusOr<Flags> flags = ParseFlags(argc, argv);
  if (!flags.ok()) {
    std::fprintf(stderr, "error: %s\n", flags.status().ToString().c_str());
    return 2;
  }
  // oneDNN's OpenMP runtime (and PyTorch's) read OMP_NUM_THREADS at load.
  const std::string want = std::to_string(flags->threads);
  const char* omp = std::getenv("OMP_NUM_THREADS");
  if (omp == nullptr || want != omp) {
    setenv("OMP_NUM_THREADS", want.c_str(), 1);
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "error: cannot re-execute with OMP_NUM_THREADS=%s\n",
                 want.c_str());
    return 1;
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf(
      "cpu_bench: %d threads (plugin num_threads, OMP_NUM_THREADS, "
      "torch.set_num_threads), ~%.1f s per measurement\n",
      flags->threads, flags->seconds);

  // PyTorch first, while this process runs no threads.
  TorchResults torch = RunTorchPeer(*flags);
  std::printf("  PyTorch: %s\n", torch.config.c_str());

  auto plugin = LoadPlugin(*flags);
  if (!plugin.ok()) {
    std::fprintf(stderr, "error: %s\n", plugin.status().ToString().c_str());
    return 1;
  }
  std::printf("plugin: %s (%s %s)\n", (*plugin)->path().c_str(),
              (*plugin)->attributes().name.c_str(),
              (*plugin)->attributes().version.c_str());
  std::vector<host::Plugin::Option> options =
      ThreadOptions(**plugin, flags->threads);
  if (!flags->dump_ir.empty()) {
    options.push_back({"dump_ir", PLX_Value_STRING, flags->dump_ir});
  }
  for (const auto& [name, value] : flags->plugin_options) {
    options.push_back({name, PLX_Value_INT64, "", value});
    std::printf("plugin option: %s=%lld\n", name.c_str(),
                static_cast<long long>(value));
  }
  auto client = (*plugin)->CreateClient(options);
  if (!client.ok()) {
    std::fprintf(stderr, "error: %s\n", client.status().ToString().c_str());
    return 1;
  }
  if (!(*client)->devices().empty()) {
    std::printf("device: %s\n", (*client)->devices()[0].kind.c_str());
  }
  const dnnl_version_t* v = dnnl_version();
  std::printf("oneDNN %d.%d.%d (cpu runtime %s)\n", v->major, v->minor,
              v->patch,
              v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");

  if (!flags->hlo.empty() && flags->baseline.empty()) {
    for (const std::string& path : flags->hlo) {
      if (absl::Status st = TimeHloFile(**client, path, flags->seconds);
          !st.ok()) {
        std::fprintf(stderr, "error: %s\n", st.ToString().c_str());
        return 1;
      }
    }
    return 0;
  }
  std::unique_ptr<host::Client> baseline;
  if (!flags->baseline.empty()) {
    auto base_plugin = host::Plugin::Load(flags->baseline);
    if (!base_plugin.ok()) {
      std::fprintf(stderr, "error: %s\n",
                   base_plugin.status().ToString().c_str());
      return 1;
    }
    auto base =
        (*base_plugin)
            ->CreateClient(ThreadOptions(**base_plugin, flags->threads));
    if (!base.ok()) {
      std::fprintf(stderr, "error: %s\n", base.status().ToString().c_str());
      return 1;
    }
    std::printf("baseline plugin: %s\n", (*base_plugin)->path().c_str());
    baseline = std::move(*base);
  }
  Bench bench(*flags, std::move(torch), **client, baseline.get());
  if (!flags->hlo.empty()) {  // with --baseline
    bench.Programs(flags->hlo);
    bench.PrintTable();
    return 0;
  }
  if (flags->Want("dot")) {
    bench.Dot(1024);
    bench.Dot(2048);
  }
  if (flags->Want("tanh")) bench.FusedTanh();
  if (flags->Want("sum")) bench.Sum();
  if (flags->Want("softmax")) bench.Softmax();
  if (flags->Want("mlp")) bench.Mlp();
  if (flags->Want("conv")) bench.Conv();
  if (flags->Want("resnet")) bench.Resnet();
  if (flags->Want("bf16dot")) bench.Bf16Dot();
  if (flags->Want("compile")) bench.CompileTime();
  if (flags->Want("overhead")) bench.Overhead();
  bench.PrintTable();
  return 0;
}

}  // namespace
}  // namespace plexa::bench

int main(int argc, char** argv) { return plexa::bench::Main(argc, argv); }
