// Running one conformance case on one backend and checking its results:
// the one procedure behind both the in-tree suite (tests/conformance) and
// `plexa test-plugin`.
#ifndef PLEXA_TOOLS_CONFORMANCE_RUN_CASE_H_
#define PLEXA_TOOLS_CONFORMANCE_RUN_CASE_H_

#include <string>
#include <vector>

#include "tools/conformance/backend.h"
#include "tools/conformance/case_file.h"

namespace plexa {

// Parses the case's module, runs it on `backend` (with its feed queues when
// the case uses host feeds) and compares every replica's result (and the
// outfeed) with the case's expectations. Returns what went wrong, each
// message starting with the case file and its source; empty if the case
// passed.
std::vector<std::string> RunConformanceCase(const ConformanceCase& c,
                                            const ConformanceBackend& backend);

}  // namespace plexa

#endif  // PLEXA_TOOLS_CONFORMANCE_RUN_CASE_H_
