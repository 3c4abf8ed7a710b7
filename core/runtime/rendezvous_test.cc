// The replica rendezvous (core/runtime/rendezvous.h): contributions come back
// in group order; groups meet independently; repeated meetings under new
// keys; a replica that finishes or fails without joining, or replicas that
// wait in different meetings, release the waiters with ABORTED.
#include "core/runtime/rendezvous.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RendezvousTest, EveryMemberGetsEveryContributionInGroupOrder) {
  constexpr int kReplicas = 3;
  Rendezvous<int> hub(kReplicas);
  std::vector<std::vector<int>> seen(kReplicas);
  std::vector<absl::Status> status(kReplicas);
  std::vector<std::thread> threads;
  for (int r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      int total = 0;
      for (int round = 0; round < 3; ++round) {  // repeated meetings
        auto all = hub.Exchange("ar#" + std::to_string(round), {2, 0, 1}, r,
                                10 * r + round);
        if (!all.ok()) {
          status[r] = all.status();
          return;
        }
        for (int v : *all) total += v;
        seen[r] = *all;
      }
      seen[r].push_back(total);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kReplicas; ++r) {
    ASSERT_TRUE(status[r].ok()) << status[r];
    // Group order {2, 0, 1} in the last round (round 2): 22, 2, 12; the
    // totals over rounds 0..2: (20+0+10) + (21+1+11) + (22+2+12) = 99.
    EXPECT_THAT(seen[r], ElementsAre(22, 2, 12, 99));
  }
}

TEST(RendezvousTest, DisjointGroupsMeetIndependently) {
  Rendezvous<int> hub(4);
  std::vector<std::vector<int>> seen(4);
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      const std::vector<int64_t> group =
          r < 2 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{2, 3};
      auto all = hub.Exchange("ar#0", group, r, r + 1);
      if (all.ok()) seen[r] = *all;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_THAT(seen[0], ElementsAre(1, 2));
  EXPECT_THAT(seen[1], ElementsAre(1, 2));
  EXPECT_THAT(seen[2], ElementsAre(3, 4));
  EXPECT_THAT(seen[3], ElementsAre(3, 4));
}

TEST(RendezvousTest, AMemberThatFailsReleasesTheWaiters) {
  Rendezvous<int> hub(2);
  absl::Status waited;
  std::thread waiter([&] {
    waited = hub.Exchange("ar#0", {0, 1}, 0, 1).status();
  });
  hub.MarkDone(1, /*failed=*/true);
  waiter.join();
  EXPECT_EQ(waited.code(), absl::StatusCode::kAborted);
  EXPECT_THAT(waited.message(),
              HasSubstr("replica 1 failed without joining the collective"));
}

TEST(RendezvousTest, ReplicasInDifferentMeetingsAreADeadlockNotAHang) {
  Rendezvous<int> hub(2);
  absl::Status a, b;
  // As executors do, each replica says when it is done (the first to see
  // the deadlock returns, and its MarkDone releases the other).
  std::thread ta([&] {
    a = hub.Exchange("x#0", {0, 1}, 0, 1).status();
    hub.MarkDone(0, !a.ok());
  });
  std::thread tb([&] {
    b = hub.Exchange("y#0", {0, 1}, 1, 2).status();
    hub.MarkDone(1, !b.ok());
  });
  ta.join();
  tb.join();
  EXPECT_EQ(a.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(b.code(), absl::StatusCode::kAborted);
  EXPECT_TRUE(absl::StrContains(a.message(), "deadlock") ||
              absl::StrContains(b.message(), "deadlock"))
      << a << " / " << b;
}

TEST(RendezvousTest, BadGroupsAreErrors) {
  Rendezvous<int> hub(2);
  EXPECT_EQ(hub.Exchange("k", {1}, 0, 1).status().code(),
            absl::StatusCode::kInternal);  // 0 is not in its group
  EXPECT_THAT(hub.Exchange("k", {0, 5}, 0, 1).status().message(),
              HasSubstr("names replica 5 but 2 replica(s) run"));
  // A group of one meets at once.
  auto alone = hub.Exchange("solo", {1}, 1, 7);
  ASSERT_TRUE(alone.ok()) << alone.status();
  EXPECT_THAT(*alone, ElementsAre(7));
}

}  // namespace
}  // namespace plexa
