// The client of the CPU plugin, and of every plugin built on it with a
// CpuExtension (the oneDNN plugin): host-memory buffers (with a cache of
// freed blocks), devices that are threads, executables with replicas,
// serialization and the compile cache. A plugin on top of it is its
// PluginInfo, its options and its extension.
//
// Client options every such plugin takes:
//   num_threads   threads of the client's pool (default: the machine's
//                 cores); kernels split their outer loops across it
//   num_devices   virtual devices (replicas run one per thread)
//   report        1: print a compile report on stderr (kernels, reference
//                 kernels, peak temporary memory, compile time, and the
//                 extension's line); also PLEXA_<NAME>_REPORT=1 in the
//                 environment (PLEXA_CPU_REPORT, PLEXA_ONEDNN_REPORT)
//   dump_ir       directory: write each compiled module's optimized IR
//                 (also PLEXA_<NAME>_DUMP_IR=DIR in the environment)
//   dump_program  directory: write each compiled module as the plugin runs
//                 it, after its passes, and its steps (program_dump.h;
//                 also PLEXA_<NAME>_DUMP_PROGRAM=DIR)
#ifndef PLEXA_PLUGINS_CPU_CPU_CLIENT_H_
#define PLEXA_PLUGINS_CPU_CPU_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "abi/sdk/plugin.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "plugins/cpu/cpu_extension.h"

namespace plexa::cpu {

struct CpuClientConfig {
  // In device kinds ("cpu:znver4"), reports, errors and the serialized
  // executable's magic (an executable is read back by its own plugin).
  std::string plugin_name = "cpu";
  int64_t num_devices = 1;
  int64_t num_threads = 1;
  bool report = false;
  std::string dump_ir;
  std::string dump_program;
  std::shared_ptr<CpuExtension> extension;  // may be null
};

// Reads the options above; `extra_known` names the caller's own options
// (accepted here, read by the caller). Unknown options are errors.
absl::StatusOr<CpuClientConfig> ParseCpuClientOptions(
    const sdk::Options& options, absl::string_view plugin_name,
    absl::Span<const char* const> extra_known = {});

std::unique_ptr<sdk::Client> MakeCpuClient(CpuClientConfig config);

// What a plugin with this client offers: named `name`, vendor Plexa, on the
// host platform, reading both module formats, with custom calls (original
// form), replicas, feeds, tuple parameters and serialization.
sdk::PluginInfo CpuClientPluginInfo(std::string name);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_CLIENT_H_
