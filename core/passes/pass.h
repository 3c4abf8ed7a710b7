// The pass interface (XLA's HloPassInterface, reduced to what Plexa needs):
// a pass has a name and rewrites a module in place, reporting whether it
// changed anything. Passes never abort on a module the verifier accepts;
// they return an error status only for an internal failure, and they leave
// the module verified (the Pipeline checks that between passes).
#ifndef PLEXA_CORE_PASSES_PASS_H_
#define PLEXA_CORE_PASSES_PASS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"

namespace plexa {

class Pass {
 public:
  virtual ~Pass() = default;

  // Short, lower-case, hyphenated ("dce", "algebraic-simplifier"); used by
  // `plexa opt --passes=`, dumps and timings.
  virtual absl::string_view name() const = 0;

  // Rewrites `module`; true if it changed. Running a pass again right
  // after it returned true may find more to do; running it again after it
  // returned false must return false (passes are idempotent at their
  // fixpoint), which is what fixpoint groups rely on.
  virtual absl::StatusOr<bool> Run(Module& module) = 0;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_PASS_H_
