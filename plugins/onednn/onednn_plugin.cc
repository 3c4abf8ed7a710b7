// The oneDNN plugin (--backend=onednn): the CPU plugin with dots and
// convolutions (and the elementwise chains that consume them), softmax,
// layer and batch norms, pooling, reductions and other memory-bound
// patterns run as oneDNN 2.6 primitives (docs/onednn.md).
//
// Client options: those of the CPU plugin (plugins/cpu/cpu_client.h:
// num_threads, num_devices, report, dump_ir; PLEXA_ONEDNN_REPORT=1) and
//   relaxed_nan   1: maximum, minimum and clamp become post-ops too,
//                 although oneDNN returns the other operand where HLO
//                 returns NaN (relu(NaN) is 0, not NaN); default 0
//   min_flops     f32 dots and convolutions with fewer floating-point
//                 operations stay on the CPU plugin (default 2 * 128^3,
//                 where a oneDNN call starts to pay; 0 maps every one)
//   min_elements  memory-bound primitives (pooling, reductions, layer
//                 norm, eltwise, binary, reorder, concat) on arrays with
//                 fewer elements stay on the CPU plugin (default 65536;
//                 0 maps every one)
//   all_primitives  1: also what oneDNN runs slower than the CPU plugin's
//                 fused loops here (layer norm, reductions, standalone
//                 eltwise and binary ops, channels-first batch norm);
//                 default 0
//   all_convolutions  1: also the f32 convolutions the CPU plugin runs with
//                 its Winograd kernel (faster than oneDNN 2.6's direct
//                 ones here); default 0: those stay on the CPU plugin
#include <memory>

#include "abi/sdk/plugin.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "plugins/cpu/cpu_client.h"
#include "plugins/onednn/onednn_extension.h"

namespace plexa::onednn {
namespace {

class OneDnnPlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override {
    return cpu::CpuClientPluginInfo("onednn");
  }

  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    static constexpr const char* kOwn[] = {"relaxed_nan", "all_convolutions",
                                           "min_flops", "min_elements",
                                           "all_primitives"};
    absl::StatusOr<cpu::CpuClientConfig> config =
        cpu::ParseCpuClientOptions(options, "onednn", kOwn);
    if (!config.ok()) return config.status();
    absl::StatusOr<int64_t> relaxed =
        sdk::GetIntOptionInRange(options, "relaxed_nan", 0, 0, 1);
    if (!relaxed.ok()) return relaxed.status();
    absl::StatusOr<int64_t> all_convolutions =
        sdk::GetIntOptionInRange(options, "all_convolutions", 0, 0, 1);
    if (!all_convolutions.ok()) return all_convolutions.status();
    MatchOptions match;
    absl::StatusOr<int64_t> min_flops = sdk::GetIntOptionInRange(
        options, "min_flops", static_cast<int64_t>(match.min_flops), 0,
        int64_t{1} << 50);
    if (!min_flops.ok()) return min_flops.status();
    match.min_flops = static_cast<double>(*min_flops);
    absl::StatusOr<int64_t> min_elements = sdk::GetIntOptionInRange(
        options, "min_elements", match.min_elements, 0, int64_t{1} << 50);
    if (!min_elements.ok()) return min_elements.status();
    match.min_elements = *min_elements;
    absl::StatusOr<int64_t> all_primitives =
        sdk::GetIntOptionInRange(options, "all_primitives", 0, 0, 1);
    if (!all_primitives.ok()) return all_primitives.status();
    match.all_primitives = *all_primitives != 0;
    match.relaxed_nan = *relaxed != 0;
    match.all_convolutions = *all_convolutions != 0;
    absl::StatusOr<std::shared_ptr<OneDnnExtension>> extension =
        OneDnnExtension::Create(match, static_cast<int>(config->num_threads));
    if (!extension.ok()) return extension.status();
    config->extension = std::move(*extension);
    return cpu::MakeCpuClient(std::move(*config));
  }
};

std::unique_ptr<sdk::Plugin> MakeOneDnnPlugin() {
  return std::make_unique<OneDnnPlugin>();
}

}  // namespace
}  // namespace plexa::onednn

PLEXA_DEFINE_PLUGIN(plexa::onednn::MakeOneDnnPlugin)
