// plexa graph PROGRAM [--after=PASS | --optimized] [--fusion]
//   [-o FILE | --output=FILE]
//
// Draws the module (tools/graph/dot_graph.h) as it is read, after the
// default pipeline (--optimized), or after one pass of it (--after=PASS: a
// pass name, drawn as the module was after the pass's last run, or a pass
// path as `plexa opt --dump-after-each` prints it, such as
// default/simplify/cse.iter1). FILE's extension picks the format: .svg,
// .png, .pdf (drawn by Graphviz's `dot`), or .dot/.gv; without -o the DOT
// text goes to stdout.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/passes/default_pipeline.h"
#include "core/text/hlo_parser.h"
#include "tools/graph/dot_graph.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

// "default/simplify/cse.iter2" names the pass "cse".
std::string PassName(absl::string_view path) {
  const size_t slash = path.rfind('/');
  absl::string_view name =
      slash == absl::string_view::npos ? path : path.substr(slash + 1);
  const size_t iter = name.rfind(".iter");
  if (iter != absl::string_view::npos) name = name.substr(0, iter);
  return std::string(name);
}

}  // namespace

int RunGraph(const Args& args) {
  if (args.positional.size() != 1) {
    std::fprintf(stderr,
                 "error: usage: plexa graph PROGRAM.hlo [--after=PASS | "
                 "--optimized] [--fusion] [-o FILE]\n");
    return 2;
  }
  const std::optional<std::string> after = args.Get("after");
  if (after && args.Has("optimized")) {
    return ReportError(absl::InvalidArgumentError(
        "--after and --optimized: give one (--optimized draws the module "
        "after the whole pipeline)"));
  }
  auto module = LoadModule(args.positional[0]);
  if (!module.ok()) return ReportError(module.status());

  graph::DotOptions dot_options;
  if (after || args.Has("optimized")) {
    PipelineOptions options;
    options.verify = true;
    options.fusion = args.Has("fusion");
    std::string text_after;  // the module after the pass's last run
    std::string path_after;
    std::vector<std::string> ran;
    if (after) {
      options.dump_callback = [&](absl::string_view path,
                                  absl::string_view text) {
        ran.emplace_back(path);
        if (path == *after || PassName(path) == *after) {
          text_after = std::string(text);
          path_after = std::string(path);
        }
      };
    }
    std::unique_ptr<Pipeline> pipeline = MakeDefaultPipeline(options);
    pipeline->mutable_config()->dump_unchanged = true;
    absl::StatusOr<bool> changed = pipeline->Run(**module);
    if (!changed.ok()) return ReportError(changed.status());
    if (after) {
      if (text_after.empty()) {
        std::vector<std::string> names;
        for (const std::string& p : ran) {
          if (p.find('/') != std::string::npos) names.push_back(PassName(p));
        }
        return ReportError(absl::NotFoundError(absl::StrCat(
            "--after=", *after, ": the default pipeline",
            options.fusion ? " (with --fusion)" : "",
            " has no such pass; it ran: ", absl::StrJoin(names, ", "))));
      }
      auto at = ParseHloModule(text_after);
      if (!at.ok()) return ReportError(at.status());
      *module = std::move(*at);
      dot_options.subtitle = "after " + path_after;
    } else {
      dot_options.subtitle = options.fusion
                                 ? "after the default pipeline, with fusion"
                                 : "after the default pipeline";
    }
  }
  const std::string dot = graph::ModuleToDot(**module, dot_options);
  const std::optional<std::string> output = args.Get("output");
  if (!output) {
    std::fputs(dot.c_str(), stdout);
    return 0;
  }
  absl::Status written = graph::WriteGraph(dot, *output);
  if (!written.ok()) return ReportError(written);
  return 0;
}

}  // namespace plexa::cli
