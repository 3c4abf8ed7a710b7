#include "plugins/cpu/runtime/thread_pool.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace plexa::cpu {
namespace {

// Records the chunks of one ParallelFor and checks they tile [0, n).
struct Chunks {
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  void Add(int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(mu);
    ranges.emplace_back(b, e);
  }
  void ExpectTiles(int64_t n) {
    std::sort(ranges.begin(), ranges.end());
    int64_t next = 0;
    for (const auto& [b, e] : ranges) {
      EXPECT_EQ(b, next);
      EXPECT_LT(b, e);
      next = e;
    }
    EXPECT_EQ(next, n);
  }
};

TEST(ThreadPoolTest, SizeAtLeastOne) {
  EXPECT_EQ(ThreadPool(0).num_threads(), 1);
  EXPECT_EQ(ThreadPool(3).num_threads(), 3);
  EXPECT_GE(ThreadPool::DefaultNumThreads(), 1);
}

TEST(ThreadPoolTest, CoversRangeWithBoundedChunks) {
  ThreadPool pool(3);
  for (int64_t n : {1, 2, 5, 12, 13, 100, 1000, 100003}) {
    for (int64_t min_chunk : {0, 1, 7, 64}) {
      Chunks c;
      pool.ParallelFor(n, min_chunk,
                       [&](int64_t b, int64_t e) { c.Add(b, e); });
      c.ExpectTiles(n);
      EXPECT_LE(c.ranges.size(), 12u);
      if (n > min_chunk && c.ranges.size() > 1) {
        for (const auto& [b, e] : c.ranges) EXPECT_GE(e - b, min_chunk);
      }
    }
  }
}

TEST(ThreadPoolTest, SmallOrSingleThreadRunsInline) {
  ThreadPool pool(2);
  const std::thread::id me = std::this_thread::get_id();
  int calls = 0;
  pool.ParallelFor(10, 10, [&](int64_t b, int64_t e) {
    ++calls;
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 10);
    EXPECT_EQ(std::this_thread::get_id(), me);
  });
  EXPECT_EQ(calls, 1);
  ThreadPool one(1);
  one.ParallelFor(1000, 1, [&](int64_t b, int64_t e) {
    ++calls;
    EXPECT_EQ(e - b, 1000);
    EXPECT_EQ(std::this_thread::get_id(), me);
  });
  EXPECT_EQ(calls, 2);
}

TEST(ThreadPoolTest, EmptyRangeCallsNothing) {
  ThreadPool pool(2);
  bool called = false;
  pool.ParallelFor(0, 1, [&](int64_t, int64_t) { called = true; });
  pool.ParallelFor(-5, 1, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ThreadPoolTest, UsesBackgroundThreads) {
  ThreadPool pool(2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  // Chunks that wait for each other can only finish if two threads run.
  std::atomic<int> arrived{0};
  pool.ParallelFor(2, 1, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
    }
    ++arrived;
    while (arrived.load() < 2) std::this_thread::yield();
  });
  EXPECT_EQ(ids.size(), 2u);
}

TEST(ThreadPoolTest, NestedRunsInlineWithoutDeadlock) {
  ThreadPool pool(2);
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(8, 1, [&](int64_t b, int64_t e) {
    EXPECT_TRUE(ThreadPool::InParallelRegion());
    for (int64_t i = b; i < e; ++i) {
      int inner_calls = 0;
      pool.ParallelFor(100, 1, [&](int64_t ib, int64_t ie) {
        ++inner_calls;  // inline: only this thread touches it
        for (int64_t j = ib; j < ie; ++j) sum += j;
        pool.ParallelFor(3, 1, [&](int64_t, int64_t) {});  // deeper still
      });
      EXPECT_EQ(inner_calls, 1);
    }
  });
  EXPECT_FALSE(ThreadPool::InParallelRegion());
  EXPECT_EQ(sum.load(), 8 * 4950);
}

TEST(ThreadPoolTest, ConcurrentCallers) {
  ThreadPool pool(2);
  constexpr int kCallers = 4;
  constexpr int kRounds = 200;
  std::vector<int64_t> totals(kCallers, 0);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&pool, &totals, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::atomic<int64_t> sum{0};
        pool.ParallelFor(1000 + t, 10, [&](int64_t b, int64_t e) {
          int64_t s = 0;
          for (int64_t i = b; i < e; ++i) s += i;
          sum += s;
        });
        totals[t] += sum.load();
      }
    });
  }
  for (auto& c : callers) c.join();
  for (int t = 0; t < kCallers; ++t) {
    const int64_t n = 1000 + t;
    EXPECT_EQ(totals[t], kRounds * n * (n - 1) / 2);
  }
}

TEST(ThreadPoolTest, ManySmallJobsAndDestruction) {
  for (int i = 0; i < 20; ++i) {
    ThreadPool pool(3);
    std::atomic<int> count{0};
    for (int j = 0; j < 50; ++j) {
      pool.ParallelFor(7, 1, [&](int64_t b, int64_t e) { count += e - b; });
    }
    EXPECT_EQ(count.load(), 350);
  }
}

}  // namespace
}  // namespace plexa::cpu
