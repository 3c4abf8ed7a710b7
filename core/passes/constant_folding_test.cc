#include "core/passes/constant_folding.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(ConstantFoldingTest, FoldsChainsOfConstantArithmetic) {
  // {1,2} + {3,4} = {4,6}; negated {-4,-6}; x * that stays.
  ConstantFolding folding;
  ExpectRewrite(folding, R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      %a = f32[2] constant({1, 2})
      %b = f32[2] constant({3, 4})
      %s = f32[2] add(%a, %b)
      %n = f32[2] negate(%s)
      ROOT %r = f32[2] multiply(%x, %n)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      %constant.1 = f32[2] constant({-4, -6})
      ROOT %r = f32[2] multiply(%x, %constant.1)
    }
  )");
}

TEST(ConstantFoldingTest, BroadcastOperandsFoldButBroadcastsDoNot) {
  // broadcast(2) stays a broadcast; 2*2 over it folds to {4, 4, 4}; the
  // reduce of {1, 2, 3} (with its add computation) folds to 6.
  ConstantFolding folding;
  ExpectRewrite(folding, R"(
    HloModule m

    %add (a: s32[], b: s32[]) -> s32[] {
      %a = s32[] parameter(0)
      %b = s32[] parameter(1)
      ROOT %s = s32[] add(%a, %b)
    }

    ENTRY %main (x: f32[3]) -> (f32[3], f32[3], s32[]) {
      %x = f32[3] parameter(0)
      %c = f32[] constant(2)
      %b = f32[3] broadcast(%c), dimensions={}
      %sq = f32[3] multiply(%b, %b)
      %v = s32[3] constant({1, 2, 3})
      %zero = s32[] constant(0)
      %sum = s32[] reduce(%v, %zero), dimensions={0}, to_apply=%add
      %keep = f32[3] add(%x, %b)
      ROOT %t = (f32[3], f32[3], s32[]) tuple(%sq, %keep, %sum)
    }
  )",
                R"(
    HloModule m

    %add (a: s32[], b: s32[]) -> s32[] {
      %a = s32[] parameter(0)
      %b = s32[] parameter(1)
      ROOT %s = s32[] add(%a, %b)
    }

    ENTRY %main (x: f32[3]) -> (f32[3], f32[3], s32[]) {
      %x = f32[3] parameter(0)
      %c = f32[] constant(2)
      %b = f32[3] broadcast(%c), dimensions={}
      %keep = f32[3] add(%x, %b)
      %constant.0 = f32[3] constant({4, 4, 4})
      %constant.1 = s32[] constant(6)
      ROOT %t = (f32[3], f32[3], s32[]) tuple(%constant.0, %keep, %constant.1)
    }
  )");
}

TEST(ConstantFoldingTest, RespectsTheSizeLimit) {
  ConstantFolding::Options options;
  options.max_result_elements = 2;
  ConstantFolding folding(options);
  const char* text = R"(
    HloModule m

    ENTRY %main () -> f32[3] {
      %a = f32[3] constant({1, 2, 3})
      ROOT %n = f32[3] negate(%a)
    }
  )";
  ExpectRewrite(folding, text, text, /*changed=*/false);
}

TEST(ConstantFoldingTest, NeverFoldsRngCustomCallReplicaIdOrIota) {
  ConstantFolding folding;
  const char* text = R"(
    HloModule m

    ENTRY %main () -> (f32[2], f32[2], u32[], s32[4]) {
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %cc = f32[2] custom-call(%lo), custom_call_target="f"
      %id = u32[] replica-id()
      %one = u32[] constant(1)
      %plus = u32[] add(%id, %one)
      %io = s32[4] iota(), iota_dimension=0
      ROOT %t = (f32[2], f32[2], u32[], s32[4]) tuple(%r, %cc, %plus, %io)
    }
  )";
  ExpectRewrite(folding, text, text, /*changed=*/false);
}

TEST(ConstantFoldingTest, FoldsShortWhileLoopsButNotLongOnes) {
  // Counting from 0 while < 3 gives 3. Counting to 100000 exceeds the
  // iteration limit (1000) and is left alone.
  ConstantFolding folding;
  ExpectRewrite(folding, R"(
    HloModule m

    %cond3 (a: s32[]) -> pred[] {
      %a = s32[] parameter(0)
      %n = s32[] constant(3)
      ROOT %lt = pred[] compare(%a, %n), direction=LT
    }

    %condbig (b: s32[]) -> pred[] {
      %b = s32[] parameter(0)
      %n = s32[] constant(100000)
      ROOT %lt = pred[] compare(%b, %n), direction=LT
    }

    %inc (c: s32[]) -> s32[] {
      %c = s32[] parameter(0)
      %one = s32[] constant(1)
      ROOT %next = s32[] add(%c, %one)
    }

    ENTRY %main () -> (s32[], s32[]) {
      %zero = s32[] constant(0)
      %short = s32[] while(%zero), condition=%cond3, body=%inc
      %long = s32[] while(%zero), condition=%condbig, body=%inc
      ROOT %t = (s32[], s32[]) tuple(%short, %long)
    }
  )",
                R"(
    HloModule m

    %cond3 (a: s32[]) -> pred[] {
      %a = s32[] parameter(0)
      %n = s32[] constant(3)
      ROOT %lt = pred[] compare(%a, %n), direction=LT
    }

    %condbig (b: s32[]) -> pred[] {
      %b = s32[] parameter(0)
      %n = s32[] constant(100000)
      ROOT %lt = pred[] compare(%b, %n), direction=LT
    }

    %inc (c: s32[]) -> s32[] {
      %c = s32[] parameter(0)
      %one = s32[] constant(1)
      ROOT %next = s32[] add(%c, %one)
    }

    ENTRY %main () -> (s32[], s32[]) {
      %zero = s32[] constant(0)
      %long = s32[] while(%zero), condition=%condbig, body=%inc
      %constant.0 = s32[] constant(3)
      ROOT %t = (s32[], s32[]) tuple(%constant.0, %long)
    }
  )");
}

}  // namespace
}  // namespace plexa
