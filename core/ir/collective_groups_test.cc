// Collective groups over replicas x partitions (core/ir/collective_groups.h).
// Expected groups are written out by hand from XLA's rules
// (GetParticipatingDevices): device d = replica * partitions + partition.
#include "core/ir/collective_groups.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Groups = std::vector<std::vector<int64_t>>;

// A module whose root is `root` (text after "ROOT r = ") over p: f32[4].
std::unique_ptr<Module> ModuleWithRoot(const std::string& root) {
  const std::string text = R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4] parameter(0)
  ROOT r = )" + root + "\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  return m.ok() ? *std::move(m) : nullptr;
}

const Instruction& Root(const Module& m) {
  return *m.entry_computation()->root_instruction();
}

TEST(DeviceGridTest, NumbersDevicesReplicaMajor) {
  const DeviceGrid grid{2, 3};
  EXPECT_EQ(grid.size(), 6);
  EXPECT_EQ(grid.Device(1, 2), 5);
  EXPECT_EQ(grid.ReplicaOf(4), 1);
  EXPECT_EQ(grid.PartitionOf(4), 1);
  EXPECT_EQ(grid.Name(4), "replica 1, partition 1");
  EXPECT_EQ((DeviceGrid{3, 1}.Name(2)), "replica 2");
}

TEST(CollectiveGroupsTest, ModesFollowChannelIdAndGlobalDeviceIds) {
  struct Case {
    std::string root;
    CollectiveGroupMode mode;
  };
  const std::vector<Case> cases = {
      {"f32[4] all-reduce(p), replica_groups={}, to_apply=add",
       CollectiveGroupMode::kCrossReplica},
      {"f32[4] all-reduce(p), channel_id=1, replica_groups={}, to_apply=add",
       CollectiveGroupMode::kCrossReplicaAndPartition},
      {"f32[4] all-reduce(p), channel_id=1, replica_groups={{0,1,2,3}}, "
       "use_global_device_ids=true, to_apply=add",
       CollectiveGroupMode::kFlattenedId},
      {"f32[4] all-to-all(p), channel_id=1, replica_groups={{0,1}}, "
       "dimensions={0}",
       CollectiveGroupMode::kCrossPartition},
      {"f32[4] collective-permute(p), channel_id=1, "
       "source_target_pairs={{0,1}}",
       CollectiveGroupMode::kCrossPartition},
      {"f32[4] collective-permute(p), source_target_pairs={{0,1}}",
       CollectiveGroupMode::kCrossReplica},
  };
  for (const Case& c : cases) {
    std::unique_ptr<Module> m = ModuleWithRoot(c.root);
    ASSERT_NE(m, nullptr);
    absl::StatusOr<CollectiveGroupMode> mode = CollectiveGroupModeOf(Root(*m));
    ASSERT_TRUE(mode.ok()) << mode.status();
    EXPECT_EQ(*mode, c.mode)
        << c.root << ": got " << CollectiveGroupModeName(*mode);
  }
}

TEST(CollectiveGroupsTest, CrossReplicaMeetsWithinEachPartition) {
  // 2 replicas x 2 partitions: replica group {0,1} in partition 0 is
  // devices {0,2}, in partition 1 devices {1,3}.
  auto m = ModuleWithRoot(
      "f32[4] all-reduce(p), replica_groups={{0,1}}, to_apply=add");
  auto groups = CollectiveDeviceGroups(Root(*m), DeviceGrid{2, 2});
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (Groups{{0, 2}, {1, 3}}));
}

TEST(CollectiveGroupsTest, CrossPartitionMeetsWithinEachReplica) {
  // 2 replicas x 4 partitions, partition groups {0,1},{2,3}: replica 0 has
  // devices 0..3, replica 1 devices 4..7.
  auto m = ModuleWithRoot(
      "f32[4] all-to-all(p), channel_id=1, replica_groups={{0,1},{2,3}}, "
      "dimensions={0}");
  auto groups = CollectiveDeviceGroups(Root(*m), DeviceGrid{2, 4});
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (Groups{{0, 1}, {4, 5}, {2, 3}, {6, 7}}));
}

TEST(CollectiveGroupsTest, CrossReplicaAndPartitionTakesEveryPartition) {
  // Replica groups {0},{1} of 2 x 2: replica 0's partitions {0,1}, replica
  // 1's {2,3}; with {} every device, replicas in order.
  auto m = ModuleWithRoot(
      "f32[4] all-reduce(p), channel_id=1, replica_groups={{0},{1}}, "
      "to_apply=add");
  auto groups = CollectiveDeviceGroups(Root(*m), DeviceGrid{2, 2});
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (Groups{{0, 1}, {2, 3}}));
  auto all = ModuleWithRoot(
      "f32[4] all-reduce(p), channel_id=1, replica_groups={}, to_apply=add");
  auto every = CollectiveDeviceGroups(Root(*all), DeviceGrid{2, 2});
  ASSERT_TRUE(every.ok()) << every.status();
  EXPECT_EQ(*every, (Groups{{0, 1, 2, 3}}));
}

TEST(CollectiveGroupsTest, FlattenedIdsNameDevices) {
  auto m = ModuleWithRoot(
      "f32[4] all-reduce(p), channel_id=1, replica_groups={{0,3},{1,2}}, "
      "use_global_device_ids=true, to_apply=add");
  auto groups = CollectiveDeviceGroups(Root(*m), DeviceGrid{2, 2});
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (Groups{{0, 3}, {1, 2}}));
  auto group = CollectiveDeviceGroupOf(Root(*m), DeviceGrid{2, 2}, 2);
  ASSERT_TRUE(group.ok()) << group.status();
  EXPECT_THAT(group->devices, ElementsAre(1, 2));
  EXPECT_EQ(group->position, 1);
}

TEST(CollectiveGroupsTest, OnePartitionReadsCrossPartitionIdsAsReplicas) {
  // The documented leniency: channel_id on an all-to-all of a replicated
  // program (1 partition) groups replicas.
  auto m = ModuleWithRoot(
      "f32[4] all-to-all(p), channel_id=1, replica_groups={{0,1}}, "
      "dimensions={0}");
  auto groups = CollectiveDeviceGroups(Root(*m), DeviceGrid{2, 1});
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (Groups{{0, 1}}));
}

TEST(CollectiveGroupsTest, ErrorsNameTheInstruction) {
  auto out_of_range = ModuleWithRoot(
      "f32[4] all-to-all(p), channel_id=1, replica_groups={{0,1},{2,3}}, "
      "dimensions={0}");
  auto s = CollectiveDeviceGroups(Root(*out_of_range), DeviceGrid{2, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              HasSubstr("instruction 'r' (all-to-all): replica_groups mention "
                        "partition 3 but 3 partition(s) run"));
  auto flattened_without_groups = ModuleWithRoot(
      "f32[4] all-reduce(p), channel_id=1, replica_groups={}, "
      "use_global_device_ids=true, to_apply=add");
  auto f =
      CollectiveDeviceGroups(Root(*flattened_without_groups), DeviceGrid{2, 2});
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()),
              HasSubstr("needs explicit replica_groups"));
}

TEST(CollectiveGroupsTest, PermutePairsHoldInEveryReplicaOrPartition) {
  // With a channel_id on 2 x 2: partition pair {0,1} in both replicas,
  // devices 0->1 and 2->3. Without: replica pair {0,1} in both partitions,
  // devices 0->2 and 1->3.
  auto with = ModuleWithRoot(
      "f32[4] collective-permute(p), channel_id=1, "
      "source_target_pairs={{0,1}}");
  auto pairs = DevicePairs(Root(*with), Root(*with).attrs().source_target_pairs,
                           DeviceGrid{2, 2});
  ASSERT_TRUE(pairs.ok()) << pairs.status();
  EXPECT_THAT(*pairs, ElementsAre(std::pair<int64_t, int64_t>{0, 1},
                                  std::pair<int64_t, int64_t>{2, 3}));
  auto without = ModuleWithRoot(
      "f32[4] collective-permute(p), source_target_pairs={{0,1}}");
  auto by_replica =
      DevicePairs(Root(*without), Root(*without).attrs().source_target_pairs,
                  DeviceGrid{2, 2});
  ASSERT_TRUE(by_replica.ok()) << by_replica.status();
  EXPECT_THAT(*by_replica, ElementsAre(std::pair<int64_t, int64_t>{0, 2},
                                       std::pair<int64_t, int64_t>{1, 3}));
}

TEST(CollectiveGroupsTest, ModuleHeaderCounts) {
  auto m = ParseHloModule(
      "HloModule m, replica_count=2, num_partitions=4\n\n"
      "ENTRY e {\n  ROOT c = f32[] constant(1)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  auto partitions = ModuleHeaderCount(**m, "num_partitions");
  ASSERT_TRUE(partitions.ok());
  EXPECT_EQ(partitions->value_or(0), 4);
  auto absent = ModuleHeaderCount(**m, "something_else");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
}

}  // namespace
}  // namespace plexa
