// Robustness of the StableHLO importer: every .mlir program under tests/
// and examples/ (found at run time) truncated at many points and mutated
// with a fixed seed. Each input must give a status or a module, never a
// crash, hang or sanitizer report; whatever imports must print as HLO that
// Plexa's parser reads back.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/stablehlo/stablehlo_parser.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

std::vector<std::pair<std::string, std::string>> Corpus() {
  std::vector<std::filesystem::path> files;
  for (const char* dir : {"examples", "tests"}) {
    const auto root = std::filesystem::path(PLEXA_SOURCE_DIR) / dir;
    std::error_code ec;
    if (!std::filesystem::exists(root, ec)) continue;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(root, ec)) {
      if (e.is_regular_file() && e.path().extension() == ".mlir") {
        files.push_back(e.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out.emplace_back(f.filename().string(), ss.str());
  }
  return out;
}

void Check(const std::string& text, const std::string& what) {
  auto m = ParseStableHloModule(text);
  if (!m.ok()) {
    EXPECT_FALSE(m.status().message().empty()) << what;
    return;
  }
  auto again = ParseHloModule(PrintModule(**m));
  EXPECT_TRUE(again.ok()) << what << ": " << again.status();
}

TEST(StableHloFuzzTest, CorpusIsNotEmpty) { EXPECT_GE(Corpus().size(), 7u); }

TEST(StableHloFuzzTest, Truncations) {
  for (const auto& [name, text] : Corpus()) {
    ASSERT_TRUE(ParseStableHloModule(text).ok()) << name;
    const size_t step = std::max<size_t>(1, text.size() / 400);
    for (size_t n = 0; n < text.size(); n += step) {
      Check(text.substr(0, n), name + " cut at " + std::to_string(n));
    }
  }
}

TEST(StableHloFuzzTest, Mutations) {
  uint64_t state = 0x5eed;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const std::string alphabet = "%#@<>()[]{}:,=x0123456789-\" .tensorf32i1?";
  for (const auto& [name, text] : Corpus()) {
    for (int k = 0; k < 1500; ++k) {
      std::string m = text;
      const int edits = 1 + static_cast<int>(next() % 4);
      for (int e = 0; e < edits && !m.empty(); ++e) {
        const size_t at = next() % m.size();
        switch (next() % 3) {
          case 0:
            m[at] = alphabet[next() % alphabet.size()];
            break;
          case 1:
            m.erase(at, 1 + next() % 8);
            break;
          default:
            m.insert(at, 1, alphabet[next() % alphabet.size()]);
        }
      }
      Check(m, name + " mutation " + std::to_string(k));
    }
  }
}

}  // namespace
}  // namespace plexa
