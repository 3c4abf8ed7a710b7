#include "core/passes/dce.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(DeadCodeEliminationTest, RemovesUnusedInstructionsTransitively) {
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    ENTRY %main (p0: f32[2], p1: f32[2]) -> f32[2] {
      %p0 = f32[2] parameter(0)
      %p1 = f32[2] parameter(1)
      %dead_exp = f32[2] exponential(%p0)
      %dead_add = f32[2] add(%dead_exp, %p1)
      ROOT %sum = f32[2] add(%p0, %p1)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (p0: f32[2], p1: f32[2]) -> f32[2] {
      %p0 = f32[2] parameter(0)
      %p1 = f32[2] parameter(1)
      ROOT %sum = f32[2] add(%p0, %p1)
    }
  )");
}

TEST(DeadCodeEliminationTest, KeepsSideEffectsAndUnusedParameters) {
  // A dead rng still advances the generator, a dead outfeed still sends:
  // both stay, with what they use. The unused parameter stays (it is part
  // of the signature).
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    ENTRY %main (p0: f32[], p1: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      %p1 = f32[] parameter(1)
      %zero = f32[] constant(0)
      %one = f32[] constant(1)
      %r = f32[3] rng(%zero, %one), distribution=rng_uniform
      %token = token[] after-all()
      %neg = f32[] negate(%p0)
      %out = token[] outfeed(%neg, %token)
      %dead = f32[] multiply(%p0, %p0)
      ROOT %copy = f32[] copy(%p0)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (p0: f32[], p1: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      %p1 = f32[] parameter(1)
      %zero = f32[] constant(0)
      %one = f32[] constant(1)
      %r = f32[3] rng(%zero, %one), distribution=rng_uniform
      %token = token[] after-all()
      %neg = f32[] negate(%p0)
      %out = token[] outfeed(%neg, %token)
      ROOT %copy = f32[] copy(%p0)
    }
  )");
}

TEST(DeadCodeEliminationTest, RemovesUnusedComputationsAndDeadCalls) {
  // The call is dead, so %callee is then called by no one and goes too;
  // %unused was never called.
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    %unused (a: f32[]) -> f32[] {
      ROOT %a = f32[] parameter(0)
    }

    %callee (b: f32[]) -> f32[] {
      %b = f32[] parameter(0)
      ROOT %n = f32[] negate(%b)
    }

    ENTRY %main (p0: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      %c = f32[] call(%p0), to_apply=%callee
      ROOT %r = f32[] abs(%p0)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (p0: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      ROOT %r = f32[] abs(%p0)
    }
  )");
}

TEST(DeadCodeEliminationTest, KeepsCallsOfSideEffectingComputations) {
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    %draw (lo: f32[]) -> f32[2] {
      %lo = f32[] parameter(0)
      %hi = f32[] constant(1)
      ROOT %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
    }

    ENTRY %main (p0: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      %c = f32[2] call(%p0), to_apply=%draw
      ROOT %r = f32[] abs(%p0)
    }
  )",
                R"(
    HloModule m

    %draw (lo: f32[]) -> f32[2] {
      %lo = f32[] parameter(0)
      %hi = f32[] constant(1)
      ROOT %r = f32[2] rng(%lo, %hi), distribution=rng_uniform
    }

    ENTRY %main (p0: f32[]) -> f32[] {
      %p0 = f32[] parameter(0)
      %c = f32[2] call(%p0), to_apply=%draw
      ROOT %r = f32[] abs(%p0)
    }
  )",
                /*changed=*/false);
}

TEST(DeadCodeEliminationTest, RelinksControlDependenciesOfRemovedInstructions) {
  // %mid is dead; the order %first -> %mid -> %last it carried becomes
  // %first -> %last.
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    ENTRY %main (p0: f32[]) -> (f32[], f32[]) {
      %p0 = f32[] parameter(0)
      %first = f32[] negate(%p0)
      %mid = f32[] abs(%p0), control-predecessors={%first}
      %last = f32[] exponential(%p0), control-predecessors={%mid}
      ROOT %t = (f32[], f32[]) tuple(%first, %last)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (p0: f32[]) -> (f32[], f32[]) {
      %p0 = f32[] parameter(0)
      %first = f32[] negate(%p0)
      %last = f32[] exponential(%p0), control-predecessors={%first}
      ROOT %t = (f32[], f32[]) tuple(%first, %last)
    }
  )");
}

TEST(DeadCodeEliminationTest, CleansDeadCodeInsideCalledComputations) {
  DeadCodeElimination dce;
  ExpectRewrite(dce, R"(
    HloModule m

    %body (x: s32[]) -> s32[] {
      %x = s32[] parameter(0)
      %one = s32[] constant(1)
      %unused = s32[] multiply(%x, %x)
      ROOT %next = s32[] add(%x, %one)
    }

    %cond (y: s32[]) -> pred[] {
      %y = s32[] parameter(0)
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%y, %ten), direction=LT
    }

    ENTRY %main (p0: s32[]) -> s32[] {
      %p0 = s32[] parameter(0)
      ROOT %w = s32[] while(%p0), condition=%cond, body=%body
    }
  )",
                R"(
    HloModule m

    %body (x: s32[]) -> s32[] {
      %x = s32[] parameter(0)
      %one = s32[] constant(1)
      ROOT %next = s32[] add(%x, %one)
    }

    %cond (y: s32[]) -> pred[] {
      %y = s32[] parameter(0)
      %ten = s32[] constant(10)
      ROOT %lt = pred[] compare(%y, %ten), direction=LT
    }

    ENTRY %main (p0: s32[]) -> s32[] {
      %p0 = s32[] parameter(0)
      ROOT %w = s32[] while(%p0), condition=%cond, body=%body
    }
  )");
}

}  // namespace
}  // namespace plexa
