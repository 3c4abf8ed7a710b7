// The reducer matcher on parsed computations: each reducer in either
// parameter order, and what it must turn down (one parameter twice, a
// constant operand, other operations, a parameter root).
#include "plugins/common/reducer.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

// A module whose entry all-reduces with `body` as its reducer's root.
std::unique_ptr<Module> WithReducer(const std::string& body) {
  auto module = ParseHloModule(absl::StrCat(R"(HloModule m
reducer {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] constant(1)
  ROOT r = )",
                                            body, R"(
}
ENTRY main {
  x = s32[4] parameter(0)
  ROOT y = s32[4] all-reduce(x), to_apply=reducer
}
)"));
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : nullptr;
}

std::optional<MatchedReducer> Match(const std::string& body) {
  std::unique_ptr<Module> module = WithReducer(body);
  if (module == nullptr) return std::nullopt;
  return MatchReducer(*module->GetComputationWithName("reducer"));
}

TEST(ReducerTest, EveryReducerInEitherOrder) {
  const std::pair<const char*, HloOpcode> cases[] = {
      {"add", HloOpcode::kAdd},         {"multiply", HloOpcode::kMultiply},
      {"maximum", HloOpcode::kMaximum}, {"minimum", HloOpcode::kMinimum},
      {"and", HloOpcode::kAnd},         {"or", HloOpcode::kOr}};
  for (const auto& [name, opcode] : cases) {
    std::optional<MatchedReducer> forward =
        Match(absl::StrCat("s32[] ", name, "(a, b)"));
    ASSERT_TRUE(forward.has_value()) << name;
    EXPECT_EQ(forward->opcode, opcode);
    EXPECT_FALSE(forward->swapped);
    std::optional<MatchedReducer> swapped =
        Match(absl::StrCat("s32[] ", name, "(b, a)"));
    ASSERT_TRUE(swapped.has_value()) << name;
    EXPECT_EQ(swapped->opcode, opcode);
    EXPECT_TRUE(swapped->swapped);
  }
}

TEST(ReducerTest, OneParameterTwiceIsNotAReducer) {
  // add(p0, p0) doubles one side: not a reduction of both.
  EXPECT_FALSE(Match("s32[] add(a, a)").has_value());
  EXPECT_FALSE(Match("s32[] maximum(b, b)").has_value());
}

TEST(ReducerTest, OtherComputationsAreNotReducers) {
  EXPECT_FALSE(Match("s32[] add(a, c)").has_value());
  EXPECT_FALSE(Match("s32[] subtract(a, b)").has_value());
  EXPECT_FALSE(Match("s32[] copy(a)").has_value());
}

TEST(ReducerTest, ParameterOperandsOfAComparison) {
  auto module = ParseHloModule(R"(HloModule m
select {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(b, a), direction=GE
}
ENTRY main {
  ROOT x = f32[] parameter(0)
}
)");
  ASSERT_TRUE(module.ok()) << module.status();
  const Computation& c = *(*module)->GetComputationWithName("select");
  std::optional<bool> swapped =
      MatchParameterOperands(c, *c.root_instruction());
  ASSERT_TRUE(swapped.has_value());
  EXPECT_TRUE(*swapped);
}

}  // namespace
}  // namespace plexa::backend
