// plexa check / plexa fmt
#include <cstdio>

#include "core/text/hlo_printer.h"
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

}  // namespace plexa::cli
