// Times plexa::cpu::Gemm (the CPU plugin's packed f32 GEMM) against oneDNN's
// dnnl_sgemm on square row-major problems, in the same process, and prints
// GFLOP/s for both and their ratio.
//
//   gemm_bench [threads=2] [sizes...=1024 2048]
//
// It also times plexa::cpu::Conv on an 8x64x56x56 input, 3x3 window,
// padding 1, 64 output features, in NCHW/OIHW and NHWC/HWIO layouts.
//
// For tuning, PLEXA_GEMM_MC / PLEXA_GEMM_KC / PLEXA_GEMM_NC override the f32
// cache blocking (elements); PLEXA_GEMM_KERNEL=avx2|generic forces a
// micro-kernel family.
//
// oneDNN uses its OpenMP runtime, which reads OMP_NUM_THREADS when the
// program loads: if it differs from the thread count, the program sets it and
// re-executes itself so both libraries use the same number of threads.
// Our runs go first for each size; a short pause after oneDNN's lets its
// OpenMP threads stop spinning before the next measurement.
#include <oneapi/dnnl/dnnl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plugins/cpu/runtime/conv.h"
#include "plugins/cpu/runtime/gemm.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Timing {
  double best = 0, median = 0;  // seconds
};

template <typename Fn>
Timing Time(Fn fn, double flops) {
  fn();  // warm-up (page faults, packing buffers, thread start)
  fn();
  // About 1.5 s of runs, at least 5.
  const int reps = std::clamp(static_cast<int>(1.5e11 / flops), 5, 200);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto start = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  std::vector<int64_t> sizes;
  for (int i = 2; i < argc; ++i) sizes.push_back(std::atoll(argv[i]));
  if (sizes.empty()) sizes = {1024, 2048};
  const std::string omp_threads = std::to_string(threads);
  const char* env_threads = std::getenv("OMP_NUM_THREADS");
  if (env_threads == nullptr || omp_threads != env_threads) {
    setenv("OMP_NUM_THREADS", omp_threads.c_str(), 1);
    execv("/proc/self/exe", argv);
    std::perror("gemm_bench: re-exec with OMP_NUM_THREADS failed");
    return 1;
  }

  auto env = [](const char* name) -> int64_t {
    const char* v = std::getenv(name);
    return v != nullptr ? std::atoll(v) : 0;
  };
  plexa::cpu::internal::GemmBlocking blocking;
  blocking.mc = env("PLEXA_GEMM_MC");
  blocking.kc = env("PLEXA_GEMM_KC");
  blocking.nc = env("PLEXA_GEMM_NC");
  plexa::cpu::internal::SetGemmBlockingForTesting(blocking, {});
  if (const char* kernel = std::getenv("PLEXA_GEMM_KERNEL")) {
    if (!plexa::cpu::internal::ForceGemmKernelForTesting(kernel)) {
      std::fprintf(stderr, "gemm_bench: cannot use kernel '%s'\n", kernel);
      return 1;
    }
  }

  plexa::cpu::ThreadPool pool(threads);
  std::printf("plexa gemm kernel: %s, threads: %d (OMP_NUM_THREADS=%s)\n",
              plexa::cpu::GemmKernelName(), threads,
              std::getenv("OMP_NUM_THREADS"));
  std::printf("%6s %14s %14s %14s %14s %8s %10s\n", "size", "plexa best",
              "plexa median", "onednn best", "onednn median", "ratio",
              "max|diff|");
  for (int64_t n : sizes) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> a(n * n), b(n * n), c(n * n), c_ref(n * n);
    for (float& x : a) x = dist(rng);
    for (float& x : b) x = dist(rng);
    const double flops = 2.0 * n * n * n;

    plexa::cpu::GemmArgs<float> g{n,        n, n, a.data(), n, 1,
                                  b.data(), n, 1, c.data(), n};
    const Timing ours =
        Time([&] { plexa::cpu::Gemm(g, &pool).IgnoreError(); }, flops);

    const Timing theirs = Time(
        [&] {
          dnnl_sgemm('N', 'N', n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                     c_ref.data(), n);
        },
        flops);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));

    double diff = 0;
    for (int64_t i = 0; i < n * n; ++i) {
      diff = std::max(diff, static_cast<double>(std::fabs(c[i] - c_ref[i])));
    }
    const double ours_gf = flops / ours.best * 1e-9;
    const double theirs_gf = flops / theirs.best * 1e-9;
    std::printf(
        "%6lld %9.1f GF/s %9.1f GF/s %9.1f GF/s %9.1f GF/s %7.3fx %10.2e\n",
        static_cast<long long>(n), ours_gf, flops / ours.median * 1e-9,
        theirs_gf, flops / theirs.median * 1e-9, ours_gf / theirs_gf, diff);
  }

  // Convolution: N=8, C=64, 56x56, 3x3, padding 1, O=64.
  const int64_t N = 8, C = 64, H = 56, W = 56, O = 64, K = 3;
  std::vector<float> x(N * C * H * W), f(O * C * K * K), y(N * O * H * W);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float& v : x) v = dist(rng);
  for (float& v : f) v = dist(rng);
  const double conv_flops = 2.0 * N * O * H * W * C * K * K;
  for (bool nhwc : {false, true}) {
    plexa::cpu::ConvDims d;
    d.num_spatial = 2;
    d.batch = N;
    d.in_features = C;
    d.out_features = O;
    d.in_spatial = {H, W};
    d.kernel_spatial = {K, K};
    d.out_spatial = {H, W};
    d.window_strides = {1, 1};
    d.padding_low = {1, 1};
    d.padding_high = {1, 1};
    d.lhs_dilation = {1, 1};
    d.rhs_dilation = {1, 1};
    if (nhwc) {  // NHWC input and output, HWIO filter
      d.lhs_batch_stride = d.out_batch_stride = H * W * C;
      d.lhs_feature_stride = d.out_feature_stride = 1;
      d.lhs_spatial_strides = d.out_spatial_strides = {W * C, C};
      d.rhs_in_stride = O;
      d.rhs_out_stride = 1;
      d.rhs_spatial_strides = {K * C * O, C * O};
    } else {  // NCHW input and output, OIHW filter
      d.lhs_batch_stride = d.out_batch_stride = C * H * W;
      d.lhs_feature_stride = d.out_feature_stride = H * W;
      d.lhs_spatial_strides = d.out_spatial_strides = {W, 1};
      d.rhs_in_stride = K * K;
      d.rhs_out_stride = C * K * K;
      d.rhs_spatial_strides = {K, 1};
    }
    bool ok = true;
    const Timing t = Time(
        [&] {
          ok = ok &&
               plexa::cpu::Conv(d, x.data(), f.data(), y.data(), &pool).ok();
        },
        conv_flops);
    std::printf(
        "conv 8x64x56x56 3x3 pad 1 -> 64 (%s): best %.2f ms "
        "(%.1f GF/s), median %.2f ms%s\n",
        nhwc ? "NHWC/HWIO" : "NCHW/OIHW", t.best * 1e3,
        conv_flops / t.best * 1e-9, t.median * 1e3, ok ? "" : "  FAILED");
  }
  return 0;
}
