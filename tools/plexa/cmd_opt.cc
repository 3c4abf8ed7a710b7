// plexa opt PROGRAM.hlo [--passes=a,b,c] [--fusion] [--dump-after-each]
//   [--dump-dir=DIR [--pictures]] [--stats]
//
// Prints the optimized module. Without --passes the default pipeline runs
// (core/passes/default_pipeline.h), with fusion if --fusion is given;
// --passes runs the named passes in order instead (`--passes=help` lists
// them). --dump-after-each prints the module after every pass to stderr;
// --dump-dir writes those dumps as files (--pictures: and draws each as an
// .svg beside it); --stats prints per-pass timings
// to stderr. The verifier runs between passes.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/passes/default_pipeline.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "tools/graph/dot_graph.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

// The .hlo files in `dir` with their modification times (none if `dir`
// does not exist yet).
std::map<std::filesystem::path, std::filesystem::file_time_type> ListDumps(
    const std::string& dir) {
  std::map<std::filesystem::path, std::filesystem::file_time_type> dumps;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".hlo") {
      dumps[entry.path()] = entry.last_write_time();
    }
  }
  return dumps;
}

// --pictures: every dump this run wrote (DIR/*.hlo that are new or changed
// since `before`) drawn as an .svg of the same name.
absl::Status DrawDumps(
    const std::string& dir,
    const std::map<std::filesystem::path, std::filesystem::file_time_type>&
        before) {
  std::vector<std::filesystem::path> dumps;
  for (const auto& [path, time] : ListDumps(dir)) {
    auto it = before.find(path);
    if (it == before.end() || it->second != time) dumps.push_back(path);
  }
  std::sort(dumps.begin(), dumps.end());
  for (const std::filesystem::path& dump : dumps) {
    absl::StatusOr<std::string> text = ReadFile(dump.string());
    if (!text.ok()) return text.status();
    auto module = ParseHloModule(*text);
    if (!module.ok()) {
      return absl::InternalError(
          absl::StrCat("--pictures: the dump ", dump.string(),
                       " does not parse: ", module.status().message()));
    }
    graph::DotOptions dot_options;
    dot_options.subtitle = dump.stem().string();
    std::filesystem::path svg = dump;
    svg.replace_extension(".svg");
    absl::Status written =
        graph::WriteGraph(graph::ModuleToDot(**module, dot_options), svg);
    if (!written.ok()) return written;
  }
  std::fprintf(stderr, "--pictures: %zu pictures in %s\n", dumps.size(),
               dir.c_str());
  return absl::OkStatus();
}

}  // namespace

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
  if (args.Has("pictures") && options.dump_dir.empty()) {
    return ReportError(absl::InvalidArgumentError(
        "--pictures draws the dumps of --dump-dir=DIR: give a directory"));
  }
  const auto before =
      args.Has("pictures")
          ? ListDumps(options.dump_dir)
          : std::map<std::filesystem::path, std::filesystem::file_time_type>{};
  absl::StatusOr<bool> changed = pipeline->Run(**module);
  if (!changed.ok()) return ReportError(changed.status());
  if (args.Has("pictures")) {
    absl::Status drawn = DrawDumps(options.dump_dir, before);
    if (!drawn.ok()) return ReportError(drawn);
  }
  std::fputs(PrintModule(**module).c_str(), stdout);
  if (args.Has("stats")) {
    std::fputs(pipeline->stats().Summary().c_str(), stderr);
  }
  return 0;
}

}  // namespace plexa::cli
