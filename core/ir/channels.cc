#include "core/ir/channels.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace plexa {

namespace {

absl::Status Malformed(absl::string_view what, absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " in frontend_attributes ", text));
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
ParseFrontendAttributes(absl::string_view text) {
  std::vector<std::pair<std::string, std::string>> entries;
  absl::string_view s = absl::StripAsciiWhitespace(text);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') {
    return Malformed("expected {key=\"value\", ...}", text);
  }
  s = s.substr(1, s.size() - 2);
  size_t i = 0;
  auto skip_space = [&] {
    while (i < s.size() && absl::ascii_isspace(s[i])) ++i;
  };
  while (true) {
    skip_space();
    if (i == s.size()) break;
    const size_t key_start = i;
    while (i < s.size() && s[i] != '=' && s[i] != ',' &&
           !absl::ascii_isspace(s[i])) {
      ++i;
    }
    absl::string_view name = s.substr(key_start, i - key_start);
    skip_space();
    if (name.empty() || i == s.size() || s[i] != '=') {
      return Malformed("expected key=\"value\"", text);
    }
    ++i;
    skip_space();
    if (i < s.size() && s[i] == '{') {
      // XLA writes a value that lexes as a JSON dictionary unquoted.
      const size_t value_start = i;
      int depth = 0;
      bool in_string = false;
      for (; i < s.size(); ++i) {
        if (in_string) {
          if (s[i] == '\\') {
            ++i;
          } else if (s[i] == '"') {
            in_string = false;
          }
        } else if (s[i] == '"') {
          in_string = true;
        } else if (s[i] == '{') {
          ++depth;
        } else if (s[i] == '}' && --depth == 0) {
          ++i;
          break;
        }
      }
      if (depth != 0) {
        return Malformed(absl::StrCat("unbalanced value of ", name), text);
      }
      entries.emplace_back(std::string(name),
                           std::string(s.substr(value_start, i - value_start)));
      skip_space();
      if (i < s.size()) {
        if (s[i] != ',') return Malformed("expected ',' between entries", text);
        ++i;
      }
      continue;
    }
    if (i == s.size() || s[i] != '"') {
      return Malformed(absl::StrCat("expected a quoted value for ", name),
                       text);
    }
    ++i;
    std::string value;
    bool closed = false;
    while (i < s.size()) {
      const char c = s[i++];
      if (c == '"') {
        closed = true;
        break;
      }
      if (c == '\\' && i < s.size()) {
        value.push_back(s[i++]);
        continue;
      }
      value.push_back(c);
    }
    if (!closed) {
      return Malformed(absl::StrCat("unterminated value of ", name), text);
    }
    entries.emplace_back(std::string(name), std::move(value));
    skip_space();
    if (i < s.size()) {
      if (s[i] != ',') return Malformed("expected ',' between entries", text);
      ++i;
    }
  }
  return entries;
}

absl::StatusOr<std::optional<std::string>> FrontendAttribute(
    absl::string_view text, absl::string_view key) {
  PLEXA_ASSIGN_OR_RETURN(auto entries, ParseFrontendAttributes(text));
  for (auto& [name, value] : entries) {
    if (name == key) return std::move(value);
  }
  return std::nullopt;
}

absl::StatusOr<SourceTargetPairs> ParseSourceTargetPairs(absl::string_view s) {
  // {{0,1},{1,2}}: digits, commas, braces and spaces only.
  std::string compact;
  for (char c : s) {
    if (!absl::ascii_isspace(c)) compact.push_back(c);
  }
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("source-target pairs \"", s, "\": ", why,
                     " (expected {{source,target},...})"));
  };
  absl::string_view v = compact;
  if (v.size() < 2 || v.front() != '{' || v.back() != '}') {
    return bad("not a braced list");
  }
  v = v.substr(1, v.size() - 2);
  SourceTargetPairs pairs;
  while (!v.empty()) {
    if (v.front() != '{') return bad("a pair must be braced");
    const size_t close = v.find('}');
    if (close == absl::string_view::npos) return bad("unclosed pair");
    absl::string_view pair = v.substr(1, close - 1);
    const size_t comma = pair.find(',');
    int64_t source = 0;
    int64_t target = 0;
    if (comma == absl::string_view::npos ||
        !absl::SimpleAtoi(pair.substr(0, comma), &source) ||
        !absl::SimpleAtoi(pair.substr(comma + 1), &target)) {
      return bad(absl::StrCat("{", pair, "} is not two integers"));
    }
    if (source < 0 || target < 0) return bad("replica ids are non-negative");
    pairs.emplace_back(source, target);
    v.remove_prefix(close + 1);
    if (!v.empty()) {
      if (v.front() != ',') return bad("expected ',' between pairs");
      v.remove_prefix(1);
      if (v.empty()) return bad("a trailing ','");
    }
  }
  return pairs;
}

absl::StatusOr<std::optional<SourceTargetPairs>> SendRecvSourceTargetPairs(
    const Instruction& instruction) {
  for (const auto& [name, value] : instruction.attrs().opaque) {
    if (name != "frontend_attributes") continue;
    absl::StatusOr<std::optional<std::string>> text =
        FrontendAttribute(value, kSendRecvPairsAttribute);
    absl::StatusOr<SourceTargetPairs> pairs =
        text.ok() && text->has_value()
            ? ParseSourceTargetPairs(**text)
            : absl::StatusOr<SourceTargetPairs>(SourceTargetPairs{});
    if (!text.ok() || !pairs.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "instruction '", instruction.name(),
          "': ", (!text.ok() ? text.status() : pairs.status()).message()));
    }
    if (!text->has_value()) return std::nullopt;
    return *std::move(pairs);
  }
  return std::nullopt;
}

}  // namespace plexa
