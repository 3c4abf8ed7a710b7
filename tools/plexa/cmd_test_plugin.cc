// plexa test-plugin PATH|NAME [--part=abi|cases|all] [--filter=GLOB[,GLOB]]
//   [--jobs=N] [--junit=FILE] [--cases=DIR] [--custom-call-lib=PATH ...]
//   [--plugin-option=NAME=VALUE ...]
//
// First the ABI contract checks (tools/conformance/abi_checks.h: NULL args
// and struct_size 0 on every slot, destroyed handles, devices, a buffer
// round trip and delete, a malformed program, eight threads executing one
// executable), each in a child process so a crash or a hang fails only that
// check. Then Plexa's conformance cases on the plugin, in-tree or not, through
// the C ABI exactly as the in-tree suite does (tools/conformance: the same case
// reader, runner and comparison). A case is skipped only when the plugin
// lacks what it needs, and the skip says what: a capability it does not
// declare (replicas, feeds, tuple parameters), or fewer devices than the
// case has replicas. Prints a table per case group and a last line
// "N passed, M failed, K skipped"; exit status 0 only when none failed.
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/text/hlo_parser.h"
#include "tools/conformance/abi_checks.h"
#include "tools/conformance/case_file.h"
#include "tools/conformance/plugin_backend.h"
#include "tools/conformance/run_case.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

enum class Verdict { kPassed, kFailed, kSkipped };

struct Outcome {
  std::string name;  // group/name
  Verdict verdict = Verdict::kPassed;
  std::vector<std::string> messages;  // failures, or the skip's reason
};

std::string ExecutableDirectory() {
  std::error_code ec;
  std::filesystem::path exe =
      std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

// --cases, $PLEXA_CONFORMANCE_CASES, the installed copy beside the binary
// (DIR/../share/plexa/conformance/cases), the source tree built from.
std::string CasesDirectory(const Args& args) {
  if (auto dir = args.Get("cases")) return *dir;
  if (const char* env = std::getenv("PLEXA_CONFORMANCE_CASES")) return env;
  const std::filesystem::path installed =
      std::filesystem::path(ExecutableDirectory()) /
      "../share/plexa/conformance/cases";
  if (std::filesystem::is_directory(installed)) {
    std::error_code ec;
    std::filesystem::path canonical =
        std::filesystem::weakly_canonical(installed, ec);
    return (ec ? installed : canonical).string();
  }
  return ConformanceCasesDir();
}

bool Selected(const std::string& name,
              const std::vector<std::string>& patterns) {
  if (patterns.empty()) return true;
  for (const std::string& p : patterns) {
    if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

// Why the plugin cannot run the case, or "" when it can.
std::string SkipReason(const ConformanceCase& c, const host::Plugin& plugin,
                       int64_t num_devices) {
  if (c.partitions > 1 && !plugin.HasCapability(PLX_CAPABILITY_PARTITIONS)) {
    return absl::StrCat("needs ", c.partitions,
                        " partitions; the plugin does not declare "
                        "PLX_CAPABILITY_PARTITIONS");
  }
  if (c.replica_count() > 1) {
    if (!plugin.HasCapability(PLX_CAPABILITY_REPLICAS)) {
      return absl::StrCat("needs ", c.replica_count(),
                          " replicas; the plugin does not declare "
                          "PLX_CAPABILITY_REPLICAS");
    }
    if (num_devices < c.replica_count()) {
      return absl::StrCat("needs ", c.replica_count(),
                          " replicas; the client has ", num_devices,
                          " device(s) (a client option such as "
                          "--plugin-option=num_devices=4 may add some)");
    }
  }
  if (c.uses_feeds && !plugin.HasCapability(PLX_CAPABILITY_FEEDS)) {
    return "uses host feeds; the plugin does not declare "
           "PLX_CAPABILITY_FEEDS";
  }
  if (!plugin.HasCapability(PLX_CAPABILITY_TUPLE_PARAMETERS)) {
    absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(c.text);
    if (module.ok()) {
      for (const Instruction* p :
           (*module)->entry_computation()->parameter_instructions()) {
        if (!p->shape().IsArray()) {
          return "has a tuple or token parameter; the plugin does not "
                 "declare PLX_CAPABILITY_TUPLE_PARAMETERS";
        }
      }
    }
  }
  return "";
}

std::string XmlEscape(absl::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 allows no control characters but tab and newlines.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t' &&
            ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

absl::Status WriteJunit(const std::string& path, const std::string& plugin,
                        const std::vector<Outcome>& outcomes) {
  int failed = 0, skipped = 0;
  for (const Outcome& o : outcomes) {
    failed += o.verdict == Verdict::kFailed;
    skipped += o.verdict == Verdict::kSkipped;
  }
  std::ofstream out(path);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("--junit: cannot write '", path, "'"));
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites>\n"
      << "  <testsuite name=\"conformance:" << XmlEscape(plugin)
      << "\" tests=\"" << outcomes.size() << "\" failures=\"" << failed
      << "\" skipped=\"" << skipped << "\">\n";
  for (const Outcome& o : outcomes) {
    const size_t slash = o.name.find('/');
    const std::string group =
        slash == std::string::npos ? "" : o.name.substr(0, slash);
    const std::string name =
        slash == std::string::npos ? o.name : o.name.substr(slash + 1);
    out << "    <testcase classname=\"" << XmlEscape(group) << "\" name=\""
        << XmlEscape(name) << "\"";
    if (o.verdict == Verdict::kPassed) {
      out << "/>\n";
      continue;
    }
    out << ">\n";
    std::string text;
    for (const std::string& m : o.messages) absl::StrAppend(&text, m, "\n");
    if (o.verdict == Verdict::kSkipped) {
      out << "      <skipped message=\"" << XmlEscape(text) << "\"/>\n";
    } else {
      out << "      <failure message=\"" << XmlEscape(o.messages.front())
          << "\">" << XmlEscape(text) << "</failure>\n";
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  out.close();
  if (!out) {
    return absl::DataLossError(
        absl::StrCat("--junit: writing '", path, "' failed"));
  }
  return absl::OkStatus();
}

}  // namespace

int RunTestPlugin(const Args& args) {
  if (args.positional.size() != 1) {
    std::fprintf(stderr,
                 "error: usage: plexa test-plugin PATH|NAME [options] "
                 "(`plexa test-plugin --help`)\n");
    return 2;
  }
  int64_t jobs = 1;
  if (auto j = args.Get("jobs")) {
    if (!absl::SimpleAtoi(*j, &jobs) || jobs < 1 || jobs > 256) {
      return ReportError(absl::InvalidArgumentError(absl::StrCat(
          "--jobs expects an integer from 1 to 256, got '", *j, "'")));
    }
  }
  std::vector<std::string> patterns;
  for (const std::string& f : args.GetAll("filter")) {
    for (absl::string_view p : absl::StrSplit(f, ',', absl::SkipEmpty())) {
      patterns.emplace_back(p);
    }
  }
  absl::StatusOr<std::vector<host::Plugin::Option>> options =
      ParsePluginOptions(args);
  if (!options.ok()) return ReportError(options.status());
  std::vector<std::string> libraries;
  for (const std::string& lib : args.GetAll("custom-call-lib")) {
    if (!std::filesystem::exists(lib)) {
      return ReportError(absl::NotFoundError(
          absl::StrCat("--custom-call-lib: no file '", lib, "'")));
    }
    libraries.push_back(std::filesystem::absolute(lib).string());
  }

  const std::string part = args.Get("part").value_or("all");
  if (part != "all" && part != "abi" && part != "cases") {
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat("--part expects abi, cases or all, got '", part, "'")));
  }
  int abi_passed = 0, abi_failed = 0, abi_skipped = 0;
  if (part != "cases") {
    // First, before this process loads the plugin or starts a thread: each
    // check forks a child that loads the plugin on its own.
    std::printf("ABI contract checks (each in a process of its own):\n");
    std::fflush(stdout);
    for (const AbiCheckResult& r : RunAbiChecks(args.positional[0], *options)) {
      const char* verdict =
          r.skipped ? "skipped" : (r.passed ? "passed" : "FAILED");
      std::printf("  %-34s %s%s%s\n", r.name.c_str(), verdict,
                  r.message.empty() ? "" : ": ", r.message.c_str());
      (r.skipped ? abi_skipped : r.passed ? abi_passed : abi_failed)++;
    }
    std::printf("abi: %d passed, %d failed, %d skipped\n\n", abi_passed,
                abi_failed, abi_skipped);
    std::fflush(stdout);
    if (part == "abi") {
      std::printf("%d passed, %d failed, %d skipped\n", abi_passed, abi_failed,
                  abi_skipped);
      return abi_failed == 0 ? 0 : 1;
    }
  }

  // The plugin, loaded and given a client once up front: a plugin that
  // cannot even do that fails here with the reason, not once per case.
  auto plugin = host::Plugin::Load(args.positional[0]);
  if (!plugin.ok()) return ReportError(plugin.status());
  int64_t num_devices = 0;
  {
    auto client = (*plugin)->CreateClient(*options);
    if (!client.ok()) {
      return ReportError(absl::FailedPreconditionError(absl::StrCat(
          "plugin '", (*plugin)->attributes().name,
          "': cannot create a client: ", client.status().message())));
    }
    num_devices = static_cast<int64_t>((*client)->devices().size());
  }
  const host::PluginAttributes& attrs = (*plugin)->attributes();
  // Every client gets exactly the options given (the in-tree suite gives
  // Plexa's plugins num_devices=4 for its replicated cases).
  const ConformanceBackend backend =
      MakePluginBackend(attrs.name, (*plugin)->path(), *options, libraries);

  const std::string cases_dir = CasesDirectory(args);
  std::vector<std::pair<std::string, std::string>> files;
  for (auto& f : DiscoverCaseFiles(cases_dir)) {
    if (Selected(f.first, patterns)) files.push_back(std::move(f));
  }
  if (files.empty()) {
    return ReportError(absl::NotFoundError(absl::StrCat(
        "no conformance cases", patterns.empty() ? "" : " match --filter",
        " under ", cases_dir, " (--cases=DIR names another directory)")));
  }
  std::printf("plugin %s (%s), ABI %d.%d; %zu cases from %s; %lld job(s)\n",
              attrs.name.c_str(), (*plugin)->path().c_str(), attrs.abi_major,
              attrs.abi_minor, files.size(), cases_dir.c_str(),
              static_cast<long long>(jobs));
  std::fflush(stdout);

  std::vector<Outcome> outcomes(files.size());
  std::atomic<size_t> next{0};
  std::mutex print_mu;
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      const auto& [name, path] = files[i];
      Outcome& o = outcomes[i];
      o.name = name;
      absl::StatusOr<ConformanceCase> c = LoadCaseFile(path, name);
      if (!c.ok()) {
        o.verdict = Verdict::kFailed;
        o.messages.push_back(absl::StrCat(path, ": ", c.status().ToString()));
      } else if (std::string why = SkipReason(*c, **plugin, num_devices);
                 !why.empty()) {
        o.verdict = Verdict::kSkipped;
        o.messages.push_back(why);
      } else {
        o.messages = RunConformanceCase(*c, backend);
        o.verdict = o.messages.empty() ? Verdict::kPassed : Verdict::kFailed;
      }
      if (o.verdict == Verdict::kFailed) {
        std::lock_guard<std::mutex> lock(print_mu);
        std::printf("FAILED %s\n", name.c_str());
        for (const std::string& m : o.messages) {
          std::printf("  %s\n", m.c_str());
        }
        std::fflush(stdout);
      }
    }
  };
  std::vector<std::thread> threads;
  for (int64_t t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();

  // The table: one row per group of cases.
  struct Counts {
    int passed = 0, failed = 0, skipped = 0;
  };
  std::map<std::string, Counts> groups;
  Counts total;
  std::map<std::string, int> skip_reasons;
  for (const Outcome& o : outcomes) {
    const std::string group = o.name.substr(0, o.name.find('/'));
    Counts& g = groups[group];
    switch (o.verdict) {
      case Verdict::kPassed:
        ++g.passed;
        ++total.passed;
        break;
      case Verdict::kFailed:
        ++g.failed;
        ++total.failed;
        break;
      case Verdict::kSkipped:
        ++g.skipped;
        ++total.skipped;
        ++skip_reasons[o.messages.front()];
        break;
    }
  }
  std::printf("\n%-20s %8s %8s %8s\n", "group", "passed", "failed", "skipped");
  for (const auto& [group, c] : groups) {
    std::printf("%-20s %8d %8d %8d\n", group.c_str(), c.passed, c.failed,
                c.skipped);
  }
  for (const auto& [reason, n] : skip_reasons) {
    std::printf("skipped %d: %s\n", n, reason.c_str());
  }
  if (auto junit = args.Get("junit")) {
    absl::Status written = WriteJunit(*junit, attrs.name, outcomes);
    if (!written.ok()) return ReportError(written);
  }
  if (part == "all") {
    std::printf("cases: %d passed, %d failed, %d skipped\n", total.passed,
                total.failed, total.skipped);
  }
  // The last line counts the ABI checks and the cases together.
  std::printf("%d passed, %d failed, %d skipped\n", total.passed + abi_passed,
              total.failed + abi_failed, total.skipped + abi_skipped);
  return total.failed + abi_failed == 0 ? 0 : 1;
}

}  // namespace plexa::cli
