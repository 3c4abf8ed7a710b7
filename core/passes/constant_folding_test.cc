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
  options.max_elements = 2;
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

// XLA's rule counts the operands too: a 2-element result of 3 + 3
// operand elements is over a limit of 5, and folded at 6.
TEST(ConstantFoldingTest, TheSizeLimitCountsTheOperands) {
  const char* text = R"(
    HloModule m

    ENTRY %main () -> f32[2] {
      %a = f32[3] constant({1, 2, 3})
      %b = f32[3] constant({10, 20, 30})
      %s = f32[3] add(%a, %b)
      ROOT %r = f32[2] slice(%s), slice={[0:2]}
    }
  )";
  ConstantFolding::Options five;
  five.max_elements = 5;
  ConstantFolding folding_five(five);
  ExpectRewrite(folding_five, text, text, /*changed=*/false);
  ConstantFolding::Options six;
  six.max_elements = 6;
  ConstantFolding folding_six(six);
  // add: 3 result, 6 operand elements; then slice of the folded constant.
  ExpectRewrite(folding_six, text, R"(
    HloModule m

    ENTRY %main () -> f32[2] {
      ROOT %constant.1 = f32[2] constant({11, 22})
    }
  )");
}

// XLA's default limit (45 million elements): a pad of a two-element
// constant to 50,000,002 elements stays a pad, while the same pad to 6
// elements is folded (by hand: {0, 0, 1, 2, 0, 0}).
TEST(ConstantFoldingTest, ALargePadIsNotFoldedByDefault) {
  ConstantFolding folding;
  const char* large = R"(
    HloModule m

    ENTRY %main () -> f32[50000002] {
      %a = f32[2] constant({1, 2})
      %z = f32[] constant(0)
      ROOT %p = f32[50000002] pad(%a, %z), padding=0_50000000
    }
  )";
  ExpectRewrite(folding, large, large, /*changed=*/false);
  ExpectRewrite(folding, R"(
    HloModule m

    ENTRY %main () -> f32[6] {
      %a = f32[2] constant({1, 2})
      %z = f32[] constant(0)
      ROOT %p = f32[6] pad(%a, %z), padding=2_2
    }
  )",
                R"(
    HloModule m

    ENTRY %main () -> f32[6] {
      ROOT %constant.0 = f32[6] constant({0, 0, 1, 2, 0, 0})
    }
  )");
}

// XLA never folds pad(broadcast(constant), constant), whatever its size;
// an elementwise op on a broadcast of a constant is folded.
TEST(ConstantFoldingTest, APadOfABroadcastIsNotFolded) {
  ConstantFolding folding;
  const char* text = R"(
    HloModule m

    ENTRY %main () -> f32[4000,4000] {
      %one = f32[] constant(1)
      %b = f32[2000,2000] broadcast(%one), dimensions={}
      %z = f32[] constant(0)
      ROOT %p = f32[4000,4000] pad(%b, %z), padding=0_2000x0_2000
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
