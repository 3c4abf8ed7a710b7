// Every registered pass, run alone, on every program we have (the
// conformance cases, the text test programs, the examples): the module
// stays verified (the pipeline checks after the pass) and, where the
// evaluator can run the program, computes the same values bit for bit
// (any NaN matching any NaN) — within 1e-5 for the batch-norm expander,
// which trades the evaluator's double-precision batch norm for element-type
// arithmetic. A second run of the pass after it reported no change must
// report no change again.
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/text/test_programs.h"
#include "gtest/gtest.h"
#include "tools/conformance/case_file.h"
#include "tools/conformance/compare.h"

namespace plexa {
namespace {

struct Program {
  std::string name;
  std::string text;
  // Inputs for the evaluator (conformance cases: the case's own).
  std::optional<std::vector<Literal>> inputs;
  std::vector<Literal> infeed;
};

// Deterministic arguments: floats in [-1, 1), integers in [0, 10).
Literal MakeArgument(const Shape& shape, uint64_t* state) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      elements.push_back(MakeArgument(s, state));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  Literal lit(shape);
  if (!shape.IsArray()) return lit;
  const PrimitiveType t = shape.element_type();
  ShapeUtil::ForEachIndex(lit.shape(), [&](absl::Span<const int64_t> i) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = *state >> 33;
    if (primitive_util::IsFloatingPointType(t) ||
        primitive_util::IsComplexType(t)) {
      EXPECT_TRUE(lit.SetFromDouble(i, (r % 2000) / 1000.0 - 1).ok());
    } else {
      EXPECT_TRUE(lit.SetFromInt64(i, static_cast<int64_t>(r % 10)).ok());
    }
  });
  return lit;
}

std::vector<Program> AllPrograms() {
  std::vector<Program> programs;
  for (const auto& [name, path] : DiscoverCaseFiles(ConformanceCasesDir())) {
    absl::StatusOr<ConformanceCase> c = LoadCaseFile(path, name);
    if (!c.ok() || c->replica_count() != 1) continue;
    pass_test::LowerDynamicProgram(&c->text, &c->inputs[0]);
    Program p{name, c->text, std::move(c->inputs[0]), std::move(c->infeed)};
    programs.push_back(std::move(p));
  }
  for (const testing_programs::TestProgram& t :
       testing_programs::kAllPrograms) {
    programs.push_back(
        {absl::StrCat("text/", t.name), std::string(t.text), std::nullopt, {}});
  }
  const std::string examples = std::string(PLEXA_SOURCE_DIR) + "/examples";
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(examples)) {
    if (e.path().extension() != ".hlo") continue;
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    programs.push_back(
        {e.path().filename().string(), ss.str(), std::nullopt, {}});
  }
  return programs;
}

absl::StatusOr<Literal> Evaluate(const Module& m, const Program& p,
                                 const std::vector<Literal>& args) {
  HostFeedQueue infeed, outfeed;
  for (const Literal& l : p.infeed) infeed.Push(l);
  EvaluatorOptions options;
  options.infeed = &infeed;
  options.outfeed = &outfeed;
  options.max_while_iterations = 1000000;
  return Evaluator(options).Run(m, args);
}

class EachPassTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EachPassTest, KeepsEveryProgramVerifiedAndItsValues) {
  const std::string pass_name = GetParam();
  int64_t evaluated = 0;
  for (const Program& p : AllPrograms()) {
    SCOPED_TRACE(p.name);
    absl::StatusOr<std::unique_ptr<Module>> original = ParseHloModule(p.text);
    ASSERT_TRUE(original.ok()) << original.status();
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(p.text);
    ASSERT_TRUE(m.ok());
    PipelineOptions options;
    options.verify = true;
    absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(pass_name, options);
    ASSERT_TRUE(pass.ok()) << pass.status();
    PipelineConfig config;
    config.verify = true;
    Pipeline pipeline("each", config);
    pipeline.AddPass(std::move(*pass));
    absl::StatusOr<bool> changed = pipeline.Run(**m);
    ASSERT_TRUE(changed.ok()) << changed.status();
    if (!*changed) {
      absl::StatusOr<bool> again = pipeline.Run(**m);
      ASSERT_TRUE(again.ok()) << again.status();
      EXPECT_FALSE(*again) << PrintModule(**m);
    }

    std::vector<Literal> args;
    if (p.inputs.has_value()) {
      args = *p.inputs;
    } else {
      uint64_t state = 99;
      for (const Instruction* param :
           (*original)->entry_computation()->parameter_instructions()) {
        args.push_back(MakeArgument(param->shape(), &state));
      }
    }
    absl::StatusOr<Literal> before = Evaluate(**original, p, args);
    if (!before.ok()) continue;  // e.g. an unresolved custom-call target
    absl::StatusOr<Literal> after = Evaluate(**m, p, args);
    ASSERT_TRUE(after.ok()) << after.status() << "\n" << PrintModule(**m);
    Tolerance tol;
    tol.bits = true;
    if (pass_name == "batchnorm-expander") {
      tol = Tolerance();
      tol.rtol = 1e-5;
      tol.atol = 1e-5;
    }
    const std::string diff = CompareLiterals(*before, *after, tol);
    EXPECT_TRUE(diff.empty()) << diff << "\n" << PrintModule(**m);
    ++evaluated;
  }
  EXPECT_GT(evaluated, 800);
}

std::vector<std::string> PassNames() {
  std::vector<std::string> names;
  for (const std::string& n : RegisteredPassNames()) {
    if (n != "default") names.push_back(n);  // the equivalence test's job
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Passes, EachPassTest, ::testing::ValuesIn(PassNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string s = info.param;
                           for (char& c : s) {
                             if (c == '-') c = '_';
                           }
                           return s;
                         });

}  // namespace
}  // namespace plexa
