#include "core/passes/pipeline.h"

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

constexpr char kSmall[] = R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      ROOT %n = f32[2] negate(%x)
    }
  )";

// Reports a change `changes` times, then no more.
class CountdownPass : public Pass {
 public:
  CountdownPass(int changes, int* runs) : left_(changes), runs_(runs) {}
  absl::string_view name() const override { return "countdown"; }
  absl::StatusOr<bool> Run(Module&) override {
    ++*runs_;
    return left_-- > 0;
  }

 private:
  int left_;
  int* runs_;
};

// Breaks the module: the root's declared shape no longer matches.
class BreakingPass : public Pass {
 public:
  absl::string_view name() const override { return "breaker"; }
  absl::StatusOr<bool> Run(Module& m) override {
    *m.entry_computation()->root_instruction()->mutable_shape() =
        Shape(F32, {3});
    return true;
  }
};

class FailingPass : public Pass {
 public:
  absl::string_view name() const override { return "failing"; }
  absl::StatusOr<bool> Run(Module&) override {
    return absl::InternalError("out of ideas");
  }
};

PipelineConfig Verified() {
  PipelineConfig c;
  c.verify = true;
  return c;
}

TEST(PipelineTest, RunsPassesInOrderAndTimesEach) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  int runs_a = 0, runs_b = 0;
  Pipeline p("p", Verified());
  p.AddPass<CountdownPass>(1, &runs_a);
  p.AddPass<CountdownPass>(0, &runs_b);
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(runs_a, 1);
  EXPECT_EQ(runs_b, 1);
  ASSERT_EQ(p.stats().timings.size(), 2u);
  EXPECT_EQ(p.stats().timings[0].pass, "p/countdown");
  EXPECT_TRUE(p.stats().timings[0].changed);
  EXPECT_FALSE(p.stats().timings[1].changed);
  EXPECT_TRUE(absl::StrContains(p.stats().Summary(), "p/countdown"));
}

TEST(PipelineTest, FixpointRunsUntilNothingChanges) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  int runs = 0;
  Pipeline p("p", Verified());
  p.AddFixpoint("fix", 10).AddPass<CountdownPass>(3, &runs);
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(runs, 4);  // three changes and the run that finds nothing
  EXPECT_TRUE(p.stats().fixpoint_caps_hit.empty());
  EXPECT_EQ(p.stats().timings.back().iteration, 4);
  EXPECT_EQ(p.stats().timings.back().pass, "p/fix/countdown");
}

TEST(PipelineTest, FixpointStopsAtItsCapAndSaysSo) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  int runs = 0;
  Pipeline p("p", Verified());
  p.AddFixpoint("fix", 5).AddPass<CountdownPass>(1000, &runs);
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_EQ(runs, 5);
  ASSERT_EQ(p.stats().fixpoint_caps_hit.size(), 1u);
  EXPECT_EQ(p.stats().fixpoint_caps_hit[0], "p/fix");
}

TEST(PipelineTest, VerifierNamesThePassThatBrokeTheModule) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  Pipeline p("p", Verified());
  p.AddPass<BreakingPass>();
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_FALSE(changed.ok());
  EXPECT_TRUE(
      absl::StrContains(changed.status().message(), "after pass 'p/breaker'"))
      << changed.status();
}

TEST(PipelineTest, WithoutVerificationTheBreakGoesUnnoticed) {
  // The option really turns the verifier off (release builds).
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  PipelineConfig config;
  config.verify = false;
  Pipeline p("p", config);
  p.AddPass<BreakingPass>();
  EXPECT_TRUE(p.Run(*m).ok());
}

TEST(PipelineTest, PassErrorsArePrefixedWithThePass) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  Pipeline p("p", Verified());
  p.AddPass<FailingPass>();
  absl::StatusOr<bool> changed = p.Run(*m);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().message(),
            "pass 'p/failing' failed: out of ideas");
}

TEST(PipelineTest, InvalidInputIsRejectedBeforeAnyPass) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  *m->entry_computation()->root_instruction()->mutable_shape() =
      Shape(S32, {2});
  int runs = 0;
  Pipeline p("p", Verified());
  p.AddPass<CountdownPass>(1, &runs);
  EXPECT_FALSE(p.Run(*m).ok());
  EXPECT_EQ(runs, 0);
}

TEST(PipelineTest, DumpsAfterEachChangingPassToCallbackAndDirectory) {
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
  ASSERT_NE(m, nullptr);
  const std::string dir =
      (std::filesystem::path(::testing::TempDir()) / "plexa_pipeline_dump")
          .string();
  std::filesystem::remove_all(dir);
  std::vector<std::string> dumped;
  PipelineConfig config = Verified();
  config.dump_dir = dir;
  config.dump_callback = [&](absl::string_view pass, absl::string_view text) {
    dumped.push_back(std::string(pass));
    EXPECT_TRUE(absl::StartsWith(text, "HloModule m")) << text;
  };
  int runs_a = 0, runs_b = 0;
  Pipeline p("p", config);
  p.AddPass<CountdownPass>(1, &runs_a);
  p.AddPass<CountdownPass>(0, &runs_b);  // unchanged: not dumped
  ASSERT_TRUE(p.Run(*m).ok());
  EXPECT_EQ(dumped, (std::vector<std::string>{"p.input", "p/countdown"}));
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"m.0000.p.input.hlo",
                                             "m.0001.p.countdown.hlo"}));
}

TEST(DefaultPipelineTest, OptimizesAProgram) {
  // The call is inlined; x*1 and the reshape to the same shape vanish; the
  // constant subexpression folds; the duplicated exponential is shared;
  // the dead subtraction goes; layouts are assigned.
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(R"(
    HloModule m

    %twice (a: f32[4]) -> f32[4] {
      %a = f32[4] parameter(0)
      ROOT %s = f32[4] add(%a, %a)
    }

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4] parameter(0)
      %one = f32[] constant(1)
      %ones = f32[4] broadcast(%one), dimensions={}
      %y = f32[4] multiply(%x, %ones)
      %r = f32[4] reshape(%y)
      %c = f32[4] call(%r), to_apply=%twice
      %k1 = f32[4] constant({1, 2, 3, 4})
      %k2 = f32[4] negate(%k1)
      %e1 = f32[4] exponential(%c)
      %e2 = f32[4] exponential(%c)
      %dead = f32[4] subtract(%e1, %k2)
      %sum = f32[4] add(%e1, %e2)
      ROOT %out = f32[4] multiply(%sum, %k2)
    }
  )"));
  ASSERT_NE(m, nullptr);
  PipelineOptions options;
  options.verify = true;
  PipelineStats stats;
  options.stats = &stats;
  absl::StatusOr<bool> changed = RunDefaultPipeline(m.get(), options);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(pass_test::Dedent(pass_test::Print(*m)), pass_test::Dedent(R"(
    HloModule m, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

    ENTRY %main (x: f32[4]) -> f32[4] {
      %x = f32[4]{0} parameter(0)
      %s = f32[4]{0} add(%x, %x)
      %e1 = f32[4]{0} exponential(%s)
      %sum = f32[4]{0} add(%e1, %e1)
      %constant.0 = f32[4]{0} constant({-1, -2, -3, -4})
      ROOT %out = f32[4]{0} multiply(%sum, %constant.0)
    }
  )"));
  EXPECT_FALSE(stats.timings.empty());
  EXPECT_TRUE(stats.fixpoint_caps_hit.empty());
}

TEST(DefaultPipelineTest, DynamicShapesPassThroughUnharmed) {
  // Rewrites that would have to track dynamic dimensions leave these
  // instructions alone; every pass still keeps the module valid.
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(R"(
    HloModule m

    ENTRY %main (x: f32[<=4], lo: f32[], hi: f32[]) -> f32[<=4] {
      %x = f32[<=4] parameter(0)
      %lo = f32[] parameter(1)
      %hi = f32[] parameter(2)
      %zero = f32[] constant(0)
      %zeros = f32[<=4] broadcast(%zero), dimensions={}
      %a = f32[<=4] add(%x, %zeros)
      %r = f32[<=4] reverse(%a), dimensions={0}
      %rr = f32[<=4] reverse(%r), dimensions={0}
      %c = f32[<=4] clamp(%lo, %rr, %hi)
      ROOT %n = f32[<=4] negate(%c)
    }
  )"));
  ASSERT_NE(m, nullptr);
  PipelineOptions options;
  options.verify = true;
  options.fusion = true;
  options.expand_clamp = true;
  options.canonicalize_dots = true;
  options.expand_batch_norm = true;
  absl::StatusOr<bool> changed = RunDefaultPipeline(m.get(), options);
  ASSERT_TRUE(changed.ok()) << changed.status();
}

TEST(DefaultPipelineTest, RegistryKnowsEveryPass) {
  for (const std::string& name : RegisteredPassNames()) {
    absl::StatusOr<std::unique_ptr<Pass>> p = CreatePass(name);
    ASSERT_TRUE(p.ok()) << name;
    std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(kSmall));
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE((*p)->Run(*m).ok()) << name;
  }
  EXPECT_FALSE(CreatePass("no-such-pass").ok());
  EXPECT_GE(RegisteredPassNames().size(), 14u);
}

}  // namespace
}  // namespace plexa
