#include "tools/plexa/cli.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/stablehlo/stablehlo_parser.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"
#include "core/xla_proto/xla_proto_import.h"

namespace plexa::cli {

bool Args::Has(absl::string_view name) const {
  for (const auto& [k, v] : flags) {
    if (k == name) return true;
  }
  return false;
}

std::optional<std::string> Args::Get(absl::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : flags) {
    if (k == name) out = v;  // the last one wins
  }
  return out;
}

std::vector<std::string> Args::GetAll(absl::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : flags) {
    if (k == name) out.push_back(v);
  }
  return out;
}

namespace {

// Levenshtein distance (insertions, deletions, substitutions).
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string DidYouMean(absl::string_view word,
                       const std::vector<std::string>& candidates,
                       absl::string_view prefix) {
  const std::string* best = nullptr;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(word, c);
    if (best == nullptr || d < best_distance) {
      best = &c;
      best_distance = d;
    }
  }
  // A typo: a third of the word's letters or fewer (at least 2), or the
  // word is a prefix of the candidate ("--out" for "--output").
  const size_t allowed = std::max<size_t>(2, word.size() / 3);
  if (best == nullptr) return "";
  if (best_distance > allowed && !absl::StartsWith(*best, word)) {
    return "";
  }
  return absl::StrCat(" (did you mean '", prefix, *best, "'?)");
}

absl::StatusOr<Args> ParseArgs(int argc, char** argv, int first,
                               const std::vector<std::string>& known_flags) {
  Args args;
  for (int i = first; i < argc; ++i) {
    absl::string_view a = argv[i];
    // `-o FILE` is `--output=FILE` for the commands that write one.
    if (a == "-o" && std::find(known_flags.begin(), known_flags.end(),
                               "output") != known_flags.end()) {
      if (i + 1 >= argc) {
        return absl::InvalidArgumentError("-o needs a file name after it");
      }
      args.flags.emplace_back("output", argv[++i]);
      continue;
    }
    if (!absl::StartsWith(a, "--")) {
      args.positional.emplace_back(a);
      continue;
    }
    a.remove_prefix(2);
    const size_t eq = a.find('=');
    std::string name(a.substr(0, eq));
    std::string value =
        eq == absl::string_view::npos ? "" : std::string(a.substr(eq + 1));
    bool known = false;
    for (const std::string& k : known_flags) known |= k == name;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '--", name, "'",
                       DidYouMean(name, known_flags, "--")));
    }
    args.flags.emplace_back(std::move(name), std::move(value));
  }
  return args;
}

absl::StatusOr<std::vector<host::Plugin::Option>> ParsePluginOptions(
    const Args& args) {
  std::vector<host::Plugin::Option> options;
  for (const std::string& o : args.GetAll("plugin-option")) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--plugin-option expects NAME=VALUE, got '", o, "'"));
    }
    host::Plugin::Option option;
    option.name = o.substr(0, eq);
    option.kind = PLX_Value_STRING;
    option.string_value = o.substr(eq + 1);
    if (absl::SimpleAtoi(option.string_value, &option.int64_value)) {
      option.kind = PLX_Value_INT64;
    }
    options.push_back(std::move(option));
  }
  return options;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<std::unique_ptr<Module>> LoadModule(const std::string& path) {
  absl::StatusOr<std::string> read = ReadFile(path);
  if (!read.ok()) return read.status();
  const std::string& text = *read;
  // StableHLO/MLIR text (`.mlir`, or text that starts like MLIR): the
  // importer, which also verifies; its messages start with "LINE:COL: ".
  const bool mlir = absl::EndsWith(path, ".mlir") || LooksLikeStableHlo(text);
  // XLA's binary HloModuleProto / HloProto / HloSnapshot (`*.pb`, or bytes
  // that are not text): core/xla_proto, which also verifies.
  const bool xla_proto =
      !mlir && (absl::EndsWith(path, ".pb") || LooksLikeBinaryProto(text));
  auto module = xla_proto ? ParseXlaHloProto(text)
                : mlir    ? ParseStableHloModule(text)
                          : ParseHloModule(text);
  if (!module.ok()) {
    // The parser's messages start with "LINE:COL: ".
    std::string msg(module.status().message());
    const size_t colon2 = msg.find(": ");
    const bool has_pos = colon2 != std::string::npos && colon2 > 0 &&
                         msg.find_first_not_of("0123456789:") == colon2 + 1;
    if (has_pos) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ":", msg.substr(0, colon2),
                       ": error: ", msg.substr(colon2 + 2)));
    }
    return absl::InvalidArgumentError(absl::StrCat(path, ": error: ", msg));
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: invalid module: ", verified.message()));
  }
  return module;
}

absl::StatusOr<std::vector<Literal>> LoadSnapshotArguments(
    const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  if (!absl::EndsWith(path, ".pb") && !LooksLikeBinaryProto(bytes)) {
    return std::vector<Literal>();
  }
  absl::StatusOr<XlaProtoImport> imported = ImportXlaProto(bytes);
  if (!imported.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": error: ", imported.status().message()));
  }
  return std::move(imported->arguments);
}

int ReportError(const absl::Status& status) {
  std::string msg(status.message());
  if (msg.find(": error: ") == std::string::npos &&
      !absl::StartsWith(msg, "error: ")) {
    msg = absl::StrCat("error: ", msg);
  }
  std::fprintf(stderr, "%s\n", msg.c_str());
  return 1;
}

}  // namespace plexa::cli
