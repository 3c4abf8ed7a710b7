// plexa: the command line. `plexa help` lists the commands.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include "tools/plexa/cli.h"

namespace {

constexpr char kUsage[] =
    "usage: plexa COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  check PROGRAM.hlo     parse, verify, print with inferred shapes\n"
    "  fmt PROGRAM.hlo       print the canonical text of PROGRAM\n"
    "  run PROGRAM.hlo [--input=a.npy ...] [--output=out.npy | "
    "--output-dir=DIR]\n"
    "                  [--backend=NAME|PATH] [--replicas=N] [--print] "
    "[--repeat=N] [--seed=N] [--no-opt]\n"
    "                  [--threads=N] [--report] [--infeed=x.npy ...] "
    "[--outfeed-dir=DIR]\n"
    "                  [--memory-limit=BYTES] [--plugin-option=NAME=VALUE "
    "...]\n"
    "                  [--profile=trace.json]\n"
    "                        run PROGRAM; inputs are .npy files in parameter\n"
    "                        order (seeded random inputs when none given);\n"
    "                        the default pipeline runs first unless --no-opt;\n"
    "                        --backend: cpu (default; the LLVM JIT plugin),\n"
    "                        onednn, vulkan, reference, interpreter (in\n"
    "                        process), or a path to a plugin .so; --threads\n"
    "                        and --report are the cpu and onednn plugins'\n"
    "                        thread count and compile report (--report: the\n"
    "                        vulkan plugin's too); --plugin-option passes a "
    "client\n"
    "                        option (an integer, else a string; e.g.\n"
    "                        relaxed_nan=1 for onednn);\n"
    "                        --infeed files feed the infeed queue in order,\n"
    "                        outfeed values print with --print and go to\n"
    "                        DIR/0.npy, DIR/1.npy, ... with --outfeed-dir;\n"
    "                        --memory-limit (e.g. 2G; default the machine's\n"
    "                        memory) bounds every array the program sizes;\n"
    "                        --profile writes every step of every run as a\n"
    "                        Chrome trace (Perfetto opens it; cpu, onednn)\n"
    "  opt PROGRAM.hlo [--passes=a,b,c] [--fusion] [--dump-after-each]\n"
    "                  [--dump-dir=DIR] [--stats]\n"
    "                        print the optimized module (--passes=help lists\n"
    "                        the passes)\n"
    "  help                  this text\n";

int Main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 ||
      std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  using plexa::cli::ParseArgs;
  if (command == "check" || command == "fmt") {
    auto args = ParseArgs(argc, argv, 2, {});
    if (!args.ok()) return plexa::cli::ReportError(args.status());
    return command == "check" ? plexa::cli::RunCheck(*args)
                              : plexa::cli::RunFmt(*args);
  }
  if (command == "run") {
    auto args = ParseArgs(
        argc, argv, 2,
        {"input", "output", "output-dir", "backend", "replicas", "print",
         "repeat", "seed", "no-opt", "threads", "report", "infeed",
         "outfeed-dir", "memory-limit", "plugin-option", "profile"});
    if (!args.ok()) return plexa::cli::ReportError(args.status());
    return plexa::cli::RunRun(*args);
  }
  if (command == "opt") {
    auto args =
        ParseArgs(argc, argv, 2,
                  {"passes", "fusion", "dump-after-each", "dump-dir", "stats"});
    if (!args.ok()) return plexa::cli::ReportError(args.status());
    return plexa::cli::RunOpt(*args);
  }
  std::fprintf(stderr, "error: unknown command '%s'\n\n%s", command.c_str(),
               kUsage);
  return 2;
}

}  // namespace

// Errors are statuses; what escapes as an exception (an allocation the
// machine refused, say) is still one line and a non-zero exit.
int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("error: out of memory (an allocation failed)\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
  } catch (...) {
    std::fputs("error: internal error (unknown exception)\n", stderr);
  }
  return 1;
}
