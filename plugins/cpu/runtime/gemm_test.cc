#include "plugins/cpu/runtime/gemm.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {
namespace {

// Independent reference: naive triple loop in long double.
template <typename T>
void NaiveGemm(const GemmArgs<T>& g, std::vector<long double>* out,
               std::vector<long double>* magnitude) {
  out->assign(g.m * g.n, 0);
  magnitude->assign(g.m * g.n, 0);
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t j = 0; j < g.n; ++j) {
      long double s = 0, mag = 0;
      for (int64_t p = 0; p < g.k; ++p) {
        const long double x = g.a[i * g.a_row_stride + p * g.a_col_stride];
        const long double y = g.b[p * g.b_row_stride + j * g.b_col_stride];
        s += x * y;
        mag += std::fabs(x * y);
      }
      (*out)[i * g.n + j] = s;
      (*magnitude)[i * g.n + j] = mag;
    }
  }
}

template <typename T>
std::vector<T> Random(int64_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(size);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

struct Case {
  int64_t m, n, k;
  bool a_trans = false, b_trans = false, accumulate = false;
  int64_t batch = 1;
  int64_t ldc_pad = 0;
};

std::string Name(const Case& c) {
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
         " k=" + std::to_string(c.k) + (c.a_trans ? " At" : "") +
         (c.b_trans ? " Bt" : "") + (c.accumulate ? " acc" : "") +
         " batch=" + std::to_string(c.batch);
}

// Runs one case and compares every element of C against the naive product
// (plus C's previous value when accumulating), with a tolerance relative to
// sum |a*b|. Elements of C outside the logical matrix (ldc padding) must be
// untouched.
template <typename T>
void RunCase(const Case& c, ThreadPool* pool) {
  SCOPED_TRACE(Name(c));
  const int64_t a_size = std::max<int64_t>(1, c.m * c.k);
  const int64_t b_size = std::max<int64_t>(1, c.k * c.n);
  const int64_t ldc = c.n + c.ldc_pad;
  const int64_t c_size = std::max<int64_t>(1, c.m * ldc);
  std::vector<T> a = Random<T>(a_size * c.batch, 1);
  std::vector<T> b = Random<T>(b_size * c.batch, 2);
  std::vector<T> out = Random<T>(c_size * c.batch, 3);
  const std::vector<T> before = out;
  GemmArgs<T> g;
  g.m = c.m;
  g.n = c.n;
  g.k = c.k;
  g.a = a.data();
  g.a_row_stride = c.a_trans ? 1 : c.k;
  g.a_col_stride = c.a_trans ? c.m : 1;
  g.b = b.data();
  g.b_row_stride = c.b_trans ? 1 : c.n;
  g.b_col_stride = c.b_trans ? c.k : 1;
  g.c = out.data();
  g.ldc = ldc;
  g.accumulate = c.accumulate;
  g.batch_count = c.batch;
  g.a_batch_stride = a_size;
  g.b_batch_stride = b_size;
  g.c_batch_stride = c_size;
  ASSERT_TRUE(Gemm(g, pool).ok());
  const long double eps = std::is_same_v<T, float> ? 1e-6L * 4 : 1e-15L * 4;
  std::vector<long double> ref, mag;
  for (int64_t bi = 0; bi < c.batch; ++bi) {
    GemmArgs<T> gb = g;
    gb.a += bi * a_size;
    gb.b += bi * b_size;
    NaiveGemm(gb, &ref, &mag);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const int64_t idx = bi * c_size + i * ldc + j;
        if (j >= c.n) {
          ASSERT_EQ(out[idx], before[idx]) << "padding touched at " << i;
          continue;
        }
        long double want = ref[i * c.n + j];
        if (c.accumulate) want += before[idx];
        const long double tol =
            eps * (mag[i * c.n + j] + std::fabs(before[idx]) + 1) *
            std::sqrt(static_cast<long double>(c.k + 1));
        ASSERT_NEAR(out[idx], want, tol)
            << "at batch " << bi << " (" << i << ", " << j << ")";
      }
    }
  }
}

std::vector<Case> ShapeCases() {
  std::vector<Case> cases;
  const int64_t sizes[] = {1, 7, 33, 65, 127, 257};
  for (int64_t m : sizes) {
    for (int64_t n : sizes) {
      for (int64_t k : {int64_t{1}, int64_t{33}, int64_t{257}}) {
        cases.push_back({m, n, k});
      }
    }
  }
  // Larger than one cache block in every dimension (mc, kc, nc edges).
  cases.push_back({400, 300, 600});
  cases.push_back({129, 4200, 70});
  return cases;
}

class GemmKernelTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!internal::ForceGemmKernelForTesting(GetParam())) {
      GTEST_SKIP() << GetParam() << " micro-kernel not supported here";
    }
  }
  void TearDown() override { internal::ForceGemmKernelForTesting(nullptr); }
};

TEST_P(GemmKernelTest, ReportsForcedKernel) {
  EXPECT_STREQ(GemmKernelName(), GetParam());
}

TEST_P(GemmKernelTest, ShapesF32SingleThread) {
  for (const Case& c : ShapeCases()) RunCase<float>(c, nullptr);
}

TEST_P(GemmKernelTest, ShapesF64TwoThreads) {
  ThreadPool pool(2);
  for (const Case& c : ShapeCases()) RunCase<double>(c, &pool);
}

TEST_P(GemmKernelTest, TransposedAndAccumulate) {
  ThreadPool pool(2);
  for (bool at : {false, true}) {
    for (bool bt : {false, true}) {
      for (bool acc : {false, true}) {
        for (int64_t s : {int64_t{7}, int64_t{65}, int64_t{257}}) {
          RunCase<float>({s, s + 3, s + 1, at, bt, acc}, &pool);
          RunCase<double>({s + 2, s, s, at, bt, acc, 1, 5}, &pool);
        }
      }
    }
  }
}

TEST_P(GemmKernelTest, SmallBlockingExercisesEveryLoop) {
  // Tiny cache blocks force several jc/pc/ic iterations and accumulation
  // across the k blocks.
  internal::SetGemmBlockingForTesting({28, 20, 64}, {28, 20, 32});
  ThreadPool pool(2);
  RunCase<float>({131, 150, 97}, &pool);
  RunCase<float>({131, 150, 97, true, true, true}, nullptr);
  RunCase<double>({131, 150, 97, false, true, true}, &pool);
  internal::SetGemmBlockingForTesting({}, {});
}

INSTANTIATE_TEST_SUITE_P(Kernels, GemmKernelTest,
                         ::testing::Values("avx512", "avx2", "generic"),
                         [](const auto& info) {
                           return std::string(info.param);
                         });

TEST(GemmTest, KernelNameIsKnown) {
  const std::string name = GemmKernelName();
  EXPECT_TRUE(name == "avx512" || name == "avx2" || name == "generic") << name;
  EXPECT_FALSE(internal::ForceGemmKernelForTesting("sse9"));
  EXPECT_EQ(GemmKernelName(), name);
}

TEST(GemmTest, HandComputed2x2) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50].
  const float a[] = {1, 2, 3, 4};
  const float b[] = {5, 6, 7, 8};
  float c[4] = {-1, -1, -1, -1};
  GemmArgs<float> g{2, 2, 2, a, 2, 1, b, 2, 1, c, 2};
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  EXPECT_EQ(c[0], 19);
  EXPECT_EQ(c[1], 22);
  EXPECT_EQ(c[2], 43);
  EXPECT_EQ(c[3], 50);
  // Transposed A via strides: A^T = [1 3; 2 4]; A^T * B = [26 30; 38 44].
  g.a_row_stride = 1;
  g.a_col_stride = 2;
  g.accumulate = true;  // adds onto the previous result
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  EXPECT_EQ(c[0], 19 + 26);
  EXPECT_EQ(c[1], 22 + 30);
  EXPECT_EQ(c[2], 43 + 38);
  EXPECT_EQ(c[3], 50 + 44);
}

TEST(GemmTest, KZeroWritesZerosOrKeeps) {
  float c[6] = {1, 2, 3, 4, 5, 6};
  const float dummy = 0;
  GemmArgs<float> g{2, 3, 0, &dummy, 0, 1, &dummy, 3, 1, c, 3};
  g.accumulate = true;
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  EXPECT_EQ(c[5], 6);
  g.accumulate = false;
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  for (float x : c) EXPECT_EQ(x, 0);
}

TEST(GemmTest, EmptyMOrNTouchesNothing) {
  double c[4] = {1, 2, 3, 4};
  const double a[4] = {1, 1, 1, 1};
  GemmArgs<double> g{0, 2, 2, a, 2, 1, a, 2, 1, c, 2};
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  g.m = 2;
  g.n = 0;
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[3], 4);
}

TEST(GemmTest, OverwriteIgnoresNaNInC) {
  ThreadPool pool(2);
  for (int64_t s : {int64_t{3}, int64_t{40}, int64_t{300}}) {
    std::vector<float> a(s * s, 1.0f), b(s * s, 2.0f);
    std::vector<float> c(s * s, std::nanf(""));
    GemmArgs<float> g{s, s, s, a.data(), s, 1, b.data(), s, 1, c.data(), s};
    ASSERT_TRUE(Gemm(g, &pool).ok());
    for (float x : c) ASSERT_EQ(x, 2.0f * static_cast<float>(s));
  }
}

TEST(GemmTest, MatrixVector) {
  ThreadPool pool(2);
  for (int64_t k : {int64_t{1}, int64_t{17}, int64_t{1000}}) {
    for (int64_t len : {int64_t{1}, int64_t{5}, int64_t{2049}}) {
      for (bool t : {false, true}) {
        for (bool acc : {false, true}) {
          RunCase<float>({len, 1, k, t, t, acc}, &pool);
          RunCase<float>({1, len, k, t, !t, acc}, &pool);
          RunCase<double>({len, 1, k, !t, t, acc, 2}, &pool);
          RunCase<double>({1, len, k, t, t, acc, 1, 3}, nullptr);
        }
      }
    }
  }
}

TEST(GemmTest, Batched) {
  ThreadPool pool(2);
  RunCase<float>({5, 6, 7, false, false, false, 40}, &pool);
  RunCase<float>({33, 17, 65, true, false, true, 9}, &pool);
  RunCase<double>({130, 140, 150, false, true, false, 3, 2}, &pool);
  RunCase<float>({1, 300, 70, false, false, false, 4}, &pool);
}

TEST(GemmTest, BroadcastBatchStrideZero) {
  // b_batch_stride = 0 reuses one B for every batch.
  const float a[4] = {1, 2, 3, 4};  // two 1x2 rows, one per batch
  const float b[2] = {10, 100};     // 2x1
  float c[2] = {0, 0};
  GemmArgs<float> g{1, 1, 2, a, 2, 1, b, 1, 1, c, 1};
  g.batch_count = 2;
  g.a_batch_stride = 2;
  g.b_batch_stride = 0;
  g.c_batch_stride = 1;
  ASSERT_TRUE(Gemm(g, nullptr).ok());
  EXPECT_EQ(c[0], 210);
  EXPECT_EQ(c[1], 430);
}

TEST(GemmTest, ConcurrentCallsOnOnePool) {
  ThreadPool pool(2);
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&pool, t] {
      RunCase<float>({150 + t, 170, 130}, &pool);
      RunCase<double>({90, 100 + t, 200, true, false, true}, &pool);
    });
  }
  for (auto& th : threads) th.join();
}

TEST(GemmTest, NestedInsideParallelFor) {
  ThreadPool pool(2);
  pool.ParallelFor(4, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) RunCase<float>({100 + i, 140, 150}, &pool);
  });
}

}  // namespace
}  // namespace plexa::cpu
