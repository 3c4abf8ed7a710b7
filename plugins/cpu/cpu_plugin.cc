// The CPU plugin: modules compiled to native code with LLVM (ORC LLJIT) for
// the host CPU, behind the Plexa ABI. docs/cpu.md describes the compiler,
// the options and the numbers; cpu_client.h the client and its options.
#include <memory>

#include "abi/sdk/plugin.h"
#include "plugins/cpu/cpu_client.h"

namespace plexa::cpu {
namespace {

class CpuPlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override { return CpuClientPluginInfo("cpu"); }

  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    absl::StatusOr<CpuClientConfig> config =
        ParseCpuClientOptions(options, "cpu");
    if (!config.ok()) return config.status();
    return MakeCpuClient(std::move(*config));
  }
};

std::unique_ptr<sdk::Plugin> MakeCpuPlugin() {
  return std::make_unique<CpuPlugin>();
}

}  // namespace
}  // namespace plexa::cpu

PLEXA_DEFINE_PLUGIN(plexa::cpu::MakeCpuPlugin)
