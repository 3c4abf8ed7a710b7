// Packed, register-blocked matrix multiplication (GotoBLAS/BLIS structure)
// for f32 and f64 with run-time selected micro-kernels (AVX-512, AVX2+FMA,
// portable C++).
//
//   C[i, j] (+)= sum_p A(i, p) * B(p, j)     0 <= i < m, 0 <= j < n, p < k
//   A(i, p) = a[i * a_row_stride + p * a_col_stride]
//   B(p, j) = b[p * b_row_stride + j * b_col_stride]
//   C(i, j) = c[i * ldc + j]
//
// Operand strides are arbitrary (a transposed operand needs no copy: the
// packing routines read any layout); C is row-major with row stride ldc.
// accumulate == false overwrites C without reading it (k == 0 then writes
// zeros). m, n or k may be 0. With batch_count > 1 the problem repeats with
// a, b and c advanced by their batch strides (in elements).
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_GEMM_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_GEMM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

template <typename T>
struct GemmArgs {
  int64_t m, n, k;
  const T* a;
  int64_t a_row_stride, a_col_stride;
  const T* b;
  int64_t b_row_stride, b_col_stride;
  T* c;
  int64_t ldc;
  bool accumulate = false;
  int64_t batch_count = 1;
  int64_t a_batch_stride = 0, b_batch_stride = 0, c_batch_stride = 0;
};

// pool may be null (single thread). Thread-safe: concurrent calls are fine,
// also on one pool; called from inside a ParallelFor chunk it runs on the
// calling thread. Negative sizes or batch_count <= 0 do nothing. Packing
// buffers (up to ~10 MiB) are kept per thread and reused by later calls; a
// failure to allocate them is a ResourceExhausted error (C is then
// incomplete).
absl::Status Gemm(const GemmArgs<float>& args, ThreadPool* pool);
absl::Status Gemm(const GemmArgs<double>& args, ThreadPool* pool);

// The micro-kernel family chosen at run time: "avx512", "avx2" or "generic".
const char* GemmKernelName();

namespace internal {

// Forces a micro-kernel family ("avx512", "avx2", "generic"); nullptr or ""
// restores the automatic choice. Returns false (and changes nothing) for an
// unknown name or a kernel this CPU cannot run. Not meant to be called while
// other threads run Gemm.
bool ForceGemmKernelForTesting(const char* name);

// Cache blocking of the packed path, in elements: mc rows of A and kc
// columns of A per packed block, nc columns of B per packed panel. Values
// are rounded to the micro-tile sizes. Zero restores the tuned default.
// For tuning and tests only.
struct GemmBlocking {
  int64_t mc = 0, kc = 0, nc = 0;
};
void SetGemmBlockingForTesting(const GemmBlocking& f32,
                               const GemmBlocking& f64);

}  // namespace internal

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_GEMM_H_
