// The tuple simplifier:
//   get-tuple-element(tuple(a0, ..., an), i)         -> ai
//   tuple(get-tuple-element(x, 0), ..., gte(x, n-1)) -> x
//     (when x is a tuple of exactly n elements)
// With is_layout_sensitive, only when the layouts agree.
#ifndef PLEXA_CORE_PASSES_TUPLE_SIMPLIFIER_H_
#define PLEXA_CORE_PASSES_TUPLE_SIMPLIFIER_H_

#include "core/passes/pass.h"

namespace plexa {

class TupleSimplifier : public Pass {
 public:
  struct Options {
    bool is_layout_sensitive = false;
  };

  TupleSimplifier() = default;
  explicit TupleSimplifier(Options options) : options_(options) {}

  absl::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_TUPLE_SIMPLIFIER_H_
