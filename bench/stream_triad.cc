#include "bench/stream_triad.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace plexa::bench {
namespace {

template <typename Body>
void Split(size_t n, int threads, Body body) {
  threads = std::max(threads, 1);
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  const size_t chunk = (n + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const size_t begin = std::min(n, t * chunk);
    const size_t end = std::min(n, begin + chunk);
    if (t + 1 == threads) {
      body(begin, end);
    } else {
      workers.emplace_back([=] { body(begin, end); });
    }
  }
  for (std::thread& w : workers) w.join();
}

}  // namespace

void Triad(float* __restrict a, const float* __restrict b,
           const float* __restrict c, float s, size_t n, int threads) {
  Split(n, threads, [=](size_t begin, size_t end) {
    float* __restrict pa = a;
    const float* __restrict pb = b;
    const float* __restrict pc = c;
    for (size_t i = begin; i < end; ++i) pa[i] = pb[i] + s * pc[i];
  });
}

void Fill(float* a, float value, size_t n, int threads) {
  Split(n, threads, [=](size_t begin, size_t end) {
    std::fill(a + begin, a + end, value);
  });
}

}  // namespace plexa::bench
