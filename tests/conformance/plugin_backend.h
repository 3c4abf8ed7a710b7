// A conformance backend that runs each case through a plugin loaded from
// `path` with the C ABI (abi/host), as `plexa run --backend=PATH` does.
#ifndef PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_
#define PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_

#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "tests/conformance/backend.h"

namespace plexa {

// `options`: client options beyond the replicas' devices (e.g. the oneDNN
// plugin's min_flops=0, so the suite's small programs reach oneDNN).
ConformanceBackend MakePluginBackend(
    std::string name, std::string path,
    std::vector<host::Plugin::Option> options = {});

}  // namespace plexa

#endif  // PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_
