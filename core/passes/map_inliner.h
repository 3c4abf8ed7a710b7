// The map inliner: map(x0, ..., xn), to_apply=f, where f is made only of
// parameters, scalar constants and elementwise operations, becomes those
// operations applied to whole arrays: parameter i becomes xi, a constant
// becomes a broadcast of it, and each elementwise operation is applied to
// arrays of the map's dimensions. (XLA's MapInliner handles the single
// operation case; this is the same idea over the whole scalar body.)
// Maps whose computation has anything else (a reduce, a call, an rng, a
// nested map) are left alone.
#ifndef PLEXA_CORE_PASSES_MAP_INLINER_H_
#define PLEXA_CORE_PASSES_MAP_INLINER_H_

#include "core/passes/pass.h"

namespace plexa {

class MapInliner : public Pass {
 public:
  absl::string_view name() const override { return "map-inliner"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_MAP_INLINER_H_
