#include "core/passes/sharding_remover.h"

#include "core/passes/pass_test_util.h"
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
// not an identity, so the call stays.
TEST(ShardingRemoverTest, APartitionedShapeStays) {
  ShardingRemover remover;
  ExpectRewrite(remover, R"(
    HloModule m

    ENTRY %main (x: f32[4,8]) -> f32[2,8] {
      %x = f32[4,8] parameter(0)
      ROOT %shard = f32[2,8] custom-call(%x), custom_call_target="SPMDFullToShardShape", sharding={manual}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[4,8]) -> f32[2,8] {
      %x = f32[4,8] parameter(0)
      ROOT %shard = f32[2,8] custom-call(%x), custom_call_target="SPMDFullToShardShape", sharding={manual}
    }
  )",
                /*changed=*/false);
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
