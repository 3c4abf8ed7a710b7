#include "plugins/cpu/runtime/conv.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "plugins/cpu/runtime/conv_internal.h"
#include "plugins/cpu/runtime/gemm.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {
namespace {

// A convolution described logically, plus the storage order of each array:
// a permutation of logical dims {0: batch / in feature, 1: feature / out
// feature, 2...: spatial} listed from major to minor.
struct Spec {
  int64_t batch = 1, cin = 1, cout = 1;
  std::vector<int64_t> in, kernel;
  std::vector<int64_t> stride, pad_lo, pad_hi, lhs_dil, rhs_dil;
  std::vector<bool> reversal;
  int64_t fgc = 1, bgc = 1;
  std::vector<int> lhs_order, rhs_order, out_order;  // empty = {0, 1, 2...}
};

int64_t OutSize(const Spec& s, size_t i) {
  const int64_t padded =
      (s.in[i] - 1) * s.lhs_dil[i] + 1 + s.pad_lo[i] + s.pad_hi[i];
  const int64_t window = (s.kernel[i] - 1) * s.rhs_dil[i] + 1;
  return padded < window ? 0 : (padded - window) / s.stride[i] + 1;
}

// Dense strides for logical sizes stored in `order` (major to minor).
std::vector<int64_t> Strides(const std::vector<int64_t>& sizes,
                             std::vector<int> order) {
  if (order.empty()) {
    order.resize(sizes.size());
    std::iota(order.begin(), order.end(), 0);
  }
  std::vector<int64_t> strides(sizes.size());
  int64_t s = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = s;
    s *= sizes[order[i]];
  }
  return strides;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

struct Problem {
  ConvDims dims;
  std::vector<int64_t> lhs_sizes, rhs_sizes, out_sizes;
  std::vector<int64_t> lhs_strides, rhs_strides, out_strides;
};

Problem MakeProblem(Spec s) {
  const size_t ns = s.in.size();
  auto fill = [ns](std::vector<int64_t>& v, int64_t x) {
    if (v.empty()) v.assign(ns, x);
  };
  fill(s.stride, 1);
  fill(s.pad_lo, 0);
  fill(s.pad_hi, 0);
  fill(s.lhs_dil, 1);
  fill(s.rhs_dil, 1);
  Problem p;
  p.lhs_sizes = {s.batch, s.cin};
  p.rhs_sizes = {s.cin / s.fgc, s.cout};
  p.out_sizes = {s.batch / s.bgc, s.cout};
  std::vector<int64_t> out_sp;
  for (size_t i = 0; i < ns; ++i) {
    p.lhs_sizes.push_back(s.in[i]);
    p.rhs_sizes.push_back(s.kernel[i]);
    out_sp.push_back(OutSize(s, i));
    p.out_sizes.push_back(out_sp.back());
  }
  p.lhs_strides = Strides(p.lhs_sizes, s.lhs_order);
  p.rhs_strides = Strides(p.rhs_sizes, s.rhs_order);
  p.out_strides = Strides(p.out_sizes, s.out_order);
  ConvDims& d = p.dims;
  d.num_spatial = static_cast<int>(ns);
  d.batch = s.batch;
  d.in_features = s.cin;
  d.out_features = s.cout;
  d.in_spatial = s.in;
  d.kernel_spatial = s.kernel;
  d.out_spatial = out_sp;
  d.lhs_batch_stride = p.lhs_strides[0];
  d.lhs_feature_stride = p.lhs_strides[1];
  d.rhs_in_stride = p.rhs_strides[0];
  d.rhs_out_stride = p.rhs_strides[1];
  d.out_batch_stride = p.out_strides[0];
  d.out_feature_stride = p.out_strides[1];
  for (size_t i = 0; i < ns; ++i) {
    d.lhs_spatial_strides.push_back(p.lhs_strides[2 + i]);
    d.rhs_spatial_strides.push_back(p.rhs_strides[2 + i]);
    d.out_spatial_strides.push_back(p.out_strides[2 + i]);
  }
  d.window_strides = s.stride;
  d.padding_low = s.pad_lo;
  d.padding_high = s.pad_hi;
  d.lhs_dilation = s.lhs_dil;
  d.rhs_dilation = s.rhs_dil;
  d.window_reversal = s.reversal;
  d.feature_group_count = s.fgc;
  d.batch_group_count = s.bgc;
  return p;
}

int64_t Offset(const std::vector<int64_t>& idx,
               const std::vector<int64_t>& strides) {
  int64_t o = 0;
  for (size_t i = 0; i < idx.size(); ++i) o += idx[i] * strides[i];
  return o;
}

// Naive direct convolution straight from the definition, in long double.
template <typename T>
std::vector<long double> Reference(const Problem& p, const std::vector<T>& lhs,
                                   const std::vector<T>& rhs) {
  const ConvDims& d = p.dims;
  const size_t ns = d.num_spatial;
  std::vector<long double> out(Product(p.out_sizes));
  const int64_t cin_g = d.in_features / d.feature_group_count;
  const int64_t per_fgroup = d.out_features / d.feature_group_count;
  const int64_t per_bgroup = d.out_features / d.batch_group_count;
  const int64_t out_batch = d.batch / d.batch_group_count;
  std::vector<int64_t> oidx(ns + 2, 0);
  for (int64_t n = 0; n < static_cast<int64_t>(out.size()); ++n) {
    const int64_t fg = oidx[1] / per_fgroup;
    const int64_t bg = oidx[1] / per_bgroup;
    long double acc = 0;
    std::vector<int64_t> k(ns, 0);
    const int64_t kcount = Product(d.kernel_spatial);
    for (int64_t kk = 0; kk < kcount; ++kk) {
      int64_t r = kk;
      for (size_t i = ns; i-- > 0;) {
        k[i] = r % d.kernel_spatial[i];
        r /= d.kernel_spatial[i];
      }
      std::vector<int64_t> lidx(ns + 2), ridx(ns + 2);
      bool inside = true;
      for (size_t i = 0; i < ns && inside; ++i) {
        const int64_t dilated = oidx[2 + i] * d.window_strides[i] -
                                d.padding_low[i] + k[i] * d.rhs_dilation[i];
        if (dilated < 0 || dilated % d.lhs_dilation[i] != 0 ||
            dilated / d.lhs_dilation[i] >= d.in_spatial[i]) {
          inside = false;
        }
        lidx[2 + i] = dilated / d.lhs_dilation[i];
        const bool rev = !d.window_reversal.empty() && d.window_reversal[i];
        ridx[2 + i] = rev ? d.kernel_spatial[i] - 1 - k[i] : k[i];
      }
      if (!inside) continue;
      lidx[0] = bg * out_batch + oidx[0];
      ridx[1] = oidx[1];
      for (int64_t c = 0; c < cin_g; ++c) {
        lidx[1] = fg * cin_g + c;
        ridx[0] = c;
        acc += static_cast<long double>(lhs[Offset(lidx, p.lhs_strides)]) *
               rhs[Offset(ridx, p.rhs_strides)];
      }
    }
    out[Offset(oidx, p.out_strides)] = acc;
    for (size_t i = ns + 2; i-- > 0;) {  // next output index, row-major
      if (++oidx[i] < p.out_sizes[i]) break;
      oidx[i] = 0;
    }
  }
  return out;
}

template <typename T>
void Check(const Spec& spec, ThreadPool* pool, const std::string& what) {
  SCOPED_TRACE(what);
  const Problem p = MakeProblem(spec);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<T> lhs(Product(p.lhs_sizes)), rhs(Product(p.rhs_sizes));
  for (T& x : lhs) x = static_cast<T>(dist(rng));
  for (T& x : rhs) x = static_cast<T>(dist(rng));
  std::vector<T> out(Product(p.out_sizes), std::nan(""));
  ASSERT_TRUE(Conv(p.dims, lhs.data(), rhs.data(), out.data(), pool).ok());
  const std::vector<long double> want = Reference(p, lhs, rhs);
  const long double terms =
      static_cast<long double>(spec.cin / spec.fgc * Product(spec.kernel));
  const long double tol =
      (std::is_same_v<T, float> ? 1e-5L : 1e-13L) * (1 + terms);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_NEAR(out[i], want[i], tol) << "element " << i;
  }
}

template <typename T>
std::vector<T> Run1D(std::vector<T> x, std::vector<T> w, Spec s) {
  s.in = {static_cast<int64_t>(x.size())};
  s.kernel = {static_cast<int64_t>(w.size())};
  const Problem p = MakeProblem(s);
  std::vector<T> out(Product(p.out_sizes), -99);
  EXPECT_TRUE(Conv(p.dims, x.data(), w.data(), out.data(), nullptr).ok());
  return out;
}

TEST(ConvTest, HandComputed1D) {
  using V = std::vector<float>;
  EXPECT_EQ(Run1D<float>({1, 2, 3, 4}, {1, 1}, {}), V({3, 5, 7}));
  Spec pad;
  pad.pad_lo = {1};
  pad.pad_hi = {1};
  // out[i] = x[i-1] - x[i+1].
  EXPECT_EQ(Run1D<float>({1, 2, 3, 4}, {1, 0, -1}, pad), V({-2, -2, -2, 3}));
  pad.reversal = {true};
  EXPECT_EQ(Run1D<float>({1, 2, 3, 4}, {1, 0, -1}, pad), V({2, 2, 2, -3}));
  Spec strided;
  strided.stride = {2};
  EXPECT_EQ(Run1D<float>({1, 2, 3, 4, 5}, {1, 1}, strided), V({3, 7}));
  Spec base_dilated;  // [1, 0, 2, 0, 3]
  base_dilated.lhs_dil = {2};
  EXPECT_EQ(Run1D<float>({1, 2, 3}, {1, 1}, base_dilated), V({1, 2, 2, 3}));
  Spec window_dilated;  // kernel [1, 0, 1]
  window_dilated.rhs_dil = {2};
  EXPECT_EQ(Run1D<double>({1, 2, 3, 4}, {1, 1}, window_dilated),
            std::vector<double>({4, 6}));
  Spec negative;  // drops the first input element
  negative.pad_lo = {-1};
  negative.pad_hi = {0};
  EXPECT_EQ(Run1D<float>({1, 2, 3, 4}, {1, 1}, negative), V({5, 7}));
}

TEST(ConvTest, HandComputedTwoFeatures) {
  // Two input features, one output feature, 1x1 kernel [2, 10]:
  // out = 2 * f0 + 10 * f1 (NCW layout).
  Spec s;
  s.cin = 2;
  s.in = {3};
  s.kernel = {1};
  const Problem p = MakeProblem(s);
  const float lhs[] = {1, 2, 3, 4, 5, 6};
  const float rhs[] = {2, 10};
  float out[3];
  ASSERT_TRUE(Conv(p.dims, lhs, rhs, out, nullptr).ok());
  EXPECT_EQ(out[0], 42);
  EXPECT_EQ(out[1], 54);
  EXPECT_EQ(out[2], 66);
}

const std::vector<int> kNCHW = {0, 1, 2, 3}, kNHWC = {0, 2, 3, 1},
                       kOIHW = {1, 0, 2, 3}, kHWIO = {2, 3, 0, 1},
                       kCHWN = {1, 2, 3, 0};

Spec Conv2D(int64_t n, int64_t c, int64_t o, int64_t h, int64_t w, int64_t kh,
            int64_t kw) {
  Spec s;
  s.batch = n;
  s.cin = c;
  s.cout = o;
  s.in = {h, w};
  s.kernel = {kh, kw};
  return s;
}

// lhs / rhs / output dimension orders every 2-D layout test runs through.
struct LayoutCombo {
  const char* name;
  std::vector<int> lhs, rhs, out;
};
const std::vector<LayoutCombo>& LayoutCombos() {
  static const auto* const combos =
      new std::vector<LayoutCombo>{{"NCHW/OIHW/NCHW", kNCHW, kOIHW, kNCHW},
                                   {"NHWC/HWIO/NHWC", kNHWC, kHWIO, kNHWC},
                                   {"NCHW/HWIO/NHWC", kNCHW, kHWIO, kNHWC},
                                   {"NHWC/OIHW/NCHW", kNHWC, kOIHW, kNCHW},
                                   {"CHWN/HWIO/CHWN", kCHWN, kHWIO, kCHWN}};
  return *combos;
}

TEST(ConvTest, Layouts) {
  ThreadPool pool(2);
  for (const LayoutCombo& l : LayoutCombos()) {
    Spec s = Conv2D(2, 5, 7, 9, 11, 3, 3);
    s.pad_lo = {1, 1};
    s.pad_hi = {1, 1};
    s.lhs_order = l.lhs;
    s.rhs_order = l.rhs;
    s.out_order = l.out;
    Check<float>(s, &pool, l.name);
    Check<double>(s, nullptr, l.name);
  }
}

TEST(ConvTest, PaddingStridesDilations) {
  ThreadPool pool(2);
  for (const auto& layout : {kNCHW, kNHWC}) {
    Spec s = Conv2D(2, 3, 4, 10, 9, 3, 2);
    s.lhs_order = s.out_order = layout;
    s.stride = {2, 3};
    s.pad_lo = {2, -1};
    s.pad_hi = {0, 3};
    Check<float>(s, &pool, "strides + padding (incl. negative)");
    s.lhs_dil = {2, 3};
    Check<float>(s, &pool, "lhs dilation");
    s.lhs_dil = {1, 1};
    s.rhs_dil = {2, 3};
    Check<double>(s, &pool, "rhs dilation");
    s.lhs_dil = {3, 2};
    s.reversal = {true, false};
    Check<float>(s, &pool, "both dilations + reversal");
    s.reversal = {true, true};
    s.stride = {1, 1};
    Check<double>(s, nullptr, "reversal");
  }
}

TEST(ConvTest, FeatureGroups) {
  ThreadPool pool(2);
  Spec s = Conv2D(2, 6, 9, 8, 7, 3, 3);
  s.fgc = 3;
  s.pad_lo = s.pad_hi = {1, 1};
  for (const auto& layout : {kNCHW, kNHWC}) {
    s.lhs_order = s.out_order = layout;
    Check<float>(s, &pool, "groups of 2 -> 3");
  }
  // Depthwise: one input feature per group, multiplier 2, many groups.
  Spec dw = Conv2D(2, 16, 32, 12, 12, 3, 3);
  dw.fgc = 16;
  dw.pad_lo = dw.pad_hi = {1, 1};
  for (const auto& layout : {kNCHW, kNHWC}) {
    dw.lhs_order = dw.out_order = layout;
    Check<float>(dw, &pool, "depthwise");
    Check<double>(dw, nullptr, "depthwise f64");
  }
}

TEST(ConvTest, BatchGroups) {
  ThreadPool pool(2);
  // The filter-gradient form of a depthwise convolution: batch = features.
  Spec s = Conv2D(8, 3, 8, 6, 5, 2, 2);
  s.bgc = 4;
  for (const auto& layout : {kNCHW, kNHWC, kCHWN}) {
    s.lhs_order = s.out_order = layout;
    Check<float>(s, &pool, "batch groups");
    Check<double>(s, nullptr, "batch groups f64");
  }
}

TEST(ConvTest, OneByOneDirectPath) {
  ThreadPool pool(2);
  for (const auto& layout : {kNCHW, kNHWC, kCHWN}) {
    Spec s = Conv2D(3, 17, 33, 13, 14, 1, 1);
    s.lhs_order = s.out_order = layout;
    Check<float>(s, &pool, "1x1");
    s.fgc = 17;
    s.cout = 34;
    Check<float>(s, &pool, "1x1 depthwise");
  }
  Spec mixed = Conv2D(2, 8, 5, 6, 6, 1, 1);
  mixed.lhs_order = kNHWC;
  mixed.out_order = kNCHW;
  Check<double>(mixed, &pool, "1x1 NHWC -> NCHW");
}

TEST(ConvTest, OtherRanks) {
  ThreadPool pool(2);
  Spec c0;  // no spatial dimensions: a matrix product over the batch
  c0.batch = 5;
  c0.cin = 7;
  c0.cout = 3;
  Check<float>(c0, &pool, "0-D");
  Spec c1;
  c1.batch = 2;
  c1.cin = 4;
  c1.cout = 3;
  c1.in = {20};
  c1.kernel = {5};
  c1.stride = {3};
  c1.pad_lo = {2};
  c1.pad_hi = {1};
  Check<float>(c1, &pool, "1-D");
  Spec c3;
  c3.batch = 2;
  c3.cin = 3;
  c3.cout = 4;
  c3.in = {5, 6, 4};
  c3.kernel = {2, 3, 2};
  c3.pad_lo = {1, 0, 1};
  c3.pad_hi = {0, 1, 1};
  c3.lhs_order = {0, 2, 3, 4, 1};
  c3.out_order = {0, 2, 3, 4, 1};
  Check<double>(c3, &pool, "3-D NDHWC");
  c3.lhs_order = c3.out_order = {};
  c3.rhs_dil = {2, 1, 1};
  Check<float>(c3, nullptr, "3-D NCDHW");
}

TEST(ConvTest, LargerThanOneScratchChunkAndEveryKernel) {
  ThreadPool pool(2);
  Spec s = Conv2D(2, 32, 40, 34, 34, 3, 3);
  s.pad_lo = s.pad_hi = {1, 1};
  for (const char* kernel : {"avx512", "avx2", "generic"}) {
    if (!internal::ForceGemmKernelForTesting(kernel)) continue;
    for (bool fast : {true, false}) {
      internal::EnableConvFastPathForTesting(fast);
      const std::string what = absl::StrCat(kernel, fast ? "" : " general");
      s.lhs_order = s.out_order = kNCHW;
      Check<float>(s, &pool, what);
      s.lhs_order = s.out_order = kNHWC;
      Check<float>(s, &pool, what);
    }
    internal::EnableConvFastPathForTesting(true);
  }
  internal::ForceGemmKernelForTesting(nullptr);
}

// The f32 fast path (AVX-512 machines): odd spatial sizes, feature counts
// that are not multiples of 16 or span several 64-feature blocks, input
// channels spanning several channel blocks, strides, padding (also negative),
// rhs dilation, reversal, batch 1 and 3, every layout kind. Each case also
// runs with the fast path off, so the general f32 path stays covered.
TEST(ConvTest, FastPathShapes) {
  ThreadPool pool(2);
  struct Case {
    int64_t n, c, o, h, w, kh, kw, sh, sw, pad;
  };
  const Case cases[] = {
      {1, 5, 7, 9, 11, 3, 3, 1, 1, 1},
      {3, 17, 33, 7, 13, 3, 3, 2, 2, 1},
      {1, 16, 64, 15, 15, 3, 3, 1, 1, 0},
      {3, 70, 70, 6, 9, 3, 3, 1, 1, 2},
      {1, 3, 130, 10, 7, 2, 3, 2, 1, 1},
      {3, 1, 1, 5, 5, 5, 5, 1, 1, 2},
      {1, 130, 20, 5, 6, 3, 3, 1, 2, 1},
      {3, 8, 16, 13, 1, 3, 1, 2, 1, 0},
      {1, 32, 48, 12, 17, 1, 1, 2, 2, 0},
      {3, 9, 65, 11, 11, 4, 2, 3, 2, 2},
      // Wide rows: several work units of output rows per image.
      {1, 5, 9, 13, 100, 3, 3, 1, 1, 1},
      {2, 3, 17, 20, 120, 3, 3, 2, 2, 1},
  };
  for (const Case& c : cases) {
    for (const LayoutCombo& l : LayoutCombos()) {
      Spec s = Conv2D(c.n, c.c, c.o, c.h, c.w, c.kh, c.kw);
      s.stride = {c.sh, c.sw};
      s.pad_lo = s.pad_hi = {c.pad, c.pad};
      s.lhs_order = l.lhs;
      s.rhs_order = l.rhs;
      s.out_order = l.out;
      const std::string what = absl::StrCat(
          l.name, " n=", c.n, " c=", c.c, " o=", c.o, " ", c.h, "x", c.w,
          " k=", c.kh, "x", c.kw, " s=", c.sh, "x", c.sw, " pad=", c.pad);
      Check<float>(s, &pool, what);
      Check<float>(s, nullptr, what + " 1 thread");
      internal::EnableConvFastPathForTesting(false);
      Check<float>(s, &pool, what + " general path");
      internal::EnableConvFastPathForTesting(true);
    }
  }
  // Asymmetric and negative padding, rhs dilation, reversal.
  Spec s = Conv2D(2, 19, 21, 12, 10, 3, 2);
  s.pad_lo = {2, -1};
  s.pad_hi = {-1, 3};
  s.rhs_dil = {2, 3};
  s.reversal = {true, false};
  for (const LayoutCombo& l : LayoutCombos()) {
    s.lhs_order = l.lhs;
    s.rhs_order = l.rhs;
    s.out_order = l.out;
    Check<float>(s, &pool, absl::StrCat(l.name, " dilated, reversed"));
  }
  s.reversal = {false, true};
  s.stride = {3, 2};
  Check<float>(s, &pool, "CHWN strided, reversed");
  // 1-D: a 2-D problem of height 1.
  Spec c1;
  c1.batch = 3;
  c1.cin = 20;
  c1.cout = 37;
  c1.in = {41};
  c1.kernel = {4};
  c1.stride = {2};
  c1.pad_lo = {3};
  c1.pad_hi = {0};
  Check<float>(c1, &pool, "1-D NCW");
  c1.lhs_order = c1.out_order = {0, 2, 1};
  Check<float>(c1, &pool, "1-D NWC");
}

TEST(ConvTest, ManyTilesAcrossBatches) {
  // ~455 positions per tile: NHWC tiles cross batch boundaries and run on
  // both threads; NCHW tiles stay inside one batch.
  ThreadPool pool(2);
  Spec s = Conv2D(3, 64, 8, 32, 32, 3, 3);
  s.pad_lo = s.pad_hi = {1, 1};
  s.lhs_order = s.out_order = kNHWC;
  Check<float>(s, &pool, "NHWC");
  s.lhs_order = s.out_order = kNCHW;
  s.stride = {2, 1};
  Check<float>(s, &pool, "NCHW");
}

// ---- Winograd F(2x2, 3x3) path ----
//
// Error bounds, per output element i, relative to
//   S_i = sum over the element's terms of |lhs| * |rhs|
// (the scale a sum of those terms can be trusted to; computed by the naive
// loop on |lhs| and |rhs|, so exactly in long double).
// - Direct summation (implicit im2col and general paths): the worst case is
//   (number of terms) * u * S_i with u = 2^-24 ~ 6e-8; rounding errors of
//   random data grow like the square root of that count, and for the
//   <= 70 * 9 = 630 terms below sqrt(630) * u ~ 1.5e-6. kDirectRel = 1e-5
//   keeps a margin for the worst element.
// - Winograd: the input transform makes each V entry a sum of up to 4
//   inputs (|V| <= 4 max|d|), U = G g G^T has entries up to 2.25 max|g|,
//   and the output transform adds 9 products of the sums over c, so the
//   transformed terms are up to ~9x larger than the direct ones; with about
//   C + 8 roundings (the sum over c plus the transforms) growing like their
//   square root, that is ~9 * sqrt(78) * u ~ 5e-6 for C = 70. In practice
//   the large terms partly cancel: the maximum observed over these tests is
//   ~3e-7 (~1e-6 of max |out| for O(1) data). kWinogradRel = 1e-5 covers
//   the estimate and would still catch a wrong tile, sign or transform,
//   which gives errors of order S_i.
constexpr double kDirectRel = 1e-5;
constexpr double kWinogradRel = 1e-5;

template <typename T>
std::vector<T> Abs(std::vector<T> v) {
  for (T& x : v) x = std::abs(x);
  return v;
}

// Runs the f32 convolution with the current path switches; the output starts
// as NaN so that elements left unwritten fail every comparison.
std::vector<float> RunF32(const Problem& p, const std::vector<float>& lhs,
                          const std::vector<float>& rhs, ThreadPool* pool) {
  std::vector<float> out(Product(p.out_sizes), std::nanf(""));
  EXPECT_TRUE(Conv(p.dims, lhs.data(), rhs.data(), out.data(), pool).ok());
  return out;
}

// Compares the Winograd path with the naive long double loop and with the
// implicit im2col and general f32 paths (each against its own bound above).
void CheckWinograd(const Spec& spec, ThreadPool* pool,
                   const std::string& what) {
  SCOPED_TRACE(what);
  const Problem p = MakeProblem(spec);
  ASSERT_TRUE(conv_internal::WinogradSupports(p.dims));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<float> lhs(Product(p.lhs_sizes)), rhs(Product(p.rhs_sizes));
  for (float& x : lhs) x = static_cast<float>(dist(rng));
  for (float& x : rhs) x = static_cast<float>(dist(rng));
  const std::vector<long double> want = Reference(p, lhs, rhs);
  const std::vector<long double> scale = Reference(p, Abs(lhs), Abs(rhs));

  internal::ForceConvWinogradForTesting(true);  // also where it does not pay
  const std::vector<float> winograd = RunF32(p, lhs, rhs, pool);
  internal::ForceConvWinogradForTesting(false);
  internal::EnableConvWinogradForTesting(false);
  const std::vector<float> im2col = RunF32(p, lhs, rhs, pool);
  internal::EnableConvFastPathForTesting(false);
  const std::vector<float> general = RunF32(p, lhs, rhs, pool);
  internal::EnableConvFastPathForTesting(true);
  internal::EnableConvWinogradForTesting(true);

  double worst = 0;  // max error / S_i, reported on failure
  for (size_t i = 0; i < want.size(); ++i) {
    const double s = static_cast<double>(scale[i]);
    const double w = static_cast<double>(want[i]);
    worst = std::max(worst, std::abs(winograd[i] - w) / s);
    ASSERT_LE(std::abs(winograd[i] - w), kWinogradRel * s)
        << "element " << i << " winograd " << winograd[i] << " want " << w;
    ASSERT_LE(std::abs(im2col[i] - w), kDirectRel * s) << "element " << i;
    ASSERT_LE(std::abs(general[i] - w), kDirectRel * s) << "element " << i;
    ASSERT_LE(std::abs(winograd[i] - im2col[i]),
              (kWinogradRel + kDirectRel) * s)
        << "element " << i;
    ASSERT_LE(std::abs(winograd[i] - general[i]),
              (kWinogradRel + kDirectRel) * s)
        << "element " << i;
  }
  ::testing::Test::RecordProperty("max_winograd_error_over_scale",
                                  std::to_string(worst));
}

bool HaveWinograd() { return std::string(GemmKernelName()) == "avx512"; }

// Shapes the Winograd path supports (forced where it would not pay): odd
// output sizes (partial tiles), outputs down to 1x1, padding 0, 1, 2 and
// asymmetric, batch 1 and 8, fewer than 16 features, channel counts that are
// not multiples of 16 or span two 64-channel blocks, output features spanning
// three 64-feature blocks (the last with 2), rows wider than one chunk of
// tiles, window reversal, and every layout kind (channels-innermost, NCHW with
// transposes, mixed, CHWN with strided copies).
TEST(ConvTest, WinogradShapes) {
  if (!HaveWinograd()) GTEST_SKIP() << "Winograd path needs AVX-512";
  ThreadPool pool(2);
  struct Case {
    int64_t n, c, o, h, w, pad_lo, pad_hi;
  };
  const Case cases[] = {
      {1, 16, 16, 4, 4, 1, 1},    // 4x4 output: one unit, 4 tiles
      {1, 16, 16, 3, 3, 0, 0},    // 1x1 output: one partial tile
      {2, 3, 5, 6, 7, 1, 1},      // few features
      {8, 64, 64, 8, 8, 1, 1},    // the benchmark's features and batch
      {2, 17, 33, 9, 11, 1, 1},   // odd 9x11 output
      {1, 19, 37, 7, 13, 0, 0},   // padding 0: odd 5x11 output
      {3, 70, 130, 6, 9, 1, 1},   // 2 channel blocks, 3 feature blocks
      {2, 32, 48, 10, 10, 0, 1},  // asymmetric padding: 9x9
      {1, 64, 64, 20, 30, 2, 2},  // padding 2: 22x32
      {1, 64, 20, 6, 130, 1, 1},  // 65 tiles per row: 2 chunks per unit
      {2, 16, 16, 33, 5, 1, 1},   // tall and narrow: many units
  };
  for (const Case& c : cases) {
    for (const LayoutCombo& l : LayoutCombos()) {
      Spec s = Conv2D(c.n, c.c, c.o, c.h, c.w, 3, 3);
      s.pad_lo = {c.pad_lo, c.pad_lo};
      s.pad_hi = {c.pad_hi, c.pad_hi};
      s.lhs_order = l.lhs;
      s.rhs_order = l.rhs;
      s.out_order = l.out;
      const std::string what =
          absl::StrCat(l.name, " n=", c.n, " c=", c.c, " o=", c.o, " ", c.h,
                       "x", c.w, " pad=", c.pad_lo, ",", c.pad_hi);
      CheckWinograd(s, &pool, what);
    }
  }
  Spec s = Conv2D(2, 24, 40, 11, 8, 3, 3);
  s.pad_lo = {1, 0};
  s.pad_hi = {2, 1};
  CheckWinograd(s, nullptr, "different padding per dimension, 1 thread");
  s.reversal = {true, false};
  CheckWinograd(s, &pool, "reversed rows");
  s.reversal = {true, true};
  s.lhs_order = s.out_order = kNHWC;
  CheckWinograd(s, &pool, "reversed rows and columns, NHWC");
}

// Which shapes the Winograd path supports and where it is chosen; shapes
// next to the gate go to the other paths and stay correct.
TEST(ConvTest, WinogradGate) {
  auto supports = [](const Spec& s) {
    return conv_internal::WinogradSupports(MakeProblem(s).dims);
  };
  auto pays = [](const Spec& s) {
    return conv_internal::WinogradPays(MakeProblem(s).dims);
  };
  Spec bench = Conv2D(8, 64, 64, 56, 56, 3, 3);  // the benchmark's conv
  bench.pad_lo = bench.pad_hi = {1, 1};
  EXPECT_TRUE(supports(bench));
  EXPECT_TRUE(pays(bench));
  bench.lhs_order = bench.out_order = kNHWC;
  EXPECT_TRUE(supports(bench) && pays(bench));
  Spec s = Conv2D(2, 16, 16, 18, 18, 3, 3);  // 2 x 8 x 8 = 128 tiles
  EXPECT_TRUE(supports(s));
  EXPECT_TRUE(pays(s));
  Spec few_tiles = Conv2D(1, 16, 16, 18, 18, 3, 3);
  EXPECT_TRUE(supports(few_tiles));
  EXPECT_FALSE(pays(few_tiles));
  Spec few_in = Conv2D(2, 15, 16, 18, 18, 3, 3);
  EXPECT_TRUE(supports(few_in));
  EXPECT_FALSE(pays(few_in));
  Spec few_out = Conv2D(2, 16, 15, 18, 18, 3, 3);
  EXPECT_FALSE(pays(few_out));
  Spec large_weights = Conv2D(8, 512, 512, 9, 9, 3, 3);
  EXPECT_TRUE(supports(large_weights));
  EXPECT_FALSE(pays(large_weights));
  Spec strided = s;
  strided.stride = {2, 1};
  EXPECT_FALSE(supports(strided));
  Spec dilated = s;
  dilated.rhs_dil = {1, 2};
  EXPECT_FALSE(supports(dilated));
  Spec base_dilated = s;
  base_dilated.lhs_dil = {2, 2};
  EXPECT_FALSE(supports(base_dilated));
  Spec negative = s;
  negative.pad_lo = {-1, 0};
  EXPECT_FALSE(supports(negative));
  Spec grouped = Conv2D(2, 32, 32, 18, 18, 3, 3);
  grouped.fgc = 2;
  EXPECT_FALSE(supports(grouped));
  Spec five = Conv2D(2, 16, 16, 18, 18, 5, 5);
  EXPECT_FALSE(supports(five));
  Spec one_d;
  one_d.cin = one_d.cout = 16;
  one_d.in = {300};
  one_d.kernel = {3};
  EXPECT_FALSE(supports(one_d));
  ThreadPool pool(2);
  for (const Spec& t : {few_tiles, few_in, strided, grouped}) {
    Check<float>(t, &pool, "next to the gate");
  }
}

// The epilogue hook on the Winograd path: every output row of every batch
// element is reported exactly once, only after all of its elements are
// written; with several work units per image, the last one partial (odd
// height), on 2 threads and on 1.
TEST(ConvTest, WinogradRowsDoneHook) {
  if (!HaveWinograd()) GTEST_SKIP() << "Winograd path needs AVX-512";
  for (const auto& layout : {kNCHW, kNHWC}) {
    for (bool threaded : {true, false}) {
      SCOPED_TRACE(absl::StrCat(layout == kNCHW ? "NCHW" : "NHWC",
                                threaded ? " 2 threads" : " 1 thread"));
      Spec s = Conv2D(2, 16, 24, 37, 30, 3, 3);
      s.pad_lo = s.pad_hi = {1, 1};
      s.lhs_order = s.out_order = layout;
      Problem p = MakeProblem(s);
      ASSERT_TRUE(conv_internal::WinogradSupports(p.dims) &&
                  conv_internal::WinogradPays(p.dims));
      const int64_t rows = p.dims.out_spatial[0], cols = p.dims.out_spatial[1];
      std::vector<float> lhs(Product(p.lhs_sizes), 1.0f);
      std::vector<float> rhs(Product(p.rhs_sizes), 0.5f);
      std::vector<float> out(Product(p.out_sizes), std::nanf(""));
      std::mutex mu;
      std::vector<std::tuple<int64_t, int64_t, int64_t>> calls;
      std::vector<int> seen(s.batch * rows, 0);
      bool complete = true;
      p.dims.on_rows_done = [&](int64_t b, int64_t y0, int64_t y1) {
        bool written = true;
        for (int64_t y = y0; y < y1; ++y) {
          for (int64_t o = 0; o < s.cout; ++o) {
            for (int64_t x = 0; x < cols; ++x) {
              const float v = out[Offset({b, o, y, x}, p.out_strides)];
              written = written && !std::isnan(v);
            }
          }
        }
        std::lock_guard<std::mutex> lock(mu);
        complete = complete && written;
        calls.emplace_back(b, y0, y1);
        for (int64_t y = std::max<int64_t>(y0, 0);
             y < std::min<int64_t>(y1, rows); ++y) {
          ++seen[b * rows + y];
        }
      };
      ThreadPool pool(2);
      ASSERT_TRUE(Conv(p.dims, lhs.data(), rhs.data(), out.data(),
                       threaded ? &pool : nullptr)
                      .ok());
      EXPECT_TRUE(complete) << "a row was reported before it was written";
      EXPECT_GT(calls.size(), 2u * s.batch);  // several units per image
      for (const auto& [b, y0, y1] : calls) {
        EXPECT_TRUE(b >= 0 && b < s.batch && 0 <= y0 && y0 < y1 && y1 <= rows)
            << b << " [" << y0 << ", " << y1 << ")";
      }
      for (int64_t i = 0; i < s.batch * rows; ++i) {
        EXPECT_EQ(seen[i], 1) << "batch " << i / rows << " row " << i % rows;
      }
    }
  }
}

TEST(ConvTest, EmptyShapes) {
  Spec s = Conv2D(2, 0, 3, 4, 4, 2, 2);  // no input features: zeros
  const Problem p = MakeProblem(s);
  std::vector<float> out(Product(p.out_sizes), 5);
  const float dummy = 0;
  ASSERT_TRUE(Conv(p.dims, &dummy, &dummy, out.data(), nullptr).ok());
  for (float x : out) EXPECT_EQ(x, 0);
  Spec none = Conv2D(0, 2, 3, 4, 4, 2, 2);  // no batch
  const Problem q = MakeProblem(none);
  EXPECT_TRUE(Conv(q.dims, &dummy, &dummy, out.data(), nullptr).ok());
  Spec small = Conv2D(1, 2, 3, 2, 2, 3, 3);  // window larger than the input
  const Problem r = MakeProblem(small);
  EXPECT_EQ(r.dims.out_spatial[0], 0);
  EXPECT_TRUE(Conv(r.dims, &dummy, &dummy, out.data(), nullptr).ok());
}

TEST(ConvTest, InvalidDimensions) {
  const float buf[64] = {};
  float out[64];
  auto expect_invalid = [&](const ConvDims& d, const char* needle) {
    const absl::Status s = Conv(d, buf, buf, out, nullptr);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << needle;
    EXPECT_NE(std::string(s.message()).find(needle), std::string::npos)
        << s.message();
  };
  const ConvDims good = MakeProblem(Conv2D(1, 4, 4, 3, 3, 1, 1)).dims;
  ASSERT_TRUE(Conv(good, buf, buf, out, nullptr).ok());
  ConvDims d = good;
  d.batch = -1;
  expect_invalid(d, "negative size");
  d = good;
  d.feature_group_count = 3;
  expect_invalid(d, "feature_group_count");
  d = good;
  d.batch_group_count = 3;
  expect_invalid(d, "batch_group_count");
  d = good;
  d.feature_group_count = 2;
  d.batch_group_count = 2;
  expect_invalid(d, "cannot both");
  d = good;
  d.feature_group_count = 0;
  expect_invalid(d, ">= 1");
  d = good;
  d.out_spatial = {3, 4};
  expect_invalid(d, "out_spatial");
  d = good;
  d.padding_low.pop_back();
  expect_invalid(d, "padding_low");
  d = good;
  d.window_strides = {0, 1};
  expect_invalid(d, "window strides");
  d = good;
  d.kernel_spatial = {-1, 1};
  expect_invalid(d, "negative spatial size");
  d = good;
  d.num_spatial = -2;
  expect_invalid(d, "num_spatial");
  d = good;
  d.window_reversal = {true};
  expect_invalid(d, "window_reversal");
  EXPECT_EQ(Conv(good, nullptr, buf, out, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ConvTest, OutputSizeFormula) {
  EXPECT_EQ(ConvOutputSize(4, 2, 1, 0, 0, 1, 1), 3);
  EXPECT_EQ(ConvOutputSize(56, 3, 1, 1, 1, 1, 1), 56);
  EXPECT_EQ(ConvOutputSize(56, 3, 2, 1, 1, 1, 1), 28);
  EXPECT_EQ(ConvOutputSize(3, 2, 1, 0, 0, 2, 1), 4);  // [1,0,2,0,3]
  EXPECT_EQ(ConvOutputSize(4, 2, 1, 0, 0, 1, 2), 2);
  EXPECT_EQ(ConvOutputSize(2, 3, 1, 0, 0, 1, 1), 0);
  EXPECT_EQ(ConvOutputSize(4, 2, 1, -1, -2, 1, 1), 0);
}

}  // namespace
}  // namespace plexa::cpu
