#include "core/passes/sharding_remover.h"

#include "absl/strings/match.h"
#include "core/passes/pass_test_util.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

// What jax.lax.with_sharding_constraint and shard_map leave in HLO on one
// device: identities.
TEST(ShardingRemoverTest, ShardingAnnotationsBecomeTheirOperands) {
  ShardingRemover remover;
  ExpectRewrite(remover, R"(
    HloModule m

    ENTRY %main (x: f32[4,8]) -> f32[4,8] {
      %x = f32[4,8] parameter(0)
      %s = f32[4,8] custom-call(%x), custom_call_target="Sharding", sharding={devices=[2,1]0,1}
      %shard = f32[4,8] custom-call(%s), custom_call_target="SPMDFullToShardShape", sharding={manual}
      %n = f32[4,8] negate(%shard)
      %full = f32[4,8] custom-call(%n), custom_call_target="SPMDShardToFullShape", sharding={replicated}
      ROOT %r = f32[4,8] custom-call(%full), custom_call_target="Sharding", sharding={replicated}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[4,8]) -> f32[4,8] {
      %x = f32[4,8] parameter(0)
      ROOT %n = f32[4,8] negate(%x)
    }
  )");
}

// A shard shape that differs from the full one means several partitions:
// not an identity on one device, and no backend has the target: an error
// naming the target, the instruction, its computation and the shapes.
TEST(ShardingRemoverTest, APartitionedShapeIsALocatedError) {
  ShardingRemover remover;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(R"(
    HloModule m

    ENTRY %main (x: f32[4,8]) -> f32[2,8] {
      %x = f32[4,8] parameter(0)
      ROOT %shard = f32[2,8] custom-call(%x), custom_call_target="SPMDFullToShardShape", sharding={manual}
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<bool> r = remover.Run(**m);
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_TRUE(absl::StrContains(msg, "computation 'main'")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "'shard'")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "\"SPMDFullToShardShape\"")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "(f32[4,8]) to f32[2,8]")) << msg;
}

// Host offloading and Shardy's barriers: identities too.
TEST(ShardingRemoverTest, PlacementAndBarrierAnnotationsBecomeTheirOperands) {
  ShardingRemover remover;
  ExpectRewrite(remover, R"(
    HloModule m

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %h = f32[4] custom-call(%x), custom_call_target="MoveToHost"
      %e = f32[4] exponential(%h)
      %d = f32[4] custom-call(%e), custom_call_target="MoveToDevice"
      %a = f32[4] custom-call(%d), custom_call_target="annotate_device_placement", frontend_attributes={_xla_buffer_placement="pinned_host"}
      %f = f32[4] custom-call(%a), custom_call_target="ShardBarrierFrom"
      ROOT %t = f32[4] custom-call(%f), custom_call_target="ShardBarrierTo"
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      ROOT %e = f32[4] exponential(%x)
    }
  )");
}

// Two operands: not an identity either.
TEST(ShardingRemoverTest, TwoOperandsIsALocatedError) {
  ShardingRemover remover;
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(R"(
    HloModule m

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      ROOT %h = f32[4] custom-call(%x, %x), custom_call_target="MoveToHost"
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<bool> r = remover.Run(**m);
  ASSERT_FALSE(r.ok());
  const std::string msg(r.status().message());
  EXPECT_TRUE(absl::StrContains(msg, "\"MoveToHost\" takes (f32[4], f32[4])"))
      << msg;
}

TEST(ShardingRemoverTest, OtherCustomCallsStay) {
  ShardingRemover remover;
  ExpectRewrite(remover, R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> f32[3] {
      %x = f32[3] parameter(0)
      ROOT %c = f32[3] custom-call(%x), custom_call_target="myfunc"
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> f32[3] {
      %x = f32[3] parameter(0)
      ROOT %c = f32[3] custom-call(%x), custom_call_target="myfunc"
    }
  )",
                /*changed=*/false);
}

}  // namespace
}  // namespace plexa
