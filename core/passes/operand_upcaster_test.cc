#include "core/passes/operand_upcaster.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(OperandUpcasterTest, MixedDotOperandsTakeTheResultType) {
  OperandUpcaster upcaster;
  ExpectRewrite(upcaster, R"(
    HloModule m

    ENTRY %main (a: bf16[2,3], b: s8[3,2]) -> f32[2,2] {
      %a = bf16[2,3] parameter(0)
      %b = s8[3,2] parameter(1)
      ROOT %d = f32[2,2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (a: bf16[2,3], b: s8[3,2]) -> f32[2,2] {
      %a = bf16[2,3] parameter(0)
      %b = s8[3,2] parameter(1)
      %convert.0 = f32[2,3] convert(%a)
      %convert.1 = f32[3,2] convert(%b)
      ROOT %d.0 = f32[2,2] dot(%convert.0, %convert.1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )");
}

TEST(OperandUpcasterTest, AnOperandOfTheResultTypeStays) {
  OperandUpcaster upcaster;
  ExpectRewrite(upcaster, R"(
    HloModule m

    ENTRY %main (a: s8[1,2], b: s32[2,1]) -> s32[1,1] {
      %a = s8[1,2] parameter(0)
      %b = s32[2,1] parameter(1)
      ROOT %d = s32[1,1] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (a: s8[1,2], b: s32[2,1]) -> s32[1,1] {
      %a = s8[1,2] parameter(0)
      %b = s32[2,1] parameter(1)
      %convert.0 = s32[1,2] convert(%a)
      ROOT %d.0 = s32[1,1] dot(%convert.0, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )");
}

TEST(OperandUpcasterTest, OneOperandTypeIsLeftAlone) {
  // bf16 x bf16 -> f32 is the ordinary preferred-type dot.
  constexpr char kSame[] = R"(
    HloModule m

    ENTRY %main (a: bf16[2,3], b: bf16[3,2]) -> f32[2,2] {
      %a = bf16[2,3] parameter(0)
      %b = bf16[3,2] parameter(1)
      ROOT %d = f32[2,2] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )";
  OperandUpcaster upcaster;
  ExpectRewrite(upcaster, kSame, kSame, /*changed=*/false);
}

}  // namespace
}  // namespace plexa
