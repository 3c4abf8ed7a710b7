// The StableHLO programs of tests/stablehlo, imported and run on the
// evaluator with the inputs of data/PROGRAM/CASE/ and compared with the
// outputs numpy computed (gen_data.py): floats within 1e-5 relative
// (plus 1e-6 absolute), integers exactly.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/eval/evaluator.h"
#include "core/npy/npy.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/stablehlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = fs::path(PLEXA_SOURCE_DIR) / "tests" / "stablehlo";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> Numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + std::to_string(i) + ".npy");
    if (!fs::exists(p)) break;
    out.push_back(p);
  }
  return out;
}

void ExpectClose(const Literal& got, const Literal& want,
                 const std::string& what) {
  ASSERT_EQ(got.shape().element_type(), want.shape().element_type()) << what;
  ASSERT_EQ(got.shape().dimensions(), want.shape().dimensions()) << what;
  const bool is_float = got.shape().element_type() == PrimitiveType::F32 ||
                        got.shape().element_type() == PrimitiveType::F64;
  int64_t bad = 0;
  ShapeUtil::ForEachIndex(got.shape(), [&](absl::Span<const int64_t> idx) {
    if (is_float) {
      double g = got.GetAsDouble(idx), w = want.GetAsDouble(idx);
      if (!(std::abs(g - w) <= 1e-6 + 1e-5 * std::abs(w)) && bad++ < 5) {
        ADD_FAILURE() << what << ": element " << ::testing::PrintToString(idx)
                      << " is " << g << ", numpy says " << w;
      }
    } else if (got.GetAsInt64(idx) != want.GetAsInt64(idx) && bad++ < 5) {
      ADD_FAILURE() << what << ": element " << ::testing::PrintToString(idx)
                    << " is " << got.GetAsInt64(idx) << ", numpy says "
                    << want.GetAsInt64(idx);
    }
  });
}

class ProgramsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ProgramsTest, MatchesNumpy) {
  const std::string name = GetParam();
  auto module = ParseStableHloModule(ReadFile(kDir / (name + ".mlir")));
  ASSERT_TRUE(module.ok()) << module.status();
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kDir / "data" / name)) {
    const fs::path dir = entry.path();
    std::vector<Literal> args;
    for (const fs::path& p : Numbered(dir, "in")) {
      auto lit = ReadNpyFile(p.string());
      ASSERT_TRUE(lit.ok()) << lit.status();
      args.push_back(*std::move(lit));
    }
    Evaluator evaluator;
    auto result = evaluator.Run(**module, args);
    ASSERT_TRUE(result.ok()) << result.status();
    std::vector<fs::path> outs = Numbered(dir, "out");
    const std::string what = name + "/" + dir.filename().string();
    if (result->shape().IsTuple()) {
      ASSERT_EQ(result->tuple_element_count(),
                static_cast<int64_t>(outs.size()))
          << what;
      for (size_t i = 0; i < outs.size(); ++i) {
        auto want = ReadNpyFile(outs[i].string());
        ASSERT_TRUE(want.ok()) << want.status();
        ExpectClose(result->tuple_element(i), *want,
                    what + " result " + std::to_string(i));
      }
    } else {
      ASSERT_EQ(outs.size(), 1u) << what;
      auto want = ReadNpyFile(outs[0].string());
      ASSERT_TRUE(want.ok()) << want.status();
      ExpectClose(*result, *want, what);
    }
    ++cases;
  }
  EXPECT_GT(cases, 0) << "no data for " << name << " (run gen_data.py)";
}

INSTANTIATE_TEST_SUITE_P(StableHlo, ProgramsTest,
                         ::testing::Values("mlp", "softmax", "while_loop",
                                           "conv", "gather", "gather_generic",
                                           "sort", "call_if_case"));

}  // namespace
}  // namespace plexa
