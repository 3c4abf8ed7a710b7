#include "tools/conformance/case_file.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/text/hlo_parser.h"

namespace plexa {
namespace {

bool IsOpen(char c) { return c == '(' || c == '[' || c == '{'; }
bool IsClose(char c) { return c == ')' || c == ']' || c == '}'; }

// Reads typed literals from a string, recursively for tuples.
class TypedLiteralReader {
 public:
  explicit TypedLiteralReader(absl::string_view text) : s_(text) {}

  absl::StatusOr<Literal> ReadAll() {
    absl::StatusOr<Literal> lit = Read(/*in_tuple=*/false);
    if (!lit.ok()) return lit.status();
    SkipSpace();
    if (pos_ != s_.size()) {
      return Error(absl::StrCat("unexpected text after the value: '",
                                s_.substr(pos_), "'"));
    }
    return lit;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("typed literal '", s_, "' at offset ", pos_, ": ", what));
  }

  void SkipSpace() {
    while (pos_ < s_.size() &&
           absl::ascii_isspace(static_cast<unsigned char>(s_[pos_]))) {
      ++pos_;
    }
  }

  absl::StatusOr<Literal> Read(bool in_tuple) {
    SkipSpace();
    if (pos_ >= s_.size()) return Error("expected a value");
    if (s_[pos_] == '(') return ReadTuple();
    // The shape: up to whitespace, ',' or ')' outside brackets.
    const size_t shape_begin = pos_;
    int depth = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (depth == 0 && (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
                         c == ',' || c == ')')) {
        break;
      }
      if (IsOpen(c)) ++depth;
      if (IsClose(c)) --depth;
      ++pos_;
    }
    const absl::string_view shape_text =
        s_.substr(shape_begin, pos_ - shape_begin);
    absl::StatusOr<Shape> shape = ParseShape(shape_text);
    if (!shape.ok()) {
      return Error(absl::StrCat("bad shape '", shape_text,
                                "': ", shape.status().message()));
    }
    if (shape->IsToken()) return Literal(*shape);
    if (shape->IsTuple()) {
      return Error(
          "write a tuple value as '( <shape> <literal>, ... )', not with a "
          "tuple shape");
    }
    // The literal: up to ',' or ')' outside brackets (inside a tuple), or
    // the end.
    SkipSpace();
    const size_t lit_begin = pos_;
    depth = 0;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (depth == 0 && in_tuple && (c == ',' || c == ')')) break;
      if (IsOpen(c)) ++depth;
      if (IsClose(c)) --depth;
      if (depth < 0) return Error("unbalanced brackets");
      ++pos_;
    }
    absl::string_view lit_text = absl::StripTrailingAsciiWhitespace(
        s_.substr(lit_begin, pos_ - lit_begin));
    if (lit_text.empty()) {
      return Error(absl::StrCat("no literal after shape ", shape_text));
    }
    absl::StatusOr<Literal> lit = ParseLiteral(lit_text, *shape);
    if (!lit.ok()) {
      return Error(absl::StrCat("bad literal '", lit_text, "' for ", shape_text,
                                ": ", lit.status().message()));
    }
    return lit;
  }

  absl::StatusOr<Literal> ReadTuple() {
    ++pos_;  // '('
    std::vector<Literal> elements;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ')') {
      ++pos_;
      return Literal::MakeTuple(std::move(elements));
    }
    while (true) {
      absl::StatusOr<Literal> e = Read(/*in_tuple=*/true);
      if (!e.ok()) return e.status();
      elements.push_back(*std::move(e));
      SkipSpace();
      if (pos_ >= s_.size()) return Error("unterminated tuple");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ')') {
        ++pos_;
        return Literal::MakeTuple(std::move(elements));
      }
      return Error("expected ',' or ')' in a tuple");
    }
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

absl::StatusOr<double> ParseDouble(absl::string_view s) {
  s = absl::StripAsciiWhitespace(s);
  double v;
  if (s == "inf") return HUGE_VAL;
  if (s == "-inf") return -HUGE_VAL;
  if (!absl::SimpleAtod(s, &v)) {
    return absl::InvalidArgumentError(absl::StrCat("not a number: '", s, "'"));
  }
  return v;
}

absl::StatusOr<Tolerance> ParseTolerance(absl::string_view text) {
  Tolerance tol;
  for (absl::string_view part :
       absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    if (part == "bits") {
      tol.bits = true;
      continue;
    }
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (kv.first == "ulps") {
      if (!absl::SimpleAtoi(kv.second, &tol.ulps) || tol.ulps < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("bad ulps value '", kv.second, "'"));
      }
      continue;
    }
    double* field = kv.first == "rtol"   ? &tol.rtol
                    : kv.first == "atol" ? &tol.atol
                                         : nullptr;
    if (field == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown tolerance '", part, "' (rtol=, atol=, ulps=, bits)"));
    }
    absl::StatusOr<double> v = ParseDouble(kv.second);
    if (!v.ok() || *v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad tolerance value '", part, "'"));
    }
    *field = *v;
  }
  return tol;
}

absl::StatusOr<ValueCheck> ParseCheck(absl::string_view text) {
  ValueCheck check;
  check.text = std::string(text);
  std::pair<absl::string_view, absl::string_view> split =
      absl::StrSplit(absl::StripAsciiWhitespace(text), absl::MaxSplits(' ', 1));
  absl::StatusOr<Shape> shape = ParseShape(split.first);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "check: bad shape '", split.first, "': ", shape.status().message()));
  }
  check.shape = *shape;
  absl::string_view rest = absl::StripAsciiWhitespace(split.second);
  if (absl::ConsumePrefix(&rest, "range")) {
    // "[lo, hi)" with [ or ( and ] or )
    rest = absl::StripAsciiWhitespace(rest);
    if (rest.size() < 5 || (rest.front() != '[' && rest.front() != '(') ||
        (rest.back() != ']' && rest.back() != ')')) {
      return absl::InvalidArgumentError(
          absl::StrCat("check: expected 'range [lo, hi)', got '", text, "'"));
    }
    check.kind = ValueCheck::Kind::kRange;
    check.lo_inclusive = rest.front() == '[';
    check.hi_inclusive = rest.back() == ']';
    std::vector<absl::string_view> bounds =
        absl::StrSplit(rest.substr(1, rest.size() - 2), ',');
    if (bounds.size() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("check: expected two bounds in '", text, "'"));
    }
    absl::StatusOr<double> lo = ParseDouble(bounds[0]);
    absl::StatusOr<double> hi = ParseDouble(bounds[1]);
    if (!lo.ok()) return lo.status();
    if (!hi.ok()) return hi.status();
    check.lo = *lo;
    check.hi = *hi;
    return check;
  }
  if (absl::ConsumePrefix(&rest, "moments")) {
    check.kind = ValueCheck::Kind::kMoments;
    bool has_mean = false, has_std = false, has_tol = false;
    for (absl::string_view part :
         absl::StrSplit(rest, ' ', absl::SkipWhitespace())) {
      std::pair<absl::string_view, absl::string_view> kv =
          absl::StrSplit(part, absl::MaxSplits('=', 1));
      absl::StatusOr<double> v = ParseDouble(kv.second);
      if (!v.ok()) return v.status();
      if (kv.first == "mean") {
        check.mean = *v;
        has_mean = true;
      } else if (kv.first == "std") {
        check.stddev = *v;
        has_std = true;
      } else if (kv.first == "tol") {
        check.tol = *v;
        has_tol = true;
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("check: unknown moments field '", part, "'"));
      }
    }
    if (!has_mean || !has_std || !has_tol) {
      return absl::InvalidArgumentError(
          "check: moments needs mean=, std= and tol=");
    }
    return check;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("check: unknown kind in '", text, "' (range or moments)"));
}

}  // namespace

std::string Tolerance::ToString() const {
  if (rtol == 0 && atol == 0 && ulps == 0) {
    return bits ? "exact bits" : "exact";
  }
  std::string out = absl::StrCat("rtol=", rtol, " atol=", atol);
  if (ulps) absl::StrAppend(&out, " ulps=", ulps);
  if (bits) absl::StrAppend(&out, " bits");
  return out;
}

absl::StatusOr<Literal> ParseTypedLiteral(absl::string_view text) {
  return TypedLiteralReader(text).ReadAll();
}

absl::StatusOr<ConformanceCase> ParseCaseFile(absl::string_view text,
                                              std::string name,
                                              std::string path) {
  ConformanceCase c;
  c.name = std::move(name);
  c.path = std::move(path);
  c.text = std::string(text);

  struct Line {
    int number;
    std::string value;
  };
  std::optional<Line> replicas_line, partitions_line;
  std::vector<Line> inputs, expects, checks, infeeds, outfeeds;
  // Per-device lines, keyed first by line number (with the replica and
  // partition each names, -1 for none), then by device number.
  std::map<int64_t, std::vector<Line>> replica_inputs, replica_expects;
  std::map<int64_t, std::pair<int64_t, int64_t>> device_keys;
  std::optional<Line> tolerance_line;
  bool has_source = false;

  auto error = [&](int line, absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat(c.path, ":", line, ": ", what));
  };

  int number = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++number;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty()) continue;
    if (!absl::ConsumePrefix(&line, "//")) break;  // the module starts
    line = absl::StripAsciiWhitespace(line);
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) {
      return error(number,
                   absl::StrCat("header line without 'key:': '", line, "'"));
    }
    const absl::string_view key =
        absl::StripAsciiWhitespace(line.substr(0, colon));
    const std::string value =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    if (key == "source") {
      if (value.empty()) return error(number, "empty source");
      c.source = value;
      has_source = true;
    } else if (key == "note") {
      c.notes.push_back(value);
    } else if (key == "input") {
      inputs.push_back({number, value});
    } else if (key == "expect") {
      expects.push_back({number, value});
    } else if (key == "check") {
      checks.push_back({number, value});
    } else if (key == "infeed") {
      infeeds.push_back({number, value});
    } else if (key == "outfeed") {
      outfeeds.push_back({number, value});
    } else if (key == "tolerance") {
      if (tolerance_line) return error(number, "a second tolerance line");
      tolerance_line = Line{number, value};
    } else if (key == "replicas") {
      if (replicas_line) return error(number, "a second replicas line");
      replicas_line = Line{number, value};
    } else if (key == "partitions") {
      if (partitions_line) return error(number, "a second partitions line");
      partitions_line = Line{number, value};
    } else if (absl::StartsWith(key, "replica ")) {
      // "replica R input", or with partitions "replica R partition P
      // input": kept by device number until the counts are known.
      std::vector<absl::string_view> parts =
          absl::StrSplit(key, ' ', absl::SkipWhitespace());
      int64_t r, p = -1;
      const bool with_partition = parts.size() == 5 && parts[2] == "partition";
      if ((parts.size() != 3 && !with_partition) ||
          !absl::SimpleAtoi(parts[1], &r) || r < 0 ||
          (with_partition && (!absl::SimpleAtoi(parts[3], &p) || p < 0)) ||
          (parts.back() != "input" && parts.back() != "expect")) {
        return error(number, absl::StrCat("bad key '", key,
                                          "' (replica N [partition P] input / "
                                          "expect)"));
      }
      device_keys[number] = {r, p};
      (parts.back() == "input" ? replica_inputs : replica_expects)[number]
          .push_back({number, value});
    } else {
      return error(number, absl::StrCat("unknown header key '", key, "'"));
    }
  }
  if (!has_source) return error(1, "missing '// source:' line");

  auto parse_value = [&](const Line& l) -> absl::StatusOr<Literal> {
    absl::StatusOr<Literal> lit = ParseTypedLiteral(l.value);
    if (!lit.ok()) return error(l.number, lit.status().message());
    return lit;
  };

  int64_t replicas = 1;
  if (replicas_line) {
    if (!absl::SimpleAtoi(replicas_line->value, &replicas) || replicas < 1) {
      return error(replicas_line->number, "replicas must be a number >= 1");
    }
  }
  if (partitions_line) {
    if (!absl::SimpleAtoi(partitions_line->value, &c.partitions) ||
        c.partitions < 1) {
      return error(partitions_line->number, "partitions must be a number >= 1");
    }
  }
  const bool per_device = replicas_line || partitions_line;
  if (per_device && !inputs.empty()) {
    return error(inputs.front().number,
                 "with 'replicas:' or 'partitions:' give inputs as 'replica N "
                 "[partition P] input:'");
  }
  if (!per_device && (!replica_inputs.empty() || !replica_expects.empty())) {
    const Line& l = !replica_inputs.empty()
                        ? replica_inputs.begin()->second.front()
                        : replica_expects.begin()->second.front();
    return error(l.number, "'replica N' lines need a 'replicas:' line");
  }
  // The lines by device number (replica * partitions + partition), checked
  // against the counts.
  for (auto* m : {&replica_inputs, &replica_expects}) {
    std::map<int64_t, std::vector<Line>> by_device;
    for (const auto& [line, lines] : *m) {
      const auto [r, p] = device_keys[line];
      if (r >= replicas) {
        return error(line, absl::StrCat("replica ", r, " of ", replicas));
      }
      if ((p < 0) != (c.partitions == 1) || p >= c.partitions) {
        return error(line,
                     c.partitions == 1
                         ? std::string("a partition without 'partitions:'")
                         : absl::StrCat("name a partition of ", c.partitions,
                                        " ('replica R partition P ...')"));
      }
      auto& dst = by_device[r * c.partitions + std::max<int64_t>(p, 0)];
      dst.insert(dst.end(), lines.begin(), lines.end());
    }
    *m = std::move(by_device);
  }
  replicas *= c.partitions;  // from here on: every device

  c.inputs.resize(replicas);
  if (per_device) {
    for (auto& [r, lines] : replica_inputs) {
      for (const Line& l : lines) {
        absl::StatusOr<Literal> v = parse_value(l);
        if (!v.ok()) return v.status();
        c.inputs[r].push_back(*std::move(v));
      }
    }
  } else {
    for (const Line& l : inputs) {
      absl::StatusOr<Literal> v = parse_value(l);
      if (!v.ok()) return v.status();
      c.inputs[0].push_back(*std::move(v));
    }
  }

  if (expects.size() > 1) return error(expects[1].number, "a second expect");
  if (!expects.empty() && !replica_expects.empty()) {
    return error(expects[0].number,
                 "give either 'expect:' or 'replica N expect:' lines");
  }
  if (!expects.empty()) {
    absl::StatusOr<Literal> v = parse_value(expects[0]);
    if (!v.ok()) return v.status();
    c.expected.assign(replicas, *v);
  } else if (!replica_expects.empty()) {
    if (static_cast<int64_t>(replica_expects.size()) != replicas) {
      return error(replica_expects.begin()->second.front().number,
                   "every replica (and partition) needs its 'replica N "
                   "expect:' line");
    }
    for (auto& [r, lines] : replica_expects) {
      if (lines.size() != 1) {
        return error(lines[1].number,
                     absl::StrCat("a second expect for replica ", r));
      }
      absl::StatusOr<Literal> v = parse_value(lines[0]);
      if (!v.ok()) return v.status();
      c.expected.push_back(*std::move(v));
    }
  }
  for (const Line& l : checks) {
    absl::StatusOr<ValueCheck> ck = ParseCheck(l.value);
    if (!ck.ok()) return error(l.number, ck.status().message());
    c.checks.push_back(*std::move(ck));
  }
  if (c.expected.empty() && c.checks.empty()) {
    return error(number, "no 'expect:' and no 'check:' line");
  }
  if (!c.expected.empty() && !c.checks.empty()) {
    return error(checks[0].number, "give either expect or check lines");
  }
  if (tolerance_line) {
    absl::StatusOr<Tolerance> tol = ParseTolerance(tolerance_line->value);
    if (!tol.ok()) return error(tolerance_line->number, tol.status().message());
    c.tolerance = *tol;
  }
  for (const Line& l : infeeds) {
    absl::StatusOr<Literal> v = parse_value(l);
    if (!v.ok()) return v.status();
    c.infeed.push_back(*std::move(v));
  }
  for (const Line& l : outfeeds) {
    absl::StatusOr<Literal> v = parse_value(l);
    if (!v.ok()) return v.status();
    c.outfeed.push_back(*std::move(v));
  }
  c.uses_feeds = !infeeds.empty() || !outfeeds.empty();
  if (c.uses_feeds && replicas != 1) {
    return error(
        replicas_line ? replicas_line->number : partitions_line->number,
        "infeed/outfeed cases run a single replica");
  }
  return c;
}

absl::StatusOr<ConformanceCase> LoadCaseFile(const std::string& path,
                                             std::string name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseCaseFile(buffer.str(), std::move(name), path);
}

std::vector<std::pair<std::string, std::string>> DiscoverCaseFiles(
    const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".hlo") continue;
    fs::path rel = fs::relative(it->path(), root);
    rel.replace_extension();
    out.emplace_back(rel.generic_string(), it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ConformanceCasesDir() { return PLEXA_CONFORMANCE_CASES_DIR; }

}  // namespace plexa
