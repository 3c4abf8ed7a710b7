// The Vulkan plugin's asynchronous transfers and executions (docs/vulkan.md,
// "Asynchronous work") against the same work done synchronously, measured
// in the same run on the same device:
//
//   a pipeline of R rounds, each: upload a and b (f32[N] each), run
//   y = a * b + a, download y.
//   - synchronous: every call waits (BufferFromLiteral, Execute,
//     ToLiteral), on a client with async_execution=0;
//   - asynchronous: every call returns at once (BufferFromLiteralAsync,
//     ExecuteAsync, ToLiteralAsync) and the host waits once at the end, so
//     round r+1's uploads overlap round r's kernels and download.
//
// Both in staging mode (the device copies through staging buffers: what a
// discrete GPU without resizable BAR does) and in direct mode (mapped
// memory: only the executions are asynchronous). The ratio is the
// synchronous time over the asynchronous one (> 1: the overlap pays).
// Results are checked against a host loop (printed, never asserted).
//
// Usage: vulkan_async_bench [--n=4194304] [--rounds=8] [--reps=5]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "core/literal/literal.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

struct Config {
  int64_t n = int64_t{4} << 20;
  int rounds = 8;
  int reps = 5;
};

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

// One pipeline; false (after printing why) on any error or wrong value.
bool Pipeline(host::Client& client, host::Executable& exe,
              const std::vector<Literal>& a, const std::vector<Literal>& b,
              bool async, double* seconds) {
  const int rounds = static_cast<int>(a.size());
  std::vector<Literal> y(rounds);
  const auto t0 = std::chrono::steady_clock::now();
  if (async) {
    std::vector<std::unique_ptr<host::Event>> events;
    for (int r = 0; r < rounds; ++r) {
      auto ua = client.BufferFromLiteralAsync(a[r]);
      auto ub = client.BufferFromLiteralAsync(b[r]);
      if (!ua.ok() || !ub.ok()) {
        std::printf("upload: %s\n",
                    std::string(!ua.ok() ? ua.status().message()
                                         : ub.status().message())
                        .c_str());
        return false;
      }
      auto run = exe.ExecuteAsync({{ua->buffer.get(), ub->buffer.get()}});
      if (!run.ok()) {
        std::printf("execute: %s\n",
                    std::string(run.status().message()).c_str());
        return false;
      }
      auto down = run->outputs[0][0]->ToLiteralAsync(&y[r]);
      if (!down.ok()) {
        std::printf("download: %s\n",
                    std::string(down.status().message()).c_str());
        return false;
      }
      // The round's handles go now; the plugin frees the buffers once the
      // work that reads them is done.
      events.push_back(*std::move(down));
    }
    for (auto& e : events) {
      if (absl::Status s = e->Await(); !s.ok()) {
        std::printf("await: %s\n", std::string(s.message()).c_str());
        return false;
      }
    }
  } else {
    for (int r = 0; r < rounds; ++r) {
      auto ua = client.BufferFromLiteral(a[r]);
      auto ub = client.BufferFromLiteral(b[r]);
      if (!ua.ok() || !ub.ok()) return false;
      auto out = exe.Execute({{ua->get(), ub->get()}});
      if (!out.ok()) return false;
      auto lit = (*out)[0][0]->ToLiteral();
      if (!lit.ok()) return false;
      y[r] = *std::move(lit);
    }
  }
  *seconds = Seconds(t0);
  for (int r = 0; r < rounds; ++r) {
    const int64_t n = ShapeUtil::ElementsIn(a[r].shape());
    for (int64_t i = 0; i < n; i += 4099) {
      const float av = a[r].Get<float>({i}), bv = b[r].Get<float>({i});
      if (y[r].Get<float>({i}) != av * bv + av) {
        std::printf("wrong value at round %d element %lld\n", r,
                    static_cast<long long>(i));
        return false;
      }
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--n=", 0) == 0) {
      config.n = std::atoll(arg.c_str() + 4);
    } else if (arg.rfind("--rounds=", 0) == 0) {
      config.rounds = std::atoi(arg.c_str() + 9);
    } else if (arg.rfind("--reps=", 0) == 0) {
      config.reps = std::atoi(arg.c_str() + 7);
    } else {
      std::fprintf(stderr,
                   "usage: vulkan_async_bench [--n=N] [--rounds=R] "
                   "[--reps=K]\n");
      return 2;
    }
  }
  auto plugin = host::Plugin::Load(PLEXA_VULKAN_PLUGIN);
  if (!plugin.ok()) {
    std::printf("vulkan plugin: %s\n",
                std::string(plugin.status().message()).c_str());
    return 1;
  }
  const std::string n = absl::StrCat(config.n);
  const std::string program = absl::StrCat(
      "HloModule fma\nENTRY main {\n  a = f32[", n, "] parameter(0)\n",
      "  b = f32[", n, "] parameter(1)\n  m = f32[", n,
      "] multiply(a, b)\n  ROOT y = f32[", n, "] add(m, a)\n}\n");
  std::vector<Literal> a, b;
  for (int r = 0; r < config.rounds; ++r) {
    a.emplace_back(ShapeUtil::MakeShape(PrimitiveType::F32, {config.n}));
    b.emplace_back(ShapeUtil::MakeShape(PrimitiveType::F32, {config.n}));
    for (int64_t i = 0; i < config.n; ++i) {
      a[r].Set<float>({i}, static_cast<float>((i + r) % 97) - 48);
      b[r].Set<float>({i}, static_cast<float>((i * 7 + r) % 31) / 4);
    }
  }
  std::printf(
      "vulkan_async_bench: %d rounds of upload 2 x f32[%lld] (%.1f MiB "
      "each), y = a*b+a, download; median of %d\n",
      config.rounds, static_cast<long long>(config.n),
      static_cast<double>(config.n) * 4 / (1 << 20), config.reps);
  std::printf("%-8s %12s %12s %8s\n", "memory", "sync ms", "async ms", "ratio");
  for (int staging : {1, 0}) {
    double median[2] = {0, 0};
    for (int async : {0, 1}) {
      auto client = (*plugin)->CreateClient(
          {{"staging", PLX_Value_INT64, "", staging},
           {"async_execution", PLX_Value_INT64, "", async}});
      if (!client.ok()) {
        std::printf("client: %s\n",
                    std::string(client.status().message()).c_str());
        return 1;
      }
      auto exe = (*client)->Compile(program, "hlo-text");
      if (!exe.ok()) {
        std::printf("compile: %s\n",
                    std::string(exe.status().message()).c_str());
        return 1;
      }
      std::vector<double> times;
      double t = 0;
      // One warm-up.
      if (!Pipeline(**client, **exe, a, b, async != 0, &t)) return 1;
      for (int k = 0; k < config.reps; ++k) {
        if (!Pipeline(**client, **exe, a, b, async != 0, &t)) return 1;
        times.push_back(t);
      }
      std::sort(times.begin(), times.end());
      median[async] = times[times.size() / 2];
    }
    std::printf("%-8s %12.1f %12.1f %8.2f\n", staging ? "staging" : "direct",
                median[0] * 1e3, median[1] * 1e3, median[0] / median[1]);
  }
  std::printf("values checked: ok\n");
  return 0;
}

}  // namespace
}  // namespace plexa

int main(int argc, char** argv) { return plexa::Main(argc, argv); }
