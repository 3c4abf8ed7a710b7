#include "core/passes/async_to_sync.h"

#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

// XLA's async wrapper of a multiply: the start/update/done chain becomes
// a call of the wrapped computation on the start's operands.
TEST(AsyncToSyncTest, AsyncChainBecomesACall) {
  AsyncToSync pass;
  ExpectRewrite(pass, R"(
    HloModule m

    %wrapped (a: f32[4], b: f32[4]) -> f32[4] {
      %a = f32[4] parameter(0)
      %b = f32[4] parameter(1)
      ROOT %m = f32[4] multiply(%a, %b)
    }

    ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %y = f32[4] parameter(1)
      %s = ((f32[4], f32[4]), f32[4], s32[]) async-start(%x, %y), calls=%wrapped
      %u = ((f32[4], f32[4]), f32[4], s32[]) async-update(%s)
      %d = f32[4] async-done(%u)
      ROOT %n = f32[4] negate(%d)
    }
  )",
                R"(
    HloModule m

    %wrapped (a: f32[4], b: f32[4]) -> f32[4] {
      %a = f32[4] parameter(0)
      %b = f32[4] parameter(1)
      ROOT %m = f32[4] multiply(%a, %b)
    }

    ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %y = f32[4] parameter(1)
      %call.0 = f32[4] call(%x, %y), to_apply=%wrapped
      ROOT %n = f32[4] negate(%call.0)
    }
  )");
}

// copy-done(copy-start(x)) is copy(x); add-dependency(x, token) and
// domain(x) are x.
TEST(AsyncToSyncTest, CopyPairsAndOrderingOnlyOps) {
  AsyncToSync pass;
  ExpectRewrite(pass, R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> (f32[3], f32[3]) {
      %x = f32[3] parameter(0)
      %cs = (f32[3], f32[3], u32[]) copy-start(%x), cross_program_prefetch_index=0
      %cd = f32[3] copy-done(%cs)
      %tok = token[] after-all()
      %ad = f32[3] add-dependency(%x, %tok)
      %dom = f32[3] domain(%ad), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
      ROOT %t = (f32[3], f32[3]) tuple(%cd, %dom)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> (f32[3], f32[3]) {
      %x = f32[3] parameter(0)
      %copy.0 = f32[3] copy(%x)
      ROOT %t = (f32[3], f32[3]) tuple(%copy.0, %x)
    }
  )");
}

// In the default pipeline the call is inlined: nothing async is left.
TEST(AsyncToSyncTest, TheDefaultPipelineLeavesTheWrappedInstruction) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(R"(
    HloModule m

    %wrapped (a: f32[4]) -> f32[4] {
      %a = f32[4] parameter(0)
      ROOT %e = f32[4] exponential(%a)
    }

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %s = ((f32[4]), f32[4], s32[]) async-start(%x), calls=%wrapped
      ROOT %d = f32[4] async-done(%s)
    }
  )");
  ASSERT_TRUE(m.ok()) << m.status();
  PipelineOptions options;
  options.assign_layouts = false;
  ASSERT_TRUE(RunDefaultPipeline(m->get(), options).ok());
  const Instruction* root = (*m)->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kExp);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);
}

}  // namespace
}  // namespace plexa
