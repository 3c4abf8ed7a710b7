// Private to core/builder: the computation pool a builder family shares,
// status macros and small helpers used by the builder_*.cc files.
#ifndef PLEXA_CORE_BUILDER_BUILDER_INTERNAL_H_
#define PLEXA_CORE_BUILDER_BUILDER_INTERNAL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "core/base/status_macros.h"
#include "core/builder/builder.h"

// `lhs = value of expr`, or return its error status.

namespace plexa {

// Every computation a builder family built and still owns. Computations
// move out into the module at BuildModule; `built` remembers all of them
// so operations can check that a computation belongs to the family.
struct Builder::Pool {
  std::vector<std::unique_ptr<Computation>> owned;
  absl::flat_hash_set<const Computation*> built;
  // Computations the builder creates itself, by key ("add.f32").
  absl::flat_hash_map<std::string, Computation*> helpers;
  // Set by BuildModule; no builder of the family may Build afterwards.
  bool module_built = false;
};

namespace builder_internal {

// "{1,2,3}"
inline std::string DimsToString(absl::Span<const int64_t> dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ","), "}");
}

// `name` as an HLO identifier (see Builder); `fallback` if empty.
std::string SanitizeName(absl::string_view name, absl::string_view fallback);

// A shape a user hands the builder (parameter, rng, infeed, custom-call):
// arrays valid per ShapeUtil::ValidateShape, tuples recursively, tokens.
absl::Status ValidateUserShape(const Shape& shape);

// Pointers to the shapes of `instructions` (for shape inference).
std::vector<const Shape*> ShapesOf(absl::Span<Instruction* const> instructions);

// A span of n values, or n ones if `values` is empty; error if the length
// is neither 0 nor n.
absl::StatusOr<std::vector<int64_t>> DefaultOnes(
    absl::Span<const int64_t> values, int64_t n, absl::string_view what);

// Builds a Window from per-dimension sizes, strides, padding and dilations
// (all of length n).
Window MakeWindow(absl::Span<const int64_t> sizes,
                  absl::Span<const int64_t> strides,
                  absl::Span<const std::pair<int64_t, int64_t>> padding,
                  absl::Span<const int64_t> base_dilations,
                  absl::Span<const int64_t> window_dilations);

}  // namespace builder_internal
}  // namespace plexa

#endif  // PLEXA_CORE_BUILDER_BUILDER_INTERNAL_H_
