// A conformance backend that runs each case through a plugin loaded from
// `path` with the C ABI (abi/host), as `plexa run --backend=PATH` does.
#ifndef PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_
#define PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_

#include <string>

#include "tests/conformance/backend.h"

namespace plexa {

ConformanceBackend MakePluginBackend(std::string name, std::string path);

}  // namespace plexa

#endif  // PLEXA_TESTS_CONFORMANCE_PLUGIN_BACKEND_H_
