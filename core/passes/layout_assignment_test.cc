#include "core/passes/layout_assignment.h"

#include "core/passes/pass_test_util.h"
#include "core/shape/layout_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(LayoutAssignmentTest, HonoursTheEntryLayoutWithACopyAtTheRoot) {
  LayoutAssignment assignment;
  auto m = ExpectRewrite(assignment, R"(
    HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

    ENTRY %main (p: f32[2,3]) -> f32[2,3] {
      %p = f32[2,3] parameter(0)
      ROOT %n = f32[2,3] negate(%p)
    }
  )",
                         R"(
    HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}

    ENTRY %main (p: f32[2,3]) -> f32[2,3] {
      %p = f32[2,3]{0,1} parameter(0)
      %n = f32[2,3]{1,0} negate(%p)
      ROOT %copy.0 = f32[2,3]{0,1} copy(%n)
    }
  )");
  // Idempotent.
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(pass_test::RunPass(assignment, *m));
}

TEST(LayoutAssignmentTest, RecordsTheEntryLayoutAndDefaultsTheRest) {
  // No entry layout: the parameters' own layouts (default where missing)
  // and the default result layout are recorded; add reads operands of two
  // layouts without copies.
  LayoutAssignment assignment;
  ExpectRewrite(assignment, R"(
    HloModule m

    ENTRY %main (p: f32[2,3], q: f32[3]) -> f32[2,3] {
      %p = f32[2,3]{0,1} parameter(0)
      %q = f32[3] parameter(1)
      %b = f32[2,3] broadcast(%q), dimensions={1}
      ROOT %a = f32[2,3] add(%p, %b)
    }
  )",
                R"(
    HloModule m, entry_computation_layout={(f32[2,3]{0,1}, f32[3]{0})->f32[2,3]{1,0}}

    ENTRY %main (p: f32[2,3], q: f32[3]) -> f32[2,3] {
      %p = f32[2,3]{0,1} parameter(0)
      %q = f32[3]{0} parameter(1)
      %b = f32[2,3]{1,0} broadcast(%q), dimensions={1}
      ROOT %a = f32[2,3]{1,0} add(%p, %b)
    }
  )");
}

TEST(LayoutAssignmentTest, CustomCallConstraints) {
  // The operand is copied into the constrained layout; the result keeps the
  // layout written on the custom-call.
  LayoutAssignment assignment;
  ExpectRewrite(assignment, R"(
    HloModule m

    ENTRY %main (p: f32[2,3]) -> f32[3,2] {
      %p = f32[2,3] parameter(0)
      ROOT %cc = f32[3,2]{0,1} custom-call(%p), custom_call_target="f", operand_layout_constraints={f32[2,3]{0,1}}
    }
  )",
                R"(
    HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{0,1}}

    ENTRY %main (p: f32[2,3]) -> f32[3,2] {
      %p = f32[2,3]{1,0} parameter(0)
      %copy.0 = f32[2,3]{0,1} copy(%p)
      ROOT %cc = f32[3,2]{0,1} custom-call(%copy.0), custom_call_target="f", operand_layout_constraints={f32[2,3]{0,1}}
    }
  )");
}

TEST(LayoutAssignmentTest, BackendPreferences) {
  // A backend wants dots to produce column-major results and to read their
  // rhs column-major.
  LayoutPreferences prefs;
  prefs.preferred_result_layout =
      [](const Instruction& inst) -> std::optional<Layout> {
    if (inst.opcode() == HloOpcode::kDot) return LayoutUtil::MakeLayout({0, 1});
    return std::nullopt;
  };
  prefs.required_operand_layout = [](const Instruction& inst,
                                     int64_t i) -> std::optional<Layout> {
    if (inst.opcode() == HloOpcode::kDot && i == 1) {
      return LayoutUtil::MakeLayout({0, 1});
    }
    return std::nullopt;
  };
  LayoutAssignment assignment(prefs);
  ExpectRewrite(assignment, R"(
    HloModule m

    ENTRY %main (a: f32[2,3], b: f32[3,4]) -> f32[2,4] {
      %a = f32[2,3] parameter(0)
      %b = f32[3,4] parameter(1)
      ROOT %d = f32[2,4] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )",
                R"(
    HloModule m, entry_computation_layout={(f32[2,3]{1,0}, f32[3,4]{1,0})->f32[2,4]{1,0}}

    ENTRY %main (a: f32[2,3], b: f32[3,4]) -> f32[2,4] {
      %a = f32[2,3]{1,0} parameter(0)
      %b = f32[3,4]{1,0} parameter(1)
      %copy.0 = f32[3,4]{0,1} copy(%b)
      %d = f32[2,4]{0,1} dot(%a, %copy.0), lhs_contracting_dims={1}, rhs_contracting_dims={0}
      ROOT %copy.1 = f32[2,4]{1,0} copy(%d)
    }
  )");
}

TEST(LayoutAssignmentTest, WhileStateUsesDefaultLayouts) {
  // The loop's computations take default layouts; the init is copied into
  // them element by element; get-tuple-element follows the loop.
  LayoutAssignment assignment;
  ExpectRewrite(assignment, R"(
    HloModule m, entry_computation_layout={(f32[2,2]{0,1})->f32[2,2]{0,1}}

    %cond (s: (f32[2,2])) -> pred[] {
      %s = (f32[2,2]) parameter(0)
      ROOT %f = pred[] constant(false)
    }

    %body (s: (f32[2,2])) -> (f32[2,2]) {
      ROOT %s = (f32[2,2]) parameter(0)
    }

    ENTRY %main (p: f32[2,2]) -> f32[2,2] {
      %p = f32[2,2] parameter(0)
      %t = (f32[2,2]) tuple(%p)
      %w = (f32[2,2]) while(%t), condition=%cond, body=%body
      ROOT %r = f32[2,2] get-tuple-element(%w), index=0
    }
  )",
                R"(
    HloModule m, entry_computation_layout={(f32[2,2]{0,1})->f32[2,2]{0,1}}

    %cond (s: (f32[2,2])) -> pred[] {
      %s = (f32[2,2]{1,0}) parameter(0)
      ROOT %f = pred[] constant(false)
    }

    %body (s: (f32[2,2])) -> (f32[2,2]) {
      ROOT %s = (f32[2,2]{1,0}) parameter(0)
    }

    ENTRY %main (p: f32[2,2]) -> f32[2,2] {
      %p = f32[2,2]{0,1} parameter(0)
      %t = (f32[2,2]{0,1}) tuple(%p)
      %get-tuple-element.0 = f32[2,2]{0,1} get-tuple-element(%t), index=0
      %copy.0 = f32[2,2]{1,0} copy(%get-tuple-element.0)
      %tuple.0 = (f32[2,2]{1,0}) tuple(%copy.0)
      %w = (f32[2,2]{1,0}) while(%tuple.0), condition=%cond, body=%body
      %r = f32[2,2]{1,0} get-tuple-element(%w), index=0
      ROOT %copy.1 = f32[2,2]{0,1} copy(%r)
    }
  )");
}

}  // namespace
}  // namespace plexa
