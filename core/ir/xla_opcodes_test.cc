// docs/opcodes.md says, for every opcode XLA has, whether Plexa has it and,
// when not, why. This test keeps that page true: its rows must be exactly
// XLA's opcodes, and an opcode marked "yes" must be in Plexa's table and
// one marked "no" must not be.
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/ir/opcode.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// XLA's opcode list (HLO_OPCODE_LIST in xla/hlo/ir/hlo_opcode.h of
// openxla/xla, as of November 2026: 136 opcodes), by HLO spelling. Data from
// outside Plexa; when XLA adds an opcode, add it here and to the page.
constexpr const char* kXlaOpcodes[] = {
    "abs",
    "acos",
    "acosh",
    "add",
    "add-dependency",
    "after-all",
    "all-gather",
    "all-gather-done",
    "all-gather-start",
    "all-reduce",
    "all-reduce-done",
    "all-reduce-start",
    "all-to-all",
    "and",
    "asin",
    "asinh",
    "async-done",
    "async-start",
    "async-update",
    "atan",
    "atan2",
    "atanh",
    "batch-norm-grad",
    "batch-norm-inference",
    "batch-norm-training",
    "bitcast",
    "bitcast-convert",
    "broadcast",
    "call",
    "cbrt",
    "ceil",
    "cholesky",
    "clamp",
    "count-leading-zeros",
    "collective-broadcast",
    "collective-permute",
    "collective-permute-done",
    "collective-permute-start",
    "collective-reduce",
    "compare",
    "complex",
    "concatenate",
    "conditional",
    "constant",
    "convert",
    "convolution",
    "copy",
    "copy-done",
    "copy-start",
    "cosine",
    "cosh",
    "custom-call",
    "divide",
    "domain",
    "dot",
    "dynamic-reshape",
    "dynamic-slice",
    "dynamic-update-slice",
    "erf",
    "exponential",
    "exponential-minus-one",
    "fft",
    "floor",
    "fusion",
    "gather",
    "get-dimension-size",
    "get-tuple-element",
    "imag",
    "infeed",
    "iota",
    "is-finite",
    "log",
    "log-plus-one",
    "logistic",
    "map",
    "maximum",
    "minimum",
    "mulhi",
    "multiply",
    "negate",
    "not",
    "opt-barrier",
    "or",
    "outfeed",
    "pad",
    "parameter",
    "partition-id",
    "popcnt",
    "power",
    "ragged-all-to-all",
    "ragged-dot",
    "real",
    "recv",
    "recv-done",
    "reduce",
    "reduce-precision",
    "reduce-scatter",
    "reduce-window",
    "remainder",
    "replica-id",
    "reshape",
    "reverse",
    "rng",
    "rng-bit-generator",
    "rng-get-and-update-state",
    "round-nearest-afz",
    "round-nearest-even",
    "rsqrt",
    "scaled-dot",
    "scan",
    "scatter",
    "select",
    "select-and-scatter",
    "send",
    "send-done",
    "set-dimension-size",
    "shift-left",
    "shift-right-arithmetic",
    "shift-right-logical",
    "shuffle",
    "sign",
    "sine",
    "sinh",
    "slice",
    "sort",
    "sqrt",
    "stochastic-convert",
    "subtract",
    "tan",
    "tanh",
    "topk",
    "transpose",
    "triangular-solve",
    "tuple",
    "while",
    "xor",
};

TEST(XlaOpcodesTest, TheListIsXlas) {
  EXPECT_EQ(std::size(kXlaOpcodes), 136u);
  std::set<std::string> unique(std::begin(kXlaOpcodes), std::end(kXlaOpcodes));
  EXPECT_EQ(unique.size(), std::size(kXlaOpcodes));
}

TEST(XlaOpcodesTest, EveryPlexaOpcodeIsXlas) {
  std::set<std::string> xla(std::begin(kXlaOpcodes), std::end(kXlaOpcodes));
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const std::string name(HloOpcodeString(static_cast<HloOpcode>(i)));
    EXPECT_TRUE(xla.count(name)) << name << " is not an XLA opcode";
  }
}

// Tests run in the source directory (core/CMakeLists.txt).
TEST(XlaOpcodesTest, TheSupportPageIsTrue) {
  std::ifstream in("docs/opcodes.md");
  ASSERT_TRUE(in) << "cannot open docs/opcodes.md";
  std::set<std::string> rows;
  std::string line;
  int yes = 0, no = 0;
  while (std::getline(in, line)) {
    // | `name` | yes ... |   or   | `name` | no: why ... |
    if (!absl::StartsWith(line, "| `")) continue;
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    ASSERT_GE(cells.size(), 4u) << line;
    absl::string_view quoted = absl::StripAsciiWhitespace(cells[1]);
    std::string status(absl::StripAsciiWhitespace(cells[2]));
    ASSERT_TRUE(absl::ConsumePrefix(&quoted, "`") &&
                absl::ConsumeSuffix(&quoted, "`"))
        << line;
    const std::string name(quoted);
    EXPECT_TRUE(rows.insert(name).second) << name << " is listed twice";
    const bool in_plexa = StringToHloOpcode(name).has_value();
    if (absl::StartsWith(status, "yes")) {
      ++yes;
      EXPECT_TRUE(in_plexa) << name << " is marked yes but Plexa lacks it";
    } else if (absl::StartsWith(status, "no:")) {
      ++no;
      EXPECT_FALSE(in_plexa) << name << " is marked no but Plexa has it";
      EXPECT_GT(status.size(), 4u) << name << ": say why it is missing";
    } else {
      ADD_FAILURE() << name << ": the status must be 'yes' or 'no: why', "
                    << "found '" << status << "'";
    }
  }
  std::set<std::string> xla(std::begin(kXlaOpcodes), std::end(kXlaOpcodes));
  std::vector<std::string> missing, extra;
  for (const std::string& n : xla) {
    if (!rows.count(n)) missing.push_back(n);
  }
  for (const std::string& n : rows) {
    if (!xla.count(n)) extra.push_back(n);
  }
  EXPECT_TRUE(missing.empty()) << "XLA opcodes missing from docs/opcodes.md: "
                               << absl::StrJoin(missing, ", ");
  EXPECT_TRUE(extra.empty())
      << "rows that are not XLA opcodes: " << absl::StrJoin(extra, ", ");
  EXPECT_EQ(yes, kHloOpcodeCount) << "every Plexa opcode has a 'yes' row";
  EXPECT_EQ(yes + no, 136);
}

}  // namespace
}  // namespace plexa
