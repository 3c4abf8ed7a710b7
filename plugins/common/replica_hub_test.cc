// The replica rendezvous: every replica sees every replica's pointers, in
// replica order; exchanges repeat; a cancelled hub releases the waiting
// replicas with the cancelling status.
#include "plugins/common/replica_hub.h"

#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

TEST(ReplicaHubTest, EveryReplicaSeesEveryReplicasLeavesInOrder) {
  constexpr int kReplicas = 3;
  ReplicaHub hub(kReplicas);
  int values[kReplicas] = {10, 20, 30};
  std::vector<absl::Status> status(kReplicas);
  std::vector<std::vector<const void*>> seen(kReplicas);
  std::vector<std::thread> threads;
  for (int r = 0; r < kReplicas; ++r) {
    threads.emplace_back([&, r] {
      for (int round = 0; round < 2; ++round) {  // the hub is reusable
        auto all = hub.Arrive(r, {&values[r]});
        if (!all.ok()) {
          status[r] = all.status();
          return;
        }
        seen[r].clear();
        for (const std::vector<const void*>& leaves : *all) {
          seen[r].push_back(leaves.at(0));
        }
        if (absl::Status s = hub.Leave(); !s.ok()) {
          status[r] = s;
          return;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < kReplicas; ++r) {
    ASSERT_TRUE(status[r].ok()) << status[r];
    ASSERT_EQ(seen[r].size(), static_cast<size_t>(kReplicas));
    for (int k = 0; k < kReplicas; ++k) EXPECT_EQ(seen[r][k], &values[k]);
  }
}

TEST(ReplicaHubTest, CancelReleasesAWaitingReplica) {
  ReplicaHub hub(2);
  int value = 1;
  absl::Status waited;
  std::thread waiter([&] { waited = hub.Arrive(0, {&value}).status(); });
  hub.Cancel(absl::InternalError("replica 1 failed"));
  waiter.join();
  EXPECT_EQ(waited, absl::InternalError("replica 1 failed"));
  // Later arrivals fail the same way.
  EXPECT_EQ(hub.Arrive(1, {&value}).status(),
            absl::InternalError("replica 1 failed"));
}

}  // namespace
}  // namespace plexa::backend
