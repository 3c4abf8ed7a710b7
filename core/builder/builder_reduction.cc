// Reductions and windows: reduce, reduce-window, select-and-scatter, sort.
#include "absl/strings/str_cat.h"
#include "core/builder/builder.h"
#include "core/builder/builder_internal.h"
#include "core/infer/shape_inference.h"
#include "core/shape/shape_util.h"

namespace plexa {

using builder_internal::DefaultOnes;
using builder_internal::DimsToString;
using builder_internal::MakeWindow;
using builder_internal::ShapesOf;

namespace {

absl::Status CheckSameLength(absl::Span<const int64_t> a, absl::string_view an,
                             absl::Span<const int64_t> b,
                             absl::string_view bn) {
  if (a.size() == b.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(an, " ", DimsToString(a), " and ", bn, " ", DimsToString(b),
                   " must have the same length"));
}

}  // namespace

// ---- Reduce
// --------------------------------------------------------------------

Op Builder::Reduce(Op operand, Op init_value, const Computation* computation,
                   absl::Span<const int64_t> dimensions_to_reduce) {
  return Reduce(absl::Span<const Op>(&operand, 1),
                absl::Span<const Op>(&init_value, 1), computation,
                dimensions_to_reduce);
}

Op Builder::Reduce(absl::Span<const Op> operands,
                   absl::Span<const Op> init_values,
                   const Computation* computation,
                   absl::Span<const int64_t> dimensions_to_reduce) {
  return Emit("Reduce", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(computation, "reduction"));
    if (operands.empty() || operands.size() != init_values.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("needs N >= 1 operands and as many init values, got ",
                       operands.size(), " operands and ", init_values.size(),
                       " init values"));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> all, ResolveAll(operands));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> inits,
                           ResolveAll(init_values));
    all.insert(all.end(), inits.begin(), inits.end());
    PLEXA_ASSIGN_OR_RETURN(
        Shape result,
        shape_inference::InferReduceShape(ShapesOf(all), dimensions_to_reduce,
                                          computation->ComputeProgramShape()));
    InstructionAttrs attrs;
    attrs.dimensions.assign(dimensions_to_reduce.begin(),
                            dimensions_to_reduce.end());
    return AddInstruction(HloOpcode::kReduce, std::move(result), all,
                          std::move(attrs),
                          {const_cast<Computation*>(computation)});
  });
}

Op Builder::ReduceAll(Op operand, Op init_value,
                      const Computation* computation) {
  return Emit("ReduceAll", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    if (!o->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the operand must be an array, got ", o->shape().ToString()));
    }
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < o->shape().rank(); ++i) dims.push_back(i);
    return Nested(Reduce(operand, init_value, computation, dims));
  });
}

// ---- Reduce window
// -------------------------------------------------------------

absl::StatusOr<Instruction*> Builder::AddReduceWindow(
    std::vector<Instruction*> operands_and_inits,
    const Computation* computation, Window window) {
  PLEXA_RETURN_IF_ERROR(CheckComputation(computation, "reduction"));
  PLEXA_ASSIGN_OR_RETURN(Shape result, shape_inference::InferReduceWindowShape(
                                           ShapesOf(operands_and_inits), window,
                                           computation->ComputeProgramShape()));
  InstructionAttrs attrs;
  attrs.window = std::move(window);
  return AddInstruction(HloOpcode::kReduceWindow, std::move(result),
                        operands_and_inits, std::move(attrs),
                        {const_cast<Computation*>(computation)});
}

Op Builder::ReduceWindow(Op operand, Op init_value,
                         const Computation* computation,
                         absl::Span<const int64_t> window_dimensions,
                         absl::Span<const int64_t> window_strides,
                         Padding padding) {
  return Emit("ReduceWindow", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * init, Resolve(init_value));
    const Shape& s = o->shape();
    if (!s.IsArray() ||
        static_cast<int64_t>(window_dimensions.size()) != s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "window dimensions ", DimsToString(window_dimensions),
          " must have one entry per dimension of the operand ", s.ToString()));
    }
    PLEXA_RETURN_IF_ERROR(CheckSameLength(window_dimensions,
                                          "window dimensions", window_strides,
                                          "window strides"));
    PLEXA_ASSIGN_OR_RETURN(auto pads,
                           MakePadding(s.dimensions(), window_dimensions,
                                       window_strides, padding));
    const std::vector<int64_t> ones(window_dimensions.size(), 1);
    return AddReduceWindow(
        {o, init}, computation,
        MakeWindow(window_dimensions, window_strides, pads, ones, ones));
  });
}

Op Builder::ReduceWindowWithGeneralPadding(
    absl::Span<const Op> operands, absl::Span<const Op> init_values,
    const Computation* computation, absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const int64_t> base_dilations,
    absl::Span<const int64_t> window_dilations,
    absl::Span<const std::pair<int64_t, int64_t>> padding) {
  return Emit("ReduceWindow", [&]() -> absl::StatusOr<Instruction*> {
    if (operands.empty() || operands.size() != init_values.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("needs N >= 1 operands and as many init values, got ",
                       operands.size(), " operands and ", init_values.size(),
                       " init values"));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> all, ResolveAll(operands));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> inits,
                           ResolveAll(init_values));
    all.insert(all.end(), inits.begin(), inits.end());
    const int64_t n = static_cast<int64_t>(window_dimensions.size());
    PLEXA_RETURN_IF_ERROR(CheckSameLength(window_dimensions,
                                          "window dimensions", window_strides,
                                          "window strides"));
    if (static_cast<int64_t>(padding.size()) != n) {
      return absl::InvalidArgumentError(
          absl::StrCat("padding has ", padding.size(), " entries for ", n,
                       " window dimensions"));
    }
    PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> base,
                           DefaultOnes(base_dilations, n, "base dilations"));
    PLEXA_ASSIGN_OR_RETURN(
        std::vector<int64_t> win,
        DefaultOnes(window_dilations, n, "window dilations"));
    return AddReduceWindow(
        std::move(all), computation,
        MakeWindow(window_dimensions, window_strides, padding, base, win));
  });
}

// ---- Select and scatter
// -----------------------------------------------------------

absl::StatusOr<Instruction*> Builder::AddSelectAndScatter(
    Instruction* operand, const Computation* select, Window window,
    Instruction* source, Instruction* init_value, const Computation* scatter) {
  PLEXA_RETURN_IF_ERROR(CheckComputation(select, "select"));
  PLEXA_RETURN_IF_ERROR(CheckComputation(scatter, "scatter"));
  PLEXA_ASSIGN_OR_RETURN(
      Shape result, shape_inference::InferSelectAndScatterShape(
                        operand->shape(), select->ComputeProgramShape(), window,
                        source->shape(), init_value->shape(),
                        scatter->ComputeProgramShape()));
  InstructionAttrs attrs;
  attrs.window = std::move(window);
  return AddInstruction(
      HloOpcode::kSelectAndScatter, std::move(result),
      {operand, source, init_value}, std::move(attrs),
      {const_cast<Computation*>(select), const_cast<Computation*>(scatter)});
}

Op Builder::SelectAndScatter(Op operand, const Computation* select,
                             absl::Span<const int64_t> window_dimensions,
                             absl::Span<const int64_t> window_strides,
                             Padding padding, Op source, Op init_value,
                             const Computation* scatter) {
  return Emit("SelectAndScatter", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * src, Resolve(source));
    PLEXA_ASSIGN_OR_RETURN(Instruction * init, Resolve(init_value));
    const Shape& s = o->shape();
    if (!s.IsArray() ||
        static_cast<int64_t>(window_dimensions.size()) != s.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "window dimensions ", DimsToString(window_dimensions),
          " must have one entry per dimension of the operand ", s.ToString()));
    }
    PLEXA_RETURN_IF_ERROR(CheckSameLength(window_dimensions,
                                          "window dimensions", window_strides,
                                          "window strides"));
    PLEXA_ASSIGN_OR_RETURN(auto pads,
                           MakePadding(s.dimensions(), window_dimensions,
                                       window_strides, padding));
    const std::vector<int64_t> ones(window_dimensions.size(), 1);
    return AddSelectAndScatter(
        o, select,
        MakeWindow(window_dimensions, window_strides, pads, ones, ones), src,
        init, scatter);
  });
}

Op Builder::SelectAndScatterWithGeneralPadding(
    Op operand, const Computation* select,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides,
    absl::Span<const std::pair<int64_t, int64_t>> padding, Op source,
    Op init_value, const Computation* scatter) {
  return Emit("SelectAndScatter", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    PLEXA_ASSIGN_OR_RETURN(Instruction * src, Resolve(source));
    PLEXA_ASSIGN_OR_RETURN(Instruction * init, Resolve(init_value));
    PLEXA_RETURN_IF_ERROR(CheckSameLength(window_dimensions,
                                          "window dimensions", window_strides,
                                          "window strides"));
    if (padding.size() != window_dimensions.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("padding has ", padding.size(), " entries for ",
                       window_dimensions.size(), " window dimensions"));
    }
    const std::vector<int64_t> ones(window_dimensions.size(), 1);
    return AddSelectAndScatter(
        o, select,
        MakeWindow(window_dimensions, window_strides, padding, ones, ones), src,
        init, scatter);
  });
}

// ---- Sort
// -------------------------------------------------------------------------

Op Builder::Sort(absl::Span<const Op> operands, const Computation* comparator,
                 int64_t dimension, bool is_stable) {
  return Emit("Sort", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_RETURN_IF_ERROR(CheckComputation(comparator, "comparator"));
    PLEXA_ASSIGN_OR_RETURN(std::vector<Instruction*> ops, ResolveAll(operands));
    if (ops.empty()) {
      return absl::InvalidArgumentError("needs at least one operand");
    }
    const Shape& first = ops[0]->shape();
    if (!first.IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat("operands must be arrays, got ", first.ToString()));
    }
    int64_t d = dimension;
    if (d < 0) d += first.rank();
    PLEXA_ASSIGN_OR_RETURN(
        Shape result, shape_inference::InferSortShape(
                          ShapesOf(ops), d, comparator->ComputeProgramShape()));
    InstructionAttrs attrs;
    attrs.dimensions = {d};
    attrs.is_stable = is_stable;
    return AddInstruction(HloOpcode::kSort, std::move(result), ops,
                          std::move(attrs),
                          {const_cast<Computation*>(comparator)});
  });
}

Op Builder::Sort(Op operand) {
  return Emit("Sort", [&]() -> absl::StatusOr<Instruction*> {
    PLEXA_ASSIGN_OR_RETURN(Instruction * o, Resolve(operand));
    if (!o->shape().IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the operand must be an array, got ", o->shape().ToString()));
    }
    PLEXA_ASSIGN_OR_RETURN(
        Computation * lt, ScalarLessThanComputation(o->shape().element_type()));
    return Nested(Sort(absl::Span<const Op>(&operand, 1), lt, -1, false));
  });
}

}  // namespace plexa
