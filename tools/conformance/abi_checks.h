// The ABI contract checks of `plexa test-plugin`: what docs/abi.md promises
// of every plugin, checked on any plugin through its raw C table and the
// host library. Each check runs in a child process of its own, so a plugin
// that crashes or hangs fails that check (with the signal, or after a time
// limit) and the others still run.
#ifndef PLEXA_TOOLS_CONFORMANCE_ABI_CHECKS_H_
#define PLEXA_TOOLS_CONFORMANCE_ABI_CHECKS_H_

#include <string>
#include <vector>

#include "abi/host/plugin_host.h"

namespace plexa {

struct AbiCheckResult {
  std::string name;  // "errors/null-args", ...
  bool passed = false;
  // The check does not apply: the plugin does not declare the capability
  // it needs (message says which).
  bool skipped = false;
  std::string message;  // what failed, or why skipped; empty when passed
};

// Runs every check on the plugin at `path` (a path or a name, as
// host::Plugin::Load takes it), creating clients with `options`. Call it
// before the process loads the plugin itself or starts threads: it forks.
std::vector<AbiCheckResult> RunAbiChecks(
    const std::string& path, const std::vector<host::Plugin::Option>& options,
    int timeout_seconds = 120);

}  // namespace plexa

#endif  // PLEXA_TOOLS_CONFORMANCE_ABI_CHECKS_H_
