// Packed GEMM in the GotoBLAS/BLIS structure:
//
//   for jc in N by NC:                      (per thread: its block of C)
//     for pc in K by KC:
//       pack B[pc:+KC, jc:+NC] into NR-wide column panels   (L3 / L2)
//       for ic in M by MC:
//         pack A[ic:+MC, pc:+KC] into MR-high row panels    (L2)
//         for jr in NC by NR:                 B micro-panel stays in L1
//           for ir in MC by MR:
//             micro-kernel: MR x NR tile of C += A panel * B panel
//
// Threads each take a rectangle of C (split on M and/or N at tile
// granularity) and run the whole loop nest on it with their own packing
// buffers: no barriers inside a multiplication, so nested and concurrent
// calls cannot deadlock, and each core's L2 holds its own A block.
// Matrix-vector products and tiny problems skip packing.
#include "plugins/cpu/runtime/gemm.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <type_traits>

#include "plugins/common/aligned_memory.h"

#define PLEXA_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,fma")))
#define PLEXA_TARGET_AVX2 __attribute__((target("avx2,fma")))

namespace plexa::cpu {

using ::plexa::backend::AlignedMemory;
namespace {

enum KernelFamily : int { kGeneric = 0, kAvx2 = 1, kAvx512 = 2 };
constexpr const char* kFamilyNames[] = {"generic", "avx2", "avx512"};

// ---------------------------------------------------------------------------
// Micro-kernels. Each computes the full MR x NR product of a packed A panel
// (a[p * MR + i]) and a packed B panel (b[p * NR + j]) over kc steps, then
// stores C(i, j) = (add ? C(i, j) : 0) + acc(i, j) for i < mr, j < nr
// (edge tiles store only the valid part; C is never read when !add).
// ---------------------------------------------------------------------------

template <typename T>
using MicroKernel = void (*)(int64_t kc, const T* a, const T* b, T* c,
                             int64_t ldc, bool add, int mr, int nr);

// Adds (or copies) a tile computed into a dense MR x NR buffer into C.
template <typename T, int MR, int NR>
inline void StoreTile(const T* tile, T* c, int64_t ldc, bool add, int mr,
                      int nr) {
  for (int i = 0; i < mr; ++i) {
    T* ci = c + i * ldc;
    const T* ti = tile + i * NR;
    if (add) {
      for (int j = 0; j < nr; ++j) ci[j] += ti[j];
    } else {
      for (int j = 0; j < nr; ++j) ci[j] = ti[j];
    }
  }
}

// --- AVX-512: 14 x 32 f32 (28 zmm accumulators), 14 x 16 f64. ---

PLEXA_TARGET_AVX512 void KernelAvx512F32(int64_t kc, const float* a,
                                         const float* b, float* c, int64_t ldc,
                                         bool add, int mr, int nr) {
  constexpr int MR = 14;
  constexpr int NR = 32;
  __m512 acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_setzero_ps();
    acc[i][1] = _mm512_setzero_ps();
  }
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16), _MM_HINT_T0);
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * MR), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  if (mr == MR && nr == NR) {
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      float* ci = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_loadu_ps(ci));
        acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_loadu_ps(ci + 16));
      }
      _mm512_storeu_ps(ci, acc[i][0]);
      _mm512_storeu_ps(ci + 16, acc[i][1]);
    }
    return;
  }
  const __mmask16 m0 =
      nr >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nr) - 1u);
  const __mmask16 m1 = nr >= 32  ? __mmask16(0xFFFF)
                       : nr > 16 ? __mmask16((1u << (nr - 16)) - 1u)
                                 : __mmask16(0);
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    if (i < mr) {
      float* ci = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_maskz_loadu_ps(m0, ci));
        acc[i][1] =
            _mm512_add_ps(acc[i][1], _mm512_maskz_loadu_ps(m1, ci + 16));
      }
      _mm512_mask_storeu_ps(ci, m0, acc[i][0]);
      _mm512_mask_storeu_ps(ci + 16, m1, acc[i][1]);
    }
  }
}

PLEXA_TARGET_AVX512 void KernelAvx512F64(int64_t kc, const double* a,
                                         const double* b, double* c,
                                         int64_t ldc, bool add, int mr,
                                         int nr) {
  constexpr int MR = 14;
  constexpr int NR = 16;
  __m512d acc[MR][2];
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm512_setzero_pd();
    acc[i][1] = _mm512_setzero_pd();
  }
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 8), _MM_HINT_T0);
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m512d b0 = _mm512_load_pd(b);
    const __m512d b1 = _mm512_load_pd(b + 8);
    _mm_prefetch(reinterpret_cast<const char*>(a + 8 * MR), _MM_HINT_T0);
#pragma GCC unroll 14
    for (int i = 0; i < MR; ++i) {
      const __m512d ai = _mm512_set1_pd(a[i]);
      acc[i][0] = _mm512_fmadd_pd(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_pd(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  const __mmask8 m0 = nr >= 8 ? __mmask8(0xFF) : __mmask8((1u << nr) - 1u);
  const __mmask8 m1 = nr >= 16 ? __mmask8(0xFF)
                      : nr > 8 ? __mmask8((1u << (nr - 8)) - 1u)
                               : __mmask8(0);
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
    if (i < mr) {
      double* ci = c + i * ldc;
      if (add) {
        acc[i][0] = _mm512_add_pd(acc[i][0], _mm512_maskz_loadu_pd(m0, ci));
        acc[i][1] = _mm512_add_pd(acc[i][1], _mm512_maskz_loadu_pd(m1, ci + 8));
      }
      _mm512_mask_storeu_pd(ci, m0, acc[i][0]);
      _mm512_mask_storeu_pd(ci + 8, m1, acc[i][1]);
    }
  }
}

// --- AVX2 + FMA: 6 x 16 f32, 6 x 8 f64 (12 ymm accumulators). ---

PLEXA_TARGET_AVX2 void KernelAvx2F32(int64_t kc, const float* a, const float* b,
                                     float* c, int64_t ldc, bool add, int mr,
                                     int nr) {
  constexpr int MR = 6;
  constexpr int NR = 16;
  __m256 acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_ps();
    acc[i][1] = _mm256_setzero_ps();
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  if (mr == MR && nr == NR) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      float* ci = c + i * ldc;
      if (add) {
        acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_loadu_ps(ci));
        acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_loadu_ps(ci + 8));
      }
      _mm256_storeu_ps(ci, acc[i][0]);
      _mm256_storeu_ps(ci + 8, acc[i][1]);
    }
    return;
  }
  alignas(64) float tile[MR * NR];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_store_ps(tile + i * NR, acc[i][0]);
    _mm256_store_ps(tile + i * NR + 8, acc[i][1]);
  }
  StoreTile<float, MR, NR>(tile, c, ldc, add, mr, nr);
}

PLEXA_TARGET_AVX2 void KernelAvx2F64(int64_t kc, const double* a,
                                     const double* b, double* c, int64_t ldc,
                                     bool add, int mr, int nr) {
  constexpr int MR = 6;
  constexpr int NR = 8;
  __m256d acc[MR][2];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    acc[i][0] = _mm256_setzero_pd();
    acc[i][1] = _mm256_setzero_pd();
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < kc; ++p) {
    const __m256d b0 = _mm256_load_pd(b);
    const __m256d b1 = _mm256_load_pd(b + 4);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256d ai = _mm256_broadcast_sd(a + i);
      acc[i][0] = _mm256_fmadd_pd(ai, b0, acc[i][0]);
      acc[i][1] = _mm256_fmadd_pd(ai, b1, acc[i][1]);
    }
    a += MR;
    b += NR;
  }
  if (mr == MR && nr == NR) {
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      double* ci = c + i * ldc;
      if (add) {
        acc[i][0] = _mm256_add_pd(acc[i][0], _mm256_loadu_pd(ci));
        acc[i][1] = _mm256_add_pd(acc[i][1], _mm256_loadu_pd(ci + 4));
      }
      _mm256_storeu_pd(ci, acc[i][0]);
      _mm256_storeu_pd(ci + 4, acc[i][1]);
    }
    return;
  }
  alignas(64) double tile[MR * NR];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_store_pd(tile + i * NR, acc[i][0]);
    _mm256_store_pd(tile + i * NR + 4, acc[i][1]);
  }
  StoreTile<double, MR, NR>(tile, c, ldc, add, mr, nr);
}

// --- Portable C++ (baseline x86-64 / any target). ---

template <typename T, int MR, int NR>
void KernelGeneric(int64_t kc, const T* a, const T* b, T* c, int64_t ldc,
                   bool add, int mr, int nr) {
  T acc[MR][NR] = {};
  for (int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i) {
      const T ai = a[i];
      for (int j = 0; j < NR; ++j) acc[i][j] += ai * b[j];
    }
    a += MR;
    b += NR;
  }
  StoreTile<T, MR, NR>(&acc[0][0], c, ldc, add, mr, nr);
}

// ---------------------------------------------------------------------------
// Packing. A block (mc x kc) -> ceil(mc/MR) panels, panel element (i, p) at
// p * MR + i; B block (kc x nc) -> ceil(nc/NR) panels, element (p, j) at
// p * NR + j. Edges are zero-padded so the kernels always run full tiles.
// ---------------------------------------------------------------------------

template <typename T, int MR>
void PackA(const T* a, int64_t rs, int64_t cs, int64_t mc, int64_t kc, T* out) {
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const int64_t mr = std::min<int64_t>(MR, mc - i0);
    const T* src = a + i0 * rs;
    if (mr == MR && rs == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        const T* s = src + p * cs;
        T* o = out + p * MR;
        for (int i = 0; i < MR; ++i) o[i] = s[i];
      }
    } else if (mr == MR && cs == 1) {
      // Row-major A: read 8 consecutive columns of each row, write them out
      // transposed (keeps every row a sequential stream).
      int64_t p = 0;
      for (; p + 8 <= kc; p += 8) {
        T* o = out + p * MR;
        for (int i = 0; i < MR; ++i) {
          const T* s = src + i * rs + p;
          for (int q = 0; q < 8; ++q) o[q * MR + i] = s[q];
        }
      }
      for (; p < kc; ++p) {
        T* o = out + p * MR;
        for (int i = 0; i < MR; ++i) o[i] = src[i * rs + p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        T* o = out + p * MR;
        for (int64_t i = 0; i < mr; ++i) o[i] = src[i * rs + p * cs];
        for (int64_t i = mr; i < MR; ++i) o[i] = T(0);
      }
    }
    out += MR * kc;
  }
}

template <typename T, int NR>
void PackB(const T* b, int64_t rs, int64_t cs, int64_t kc, int64_t nc, T* out) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR) {
    const int64_t nr = std::min<int64_t>(NR, nc - j0);
    const T* src = b + j0 * cs;
    if (nr == NR && cs == 1) {
      for (int64_t p = 0; p < kc; ++p) {
        std::memcpy(out + p * NR, src + p * rs, NR * sizeof(T));
      }
    } else if (nr == NR && rs == 1) {
      int64_t p = 0;
      for (; p + 8 <= kc; p += 8) {
        T* o = out + p * NR;
        for (int j = 0; j < NR; ++j) {
          const T* s = src + j * cs + p;
          for (int q = 0; q < 8; ++q) o[q * NR + j] = s[q];
        }
      }
      for (; p < kc; ++p) {
        T* o = out + p * NR;
        for (int j = 0; j < NR; ++j) o[j] = src[j * cs + p];
      }
    } else {
      for (int64_t p = 0; p < kc; ++p) {
        T* o = out + p * NR;
        for (int64_t j = 0; j < nr; ++j) o[j] = src[j * cs + p * rs];
        for (int64_t j = nr; j < NR; ++j) o[j] = T(0);
      }
    }
    out += NR * kc;
  }
}

// Row-major A (unit column stride) for the AVX-512 f32 kernel: 14 rows x 16
// columns are loaded as vectors, transposed in registers (16 x 16 with two
// zero rows) and stored as 16 packed columns of 14, instead of 14 scalar
// strided reads per column.
// GCC 12 reports the fully initialized r[] below as maybe-uninitialized
// inside the unpack intrinsics (a false positive with vector arrays).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
PLEXA_TARGET_AVX512 void PackAAvx512F32(const float* a, int64_t rs, int64_t cs,
                                        int64_t mc, int64_t kc, float* out) {
  constexpr int MR = 14;
  if (cs != 1) {
    PackA<float, MR>(a, rs, cs, mc, kc, out);
    return;
  }
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const float* src = a + i0 * rs;
    if (mc - i0 < MR) {
      PackA<float, MR>(src, rs, cs, mc - i0, kc, out);
      return;
    }
    int64_t p = 0;
    for (; p + 16 <= kc; p += 16) {
      __m512 r[16], t[16];
#pragma GCC unroll 14
      for (int i = 0; i < MR; ++i) r[i] = _mm512_loadu_ps(src + i * rs + p);
      r[14] = _mm512_setzero_ps();
      r[15] = _mm512_setzero_ps();
      // Pairs of rows interleaved, then pairs of pairs (64-bit), then
      // 128-bit lanes: afterwards r[q] holds column p + q.
#pragma GCC unroll 8
      for (int j = 0; j < 16; j += 2) {
        t[j] = _mm512_unpacklo_ps(r[j], r[j + 1]);
        t[j + 1] = _mm512_unpackhi_ps(r[j], r[j + 1]);
      }
#pragma GCC unroll 4
      for (int j = 0; j < 16; j += 4) {
        const __m512d t0 = _mm512_castps_pd(t[j]);
        const __m512d t1 = _mm512_castps_pd(t[j + 1]);
        const __m512d t2 = _mm512_castps_pd(t[j + 2]);
        const __m512d t3 = _mm512_castps_pd(t[j + 3]);
        r[j] = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
        r[j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
        r[j + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
        r[j + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
      }
#pragma GCC unroll 2
      for (int h = 0; h < 16; h += 8) {
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
          t[h + c] = _mm512_shuffle_f32x4(r[h + c], r[h + 4 + c], 0x88);
          t[h + 4 + c] = _mm512_shuffle_f32x4(r[h + c], r[h + 4 + c], 0xdd);
        }
      }
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) {
        r[c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0x88);
        r[8 + c] = _mm512_shuffle_f32x4(t[c], t[8 + c], 0xdd);
      }
#pragma GCC unroll 16
      for (int q = 0; q < 16; ++q) {
        _mm512_mask_storeu_ps(out + (p + q) * MR, __mmask16(0x3FFF), r[q]);
      }
    }
    for (; p < kc; ++p) {
      float* o = out + p * MR;
      for (int i = 0; i < MR; ++i) o[i] = src[i * rs + p];
    }
    out += MR * kc;
  }
}
#pragma GCC diagnostic pop

// Row-major A for the AVX2 f32 kernel: 6 rows x 8 columns transposed in
// registers (8 x 8 with two zero rows), stored as 8 packed columns of 6.
PLEXA_TARGET_AVX2 void PackAAvx2F32(const float* a, int64_t rs, int64_t cs,
                                    int64_t mc, int64_t kc, float* out) {
  constexpr int MR = 6;
  if (cs != 1) {
    PackA<float, MR>(a, rs, cs, mc, kc, out);
    return;
  }
  const __m256i mask = _mm256_setr_epi32(-1, -1, -1, -1, -1, -1, 0, 0);
  for (int64_t i0 = 0; i0 < mc; i0 += MR) {
    const float* src = a + i0 * rs;
    if (mc - i0 < MR) {
      PackA<float, MR>(src, rs, cs, mc - i0, kc, out);
      return;
    }
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
      const __m256 r0 = _mm256_loadu_ps(src + p);
      const __m256 r1 = _mm256_loadu_ps(src + rs + p);
      const __m256 r2 = _mm256_loadu_ps(src + 2 * rs + p);
      const __m256 r3 = _mm256_loadu_ps(src + 3 * rs + p);
      const __m256 r4 = _mm256_loadu_ps(src + 4 * rs + p);
      const __m256 r5 = _mm256_loadu_ps(src + 5 * rs + p);
      const __m256 zero = _mm256_setzero_ps();
      const __m256 t0 = _mm256_unpacklo_ps(r0, r1);
      const __m256 t1 = _mm256_unpackhi_ps(r0, r1);
      const __m256 t2 = _mm256_unpacklo_ps(r2, r3);
      const __m256 t3 = _mm256_unpackhi_ps(r2, r3);
      const __m256 t4 = _mm256_unpacklo_ps(r4, r5);
      const __m256 t5 = _mm256_unpackhi_ps(r4, r5);
      const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44);
      const __m256 s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
      const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44);
      const __m256 s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
      const __m256 s4 = _mm256_shuffle_ps(t4, zero, 0x44);
      const __m256 s5 = _mm256_shuffle_ps(t4, zero, 0xEE);
      const __m256 s6 = _mm256_shuffle_ps(t5, zero, 0x44);
      const __m256 s7 = _mm256_shuffle_ps(t5, zero, 0xEE);
      float* o = out + p * MR;
      _mm256_maskstore_ps(o, mask, _mm256_permute2f128_ps(s0, s4, 0x20));
      _mm256_maskstore_ps(o + MR, mask, _mm256_permute2f128_ps(s1, s5, 0x20));
      _mm256_maskstore_ps(o + 2 * MR, mask,
                          _mm256_permute2f128_ps(s2, s6, 0x20));
      _mm256_maskstore_ps(o + 3 * MR, mask,
                          _mm256_permute2f128_ps(s3, s7, 0x20));
      _mm256_maskstore_ps(o + 4 * MR, mask,
                          _mm256_permute2f128_ps(s0, s4, 0x31));
      _mm256_maskstore_ps(o + 5 * MR, mask,
                          _mm256_permute2f128_ps(s1, s5, 0x31));
      _mm256_maskstore_ps(o + 6 * MR, mask,
                          _mm256_permute2f128_ps(s2, s6, 0x31));
      _mm256_maskstore_ps(o + 7 * MR, mask,
                          _mm256_permute2f128_ps(s3, s7, 0x31));
    }
    for (; p < kc; ++p) {
      float* o = out + p * MR;
      for (int i = 0; i < MR; ++i) o[i] = src[i * rs + p];
    }
    out += MR * kc;
  }
}

// ---------------------------------------------------------------------------
// Kernel families and blocking.
// ---------------------------------------------------------------------------

template <typename T>
struct KernelImpl {
  int mr, nr;
  MicroKernel<T> kernel;
  void (*pack_a)(const T*, int64_t, int64_t, int64_t, int64_t, T*);
  void (*pack_b)(const T*, int64_t, int64_t, int64_t, int64_t, T*);
  int64_t mc, kc, nc;  // tuned defaults (multiples of mr / nr)
};

template <typename T>
using PackFn = void (*)(const T*, int64_t, int64_t, int64_t, int64_t, T*);

template <typename T, int MR, int NR>
constexpr KernelImpl<T> MakeImpl(MicroKernel<T> kernel, int64_t mc, int64_t kc,
                                 int64_t nc, PackFn<T> pack_a = nullptr) {
  return {MR, NR, kernel, pack_a ? pack_a : &PackA<T, MR>, &PackB<T, NR>,
          mc, kc, nc};
}

// Tuned on the development machine (L1d 48 KiB, L2 2 MiB per core, 2 FMA
// units): the MC x KC block of A (f32: 336 x 512, 672 KiB) stays in L2, a
// KC x NR micro-panel of B streams from L2 / L1 and is reused MC / MR times;
// long KC amortizes loading and storing the C tile.
const KernelImpl<float> kImplF32[] = {
    MakeImpl<float, 4, 8>(&KernelGeneric<float, 4, 8>, 128, 256, 2048),
    MakeImpl<float, 6, 16>(&KernelAvx2F32, 336, 512, 4096, &PackAAvx2F32),
    MakeImpl<float, 14, 32>(&KernelAvx512F32, 336, 512, 4096, &PackAAvx512F32),
};
const KernelImpl<double> kImplF64[] = {
    MakeImpl<double, 4, 4>(&KernelGeneric<double, 4, 4>, 128, 256, 2048),
    MakeImpl<double, 6, 8>(&KernelAvx2F64, 168, 512, 4096),
    MakeImpl<double, 14, 16>(&KernelAvx512F64, 168, 512, 4096),
};

int DetectBestFamily() {
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  if (fma && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512vl")) {
    return kAvx512;
  }
  if (fma && __builtin_cpu_supports("avx2")) return kAvx2;
  return kGeneric;
}

bool FamilySupported(int family) {
  if (family == kGeneric) return true;
  __builtin_cpu_init();
  const bool avx2 =
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  if (family == kAvx2) return avx2;
  return DetectBestFamily() == kAvx512;
}

std::atomic<int> g_forced_family{-1};
std::atomic<int64_t> g_blocking[2][3] = {};  // [f32, f64][mc, kc, nc]

int ActiveFamily() {
  static const int best = DetectBestFamily();
  const int forced = g_forced_family.load(std::memory_order_relaxed);
  return forced >= 0 ? forced : best;
}

template <typename T>
KernelImpl<T> ActiveImpl() {
  constexpr int t = std::is_same_v<T, float> ? 0 : 1;
  KernelImpl<T> impl;
  if constexpr (std::is_same_v<T, float>) {
    impl = kImplF32[ActiveFamily()];
  } else {
    impl = kImplF64[ActiveFamily()];
  }
  auto round = [](int64_t v, int64_t unit) {
    return std::max(unit, (v + unit - 1) / unit * unit);
  };
  const int64_t mc = g_blocking[t][0].load(std::memory_order_relaxed);
  const int64_t kc = g_blocking[t][1].load(std::memory_order_relaxed);
  const int64_t nc = g_blocking[t][2].load(std::memory_order_relaxed);
  if (mc > 0) impl.mc = round(mc, impl.mr);
  if (kc > 0) impl.kc = kc;
  if (nc > 0) impl.nc = round(nc, impl.nr);
  return impl;
}

// ---------------------------------------------------------------------------
// Drivers.
// ---------------------------------------------------------------------------

// Problems below this many multiply-adds use the direct loop.
constexpr double kSmallWork = 32 * 32 * 32;
// Problems below this many multiply-adds run on one thread.
constexpr double kParallelWork = 1 << 21;
// Matrix-vector products with fewer matrix elements run on one thread.
constexpr int64_t kParallelMatVec = int64_t{1} << 16;

int ThreadsFor(ThreadPool* pool) {
  if (pool == nullptr || ThreadPool::InParallelRegion()) return 1;
  return pool->num_threads();
}

// Direct triple loop for tiny problems (no packing).
template <typename T>
void SmallGemm(const GemmArgs<T>& g) {
  for (int64_t i = 0; i < g.m; ++i) {
    T* ci = g.c + i * g.ldc;
    if (!g.accumulate) std::fill(ci, ci + g.n, T(0));
    for (int64_t p = 0; p < g.k; ++p) {
      const T aip = g.a[i * g.a_row_stride + p * g.a_col_stride];
      const T* bp = g.b + p * g.b_row_stride;
      if (g.b_col_stride == 1) {
        for (int64_t j = 0; j < g.n; ++j) ci[j] += aip * bp[j];
      } else {
        for (int64_t j = 0; j < g.n; ++j) ci[j] += aip * bp[j * g.b_col_stride];
      }
    }
  }
}

template <typename T>
T Dot(const T* x, int64_t xs, const T* y, int64_t ys, int64_t k) {
  T acc[8] = {};
  int64_t p = 0;
  if (xs == 1 && ys == 1) {
    for (; p + 8 <= k; p += 8) {
      for (int u = 0; u < 8; ++u) acc[u] += x[p + u] * y[p + u];
    }
  } else {
    for (; p + 4 <= k; p += 4) {
      for (int u = 0; u < 4; ++u) acc[u] += x[(p + u) * xs] * y[(p + u) * ys];
    }
  }
  T sum = T(0);
  for (; p < k; ++p) sum += x[p * xs] * y[p * ys];
  for (int u = 0; u < 8; ++u) sum += acc[u];
  return sum;
}

// y[i * ys] (+)= sum_p M(i, p) * x[p * xs] for i in [i0, i1), M(i, p) =
// m[i * rs + p * cs]: dot products when rows are contiguous, otherwise
// column sweeps (axpy) over a block of outputs kept in L1.
template <typename T>
void MatVecRange(const T* m, int64_t rs, int64_t cs, const T* x, int64_t xs,
                 int64_t k, T* y, int64_t ys, bool add, int64_t i0,
                 int64_t i1) {
  if (cs == 1 || rs != 1) {
    for (int64_t i = i0; i < i1; ++i) {
      const T v = Dot(m + i * rs, cs, x, xs, k);
      y[i * ys] = add ? y[i * ys] + v : v;
    }
    return;
  }
  constexpr int64_t kBlock = 1024;
  T acc[kBlock];
  for (int64_t b0 = i0; b0 < i1; b0 += kBlock) {
    const int64_t len = std::min(kBlock, i1 - b0);
    std::fill(acc, acc + len, T(0));
    for (int64_t p = 0; p < k; ++p) {
      const T xp = x[p * xs];
      const T* col = m + b0 + p * cs;
      for (int64_t i = 0; i < len; ++i) acc[i] += col[i] * xp;
    }
    for (int64_t i = 0; i < len; ++i) {
      T* yi = y + (b0 + i) * ys;
      *yi = add ? *yi + acc[i] : acc[i];
    }
  }
}

template <typename T>
void MatVec(const T* m, int64_t rs, int64_t cs, const T* x, int64_t xs,
            int64_t k, T* y, int64_t ys, bool add, int64_t rows,
            ThreadPool* pool) {
  if (ThreadsFor(pool) > 1 && rows * k >= kParallelMatVec) {
    const int64_t min_rows = std::max<int64_t>(16, kParallelMatVec / 4 / k);
    pool->ParallelFor(rows, min_rows, [&](int64_t i0, int64_t i1) {
      MatVecRange(m, rs, cs, x, xs, k, y, ys, add, i0, i1);
    });
  } else {
    MatVecRange(m, rs, cs, x, xs, k, y, ys, add, 0, rows);
  }
}

// A row vector times B: c[j] (+)= sum_p a[p * as] * B(p, j). Row sweeps over
// contiguous rows of B (axpy into C), else one dot product per column.
template <typename T>
void VecMatRange(const T* a, int64_t as, const T* b, int64_t rs, int64_t cs,
                 int64_t k, T* c, bool add, int64_t j0, int64_t j1) {
  if (cs != 1 && rs == 1) {
    for (int64_t j = j0; j < j1; ++j) {
      const T v = Dot(a, as, b + j * cs, rs, k);
      c[j] = add ? c[j] + v : v;
    }
    return;
  }
  constexpr int64_t kBlock = 2048;
  for (int64_t b0 = j0; b0 < j1; b0 += kBlock) {
    const int64_t len = std::min(kBlock, j1 - b0);
    T* cb = c + b0;
    if (!add) std::fill(cb, cb + len, T(0));
    for (int64_t p = 0; p < k; ++p) {
      const T ap = a[p * as];
      const T* row = b + p * rs + b0 * cs;
      if (cs == 1) {
        for (int64_t j = 0; j < len; ++j) cb[j] += ap * row[j];
      } else {
        for (int64_t j = 0; j < len; ++j) cb[j] += ap * row[j * cs];
      }
    }
  }
}

template <typename T>
void VecMat(const GemmArgs<T>& g, ThreadPool* pool) {
  if (ThreadsFor(pool) > 1 && g.n * g.k >= kParallelMatVec) {
    const int64_t min_cols = std::max<int64_t>(64, kParallelMatVec / 4 / g.k);
    pool->ParallelFor(g.n, min_cols, [&](int64_t j0, int64_t j1) {
      VecMatRange(g.a, g.a_col_stride, g.b, g.b_row_stride, g.b_col_stride, g.k,
                  g.c, g.accumulate, j0, j1);
    });
  } else {
    VecMatRange(g.a, g.a_col_stride, g.b, g.b_row_stride, g.b_col_stride, g.k,
                g.c, g.accumulate, 0, g.n);
  }
}

// Grow-only per-thread packing buffers (a thread runs one region at a time).
// nullptr if the allocation fails (the caller reports it).
template <typename T>
T* ThreadBuffer(AlignedMemory& mem, int64_t elements) {
  const size_t bytes = static_cast<size_t>(elements) * sizeof(T);
  if (!mem.Reserve(bytes).ok()) return nullptr;
  return mem.as<T>();
}

// The first failure of a GEMM's regions (they run on several threads).
class GemmFailure {
 public:
  void Set(absl::Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = std::move(status);
  }
  absl::Status Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  std::mutex mu_;
  absl::Status status_;
};

thread_local AlignedMemory tls_pack_a;
thread_local AlignedMemory tls_pack_b;

// The packed loop nest on C[i0:i1, j0:j1].
template <typename T>
absl::Status PackedRegion(const KernelImpl<T>& impl, const GemmArgs<T>& g,
                          int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  const int64_t m = i1 - i0;
  const int64_t n = j1 - j0;
  if (m <= 0 || n <= 0) return absl::OkStatus();
  const int64_t mr = impl.mr, nr = impl.nr;
  const int64_t kc_max = std::min(impl.kc, g.k);
  const int64_t mc_max = std::min(impl.mc, (m + mr - 1) / mr * mr);
  const int64_t nc_max = std::min(impl.nc, (n + nr - 1) / nr * nr);
  T* abuf = ThreadBuffer<T>(tls_pack_a, mc_max * kc_max);
  T* bbuf = ThreadBuffer<T>(tls_pack_b, nc_max * kc_max);
  if (abuf == nullptr || bbuf == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "GEMM: cannot allocate the packing buffers (",
        (mc_max + nc_max) * kc_max * static_cast<int64_t>(sizeof(T)),
        " bytes)"));
  }
  for (int64_t jc = 0; jc < n; jc += impl.nc) {
    const int64_t nc = std::min(impl.nc, n - jc);
    for (int64_t pc = 0; pc < g.k; pc += impl.kc) {
      const int64_t kc = std::min(impl.kc, g.k - pc);
      const bool add = g.accumulate || pc > 0;
      impl.pack_b(g.b + pc * g.b_row_stride + (j0 + jc) * g.b_col_stride,
                  g.b_row_stride, g.b_col_stride, kc, nc, bbuf);
      for (int64_t ic = 0; ic < m; ic += impl.mc) {
        const int64_t mc = std::min(impl.mc, m - ic);
        impl.pack_a(g.a + (i0 + ic) * g.a_row_stride + pc * g.a_col_stride,
                    g.a_row_stride, g.a_col_stride, mc, kc, abuf);
        T* c_block = g.c + (i0 + ic) * g.ldc + (j0 + jc);
        for (int64_t jr = 0; jr < nc; jr += nr) {
          const int nr_eff = static_cast<int>(std::min(nr, nc - jr));
          const T* bp = bbuf + jr * kc;
          for (int64_t ir = 0; ir < mc; ir += mr) {
            const int mr_eff = static_cast<int>(std::min(mr, mc - ir));
            impl.kernel(kc, abuf + ir * kc, bp, c_block + ir * g.ldc + jr,
                        g.ldc, add, mr_eff, nr_eff);
          }
        }
      }
    }
  }
  return absl::OkStatus();
}

// Splits C into tm x tn rectangles (tm * tn == threads) at tile granularity,
// minimizing the largest rectangle's work including the operand panels each
// thread packs for itself.
void ChooseGrid(int64_t m, int64_t n, int64_t mr, int64_t nr, int threads,
                int* tm, int* tn) {
  const int64_t mt = (m + mr - 1) / mr;
  const int64_t nt = (n + nr - 1) / nr;
  double best = -1;
  for (int a = 1; a <= threads; ++a) {
    if (threads % a != 0) continue;
    const int b = threads / a;
    if (a > mt || b > nt) continue;
    const double rows = static_cast<double>((mt + a - 1) / a * mr);
    const double cols = static_cast<double>((nt + b - 1) / b * nr);
    // Compute ~ rows*cols, packing ~ (rows + cols) * a few cycles per
    // element relative to a multiply-add at full vector width.
    const double cost = rows * cols + 16.0 * (rows + cols);
    if (best < 0 || cost < best) {
      best = cost;
      *tm = a;
      *tn = b;
    }
  }
  if (best < 0) {
    *tm = 1;
    *tn = 1;
  }
}

template <typename T>
absl::Status GemmOne(const GemmArgs<T>& g, ThreadPool* pool) {
  if (g.m <= 0 || g.n <= 0) return absl::OkStatus();
  if (g.k <= 0) {
    if (!g.accumulate) {
      for (int64_t i = 0; i < g.m; ++i) {
        std::fill(g.c + i * g.ldc, g.c + i * g.ldc + g.n, T(0));
      }
    }
    return absl::OkStatus();
  }
  if (g.n == 1) {
    // Column result: c[i * ldc] = A(i, :) . B(:, 0).
    MatVec(g.a, g.a_row_stride, g.a_col_stride, g.b, g.b_row_stride, g.k, g.c,
           g.ldc, g.accumulate, g.m, pool);
    return absl::OkStatus();
  }
  if (g.m == 1) {
    VecMat(g, pool);
    return absl::OkStatus();
  }
  // Work estimates in double: m * n * k may not fit in int64_t.
  const double work = static_cast<double>(g.m) * g.n * g.k;
  if (work < kSmallWork) {
    SmallGemm(g);
    return absl::OkStatus();
  }
  const KernelImpl<T> impl = ActiveImpl<T>();
  const int threads = work >= kParallelWork ? ThreadsFor(pool) : 1;
  int tm = 1, tn = 1;
  if (threads > 1) ChooseGrid(g.m, g.n, impl.mr, impl.nr, threads, &tm, &tn);
  if (tm * tn == 1) return PackedRegion(impl, g, 0, g.m, 0, g.n);
  const int64_t mt = (g.m + impl.mr - 1) / impl.mr;
  const int64_t nt = (g.n + impl.nr - 1) / impl.nr;
  GemmFailure failure;
  pool->ParallelFor(tm * tn, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t ti = t / tn, tj = t % tn;
      const int64_t i0 = std::min(g.m, mt * ti / tm * impl.mr);
      const int64_t i1 = std::min(g.m, mt * (ti + 1) / tm * impl.mr);
      const int64_t j0 = std::min(g.n, nt * tj / tn * impl.nr);
      const int64_t j1 = std::min(g.n, nt * (tj + 1) / tn * impl.nr);
      if (absl::Status s = PackedRegion(impl, g, i0, i1, j0, j1); !s.ok()) {
        failure.Set(std::move(s));
      }
    }
  });
  return failure.Get();
}

template <typename T>
absl::Status GemmImpl(const GemmArgs<T>& args, ThreadPool* pool) {
  if (args.batch_count <= 0 || args.m <= 0 || args.n <= 0 || args.k < 0) {
    return absl::OkStatus();
  }
  auto batch = [&args](int64_t i) {
    GemmArgs<T> g = args;
    g.batch_count = 1;
    g.a += i * args.a_batch_stride;
    g.b += i * args.b_batch_stride;
    g.c += i * args.c_batch_stride;
    return g;
  };
  const double work = static_cast<double>(args.m) * args.n * args.k;
  if (args.batch_count > 1 && work < kParallelWork && ThreadsFor(pool) > 1 &&
      work * static_cast<double>(args.batch_count) >= kParallelWork / 4) {
    // Many small products: one per task, each on one thread.
    GemmFailure failure;
    pool->ParallelFor(args.batch_count, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t i = b0; i < b1; ++i) {
        if (absl::Status s = GemmOne(batch(i), nullptr); !s.ok()) {
          failure.Set(std::move(s));
        }
      }
    });
    return failure.Get();
  }
  for (int64_t i = 0; i < args.batch_count; ++i) {
    if (absl::Status s = GemmOne(batch(i), pool); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Gemm(const GemmArgs<float>& args, ThreadPool* pool) {
  return GemmImpl(args, pool);
}
absl::Status Gemm(const GemmArgs<double>& args, ThreadPool* pool) {
  return GemmImpl(args, pool);
}

const char* GemmKernelName() { return kFamilyNames[ActiveFamily()]; }

namespace internal {

bool ForceGemmKernelForTesting(const char* name) {
  if (name == nullptr || name[0] == '\0') {
    g_forced_family.store(-1);
    return true;
  }
  for (int f = kGeneric; f <= kAvx512; ++f) {
    if (std::strcmp(name, kFamilyNames[f]) == 0) {
      if (!FamilySupported(f)) return false;
      g_forced_family.store(f);
      return true;
    }
  }
  return false;
}

void SetGemmBlockingForTesting(const GemmBlocking& f32,
                               const GemmBlocking& f64) {
  const GemmBlocking* b[2] = {&f32, &f64};
  for (int t = 0; t < 2; ++t) {
    g_blocking[t][0].store(b[t]->mc);
    g_blocking[t][1].store(b[t]->kc);
    g_blocking[t][2].store(b[t]->nc);
  }
}

}  // namespace internal
}  // namespace plexa::cpu
