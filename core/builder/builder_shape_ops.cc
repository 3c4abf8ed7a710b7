// Shape manipulation: broadcast, reshape, collapse, transpose, reverse,
// concatenate, slices, pad, gather, scatter, get-dimension-size.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "core/builder/builder.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {

using builder_internal::DimsToString;
using builder_internal::ShapesOf;

namespace {

absl::Status ExpectArray(const Shape& shape, absl::string_view what) {
  if (shape.IsArray()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " must be an array, got ", shape.ToString()));
}

}  // namespace

Op Builder::Broadcast(Op operand, absl::Span<const int64_t> broadcast_sizes) {
  return Emit("Broadcast", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Shape result,
                           shape_inference::InferBroadcastWithSizesShape(
                               o->shape(), broadcast_sizes));
    // The operand's dimensions are the result's last ones.
    std::vector<int64_t> dims;
    const int64_t n = static_cast<int64_t>(broadcast_sizes.size());
    for (int64_t i = 0; i < o->shape().rank(); ++i) dims.push_back(n + i);
    return AddBroadcast(o, result.dimensions(), dims);
  });
}

Op Builder::BroadcastInDim(Op operand, absl::Span<const int64_t> out_dimensions,
                           absl::Span<const int64_t> broadcast_dimensions) {
  return Emit("BroadcastInDim", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    const Shape& s = o->shape();
    PLEXA_RETURN_IF_ERROR(ExpectArray(s, "operand"));
    const int64_t out_rank = static_cast<int64_t>(out_dimensions.size());
    if (static_cast<int64_t>(broadcast_dimensions.size()) != s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "broadcast_dimensions ", DimsToString(broadcast_dimensions),
          " must have one entry per dimension of the operand ", s.ToString()));
    }
    // Size-1 operand dimensions may grow (today's XLA); the HLO broadcast
    // gets them removed first by a reshape.
    std::vector<int64_t> kept_sizes;
    std::vector<int64_t> kept_dims;
    for (int64_t i = 0; i < s.rank(); ++i) {
      const int64_t d = broadcast_dimensions[i];
      if (d < 0 || d >= out_rank) {
        return absl::InvalidArgumentError(absl::StrCat(
            "broadcast dimension ", d, " is out of range for the output ",
            DimsToString(out_dimensions), " (operand ", s.ToString(), ")"));
      }
      if (i > 0 && broadcast_dimensions[i - 1] >= d) {
        return absl::InvalidArgumentError(absl::StrCat(
            "broadcast_dimensions ", DimsToString(broadcast_dimensions),
            " must be strictly increasing"));
      }
      if (s.dimensions(i) == out_dimensions[d]) {
        kept_sizes.push_back(s.dimensions(i));
        kept_dims.push_back(d);
      } else if (s.dimensions(i) != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "operand ", s.ToString(), " dimension ", i, " (size ",
            s.dimensions(i), ") cannot broadcast to output dimension ", d,
            " of ", DimsToString(out_dimensions), " (size ", out_dimensions[d],
            ")"));
      }
    }
    if (static_cast<int64_t>(kept_sizes.size()) == s.rank()) {
      return AddBroadcast(o, out_dimensions, broadcast_dimensions);
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * reshaped, AddReshape(o, kept_sizes));
    return AddBroadcast(reshaped, out_dimensions, kept_dims);
  });
}

Op Builder::Reshape(Op operand, absl::Span<const int64_t> new_sizes) {
  return Emit("Reshape", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    return AddReshape(o, new_sizes);
  });
}

Op Builder::Reshape(Op operand, absl::Span<const int64_t> dimensions,
                    absl::Span<const int64_t> new_sizes) {
  return Emit("Reshape", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    bool identity = true;
    for (size_t i = 0; i < dimensions.size(); ++i) {
      identity = identity && dimensions[i] == static_cast<int64_t>(i);
    }
    Instruction* x = o;
    if (!identity ||
        static_cast<int64_t>(dimensions.size()) != o->shape().rank()) {
      // The seed collapses in `dimensions` order: transpose first (shape
      // inference rejects a non-permutation).
      PLEXA_ASSIGN_OR_RETURN(x, AddTranspose(o, dimensions));
    }
    return AddReshape(x, new_sizes);
  });
}

Op Builder::Collapse(Op operand, absl::Span<const int64_t> dimensions) {
  return Emit("Collapse", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    const Shape& s = o->shape();
    PLEXA_RETURN_IF_ERROR(ExpectArray(s, "operand"));
    for (size_t i = 0; i < dimensions.size(); ++i) {
      if (dimensions[i] < 0 || dimensions[i] >= s.rank()) {
        return absl::InvalidArgumentError(
            absl::StrCat("dimension ", dimensions[i], " is out of range for ",
                         s.ToString()));
      }
      if (i > 0 && dimensions[i] != dimensions[i - 1] + 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "dimensions ", DimsToString(dimensions),
            " must be consecutive and in order (operand ", s.ToString(), ")"));
      }
    }
    // Nothing to collapse: the operand itself.
    if (dimensions.size() <= 1) return o;
    std::vector<int64_t> sizes;
    int64_t product = 1;
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (i < dimensions.front() || i > dimensions.back()) {
        sizes.push_back(s.dimensions(i));
      } else {
        product *= s.dimensions(i);
        if (i == dimensions.back()) sizes.push_back(product);
      }
    }
    return AddReshape(o, sizes);
  });
}

Op Builder::Transpose(Op operand, absl::Span<const int64_t> permutation) {
  return Emit("Transpose", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    return AddTranspose(o, permutation);
  });
}

Op Builder::Rev(Op operand, absl::Span<const int64_t> dimensions) {
  return Emit("Rev", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferReverseShape(
                                             o->shape(), dimensions));
    InstructionAttrs attrs;
    attrs.dimensions.assign(dimensions.begin(), dimensions.end());
    return AddInstruction(HloOpcode::kReverse, std::move(result), {o},
                          std::move(attrs));
  });
}

Op Builder::ConcatInDim(absl::Span<const Op> operands, int64_t dimension) {
  return Emit("ConcatInDim", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(operands));
    PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferConcatenateShape(
                                             ShapesOf(ops), dimension));
    InstructionAttrs attrs;
    attrs.dimensions = {dimension};
    return AddInstruction(HloOpcode::kConcatenate, std::move(result), ops,
                          std::move(attrs));
  });
}

Op Builder::Slice(Op operand, absl::Span<const int64_t> start_indices,
                  absl::Span<const int64_t> limit_indices,
                  absl::Span<const int64_t> strides) {
  return Emit("Slice", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    if (start_indices.size() != limit_indices.size() ||
        (!strides.empty() && strides.size() != start_indices.size())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "start indices ", DimsToString(start_indices), ", limit indices ",
          DimsToString(limit_indices), " and strides ", DimsToString(strides),
          " must have the same length (operand ", o->shape().ToString(), ")"));
    }
    std::vector<SliceDimension> slice;
    for (size_t i = 0; i < start_indices.size(); ++i) {
      slice.push_back({start_indices[i], limit_indices[i],
                       strides.empty() ? 1 : strides[i]});
    }
    return AddSlice(o, std::move(slice));
  });
}

Op Builder::SliceInDim(Op operand, int64_t start_index, int64_t limit_index,
                       int64_t stride, int64_t dimno) {
  return Emit("SliceInDim", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    const Shape& s = o->shape();
    PLEXA_RETURN_IF_ERROR(ExpectArray(s, "operand"));
    if (dimno < 0 || dimno >= s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dimension ", dimno, " is out of range for ", s.ToString()));
    }
    std::vector<SliceDimension> slice;
    for (int64_t i = 0; i < s.rank(); ++i) {
      if (i == dimno) {
        slice.push_back({start_index, limit_index, stride});
      } else {
        slice.push_back({0, s.dimensions(i), 1});
      }
    }
    return AddSlice(o, std::move(slice));
  });
}

absl::StatusOr<Instruction*> Builder::AddDynamicSlice(
    Instruction* operand, std::vector<Instruction*> start_indices,
    absl::Span<const int64_t> slice_sizes) {
  PLEXA_ASSIGN_OR_RETURN(
      Shape result,
      shape_inference::InferDynamicSliceShape(
          operand->shape(), ShapesOf(start_indices), slice_sizes));
  InstructionAttrs attrs;
  attrs.dynamic_slice_sizes.assign(slice_sizes.begin(), slice_sizes.end());
  std::vector<Instruction*> operands = {operand};
  operands.insert(operands.end(), start_indices.begin(), start_indices.end());
  return AddInstruction(HloOpcode::kDynamicSlice, std::move(result), operands,
                        std::move(attrs));
}

absl::StatusOr<std::vector<Instruction*>> Builder::SplitIndexVector(
    Instruction* indices) {
  const Shape& s = indices->shape();
  if (!s.IsArray() || s.rank() != 1 ||
      !primitive_util::IsIntegralType(s.element_type())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "start indices must be a rank-1 integer array, got ", s.ToString()));
  }
  std::vector<Instruction*> scalars;
  for (int64_t i = 0; i < s.dimensions(0); ++i) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * one,
                           AddSlice(indices, {{i, i + 1, 1}}));
    PLEXA_ASSIGN_OR_RETURN(Instruction * scalar, AddReshape(one, {}));
    scalars.push_back(scalar);
  }
  return scalars;
}

Op Builder::DynamicSlice(Op operand, absl::Span<const Op> start_indices,
                         absl::Span<const int64_t> slice_sizes) {
  return Emit("DynamicSlice", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> starts,
                           ResolveAll(start_indices));
    return AddDynamicSlice(o, std::move(starts), slice_sizes);
  });
}

Op Builder::DynamicSliceWithIndexVector(Op operand, Op start_indices,
                                        absl::Span<const int64_t> slice_sizes) {
  return Emit("DynamicSlice", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * v, Resolve(start_indices));
    if (v->shape().IsArray() && v->shape().rank() == 1 &&
        o->shape().IsArray() && v->shape().dimensions(0) != o->shape().rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("start indices ", v->shape().ToString(),
                       " must have one entry per dimension of the operand ",
                       o->shape().ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> starts,
                           SplitIndexVector(v));
    return AddDynamicSlice(o, std::move(starts), slice_sizes);
  });
}

absl::StatusOr<Instruction*> Builder::AddDynamicUpdateSlice(
    Instruction* operand, Instruction* update,
    std::vector<Instruction*> start_indices) {
  PLEXA_ASSIGN_OR_RETURN(
      Shape result,
      shape_inference::InferDynamicUpdateSliceShape(
          operand->shape(), update->shape(), ShapesOf(start_indices)));
  std::vector<Instruction*> operands = {operand, update};
  operands.insert(operands.end(), start_indices.begin(), start_indices.end());
  return AddInstruction(HloOpcode::kDynamicUpdateSlice, std::move(result),
                        operands);
}

Op Builder::DynamicUpdateSlice(Op operand, Op update,
                               absl::Span<const Op> start_indices) {
  return Emit("DynamicUpdateSlice", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * u, Resolve(update));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> starts,
                           ResolveAll(start_indices));
    return AddDynamicUpdateSlice(o, u, std::move(starts));
  });
}

Op Builder::DynamicUpdateSliceWithIndexVector(Op operand, Op update,
                                              Op start_indices) {
  return Emit("DynamicUpdateSlice", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * u, Resolve(update));
    PLEXA_ASSIGN_OR_RETURN(Instruction * v, Resolve(start_indices));
    if (v->shape().IsArray() && v->shape().rank() == 1 &&
        o->shape().IsArray() && v->shape().dimensions(0) != o->shape().rank()) {
      return absl::InvalidArgumentError(
          absl::StrCat("start indices ", v->shape().ToString(),
                       " must have one entry per dimension of the operand ",
                       o->shape().ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> starts,
                           SplitIndexVector(v));
    return AddDynamicUpdateSlice(o, u, std::move(starts));
  });
}

Op Builder::Pad(Op operand, Op padding_value,
                const PaddingConfig& padding_config) {
  return Emit("Pad", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * v, Resolve(padding_value));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferPadShape(o->shape(), v->shape(), padding_config));
    InstructionAttrs attrs;
    attrs.padding_config = padding_config;
    return AddInstruction(HloOpcode::kPad, std::move(result), {o, v},
                          std::move(attrs));
  });
}

Op Builder::Gather(Op operand, Op start_indices,
                   const GatherDimensionNumbers& dimension_numbers,
                   absl::Span<const int64_t> slice_sizes,
                   bool indices_are_sorted) {
  return Emit("Gather", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * i, Resolve(start_indices));
    PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferGatherShape(
                                             o->shape(), i->shape(),
                                             dimension_numbers, slice_sizes));
    InstructionAttrs attrs;
    attrs.gather_dimension_numbers = dimension_numbers;
    attrs.gather_slice_sizes.assign(slice_sizes.begin(), slice_sizes.end());
    attrs.indices_are_sorted = indices_are_sorted;
    return AddInstruction(HloOpcode::kGather, std::move(result), {o, i},
                          std::move(attrs));
  });
}

Op Builder::Scatter(Op operand, Op scatter_indices, Op updates,
                    const Computation* update_computation,
                    const ScatterDimensionNumbers& dimension_numbers,
                    bool indices_are_sorted, bool unique_indices) {
  return Scatter(absl::Span<const Op>(&operand, 1), scatter_indices,
                 absl::Span<const Op>(&updates, 1), update_computation,
                 dimension_numbers, indices_are_sorted, unique_indices);
}

Op Builder::Scatter(absl::Span<const Op> operands, Op scatter_indices,
                    absl::Span<const Op> updates,
                    const Computation* update_computation,
                    const ScatterDimensionNumbers& dimension_numbers,
                    bool indices_are_sorted, bool unique_indices) {
  return Emit("Scatter", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(update_computation, "update"));
    if (operands.empty() || operands.size() != updates.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "needs N >= 1 operands and as many updates, got ", operands.size(),
          " operands and ", updates.size(), " updates"));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> all, ResolveAll(operands));
    PLEXA_ASSIGN_OR_RETURN(Instruction * idx, Resolve(scatter_indices));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ups, ResolveAll(updates));
    all.push_back(idx);
    all.insert(all.end(), ups.begin(), ups.end());
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferScatterShape(
            ShapesOf(all), update_computation->ComputeProgramShape(),
            dimension_numbers));
    InstructionAttrs attrs;
    attrs.scatter_dimension_numbers = dimension_numbers;
    attrs.indices_are_sorted = indices_are_sorted;
    attrs.unique_indices = unique_indices;
    return AddInstruction(HloOpcode::kScatter, std::move(result), all,
                          std::move(attrs),
                          {const_cast<Computation*>(update_computation)});
  });
}

Op Builder::GetDimensionSize(Op operand, int64_t dimension) {
  return Emit("GetDimensionSize", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferGetDimensionSizeShape(o->shape(), dimension));
    InstructionAttrs attrs;
    attrs.dimensions = {dimension};
    return AddInstruction(HloOpcode::kGetDimensionSize, std::move(result), {o},
                          std::move(attrs));
  });
}

}  // namespace plexa
