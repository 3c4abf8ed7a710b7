// plexa opt PROGRAM.hlo [--passes=a,b,c] [--fusion] [--dump-after-each]
//   [--dump-dir=DIR] [--stats]
//
// Prints the optimized module. Without --passes the default pipeline runs
// (core/passes/default_pipeline.h), with fusion if --fusion is given;
// --passes runs the named passes in order instead (`--passes=help` lists
// them). --dump-after-each prints the module after every pass to stderr;
// --dump-dir writes those dumps as files; --stats prints per-pass timings
// to stderr. The verifier runs between passes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/passes/default_pipeline.h"
#include "core/text/hlo_printer.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {

int RunOpt(const Args& args) {
  if (auto passes = args.Get("passes"); passes && *passes == "help") {
    std::printf("%s\n", absl::StrJoin(RegisteredPassNames(), "\n").c_str());
    return 0;
  }
  if (args.positional.size() != 1) {
    std::fprintf(stderr,
                 "error: usage: plexa opt PROGRAM.hlo [--passes=a,b,c] "
                 "[--fusion] [--dump-after-each] [--dump-dir=DIR] [--stats]\n");
    return 2;
  }
  auto module = LoadModule(args.positional[0]);
  if (!module.ok()) return ReportError(module.status());

  PipelineOptions options;
  options.verify = true;
  options.fusion = args.Has("fusion");
  if (auto dir = args.Get("dump-dir")) options.dump_dir = *dir;
  if (args.Has("dump-after-each")) {
    options.dump_callback = [](absl::string_view pass, absl::string_view text) {
      std::fprintf(stderr, "// ---- after %.*s ----\n%.*s\n",
                   static_cast<int>(pass.size()), pass.data(),
                   static_cast<int>(text.size()), text.data());
    };
  }

  std::unique_ptr<Pipeline> pipeline;
  if (auto passes = args.Get("passes")) {
    PipelineConfig config;
    config.verify = options.verify;
    config.dump_dir = options.dump_dir;
    config.dump_callback = options.dump_callback;
    config.dump_unchanged = args.Has("dump-after-each");
    pipeline = std::make_unique<Pipeline>("opt", config);
    for (absl::string_view name :
         absl::StrSplit(*passes, ',', absl::SkipWhitespace())) {
      auto pass = CreatePass(name, options);
      if (!pass.ok()) return ReportError(pass.status());
      pipeline->AddPass(std::move(*pass));
    }
  } else {
    pipeline = MakeDefaultPipeline(options);
    pipeline->mutable_config()->dump_unchanged = args.Has("dump-after-each");
  }
  absl::StatusOr<bool> changed = pipeline->Run(**module);
  if (!changed.ok()) return ReportError(changed.status());
  std::fputs(PrintModule(**module).c_str(), stdout);
  if (args.Has("stats")) {
    std::fputs(pipeline->stats().Summary().c_str(), stderr);
  }
  return 0;
}

}  // namespace plexa::cli
