// Winograd F(2x2, 3x3) convolution for f32 on AVX-512.
//
// The algorithm, in one dimension: two outputs of a 3-tap correlation,
//   y0 = d0 g0 + d1 g1 + d2 g2,   y1 = d1 g0 + d2 g1 + d3 g2,
// follow from four inputs d0..d3 with four multiplications instead of six:
//   m0 = (d0 - d2) * g0
//   m1 = (d1 + d2) * (g0 + g1 + g2) / 2
//   m2 = (d2 - d1) * (g0 - g1 + g2) / 2
//   m3 = (d1 - d3) * g2
//   y0 = m0 + m1 + m2,   y1 = m1 - m2 - m3.
// (Expanding m1 + m2 gives d1 g1 + d2 (g0 + g2), and m1 - m2 gives
// d1 (g0 + g2) + d2 g1; the m0 and m3 terms supply the rest.) As matrices,
// y = A^T [(G g) . (B^T d)] with "." the elementwise product and
//   B^T = | 1  0 -1  0 |     G = | 1    0    0   |     A^T = | 1 1  1  0 |
//         | 0  1  1  0 |         | 1/2  1/2  1/2 |           | 0 1 -1 -1 |
//         | 0 -1  1  0 |         | 1/2 -1/2  1/2 |
//         | 0  1  0 -1 |         | 0    0    1   |
// In two dimensions the same transforms run along rows and then columns:
// a 2x2 block of outputs comes from a 4x4 block of inputs d (the blocks
// overlap by 2) and the 3x3 filter g as
//   Y = A^T [ U . V ] A,   U = G g G^T (4x4),   V = B^T d B (4x4),
// 16 multiplications instead of 36. Because the transforms are linear, the
// sum over input features can be taken before the output transform:
//   Y[o] = A^T [ sum_c U[o][c] . V[c] ] A,
// and for each of the 16 elements e of a transformed block the sum over c
// is a matrix product over all blocks (tiles) t:
//   M_e[t][o] = sum_c V_e[t][c] * U_e[c][o].
// So the work is: transform the filters once per call (U, in double, then
// rounded), transform the input tiles (V, additions only), 16 matrix
// products (the multiplications, 16/36 of the direct ones), and transform
// the products back (A^T M A, additions only).
//
// Rounding: the input transform adds or subtracts two inputs per direction,
// U has entries up to (|g0| + |g1| + |g2|) / 2 per direction, and the
// output transform adds three terms per direction, so each output carries a
// relative error of a few ulps of its inputs' magnitude, a few times that of
// the direct sum: ~1e-6 relative for data of similar magnitude.
//
// Organisation (mirrors conv.cc's implicit im2col path): work units are a
// few tile rows (2 output rows each) of one image; threads take whole
// units. A unit copies the zero-padded input rows it reads into its
// thread's buffer [y][x][c] (channels padded to 16), then walks its tiles
// in chunks small enough for L2: input transform of the chunk into
// V[e][t][c], the 16 products into M[e][t][o] with a register-blocked
// AVX-512 kernel (6 tiles x 64 features, broadcasting V, weights U as
// [feature block][e][c][64]), and the output transform into the unit's
// output rows [y][x][o]. Finally the rows go to the output with its strides
// (16x16 transposes for NCHW) and on_rows_done is called for them.
#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/status/statusor.h"
#include "plugins/common/aligned_memory.h"
#include "plugins/cpu/runtime/conv_internal.h"

namespace plexa::cpu::conv_internal {

using ::plexa::backend::AlignedMemory;
namespace {

constexpr int kElems = 16;                 // elements of a transformed 4x4 tile
constexpr int kMr = kBlockRows;            // tiles per micro-tile
constexpr int kFeatures = kBlockFeatures;  // output features per block
constexpr int64_t kCBlock = 64;            // input channels per weight slice
constexpr int64_t kUnitTiles = 96;  // about this many tiles per work unit
// Transformed input of one chunk: at most ~this many bytes (L2), and at
// most this many tiles.
constexpr int64_t kChunkBytes = int64_t{256} << 10;
constexpr int64_t kMaxChunkTiles = 120;
// A unit's buffers may take at most this much (one tile row always runs),
// the transformed weights (16 / 9 of the implicit im2col path's) this much.
constexpr int64_t kMaxUnitBytes = int64_t{16} << 20;
constexpr int64_t kMaxWeightBytes = int64_t{64} << 20;
// Where Winograd pays (WinogradPays): at least this many tiles in all, and
// transformed weights up to this size.
constexpr int64_t kMinTiles = 128;
constexpr int64_t kMaxPaysWeightBytes = int64_t{4} << 20;

int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// Sizes of the tiling, derived from the problem and the thread count.
struct Plan {
  FastGeom g;
  int64_t th, tw;      // tile rows and columns: ceil(oh / 2), ceil(ow / 2)
  int64_t cp;          // input channels padded to a multiple of 16
  int64_t o16;         // output features padded to a multiple of 16
  int64_t fblocks;     // 64-feature blocks
  int64_t ldm;         // row stride of M: fblocks * 64
  int64_t xw;          // padded input columns read: 2 * tw + 2
  int64_t unit_trows;  // tile rows per work unit
  int64_t units_per_image;
  int64_t chunk;  // tiles per chunk, a multiple of kMr
  // Per-thread buffer, in floats: input rows, V, M, output rows.
  int64_t rows_elems, v_elems, m_elems, ob_elems;
};

// The buffers of a unit of `trows` tile rows.
void SizeBuffers(Plan& p, int64_t trows) {
  p.unit_trows = trows;
  p.units_per_image = (p.th + trows - 1) / trows;
  p.chunk =
      std::clamp<int64_t>(kChunkBytes / (kElems * p.cp * 4) / kMr * kMr, kMr,
                          RoundUp(std::min(trows * p.tw, kMaxChunkTiles), kMr));
  p.rows_elems = (2 * trows + 2) * p.xw * p.cp;
  p.v_elems = kElems * p.chunk * p.cp;
  p.m_elems = kElems * p.chunk * p.ldm;
  p.ob_elems = 2 * trows * 2 * p.tw * p.o16;
}

int64_t WeightBytes(const Plan& p) {
  return 4 * p.fblocks * kElems * p.g.c * kFeatures;
}

int64_t UnitBytes(const Plan& p) {
  return 4 * (p.rows_elems + p.v_elems + p.m_elems + p.ob_elems);
}

Plan MakePlan(const ConvDims& d, int threads) {
  Plan p;
  p.g = MakeFastGeom(d);
  const FastGeom& g = p.g;
  p.th = (g.oh + 1) / 2;
  p.tw = (g.ow + 1) / 2;
  p.cp = RoundUp(g.c, 16);
  p.o16 = RoundUp(g.o, 16);
  p.fblocks = (g.o + kFeatures - 1) / kFeatures;
  p.ldm = p.fblocks * kFeatures;
  p.xw = 2 * p.tw + 2;
  // About kUnitTiles tiles per unit, but enough units to keep every thread
  // busy (4 per thread), and about 1 MiB of output rows.
  int64_t trows = std::clamp<int64_t>((kUnitTiles + p.tw - 1) / p.tw, 1, p.th);
  const int64_t images_rows = g.n * p.th;
  trows = std::min(trows,
                   std::max<int64_t>(1, images_rows / (4 * int64_t{threads})));
  trows = std::min(trows, std::max<int64_t>(1, (int64_t{1} << 20) /
                                                   (4 * 2 * 2 * p.tw * p.o16)));
  SizeBuffers(p, trows);
  return p;
}

// Transformed weights: u[fb][e][c][f] = (G g G^T)[e] for output features
// o = fb * 64 + f < g.o and input features c in [c0, c1), with window
// reversal applied. Computed in double, then rounded once. The 16 elements
// of one (c, feature block) pair are 16 rows 16 KiB apart (for 64 input
// features): they are collected in a small buffer first, as stores that
// scatter over 16 such rows for every feature would keep evicting each
// other from L1.
void TransformWeights(const FastGeom& g, const float* rhs, int64_t c0,
                      int64_t c1, float* u) {
  // G applied to three values: the four rows of G times (a, b, c).
  auto apply_g = [](double a, double b, double c, double* out) {
    out[0] = a;
    out[1] = 0.5 * (a + b + c);
    out[2] = 0.5 * (a - b + c);
    out[3] = c;
  };
  const int64_t fblocks = (g.o + kFeatures - 1) / kFeatures;
  float block[kElems][kFeatures];
  for (int64_t c = c0; c < c1; ++c) {
    for (int64_t fb = 0; fb < fblocks; ++fb) {
      const int64_t nf = std::min<int64_t>(kFeatures, g.o - fb * kFeatures);
      for (int64_t f = 0; f < nf; ++f) {
        const float* src = rhs + (fb * kFeatures + f) * g.ros + c * g.ris;
        double w[3][3];
        for (int ky = 0; ky < 3; ++ky) {
          for (int kx = 0; kx < 3; ++kx) {
            w[ky][kx] = src[(g.rh ? 2 - ky : ky) * g.rys +
                            (g.rw ? 2 - kx : kx) * g.rxs];
          }
        }
        double gw[4][3];  // G g, column by column
        for (int j = 0; j < 3; ++j) {
          double col[4];
          apply_g(w[0][j], w[1][j], w[2][j], col);
          for (int i = 0; i < 4; ++i) gw[i][j] = col[i];
        }
        for (int i = 0; i < 4; ++i) {  // (G g) G^T, row by row
          double row[4];
          apply_g(gw[i][0], gw[i][1], gw[i][2], row);
          for (int j = 0; j < 4; ++j) {
            block[i * 4 + j][f] = static_cast<float>(row[j]);
          }
        }
      }
      for (int e = 0; e < kElems; ++e) {
        float* dst = u + ((fb * kElems + e) * g.c + c) * kFeatures;
        std::memcpy(dst, block[e], nf * sizeof(float));
        std::fill(dst + nf, dst + kFeatures, 0.0f);  // past the last feature
      }
    }
  }
}

// V for tiles [t0, t0 + n) of a unit: tile t (tile row t / tw, column
// t % tw) reads rows[2 * ty + i][2 * tx + j][c], i, j < 4, from the unit's
// padded input rows (row stride rs, channel-innermost, cp channels) and
// writes v[e][t - t0][c] (element stride es, tile stride cp), 16 channels
// per vector: V = B^T d B, first down the columns, then along the rows.
PLEXA_CONV_AVX512 void InputTransform(const float* rows, int64_t rs, int64_t cp,
                                      int64_t tw, int64_t t0, int64_t n,
                                      float* v, int64_t es) {
  for (int64_t t = 0; t < n; ++t) {
    const int64_t ty = (t0 + t) / tw, tx = (t0 + t) % tw;
    const float* base = rows + 2 * ty * rs + 2 * tx * cp;
    float* dst = v + t * cp;
    for (int64_t c = 0; c < cp; c += 16) {
      __m512 d[4][4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) {
          d[i][j] = _mm512_loadu_ps(base + i * rs + j * cp + c);
        }
      }
      __m512 b[4][4];  // B^T d
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        b[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
        b[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
        b[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
        b[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
      }
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {  // (B^T d) B
        float* row = dst + i * 4 * es + c;
        _mm512_storeu_ps(row, _mm512_sub_ps(b[i][0], b[i][2]));
        _mm512_storeu_ps(row + es, _mm512_add_ps(b[i][1], b[i][2]));
        _mm512_storeu_ps(row + 2 * es, _mm512_sub_ps(b[i][2], b[i][1]));
        _mm512_storeu_ps(row + 3 * es, _mm512_sub_ps(b[i][1], b[i][3]));
      }
    }
  }
}

// The 16 products for n tiles: m[e][t][o] = sum_c v[e][t][c] u[e][c][o].
// Per feature block, element and channel block, the weight slice (64 x 64)
// and the tiles' inputs stay in L1 while micro-tiles of 6 tiles sweep them.
void TileGemms(const Plan& p, const float* v, int64_t ves, const float* u,
               int64_t n, float* m, int64_t mes) {
  const int64_t c = p.g.c;
  for (int64_t fb = 0; fb < p.fblocks; ++fb) {
    const int64_t nf = std::min<int64_t>(kFeatures, p.g.o - fb * kFeatures);
    const BlockKernelFn kernel = BlockKernelFor(nf);
    for (int e = 0; e < kElems; ++e) {
      const float* ue = u + (fb * kElems + e) * c * kFeatures;
      const float* ve = v + e * ves;
      float* me = m + e * mes + fb * kFeatures;
      for (int64_t c0 = 0; c0 < c; c0 += kCBlock) {
        const int64_t cn = std::min(kCBlock, c - c0);
        for (int64_t t = 0; t < n; t += kMr) {
          const float* rows[kMr];
          for (int i = 0; i < kMr; ++i) {
            // Rows past the end repeat the last tile; their results land
            // in M's spare rows (the chunk is a multiple of kMr).
            rows[i] = ve + std::min(t + i, n - 1) * p.cp + c0;
          }
          kernel(rows, cn, /*cs=*/1, ue + c0 * kFeatures, me + t * p.ldm, p.ldm,
                 c0 == 0);
        }
      }
    }
  }
}

// Y = A^T M A for tiles [t0, t0 + n) of a unit, 16 features per vector,
// from m[e][t - t0][o] (element stride es, tile stride ldm) into the unit's
// output rows ob[y][x][o] (row stride rs, o16 features per position).
PLEXA_CONV_AVX512 void OutputTransform(const float* m, int64_t es, int64_t ldm,
                                       int64_t o16, int64_t tw, int64_t t0,
                                       int64_t n, float* ob, int64_t rs) {
  for (int64_t t = 0; t < n; ++t) {
    const int64_t ty = (t0 + t) / tw, tx = (t0 + t) % tw;
    const float* src = m + t * ldm;
    float* dst = ob + 2 * ty * rs + 2 * tx * o16;
    for (int64_t o = 0; o < o16; o += 16) {
      __m512 s[2][4];  // A^T M
#pragma GCC unroll 4
      for (int j = 0; j < 4; ++j) {
        const __m512 m0 = _mm512_loadu_ps(src + j * es + o);
        const __m512 m1 = _mm512_loadu_ps(src + (4 + j) * es + o);
        const __m512 m2 = _mm512_loadu_ps(src + (8 + j) * es + o);
        const __m512 m3 = _mm512_loadu_ps(src + (12 + j) * es + o);
        s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
        s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
      }
#pragma GCC unroll 2
      for (int i = 0; i < 2; ++i) {  // (A^T M) A
        float* row = dst + i * rs + o;
        _mm512_storeu_ps(
            row, _mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]), s[i][2]));
        _mm512_storeu_ps(
            row + o16, _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]), s[i][3]));
      }
    }
  }
}

// Output row y of batch element b from src[x][o] (o16 features per
// position) into out with its strides.
void StoreRow(const Plan& p, const float* src, int64_t b, int64_t y,
              float* out) {
  const FastGeom& g = p.g;
  float* dst = out + b * g.obs + y * g.oys;
  if (g.ofs == 1) {
    for (int64_t x = 0; x < g.ow; ++x) {
      std::memcpy(dst + x * g.oxs, src + x * p.o16, g.o * sizeof(float));
    }
  } else if (g.oxs == 1) {
    for (int64_t x0 = 0; x0 < g.ow; x0 += 16) {
      const int nx = static_cast<int>(std::min<int64_t>(16, g.ow - x0));
      for (int64_t f0 = 0; f0 < g.o; f0 += 16) {
        const int nf = static_cast<int>(std::min<int64_t>(16, g.o - f0));
        TransposeBlock(src + x0 * p.o16 + f0, p.o16, nx, nf,
                       dst + f0 * g.ofs + x0, g.ofs);
      }
    }
  } else {
    for (int64_t f = 0; f < g.o; ++f) {
      for (int64_t x = 0; x < g.ow; ++x) {
        dst[f * g.ofs + x * g.oxs] = src[x * p.o16 + f];
      }
    }
  }
}

}  // namespace

bool WinogradSupports(const ConvDims& d) {
  if (d.num_spatial != 2 || d.feature_group_count != 1 ||
      d.batch_group_count != 1 || d.batch < 1 || d.in_features < 1 ||
      d.out_features < 1) {
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (d.kernel_spatial[i] != 3 || d.window_strides[i] != 1 ||
        d.lhs_dilation[i] != 1 || d.rhs_dilation[i] != 1 ||
        d.padding_low[i] < 0 || d.padding_high[i] < 0 || d.out_spatial[i] < 1) {
      return false;
    }
  }
  Plan p = MakePlan(d, 1);
  SizeBuffers(p, 1);
  return UnitBytes(p) <= kMaxUnitBytes && WeightBytes(p) <= kMaxWeightBytes;
}

bool WinogradPays(const ConvDims& d) {
  // Measured on a 2-core AVX-512 Xeon against the implicit im2col path
  // (NCHW, 2 threads): 64 -> 64 features gain 1.5x at 8x56x56 but lose at
  // 1x16x16 (64 tiles: 0.8x) and win again at 2x16x16 (128 tiles: 1.1x);
  // 16 -> 16 features still gain ~1.2x on large images. The weight
  // transform and the thread hand-off are fixed costs that need enough
  // tiles, and large weight sets (512 -> 512: 16 MiB transformed) are
  // streamed from L3 once per chunk of a few tiles (0.8x at 8x7x7).
  if (d.in_features < 16 || d.out_features < 16) return false;
  const Plan p = MakePlan(d, 1);
  return p.g.n * p.th * p.tw >= kMinTiles &&
         WeightBytes(p) <= kMaxPaysWeightBytes;
}

absl::Status WinogradConv(const ConvDims& d, const float* lhs, const float* rhs,
                          float* out, ThreadPool* pool) {
  const int threads = pool != nullptr && !ThreadPool::InParallelRegion()
                          ? pool->num_threads()
                          : 1;
  const Plan p = MakePlan(d, threads);
  const FastGeom& g = p.g;

  thread_local AlignedMemory tls_weights;
  const size_t u_bytes = WeightBytes(p);
  if (absl::Status s = tls_weights.Reserve(u_bytes); !s.ok()) return s;
  float* u = tls_weights.as<float>();
  auto transform = [&](int64_t c0, int64_t c1) {
    TransformWeights(g, rhs, c0, c1, u);
  };
  if (pool != nullptr) {
    pool->ParallelFor(g.c, 4, transform);
  } else {
    transform(0, g.c);
  }

  const int64_t units = g.n * p.units_per_image;
  const int64_t rows_rs = p.xw * p.cp;     // input row stride
  const int64_t ob_rs = 2 * p.tw * p.o16;  // output row stride
  const int64_t ves = p.chunk * p.cp;      // V element stride
  const int64_t mes = p.chunk * p.ldm;     // M element stride
  std::mutex mu;
  absl::Status status;
  auto run = [&](int64_t u0, int64_t u1) {
    thread_local AlignedMemory tls_buf;
    const size_t bytes = UnitBytes(p);
    if (absl::Status s = tls_buf.Reserve(bytes); !s.ok()) {
      std::lock_guard<std::mutex> lock(mu);
      status.Update(s);
      return;
    }
    float* rows = tls_buf.as<float>();
    float* v = rows + p.rows_elems;
    float* m = v + p.v_elems;
    float* ob = m + p.m_elems;
    for (int64_t unit = u0; unit < u1; ++unit) {
      const int64_t b = unit / p.units_per_image;
      const int64_t tr0 = unit % p.units_per_image * p.unit_trows;
      const int64_t ntr = std::min(p.unit_trows, p.th - tr0);
      // Padded input rows 2 * tr0 .. 2 * (tr0 + ntr) + 1; columns and rows
      // past the padded input (odd output sizes) read as zeros and only
      // feed outputs that are not stored.
      for (int64_t r = 0; r < 2 * ntr + 2; ++r) {
        CopyPaddedRow(g, lhs, b, 2 * tr0 + r, p.xw, p.cp, rows + r * rows_rs);
      }
      const int64_t tiles = ntr * p.tw;
      for (int64_t t0 = 0; t0 < tiles; t0 += p.chunk) {
        const int64_t n = std::min(p.chunk, tiles - t0);
        InputTransform(rows, rows_rs, p.cp, p.tw, t0, n, v, ves);
        TileGemms(p, v, ves, u, n, m, mes);
        OutputTransform(m, mes, p.ldm, p.o16, p.tw, t0, n, ob, ob_rs);
      }
      const int64_t y0 = 2 * tr0, y1 = std::min(g.oh, 2 * (tr0 + ntr));
      for (int64_t y = y0; y < y1; ++y) {
        StoreRow(p, ob + (y - y0) * ob_rs, b, y, out);
      }
      if (d.on_rows_done) d.on_rows_done(b, y0, y1);
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(units, 1, run);
  } else {
    run(0, units);
  }
  return status;
}

}  // namespace plexa::cpu::conv_internal
