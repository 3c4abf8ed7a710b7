// The whole conformance suite gives the same results after the default
// pipeline as before it: every case under tests/conformance/cases is run
// by the reference evaluator on its inputs (and host feeds, and replicas)
// before and after optimization, and the results must agree
//   - bit for bit (any NaN matching any NaN) for cases without a
//     tolerance, including the rng cases, whose draws the passes keep in
//     order;
//   - within the case's tolerance for cases that have one, and where the
//     batch-norm expander replaces the evaluator's double-precision batch
//     norm by f32 arithmetic.
// Configurations: the default pipeline; with fusion; with every optional
// pass on (batch-norm and clamp expansion, dot canonicalization, fusion);
// and every registered pass alone (so a wrong rewrite is pinned on the pass
// that made it, layouts included: the layout cases and tiled layouts are in
// the suite). A case the evaluator cannot run before optimization fails
// the test: nothing is skipped.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "core/passes/pass_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"
#include "tools/conformance/case_file.h"
#include "tools/conformance/compare.h"

namespace plexa {
namespace {

struct RunResult {
  std::vector<Literal> results;  // one per replica
  std::vector<Literal> outfeed;
};

// A wrong rewrite of a loop must fail the test, not hang it: no case
// runs anywhere near this many iterations.
constexpr int64_t kMaxWhileIterations = 1000000;

absl::StatusOr<RunResult> Execute(const Module& module,
                                  const ConformanceCase& c) {
  RunResult out;
  if (c.replica_count() > 1) {
    EvaluatorOptions options;
    options.max_while_iterations = kMaxWhileIterations;
    options.num_partitions = c.partitions;
    absl::StatusOr<std::vector<Literal>> r =
        Evaluator(options).RunReplicated(module, c.inputs);
    if (!r.ok()) return r.status();
    out.results = std::move(*r);
    return out;
  }
  HostFeedQueue infeed;
  HostFeedQueue outfeed;
  for (const Literal& l : c.infeed) infeed.Push(l);
  EvaluatorOptions options;
  options.infeed = &infeed;
  options.outfeed = &outfeed;
  options.max_while_iterations = kMaxWhileIterations;
  absl::StatusOr<Literal> r = Evaluator(options).Run(module, c.inputs[0]);
  if (!r.ok()) return r.status();
  out.results.push_back(std::move(*r));
  while (std::optional<Literal> l = outfeed.Pop()) {
    out.outfeed.push_back(std::move(*l));
  }
  return out;
}

bool HasTolerance(const Tolerance& t) {
  return t.rtol != 0 || t.atol != 0 || t.ulps != 0;
}

struct Config {
  const char* name;
  PipelineOptions options;
  bool changes_rounding;         // batch norm computed in the element type
  std::string single_pass = "";  // run only this registered pass
};

std::vector<Config> Configs() {
  std::vector<Config> configs;
  PipelineOptions base;
  base.verify = true;
  configs.push_back({"default", base, false});
  PipelineOptions fused = base;
  fused.fusion = true;
  configs.push_back({"fusion", fused, false});
  PipelineOptions all = fused;
  all.expand_batch_norm = true;
  all.expand_clamp = true;
  all.canonicalize_dots = true;
  configs.push_back({"everything", all, true});
  return configs;
}

class ConformanceEquivalenceTest
    : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(ConformanceEquivalenceTest, SameResultsAfterOptimization) {
  const auto& [name, path] = GetParam();
  absl::StatusOr<ConformanceCase> c = LoadCaseFile(path, name);
  ASSERT_TRUE(c.ok()) << c.status();
  if (c->replica_count() == 1) {
    pass_test::LowerDynamicProgram(&c->text, &c->inputs[0]);
  }
  absl::StatusOr<std::unique_ptr<Module>> original = ParseHloModule(c->text);
  ASSERT_TRUE(original.ok()) << original.status();
  absl::StatusOr<RunResult> before = Execute(**original, *c);
  ASSERT_TRUE(before.ok()) << "the evaluator does not run this case: "
                           << before.status();
  std::vector<Config> configs = Configs();
  for (const std::string& pass : RegisteredPassNames()) {
    if (pass == "default") continue;  // the configurations above
    PipelineOptions options;
    options.verify = true;
    configs.push_back({nullptr, options, pass == "batchnorm-expander"});
    configs.back().single_pass = pass;
  }
  for (const Config& config : configs) {
    const std::string label = config.single_pass.empty()
                                  ? std::string(config.name)
                                  : "pass " + config.single_pass;
    SCOPED_TRACE(label);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(c->text);
    ASSERT_TRUE(m.ok()) << m.status();
    PipelineStats stats;
    PipelineOptions options = config.options;
    options.stats = &stats;
    if (config.single_pass.empty()) {
      absl::StatusOr<bool> changed = RunDefaultPipeline(m->get(), options);
      ASSERT_TRUE(changed.ok()) << changed.status();
      EXPECT_TRUE(stats.fixpoint_caps_hit.empty()) << stats.Summary();
    } else {
      absl::StatusOr<std::unique_ptr<Pass>> pass =
          CreatePass(config.single_pass, options);
      ASSERT_TRUE(pass.ok()) << pass.status();
      absl::StatusOr<bool> changed = (*pass)->Run(**m);
      ASSERT_TRUE(changed.ok()) << changed.status();
      absl::Status verified = VerifyModule(**m);
      ASSERT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**m);
    }
    absl::StatusOr<RunResult> after = Execute(**m, *c);
    ASSERT_TRUE(after.ok()) << after.status() << "\n" << PrintModule(**m);
    Tolerance tol;
    tol.bits = true;
    if (HasTolerance(c->tolerance)) tol = c->tolerance;
    if (config.changes_rounding && !HasTolerance(tol)) {
      // Only batch norms are computed differently; every other case must
      // still match exactly.
      bool has_batch_norm = false;
      for (const Computation* comp : (*original)->computations()) {
        for (const Instruction* inst : comp->instructions()) {
          const HloOpcode op = inst->opcode();
          has_batch_norm |= op == HloOpcode::kBatchNormTraining ||
                            op == HloOpcode::kBatchNormInference ||
                            op == HloOpcode::kBatchNormGrad;
        }
      }
      if (has_batch_norm) {
        tol = Tolerance();
        tol.rtol = 1e-5;
        tol.atol = 1e-6;
      }
    }
    ASSERT_EQ(before->results.size(), after->results.size());
    for (size_t r = 0; r < before->results.size(); ++r) {
      const std::string diff =
          CompareLiterals(before->results[r], after->results[r], tol);
      EXPECT_TRUE(diff.empty())
          << "replica " << r << ": " << diff << "\nafter the pipeline:\n"
          << PrintModule(**m);
    }
    ASSERT_EQ(before->outfeed.size(), after->outfeed.size());
    for (size_t i = 0; i < before->outfeed.size(); ++i) {
      const std::string diff =
          CompareLiterals(before->outfeed[i], after->outfeed[i], tol);
      EXPECT_TRUE(diff.empty()) << "outfeed " << i << ": " << diff;
    }
  }
}

std::string CaseName(
    const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
  std::string s = info.param.first;
  for (char& ch : s) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
          (ch >= '0' && ch <= '9'))) {
      ch = '_';
    }
  }
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConformanceEquivalenceTest,
    ::testing::ValuesIn(DiscoverCaseFiles(ConformanceCasesDir())), CaseName);

TEST(ConformanceEquivalenceSuite, FindsTheCases) {
  // Guards against an empty parameter list making the suite vacuous.
  EXPECT_GT(DiscoverCaseFiles(ConformanceCasesDir()).size(), 100u);
}

bool AllArraysLaidOut(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) {
      if (!AllArraysLaidOut(e)) return false;
    }
    return true;
  }
  // A scalar's layout is empty; Shape treats an absent one as the same.
  return !s.IsArray() || s.rank() == 0 || s.has_layout();
}

TEST(ConformanceEquivalenceSuite,
     PipelineDoesRealWorkAndLeavesLayoutsComplete) {
  // Over the whole suite: the pipeline changes programs beyond pinning the
  // entry layout, fusion creates fusions, every array ends up with a
  // layout, and layout assignment run again finds nothing to do.
  int64_t cases = 0, shrunk = 0, with_fusion = 0;
  for (const auto& [name, path] : DiscoverCaseFiles(ConformanceCasesDir())) {
    absl::StatusOr<ConformanceCase> c = LoadCaseFile(path, name);
    ASSERT_TRUE(c.ok()) << c.status();
    // As the runner does (a dynamic result needs the host's lowering).
    pass_test::LowerDynamicProgram(&c->text, nullptr);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(c->text);
    ASSERT_TRUE(m.ok()) << name;
    const int64_t before = CountInstructions(**m);
    PipelineOptions options;
    options.verify = true;
    options.fusion = true;
    ASSERT_TRUE(RunDefaultPipeline(m->get(), options).ok()) << name;
    ++cases;
    shrunk += CountInstructions(**m) < before;
    bool fused = false;
    for (const Computation* comp : (*m)->computations()) {
      for (const Instruction* inst : comp->instructions()) {
        fused |= inst->opcode() == HloOpcode::kFusion;
        EXPECT_TRUE(AllArraysLaidOut(inst->shape()))
            << name << ": " << inst->name() << " " << inst->shape();
      }
    }
    with_fusion += fused;
    LayoutAssignment again;
    absl::StatusOr<bool> changed = again.Run(**m);
    ASSERT_TRUE(changed.ok()) << name;
    EXPECT_FALSE(*changed) << name << "\n" << PrintModule(**m);
  }
  EXPECT_GT(cases, 100);
  EXPECT_GT(shrunk, 10) << "of " << cases;
  EXPECT_GT(with_fusion, 10) << "of " << cases;
  std::printf(
      "%lld cases: %lld smaller after the pipeline, %lld with fusions\n",
      static_cast<long long>(cases), static_cast<long long>(shrunk),
      static_cast<long long>(with_fusion));
}

}  // namespace
}  // namespace plexa
