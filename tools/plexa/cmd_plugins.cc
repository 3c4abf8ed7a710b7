// plexa plugins [NAME|PATH ...] [--verbose]
//
// The plugins the host finds (host::Plugin::SearchDirectories: every
// libplexa_plugin_NAME.so there), or those named, each loaded as `plexa run
// --backend` would load it; one that cannot be is listed as refused with the
// loader's reason. --verbose creates a client with default options and lists
// its devices (attributes, memories).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/plexa/cli.h"

namespace plexa::cli {
namespace {

constexpr absl::string_view kPrefix = "libplexa_plugin_";
constexpr absl::string_view kSuffix = ".so";

struct Candidate {
  std::string path;
  std::string shadowed_by;  // a plugin of the same name found earlier
};

// Every libplexa_plugin_*.so in the search directories, in search order; a
// name found again later is shadowed (Load(name) takes the first).
std::vector<Candidate> Discover() {
  std::vector<Candidate> out;
  std::map<std::string, std::string> first_by_name;
  for (const std::string& dir : host::Plugin::SearchDirectories()) {
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (absl::StartsWith(file, kPrefix) && absl::EndsWith(file, kSuffix) &&
          file.size() > kPrefix.size() + kSuffix.size()) {
        files.push_back(file);
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      std::string path = std::filesystem::weakly_canonical(
                             std::filesystem::path(dir) / file, ec)
                             .string();
      if (ec) path = (std::filesystem::path(dir) / file).string();
      auto [it, inserted] = first_by_name.emplace(file, path);
      if (!inserted && it->second == path) continue;  // the same file again
      out.push_back({path, inserted ? "" : it->second});
    }
  }
  return out;
}

std::string Bytes(uint64_t n) {
  if (n == 0) return "unknown";
  if (n >= (uint64_t{1} << 30)) {
    return absl::StrCat(static_cast<double>(n) / (uint64_t{1} << 30), " GiB");
  }
  if (n >= (uint64_t{1} << 20)) {
    return absl::StrCat(static_cast<double>(n) / (uint64_t{1} << 20), " MiB");
  }
  return absl::StrCat(n, " bytes");
}

void PrintDevices(host::Plugin& plugin) {
  auto client = plugin.CreateClient({});
  if (!client.ok()) {
    std::printf("  client: cannot be created: %s\n",
                std::string(client.status().message()).c_str());
    return;
  }
  const auto& devices = (*client)->devices();
  std::printf("  devices: %zu\n", devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    const host::DeviceInfo& d = devices[i];
    std::printf("    device %lld: %s, memory %s\n",
                static_cast<long long>(d.id), d.kind.c_str(),
                Bytes(d.memory_bytes).c_str());
    for (const auto& [name, value] : d.attributes) {
      std::printf("      %s = %s\n", name.c_str(), value.c_str());
    }
    if (!plugin.HasMemories()) continue;
    auto memories = (*client)->Memories(static_cast<int64_t>(i));
    if (!memories.ok()) {
      std::printf("      memories: %s\n",
                  std::string(memories.status().message()).c_str());
      continue;
    }
    for (const host::MemoryInfo& m : *memories) {
      std::string line = absl::StrCat("      memory ", m.id, ": ", m.kind_name,
                                      " (", host::MemoryKindName(m.kind), ")");
      auto stats = (*client)->GetMemoryStatistics(m);
      if (stats.ok() && stats->bytes_limit >= 0) {
        absl::StrAppend(&line, ", limit ",
                        Bytes(static_cast<uint64_t>(stats->bytes_limit)));
      }
      std::printf("%s\n", line.c_str());
    }
  }
}

}  // namespace

int RunPlugins(const Args& args) {
  std::vector<Candidate> candidates;
  if (args.positional.empty()) {
    candidates = Discover();
    if (candidates.empty()) {
      std::printf(
          "no plugins found in %s\n",
          absl::StrJoin(host::Plugin::SearchDirectories(), ", ").c_str());
      return 0;
    }
  } else {
    for (const std::string& p : args.positional) candidates.push_back({p, ""});
  }
  const bool verbose = args.Has("verbose");
  int refused = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (i > 0) std::printf("\n");
    if (!c.shadowed_by.empty()) {
      std::printf("%s\n  shadowed by %s (found first)\n", c.path.c_str(),
                  c.shadowed_by.c_str());
      continue;
    }
    auto plugin = host::Plugin::Load(c.path);
    if (!plugin.ok()) {
      ++refused;
      std::printf("%s\n  refused: %s\n", c.path.c_str(),
                  std::string(plugin.status().message()).c_str());
      continue;
    }
    const host::PluginAttributes& a = (*plugin)->attributes();
    std::printf("%s  %s\n", a.name.c_str(), (*plugin)->path().c_str());
    std::printf("  vendor %s, version %s, platform %s\n", a.vendor.c_str(),
                a.version.c_str(), a.platform.c_str());
    std::printf("  ABI %d.%d (this host: %d.%d)\n", a.abi_major, a.abi_minor,
                PLX_API_MAJOR, PLX_API_MINOR);
    std::printf(
        "  formats: %s\n",
        a.formats.empty() ? "none" : absl::StrJoin(a.formats, ", ").c_str());
    const std::vector<std::string> caps = host::CapabilityNames(a.capabilities);
    std::printf("  capabilities: %s\n",
                caps.empty() ? "none" : absl::StrJoin(caps, ", ").c_str());
    if (verbose) PrintDevices(**plugin);
  }
  return refused == 0 ? 0 : 1;
}

}  // namespace plexa::cli
