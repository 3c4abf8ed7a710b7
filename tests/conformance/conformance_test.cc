// The conformance suite: every case file under tests/conformance/cases
// against every registered backend (backend.h), one gtest per pair:
//
//   Cases/ConformanceTest.Run/evaluator__conv__nhwc_valid
//
// Skips come from tests/conformance/skips.txt only.
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"
#include "tools/conformance/backend.h"
#include "tools/conformance/case_file.h"
#include "tools/conformance/compare.h"
#include "tools/conformance/run_case.h"

namespace plexa {
namespace {

// ---- skips.txt ------------------------------------------------------------

struct SkipEntry {
  int line = 0;
  std::string backend;  // or "*"
  std::string case_name;
  std::string reason;
};

struct SkipList {
  std::vector<SkipEntry> entries;
  std::vector<std::string> errors;
};

std::string SkipsPath() {
  return std::string(PLEXA_SOURCE_DIR) + "/tests/conformance/skips.txt";
}

const SkipList& Skips() {
  static const SkipList* const skips = [] {
    auto* list = new SkipList();
    std::ifstream in(SkipsPath());
    if (!in) {
      list->errors.push_back(absl::StrCat("cannot read ", SkipsPath()));
      return list;
    }
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      absl::string_view l = absl::StripAsciiWhitespace(line);
      if (l.empty() || l[0] == '#') continue;
      std::vector<absl::string_view> parts =
          absl::StrSplit(l, absl::MaxSplits(absl::ByAnyChar(" \t"), 2),
                         absl::SkipWhitespace());
      if (parts.size() < 3) {
        list->errors.push_back(absl::StrCat(
            "skips.txt:", number, ": expected 'backend case reason'"));
        continue;
      }
      list->entries.push_back(
          {number, std::string(parts[0]), std::string(parts[1]),
           std::string(absl::StripAsciiWhitespace(parts[2]))});
    }
    return list;
  }();
  return *skips;
}

const SkipEntry* FindSkip(const std::string& backend,
                          const std::string& case_name) {
  for (const SkipEntry& e : Skips().entries) {
    if ((e.backend == "*" || e.backend == backend) &&
        e.case_name == case_name) {
      return &e;
    }
  }
  return nullptr;
}

// Prints the skip list once, before the tests run.
class SkipListPrinter : public ::testing::Environment {
 public:
  void SetUp() override {
    std::cout << "[ SKIPLIST ] " << SkipsPath() << ": "
              << Skips().entries.size() << " entr"
              << (Skips().entries.size() == 1 ? "y" : "ies") << "\n";
    for (const SkipEntry& e : Skips().entries) {
      std::cout << "[ SKIPLIST ]   " << e.backend << " " << e.case_name << ": "
                << e.reason << "\n";
    }
    std::cout << std::flush;
  }
};

::testing::Environment* const skip_list_printer [[maybe_unused]] =
    ::testing::AddGlobalTestEnvironment(new SkipListPrinter);

// ---- parameters -----------------------------------------------------------

struct CaseParam {
  std::string backend;
  std::string name;  // group/name
  std::string path;
};

// gtest prints parameters of failing tests with this.
void PrintTo(const CaseParam& p, std::ostream* os) {
  *os << p.backend << " " << p.name;
}

std::string TestName(const CaseParam& p) {
  std::string out = p.backend + "__";
  for (char c : p.name) {
    if (c == '/') {
      out += "__";
    } else {
      out += absl::ascii_isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
  }
  return out;
}

std::vector<CaseParam> AllParams() {
  std::vector<CaseParam> params;
  const auto cases = DiscoverCaseFiles(ConformanceCasesDir());
  for (const ConformanceBackend& b : ConformanceBackends()) {
    for (const auto& [name, path] : cases) {
      params.push_back({b.name, name, path});
    }
  }
  return params;
}

const ConformanceBackend* FindBackend(const std::string& name) {
  for (const ConformanceBackend& b : ConformanceBackends()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

// ---- the suite ------------------------------------------------------------

class ConformanceTest : public ::testing::TestWithParam<CaseParam> {};

TEST_P(ConformanceTest, Run) {
  const CaseParam& p = GetParam();
  if (const SkipEntry* skip = FindSkip(p.backend, p.name)) {
    GTEST_SKIP() << "skips.txt:" << skip->line << ": " << skip->reason;
  }
  const ConformanceBackend* backend = FindBackend(p.backend);
  ASSERT_NE(backend, nullptr);
  absl::StatusOr<ConformanceCase> c = LoadCaseFile(p.path, p.name);
  ASSERT_TRUE(c.ok()) << c.status();
  for (const std::string& note : c->notes) {
    RecordProperty("note", note);
  }
  for (const std::string& failure : RunConformanceCase(*c, *backend)) {
    ADD_FAILURE() << failure;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ConformanceTest,
                         ::testing::ValuesIn(AllParams()),
                         [](const ::testing::TestParamInfo<CaseParam>& info) {
                           return TestName(info.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ConformanceTest);

// ---- the suite's own consistency ------------------------------------------

TEST(ConformanceSuite, EveryCaseFileParses) {
  const auto cases = DiscoverCaseFiles(ConformanceCasesDir());
  ASSERT_FALSE(cases.empty())
      << "no case files under " << ConformanceCasesDir();
  for (const auto& [name, path] : cases) {
    absl::StatusOr<ConformanceCase> c = LoadCaseFile(path, name);
    if (!c.ok()) {
      ADD_FAILURE() << c.status();
      continue;
    }
    absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(c->text);
    EXPECT_TRUE(module.ok()) << path << ": " << module.status();
  }
}

TEST(ConformanceSuite, SkipListIsWellFormed) {
  for (const std::string& e : Skips().errors) ADD_FAILURE() << e;
  std::set<std::string> names;
  for (const auto& [name, path] : DiscoverCaseFiles(ConformanceCasesDir())) {
    names.insert(name);
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (const SkipEntry& e : Skips().entries) {
    EXPECT_TRUE(names.count(e.case_name))
        << "skips.txt:" << e.line << ": no case named '" << e.case_name << "'";
    EXPECT_TRUE(seen.insert({e.backend, e.case_name}).second)
        << "skips.txt:" << e.line << ": duplicate entry";
    EXPECT_FALSE(e.reason.empty()) << "skips.txt:" << e.line;
  }
}

TEST(ConformanceSuite, BackendNamesAreUnique) {
  std::set<std::string> names;
  for (const ConformanceBackend& b : ConformanceBackends()) {
    EXPECT_FALSE(b.name.empty());
    EXPECT_TRUE(static_cast<bool>(b.run)) << b.name;
    for (char ch : b.name) {
      EXPECT_TRUE(absl::ascii_isalnum(static_cast<unsigned char>(ch)))
          << "backend name '" << b.name << "' must be alphanumeric";
    }
    EXPECT_TRUE(names.insert(b.name).second)
        << "two backends named '" << b.name << "'";
  }
}

}  // namespace
}  // namespace plexa
