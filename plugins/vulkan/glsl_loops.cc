// Values that loop over their operands: reduce, reduce-window, dot,
// convolution, gather, scatter (the GLSL function of one result element).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/infer/shape_inference.h"
#include "core/ir/window_util.h"
#include "core/shape/shape_util.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {
namespace {

// acc += a * b, in the result type (pred: acc = acc || (a && b)).
std::string Accumulate(PrimitiveType t, const std::string& a,
                       const std::string& b) {
  if (t == PrimitiveType::PRED) {
    return absl::StrCat("acc = acc || (", a, " && ", b, ");\n");
  }
  if (IsComplex(t)) return absl::StrCat("acc += cmul(", a, ", ", b, ");\n");
  return absl::StrCat("acc += ", a, " * ", b, ";\n");
}

}  // namespace

absl::Status Emitter::CheckLoop(const Instruction& x,
                                int64_t iterations) const {
  if (f_.max_loop_iterations > 0 && iterations > f_.max_loop_iterations) {
    return NoCode(x, absl::StrCat("a loop of ", iterations,
                                  " iterations per invocation: this device "
                                  "stops an invocation's loops after ",
                                  f_.max_loop_iterations, " iterations"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Emitter::Reduce(const Instruction& x,
                                            const Idx& idx) {
  // N inputs and N initial values; N > 1 (variadic) accumulates a struct
  // with the reducer's N results (TypeOf).
  const int64_t n = x.operand_count() / 2;
  const Instruction& in = *x.operand(0);
  absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
  if (!fn.ok()) return fn.status();
  absl::StatusOr<std::string> type = TypeOf(x, x.shape());
  if (!type.ok()) return type.status();
  std::vector<std::string> inits, accs;
  for (int64_t k = 0; k < n; ++k) {
    absl::StatusOr<std::string> init = Call(*x.operand(n + k), {});
    if (!init.ok()) return init.status();
    inits.push_back(*init);
    accs.push_back(n == 1 ? "acc" : absl::StrCat("acc.f", k));
  }
  std::string body = absl::StrCat(
      "  ", *type, " acc = ",
      n == 1 ? inits[0]
             : absl::StrCat(*type, "(", absl::StrJoin(inits, ", "), ")"),
      ";\n");
  Idx j(in.shape().rank());
  std::vector<bool> reduced(in.shape().rank(), false);
  int64_t trips = 1;
  for (int64_t d : x.dimensions()) {
    reduced[d] = true;
    trips *= in.shape().dimensions(d);
  }
  if (absl::Status s = CheckLoop(x, trips); !s.ok()) return s;
  int64_t k = 0;
  for (int64_t d = 0; d < in.shape().rank(); ++d) {
    if (reduced[d]) {
      j[d] = absl::StrCat("r", d);
      absl::StrAppend(&body, "  for (int r", d, " = 0; r", d, " < ",
                      in.shape().dimensions(d), "; ++r", d, ")\n");
    } else {
      j[d] = idx[k++];
    }
  }
  std::vector<std::string> values;
  for (int64_t k = 0; k < n; ++k) {
    absl::StatusOr<std::string> v = Call(*x.operand(k), j);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  absl::StrAppend(&body, "    acc = ", *fn, "(", absl::StrJoin(accs, ", "),
                  ", ", absl::StrJoin(values, ", "), ");\n", "  return acc;\n");
  return body;
}

absl::StatusOr<std::string> Emitter::ReduceWindow(const Instruction& x,
                                                  const Idx& idx) {
  if (x.operand_count() != 2 || !x.shape().IsArray() ||
      !x.attrs().window.has_value()) {
    return NoCode(x, "a variadic reduce-window");
  }
  const Instruction& in = *x.operand(0);
  const Window& w = WindowOf(x);
  {
    int64_t trips = 1;
    for (const WindowDimension& wd : w.dimensions) trips *= wd.size;
    if (absl::Status s = CheckLoop(x, trips); !s.ok()) return s;
  }
  absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
  if (!fn.ok()) return fn.status();
  absl::StatusOr<std::string> init = Call(*x.operand(1), {});
  if (!init.ok()) return init.status();
  const PrimitiveType t = x.shape().element_type();
  std::string body = absl::StrCat("  ", Reg(t), " acc = ", *init, ";\n");
  Idx j;
  std::string cond = "true";
  for (int64_t d = 0; d < in.shape().rank(); ++d) {
    const WindowDimension& wd = w.dimensions[d];
    absl::StrAppend(&body, "  for (int w", d, " = 0; w", d, " < ", wd.size,
                    "; ++w", d, ") {\n");
    const std::string wi = wd.window_reversal
                               ? absl::StrCat(wd.size - 1, " - w", d)
                               : absl::StrCat("w", d);
    absl::StrAppend(&body, "  int b", d, " = ", idx[d], " * ", wd.stride, " - ",
                    wd.padding_low, " + (", wi, ") * ", wd.window_dilation,
                    ";\n");
    if (wd.base_dilation > 1) {
      absl::StrAppend(&cond, " && b", d, " >= 0 && b", d, " % ",
                      wd.base_dilation, " == 0");
      absl::StrAppend(&body, "  int j", d, " = b", d, " / ", wd.base_dilation,
                      ";\n");
    } else {
      absl::StrAppend(&body, "  int j", d, " = b", d, ";\n");
    }
    absl::StrAppend(&cond, " && j", d, " >= 0 && j", d, " < ",
                    in.shape().dimensions(d));
    j.push_back(absl::StrCat("j", d));
  }
  absl::StatusOr<std::string> v = Call(in, j);
  if (!v.ok()) return v.status();
  absl::StrAppend(&body, "  if (", cond, ") acc = ", *fn, "(acc, ", *v, ");\n");
  for (int64_t d = 0; d < in.shape().rank(); ++d)
    absl::StrAppend(&body, "  }\n");
  absl::StrAppend(&body, "  return acc;\n");
  return body;
}

absl::StatusOr<std::string> Emitter::DotOperand(const Instruction& x, int64_t i,
                                                const Idx& j) {
  const PrimitiveType t = x.shape().element_type();
  const Instruction& op = *x.operand(i);
  const PrimitiveType ot = op.shape().element_type();
  absl::StatusOr<std::string> v = Call(op, j);
  if (!v.ok()) return v.status();
  if (x.opcode() != HloOpcode::kScaledDot ||
      x.operand(2 + i)->shape().rank() == 0) {
    return Convert(x, ot, t, *v);  // a scalar scale is none
  }
  // scaled-dot, as XLA's ScaledDotRewriter and the evaluator: the operand
  // and its scale's element for the block both in the product type, one
  // rounding of their product there, then the dot.
  const Instruction& scale = *x.operand(2 + i);
  const Shape& ss = scale.shape();
  const Shape& os = op.shape();
  if (ss.rank() != os.rank()) {
    return NoCode(x, "a scale of another rank than its operand");
  }
  const PrimitiveType pt =
      shape_inference::ScaledDotProductType(ot, ss.element_type());
  if (!IsFloat(pt)) return NoCode(x, "a scaled-dot of integers");
  if (absl::Status s = UseType(x, pt); !s.ok()) return s;
  Idx q(j.size());
  for (size_t d = 0; d < j.size(); ++d) {
    const int64_t n = ss.dimensions(d);
    if (n == 0 || os.dimensions(d) % n != 0) {
      return NoCode(x, "a scale that does not divide its operand");
    }
    const int64_t block = os.dimensions(d) / n;
    q[d] = block == 1 ? j[d] : absl::StrCat("(", j[d], ") / ", block);
  }
  absl::StatusOr<std::string> sv = Call(scale, q);
  if (!sv.ok()) return sv.status();
  absl::StatusOr<std::string> a = Convert(x, ot, pt, *v);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> b = Convert(x, ss.element_type(), pt, *sv);
  if (!b.ok()) return b.status();
  return Convert(x, pt, t, Round(pt, absl::StrCat("(", *a, " * ", *b, ")")));
}

absl::StatusOr<std::string> Emitter::Dot(const Instruction& x,
                                         const Idx& result_idx) {
  if (!x.attrs().dot_sparsity.empty()) {
    // The default pipeline's sparse-dot-expander leaves none.
    return NoCode(x, "a sparse dot (metadata operand)");
  }
  const DotDimensionNumbers& dn = *x.attrs().dot_dimension_numbers;
  const Instruction& lhs = *x.operand(0);
  const Instruction& rhs = *x.operand(1);
  const PrimitiveType t = x.shape().element_type();
  int64_t k_trips = 1;
  for (int64_t d : dn.lhs_contracting_dimensions) {
    k_trips *= lhs.shape().dimensions(d);
  }

  // ragged-dot (core/eval/ragged_dot.cc has the semantics): group g of a
  // group_sizes row covers the ragged indices [start_g, end_g), start_g the
  // running sum of the sizes before it (64 bits, wrapping, where the device
  // has them); the row is group_sizes' index at its prefix dimensions
  // (shape_inference::RaggedDotGroupSizesPrefix), lhs dimensions whose
  // loop variables or result indices are at hand where the bounds are
  // computed. The batch mode reads no sizes: it is the plain dot.
  using shape_inference::RaggedDotMode;
  RaggedDotMode mode = RaggedDotMode::kBatch;
  int64_t ragged = -1, groups = 0;
  std::vector<int64_t> prefix;
  const Instruction* sizes = nullptr;
  std::string sum_t = "int";
  if (x.opcode() == HloOpcode::kRaggedDot) {
    ragged = x.attrs().lhs_ragged_dimensions.at(0);
    mode = shape_inference::GetRaggedDotMode(dn, ragged);
    sizes = x.operand(2);
    groups = sizes->shape().dimensions(sizes->shape().rank() - 1);
    if (sizes->shape().rank() > 1) {
      prefix = shape_inference::RaggedDotGroupSizesPrefix(dn, ragged,
                                                          lhs.shape().rank());
    }
    if (f_.int64) {
      if (absl::Status s = UseType(x, PrimitiveType::S64); !s.ok()) return s;
      sum_t = "int64_t";
    }
  }
  const bool non_contracting =
      sizes != nullptr && mode == RaggedDotMode::kNonContracting;
  const bool contracting =
      sizes != nullptr && mode == RaggedDotMode::kContracting;
  {
    // The ragged loops, at most: every group's k loop (non-contracting),
    // or the k loop and a running sum of the groups per outer row.
    int64_t trips = k_trips;
    if (non_contracting) trips = groups * (k_trips + 1);
    if (contracting) trips = k_trips * (groups + 1);
    if (absl::Status s = CheckLoop(x, trips); !s.ok()) return s;
  }
  // The contracting mode's result has the groups first.
  const std::string group = contracting ? result_idx[0] : "g";
  const Idx idx(result_idx.begin() + (contracting ? 1 : 0), result_idx.end());

  Idx jl(lhs.shape().rank()), jr(rhs.shape().rank());
  std::vector<bool> lfixed(jl.size(), false), rfixed(jr.size(), false);
  size_t k = 0;
  for (size_t b = 0; b < dn.lhs_batch_dimensions.size(); ++b, ++k) {
    jl[dn.lhs_batch_dimensions[b]] = idx[k];
    jr[dn.rhs_batch_dimensions[b]] = idx[k];
    lfixed[dn.lhs_batch_dimensions[b]] = rfixed[dn.rhs_batch_dimensions[b]] =
        true;
  }
  for (size_t c = 0; c < dn.lhs_contracting_dimensions.size(); ++c) {
    jl[dn.lhs_contracting_dimensions[c]] =
        jr[dn.rhs_contracting_dimensions[c]] = absl::StrCat("c", c);
    lfixed[dn.lhs_contracting_dimensions[c]] =
        rfixed[dn.rhs_contracting_dimensions[c]] = true;
  }
  if (non_contracting) {
    const int64_t gd = x.attrs().rhs_group_dimensions.at(0);
    jr[gd] = "g";
    rfixed[gd] = true;
  }
  for (size_t d = 0; d < jl.size(); ++d) {
    if (!lfixed[d]) jl[d] = idx[k++];
  }
  for (size_t d = 0; d < jr.size(); ++d) {
    if (!rfixed[d]) jr[d] = idx[k++];
  }
  // group_sizes[row..., h] as the running sum's type.
  auto size_of = [&](const std::string& h) -> absl::StatusOr<std::string> {
    Idx at;
    for (int64_t d : prefix) at.push_back(jl[d]);
    at.push_back(h);
    absl::StatusOr<std::string> v = Call(*sizes, at);
    if (!v.ok()) return v.status();
    return absl::StrCat(sum_t, "(", *v, ")");
  };

  std::string body;
  int open = 0;  // braces to close
  // The accumulator: f16/bf16 sum in f32 and round once at the end.
  absl::StrAppend(&body, "  ", Reg(t), " acc = ", Const(t, 0), ";\n");
  if (non_contracting) {
    absl::StatusOr<std::string> size = size_of("g");
    if (!size.ok()) return size.status();
    absl::StrAppend(&body, "  ", sum_t, " start = 0;\n",
                    "  for (int g = 0; g < ", groups, "; ++g) {\n", "  ", sum_t,
                    " end = start + ", *size, ";\n", "  if (start <= ", sum_t,
                    "(", jl[ragged], ") && ", sum_t, "(", jl[ragged],
                    ") < end) {\n");
  }
  for (size_t c = 0; c < dn.lhs_contracting_dimensions.size(); ++c) {
    const int64_t ld = dn.lhs_contracting_dimensions[c];
    const int64_t n = lhs.shape().dimensions(ld);
    if (contracting && ld == ragged) {
      // The loop runs over group `group`'s part of the ragged dimension;
      // the row's sizes are fixed by the loops opened so far.
      absl::StatusOr<std::string> before = size_of("h");
      if (!before.ok()) return before.status();
      absl::StatusOr<std::string> mine = size_of(group);
      if (!mine.ok()) return mine.status();
      absl::StrAppend(
          &body, "  ", sum_t, " lo = 0;\n", "  for (int h = 0; h < ", group,
          "; ++h) lo += ", *before, ";\n", "  ", sum_t, " hi = lo + ", *mine,
          ";\n", "  for (int c", c, " = int(max(lo, ", sum_t, "(0))); c", c,
          " < int(min(hi, ", sum_t, "(", n, "))); ++c", c, ") {\n");
    } else {
      absl::StrAppend(&body, "  for (int c", c, " = 0; c", c, " < ", n, "; ++c",
                      c, ") {\n");
    }
    ++open;
  }
  absl::StatusOr<std::string> a = DotOperand(x, 0, jl);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> b = DotOperand(x, 1, jr);
  if (!b.ok()) return b.status();
  absl::StrAppend(&body, "    ", Accumulate(t, *a, *b));
  for (; open > 0; --open) absl::StrAppend(&body, "  }\n");
  if (non_contracting) absl::StrAppend(&body, "  }\n  start = end;\n  }\n");
  absl::StrAppend(&body, "  return ", Round(t, Wrap(t, "acc")), ";\n");
  return body;
}

absl::StatusOr<std::string> Emitter::Convolution(const Instruction& x,
                                                 const Idx& idx) {
  const ConvolutionDimensionNumbers& dn =
      *x.attrs().convolution_dimension_numbers;
  const Window& w = WindowOf(x);
  const Instruction& lhs = *x.operand(0);
  const Instruction& rhs = *x.operand(1);
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const PrimitiveType t = x.shape().element_type();
  const int64_t spatial =
      static_cast<int64_t>(dn.input_spatial_dimensions.size());
  // The evaluator's geometry (core/eval/convolution.cc): feature groups
  // split the input features, batch groups the input batch.
  const int64_t in_batch = ls.dimensions(dn.input_batch_dimension);
  const int64_t in_features = ls.dimensions(dn.input_feature_dimension);
  const int64_t out_features =
      rs.dimensions(dn.kernel_output_feature_dimension);
  const int64_t fg = x.attrs().feature_group_count;
  const int64_t bg = x.attrs().batch_group_count;
  if (fg < 1 || bg < 1 || out_features == 0 || in_features % fg != 0 ||
      out_features % fg != 0 || out_features % bg != 0 || in_batch % bg != 0) {
    return NoCode(x, "these convolution groups");
  }
  const int64_t in_per_group = in_features / fg;
  {
    // A convolution without spatial dimensions has no window.
    int64_t trips = in_per_group;
    for (int64_t s = 0; s < spatial; ++s) trips *= w.dimensions[s].size;
    if (absl::Status s = CheckLoop(x, trips); !s.ok()) return s;
  }
  std::string body = absl::StrCat(
      "  ", Reg(t), " acc = ", Const(t, 0), ";\n",
      "  int of = ", idx[dn.output_feature_dimension], ";\n",
      "  int in_b = (of / ", out_features / bg, ") * ", in_batch / bg, " + ",
      idx[dn.output_batch_dimension], ";\n", "  int first = (of / ",
      out_features / fg, ") * ", in_per_group, ";\n");
  Idx jl(ls.rank()), jr(rs.rank());
  jl[dn.input_batch_dimension] = "in_b";
  jl[dn.input_feature_dimension] = "first + iz";
  jr[dn.kernel_input_feature_dimension] = "iz";
  jr[dn.kernel_output_feature_dimension] = "of";
  for (int64_t s = 0; s < spatial; ++s) {
    const WindowDimension& wd = w.dimensions[s];
    const int64_t in_dim = dn.input_spatial_dimensions[s];
    absl::StrAppend(
        &body, "  for (int k", s, " = 0; k", s, " < ", wd.size, "; ++k", s,
        ") {\n", "  int d", s, " = ", idx[dn.output_spatial_dimensions[s]],
        " * ", wd.stride, " - (", wd.padding_low, ") + k", s, " * ",
        wd.window_dilation, ";\n", "  if (d", s, " < 0 || d", s, " % ",
        wd.base_dilation, " != 0 || d", s, " / ", wd.base_dilation,
        " >= ", ls.dimensions(in_dim), ") continue;\n");
    jl[in_dim] = absl::StrCat("d", s, " / ", wd.base_dilation);
    jr[dn.kernel_spatial_dimensions[s]] =
        wd.window_reversal ? absl::StrCat(wd.size - 1, " - k", s)
                           : absl::StrCat("k", s);
  }
  absl::StatusOr<std::string> a = Call(lhs, jl);
  if (!a.ok()) return a.status();
  absl::StatusOr<std::string> b = Call(rhs, jr);
  if (!b.ok()) return b.status();
  absl::StatusOr<std::string> ca = Convert(x, ls.element_type(), t, *a);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cb = Convert(x, rs.element_type(), t, *b);
  if (!cb.ok()) return cb.status();
  absl::StrAppend(&body, "  for (int iz = 0; iz < ", in_per_group,
                  "; ++iz)\n    ", Accumulate(t, *ca, *cb));
  for (int64_t s = 0; s < spatial; ++s) absl::StrAppend(&body, "  }\n");
  absl::StrAppend(&body, "  return ", Round(t, Wrap(t, "acc")), ";\n");
  return body;
}

absl::StatusOr<std::string> Emitter::IndexVectorElement(
    const Instruction& indices, const Idx& batch, int64_t index_vector_dim,
    int64_t k) {
  Idx at = batch;
  if (index_vector_dim < indices.shape().rank()) {
    at.insert(at.begin() + index_vector_dim, absl::StrCat(k));
  }
  return Call(indices, at);
}

absl::StatusOr<std::string> Emitter::Gather(const Instruction& x,
                                            const Idx& idx) {
  const GatherDimensionNumbers& dn = *x.attrs().gather_dimension_numbers;
  if (!dn.operand_batching_dims.empty() ||
      !dn.start_indices_batching_dims.empty()) {
    return NoCode(x, "a gather with batching dimensions");
  }
  const Instruction& operand = *x.operand(0);
  const Instruction& indices = *x.operand(1);
  const Shape& os = operand.shape();
  const int64_t rank = x.shape().rank();
  // The batch part of the result index, then the index vector's position.
  std::vector<bool> is_offset(rank, false);
  for (int64_t d : dn.offset_dims) is_offset[d] = true;
  Idx batch;
  for (int64_t d = 0; d < rank; ++d) {
    if (!is_offset[d]) batch.push_back(idx[d]);
  }
  Idx in(os.rank());
  std::vector<std::string> start(os.rank(), "0");
  std::string body;
  for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
    absl::StatusOr<std::string> v =
        IndexVectorElement(indices, batch, dn.index_vector_dim, k);
    if (!v.ok()) return v.status();
    const int64_t d = dn.start_index_map[k];
    absl::StatusOr<std::string> c =
        ClampIndex(x, *v, indices.shape().element_type(),
                   os.dimensions(d) - x.attrs().gather_slice_sizes[d]);
    if (!c.ok()) return c.status();
    absl::StrAppend(&body, "  int at", d, " = ", *c, ";\n");
    start[d] = absl::StrCat("at", d);
  }
  std::vector<bool> collapsed(os.rank(), false);
  for (int64_t d : dn.collapsed_slice_dims) collapsed[d] = true;
  size_t next_offset = 0;
  for (int64_t d = 0; d < os.rank(); ++d) {
    in[d] = collapsed[d] ? start[d]
                         : absl::StrCat(start[d], " + ",
                                        idx[dn.offset_dims[next_offset++]]);
  }
  absl::StatusOr<std::string> v = Call(operand, in);
  if (!v.ok()) return v.status();
  return absl::StrCat(body, "  return ", *v, ";\n");
}

absl::StatusOr<std::string> Emitter::Scatter(const Instruction& x,
                                             const Idx& idx) {
  // Output-centric: element O starts as the operand's and applies, in
  // row-major order of the scatter indices (the evaluator's order), every
  // update whose window lies inside the operand and covers O. Work is
  // elements x scatter indices, so large scatters run on the host.
  const ScatterDimensionNumbers& dn = *x.attrs().scatter_dimension_numbers;
  if (x.operand_count() != 3 || !dn.input_batching_dims.empty() ||
      !dn.scatter_indices_batching_dims.empty()) {
    return NoCode(x, "a variadic or batched scatter");
  }
  const Instruction& operand = *x.operand(0);
  const Instruction& indices = *x.operand(1);
  const Instruction& updates = *x.operand(2);
  const Shape& os = operand.shape();
  const Shape& us = updates.shape();
  const int64_t rank = os.rank();
  std::vector<bool> upd_window(us.rank(), false);
  for (int64_t d : dn.update_window_dims) upd_window[d] = true;
  std::vector<int64_t> scatter_dims, window_dims_upd;
  for (int64_t d = 0; d < us.rank(); ++d) {
    (upd_window[d] ? window_dims_upd : scatter_dims).push_back(d);
  }
  std::vector<bool> inserted(rank, false);
  for (int64_t d : dn.inserted_window_dims) inserted[d] = true;
  std::vector<int64_t> window_dims_op;
  for (int64_t d = 0; d < rank; ++d) {
    if (!inserted[d]) window_dims_op.push_back(d);
  }
  if (window_dims_op.size() != window_dims_upd.size()) {
    return NoCode(x, "these scatter dimensions");
  }
  std::vector<int64_t> window_size(rank, 1);
  int64_t count = 1;
  for (size_t k = 0; k < window_dims_op.size(); ++k) {
    window_size[window_dims_op[k]] = us.dimensions(window_dims_upd[k]);
  }
  for (int64_t d : scatter_dims) count *= us.dimensions(d);
  if (count * ShapeUtil::ElementsIn(x.shape()) > (int64_t{1} << 26)) {
    return NoCode(x, "a scatter this large (elements x updates > 2^26)");
  }
  absl::StatusOr<std::string> fn = ScalarFunction(*x.to_apply());
  if (!fn.ok()) return fn.status();
  absl::StatusOr<std::string> init = Call(operand, idx);
  if (!init.ok()) return init.status();
  const PrimitiveType t = x.shape().element_type();
  std::string body = absl::StrCat("  ", Reg(t), " acc = ", *init, ";\n");
  Idx sidx;
  for (size_t k = 0; k < scatter_dims.size(); ++k) {
    absl::StrAppend(&body, "  for (int q", k, " = 0; q", k, " < ",
                    us.dimensions(scatter_dims[k]), "; ++q", k, ") {\n");
    sidx.push_back(absl::StrCat("q", k));
  }
  std::vector<std::string> start(rank, "0");
  for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
    absl::StatusOr<std::string> v =
        IndexVectorElement(indices, sidx, dn.index_vector_dim, k);
    if (!v.ok()) return v.status();
    const int64_t d = dn.scatter_dims_to_operand_dims[k];
    // Any value outside [0, dim] skips the update; clamping to [-1, dim]
    // keeps that and fits an int.
    const PrimitiveType it = indices.shape().element_type();
    std::string c;
    if (IsUnsigned(it)) {
      c = absl::StrCat("int(min(", *v, ", ", IntConst(it, os.dimensions(d)),
                       "))");
    } else if (IsSigned(it)) {
      c = absl::StrCat("int(clamp(", *v, ", ", IntConst(it, -1), ", ",
                       IntConst(it, os.dimensions(d)), "))");
    } else {
      return NoCode(x, "non-integer scatter indices");
    }
    absl::StrAppend(&body, "  int at", d, " = ", c, ";\n");
    start[d] = absl::StrCat("at", d);
  }
  std::string cond = "true";
  Idx uidx(us.rank());
  for (size_t k = 0; k < scatter_dims.size(); ++k) {
    uidx[scatter_dims[k]] = sidx[k];
  }
  for (int64_t d = 0; d < rank; ++d) {
    absl::StrAppend(&cond, " && ", start[d], " >= 0 && ", start[d],
                    " <= ", os.dimensions(d) - window_size[d]);
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (inserted[d]) {
      absl::StrAppend(&cond, " && ", idx[d], " == ", start[d]);
    }
  }
  for (size_t k = 0; k < window_dims_op.size(); ++k) {
    const int64_t d = window_dims_op[k];
    absl::StrAppend(&body, "  int w", d, " = ", idx[d], " - ", start[d], ";\n");
    absl::StrAppend(&cond, " && w", d, " >= 0 && w", d, " < ", window_size[d]);
    uidx[window_dims_upd[k]] = absl::StrCat("w", d);
  }
  absl::StatusOr<std::string> u = Call(updates, uidx);
  if (!u.ok()) return u.status();
  absl::StrAppend(&body, "  if (", cond, ") acc = ", *fn, "(acc, ", *u, ");\n");
  for (size_t k = 0; k < scatter_dims.size(); ++k) {
    absl::StrAppend(&body, "  }\n");
  }
  absl::StrAppend(&body, "  return acc;\n");
  return body;
}

absl::StatusOr<std::string> Emitter::SelectAndScatter(const Instruction& x,
                                                      const Idx& idx) {
  // Output-centric, like scatter: element O starts at the init value and,
  // for every source element (row-major: the evaluator's order) whose
  // window contains O, runs that window's selection (first valid element,
  // replaced by each later one `select` does not keep) and adds the source
  // value when the selection is O.
  if (x.operand_count() != 3 || !x.attrs().window.has_value()) {
    return NoCode(x, "this select-and-scatter");
  }
  const Instruction& operand = *x.operand(0);
  const Instruction& source = *x.operand(1);
  const Shape& os = operand.shape();
  const Shape& ss = source.shape();
  const Window& w = WindowOf(x);
  const int64_t rank = os.rank();
  int64_t window_elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (w.dimensions[d].base_dilation != 1 || w.dimensions[d].window_reversal) {
      return NoCode(x, "a select-and-scatter with base dilation or reversal");
    }
    window_elements *= w.dimensions[d].size;
  }
  if (ShapeUtil::ElementsIn(ss) * ShapeUtil::ElementsIn(os) * window_elements >
      (int64_t{1} << 28)) {
    return NoCode(x, "a select-and-scatter this large");
  }
  absl::StatusOr<std::string> select = ScalarFunction(*x.select());
  if (!select.ok()) return select.status();
  absl::StatusOr<std::string> scatter = ScalarFunction(*x.scatter());
  if (!scatter.ok()) return scatter.status();
  absl::StatusOr<std::string> init = Call(*x.operand(2), {});
  if (!init.ok()) return init.status();
  const PrimitiveType t = x.shape().element_type();
  const std::string vt = Reg(os.element_type());
  std::string body = absl::StrCat("  ", Reg(t), " acc = ", *init, ";\n");
  Idx q, p, sel;
  std::string contains = "true", same = "true";
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& wd = w.dimensions[d];
    absl::StrAppend(&body, "  for (int q", d, " = 0; q", d, " < ",
                    ss.dimensions(d), "; ++q", d, ") {\n");
    absl::StrAppend(&body, "  int t", d, " = ", idx[d], " - (q", d, " * ",
                    wd.stride, " - (", wd.padding_low, "));\n");
    absl::StrAppend(&contains, " && t", d, " >= 0 && t", d, " % ",
                    wd.window_dilation, " == 0 && t", d, " / ",
                    wd.window_dilation, " < ", wd.size);
    absl::StrAppend(&same, " && sel", d, " == ", idx[d]);
    q.push_back(absl::StrCat("q", d));
    p.push_back(absl::StrCat("p", d));
    sel.push_back(absl::StrCat("sel", d));
  }
  absl::StrAppend(&body, "  if (", contains, ") {\n", "  bool have = false;\n",
                  "  ", vt, " selv;\n");
  for (int64_t d = 0; d < rank; ++d) {
    absl::StrAppend(&body, "  int sel", d, " = 0;\n");
  }
  std::string valid = "true";
  for (int64_t d = 0; d < rank; ++d) {
    const WindowDimension& wd = w.dimensions[d];
    absl::StrAppend(&body, "  for (int w", d, " = 0; w", d, " < ", wd.size,
                    "; ++w", d, ") {\n", "  int p", d, " = q", d, " * ",
                    wd.stride, " - (", wd.padding_low, ") + w", d, " * ",
                    wd.window_dilation, ";\n");
    absl::StrAppend(&valid, " && p", d, " >= 0 && p", d, " < ",
                    os.dimensions(d));
  }
  absl::StatusOr<std::string> v = Call(operand, p);
  if (!v.ok()) return v.status();
  std::string take;
  for (int64_t d = 0; d < rank; ++d) {
    absl::StrAppend(&take, " sel", d, " = p", d, ";");
  }
  absl::StrAppend(&body, "  if (", valid, ") {\n", "    ", vt, " cand = ", *v,
                  ";\n", "    if (!have || !", *select,
                  "(selv, cand)) { have = true; selv = cand;", take, " }\n",
                  "  }\n");
  for (int64_t d = 0; d < rank; ++d) absl::StrAppend(&body, "  }\n");
  absl::StatusOr<std::string> src = Call(source, q);
  if (!src.ok()) return src.status();
  absl::StrAppend(&body, "  if (have", same.substr(4), ") acc = ", *scatter,
                  "(acc, ", *src, ");\n", "  }\n");
  for (int64_t d = 0; d < rank; ++d) absl::StrAppend(&body, "  }\n");
  absl::StrAppend(&body, "  return acc;\n");
  return body;
}

}  // namespace plexa::vulkan::glsl_internal
