// Shared pieces of the `plexa` command line.
#ifndef PLEXA_TOOLS_PLEXA_CLI_H_
#define PLEXA_TOOLS_PLEXA_CLI_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/status/statusor.h"
#include "core/ir/module.h"

namespace plexa::cli {

// Parsed command line: positional arguments and --name[=value] flags
// (repeatable flags keep every value in order).
struct Args {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> flags;

  bool Has(absl::string_view name) const;
  std::optional<std::string> Get(absl::string_view name) const;
  std::vector<std::string> GetAll(absl::string_view name) const;
};

// Flags that take no value are given as `--print`; the value is then "".
// An unknown flag is an error naming it and, when one is close, the known
// flag meant.
absl::StatusOr<Args> ParseArgs(int argc, char** argv, int first,
                               const std::vector<std::string>& known_flags);

// " (did you mean 'PREFIXc'?)" for the candidate c nearest to `word` in
// edit distance when it is close enough to be a typo; "" otherwise.
std::string DidYouMean(absl::string_view word,
                       const std::vector<std::string>& candidates,
                       absl::string_view prefix);

// --plugin-option=NAME=VALUE (repeatable): client options as given, an
// integer when VALUE reads as one, else a string.
absl::StatusOr<std::vector<host::Plugin::Option>> ParsePluginOptions(
    const Args& args);

// The bytes of the file at `path`; NOT_FOUND naming it when it cannot be
// read.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Reads, parses and verifies PROGRAM: HLO text, or StableHLO/MLIR text
// when PROGRAM ends in .mlir or starts like MLIR (core/stablehlo). Errors are
// formatted as the CLI prints them: "PROGRAM:LINE:COL: error: ..." for text
// errors. XLA's binary HloModuleProto, HloProto and HloSnapshot files
// (PROGRAM ends in .pb or is not text) are read by core/xla_proto.
absl::StatusOr<std::unique_ptr<Module>> LoadModule(const std::string& path);
// The arguments an HloSnapshot file carries (`plexa run` uses them when no
// --input is given); empty for any other program file.
absl::StatusOr<std::vector<Literal>> LoadSnapshotArguments(
    const std::string& path);

// Prints "error: MSG" (or "PROGRAM:L:C: error: MSG") to stderr, returns 1.
int ReportError(const absl::Status& status);

int RunCheck(const Args& args);
int RunConvert(const Args& args);
int RunFmt(const Args& args);
int RunRun(const Args& args);
int RunOpt(const Args& args);
int RunGraph(const Args& args);
int RunPlugins(const Args& args);
int RunTestPlugin(const Args& args);

}  // namespace plexa::cli

#endif  // PLEXA_TOOLS_PLEXA_CLI_H_
