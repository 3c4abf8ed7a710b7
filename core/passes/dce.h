// Dead code elimination: removes instructions whose value no one uses and
// that have no side effect, in every computation, and then computations
// that nothing reachable from the entry calls.
#ifndef PLEXA_CORE_PASSES_DCE_H_
#define PLEXA_CORE_PASSES_DCE_H_

#include "core/passes/pass.h"

namespace plexa {

class DeadCodeElimination : public Pass {
 public:
  struct Options {
    // Also remove computations not reachable from the entry computation.
    bool remove_unused_computations = true;
  };

  DeadCodeElimination() = default;
  explicit DeadCodeElimination(Options options) : options_(options) {}

  absl::string_view name() const override { return "dce"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_DCE_H_
