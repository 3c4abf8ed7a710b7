#include "core/passes/tuple_simplifier.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(TupleSimplifierTest, ElementOfTupleAndTupleOfAllElements) {
  TupleSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[], y: s32[], t: (f32[], s32[])) -> (f32[], s32[], (f32[], s32[])) {
      %x = f32[] parameter(0)
      %y = s32[] parameter(1)
      %t = (f32[], s32[]) parameter(2)
      %tup = (f32[], s32[]) tuple(%x, %y)
      %g0 = f32[] get-tuple-element(%tup), index=0
      %g1 = s32[] get-tuple-element(%tup), index=1
      %e0 = f32[] get-tuple-element(%t), index=0
      %e1 = s32[] get-tuple-element(%t), index=1
      %re = (f32[], s32[]) tuple(%e0, %e1)
      ROOT %r = (f32[], s32[], (f32[], s32[])) tuple(%g0, %g1, %re)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[], y: s32[], t: (f32[], s32[])) -> (f32[], s32[], (f32[], s32[])) {
      %x = f32[] parameter(0)
      %y = s32[] parameter(1)
      %t = (f32[], s32[]) parameter(2)
      ROOT %r = (f32[], s32[], (f32[], s32[])) tuple(%x, %y, %t)
    }
  )");
}

TEST(TupleSimplifierTest, PartialOrReorderedTuplesStay) {
  TupleSimplifier simplifier;
  const char* text = R"(
    HloModule m

    ENTRY %main (t: (f32[], f32[], f32[])) -> ((f32[], f32[]), (f32[], f32[])) {
      %t = (f32[], f32[], f32[]) parameter(0)
      %e0 = f32[] get-tuple-element(%t), index=0
      %e1 = f32[] get-tuple-element(%t), index=1
      %prefix = (f32[], f32[]) tuple(%e0, %e1)
      %swapped = (f32[], f32[]) tuple(%e1, %e0)
      ROOT %r = ((f32[], f32[]), (f32[], f32[])) tuple(%prefix, %swapped)
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

}  // namespace
}  // namespace plexa
