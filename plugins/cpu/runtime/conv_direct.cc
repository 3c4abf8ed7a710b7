// The direct f32 convolution paths' pieces (conv_internal.h): register
// transposes, padded-row copies and the implicit-im2col fast path
// (FastConv); the helpers are shared with the Winograd path (winograd.cc).
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/status/status.h"
#include "plugins/common/aligned_memory.h"
#include "plugins/cpu/runtime/conv_internal.h"

namespace plexa::cpu::conv_internal {

using ::plexa::backend::AlignedMemory;

// dst[i * ds + j] = src[j * ss + i] for j < rows, i < cols (both <= 16): a
// 16x16 register transpose in four permute stages, each swapping one bit of
// the row index with the same bit of the column index.
PLEXA_CONV_AVX512 void TransposeBlock(const float* src, int64_t ss, int rows,
                                      int cols, float* dst, int64_t ds) {
  __m512 r[16];
  const __mmask16 col_mask = FirstLanes(cols);
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    r[j] = j < rows ? _mm512_maskz_loadu_ps(col_mask, src + j * ss)
                    : _mm512_setzero_ps();
  }
  // Stage k: lane c of a pair's low row takes the low row's lane c if bit k
  // of c is clear, else the high row's lane c ^ bit (index 16 + ...); the
  // high row the other way round.
  const __m512i idx[4][2] = {
      {_mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14,
                         30),
       _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15,
                         31)},
      {_mm512_setr_epi32(0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28,
                         29),
       _mm512_setr_epi32(2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30,
                         31)},
      {_mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26,
                         27),
       _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30,
                         31)},
      {_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22,
                         23),
       _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29,
                         30, 31)}};
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const int bit = 1 << k;
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      if (j & bit) continue;
      const __m512 a = r[j], b = r[j | bit];
      r[j] = _mm512_permutex2var_ps(a, idx[k][0], b);
      r[j | bit] = _mm512_permutex2var_ps(a, idx[k][1], b);
    }
  }
  const __mmask16 row_mask = FirstLanes(rows);
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) {
    if (i < cols) _mm512_mask_storeu_ps(dst + i * ds, row_mask, r[i]);
  }
}

FastGeom MakeFastGeom(const ConvDims& d) {
  FastGeom g;
  const int y = d.num_spatial == 2 ? 0 : -1, x = d.num_spatial - 1;
  auto at = [&](const std::vector<int64_t>& v, int i, int64_t dflt) {
    return i < 0 ? dflt : v[i];
  };
  g.n = d.batch;
  g.c = d.in_features;
  g.o = d.out_features;
  g.ih = at(d.in_spatial, y, 1);
  g.iw = d.in_spatial[x];
  g.kh = at(d.kernel_spatial, y, 1);
  g.kw = d.kernel_spatial[x];
  g.oh = at(d.out_spatial, y, 1);
  g.ow = d.out_spatial[x];
  g.sh = at(d.window_strides, y, 1);
  g.sw = d.window_strides[x];
  g.ph = at(d.padding_low, y, 0);
  g.pw = d.padding_low[x];
  g.dh = at(d.rhs_dilation, y, 1);
  g.dw = d.rhs_dilation[x];
  g.rh = y >= 0 && !d.window_reversal.empty() && d.window_reversal[y];
  g.rw = !d.window_reversal.empty() && d.window_reversal[x];
  g.lbs = d.lhs_batch_stride;
  g.lcs = d.lhs_feature_stride;
  g.lys = at(d.lhs_spatial_strides, y, 0);
  g.lxs = d.lhs_spatial_strides[x];
  g.ris = d.rhs_in_stride;
  g.ros = d.rhs_out_stride;
  g.rys = at(d.rhs_spatial_strides, y, 0);
  g.rxs = d.rhs_spatial_strides[x];
  g.obs = d.out_batch_stride;
  g.ofs = d.out_feature_stride;
  g.oys = at(d.out_spatial_strides, y, 0);
  g.oxs = d.out_spatial_strides[x];
  g.yp = (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  g.xp = (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  return g;
}

// (A planar [c][yp][xp] copy for NCHW inputs would be cheaper to make but is
// slower to broadcast from: each channel step touches another cache line.)
void CopyPaddedRow(const FastGeom& g, const float* lhs, int64_t b, int64_t yp,
                   int64_t width, int64_t cs, float* dst) {
  const int64_t row = width * cs;
  const int64_t yy = yp - g.ph;
  if (yy < 0 || yy >= g.ih) {
    std::fill(dst, dst + row, 0.0f);
    return;
  }
  const int64_t x_lo = std::clamp<int64_t>(g.pw, 0, width);
  const int64_t x_hi = std::clamp<int64_t>(g.pw + g.iw, x_lo, width);
  std::fill(dst, dst + x_lo * cs, 0.0f);
  std::fill(dst + x_hi * cs, dst + row, 0.0f);
  if (cs > g.c) {
    for (int64_t xx = x_lo; xx < x_hi; ++xx) {
      std::fill(dst + xx * cs + g.c, dst + (xx + 1) * cs, 0.0f);
    }
  }
  const float* src = lhs + b * g.lbs + yy * g.lys;
  if (g.lcs == 1) {
    for (int64_t xx = x_lo; xx < x_hi; ++xx) {
      std::memcpy(dst + xx * cs, src + (xx - g.pw) * g.lxs,
                  g.c * sizeof(float));
    }
  } else if (g.lxs == 1) {
    if (yy + 1 < g.ih) {
      // The next row of every channel: too many streams for the hardware
      // prefetcher.
      for (int64_t c = 0; c < g.c; ++c) {
        const char* next = reinterpret_cast<const char*>(
            src + g.lys + c * g.lcs + (x_lo - g.pw));
        for (int64_t i = 0; i < (x_hi - x_lo) * 4; i += 64) {
          _mm_prefetch(next + i, _MM_HINT_T0);
        }
      }
    }
    for (int64_t x0 = x_lo; x0 < x_hi; x0 += 16) {
      const int nx = static_cast<int>(std::min<int64_t>(16, x_hi - x0));
      for (int64_t c0 = 0; c0 < g.c; c0 += 16) {
        const int nc = static_cast<int>(std::min<int64_t>(16, g.c - c0));
        TransposeBlock(src + c0 * g.lcs + (x0 - g.pw), g.lcs, nc, nx,
                       dst + x0 * cs + c0, cs);
      }
    }
  } else {
    for (int64_t c = 0; c < g.c; ++c) {
      const float* s = src + c * g.lcs + (x_lo - g.pw) * g.lxs;
      float* t = dst + x_lo * cs + c;
      for (int64_t xx = 0; xx < x_hi - x_lo; ++xx) {
        t[xx * cs] = s[xx * g.lxs];
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Fast path: f32, one group, no base dilation, 1 or 2 spatial dimensions, on
// AVX-512 (implicit im2col: no patch matrix). The weights are packed once per
// call as [feature block][ky][kx][c][64]. Work units are a few output rows
// of one image (~448 positions); threads take whole units (no barriers).
// A unit copies the padded input rows it reads into its thread's buffer
// [yp][xp][c] (any input layout; padding, cropping and zeros applied; small
// enough for L2), then walks its positions in chunks of kFastChunk: an
// AVX-512 micro-kernel broadcasts one input value per position (6
// positions) against up to 4 vectors of 16 output features, looping over
// kernel positions and blocks of input channels so the weight slice stays
// in L1; the chunk's accumulators go to a small buffer that is stored with
// the output's strides (16x16 register transposes for feature-major
// outputs such as NCHW).
// ---------------------------------------------------------------------------
namespace {

constexpr int kFastMr = kBlockRows;            // positions per micro-tile
constexpr int kFastFeatures = kBlockFeatures;  // output features per block
constexpr int64_t kFastChunk = 8 * kFastMr;    // positions per chunk
constexpr int64_t kFastCBlock = 64;  // input channels per weight slice

}  // namespace

absl::Status FastConv(const ConvDims& d, const float* lhs, const float* rhs,
                      float* out, ThreadPool* pool) {
  const FastGeom g = MakeFastGeom(d);
  const int64_t kpos = g.kh * g.kw;
  const int64_t fblocks = (g.o + kFastFeatures - 1) / kFastFeatures;
  const int64_t w_elems = fblocks * kpos * g.c * kFastFeatures;
  thread_local AlignedMemory tls_fast;
  const size_t bytes = w_elems * sizeof(float);
  if (absl::Status s = tls_fast.Reserve(bytes); !s.ok()) return s;
  float* w = tls_fast.as<float>();

  // Weights: w[fb][ky][kx][c][f] (zero for features past the end).
  for (int64_t fb = 0; fb < fblocks; ++fb) {
    const int64_t nf = std::min<int64_t>(kFastFeatures, g.o - fb * 64);
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      for (int64_t kx = 0; kx < g.kw; ++kx) {
        const float* src = rhs + (g.rh ? g.kh - 1 - ky : ky) * g.rys +
                           (g.rw ? g.kw - 1 - kx : kx) * g.rxs +
                           fb * kFastFeatures * g.ros;
        float* dst = w + ((fb * g.kh + ky) * g.kw + kx) * g.c * kFastFeatures;
        for (int64_t c = 0; c < g.c; ++c) {
          float* row = dst + c * kFastFeatures;
          const float* s = src + c * g.ris;
          for (int64_t f = 0; f < nf; ++f) row[f] = s[f * g.ros];
          for (int64_t f = nf; f < kFastFeatures; ++f) row[f] = 0.0f;
        }
      }
    }
  }

  // Work units: `unit_rows` output rows of one batch element. A unit first
  // copies the padded input rows it reads into its thread's buffer
  // in[yp][xp][c] (zero outside the input; stays in L2, and the copy of one
  // unit overlaps the other thread's compute), then computes.
  // ~448 positions per unit, with at most ~4 MiB of input rows.
  const int64_t pxs = g.c, pys = g.xp * g.c, pcs = 1;
  const int64_t unit_rows = std::clamp<int64_t>(
      std::min((448 + g.ow - 1) / g.ow, (int64_t{1} << 20) / pys / g.sh), 1,
      g.oh);
  const int64_t units_per_image = (g.oh + unit_rows - 1) / unit_rows;
  const int64_t units = g.n * units_per_image;
  const int64_t unit_in_rows = (unit_rows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  std::mutex mu;
  absl::Status status;
  auto run = [&](int64_t u0, int64_t u1) {
    thread_local AlignedMemory tls_in;
    const size_t in_bytes = unit_in_rows * pys * sizeof(float);
    if (absl::Status s = tls_in.Reserve(in_bytes); !s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      status.Update(s);
      return;
    }
    float* in = tls_in.as<float>();
    alignas(64) float acc[kFastChunk * kFastFeatures];
    const float* base[kFastChunk];
    int64_t out_off[kFastChunk];
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t b = u / units_per_image;
      const int64_t y0 = u % units_per_image * unit_rows;
      const int64_t ny = std::min(unit_rows, g.oh - y0);
      const int64_t in_rows = (ny - 1) * g.sh + (g.kh - 1) * g.dh + 1;
      for (int64_t r = 0; r < in_rows; ++r) {
        CopyPaddedRow(g, lhs, b, y0 * g.sh + r, g.xp, g.c, in + r * pys);
      }
      const int64_t positions = ny * g.ow;
      for (int64_t m0 = 0; m0 < positions; m0 += kFastChunk) {
        const int64_t len = std::min(kFastChunk, positions - m0);
        for (int64_t i = 0; i < len; ++i) {
          const int64_t y = (m0 + i) / g.ow, x = (m0 + i) % g.ow;
          base[i] = in + y * g.sh * pys + x * g.sw * pxs;
          out_off[i] = b * g.obs + (y0 + y) * g.oys + x * g.oxs;
        }
        const int64_t tiles = (len + kFastMr - 1) / kFastMr;
        for (int64_t fb = 0; fb < fblocks; ++fb) {
          const int64_t nf = std::min<int64_t>(kFastFeatures, g.o - fb * 64);
          const BlockKernelFn kernel = BlockKernelFor(nf);
          bool first = true;
          for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx) {
              const int64_t off = ky * g.dh * pys + kx * g.dw * pxs;
              const float* wk =
                  w + ((fb * g.kh + ky) * g.kw + kx) * g.c * kFastFeatures;
              for (int64_t c0 = 0; c0 < g.c; c0 += kFastCBlock) {
                const int64_t cn = std::min(kFastCBlock, g.c - c0);
                for (int64_t t = 0; t < tiles; ++t) {
                  const float* ptr[kFastMr];
                  for (int i = 0; i < kFastMr; ++i) {
                    const int64_t pi = std::min(t * kFastMr + i, len - 1);
                    ptr[i] = base[pi] + off + c0 * pcs;
                  }
                  kernel(ptr, cn, pcs, wk + c0 * kFastFeatures,
                         acc + t * kFastMr * kFastFeatures, kFastFeatures,
                         first);
                }
                first = false;
              }
            }
          }
          float* o = out + fb * kFastFeatures * g.ofs;
          if (g.ofs == 1) {
            for (int64_t i = 0; i < len; ++i) {
              std::memcpy(o + out_off[i], acc + i * kFastFeatures,
                          nf * sizeof(float));
            }
          } else if (g.oxs == 1) {
            // Runs of up to 16 positions adjacent in the output.
            for (int64_t i = 0; i < len;) {
              int n = 1;
              while (n < 16 && i + n < len &&
                     out_off[i + n] == out_off[i] + n) {
                ++n;
              }
              for (int64_t f0 = 0; f0 < nf; f0 += 16) {
                TransposeBlock(acc + i * kFastFeatures + f0, kFastFeatures, n,
                               static_cast<int>(std::min<int64_t>(16, nf - f0)),
                               o + f0 * g.ofs + out_off[i], g.ofs);
              }
              i += n;
            }
          } else {
            for (int64_t f = 0; f < nf; ++f) {
              float* of = o + f * g.ofs;
              for (int64_t i = 0; i < len; ++i) {
                of[out_off[i]] = acc[i * kFastFeatures + f];
              }
            }
          }
        }
      }
      if (d.on_rows_done && d.num_spatial >= 2) d.on_rows_done(b, y0, y0 + ny);
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(units, 1, run);
  } else {
    run(0, units);
  }
  if (status.ok() && d.on_rows_done && d.num_spatial < 2) {
    for (int64_t b = 0; b < g.n; ++b) d.on_rows_done(b, 0, 1);
  }
  return status;
}

}  // namespace plexa::cpu::conv_internal
