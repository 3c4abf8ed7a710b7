#include "tests/conformance/backend.h"

#include <utility>

namespace plexa {
namespace {

std::vector<ConformanceBackend>& Registry() {
  // Function-local static: safe to use from other static initialisers.
  static auto* const registry = new std::vector<ConformanceBackend>();
  return *registry;
}

}  // namespace

bool RegisterConformanceBackend(ConformanceBackend backend) {
  Registry().push_back(std::move(backend));
  return true;
}

const std::vector<ConformanceBackend>& ConformanceBackends() {
  return Registry();
}

}  // namespace plexa
