// plexa check / plexa fmt / plexa convert
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/text/hlo_printer.h"
#include "core/xla_proto/xla_proto_export.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

int PrintProgram(const Args& args, const char* command) {
  if (args.positional.size() != 1) {
    std::fprintf(stderr, "error: usage: plexa %s PROGRAM.hlo\n", command);
    return 2;
  }
  auto module = LoadModule(args.positional[0]);
  if (!module.ok()) return ReportError(module.status());
  std::fputs(PrintModule(**module).c_str(), stdout);
  return 0;
}

}  // namespace

// The printed module carries every instruction's shape, which the verifier
// has checked against shape inference.
int RunCheck(const Args& args) { return PrintProgram(args, "check"); }

int RunFmt(const Args& args) { return PrintProgram(args, "fmt"); }

// A program (StableHLO/MLIR, HLO text or an XLA proto) as Plexa's HLO text,
// to stdout or -o/--output FILE; as XLA's binary HloModuleProto when FILE
// ends in .pb (core/xla_proto/xla_proto_export.h).
int RunConvert(const Args& args) {
  const std::vector<std::string>& positional = args.positional;
  const std::optional<std::string> out = args.Get("output");
  if (positional.size() != 1) {
    std::fprintf(stderr,
                 "error: usage: plexa convert PROGRAM.mlir [-o OUT.hlo]\n");
    return 2;
  }
  auto module = LoadModule(positional[0]);
  if (!module.ok()) return ReportError(module.status());
  const bool proto = out.has_value() && absl::EndsWith(*out, ".pb");
  const std::string text =
      proto ? SerializeXlaHloModuleProto(**module) : PrintModule(**module);
  if (!out.has_value() || out->empty()) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  std::ofstream file(*out, std::ios::binary);
  file << text;
  file.close();
  if (!file) {
    return ReportError(
        absl::UnavailableError(absl::StrCat("cannot write '", *out, "'")));
  }
  return 0;
}

}  // namespace plexa::cli
