#include "plugins/cpu/runtime/conv.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "plugins/common/aligned_memory.h"
#include "plugins/cpu/runtime/conv_internal.h"
#include "plugins/cpu/runtime/gemm.h"

namespace plexa::cpu {

using ::plexa::backend::AlignedMemory;
namespace {

// Patch and output scratch per tile of output positions: the usual budget
// and the most any tile takes.
constexpr int64_t kTileBytes = int64_t{1} << 20;
constexpr int64_t kMaxScratchBytes = int64_t{64} << 20;

absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("Conv: ", what));
}

std::string Dims(absl::Span<const int64_t> v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// The stride that walks dims (listed outer to inner) as one row-major
// sequence, or -1 if there is none. Size-1 dims are ignored.
int64_t CollapsedStride(absl::Span<const int64_t> sizes,
                        absl::Span<const int64_t> strides) {
  int64_t stride = -1, span = 0;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (stride < 0) {
      stride = strides[i];
      span = strides[i] * sizes[i];
    } else {
      if (strides[i] != span) return -1;
      span *= sizes[i];
    }
  }
  return stride < 0 ? 1 : stride;
}

int64_t Product(absl::Span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// ceil(a / b) and floor(a / b) for b > 0 and any sign of a.
int64_t CeilDiv(int64_t a, int64_t b) {
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}
int64_t FloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Everything derived from ConvDims once it is validated.
struct Plan {
  int ns = 0;
  int64_t groups = 1;
  bool feature_groups = true;  // groups split features (else the batch)
  int64_t cin_g = 0, cout_g = 0, bout = 0;
  int64_t kcount = 1, kdim = 0, npix = 1, positions = 0;
  bool one_by_one = false;     // multiply the input in place
  bool channels_inner = true;  // patch rows (position) x (kernel pos, c)
  int64_t in_pos_stride = -1;  // 1x1: input position stride
  bool in_batch_collapsed = false;
  int64_t out_pos_stride = -1;  // output position stride, -1: scatter
  bool out_batch_collapsed = false;
  bool out_direct = false;
};

absl::StatusOr<Plan> Validate(const ConvDims& d, const void* lhs,
                              const void* rhs, const void* out) {
  Plan p;
  if (d.num_spatial < 0) {
    return Invalid(
        absl::StrCat("num_spatial must be >= 0, got ", d.num_spatial));
  }
  const size_t ns = static_cast<size_t>(d.num_spatial);
  p.ns = d.num_spatial;
  struct NamedVector {
    const char* name;
    const std::vector<int64_t>* v;
  };
  const NamedVector vectors[] = {
      {"in_spatial", &d.in_spatial},
      {"kernel_spatial", &d.kernel_spatial},
      {"out_spatial", &d.out_spatial},
      {"lhs_spatial_strides", &d.lhs_spatial_strides},
      {"rhs_spatial_strides", &d.rhs_spatial_strides},
      {"out_spatial_strides", &d.out_spatial_strides},
      {"window_strides", &d.window_strides},
      {"padding_low", &d.padding_low},
      {"padding_high", &d.padding_high},
      {"lhs_dilation", &d.lhs_dilation},
      {"rhs_dilation", &d.rhs_dilation}};
  for (const NamedVector& nv : vectors) {
    if (nv.v->size() != ns) {
      return Invalid(absl::StrCat(nv.name, " has ", nv.v->size(),
                                  " entries, expected num_spatial = ", ns));
    }
  }
  if (!d.window_reversal.empty() && d.window_reversal.size() != ns) {
    return Invalid(absl::StrCat("window_reversal has ",
                                d.window_reversal.size(),
                                " entries, expected 0 or ", ns));
  }
  if (d.batch < 0 || d.in_features < 0 || d.out_features < 0) {
    return Invalid(absl::StrCat("negative size: batch=", d.batch,
                                " in_features=", d.in_features,
                                " out_features=", d.out_features));
  }
  for (size_t i = 0; i < ns; ++i) {
    if (d.in_spatial[i] < 0 || d.kernel_spatial[i] < 0 ||
        d.out_spatial[i] < 0) {
      return Invalid(
          absl::StrCat("negative spatial size: in_spatial=", Dims(d.in_spatial),
                       " kernel_spatial=", Dims(d.kernel_spatial),
                       " out_spatial=", Dims(d.out_spatial)));
    }
    if (d.window_strides[i] < 1 || d.lhs_dilation[i] < 1 ||
        d.rhs_dilation[i] < 1) {
      return Invalid(absl::StrCat(
          "window strides and dilations must be >= 1: window_strides=",
          Dims(d.window_strides), " lhs_dilation=", Dims(d.lhs_dilation),
          " rhs_dilation=", Dims(d.rhs_dilation)));
    }
  }
  const int64_t g = d.feature_group_count, bg = d.batch_group_count;
  if (g < 1 || bg < 1) {
    return Invalid(absl::StrCat("feature_group_count (", g,
                                ") and batch_group_count (", bg,
                                ") must be >= 1"));
  }
  if (g > 1 && bg > 1) {
    return Invalid(absl::StrCat("feature_group_count (", g,
                                ") and batch_group_count (", bg,
                                ") cannot both be > 1"));
  }
  if (d.in_features % g != 0) {
    return Invalid(absl::StrCat("in_features (", d.in_features,
                                ") must be divisible by feature_group_count (",
                                g, ")"));
  }
  if (d.out_features % g != 0) {
    return Invalid(absl::StrCat("out_features (", d.out_features,
                                ") must be divisible by feature_group_count (",
                                g, ")"));
  }
  if (d.out_features % bg != 0) {
    return Invalid(absl::StrCat("out_features (", d.out_features,
                                ") must be divisible by batch_group_count (",
                                bg, ")"));
  }
  if (d.batch % bg != 0) {
    return Invalid(absl::StrCat("batch (", d.batch,
                                ") must be divisible by batch_group_count (",
                                bg, ")"));
  }
  for (size_t i = 0; i < ns; ++i) {
    const int64_t want =
        ConvOutputSize(d.in_spatial[i], d.kernel_spatial[i],
                       d.window_strides[i], d.padding_low[i], d.padding_high[i],
                       d.lhs_dilation[i], d.rhs_dilation[i]);
    if (want != d.out_spatial[i]) {
      return Invalid(absl::StrCat(
          "out_spatial ", Dims(d.out_spatial),
          " does not match the window: ", "spatial dimension ", i, " gives ",
          want, " (in_spatial=", Dims(d.in_spatial), " kernel_spatial=",
          Dims(d.kernel_spatial), " window_strides=", Dims(d.window_strides),
          " padding_low=", Dims(d.padding_low), " padding_high=",
          Dims(d.padding_high), " lhs_dilation=", Dims(d.lhs_dilation),
          " rhs_dilation=", Dims(d.rhs_dilation), ")"));
    }
  }

  p.feature_groups = bg == 1;
  p.groups = g * bg;
  p.cin_g = d.in_features / g;
  p.cout_g = d.out_features / p.groups;
  p.bout = d.batch / bg;
  p.kcount = Product(d.kernel_spatial);
  p.kdim = p.kcount * p.cin_g;
  p.npix = Product(d.out_spatial);
  p.positions = p.bout * p.npix;
  const int64_t lhs_elems = d.batch * d.in_features * Product(d.in_spatial);
  const int64_t rhs_elems = p.cin_g * d.out_features * p.kcount;
  const int64_t out_elems = p.positions * d.out_features;
  if ((lhs_elems > 0 && lhs == nullptr) || (rhs_elems > 0 && rhs == nullptr) ||
      (out_elems > 0 && out == nullptr)) {
    return Invalid("null lhs, rhs or out for a non-empty array");
  }

  std::vector<int64_t> sizes, strides;
  // Output positions (batch, spatial...).
  sizes.push_back(p.bout);
  strides.push_back(d.out_batch_stride);
  sizes.insert(sizes.end(), d.out_spatial.begin(), d.out_spatial.end());
  strides.insert(strides.end(), d.out_spatial_strides.begin(),
                 d.out_spatial_strides.end());
  const int64_t out_all = CollapsedStride(sizes, strides);
  const int64_t out_spatial =
      CollapsedStride(absl::MakeConstSpan(sizes).subspan(1),
                      absl::MakeConstSpan(strides).subspan(1));
  p.out_batch_collapsed = out_all >= 0;
  p.out_pos_stride = out_all >= 0 ? out_all : out_spatial;

  bool unit_window = true;
  for (size_t i = 0; i < ns; ++i) {
    unit_window = unit_window && d.kernel_spatial[i] == 1 &&
                  d.window_strides[i] == 1 && d.padding_low[i] == 0 &&
                  d.padding_high[i] == 0 && d.lhs_dilation[i] == 1;
  }
  if (unit_window) {
    sizes[0] = p.bout;
    strides[0] = d.lhs_batch_stride;
    std::copy(d.in_spatial.begin(), d.in_spatial.end(), sizes.begin() + 1);
    std::copy(d.lhs_spatial_strides.begin(), d.lhs_spatial_strides.end(),
              strides.begin() + 1);
    const int64_t in_all = CollapsedStride(sizes, strides);
    const int64_t in_spatial =
        CollapsedStride(absl::MakeConstSpan(sizes).subspan(1),
                        absl::MakeConstSpan(strides).subspan(1));
    p.in_batch_collapsed = in_all >= 0;
    p.in_pos_stride = in_all >= 0 ? in_all : in_spatial;
    p.one_by_one = p.in_pos_stride >= 0;
  }
  p.channels_inner = d.lhs_feature_stride == 1 && p.cin_g > 1;
  return p;
}

template <typename T>
struct ConvRun {
  const ConvDims& d;
  const Plan& p;
  const T* lhs;
  const T* rhs;
  T* out;

  // Offset of output position m (batch-major) in out, and of the same
  // position's input element (1x1 only) for lhs batch base lb0.
  int64_t OutOffset(int64_t m) const {
    int64_t b = m / p.npix, r = m % p.npix, off = b * d.out_batch_stride;
    for (int i = p.ns - 1; i >= 0; --i) {
      off += (r % d.out_spatial[i]) * d.out_spatial_strides[i];
      r /= d.out_spatial[i];
    }
    return off;
  }
  int64_t InOffset(int64_t m, int64_t lb0) const {
    int64_t b = m / p.npix, r = m % p.npix;
    int64_t off = (lb0 + b) * d.lhs_batch_stride;
    for (int i = p.ns - 1; i >= 0; --i) {
      off += (r % d.in_spatial[i]) * d.lhs_spatial_strides[i];
      r /= d.in_spatial[i];
    }
    return off;
  }

  // Decodes position m into (batch, spatial coordinates).
  void Decode(int64_t m, int64_t* b, int64_t* coords) const {
    *b = m / p.npix;
    int64_t r = m % p.npix;
    for (int i = p.ns - 1; i >= 0; --i) {
      coords[i] = r % d.out_spatial[i];
      r /= d.out_spatial[i];
    }
  }
  void DecodeKernel(int64_t kpos, int64_t* kc) const {
    for (int i = p.ns - 1; i >= 0; --i) {
      kc[i] = kpos % d.kernel_spatial[i];
      kpos /= d.kernel_spatial[i];
    }
  }
  // Input element offset (without batch and feature) of output coordinates
  // `coords` and kernel coordinates `kc` over dims [0, dims); false if it
  // falls on padding or a dilation hole.
  bool InputOffset(const int64_t* coords, const int64_t* kc, int dims,
                   int64_t* off) const {
    int64_t o = 0;
    for (int i = 0; i < dims; ++i) {
      int64_t x = coords[i] * d.window_strides[i] - d.padding_low[i] +
                  kc[i] * d.rhs_dilation[i];
      if (x < 0) return false;
      if (d.lhs_dilation[i] != 1) {
        if (x % d.lhs_dilation[i] != 0) return false;
        x /= d.lhs_dilation[i];
      }
      if (x >= d.in_spatial[i]) return false;
      o += x * d.lhs_spatial_strides[i];
    }
    *off = o;
    return true;
  }

  // Packs the group's weights as W[k][o] (K x cout_g), k in the patch
  // matrix's column order, with window reversal applied.
  void PackWeights(int64_t o0, T* w) const {
    std::vector<int64_t> kc(p.ns);
    for (int64_t kpos = 0; kpos < p.kcount; ++kpos) {
      DecodeKernel(kpos, kc.data());
      int64_t off = 0;
      for (int i = 0; i < p.ns; ++i) {
        const bool rev = !d.window_reversal.empty() && d.window_reversal[i];
        off += (rev ? d.kernel_spatial[i] - 1 - kc[i] : kc[i]) *
               d.rhs_spatial_strides[i];
      }
      for (int64_t c = 0; c < p.cin_g; ++c) {
        const int64_t k =
            p.channels_inner ? kpos * p.cin_g + c : c * p.kcount + kpos;
        const T* src = rhs + off + c * d.rhs_in_stride + o0 * d.rhs_out_stride;
        T* dst = w + k * p.cout_g;
        for (int64_t o = 0; o < p.cout_g; ++o)
          dst[o] = src[o * d.rhs_out_stride];
      }
    }
  }

  // Patch rows [r0, r1) of the chunk starting at position m0:
  // P[r][kpos * cin_g + c] (channels inner).
  void PatchesChannelsInner(int64_t m0, int64_t r0, int64_t r1, int64_t lb0,
                            int64_t c0, T* patches) const {
    std::vector<int64_t> coords(p.ns), kc(p.ns);
    for (int64_t r = r0; r < r1; ++r) {
      int64_t b;
      Decode(m0 + r, &b, coords.data());
      const T* base =
          lhs + (lb0 + b) * d.lhs_batch_stride + c0 * d.lhs_feature_stride;
      T* row = patches + r * p.kdim;
      std::fill(kc.begin(), kc.end(), 0);
      for (int64_t kpos = 0; kpos < p.kcount; ++kpos) {
        T* dst = row + kpos * p.cin_g;
        int64_t off;
        if (InputOffset(coords.data(), kc.data(), p.ns, &off)) {
          std::memcpy(dst, base + off, p.cin_g * sizeof(T));
        } else {
          std::fill(dst, dst + p.cin_g, T(0));
        }
        for (int i = p.ns - 1; i >= 0; --i) {  // next kernel position
          if (++kc[i] < d.kernel_spatial[i]) break;
          kc[i] = 0;
        }
      }
    }
  }

  // Patch rows [k0, k1) of P^T[c * kcount + kpos][r] for the chunk of
  // `len` positions starting at m0 (channels outer; runs along the last
  // output dimension).
  void PatchesChannelsOuter(int64_t m0, int64_t len, int64_t k0, int64_t k1,
                            int64_t lb0, int64_t c0, T* patches) const {
    const int last = p.ns - 1;
    std::vector<int64_t> coords(p.ns), kc(p.ns);
    const int64_t stride = d.window_strides[last];
    const int64_t dil = d.lhs_dilation[last];
    const int64_t in = d.in_spatial[last];
    const int64_t in_stride = d.lhs_spatial_strides[last];
    for (int64_t k = k0; k < k1; ++k) {
      const int64_t c = k / p.kcount;
      DecodeKernel(k % p.kcount, kc.data());
      const int64_t shift =
          kc[last] * d.rhs_dilation[last] - d.padding_low[last];
      T* row = patches + k * len;
      int64_t b;
      Decode(m0, &b, coords.data());
      for (int64_t r = 0; r < len;) {
        const int64_t o_begin = coords[last];
        const int64_t run = std::min(d.out_spatial[last] - o_begin, len - r);
        T* dst = row + r;
        int64_t off;
        if (!InputOffset(coords.data(), kc.data(), last, &off)) {
          std::fill(dst, dst + run, T(0));
        } else {
          const T* src = lhs + (lb0 + b) * d.lhs_batch_stride +
                         (c0 + c) * d.lhs_feature_stride + off;
          if (dil == 1) {
            // Valid o: 0 <= o * stride + shift < in.
            const int64_t lo = std::clamp<int64_t>(CeilDiv(-shift, stride),
                                                   o_begin, o_begin + run);
            const int64_t hi = std::clamp<int64_t>(
                FloorDiv(in - 1 - shift, stride) + 1, lo, o_begin + run);
            std::fill(dst, dst + (lo - o_begin), T(0));
            const T* s = src + (lo * stride + shift) * in_stride;
            const int64_t step = stride * in_stride;
            T* out_run = dst + (lo - o_begin);
            if (step == 1) {
              std::memcpy(out_run, s, (hi - lo) * sizeof(T));
            } else {
              for (int64_t t = 0; t < hi - lo; ++t) out_run[t] = s[t * step];
            }
            std::fill(dst + (hi - o_begin), dst + run, T(0));
          } else {
            for (int64_t t = 0; t < run; ++t) {
              const int64_t x = (o_begin + t) * stride + shift;
              dst[t] = x >= 0 && x % dil == 0 && x / dil < in
                           ? src[x / dil * in_stride]
                           : T(0);
            }
          }
        }
        r += run;
        coords[last] += run;
        for (int i = last; i > 0 && coords[i] == d.out_spatial[i]; --i) {
          coords[i] = 0;
          ++coords[i - 1];
        }
        if (coords[0] == d.out_spatial[0]) {
          coords[0] = 0;
          ++b;
        }
      }
    }
  }

  // How one group is cut into tiles of output positions, and where results
  // go. Output orientation: C[position][o] (ldc = position stride) when
  // output features are contiguous, C[o][position] (ldc = feature stride)
  // when positions are, else a scratch C scattered afterwards.
  struct Tiling {
    bool pos_major, feat_major, direct;
    int64_t cols;       // scratch elements per position (patches + C)
    int64_t tile_rows;  // positions per tile
    bool within_batch;  // tiles may not cross a batch boundary
    int64_t per_batch;  // tiles per batch when within_batch
    int64_t count;      // number of tiles
  };

  Tiling MakeTiling() const {
    Tiling t;
    t.pos_major =
        p.out_pos_stride >= 0 && (p.cout_g == 1 || d.out_feature_stride == 1);
    t.feat_major = !t.pos_major && p.out_pos_stride == 1;
    t.direct = t.pos_major || t.feat_major;
    t.cols = (p.one_by_one ? 0 : p.kdim) + (t.direct ? 0 : p.cout_g);
    t.within_batch = (p.one_by_one && !p.in_batch_collapsed) ||
                     (t.direct && !p.out_batch_collapsed);
    const int64_t span = t.within_batch ? p.npix : p.positions;
    t.tile_rows = span;
    if (t.cols > 0) {
      // About kTileBytes of patches, so a tile's patches are still in the
      // core's L2 when its multiplication packs them; very long rows take
      // up to kMaxScratchBytes for 64 of them.
      const int64_t row_bytes = static_cast<int64_t>(sizeof(T)) * t.cols;
      t.tile_rows = std::max<int64_t>(
          1, std::min({span, kMaxScratchBytes / row_bytes,
                       std::max<int64_t>(64, kTileBytes / row_bytes)}));
    }
    t.per_batch = (span + t.tile_rows - 1) / t.tile_rows;
    t.count = t.within_batch ? p.bout * t.per_batch : t.per_batch;
    return t;
  }

  // Positions [*m0, *m0 + *len) of tile i.
  void TileRange(const Tiling& t, int64_t i, int64_t* m0, int64_t* len) const {
    if (t.within_batch) {
      const int64_t b = i / t.per_batch, j = i % t.per_batch;
      *m0 = b * p.npix + j * t.tile_rows;
      *len = std::min(t.tile_rows, p.npix - j * t.tile_rows);
    } else {
      *m0 = i * t.tile_rows;
      *len = std::min(t.tile_rows, p.positions - *m0);
    }
  }

  // One tile: patches (unless 1x1), then C = P * W into the output. pool
  // (may be null) parallelizes the patches and the multiplication.
  absl::Status Tile(const Tiling& t, int64_t m0, int64_t len, int64_t g,
                    const T* w, T* scratch, ThreadPool* pool) const {
    const int64_t o0 = g * p.cout_g;  // output / rhs output feature base
    const int64_t c0 = p.feature_groups ? g * p.cin_g : 0;
    const int64_t lb0 = p.feature_groups ? 0 : g * p.bout;
    const bool parallel =
        pool != nullptr && pool->num_threads() > 1 && len * p.kdim >= 16384;
    T* patches = scratch;
    T* c_scratch = scratch + (p.one_by_one ? 0 : len * p.kdim);
    // P(r, k) = a[r * a_rs + k * a_cs] for the tile's rows.
    const T* a;
    int64_t a_rs, a_cs;
    if (p.one_by_one) {
      a = lhs + InOffset(m0, lb0) + c0 * d.lhs_feature_stride;
      a_rs = p.in_pos_stride;
      a_cs = d.lhs_feature_stride;
    } else if (p.channels_inner) {
      auto fill = [&](int64_t r0, int64_t r1) {
        PatchesChannelsInner(m0, r0, r1, lb0, c0, patches);
      };
      if (parallel) {
        pool->ParallelFor(len, std::max<int64_t>(1, 4096 / p.kdim), fill);
      } else {
        fill(0, len);
      }
      a = patches;
      a_rs = p.kdim;
      a_cs = 1;
    } else {
      auto fill = [&](int64_t k0, int64_t k1) {
        PatchesChannelsOuter(m0, len, k0, k1, lb0, c0, patches);
      };
      if (parallel) {
        pool->ParallelFor(p.kdim, std::max<int64_t>(1, 4096 / len), fill);
      } else {
        fill(0, p.kdim);
      }
      a = patches;
      a_rs = 1;
      a_cs = len;
    }
    T* c_out = out + OutOffset(m0) + o0 * d.out_feature_stride;
    GemmArgs<T> ga;
    if (t.feat_major) {
      // C^T[o][r] = sum_k W[k][o] * P[r][k].
      ga = GemmArgs<T>{p.cout_g,
                       len,
                       p.kdim,
                       w,
                       1,
                       p.cout_g,
                       a,
                       a_cs,
                       a_rs,
                       c_out,
                       d.out_feature_stride};
    } else {
      ga = GemmArgs<T>{
          len, p.cout_g, p.kdim,          a, a_rs, a_cs, w, p.cout_g,
          1,   c_out,    p.out_pos_stride};
      if (!t.pos_major) {
        ga.c = c_scratch;
        ga.ldc = p.cout_g;
      }
    }
    if (absl::Status s = Gemm(ga, pool); !s.ok()) return s;
    if (!t.direct) {
      for (int64_t r = 0; r < len; ++r) {
        T* dst = out + OutOffset(m0 + r) + o0 * d.out_feature_stride;
        const T* src = c_scratch + r * p.cout_g;
        for (int64_t o = 0; o < p.cout_g; ++o) {
          dst[o * d.out_feature_stride] = src[o];
        }
      }
    }
    return absl::OkStatus();
  }

  // Runs tiles [t0, t1) of group g on this thread's scratch.
  absl::Status Tiles(const Tiling& t, int64_t t0, int64_t t1, int64_t g,
                     const T* w, ThreadPool* pool) const {
    T* scratch = nullptr;
    if (t.cols > 0) {
      thread_local AlignedMemory tls_tile;
      const size_t bytes = t.tile_rows * t.cols * sizeof(T);
      if (absl::Status s = tls_tile.Reserve(bytes); !s.ok()) return s;
      scratch = tls_tile.as<T>();
    }
    for (int64_t i = t0; i < t1; ++i) {
      int64_t m0, len;
      TileRange(t, i, &m0, &len);
      if (absl::Status s = Tile(t, m0, len, g, w, scratch, pool); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  // Runs group g on `pool` (may be null). With enough tiles, each thread
  // takes whole tiles (its patches stay in its own cache); otherwise tiles
  // run one after another, each parallelized inside.
  absl::Status Group(int64_t g, ThreadPool* pool) const {
    const Tiling t = MakeTiling();
    thread_local AlignedMemory tls_weights;
    const size_t w_bytes = p.kdim * p.cout_g * sizeof(T);
    if (absl::Status s = tls_weights.Reserve(w_bytes); !s.ok()) return s;
    T* w = tls_weights.as<T>();
    PackWeights(g * p.cout_g, w);
    const int threads = pool != nullptr && !ThreadPool::InParallelRegion()
                            ? pool->num_threads()
                            : 1;
    if (threads > 1 && t.cols > 0 && t.count >= 2 * threads) {
      std::mutex mu;
      absl::Status status;
      pool->ParallelFor(t.count, 1, [&](int64_t t0, int64_t t1) {
        absl::Status s = Tiles(t, t0, t1, g, w, nullptr);
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          status.Update(s);
        }
      });
      return status;
    }
    return Tiles(t, 0, t.count, g, w, pool);
  }
};

using conv_internal::FastConv;
using conv_internal::FastGeom;
using conv_internal::MakeFastGeom;

std::atomic<bool> g_fast_path_enabled{true};
std::atomic<bool> g_winograd_enabled{true};
std::atomic<bool> g_winograd_forced{false};

bool FastPathApplies(const ConvDims& d, const Plan& p) {
  if (p.groups != 1 || (p.ns != 1 && p.ns != 2)) return false;
  for (int i = 0; i < p.ns; ++i) {
    if (d.lhs_dilation[i] != 1) return false;
  }
  // The micro-kernel family forced for the GEMM (tests, tuning) also
  // decides here: the fast path is AVX-512 only.
  if (!g_fast_path_enabled.load(std::memory_order_relaxed) ||
      std::strcmp(GemmKernelName(), "avx512") != 0) {
    return false;
  }
  // Very long rows (huge 1-D inputs) would need a large per-thread row
  // buffer: the general path tiles them.
  const FastGeom g = MakeFastGeom(d);
  const int64_t row_elems =
      ((g.kh - 1) * g.dh + 1) * ((g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1);
  return row_elems <= (int64_t{8} << 20) / 4 / std::max<int64_t>(1, g.c);
}

template <typename T>
absl::Status ConvGeneral(const ConvDims& d, const T* lhs, const T* rhs, T* out,
                         ThreadPool* pool);

// Runs the epilogue hook over the whole output (paths that do not call it
// per tile).
void AllRowsDone(const ConvDims& d) {
  if (!d.on_rows_done) return;
  const int64_t batches = d.batch / std::max<int64_t>(1, d.batch_group_count);
  const int64_t rows = d.num_spatial >= 2 ? d.out_spatial[0] : 1;
  for (int64_t b = 0; b < batches; ++b) d.on_rows_done(b, 0, rows);
}

}  // namespace

bool ConvTakesWinograd(const ConvDims& d) {
  return g_fast_path_enabled.load(std::memory_order_relaxed) &&
         g_winograd_enabled.load(std::memory_order_relaxed) &&
         std::strcmp(GemmKernelName(), "avx512") == 0 &&
         conv_internal::WinogradSupports(d) && conv_internal::WinogradPays(d);
}

namespace {

template <typename T>
absl::Status ConvImpl(const ConvDims& d, const T* lhs, const T* rhs, T* out,
                      ThreadPool* pool) {
  absl::StatusOr<Plan> plan = Validate(d, lhs, rhs, out);
  if (!plan.ok()) return plan.status();
  if constexpr (std::is_same_v<T, float>) {
    const Plan& p = *plan;
    if (p.positions > 0 && d.out_features > 0 && p.kdim > 0 &&
        FastPathApplies(d, p)) {
      // Winograd where it is supported and pays (3x3, unit stride, large
      // enough; see conv_internal.h), else implicit im2col. Both need what
      // FastPathApplies checks (the AVX-512 kernels chosen, the fast paths
      // enabled).
      if (g_winograd_enabled.load(std::memory_order_relaxed) &&
          conv_internal::WinogradSupports(d) &&
          (g_winograd_forced.load(std::memory_order_relaxed) ||
           conv_internal::WinogradPays(d))) {
        return conv_internal::WinogradConv(d, lhs, rhs, out, pool);
      }
      return FastConv(d, lhs, rhs, out, pool);
    }
  }
  absl::Status s = ConvGeneral(d, lhs, rhs, out, pool);
  if (s.ok()) AllRowsDone(d);
  return s;
}

template <typename T>
absl::Status ConvGeneral(const ConvDims& d, const T* lhs, const T* rhs, T* out,
                         ThreadPool* pool) {
  absl::StatusOr<Plan> plan = Validate(d, lhs, rhs, out);
  if (!plan.ok()) return plan.status();
  const Plan& p = *plan;
  if (p.positions == 0 || d.out_features == 0) return absl::OkStatus();
  ConvRun<T> run{d, p, lhs, rhs, out};
  if (p.kdim == 0) {
    // Empty sums: the output is zero.
    for (int64_t m = 0; m < p.positions; ++m) {
      T* dst = out + run.OutOffset(m);
      for (int64_t o = 0; o < d.out_features; ++o) {
        dst[o * d.out_feature_stride] = T(0);
      }
    }
    return absl::OkStatus();
  }
  const int threads = pool != nullptr && !ThreadPool::InParallelRegion()
                          ? pool->num_threads()
                          : 1;
  const int64_t group_work = p.positions * p.kdim * p.cout_g;
  if (threads > 1 && p.groups >= 2 * threads &&
      group_work < (int64_t{1} << 22)) {
    // Many small groups (depthwise): groups in parallel, each on one thread.
    std::mutex mu;
    absl::Status status;
    pool->ParallelFor(p.groups, 1, [&](int64_t g0, int64_t g1) {
      for (int64_t g = g0; g < g1; ++g) {
        absl::Status s = run.Group(g, nullptr);
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          status.Update(s);
          return;
        }
      }
    });
    return status;
  }
  for (int64_t g = 0; g < p.groups; ++g) {
    absl::Status s = run.Group(g, pool);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

namespace internal {
void EnableConvFastPathForTesting(bool enabled) {
  g_fast_path_enabled.store(enabled, std::memory_order_relaxed);
}
void EnableConvWinogradForTesting(bool enabled) {
  g_winograd_enabled.store(enabled, std::memory_order_relaxed);
}
void ForceConvWinogradForTesting(bool forced) {
  g_winograd_forced.store(forced, std::memory_order_relaxed);
}
}  // namespace internal

int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride,
                       int64_t padding_low, int64_t padding_high,
                       int64_t lhs_dilation, int64_t rhs_dilation) {
  const int64_t padded =
      (in > 0 ? (in - 1) * lhs_dilation + 1 : 0) + padding_low + padding_high;
  const int64_t window = kernel > 0 ? (kernel - 1) * rhs_dilation + 1 : 0;
  if (padded < window || stride < 1) return 0;
  return (padded - window) / stride + 1;
}

absl::Status Conv(const ConvDims& d, const float* lhs, const float* rhs,
                  float* out, ThreadPool* pool) {
  return ConvImpl(d, lhs, rhs, out, pool);
}
absl::Status Conv(const ConvDims& d, const double* lhs, const double* rhs,
                  double* out, ThreadPool* pool) {
  return ConvImpl(d, lhs, rhs, out, pool);
}

}  // namespace plexa::cpu
