// plexa: the command line. `plexa help` lists the commands, `plexa help
// COMMAND` (or `plexa COMMAND --help`) explains one.
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plexa/plexa_c_api.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

struct Command {
  const char* name;
  const char* summary;  // one line for `plexa help`
  const char* usage;    // `plexa help NAME`, `plexa NAME --help`
  std::vector<std::string> flags;
  int (*run)(const Args&);
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"check",
       "parse, verify, print with inferred shapes",
       "usage: plexa check PROGRAM.hlo\n"
       "\n"
       "Parses and verifies PROGRAM and prints it with every instruction's\n"
       "shape (checked against shape inference). Errors are\n"
       "PROGRAM:LINE:COL: error: ...\n",
       {},
       RunCheck},
      {"convert",
       "write a StableHLO (MLIR) program as Plexa HLO text",
       "usage: plexa convert PROGRAM.mlir [-o OUT.hlo]\n"
       "\n"
       "Imports PROGRAM, the MLIR text JAX prints (jax.jit(f).lower(...)\n"
       ".as_text(), pretty or generic form; docs/stablehlo.md lists the\n"
       "operations), verifies it and writes it as Plexa's HLO text: to\n"
       "stdout, or to OUT.hlo with -o (--output). run, check, fmt and opt\n"
       "read .mlir programs directly. Errors are PROGRAM:LINE:COL: error:\n"
       "... at the MLIR text. PROGRAM may also be XLA's binary\n"
       "HloModuleProto, HloProto or HloSnapshot (*.pb; docs/xla_proto.md),\n"
       "which every command reads, and OUT may end in .pb: an\n"
       "HloModuleProto is written.\n"
       "\n"
       "  -o, --output=OUT.hlo   write the HLO text there (OUT.pb: the "
       "proto)\n",
       {"output"},
       RunConvert},
      {"fmt",
       "print the canonical text of a program",
       "usage: plexa fmt PROGRAM.hlo\n"
       "\n"
       "Prints PROGRAM as Plexa prints HLO text (XLA's format).\n",
       {},
       RunFmt},
      {"run",
       "run a program on a plugin or the interpreter",
       "usage: plexa run PROGRAM.hlo [options]\n"
       "\n"
       "Runs PROGRAM. The default pipeline runs first unless --no-opt.\n"
       "\n"
       "  --input=a.npy          parameter values, in parameter order\n"
       "                         (repeatable; when none: an HloSnapshot's\n"
       "                         arguments, else seeded random inputs)\n"
       "  --output=out.npy       write the result (an array)\n"
       "  --output-dir=DIR       write a tuple result as DIR/0.npy, 1.npy, "
       "...\n"
       "                         (tokens are skipped and said so)\n"
       "  --print                print the result\n"
       "  --backend=NAME|PATH    cpu (default; the LLVM JIT plugin), onednn,\n"
       "                         vulkan, reference, interpreter (in process),\n"
       "                         or a path to a plugin .so (`plexa plugins`\n"
       "                         lists those found)\n"
       "  --custom-call-lib=PATH a shared library whose exported functions\n"
       "                         are custom-call targets (repeatable); looked\n"
       "                         up before the process's own symbols\n"
       "  --replicas=N           run N replicas (collectives across them;\n"
       "                         default the header's replica_count)\n"
       "  --partitions=N         run N SPMD partitions of each replica\n"
       "                         (default the header's num_partitions);\n"
       "                         every replica and partition gets the same\n"
       "                         inputs and writes out.replicaR.partitionP\n"
       "  --repeat=N             run N times; print min and median time\n"
       "  --seed=N               seed of the random inputs\n"
       "  --no-opt               skip the default pipeline\n"
       "  --threads=N            the cpu and onednn plugins' thread count\n"
       "  --report               the cpu, onednn and vulkan plugins' compile\n"
       "                         report, and the executable's statistics\n"
       "  --plugin-option=NAME=VALUE\n"
       "                         a client option passed as it is (an integer,\n"
       "                         else a string; e.g. relaxed_nan=1 for "
       "onednn)\n"
       "  --infeed=x.npy         values of the infeed queue, in order\n"
       "  --outfeed-dir=DIR      outfeed values as DIR/0.npy, 1.npy, ... "
       "(they\n"
       "                         print with --print)\n"
       "  --memory-limit=BYTES   bound on every array the program sizes (e.g.\n"
       "                         2G; default the machine's memory)\n"
       "  --profile=trace.json   every step of every run as a Chrome trace\n"
       "                         (Perfetto opens it; cpu, onednn)\n",
       {"input", "output", "output-dir", "backend", "replicas", "partitions",
        "print", "repeat", "seed", "no-opt", "threads", "report", "infeed",
        "outfeed-dir", "memory-limit", "plugin-option", "profile",
        "custom-call-lib"},
       RunRun},
      {"opt",
       "print the optimized program",
       "usage: plexa opt PROGRAM.hlo [options]\n"
       "\n"
       "Prints the module after the default pipeline (or --passes).\n"
       "\n"
       "  --passes=a,b,c         run these passes in order instead\n"
       "                         (--passes=help lists them)\n"
       "  --fusion               include fusion in the default pipeline\n"
       "  --dump-after-each      print the module after every pass to stderr\n"
       "  --dump-dir=DIR         write those dumps as files\n"
       "  --pictures             with --dump-dir: also draw each dump as\n"
       "                         an .svg beside it (Graphviz; see plexa "
       "graph)\n"
       "  --stats                per-pass timings on stderr\n",
       {"passes", "fusion", "dump-after-each", "dump-dir", "pictures", "stats"},
       RunOpt},
      {"graph",
       "draw the program (Graphviz)",
       "usage: plexa graph PROGRAM.hlo [options] [-o FILE]\n"
       "\n"
       "Draws the module: computations as clusters, fusions boxed with their\n"
       "bodies, shapes on edges, nodes coloured by kind (docs/graph.md).\n"
       "\n"
       "  -o FILE, --output=FILE .svg, .png or .pdf (drawn by Graphviz's dot)\n"
       "                         or .dot/.gv; without it, DOT on stdout\n"
       "  --optimized            after the default pipeline\n"
       "  --after=PASS           after PASS's last run in the default\n"
       "                         pipeline (a name, or a path such as\n"
       "                         default/simplify/cse.iter1)\n"
       "  --fusion               include fusion in the pipeline\n"
       "  --backend=NAME|PATH    as that plugin runs it: after the default\n"
       "                         pipeline and the plugin's own passes, each\n"
       "                         instruction coloured by its step (kernel,\n"
       "                         gemm, convolution, library, runtime,\n"
       "                         reference, ...; cpu, onednn, vulkan)\n"
       "  --plugin-option=K=V    a client option for that plugin\n",
       {"output", "optimized", "after", "fusion", "backend", "plugin-option"},
       RunGraph},
      {"plugins",
       "list the plugins found, and those refused with why",
       "usage: plexa plugins [NAME|PATH ...] [--verbose]\n"
       "\n"
       "Lists the plugins found in $PLEXA_PLUGIN_PATH (':'-separated), then\n"
       "beside this program (DIR, DIR/plugins, DIR/../lib/plexa): every\n"
       "libplexa_plugin_NAME.so there, or only the names and paths given.\n"
       "For each: its name, vendor, version, ABI version, platform, program\n"
       "formats and capabilities; a plugin that cannot be loaded is listed\n"
       "as refused, with the reason (not a Plexa plugin, another ABI major,\n"
       "a missing entry point, a failed initialization).\n"
       "\n"
       "  --verbose              also create a client and list its devices\n"
       "                         with their attributes and memories\n"
       "\n"
       "Exit status: 0 when every plugin listed loads, 1 otherwise.\n",
       {"verbose"},
       RunPlugins},
      {"test-plugin",
       "run the conformance cases on any plugin",
       "usage: plexa test-plugin PATH|NAME [options]\n"
       "\n"
       "First checks the ABI contract (each check in a process of its\n"
       "own, so a crash or a hang fails only that check): NULL args and\n"
       "struct_size 0 on every slot, destroyed handles, devices, a buffer\n"
       "round trip and delete, a malformed program, eight threads executing\n"
       "one executable. Then runs Plexa's conformance cases (HLO programs\n"
       "with inputs and\n"
       "expected values from numpy, the seeds or hand computation) on the\n"
       "plugin through the C ABI, exactly as Plexa's own suite runs them on\n"
       "its plugins. A case is skipped only when the plugin lacks what it\n"
       "needs, and the skip says what (a capability it does not declare, or\n"
       "fewer devices than the case's replicas). Prints every failure, a\n"
       "table per group and a last line `N passed, M failed, K skipped`;\n"
       "exit status 0 only when none failed.\n"
       "\n"
       "  --part=abi|cases|all   what to run (default all)\n"
       "  --filter=GLOB[,GLOB]   only cases whose group/name matches (e.g.\n"
       "                         'dot/*', '*conv*'; repeatable)\n"
       "  --jobs=N               run N cases at a time (one client each)\n"
       "  --junit=FILE           also write the results as JUnit XML\n"
       "  --cases=DIR            the cases (default: "
       "$PLEXA_CONFORMANCE_CASES,\n"
       "                         then the installed share/plexa/conformance/\n"
       "                         cases, then the source tree built from)\n"
       "  --custom-call-lib=PATH a custom-call library for every compile\n"
       "  --plugin-option=NAME=VALUE\n"
       "                         a client option for every client\n",
       {"part", "filter", "jobs", "junit", "cases", "custom-call-lib",
        "plugin-option"},
       RunTestPlugin},
  };
  return commands;
}

const Command* FindCommand(const std::string& name) {
  for (const Command& c : Commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string GeneralUsage() {
  std::string out =
      "usage: plexa COMMAND [options]\n"
      "\n"
      "commands:\n";
  for (const Command& c : Commands()) {
    std::string line = std::string("  ") + c.name;
    line.resize(15, ' ');
    out += line + c.summary + "\n";
  }
  out +=
      "  help         this text; `plexa help COMMAND` explains one\n"
      "  --version    Plexa's version and its C ABI version\n"
      "\n"
      "`plexa COMMAND --help` explains COMMAND too.\n";
  return out;
}

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const Command& c : Commands()) names.emplace_back(c.name);
  names.emplace_back("help");
  return names;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(GeneralUsage().c_str(), stderr);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--version" || first == "version") {
    std::printf("plexa %s (C ABI %d.%d)\n", PLEXA_VERSION, PLX_API_MAJOR,
                PLX_API_MINOR);
    return 0;
  }
  if (first == "help" || first == "--help" || first == "-h") {
    if (argc == 2) {
      std::fputs(GeneralUsage().c_str(), stdout);
      return 0;
    }
    const Command* c = FindCommand(argv[2]);
    if (c == nullptr) {
      std::fprintf(stderr, "error: unknown command '%s'%s\n", argv[2],
                   DidYouMean(argv[2], CommandNames(), "").c_str());
      return 2;
    }
    std::fputs(c->usage, stdout);
    return 0;
  }
  const Command* command = FindCommand(first);
  if (command == nullptr) {
    std::fprintf(stderr,
                 "error: unknown command '%s'%s; `plexa help` lists them\n",
                 first.c_str(), DidYouMean(first, CommandNames(), "").c_str());
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0) {
      std::fputs(command->usage, stdout);
      return 0;
    }
  }
  auto args = ParseArgs(argc, argv, 2, command->flags);
  if (!args.ok()) {
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat(args.status().message(), "; `plexa ", command->name,
                     " --help` lists the options")));
  }
  return command->run(*args);
}

}  // namespace
}  // namespace plexa::cli

// Errors are statuses; what escapes as an exception (an allocation the
// machine refused, say) is still one line and a non-zero exit.
int main(int argc, char** argv) {
  try {
    return plexa::cli::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("error: out of memory (an allocation failed)\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
  } catch (...) {
    std::fputs("error: internal error (unknown exception)\n", stderr);
  }
  return 1;
}
