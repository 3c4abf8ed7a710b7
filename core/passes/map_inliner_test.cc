#include "core/passes/map_inliner.h"

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

constexpr char kMap[] = R"(
    HloModule m

    %f (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      %two = f32[] constant(2)
      %m = f32[] multiply(%a, %two)
      ROOT %s = f32[] add(%m, %b)
    }

    ENTRY %main (x: f32[3], y: f32[3]) -> f32[3] {
      %x = f32[3] parameter(0)
      %y = f32[3] parameter(1)
      ROOT %map = f32[3] map(%x, %y), dimensions={0}, to_apply=%f
    }
  )";

TEST(MapInlinerTest, InlinesAnElementwiseBody) {
  MapInliner inliner;
  ExpectRewrite(inliner, kMap, R"(
    HloModule m

    %f (a: f32[], b: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      %b = f32[] parameter(1)
      %two = f32[] constant(2)
      %m = f32[] multiply(%a, %two)
      ROOT %s = f32[] add(%m, %b)
    }

    ENTRY %main (x: f32[3], y: f32[3]) -> f32[3] {
      %x = f32[3] parameter(0)
      %y = f32[3] parameter(1)
      %two = f32[] constant(2)
      %broadcast.0 = f32[3] broadcast(%two), dimensions={}
      %m = f32[3] multiply(%x, %broadcast.0)
      ROOT %s = f32[3] add(%m, %y)
    }
  )");
}

TEST(MapInlinerTest, SameValuesAsTheMap) {
  std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(kMap));
  std::unique_ptr<Module> after = pass_test::Parse(pass_test::Dedent(kMap));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  MapInliner inliner;
  ASSERT_TRUE(pass_test::RunPass(inliner, *after));
  const std::vector<Literal> args = {
      Literal::CreateR1<float>({1.5f, -0.0f, 3e38f}),
      Literal::CreateR1<float>({0.25f, -0.0f, 1.0f})};
  absl::StatusOr<Literal> a = Evaluator().Run(*before, args);
  absl::StatusOr<Literal> b = Evaluator().Run(*after, args);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
}

TEST(MapInlinerTest, LeavesMapsWhoseBodyIsNotElementwise) {
  MapInliner inliner;
  const char* text = R"(
    HloModule m

    %g (a: f32[]) -> f32[] {
      %a = f32[] parameter(0)
      ROOT %c = f32[] custom-call(%a), custom_call_target="g"
    }

    ENTRY %main (x: f32[3]) -> f32[3] {
      %x = f32[3] parameter(0)
      ROOT %map = f32[3] map(%x), dimensions={0}, to_apply=%g
    }
  )";
  ExpectRewrite(inliner, text, text, /*changed=*/false);
}

}  // namespace
}  // namespace plexa
