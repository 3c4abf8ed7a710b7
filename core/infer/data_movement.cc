// Shape inference for shape manipulation: broadcast, reshape, transpose,
// reverse, concatenate, slice, dynamic-slice, dynamic-update-slice, pad,
// gather, scatter, iota and get-dimension-size.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::AllUnique;
using internal::Contains;
using internal::ElementCount;
using internal::ExpectArray;
using internal::Invalid;
using internal::IsComplex;
using internal::IsFloating;
using internal::IsIntegral;
using internal::IsPermutation;
using internal::IsSortedStrictly;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;

absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                          const Shape& output,
                                          absl::Span<const int64_t> dims) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of broadcast"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(output, "result of broadcast"));
  const std::string what =
      absl::StrCat("broadcast of ", Str(operand), " to ", Str(output),
                   " with dimensions=", Str(dims));
  if (operand.rank() > output.rank()) {
    return Invalid(what, ": the result must not have a lower rank.");
  }
  if (static_cast<int64_t>(dims.size()) != operand.rank()) {
    return Invalid(what,
                   ": dimensions must have one entry per operand dimension.");
  }
  if (!AllUnique(dims)) {
    return Invalid(what, ": dimensions must not repeat.");
  }
  // HLO broadcast (XLA's verifier): operand dimension i becomes result
  // dimension dims[i] with the same size; all other result dimensions are
  // new. (The builder's size-1 degenerate form is lowered to a reshape
  // first.)
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t d = dims[i];
    if (d < 0 || d >= output.rank()) {
      return Invalid(what, ": dimension ", d, " is out of range.");
    }
    if (operand.dimensions(i) != output.dimensions(d)) {
      return Invalid(what, ": operand dimension ", i, " has size ",
                     operand.dimensions(i), " but result dimension ", d,
                     " has size ", output.dimensions(d), ".");
    }
  }
  Shape out = NoLayout(output);
  out.set_element_type(operand.element_type());
  return out;
}

absl::StatusOr<Shape> InferBroadcastWithSizesShape(
    const Shape& operand, absl::Span<const int64_t> broadcast_sizes) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of broadcast"));
  for (int64_t size : broadcast_sizes) {
    if (size < 0) {
      return Invalid("Broadcast of ", Str(operand),
                     " with negative dimension size ", size, " in sizes ",
                     Str(broadcast_sizes), ".");
    }
  }
  // Seed 004: the new dimensions come first (on the left).
  Shape out = MakeArray(operand.element_type(), broadcast_sizes);
  for (int64_t i = 0; i < operand.rank(); ++i) {
    out.add_dimension(operand.dimensions(i), operand.is_dynamic_dimension(i));
  }
  return out;
}

absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        absl::Span<const int64_t> new_sizes) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of reshape"));
  Shape out = MakeArray(operand.element_type(), new_sizes);
  for (int64_t size : new_sizes) {
    if (size < 0) {
      return Invalid("Reshape of ", Str(operand), " to ", Str(out),
                     ": negative dimension size.");
    }
  }
  if (ElementCount(operand) != ElementCount(out)) {
    return Invalid("Reshape operation has mismatched element counts: from=",
                   ElementCount(operand), " (", Str(operand),
                   ") to=", ElementCount(out), " (", Str(out), ").");
  }
  return out;
}

absl::StatusOr<Shape> InferTransposeShape(
    const Shape& operand, absl::Span<const int64_t> permutation) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of transpose"));
  if (!IsPermutation(permutation, operand.rank())) {
    return Invalid("Transpose dimensions ", Str(permutation),
                   " are not a permutation of the operand dimensions "
                   "(operand shape is ",
                   Str(operand), ").");
  }
  // Result dimension i is operand dimension permutation[i].
  Shape out = MakeArray(operand.element_type(), {});
  for (int64_t p : permutation) {
    out.add_dimension(operand.dimensions(p), operand.is_dynamic_dimension(p));
  }
  return out;
}

absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dims) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of reverse"));
  if (!AllUnique(dims)) {
    return Invalid("A dimension number is duplicated in reverse of ",
                   Str(operand), ": dimensions=", Str(dims), ".");
  }
  for (int64_t d : dims) {
    if (d < 0 || d >= operand.rank()) {
      return Invalid("One of the reverse dimensions (", d,
                     ") is out of bounds in shape ", Str(operand), ".");
    }
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferConcatenateShape(
    absl::Span<const Shape* const> operands, int64_t dimension) {
  if (operands.empty()) {
    return Invalid("Concatenate expects at least one operand.");
  }
  for (const Shape* s : operands) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of concatenate"));
  }
  const Shape& first = *operands[0];
  // A scalar cannot be concatenated: there is no dimension to name.
  if (dimension < 0 || dimension >= first.rank()) {
    return Invalid("Concatenate dimension ", dimension,
                   " is out of bounds for operands ", Str(operands), ".");
  }
  Shape out = NoLayout(first);
  for (size_t k = 1; k < operands.size(); ++k) {
    const Shape& s = *operands[k];
    if (s.rank() != first.rank()) {
      return Invalid("Cannot concatenate arrays with different ranks: ",
                     Str(operands), ".");
    }
    if (s.element_type() != first.element_type()) {
      return Invalid("Cannot concatenate arrays with different element types: ",
                     Str(operands), ".");
    }
    for (int64_t d = 0; d < first.rank(); ++d) {
      if (d == dimension) continue;
      if (s.dimensions(d) != first.dimensions(d)) {
        return Invalid(
            "Cannot concatenate arrays that differ in dimensions other than "
            "the one being concatenated (dimension ",
            dimension, "); dimension ", d, " differs: ", Str(operands), ".");
      }
    }
    out.set_dimensions(dimension,
                       out.dimensions(dimension) + s.dimensions(dimension));
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (s.is_dynamic_dimension(d)) out.set_dynamic_dimension(d, true);
    }
  }
  return out;
}

absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const SliceDimension> slice) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of slice"));
  auto slice_str = [&] {
    std::vector<std::string> parts;
    for (const SliceDimension& s : slice) {
      parts.push_back(
          absl::StrCat("[", s.start, ":", s.limit, ":", s.stride, "]"));
    }
    return absl::StrCat("slice of ", Str(operand), " with slice={",
                        absl::StrJoin(parts, ", "), "}");
  };
  if (static_cast<int64_t>(slice.size()) != operand.rank()) {
    return Invalid(slice_str(),
                   ": the slice must have one entry per operand dimension.");
  }
  Shape out = MakeArray(operand.element_type(), {});
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const SliceDimension& s = slice[d];
    if (s.start < 0) {
      return Invalid(slice_str(), ": negative start index ", s.start,
                     " in dimension ", d, ".");
    }
    if (s.limit > operand.dimensions(d)) {
      return Invalid(slice_str(), ": limit index ", s.limit,
                     " must be less than or equal to the dimension size ",
                     operand.dimensions(d), " in dimension ", d, ".");
    }
    if (s.start > s.limit) {
      return Invalid(slice_str(), ": limit index ", s.limit,
                     " must be greater than or equal to start index ", s.start,
                     " in dimension ", d, ".");
    }
    if (s.stride < 1) {
      return Invalid(slice_str(), ": stride ", s.stride,
                     " must be positive in dimension ", d, ".");
    }
    // ceil((limit - start) / stride), without overflow for huge strides.
    const int64_t span = s.limit - s.start;
    const int64_t size = span / s.stride + (span % s.stride != 0 ? 1 : 0);
    // Slicing one element out of a dynamic dimension makes it static.
    out.add_dimension(size, size != 1 && operand.is_dynamic_dimension(d));
  }
  return out;
}

namespace {

// Start indices (SEMANTICS.md "DynamicSlice"): one scalar per operand
// dimension, all of one integral type (today's form), or the older single
// rank-1 vector with one entry per dimension. Out-of-range starts are
// clamped at run time, so they are not a shape error.
absl::Status CheckStartIndices(absl::string_view what, const Shape& operand,
                               absl::Span<const Shape* const> indices) {
  for (const Shape* s : indices) {
    PLEXA_RETURN_IF_ERROR(
        ExpectArray(*s, absl::StrCat("start index of ", what)));
  }
  if (indices.size() == 1 && indices[0]->rank() == 1) {
    const Shape& v = *indices[0];
    if (!IsIntegral(v.element_type())) {
      return Invalid(what, ": start indices must be of integral type; got ",
                     Str(v), ".");
    }
    if (v.dimensions(0) != operand.rank()) {
      return Invalid(what, ": the start index vector ", Str(v), " must have ",
                     operand.rank(), " elements, one per dimension of ",
                     Str(operand), ".");
    }
    return absl::OkStatus();
  }
  if (static_cast<int64_t>(indices.size()) != operand.rank()) {
    return Invalid(what, ": expected ", operand.rank(),
                   " scalar start indices (one per dimension of ", Str(operand),
                   "), got ", indices.size(), ".");
  }
  for (const Shape* s : indices) {
    if (!s->IsScalar()) {
      return Invalid(what, ": start indices must be scalars; got ", Str(*s),
                     ".");
    }
    if (!IsIntegral(s->element_type())) {
      return Invalid(what, ": start indices must be of integral type; got ",
                     Str(*s), ".");
    }
    if (s->element_type() != indices[0]->element_type()) {
      return Invalid(what, ": start indices must all have the same type; got ",
                     Str(indices), ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape* const> start_indices,
    absl::Span<const int64_t> slice_sizes) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of dynamic-slice"));
  const std::string what = absl::StrCat(
      "dynamic-slice of ", Str(operand), " with start indices ",
      Str(start_indices), " and dynamic_slice_sizes=", Str(slice_sizes));
  PLEXA_RETURN_IF_ERROR(CheckStartIndices(what, operand, start_indices));
  if (static_cast<int64_t>(slice_sizes.size()) != operand.rank()) {
    return Invalid(what, ": need one slice size per operand dimension.");
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (slice_sizes[d] < 0) {
      return Invalid(what, ": negative slice size in dimension ", d, ".");
    }
    if (slice_sizes[d] > operand.dimensions(d)) {
      return Invalid(what, ": slice size ", slice_sizes[d],
                     " is greater than dimension ", d, " (size ",
                     operand.dimensions(d), ").");
    }
  }
  return MakeArray(operand.element_type(), slice_sizes);
}

absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update,
    absl::Span<const Shape* const> start_indices) {
  PLEXA_RETURN_IF_ERROR(
      ExpectArray(operand, "operand of dynamic-update-slice"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(update, "update of dynamic-update-slice"));
  const std::string what =
      absl::StrCat("dynamic-update-slice of ", Str(operand), " with update ",
                   Str(update), " and start indices ", Str(start_indices));
  PLEXA_RETURN_IF_ERROR(CheckStartIndices(what, operand, start_indices));
  if (update.rank() != operand.rank()) {
    return Invalid(what, ": the update must have the operand's rank.");
  }
  if (update.element_type() != operand.element_type()) {
    return Invalid(what, ": the update must have the operand's element type.");
  }
  Shape out = NoLayout(operand);
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (update.dimensions(d) > operand.dimensions(d)) {
      return Invalid(what, ": update dimension ", d, " (size ",
                     update.dimensions(d), ") is larger than the operand's (",
                     operand.dimensions(d), ").");
    }
    // A dynamic update covering a whole dimension makes it dynamic.
    if (update.is_dynamic_dimension(d) &&
        update.dimensions(d) == operand.dimensions(d)) {
      out.set_dynamic_dimension(d, true);
    }
  }
  return out;
}

absl::StatusOr<Shape> InferPadShape(const Shape& operand,
                                    const Shape& padding_value,
                                    const PaddingConfig& config) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of pad"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(padding_value, "padding value"));
  const std::string what =
      absl::StrCat("pad(", Str(operand), ", ", Str(padding_value),
                   "), padding=", internal::PaddingString(config));
  if (!padding_value.IsScalar()) {
    return Invalid(what, ": the padding value must be a scalar.");
  }
  if (static_cast<int64_t>(config.dimensions.size()) != operand.rank()) {
    return Invalid(what,
                   ": the padding configuration must have one entry per "
                   "operand dimension.");
  }
  if (padding_value.element_type() != operand.element_type()) {
    return Invalid(what,
                   ": the padding value must have the operand's element "
                   "type.");
  }
  Shape out = MakeArray(operand.element_type(), {});
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const PaddingDimension& p = config.dimensions[d];
    if (p.interior_padding < 0) {
      return Invalid(what, ": interior padding cannot be negative (dimension ",
                     d, ").");
    }
    // Interior padding goes between elements, then edge padding (which may
    // be negative and then removes elements).
    const int64_t n = operand.dimensions(d);
    const int64_t size = p.edge_padding_low + p.edge_padding_high + n +
                         std::max<int64_t>(n - 1, 0) * p.interior_padding;
    if (size < 0) {
      return Invalid(what, ": padding results in negative size ", size,
                     " for dimension ", d, ".");
    }
    out.add_dimension(size, operand.is_dynamic_dimension(d));
  }
  return out;
}

absl::StatusOr<Shape> InferGatherShape(const Shape& operand,
                                       const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of gather"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(start_indices, "start indices of gather"));
  const std::string what = absl::StrCat(
      "gather(", Str(operand), ", ", Str(start_indices),
      ") with offset_dims=", Str(dnums.offset_dims),
      ", collapsed_slice_dims=", Str(dnums.collapsed_slice_dims),
      ", start_index_map=", Str(dnums.start_index_map),
      ", operand_batching_dims=", Str(dnums.operand_batching_dims),
      ", start_indices_batching_dims=", Str(dnums.start_indices_batching_dims),
      ", index_vector_dim=", dnums.index_vector_dim,
      ", slice_sizes=", Str(slice_sizes));
  const int64_t operand_rank = operand.rank();
  const int64_t indices_rank = start_indices.rank();
  if (!IsIntegral(start_indices.element_type())) {
    return Invalid(what, ": start indices must be of integral type.");
  }
  if (dnums.index_vector_dim < 0 || dnums.index_vector_dim > indices_rank) {
    return Invalid(what, ": index_vector_dim must be in [0, ", indices_rank + 1,
                   ").");
  }
  // Indices of shape [A,B] with index_vector_dim 2 read as [A,B,1].
  std::vector<int64_t> expanded(start_indices.dimensions().begin(),
                                start_indices.dimensions().end());
  std::vector<bool> expanded_dynamic(start_indices.dynamic_dimensions().begin(),
                                     start_indices.dynamic_dimensions().end());
  if (dnums.index_vector_dim == indices_rank) {
    expanded.push_back(1);
    expanded_dynamic.push_back(false);
  }
  const int64_t output_rank =
      static_cast<int64_t>(dnums.offset_dims.size() + expanded.size()) - 1;

  if (!IsSortedStrictly(dnums.offset_dims)) {
    return Invalid(what, ": offset_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.offset_dims) {
    if (d < 0 || d >= output_rank) {
      return Invalid(what, ": offset dimension ", d,
                     " is out of bounds for the result rank ", output_rank,
                     ".");
    }
  }
  if (static_cast<int64_t>(dnums.start_index_map.size()) !=
      expanded[dnums.index_vector_dim]) {
    return Invalid(what, ": start_index_map has ", dnums.start_index_map.size(),
                   " elements but the index vector dimension has size ",
                   expanded[dnums.index_vector_dim], ".");
  }
  for (int64_t d : dnums.start_index_map) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": start_index_map entry ", d,
                     " is out of bounds for the operand.");
    }
  }
  std::vector<int64_t> map_and_batching = dnums.start_index_map;
  map_and_batching.insert(map_and_batching.end(),
                          dnums.operand_batching_dims.begin(),
                          dnums.operand_batching_dims.end());
  if (!AllUnique(map_and_batching)) {
    return Invalid(what,
                   ": start_index_map and operand_batching_dims must not "
                   "repeat a dimension.");
  }
  if (!IsSortedStrictly(dnums.collapsed_slice_dims)) {
    return Invalid(what, ": collapsed_slice_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.collapsed_slice_dims) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": collapsed_slice_dims entry ", d,
                     " is out of bounds for the operand.");
    }
  }
  if (!IsSortedStrictly(dnums.operand_batching_dims)) {
    return Invalid(what, ": operand_batching_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.operand_batching_dims) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": operand_batching_dims entry ", d,
                     " is out of bounds for the operand.");
    }
    if (Contains(dnums.collapsed_slice_dims, d)) {
      return Invalid(what, ": dimension ", d,
                     " is both collapsed and a batching dimension.");
    }
  }
  if (!AllUnique(dnums.start_indices_batching_dims)) {
    return Invalid(what, ": start_indices_batching_dims must not repeat.");
  }
  for (int64_t d : dnums.start_indices_batching_dims) {
    if (d < 0 || d >= indices_rank) {
      return Invalid(what, ": start_indices_batching_dims entry ", d,
                     " is out of bounds for the start indices.");
    }
    if (d == dnums.index_vector_dim) {
      return Invalid(what,
                     ": index_vector_dim must not be a start indices "
                     "batching dimension.");
    }
  }
  if (dnums.operand_batching_dims.size() !=
      dnums.start_indices_batching_dims.size()) {
    return Invalid(what,
                   ": operand_batching_dims and start_indices_batching_dims "
                   "must have the same size.");
  }
  for (size_t i = 0; i < dnums.operand_batching_dims.size(); ++i) {
    const int64_t od = dnums.operand_batching_dims[i];
    const int64_t id = dnums.start_indices_batching_dims[i];
    if (operand.dimensions(od) != start_indices.dimensions(id)) {
      return Invalid(what, ": operand batching dimension ", od, " (size ",
                     operand.dimensions(od),
                     ") and start indices batching dimension ", id, " (size ",
                     start_indices.dimensions(id),
                     ") must have the same size.");
    }
  }
  if (static_cast<int64_t>(slice_sizes.size()) != operand_rank) {
    return Invalid(what, ": need one slice size per operand dimension.");
  }
  if (static_cast<int64_t>(
          dnums.offset_dims.size() + dnums.collapsed_slice_dims.size() +
          dnums.operand_batching_dims.size()) != operand_rank) {
    return Invalid(what,
                   ": every operand dimension must be an offset, collapsed "
                   "or batching dimension (their counts must sum to the "
                   "operand rank).");
  }
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > operand.dimensions(d)) {
      return Invalid(what, ": slice size ", slice_sizes[d], " of dimension ", d,
                     " must be in [0, ", operand.dimensions(d), "].");
    }
  }
  for (int64_t d : dnums.collapsed_slice_dims) {
    if (slice_sizes[d] > 1) {
      return Invalid(what, ": collapsed dimension ", d,
                     " must have slice size 0 or 1, not ", slice_sizes[d], ".");
    }
  }
  for (int64_t d : dnums.operand_batching_dims) {
    if (slice_sizes[d] > 1) {
      return Invalid(what, ": batching dimension ", d,
                     " must have slice size 0 or 1, not ", slice_sizes[d], ".");
    }
  }
  // Result: offset_dims hold the slice sizes of the operand dimensions that
  // are neither collapsed nor batching (in order); the other result
  // dimensions are the index dimensions except index_vector_dim.
  Shape out = MakeArray(operand.element_type(), {});
  int64_t operand_dim = 0;
  int64_t index_dim = 0;
  for (int64_t i = 0; i < output_rank; ++i) {
    if (Contains(dnums.offset_dims, i)) {
      while (Contains(dnums.collapsed_slice_dims, operand_dim) ||
             Contains(dnums.operand_batching_dims, operand_dim)) {
        ++operand_dim;
      }
      const bool dynamic =
          slice_sizes[operand_dim] == operand.dimensions(operand_dim) &&
          operand.is_dynamic_dimension(operand_dim);
      out.add_dimension(slice_sizes[operand_dim], dynamic);
      ++operand_dim;
    } else {
      if (index_dim == dnums.index_vector_dim) ++index_dim;
      out.add_dimension(expanded[index_dim], expanded_dynamic[index_dim]);
      ++index_dim;
    }
  }
  return out;
}

absl::StatusOr<Shape> InferScatterShape(
    absl::Span<const Shape* const> operands_indices_updates,
    const ProgramShape& to_apply, const ScatterDimensionNumbers& dnums) {
  const int64_t total = static_cast<int64_t>(operands_indices_updates.size());
  const int64_t n = total / 2;
  if (n < 1 || 2 * n + 1 != total) {
    return Invalid(
        "scatter expects N operands, the indices and N updates "
        "(2N+1 operands, N >= 1); got ",
        Str(operands_indices_updates), ".");
  }
  auto operands = operands_indices_updates.subspan(0, n);
  const Shape& indices = *operands_indices_updates[n];
  auto updates = operands_indices_updates.subspan(n + 1, n);
  for (const Shape* s : operands_indices_updates) {
    PLEXA_RETURN_IF_ERROR(ExpectArray(*s, "operand of scatter"));
  }
  const std::string what =
      absl::StrCat("scatter", Str(operands_indices_updates),
                   " with update_window_dims=", Str(dnums.update_window_dims),
                   ", inserted_window_dims=", Str(dnums.inserted_window_dims),
                   ", scatter_dims_to_operand_dims=",
                   Str(dnums.scatter_dims_to_operand_dims),
                   ", input_batching_dims=", Str(dnums.input_batching_dims),
                   ", scatter_indices_batching_dims=",
                   Str(dnums.scatter_indices_batching_dims),
                   ", index_vector_dim=", dnums.index_vector_dim);
  const Shape& operand = *operands[0];
  const Shape& update = *updates[0];
  for (int64_t i = 0; i < n; ++i) {
    if (!internal::SameDims(*operands[i], operand)) {
      return Invalid(what, ": all operands must have the same dimensions.");
    }
    if (!internal::SameDims(*updates[i], update)) {
      return Invalid(what, ": all updates must have the same dimensions.");
    }
    if (updates[i]->element_type() != operands[i]->element_type()) {
      return Invalid(what, ": updates ", i, " (", Str(*updates[i]),
                     ") must have the element type of operand ", i, " (",
                     Str(*operands[i]), ").");
    }
  }
  if (!IsIntegral(indices.element_type())) {
    return Invalid(what, ": scatter indices must be of integral type.");
  }
  const int64_t operand_rank = operand.rank();
  const int64_t indices_rank = indices.rank();
  if (dnums.index_vector_dim < 0 || dnums.index_vector_dim > indices_rank) {
    return Invalid(what, ": index_vector_dim must be in [0, ", indices_rank + 1,
                   ").");
  }
  std::vector<int64_t> expanded(indices.dimensions().begin(),
                                indices.dimensions().end());
  if (dnums.index_vector_dim == indices_rank) expanded.push_back(1);

  if (!IsSortedStrictly(dnums.update_window_dims)) {
    return Invalid(what, ": update_window_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.update_window_dims) {
    if (d < 0 || d >= update.rank()) {
      return Invalid(what, ": update_window_dims entry ", d,
                     " is out of bounds for the updates.");
    }
  }
  if (!IsSortedStrictly(dnums.inserted_window_dims)) {
    return Invalid(what, ": inserted_window_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.inserted_window_dims) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": inserted_window_dims entry ", d,
                     " is out of bounds for the operand.");
    }
  }
  if (!IsSortedStrictly(dnums.input_batching_dims)) {
    return Invalid(what, ": input_batching_dims must be sorted and unique.");
  }
  for (int64_t d : dnums.input_batching_dims) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": input_batching_dims entry ", d,
                     " is out of bounds for the operand.");
    }
    if (Contains(dnums.inserted_window_dims, d)) {
      return Invalid(what, ": dimension ", d,
                     " is both an inserted window and a batching dimension.");
    }
  }
  if (!AllUnique(dnums.scatter_indices_batching_dims)) {
    return Invalid(what, ": scatter_indices_batching_dims must not repeat.");
  }
  for (int64_t d : dnums.scatter_indices_batching_dims) {
    if (d < 0 || d >= indices_rank) {
      return Invalid(what, ": scatter_indices_batching_dims entry ", d,
                     " is out of bounds for the indices.");
    }
    if (d == dnums.index_vector_dim) {
      return Invalid(what,
                     ": index_vector_dim must not be a scatter indices "
                     "batching dimension.");
    }
  }
  if (dnums.input_batching_dims.size() !=
      dnums.scatter_indices_batching_dims.size()) {
    return Invalid(what,
                   ": input_batching_dims and scatter_indices_batching_dims "
                   "must have the same size.");
  }
  for (size_t i = 0; i < dnums.input_batching_dims.size(); ++i) {
    const int64_t od = dnums.input_batching_dims[i];
    const int64_t id = dnums.scatter_indices_batching_dims[i];
    if (operand.dimensions(od) != indices.dimensions(id)) {
      return Invalid(what, ": operand batching dimension ", od,
                     " and indices batching dimension ", id,
                     " must have the same size.");
    }
  }
  if (static_cast<int64_t>(dnums.update_window_dims.size() +
                           dnums.inserted_window_dims.size() +
                           dnums.input_batching_dims.size()) != operand_rank) {
    return Invalid(what,
                   ": update_window_dims, inserted_window_dims and "
                   "input_batching_dims must together account for every "
                   "operand dimension.");
  }
  if (static_cast<int64_t>(dnums.scatter_dims_to_operand_dims.size()) !=
      expanded[dnums.index_vector_dim]) {
    return Invalid(what, ": scatter_dims_to_operand_dims has ",
                   dnums.scatter_dims_to_operand_dims.size(),
                   " elements but the index vector dimension has size ",
                   expanded[dnums.index_vector_dim], ".");
  }
  for (int64_t d : dnums.scatter_dims_to_operand_dims) {
    if (d < 0 || d >= operand_rank) {
      return Invalid(what, ": scatter_dims_to_operand_dims entry ", d,
                     " is out of bounds for the operand.");
    }
  }
  std::vector<int64_t> map_and_batching = dnums.scatter_dims_to_operand_dims;
  map_and_batching.insert(map_and_batching.end(),
                          dnums.input_batching_dims.begin(),
                          dnums.input_batching_dims.end());
  if (!AllUnique(map_and_batching)) {
    return Invalid(what,
                   ": scatter_dims_to_operand_dims and input_batching_dims "
                   "must not repeat a dimension.");
  }
  const int64_t expected_update_rank =
      static_cast<int64_t>(expanded.size()) - 1 +
      static_cast<int64_t>(dnums.update_window_dims.size());
  if (update.rank() != expected_update_rank) {
    return Invalid(what, ": updates must have rank ", expected_update_rank,
                   ".");
  }
  // Window dimensions of the updates fit in the operand's remaining dims.
  std::vector<int64_t> window_bounds;
  for (int64_t d = 0; d < operand_rank; ++d) {
    if (!Contains(dnums.inserted_window_dims, d) &&
        !Contains(dnums.input_batching_dims, d)) {
      window_bounds.push_back(operand.dimensions(d));
    }
  }
  for (size_t i = 0; i < dnums.update_window_dims.size(); ++i) {
    const int64_t ud = dnums.update_window_dims[i];
    if (update.dimensions(ud) > window_bounds[i]) {
      return Invalid(what, ": updates window dimension ", ud, " (size ",
                     update.dimensions(ud),
                     ") exceeds the corresponding operand dimension (size ",
                     window_bounds[i], ").");
    }
  }
  // The scatter dimensions of the updates are the indices' dimensions
  // without index_vector_dim.
  int64_t index_dim = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    if (Contains(dnums.update_window_dims, d)) continue;
    if (index_dim == dnums.index_vector_dim) ++index_dim;
    if (update.dimensions(d) != expanded[index_dim]) {
      return Invalid(what, ": updates scatter dimension ", d, " (size ",
                     update.dimensions(d),
                     ") must equal the corresponding indices dimension (size ",
                     expanded[index_dim], ").");
    }
    ++index_dim;
  }
  std::vector<Shape> inits;
  std::vector<PrimitiveType> update_types;
  for (int64_t i = 0; i < n; ++i) {
    inits.push_back(MakeArray(operands[i]->element_type(), {}));
    update_types.push_back(updates[i]->element_type());
  }
  std::vector<const Shape*> init_ptrs;
  for (const Shape& s : inits) init_ptrs.push_back(&s);
  absl::Status reducer_status = internal::VerifyReducerShape(
      "scatter", to_apply, init_ptrs, update_types, n);
  if (!reducer_status.ok()) {
    return Invalid(what, ": ", reducer_status.message());
  }
  if (n == 1) return NoLayout(operand);
  std::vector<Shape> parts;
  for (const Shape* s : operands) parts.push_back(NoLayout(*s));
  return Shape(std::move(parts));
}

absl::StatusOr<Shape> InferIotaShape(const Shape& declared,
                                     int64_t iota_dimension) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(declared, "result of iota"));
  if (declared.rank() == 0) {
    return Invalid("iota does not support scalars: ", Str(declared), ".");
  }
  if (iota_dimension < 0 || iota_dimension >= declared.rank()) {
    return Invalid("iota_dimension ", iota_dimension, " is out of range for ",
                   Str(declared), ".");
  }
  const PrimitiveType t = declared.element_type();
  if (!IsIntegral(t) && !IsFloating(t) && !IsComplex(t)) {
    return Invalid(
        "iota supports integral, floating point and complex "
        "types; got ",
        Str(declared), ".");
  }
  for (int64_t d : declared.dimensions()) {
    if (d < 0) {
      return Invalid("iota with a negative dimension: ", Str(declared), ".");
    }
  }
  return NoLayout(declared);
}

absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand,
                                                 int64_t dimension) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of get-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid("get-dimension-size dimension ", dimension,
                   " is out of bounds for ", Str(operand), ".");
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return Invalid("get-dimension-size: dimension ", dimension, " of ",
                   Str(operand), " exceeds the s32 range.");
  }
  return MakeArray(PrimitiveType::S32, {});
}

absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand,
                                                 const Shape& size,
                                                 int64_t dimension) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of set-dimension-size"));
  if (dimension < 0 || dimension >= operand.rank()) {
    return Invalid("set-dimension-size dimension ", dimension,
                   " is out of bounds for ", Str(operand), ".");
  }
  if (!size.IsArray() || size.rank() != 0 ||
      size.element_type() != PrimitiveType::S32) {
    return Invalid("set-dimension-size: the size has to be an s32 scalar, got ",
                   Str(size), ".");
  }
  if (operand.dimensions(dimension) > std::numeric_limits<int32_t>::max()) {
    return Invalid("set-dimension-size: dimension ", dimension, " of ",
                   Str(operand), " exceeds the s32 range.");
  }
  Shape out = operand;
  out.clear_layout();
  out.set_dynamic_dimension(dimension, true);
  return out;
}

absl::StatusOr<Shape> InferDynamicReshapeShape(
    const Shape& operand, absl::Span<const Shape* const> sizes,
    const Shape& declared) {
  PLEXA_RETURN_IF_ERROR(ExpectArray(operand, "operand of dynamic-reshape"));
  PLEXA_RETURN_IF_ERROR(ExpectArray(declared, "dynamic-reshape"));
  if (static_cast<int64_t>(sizes.size()) != declared.rank()) {
    return Invalid("dynamic-reshape to ", Str(declared), " needs ",
                   declared.rank(), " size operand(s), one per dimension; got ",
                   sizes.size(), ".");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!sizes[i]->IsArray() || sizes[i]->rank() != 0 ||
        sizes[i]->element_type() != PrimitiveType::S32) {
      return Invalid("dynamic-reshape: size operand ", i + 1,
                     " has to be an s32 scalar, got ", Str(*sizes[i]), ".");
    }
  }
  if (declared.element_type() != operand.element_type()) {
    return Invalid("dynamic-reshape of ", Str(operand), " to ", Str(declared),
                   ": the element types differ.");
  }
  if (ElementCount(operand) != ElementCount(declared)) {
    return Invalid("dynamic-reshape has mismatched element counts: from=",
                   ElementCount(operand), " (", Str(operand),
                   ") to=", ElementCount(declared), " (", Str(declared), ").");
  }
  return NoLayout(declared);
}

}  // namespace plexa::shape_inference
