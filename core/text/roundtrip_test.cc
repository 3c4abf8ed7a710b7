// Round trips over every program we have (the embedded JAX-style dumps and
// the .hlo files under examples/ and tests/): parse, verify, print, parse
// again; the two modules must be structurally equal and print identically.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/text/test_programs.h"
#include "core/text/text_test_util.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using testing_programs::kAllPrograms;
using testing_programs::TestProgram;

void CheckRoundTrip(absl::string_view text, bool verify) {
  absl::StatusOr<std::unique_ptr<Module>> m1 = ParseHloModule(text);
  ASSERT_TRUE(m1.ok()) << m1.status();
  if (verify) {
    absl::Status v = VerifyModule(**m1);
    EXPECT_TRUE(v.ok()) << v;
  }
  const std::string p1 = PrintModule(**m1);
  absl::StatusOr<std::unique_ptr<Module>> m2 = ParseHloModule(p1);
  ASSERT_TRUE(m2.ok()) << m2.status() << "\n" << p1;
  EXPECT_EQ(text_testing::ModuleDifference(**m1, **m2), "") << p1;
  const std::string p2 = PrintModule(**m2);
  EXPECT_EQ(p1, p2);
  // And once more from the second print.
  absl::StatusOr<std::unique_ptr<Module>> m3 = ParseHloModule(p2);
  ASSERT_TRUE(m3.ok()) << m3.status();
  EXPECT_EQ(PrintModule(**m3), p2);
}

class EmbeddedProgramTest : public ::testing::TestWithParam<TestProgram> {};

TEST_P(EmbeddedProgramTest, ParsesVerifiesAndRoundTrips) {
  CheckRoundTrip(GetParam().text, /*verify=*/true);
}

INSTANTIATE_TEST_SUITE_P(Programs, EmbeddedProgramTest,
                         ::testing::ValuesIn(kAllPrograms),
                         [](const ::testing::TestParamInfo<TestProgram>& info) {
                           return std::string(info.param.name);
                         });

// .hlo files under `dir` (recursively), sorted.
std::vector<std::filesystem::path> HloFiles(const char* dir, bool recursive) {
  std::vector<std::filesystem::path> out;
  const std::filesystem::path root =
      std::filesystem::path(PLEXA_SOURCE_DIR) / dir;
  std::error_code ec;
  if (!std::filesystem::exists(root, ec)) return out;
  auto consider = [&](const std::filesystem::directory_entry& entry) {
    if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
      out.push_back(entry.path());
    }
  };
  if (recursive) {
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(root, ec)) {
      consider(e);
    }
  } else {
    for (const auto& e : std::filesystem::directory_iterator(root, ec)) {
      consider(e);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

TEST(HloFilesTest, ExamplesExistParseVerifyAndPrintBackUnchanged) {
  std::vector<std::string> names;
  for (const auto& path : HloFiles("examples", /*recursive=*/false)) {
    SCOPED_TRACE(path.string());
    names.push_back(path.filename().string());
    const std::string text = ReadFile(path);
    CheckRoundTrip(text, /*verify=*/true);
    // The examples are written exactly as the printer (and XLA) writes.
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(PrintModule(**m), text);
  }
  for (const char* required : {"mlp.hlo", "conv_block.hlo", "while_loop.hlo"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end())
        << required;
  }
}

// Every other .hlo in the tree (conformance cases, CLI tests, ...): those
// that parse must round-trip exactly. Some are deliberately malformed or
// semantically invalid, so neither parsing nor verification is required.
TEST(HloFilesTest, EveryParsableFileInTheTreeRoundTrips) {
  int parsed = 0;
  for (const char* dir : {"examples", "tests"}) {
    for (const auto& path : HloFiles(dir, /*recursive=*/true)) {
      SCOPED_TRACE(path.string());
      const std::string text = ReadFile(path);
      if (!ParseHloModule(text).ok()) continue;
      ++parsed;
      CheckRoundTrip(text, /*verify=*/false);
    }
  }
  EXPECT_GE(parsed, 3);
}

// Programs whose text is already canonical print back byte for byte: the
// printer writes what XLA writes.
TEST(PrinterFidelityTest, XlaDumpsPrintBackUnchanged) {
  for (absl::string_view text :
       {testing_programs::kMlp, testing_programs::kWhileLoop,
        testing_programs::kSort, testing_programs::kGatherScatter,
        testing_programs::kCustomCall}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(PrintModule(**m), text);
  }
}

TEST(PrinterFidelityTest, CanonicalFormOfTheJaxExample) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseHloModule(testing_programs::kJitF);
  ASSERT_TRUE(m.ok()) << m.status();
  // entry_computation_layout comes first, other header attributes after it
  // in their order.
  EXPECT_EQ(
      PrintModule(**m),
      R"(HloModule jit_f, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{1,0}}, is_scheduled=true, allow_spmd_sharding_propagation_to_output={true}

ENTRY %main.5 (Arg_0.1: f32[2,3]) -> f32[2,3] {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0)
  %constant.1 = f32[] constant(2)
  %broadcast.2 = f32[2,3]{1,0} broadcast(f32[] %constant.1), dimensions={}
  ROOT %add.3 = f32[2,3]{1,0} add(f32[2,3]{1,0} %Arg_0.1, f32[2,3]{1,0} %broadcast.2), metadata={op_name="jit(f)/add" source_file="x.py" source_line=3}
}
)");
}

TEST(PrinterFidelityTest, ModernDumpGetsPercentsShapesAndDefinitionOrder) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseHloModule(testing_programs::kModernDump);
  ASSERT_TRUE(m.ok()) << m.status();
  // The called region is printed before its caller, and broadcast.10 (used
  // before its definition in the text) before add.9.
  EXPECT_EQ(
      PrintModule(**m),
      R"(HloModule jit_f, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[2,3]{1,0}, f32[3]{0})}

%region_0.8 (reduce_sum.9: f32[], reduce_sum.10: f32[]) -> f32[] {
  %reduce_sum.9 = f32[] parameter(0)
  %reduce_sum.10 = f32[] parameter(1)
  ROOT %reduce_sum.11 = f32[] add(f32[] %reduce_sum.9, f32[] %reduce_sum.10)
}

ENTRY %main.12 (Arg_0.1: f32[2,3], Arg_1.2: s32[]) -> (f32[2,3], f32[3]) {
  %Arg_0.1 = f32[2,3]{1,0} parameter(0)
  %constant.3 = f32[] constant(0)
  %reduce_sum.4 = f32[3]{0} reduce(f32[2,3]{1,0} %Arg_0.1, f32[] %constant.3), dimensions={0}, to_apply=%region_0.8
  %constant.2 = f32[] constant(1.5)
  %broadcast.5 = f32[2,3]{1,0} broadcast(f32[] %constant.2), dimensions={}
  %mul.6 = f32[2,3]{1,0} multiply(f32[2,3]{1,0} %Arg_0.1, f32[2,3]{1,0} %broadcast.5)
  %Arg_1.2 = s32[] parameter(1)
  %convert.7 = f32[] convert(s32[] %Arg_1.2)
  %broadcast.10 = f32[2,3]{1,0} broadcast(f32[] %convert.7), dimensions={}
  %add.9 = f32[2,3]{1,0} add(f32[2,3]{1,0} %mul.6, f32[2,3]{1,0} %broadcast.10)
  ROOT %tuple.11 = (f32[2,3]{1,0}, f32[3]{0}) tuple(f32[2,3]{1,0} %add.9, f32[3]{0} %reduce_sum.4)
}
)");
}

}  // namespace
}  // namespace plexa
