// Shape inference for ragged-dot, as XLA's InferRaggedDotOpShape
// (xla/service/shape_inference.cc) and StableHLO's chlo.ragged_dot verifier,
// which also allows group_sizes with leading dimensions ([b..., x..., g]).
// XLA's HLO carries that form too (its MHLO-to-HLO tests print
// `s64[19,3]` group sizes), so Plexa takes both.
#include <algorithm>
#include <string>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Contains;
using internal::ExpectArray;
using internal::Invalid;
using internal::IsIntegral;
using internal::MakeArray;
using internal::Str;
using internal::TypeName;

RaggedDotMode GetRaggedDotMode(const DotDimensionNumbers& dnums,
                               int64_t lhs_ragged_dimension) {
  if (Contains(dnums.lhs_batch_dimensions, lhs_ragged_dimension)) {
    return RaggedDotMode::kBatch;
  }
  if (Contains(dnums.lhs_contracting_dimensions, lhs_ragged_dimension)) {
    return RaggedDotMode::kContracting;
  }
  return RaggedDotMode::kNonContracting;
}

std::vector<int64_t> RaggedDotGroupSizesPrefix(const DotDimensionNumbers& dnums,
                                               int64_t lhs_ragged_dimension,
                                               int64_t lhs_rank) {
  const std::vector<int64_t>& batch = dnums.lhs_batch_dimensions;
  const std::vector<int64_t>& contracting = dnums.lhs_contracting_dimensions;
  std::vector<int64_t> prefix;
  switch (GetRaggedDotMode(dnums, lhs_ragged_dimension)) {
    case RaggedDotMode::kBatch:
      prefix.assign(batch.begin(), std::find(batch.begin(), batch.end(),
                                             lhs_ragged_dimension));
      break;
    case RaggedDotMode::kContracting:
      prefix = batch;
      prefix.insert(prefix.end(), contracting.begin(),
                    std::find(contracting.begin(), contracting.end(),
                              lhs_ragged_dimension));
      break;
    case RaggedDotMode::kNonContracting:
      prefix = batch;
      for (int64_t d = 0; d < lhs_ragged_dimension && d < lhs_rank; ++d) {
        if (!Contains(batch, d) && !Contains(contracting, d)) {
          prefix.push_back(d);
        }
      }
      break;
  }
  return prefix;
}

absl::StatusOr<Shape> InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const DotDimensionNumbers& dnums,
    absl::Span<const int64_t> lhs_ragged_dimensions,
    absl::Span<const int64_t> rhs_group_dimensions,
    PrimitiveType preferred_type) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(lhs, "lhs of ragged-dot"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(rhs, "rhs of ragged-dot"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(group_sizes, "group_sizes of ragged-dot"));
  const std::string what =
      absl::StrCat("ragged-dot(", Str(lhs), ", ", Str(rhs), ", ",
                   Str(group_sizes), ") with ", internal::DotDimsString(dnums),
                   ", lhs_ragged_dims=", Str(lhs_ragged_dimensions),
                   ", rhs_group_dims=", Str(rhs_group_dimensions));
  PLEXA_RETURN_IF_ERROR(internal::CheckDotDimensions(what, lhs, rhs, dnums));

  // XLA reads group_sizes as integers (s32/s64 in its tests; StableHLO's
  // chlo.ragged_dot takes any integer tensor).
  if (!IsIntegral(group_sizes.element_type())) {
    return Invalid(what,
                   ": group_sizes must have an integer element type; got ",
                   TypeName(group_sizes.element_type()), ".");
  }
  if (lhs_ragged_dimensions.size() != 1) {
    return Invalid(what,
                   ": there must be exactly one ragged dimension in the lhs; "
                   "got ",
                   lhs_ragged_dimensions.size(), ".");
  }
  const int64_t ragged = lhs_ragged_dimensions[0];
  if (ragged < 0 || ragged >= lhs.rank()) {
    return Invalid(what, ": lhs ragged dimension ", ragged,
                   " is out of range [0, ", lhs.rank(), ").");
  }
  const RaggedDotMode mode = GetRaggedDotMode(dnums, ragged);

  // group_sizes: [g], or [prefix..., g] with the prefix's sizes the lhs's.
  if (group_sizes.rank() < 1) {
    return Invalid(what, ": group_sizes must have rank 1 or more; got ",
                   Str(group_sizes), ".");
  }
  const std::vector<int64_t> prefix =
      RaggedDotGroupSizesPrefix(dnums, ragged, lhs.rank());
  if (group_sizes.rank() != 1) {
    std::vector<int64_t> expected;
    for (int64_t d : prefix) expected.push_back(lhs.dimensions(d));
    std::vector<int64_t> got(group_sizes.dimensions().begin(),
                             group_sizes.dimensions().end() - 1);
    if (prefix.empty()) {
      return Invalid(what, ": group_sizes must have rank 1; got ",
                     Str(group_sizes), ".");
    }
    if (group_sizes.rank() != static_cast<int64_t>(prefix.size()) + 1) {
      return Invalid(what, ": group_sizes must have rank 1 or ",
                     prefix.size() + 1, " (the lhs dimensions ", Str(prefix),
                     " then the groups); got ", Str(group_sizes), ".");
    }
    if (got != expected) {
      return Invalid(what, ": group_sizes must have shape [",
                     absl::StrJoin(expected, ","), ",",
                     group_sizes.dimensions(group_sizes.rank() - 1),
                     "] (the sizes of the lhs dimensions ", Str(prefix),
                     ", then the groups); got ", Str(group_sizes), ".");
    }
  }
  const int64_t num_groups = group_sizes.dimensions(group_sizes.rank() - 1);

  for (int64_t d : rhs_group_dimensions) {
    if (d < 0 || d >= rhs.rank()) {
      return Invalid(what, ": rhs group dimension ", d, " is out of range [0, ",
                     rhs.rank(), ").");
    }
    if (Contains(dnums.rhs_batch_dimensions, d) ||
        Contains(dnums.rhs_contracting_dimensions, d)) {
      return Invalid(what, ": rhs group dimension ", d,
                     " cannot be a batch or contracting dimension.");
    }
  }
  if (mode == RaggedDotMode::kNonContracting) {
    if (rhs_group_dimensions.size() != 1) {
      return Invalid(what,
                     ": there must be exactly one group dimension in the rhs "
                     "when the lhs ragged dimension is non-contracting; got ",
                     rhs_group_dimensions.size(), ".");
    }
    if (rhs.dimensions(rhs_group_dimensions[0]) != num_groups) {
      return Invalid(what, ": the rhs group dimension ",
                     rhs_group_dimensions[0], " has size ",
                     rhs.dimensions(rhs_group_dimensions[0]),
                     " but group_sizes has ", num_groups, " groups.");
    }
  } else if (!rhs_group_dimensions.empty()) {
    return Invalid(what,
                   ": there must be no group dimension in the rhs when the lhs "
                   "ragged dimension is a ",
                   mode == RaggedDotMode::kBatch ? "batch" : "contracting",
                   " dimension.");
  }

  PrimitiveType type;
  PLEXA_ASSIGN_OR_RETURN(
      type, internal::DotResultType(what, lhs.element_type(), preferred_type));
  Shape out = MakeArray(type, {});
  if (mode == RaggedDotMode::kContracting) {
    out.add_dimension(num_groups,
                      group_sizes.is_dynamic_dimension(group_sizes.rank() - 1));
  }
  internal::AppendDotResultDimensions(lhs, rhs, dnums, rhs_group_dimensions,
                                      &out);
  return out;
}

}  // namespace plexa::shape_inference
