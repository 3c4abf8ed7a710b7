// Robustness of the HLO text parser: every program we have (the .hlo files
// under examples/ and tests/, found at run time, and the programs embedded
// in the core/text tests) is fed truncated at many points and mutated a few
// thousand times with a fixed seed. Each input must give a status or a
// module, never a crash, hang or sanitizer report (CI runs this under
// ASan/UBSan). Whatever parses must also print and parse back to the same
// text.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/text/test_programs.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

struct Input {
  std::string name;
  std::string text;
  bool embedded;
};

std::string Sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? c : '_';
  }
  return out;
}

std::vector<Input> Corpus() {
  std::vector<Input> out;
  for (const auto& p : testing_programs::kAllPrograms) {
    out.push_back({std::string(p.name), std::string(p.text), true});
  }
  for (auto& [path, text] : testing_programs::TreeHloFiles()) {
    out.push_back({std::move(path), std::move(text), false});
  }
  return out;
}

// SplitMix64: a small deterministic generator (fixed seed per input).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t state_;
};

uint64_t Hash(const std::string& s) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Bytes and snippets that steer mutations towards the grammar's corners.
constexpr const char* kSnippets[] = {
    "{",     "}",      "(",        ")",
    "[",     "]",      ",",        "=",
    "%",     "\"",     "'",        "/*",
    "*/",    "//",     "\n",       "->",
    "<=",    "...",    "-",        "0",
    "9",     "-1",     "1e999",    "nan(0x1)",
    "-inf",  "ROOT ",  "ENTRY ",   "f32[",
    "}{",    "x",      "T(",       "18446744073709551616",
    "{...}", "tuple(", "((((((((", "))))))))",
    "\\",    "\x00",   "\xff",     "?",
};

std::string Mutate(const std::string& text, Rng& rng) {
  std::string s = text;
  const int edits = 1 + static_cast<int>(rng.Below(4));
  for (int e = 0; e < edits; ++e) {
    const size_t pos = rng.Below(s.size() + 1);
    switch (rng.Below(6)) {
      case 0:  // flip to a random byte
        if (!s.empty())
          s[std::min(pos, s.size() - 1)] = static_cast<char>(rng.Next());
        break;
      case 1:  // delete a short range
        s.erase(pos, 1 + rng.Below(8));
        break;
      case 2: {  // insert a snippet
        const char* snippet =
            kSnippets[rng.Below(sizeof(kSnippets) / sizeof(kSnippets[0]))];
        // "\x00" is a one-byte snippet whose only byte is NUL.
        const std::string piece =
            snippet[0] == '\0' ? std::string(1, '\0') : std::string(snippet);
        s.insert(pos, piece);
        break;
      }
      case 3: {  // duplicate a slice elsewhere
        const size_t from = rng.Below(s.size() + 1);
        const size_t len = std::min<size_t>(1 + rng.Below(40), s.size() - from);
        s.insert(pos, s.substr(from, len));
        break;
      }
      case 4:  // replace a digit with another number
        for (size_t i = pos; i < s.size(); ++i) {
          if (s[i] >= '0' && s[i] <= '9') {
            s.replace(i, 1, std::to_string(rng.Next() % 100000));
            break;
          }
        }
        break;
      default:  // swap two bytes
        if (s.size() > 1)
          std::swap(s[rng.Below(s.size())], s[rng.Below(s.size())]);
        break;
    }
  }
  return s;
}

// Parses; if that succeeds, printing and parsing again must succeed and
// print the same text.
void Feed(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) {
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument)
        << m.status();
    return;
  }
  const std::string printed = PrintModule(**m);
  absl::StatusOr<std::unique_ptr<Module>> again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status() << "\n--- input:\n"
                          << text << "\n--- printed:\n"
                          << printed;
  EXPECT_EQ(PrintModule(**again), printed) << "--- input:\n" << text;
}

class ParserFuzzTest : public ::testing::TestWithParam<Input> {};

TEST_P(ParserFuzzTest, TruncationsAndMutationsNeverCrash) {
  const Input& input = GetParam();
  const std::string& text = input.text;
  // Every truncation of the embedded programs; about 48 of each file.
  const size_t stride =
      input.embedded ? 1 : std::max<size_t>(1, text.size() / 48);
  for (size_t n = 0; n <= text.size(); n += stride) Feed(text.substr(0, n));
  Feed(text);
  // 400 mutations of each embedded program, 4 of each file: a few thousand
  // in all, the same every run.
  Rng rng(Hash(input.name));
  const int mutations = input.embedded ? 400 : 4;
  for (int i = 0; i < mutations; ++i) Feed(Mutate(text, rng));
}

INSTANTIATE_TEST_SUITE_P(Corpus, ParserFuzzTest, ::testing::ValuesIn(Corpus()),
                         [](const ::testing::TestParamInfo<Input>& info) {
                           return Sanitize(info.param.name) + "_" +
                                  std::to_string(info.index);
                         });

TEST(ParserFuzzSmokeTest, PathologicalInputs) {
  for (const std::string& text : std::vector<std::string>{
           "",
           "HloModule",
           "HloModule m,",
           "HloModule m, a=",
           "ENTRY",
           std::string(100000, '('),
           std::string(100000, '{'),
           "ENTRY e { ROOT r = " + std::string(50000, '(') + "f32[] x() }",
           "ENTRY e { ROOT r = f32[] constant(" + std::string(50000, '{'),
           std::string("ENTRY e { ROOT p = f32[] parameter(0) }\0", 40),
           "ENTRY e { ROOT p = f32[1000000000000] parameter(0) }",
           "ENTRY e { ROOT p = f32[] parameter(999999999999) }",
           "ENTRY e { ROOT c = f32[99999999999,99999999999] constant({...}) }",
           "ENTRY e { ROOT c = f32[2]{0:PD(999999999999)} constant({1,2}) }",
           "ENTRY e { ROOT c = f32[2]{0:T(99999999999)} constant({1,2}) }",
           "ENTRY e { ROOT c = f32[2]{0:T(*)} constant({1,2}) }",
           "ENTRY e { ROOT c = f32[2]{5} constant({1,2}) }",
           "ENTRY e { p = f32[4] parameter(0)\n ROOT r = f32[4] all-reduce(p), "
           "replica_groups=[1048576,1048576]<=[1099511627776], to_apply=e }",
       }) {
    Feed(text);
  }
}

}  // namespace
}  // namespace plexa
