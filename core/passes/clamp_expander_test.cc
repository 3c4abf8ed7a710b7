#include "core/passes/clamp_expander.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

constexpr char kClamp[] = R"(
    HloModule m

    ENTRY %main (x: f32[6], lo: f32[], hi: f32[]) -> f32[6] {
      %x = f32[6] parameter(0)
      %lo = f32[] parameter(1)
      %hi = f32[] parameter(2)
      ROOT %c = f32[6] clamp(%lo, %x, %hi)
    }
  )";

TEST(ClampExpanderTest, ExpandsToMinimumOfMaximum) {
  ClampExpander expander;
  ExpectRewrite(expander, kClamp, R"(
    HloModule m

    ENTRY %main (x: f32[6], lo: f32[], hi: f32[]) -> f32[6] {
      %x = f32[6] parameter(0)
      %lo = f32[] parameter(1)
      %hi = f32[] parameter(2)
      %broadcast.0 = f32[6] broadcast(%lo), dimensions={}
      %broadcast.1 = f32[6] broadcast(%hi), dimensions={}
      %maximum.0 = f32[6] maximum(%x, %broadcast.0)
      ROOT %minimum.0 = f32[6] minimum(%broadcast.1, %maximum.0)
    }
  )");
}

TEST(ClampExpanderTest, BitIdenticalToClampIncludingSignedZeros) {
  std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(kClamp));
  std::unique_ptr<Module> after = pass_test::Parse(pass_test::Dedent(kClamp));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  ClampExpander expander;
  ASSERT_TRUE(pass_test::RunPass(expander, *after));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float values[] = {-0.0f, 0.0f, 5.0f, -5.0f, 0.5f, nan};
  const float bounds[][2] = {{-1.0f, 0.0f}, {-0.0f, 0.0f}, {0.0f, -0.0f},
                             {-0.0f, 1.0f}, {2.0f, 1.0f},  {nan, 1.0f}};
  for (const auto& b : bounds) {
    const std::vector<Literal> args = {Literal::CreateR1<float>(values),
                                       Literal::CreateR0(b[0]),
                                       Literal::CreateR0(b[1])};
    absl::StatusOr<Literal> x = Evaluator().Run(*before, args);
    absl::StatusOr<Literal> y = Evaluator().Run(*after, args);
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_TRUE(y.ok()) << y.status();
    for (int64_t i = 0; i < 6; ++i) {
      const float u = x->Get<float>({i});
      const float v = y->Get<float>({i});
      if (std::isnan(u)) {
        EXPECT_TRUE(std::isnan(v)) << i;
      } else {
        EXPECT_EQ(std::memcmp(&u, &v, sizeof(float)), 0)
            << "element " << i << ": " << u << " vs " << v << " for bounds "
            << b[0] << ", " << b[1];
      }
    }
  }
}

}  // namespace
}  // namespace plexa
