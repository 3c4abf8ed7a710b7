// Reading conformance case files (format: tests/conformance/README.md).
#ifndef PLEXA_TOOLS_CONFORMANCE_CASE_FILE_H_
#define PLEXA_TOOLS_CONFORMANCE_CASE_FILE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"

namespace plexa {

// `// tolerance: rtol=1e-5 atol=1e-6 ulps=1 bits`. Without a tolerance line
// values must be equal (NaN matches NaN, -0 matches +0).
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  int64_t ulps = 0;
  // Floating-point values must have identical bits (so -0 differs from +0);
  // any NaN still matches any NaN.
  bool bits = false;
  std::string ToString() const;
};

// `// check: f32[256] range [0, 1)` or
// `// check: f32[4096] moments mean=0 std=1 tol=0.1`: for results that
// have no single expected value (rng).
struct ValueCheck {
  enum class Kind { kRange, kMoments };
  Shape shape;
  Kind kind = Kind::kRange;
  double lo = 0;
  double hi = 0;
  bool lo_inclusive = true;
  bool hi_inclusive = false;
  double mean = 0;
  double stddev = 0;
  double tol = 0;
  std::string text;  // as written, for messages
};

struct ConformanceCase {
  std::string name;  // "group/name", the path under cases/ without ".hlo"
  std::string path;  // the file
  std::string text;  // the whole file; the parser skips the // header
  std::string source;
  std::vector<std::string> notes;
  // One entry per device: every replica of every partition, replica-major
  // (size 1 unless `// replicas: N` or `// partitions: P`).
  std::vector<std::vector<Literal>> inputs;
  // SPMD partitions of each replica (`// partitions: P`; the module's
  // header must say num_partitions=P).
  int64_t partitions = 1;
  // One expected result per device; empty when the case has checks only.
  std::vector<Literal> expected;
  std::vector<ValueCheck> checks;
  Tolerance tolerance;
  // Host feeds: literals pushed to the infeed queue before the run, and the
  // literals the run must leave in the outfeed queue.
  std::vector<Literal> infeed;
  std::vector<Literal> outfeed;
  bool uses_feeds = false;

  int64_t replica_count() const { return static_cast<int64_t>(inputs.size()); }
};

// "f32[2,3]{0,1} { {1, 2, 3}, {4, 5, 6} }", "s32[] 3", "token[]", or a
// tuple of those: "( f32[2] {1, 2}, ( s32[] 3 ) )". The literal text is in
// logical row-major order whatever the layout; the result has the layout.
absl::StatusOr<Literal> ParseTypedLiteral(absl::string_view text);

// Parses a case file's text. `name` and `path` are recorded as given.
absl::StatusOr<ConformanceCase> ParseCaseFile(absl::string_view text,
                                              std::string name,
                                              std::string path);

// Reads and parses a file.
absl::StatusOr<ConformanceCase> LoadCaseFile(const std::string& path,
                                             std::string name);

// Every *.hlo file under `root`, as (name, path) sorted by name, where
// name is the path relative to root without the extension.
std::vector<std::pair<std::string, std::string>> DiscoverCaseFiles(
    const std::string& root);

// The cases directory of the source tree this was built from.
std::string ConformanceCasesDir();

}  // namespace plexa

#endif  // PLEXA_TOOLS_CONFORMANCE_CASE_FILE_H_
