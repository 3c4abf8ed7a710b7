#include "core/stablehlo/stablehlo_parser.h"

#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/base/status_macros.h"
#include "core/stablehlo/lower.h"
#include "core/stablehlo/mlir_reader.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"

namespace plexa {
namespace {

using stablehlo::Comp;

// A message from the HLO parser ("L:C: msg", L a line of the generated
// text) moved to the MLIR location the line came from.
absl::Status MapParseError(const absl::Status& status,
                           const std::vector<const Comp::Line*>& origin) {
  std::string msg(status.message());
  std::vector<std::string> parts = absl::StrSplit(msg, absl::MaxSplits(':', 2));
  int line = 0;
  if (parts.size() == 3 && absl::SimpleAtoi(parts[0], &line) && line >= 1 &&
      line <= static_cast<int>(origin.size()) && origin[line - 1] != nullptr) {
    const Comp::Line& l = *origin[line - 1];
    return absl::Status(
        status.code(),
        absl::StrCat(l.loc.line, ":", l.loc.col, ": '", l.op,
                     "': ", absl::StripLeadingAsciiWhitespace(parts[2]),
                     " (in the HLO written for it: ", l.text, ")"));
  }
  return absl::Status(status.code(),
                      absl::StrCat("in the HLO the importer wrote: ", msg));
}

// A verifier message naming an instruction: located at the MLIR op that
// wrote it (the longest instruction name the message mentions).
absl::Status MapVerifierError(const absl::Status& status,
                              const std::vector<const Comp::Line*>& origin) {
  std::string msg(status.message());
  const Comp::Line* best = nullptr;
  for (const Comp::Line* l : origin) {
    if (l == nullptr) continue;
    size_t at = msg.find(l->defines);
    if (at == std::string::npos) continue;
    size_t end = at + l->defines.size();
    const bool word_end =
        end == msg.size() ||
        !(std::isalnum(static_cast<unsigned char>(msg[end])) ||
          msg[end] == '_' || msg[end] == '.');
    if (word_end &&
        (best == nullptr || l->defines.size() > best->defines.size())) {
      best = l;
    }
  }
  if (best == nullptr) return status;
  return absl::Status(status.code(),
                      absl::StrCat(best->loc.line, ":", best->loc.col, ": '",
                                   best->op, "': ", msg));
}

}  // namespace

absl::StatusOr<std::string> StableHloToHloText(absl::string_view text) {
  PLEXA_ASSIGN_OR_RETURN(stablehlo::MModule module,
                         stablehlo::ReadMlirModule(text));
  stablehlo::Lowering lowering(module);
  return lowering.Run();
}

absl::StatusOr<std::unique_ptr<Module>> ParseStableHloModule(
    absl::string_view text) {
  PLEXA_ASSIGN_OR_RETURN(stablehlo::MModule mlir,
                         stablehlo::ReadMlirModule(text));
  stablehlo::Lowering lowering(mlir);
  PLEXA_ASSIGN_OR_RETURN(std::string hlo, lowering.Run());
  absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(hlo);
  if (!module.ok()) {
    return MapParseError(module.status(), lowering.line_origin());
  }
  absl::Status verified = VerifyModule(**module);
  if (!verified.ok()) {
    return MapVerifierError(verified, lowering.line_origin());
  }
  return module;
}

bool LooksLikeStableHlo(absl::string_view text) {
  while (!text.empty()) {
    text = absl::StripLeadingAsciiWhitespace(text);
    if (absl::StartsWith(text, "//")) {
      size_t nl = text.find('\n');
      text = nl == absl::string_view::npos ? "" : text.substr(nl + 1);
      continue;
    }
    break;
  }
  return absl::StartsWith(text, "module") ||
         absl::StartsWith(text, "func.func") ||
         absl::StartsWith(text, "#loc") ||
         absl::StartsWith(text, "\"builtin.module\"") ||
         absl::StartsWith(text, "\"func.func\"");
}

}  // namespace plexa
