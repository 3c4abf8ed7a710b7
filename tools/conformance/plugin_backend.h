// A conformance backend that runs each case through a plugin loaded from
// `path` with the C ABI (abi/host), as `plexa run --backend=PATH` does.
#ifndef PLEXA_TOOLS_CONFORMANCE_PLUGIN_BACKEND_H_
#define PLEXA_TOOLS_CONFORMANCE_PLUGIN_BACKEND_H_

#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "tools/conformance/backend.h"

namespace plexa {

// `options`: the client options, exactly (e.g. num_devices=4 for the
// suite's replicated cases on Plexa's plugins, or the oneDNN plugin's
// min_flops=0, so the suite's small programs reach oneDNN).
// `custom_call_libraries` go into every compile's options. `asynchronous`:
// each case runs through ABI 1.2's asynchronous calls (ExecuteAsync, then
// every download issued before any is awaited: ReplicatedRun::RunAsync).
ConformanceBackend MakePluginBackend(
    std::string name, std::string path,
    std::vector<host::Plugin::Option> options = {},
    std::vector<std::string> custom_call_libraries = {},
    bool asynchronous = false);

}  // namespace plexa

#endif  // PLEXA_TOOLS_CONFORMANCE_PLUGIN_BACKEND_H_
