// The STREAM-style triad peer of cpu_bench: a[i] = b[i] + s * c[i] over f32,
// split into `threads` contiguous parts, one std::thread each (the calling
// thread takes the last part). Compiled -O3 -march=native on its own
// (bench/CMakeLists.txt), as the STREAM benchmark is built.
#ifndef PLEXA_BENCH_STREAM_TRIAD_H_
#define PLEXA_BENCH_STREAM_TRIAD_H_

#include <cstddef>

namespace plexa::bench {

void Triad(float* a, const float* b, const float* c, float s, size_t n,
           int threads);

// Writes `value` into a[0, n) with the same split (first touch).
void Fill(float* a, float value, size_t n, int threads);

}  // namespace plexa::bench

#endif  // PLEXA_BENCH_STREAM_TRIAD_H_
