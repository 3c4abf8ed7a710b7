#include "core/passes/cse.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(CseTest, MergesIdenticalInstructionsTransitively) {
  // e2 is e1; then a2 has the same operands as a1; the constants and
  // broadcasts merge too, and finally m2 is m1.
  CommonSubexpressionElimination cse;
  ExpectRewrite(cse, R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> (f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %e1 = f32[2] exponential(%x)
      %e2 = f32[2] exponential(%x)
      %a1 = f32[2] add(%e1, %x)
      %a2 = f32[2] add(%e2, %x)
      %c1 = f32[] constant(1.5)
      %c2 = f32[] constant(1.5)
      %b1 = f32[2] broadcast(%c1), dimensions={}
      %b2 = f32[2] broadcast(%c2), dimensions={}
      %m1 = f32[2] multiply(%a1, %b1)
      %m2 = f32[2] multiply(%a2, %b2)
      ROOT %t = (f32[2], f32[2]) tuple(%m1, %m2)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> (f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %e1 = f32[2] exponential(%x)
      %a1 = f32[2] add(%e1, %x)
      %c1 = f32[] constant(1.5)
      %b1 = f32[2] broadcast(%c1), dimensions={}
      %m1 = f32[2] multiply(%a1, %b1)
      ROOT %t = (f32[2], f32[2]) tuple(%m1, %m1)
    }
  )");
}

TEST(CseTest, DifferentAttributesOperandOrderOrValuesStaySeparate) {
  CommonSubexpressionElimination cse;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[2], y: f32[2]) -> (pred[2], pred[2], f32[2], f32[2], f32[], f32[], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %y = f32[2] parameter(1)
      %lt = pred[2] compare(%x, %y), direction=LT
      %gt = pred[2] compare(%x, %y), direction=GT
      %xy = f32[2] add(%x, %y)
      %yx = f32[2] add(%y, %x)
      %one = f32[] constant(1)
      %two = f32[] constant(2)
      %laid = f32[2]{0} negate(%x)
      %plain = f32[2] negate(%x)
      ROOT %t = (pred[2], pred[2], f32[2], f32[2], f32[], f32[], f32[2]{0}, f32[2]) tuple(%lt, %gt, %xy, %yx, %one, %two, %laid, %plain)
    }
  )";
  ExpectRewrite(cse, text, text, /*changed=*/false);
}

TEST(CseTest, SideEffectsAreNeverMerged) {
  // Two rng draws are two different values; side-effecting custom-calls
  // and all-reduces each run. A pure custom-call is merged, as in XLA.
  CommonSubexpressionElimination cse;
  ExpectRewrite(cse, R"(
    HloModule m

    %sum (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      ROOT %s = f32[] add(%a, %b)
    }

    ENTRY %main (x: f32[2]) -> (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %r1 = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %r2 = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %s1 = f32[2] custom-call(%x), custom_call_target="tick", custom_call_has_side_effect=true
      %s2 = f32[2] custom-call(%x), custom_call_target="tick", custom_call_has_side_effect=true
      %p1 = f32[2] custom-call(%x), custom_call_target="pure"
      %p2 = f32[2] custom-call(%x), custom_call_target="pure"
      %ar1 = f32[2] all-reduce(%x), replica_groups={}, to_apply=%sum
      %ar2 = f32[2] all-reduce(%x), replica_groups={}, to_apply=%sum
      ROOT %t = (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2]) tuple(%r1, %r2, %s1, %s2, %p1, %p2, %ar1, %ar2)
    }
  )",
                R"(
    HloModule m

    %sum (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      ROOT %s = f32[] add(%a, %b)
    }

    ENTRY %main (x: f32[2]) -> (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %lo = f32[] constant(0)
      %hi = f32[] constant(1)
      %r1 = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %r2 = f32[2] rng(%lo, %hi), distribution=rng_uniform
      %s1 = f32[2] custom-call(%x), custom_call_target="tick", custom_call_has_side_effect=true
      %s2 = f32[2] custom-call(%x), custom_call_target="tick", custom_call_has_side_effect=true
      %p1 = f32[2] custom-call(%x), custom_call_target="pure"
      %ar1 = f32[2] all-reduce(%x), replica_groups={}, to_apply=%sum
      %ar2 = f32[2] all-reduce(%x), replica_groups={}, to_apply=%sum
      ROOT %t = (f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2], f32[2]) tuple(%r1, %r2, %s1, %s2, %p1, %p1, %ar1, %ar2)
    }
  )");
}

TEST(CseTest, CallsOfSideEffectingComputationsAreNotMerged) {
  CommonSubexpressionElimination cse;
  const char* text = R"(
    HloModule m

    %draw (lo: f32[]) -> f32[2] {
      %lo = f32[] parameter(0)
      %hi = f32[] constant(1)
      ROOT %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
    }

    ENTRY %main (p: f32[]) -> (f32[2], f32[2]) {
      %p = f32[] parameter(0)
      %c1 = f32[2] call(%p), to_apply=%draw
      %c2 = f32[2] call(%p), to_apply=%draw
      ROOT %t = (f32[2], f32[2]) tuple(%c1, %c2)
    }
  )";
  ExpectRewrite(cse, text, text, /*changed=*/false);
}

// Instructions that differ only in an attribute stay apart: an FFT and an
// IFFT of one operand, topk with other k or largest, collective-permutes
// with other pairs. The two identical topks merge.
TEST(CseTest, AttributesKeepInstructionsApart) {
  CommonSubexpressionElimination cse;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: c64[4], y: f32[4]) -> (c64[4], c64[4], (f32[1], s32[1]), (f32[1], s32[1]), (f32[2], s32[2]), f32[4], f32[4]) {
      %x = c64[4] parameter(0)
      %f = c64[4] fft(%x), fft_type=FFT, fft_length={4}
      %i = c64[4] fft(%x), fft_type=IFFT, fft_length={4}
      %y = f32[4] parameter(1)
      %t1 = (f32[1], s32[1]) topk(%y), k=1, largest=true
      %t2 = (f32[1], s32[1]) topk(%y), k=1, largest=false
      %t3 = (f32[2], s32[2]) topk(%y), k=2, largest=true
      %p1 = f32[4] collective-permute(%y), source_target_pairs={{0,1},{1,0}}
      %p2 = f32[4] collective-permute(%y), source_target_pairs={{0,0},{1,1}}
      ROOT %r = (c64[4], c64[4], (f32[1], s32[1]), (f32[1], s32[1]), (f32[2], s32[2]), f32[4], f32[4]) tuple(%f, %i, %t1, %t2, %t3, %p1, %p2)
    }
  )";
  ExpectRewrite(cse, text, text, /*changed=*/false);
  ExpectRewrite(cse, R"(
    HloModule m

    ENTRY %main (y: f32[4]) -> ((f32[1], s32[1]), (f32[1], s32[1])) {
      %y = f32[4] parameter(0)
      %t1 = (f32[1], s32[1]) topk(%y), k=1, largest=false
      %t2 = (f32[1], s32[1]) topk(%y), k=1, largest=false
      ROOT %r = ((f32[1], s32[1]), (f32[1], s32[1])) tuple(%t1, %t2)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (y: f32[4]) -> ((f32[1], s32[1]), (f32[1], s32[1])) {
      %y = f32[4] parameter(0)
      %t1 = (f32[1], s32[1]) topk(%y), k=1, largest=false
      ROOT %r = ((f32[1], s32[1]), (f32[1], s32[1])) tuple(%t1, %t1)
    }
  )");
}

}  // namespace
}  // namespace plexa
