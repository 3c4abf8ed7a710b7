// Internal to the CPU runtime's convolution: the pieces shared by the two f32
// AVX-512 paths, conv.cc's implicit im2col and winograd.cc's Winograd
// F(2x2, 3x3), and the Winograd entry points conv.cc dispatches to. Not part
// of the runtime's interface (conv.h is).
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_CONV_INTERNAL_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_CONV_INTERNAL_H_

#include <immintrin.h>

#include <cstdint>

#include "absl/status/status.h"
#include "plugins/cpu/runtime/conv.h"
#include "plugins/cpu/runtime/thread_pool.h"

// The library is compiled without -march flags: AVX-512 code carries this
// attribute and only runs after a run-time CPU check.
#define PLEXA_CONV_AVX512 __attribute__((target("avx512f,avx512vl,fma")))

namespace plexa::cpu::conv_internal {

// 2-D view of a convolution (1-D: height 1).
struct FastGeom {
  int64_t n, c, o;
  int64_t ih, iw, kh, kw, oh, ow, sh, sw, ph, pw, dh, dw;
  bool rh, rw;                 // window reversal
  int64_t lbs, lcs, lys, lxs;  // lhs strides
  int64_t ris, ros, rys, rxs;  // rhs strides
  int64_t obs, ofs, oys, oxs;  // out strides
  int64_t yp, xp;              // padded input extent actually read
};

// d must be valid with 1 or 2 spatial dimensions.
FastGeom MakeFastGeom(const ConvDims& d);

// Mask of the first n (0..16) lanes.
inline __mmask16 FirstLanes(int n) {
  return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1u);
}

// dst[i * ds + j] = src[j * ss + i] for j < rows, i < cols (both <= 16).
// AVX-512 only.
PLEXA_CONV_AVX512 void TransposeBlock(const float* src, int64_t ss, int rows,
                                      int cols, float* dst, int64_t ds);

// Copies row yp (0-based, counted from the top of the zero padding, i.e.
// input row yp - g.ph) of batch element b's padded input to
// dst[x * cs + c] for x < width (padded columns, x - g.pw is the input
// column), c < cs: zero outside the input and for channels c >= g.c
// (cs >= g.c). Reads any lhs layout. AVX-512 only (NCHW-like inputs use
// TransposeBlock).
void CopyPaddedRow(const FastGeom& g, const float* lhs, int64_t b, int64_t yp,
                   int64_t width, int64_t cs, float* dst);

// The register block both paths multiply with: 6 rows (output positions,
// or Winograd tiles) by 16 * NV output features,
//   m[i * ldm + f] (+)= sum_{c < cn} x[i][c * cs] * w[c * 64 + f],
// broadcasting one input value per row against NV vectors of weights
// (rows of 64 floats, 64-byte aligned). `first` starts from zero instead
// of m. kBlockRows x kBlockFeatures is the most AVX-512's 32 registers
// hold with the weights.
constexpr int kBlockRows = 6;
constexpr int kBlockFeatures = 64;

template <int NV>
PLEXA_CONV_AVX512 void BlockKernel(const float* const* x, int64_t cn,
                                   int64_t cs, const float* w, float* m,
                                   int64_t ldm, bool first) {
  __m512 a[kBlockRows][NV];
#pragma GCC unroll 6
  for (int i = 0; i < kBlockRows; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      a[i][v] =
          first ? _mm512_setzero_ps() : _mm512_loadu_ps(m + i * ldm + v * 16);
    }
  }
  const float* p[kBlockRows];
#pragma GCC unroll 6
  for (int i = 0; i < kBlockRows; ++i) p[i] = x[i];
  for (int64_t c = 0, off = 0; c < cn; ++c, off += cs) {
    __m512 wv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) wv[v] = _mm512_load_ps(w + v * 16);
#pragma GCC unroll 6
    for (int i = 0; i < kBlockRows; ++i) {
      const __m512 b = _mm512_set1_ps(p[i][off]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        a[i][v] = _mm512_fmadd_ps(wv[v], b, a[i][v]);
      }
    }
    w += kBlockFeatures;
  }
#pragma GCC unroll 6
  for (int i = 0; i < kBlockRows; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      _mm512_storeu_ps(m + i * ldm + v * 16, a[i][v]);
    }
  }
}

// BlockKernel<(features + 15) / 16> for 1..64 features.
using BlockKernelFn = void (*)(const float* const*, int64_t, int64_t,
                               const float*, float*, int64_t, bool);
inline BlockKernelFn BlockKernelFor(int64_t features) {
  constexpr BlockKernelFn kKernels[] = {BlockKernel<1>, BlockKernel<2>,
                                        BlockKernel<3>, BlockKernel<4>};
  return kKernels[(features + 15) / 16 - 1];
}

// ---- Implicit im2col (conv_direct.cc) ----

// Computes the convolution d (f32, one group, no base dilation, 1 or 2
// spatial dimensions, validated; AVX-512 CPU) without a patch matrix,
// including the on_rows_done calls. ResourceExhausted if scratch memory
// cannot be allocated. Thread-safe.
absl::Status FastConv(const ConvDims& d, const float* lhs, const float* rhs,
                      float* out, ThreadPool* pool);

// ---- Winograd F(2x2, 3x3) (winograd.cc) ----

// Whether the Winograd path can compute d (already validated): f32, 2
// spatial dimensions, one group, a 3x3 window with unit strides and no
// dilation, non-negative padding, scratch of sane size. Checks the shape
// only; the caller checks the CPU.
bool WinogradSupports(const ConvDims& d);

// Whether it is also faster than the implicit im2col path, for a d it
// supports: at least 16 input and output features, at least 128 tiles (2x2
// output blocks) over the batch, and at most 4 MiB of transformed weights
// (256 x 256 features).
bool WinogradPays(const ConvDims& d);

// Computes the convolution d (WinogradSupports(d) must hold, AVX-512 CPU),
// including the on_rows_done calls. ResourceExhausted if scratch memory
// cannot be allocated. Thread-safe.
absl::Status WinogradConv(const ConvDims& d, const float* lhs, const float* rhs,
                          float* out, ThreadPool* pool);

}  // namespace plexa::cpu::conv_internal

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_CONV_INTERNAL_H_
