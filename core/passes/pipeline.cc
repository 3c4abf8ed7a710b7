#include "core/passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"

namespace plexa {

// State shared by a pipeline and the pipelines nested in it during one run:
// the outermost pipeline's config, the dump counter and the stats.
struct Pipeline::Context {
  const PipelineConfig* config = nullptr;
  PipelineStats* stats = nullptr;
  int64_t dump_index = 0;
};

namespace {

// A file-name-safe rendering of a pass path ("default/simplify/dce" ->
// "default.simplify.dce").
std::string FileSafe(absl::string_view s) {
  std::string out(s);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    if (!ok) c = '.';
  }
  return out;
}

absl::Status Dump(const Module& module, const PipelineConfig& config,
                  int64_t index, absl::string_view path) {
  if (config.dump_dir.empty() && !config.dump_callback) {
    return absl::OkStatus();
  }
  const std::string text = PrintModule(module);
  if (config.dump_callback) config.dump_callback(path, text);
  if (config.dump_dir.empty()) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::create_directories(config.dump_dir, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create dump directory '", config.dump_dir,
                     "': ", ec.message()));
  }
  const std::string file =
      (std::filesystem::path(config.dump_dir) /
       absl::StrFormat("%s.%04d.%s.hlo", FileSafe(module.name()), index,
                       FileSafe(path)))
          .string();
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write dump file '", file, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string PipelineStats::Summary() const {
  struct Row {
    int64_t runs = 0;
    int64_t changed = 0;
    double ms = 0;
  };
  std::map<std::string, Row> rows;
  for (const PassTiming& t : timings) {
    Row& r = rows[t.pass];
    ++r.runs;
    r.changed += t.changed ? 1 : 0;
    r.ms += t.milliseconds;
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const auto& a, const auto& b) { return a.second.ms > b.second.ms; });
  std::string out;
  for (const auto& [name, r] : sorted) {
    absl::StrAppendFormat(&out, "%10.3f ms  %3d run(s)  %3d changed  %s\n",
                          r.ms, r.runs, r.changed, name);
  }
  absl::StrAppendFormat(&out, "%10.3f ms  total\n", total_milliseconds);
  for (const std::string& f : fixpoint_caps_hit) {
    absl::StrAppend(&out, "fixpoint '", f,
                    "' stopped at its iteration cap while still changing\n");
  }
  return out;
}

Pipeline::Pipeline(std::string name, PipelineConfig config)
    : name_(std::move(name)), config_(std::move(config)) {}

Pipeline::~Pipeline() = default;

Pass& Pipeline::AddPass(std::unique_ptr<Pass> pass) {
  passes_.push_back(std::move(pass));
  return *passes_.back();
}

Pipeline& Pipeline::AddFixpoint(std::string name, int64_t max_iterations) {
  auto group = std::make_unique<Pipeline>(std::move(name));
  group->fixpoint_ = true;
  group->max_iterations_ = std::max<int64_t>(1, max_iterations);
  Pipeline& ref = *group;
  passes_.push_back(std::move(group));
  return ref;
}

Pipeline& Pipeline::AddSubPipeline(std::string name) {
  auto group = std::make_unique<Pipeline>(std::move(name));
  Pipeline& ref = *group;
  passes_.push_back(std::move(group));
  return ref;
}

absl::StatusOr<bool> Pipeline::Run(Module& module) {
  stats_ = PipelineStats();
  Context context;
  context.config = &config_;
  context.stats = &stats_;
  const auto start = std::chrono::steady_clock::now();
  if (config_.verify) {
    absl::Status s = VerifyModule(module);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat("the input of pipeline '", name_,
                                       "' does not verify: ", s.message()));
    }
  }
  absl::Status dumped = Dump(module, config_, context.dump_index++,
                             absl::StrCat(name_, ".input"));
  if (!dumped.ok()) return dumped;
  absl::StatusOr<bool> changed = RunIn(module, context, "");
  stats_.total_milliseconds = std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
  return changed;
}

absl::StatusOr<bool> Pipeline::RunIn(Module& module, Context& context,
                                     const std::string& prefix) {
  const std::string path =
      prefix.empty() ? name_ : absl::StrCat(prefix, "/", name_);
  if (!fixpoint_) return RunOnce(module, context, path, 0);
  bool changed_any = false;
  for (int64_t iteration = 1; iteration <= max_iterations_; ++iteration) {
    absl::StatusOr<bool> changed = RunOnce(module, context, path, iteration);
    if (!changed.ok()) return changed.status();
    if (!*changed) return changed_any;
    changed_any = true;
  }
  context.stats->fixpoint_caps_hit.push_back(path);
  return changed_any;
}

absl::StatusOr<bool> Pipeline::RunOnce(Module& module, Context& context,
                                       const std::string& path,
                                       int64_t iteration) {
  const PipelineConfig& config = *context.config;
  bool changed_any = false;
  for (const std::unique_ptr<Pass>& pass : passes_) {
    if (auto* nested = dynamic_cast<Pipeline*>(pass.get())) {
      absl::StatusOr<bool> changed = nested->RunIn(module, context, path);
      if (!changed.ok()) return changed.status();
      changed_any |= *changed;
      continue;
    }
    const std::string pass_path = absl::StrCat(path, "/", pass->name());
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<bool> changed = pass->Run(module);
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    if (!changed.ok()) {
      return absl::Status(changed.status().code(),
                          absl::StrCat("pass '", pass_path, "' failed: ",
                                       changed.status().message()));
    }
    context.stats->timings.push_back({pass_path, ms, *changed, iteration});
    changed_any |= *changed;
    if (config.verify) {
      absl::Status s = VerifyModule(module);
      if (!s.ok()) {
        return absl::InternalError(absl::StrCat(
            "the module does not verify after pass '", pass_path, "'",
            *changed ? "" : " (which reported no change)", ": ", s.message()));
      }
    }
    if (*changed || config.dump_unchanged) {
      absl::Status s =
          Dump(module, config, context.dump_index++,
               iteration > 0 ? absl::StrCat(pass_path, ".iter", iteration)
                             : pass_path);
      if (!s.ok()) return s;
    }
  }
  return changed_any;
}

}  // namespace plexa
