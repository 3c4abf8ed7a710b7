// Shape inference of all-gather and reduce-scatter, and the replica-group
// checks (XLA's shape_inference.cc and hlo_verifier.cc).
#include <vector>

#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::Reducer;
using testing_util::S;
using Groups = std::vector<std::vector<int64_t>>;

TEST(ReplicaGroupsTest, SizeAndXlaChecks) {
  EXPECT_EQ(*CheckReplicaGroups("op", Groups{}), 0);
  EXPECT_EQ(*CheckReplicaGroups("op", Groups{{1, 0}, {3, 2}}), 2);
  EXPECT_INVALID(CheckReplicaGroups("all-gather", Groups{{0, 1}, {2}}),
                 "all-gather", "one size", "of 2", "of 1");
  EXPECT_INVALID(CheckReplicaGroups("all-gather", Groups{{0, 1}, {1, 2}}),
                 "replica 1", "more than once");
  EXPECT_INVALID(CheckReplicaGroups("all-gather", Groups{{0, 2}}), "replica 1",
                 "not named");
  EXPECT_INVALID(CheckReplicaGroups("all-gather", Groups{{}}), "empty");
  EXPECT_INVALID(CheckReplicaGroups("all-gather", Groups{{-1, 0}}),
                 "negative replica id -1");
}

TEST(AllGatherTest, DimensionTimesGroupSize) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("s32[2,5]");
  EXPECT_SHAPE(InferAllGatherShape({&a}, Groups{{0, 1}}, {0}, nullptr),
               "f32[4,3]");
  EXPECT_SHAPE(InferAllGatherShape({&a}, Groups{{0, 1, 2, 3}}, {1}, nullptr),
               "f32[2,12]");
  EXPECT_SHAPE(
      InferAllGatherShape({&a, &b}, Groups{{0, 1}, {2, 3}}, {1}, nullptr),
      "(f32[2,6], s32[2,10])");
  // replica_groups={}: the written result tells the group size.
  const Shape declared = S("f32[2,9]");
  EXPECT_SHAPE(InferAllGatherShape({&a}, Groups{}, {1}, &declared), "f32[2,9]");
  const Shape odd = S("f32[2,8]");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{}, {1}, &odd), "all-gather",
                 "f32[2,8]", "not a multiple");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{}, {1}, nullptr),
                 "replica_groups={}", "result shape written");
}

TEST(AllGatherTest, CrossReplicaAndPartitionTakesTheDeclaredShardCount) {
  // channel_id without use_global_device_ids: groups of 2 replicas, each
  // with every partition (the module's num_partitions, say 3): 6 shards.
  const Shape a = S("f32[2,3]");
  const Shape six = S("f32[12,3]");
  EXPECT_SHAPE(InferAllGatherShape({&a}, Groups{{0, 1}}, {0}, &six,
                                   /*times_partitions=*/true),
               "f32[12,3]");
  const Shape five = S("f32[10,3]");  // not a multiple of the group of 2
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{{0, 1}}, {0}, &five,
                                     /*times_partitions=*/true),
                 "f32[10,3]", "not a multiple");
  // Without partitions a written shape must match the group exactly.
  EXPECT_SHAPE(InferAllGatherShape({&a}, Groups{{0, 1}}, {0}, &six),
               "f32[4,3]");
  // reduce-scatter: 12 rows over 2 replicas x 3 partitions keep 2 each.
  const Shape r = S("f32[12,3]");
  const Shape two = S("f32[2,3]");
  const ProgramShape add = Reducer("f32[]");
  EXPECT_SHAPE(InferReduceScatterShape({&r}, Groups{{0, 1}}, {0}, add, &two,
                                       /*times_partitions=*/true),
               "f32[2,3]");
  const Shape four = S("f32[4,3]");  // 3 shards: not a multiple of 2
  EXPECT_INVALID(InferReduceScatterShape({&r}, Groups{{0, 1}}, {0}, add, &four,
                                         /*times_partitions=*/true),
                 "does not divide");
}

TEST(AllGatherTest, BadDimensionsAndGroups) {
  const Shape a = S("f32[2,3]");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{{0, 1}}, {2}, nullptr),
                 "all-gather", "dimension 2 is out of range", "f32[2,3]",
                 "rank 2");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{{0, 1}}, {-1}, nullptr),
                 "dimension -1 is out of range");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{{0, 1}}, {}, nullptr),
                 "exactly one entry in dimensions");
  EXPECT_INVALID(InferAllGatherShape({&a}, Groups{{0, 1}, {2}}, {0}, nullptr),
                 "one size");
  const Shape t = S("(f32[2])");
  EXPECT_INVALID(InferAllGatherShape({&t}, Groups{{0}}, {0}, nullptr),
                 "(f32[2])");
}

TEST(ReduceScatterTest, DimensionDividedByGroupSize) {
  const Shape a = S("f32[8,3]");
  EXPECT_SHAPE(InferReduceScatterShape({&a}, Groups{{0, 1}}, {0},
                                       Reducer("f32[]"), nullptr),
               "f32[4,3]");
  EXPECT_SHAPE(InferReduceScatterShape({&a}, Groups{{0, 1, 2}}, {1},
                                       Reducer("f32[]"), nullptr),
               "f32[8,1]");
  EXPECT_INVALID(InferReduceScatterShape({&a}, Groups{{0, 1, 2}}, {0},
                                         Reducer("f32[]"), nullptr),
                 "reduce-scatter", "f32[8,3]", "not divisible", "group size 3");
  EXPECT_INVALID(InferReduceScatterShape({&a}, Groups{{0, 1}}, {0},
                                         Reducer("s32[]"), nullptr),
                 "reduce-scatter", "reduction computation", "s32[]");
  EXPECT_INVALID(InferReduceScatterShape({&a}, Groups{{0, 1}}, {3},
                                         Reducer("f32[]"), nullptr),
                 "dimension 3 is out of range");
  const Shape declared = S("f32[2,3]");
  EXPECT_SHAPE(
      InferReduceScatterShape({&a}, Groups{}, {0}, Reducer("f32[]"), &declared),
      "f32[2,3]");
  const Shape bad = S("f32[3,3]");
  EXPECT_INVALID(
      InferReduceScatterShape({&a}, Groups{}, {0}, Reducer("f32[]"), &bad),
      "f32[3,3]", "does not divide");
}

TEST(AllToAllTest, ArrayAndTupleForms) {
  const Shape a = S("f32[4,6]");
  const Shape b = S("s32[3]");
  EXPECT_SHAPE(InferAllToAllShape({&a}, Groups{{0, 1}}, {0}), "f32[4,6]");
  EXPECT_SHAPE(InferAllToAllShape({&a}, Groups{{0, 1, 2}}, {1}), "f32[4,6]");
  EXPECT_SHAPE(InferAllToAllShape({&a}, Groups{}, {1}), "f32[4,6]");
  EXPECT_INVALID(InferAllToAllShape({&a}, Groups{{0, 1, 2}}, {0}), "all-to-all",
                 "f32[4,6]", "not divisible", "group size 3");
  EXPECT_INVALID(InferAllToAllShape({&a}, Groups{{0, 1}}, {2}),
                 "dimension 2 is out of range");
  EXPECT_INVALID(InferAllToAllShape({&a, &a}, Groups{{0, 1}}, {0}),
                 "with dimensions= takes one operand");
  // The tuple form: one operand per member.
  EXPECT_SHAPE(InferAllToAllShape({&a, &b}, Groups{{1, 0}}, {}),
               "(f32[4,6], s32[3])");
  EXPECT_INVALID(InferAllToAllShape({&a, &b}, Groups{{0, 1, 2}}, {}),
                 "one operand per member", "(3)", "got 2");
}

TEST(AsyncPairsTest, StartAndDoneShapes) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("s32[4]");
  EXPECT_SHAPE(InferAllGatherStartShape({&a}, Groups{{0, 1}}, {0}, nullptr),
               "(f32[2,3], f32[4,3])");
  EXPECT_SHAPE(InferAllGatherStartShape({&a, &b}, Groups{{0, 1}}, {0}, nullptr),
               "((f32[2,3], s32[4]), (f32[4,3], s32[8]))");
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_SHAPE(InferCollectivePermuteStartShape({&a}, Pairs{{0, 1}}),
               "(f32[2,3], f32[2,3], u32[], u32[])");
  // XLA's combined form: the operands' tuple as operand and as result.
  EXPECT_SHAPE(InferCollectivePermuteStartShape({&a, &b}, Pairs{{0, 1}}),
               "((f32[2,3], s32[4]), (f32[2,3], s32[4]), u32[], u32[])");
  const Shape start = S("(f32[2,3], f32[4,3])");
  EXPECT_SHAPE(InferAsyncDoneShape(HloOpcode::kAllGatherDone, start),
               "f32[4,3]");
  EXPECT_SHAPE(InferAsyncDoneShape(HloOpcode::kAllReduceDone, a), "f32[2,3]");
  EXPECT_INVALID(InferAsyncDoneShape(HloOpcode::kCollectivePermuteDone, a),
                 "collective-permute-done", "tuple", "f32[2,3]");
}

TEST(CollectivePermuteTest, OperandShapeAndUniquePairs) {
  const Shape a = S("s32[2,3]");
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;
  EXPECT_SHAPE(InferCollectivePermuteShape({&a}, Pairs{{0, 1}, {1, 0}}),
               "s32[2,3]");
  EXPECT_SHAPE(InferCollectivePermuteShape({&a}, Pairs{}), "s32[2,3]");
  EXPECT_INVALID(InferCollectivePermuteShape({&a}, Pairs{{0, 2}, {1, 2}}),
                 "collective-permute", "target 2", "more than once");
  EXPECT_INVALID(InferCollectivePermuteShape({&a}, Pairs{{0, 1}, {0, 2}}),
                 "source 0", "more than once");
  EXPECT_INVALID(InferCollectivePermuteShape({&a}, Pairs{{0, -1}}),
                 "negative replica id -1");
  const Shape t = S("(f32[2])");
  EXPECT_INVALID(InferCollectivePermuteShape({&t}, Pairs{{0, 1}}), "(f32[2])");
  // XLA's combined form: several arrays, their tuple; a tuple among them is
  // refused as in XLA (ExpectArray on each).
  const Shape b = S("f16[5]");
  EXPECT_SHAPE(InferCollectivePermuteShape({&a, &b}, Pairs{{0, 1}}),
               "(s32[2,3], f16[5])");
  EXPECT_INVALID(InferCollectivePermuteShape({&a, &t}, Pairs{{0, 1}}),
                 "(f32[2])");
  EXPECT_INVALID(InferCollectivePermuteShape({}, Pairs{{0, 1}}),
                 "at least one operand");
}

TEST(CollectiveBroadcastTest, OperandShapeAndGroups) {
  const Shape a = S("s32[2,3]");
  EXPECT_SHAPE(InferCollectiveBroadcastShape(a, Groups{{0, 1}, {2, 3}}),
               "s32[2,3]");
  EXPECT_SHAPE(InferCollectiveBroadcastShape(a, Groups{{1, 0}}), "s32[2,3]");
  EXPECT_SHAPE(InferCollectiveBroadcastShape(a, Groups{}), "s32[2,3]");
  EXPECT_INVALID(InferCollectiveBroadcastShape(a, Groups{{0, 1}, {2}}),
                 "collective-broadcast", "one size");
  EXPECT_INVALID(InferCollectiveBroadcastShape(a, Groups{{0, 1}, {1, 2}}),
                 "collective-broadcast", "replica 1", "more than once");
  EXPECT_INVALID(InferCollectiveBroadcastShape(a, Groups{{0, 2}}),
                 "replica 1 is not named");
  const Shape t = S("(f32[2])");
  EXPECT_INVALID(InferCollectiveBroadcastShape(t, Groups{{0, 1}}),
                 "operand of collective-broadcast", "(f32[2])");
}

}  // namespace
}  // namespace plexa::shape_inference
