// plexa graph PROGRAM [--after=PASS | --optimized | --backend=NAME|PATH]
//   [--fusion] [--plugin-option=K=V ...] [-o FILE | --output=FILE]
//
// Draws the module (tools/graph/dot_graph.h) as it is read, after the
// default pipeline (--optimized), after one pass of it (--after=PASS: a
// pass name, drawn as the module was after the pass's last run, or a pass
// path as `plexa opt --dump-after-each` prints it, such as
// default/simplify/cse.iter1), or as a plugin runs it (--backend: after the
// default pipeline, as `plexa run` hands it over, and the plugin's own
// passes, with every instruction coloured by the class of its step; the
// plugin writes both through its dump_program option, which the toolkit's
// plugins have). FILE's extension picks the format: .svg, .png, .pdf (drawn
// by Graphviz's `dot`), or .dot/.gv; without -o the DOT text goes to
// stdout.
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abi/host/replicated_run.h"
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

// A scratch directory for a plugin's dump, removed with what is in it.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    char name[] = "/tmp/plexa-graph-XXXXXX";
    if (mkdtemp(name) != nullptr) path_ = name;
  }
  ~ScratchDirectory() {
    if (path_.empty()) return;
    for (const std::string& f : Files()) std::remove((path_ + "/" + f).c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    if (DIR* d = opendir(path_.c_str())) {
      while (const dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") out.push_back(name);
      }
      closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

// Compiles `module` (already through the default pipeline) on `backend`
// with its dump_program option, and replaces it with the program the plugin
// runs; `dot_options` gets the steps and a subtitle counting them.
absl::Status LoadAsBackendRuns(const Args& args, const std::string& backend,
                               std::unique_ptr<Module>* module,
                               graph::DotOptions* dot_options) {
  ScratchDirectory scratch;
  if (scratch.path().empty()) {
    return absl::InternalError("cannot make a scratch directory in /tmp");
  }
  auto options = ParsePluginOptions(args);
  if (!options.ok()) return options.status();
  options->push_back({"dump_program", PLX_Value_STRING, scratch.path()});
  auto plugin = host::Plugin::Load(backend);
  if (!plugin.ok()) return plugin.status();
  const std::string& name = (*plugin)->attributes().name;
  auto client = (*plugin)->CreateClient(*options);
  if (!client.ok()) {
    return absl::Status(
        client.status().code(),
        absl::StrCat(
            "--backend=", backend, ": ", client.status().message(),
            absl::StrContains(client.status().message(), "dump_program")
                ? " (the plugin cannot describe its steps: plexa "
                  "graph --backend needs a plugin with the "
                  "dump_program option, as cpu, onednn and vulkan "
                  "have)"
                : ""));
  }
  auto exe = host::CompileModule(**client, **module);
  if (!exe.ok()) return exe.status();
  std::string program_file, steps_file;
  for (const std::string& f : scratch.Files()) {
    if (absl::EndsWith(f, ".optimized.hlo")) program_file = f;
    if (absl::EndsWith(f, ".steps.tsv")) steps_file = f;
  }
  if (program_file.empty() || steps_file.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--backend=", backend, ": plugin '", name,
        "' took the dump_program option but wrote no program and steps"));
  }
  auto steps_text = ReadFile(scratch.path() + "/" + steps_file);
  if (!steps_text.ok()) return steps_text.status();
  auto ran = LoadModule(scratch.path() + "/" + program_file);
  if (!ran.ok()) {
    return absl::Status(ran.status().code(),
                        absl::StrCat("the program plugin '", name,
                                     "' dumped: ", ran.status().message()));
  }
  auto steps = graph::ParseSteps(*steps_text);
  if (!steps.ok()) return steps.status();
  std::map<std::string, int> by_class;
  for (const auto& [where, step_class] : *steps) ++by_class[step_class];
  std::vector<std::string> counts;
  for (const auto& [step_class, n] : by_class) {
    counts.push_back(absl::StrCat(n, " ", step_class));
  }
  dot_options->subtitle = absl::StrCat(
      "as the ", name, " plugin runs it: ", absl::StrJoin(counts, ", "));
  dot_options->steps = std::move(*steps);
  *module = std::move(*ran);
  return absl::OkStatus();
}

}  // namespace

int RunGraph(const Args& args) {
  if (args.positional.size() != 1) {
    std::fprintf(stderr,
                 "error: usage: plexa graph PROGRAM.hlo [--after=PASS | "
                 "--optimized | --backend=NAME] [--fusion] [-o FILE]\n");
    return 2;
  }
  const std::optional<std::string> after = args.Get("after");
  const std::optional<std::string> backend = args.Get("backend");
  if ((after ? 1 : 0) + (args.Has("optimized") ? 1 : 0) + (backend ? 1 : 0) >
      1) {
    return ReportError(absl::InvalidArgumentError(
        "--after, --optimized and --backend: give one (--optimized draws the "
        "module after the whole pipeline, --backend as a plugin runs it)"));
  }
  if (backend && args.Has("fusion")) {
    return ReportError(absl::InvalidArgumentError(
        "--fusion and --backend: the plugin fuses the program itself"));
  }
  if (!backend && !args.GetAll("plugin-option").empty()) {
    return ReportError(absl::InvalidArgumentError(
        "--plugin-option is for the plugin --backend names"));
  }
  auto module = LoadModule(args.positional[0]);
  if (!module.ok()) return ReportError(module.status());

  graph::DotOptions dot_options;
  if (backend) {
    absl::StatusOr<bool> optimized = RunDefaultPipeline(module->get());
    if (!optimized.ok()) return ReportError(optimized.status());
    absl::Status loaded =
        LoadAsBackendRuns(args, *backend, &*module, &dot_options);
    if (!loaded.ok()) return ReportError(loaded);
  } else if (after || args.Has("optimized")) {
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
