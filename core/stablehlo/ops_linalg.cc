// Dots, convolutions, gather/scatter, fft, batch norm, linear algebra and
// random numbers.
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/ops.h"

namespace plexa::stablehlo {
namespace {

// A dimension list from a #stablehlo.xxx<...> struct field, or from the op
// itself when the struct is absent (or lacks it).
absl::StatusOr<std::vector<int64_t>> StructInts(OpContext& ctx, const MAttr* s,
                                                absl::string_view name) {
  if (s != nullptr) {
    if (const MAttr* f = s->Field(name)) return ctx.IntsOf(*f);
  }
  if (const MAttr* a = ctx.op().Attr(name)) return ctx.IntsOf(*a);
  return std::vector<int64_t>{};
}

// precision_config = [#stablehlo<precision DEFAULT>, ...] or the pretty
// precision = [DEFAULT, HIGHEST]: ", operand_precision={default,highest}"
// when any is not DEFAULT (the default needs no attribute).
std::string PrecisionAttr(OpContext& ctx) {
  const MAttr* p = ctx.Attr({"precision_config", "precision"});
  if (p == nullptr || p->kind != MAttr::Kind::kArray) return "";
  std::vector<std::string> names;
  bool any = false;
  for (const MAttrPtr& item : p->items) {
    std::string n = absl::AsciiStrToLower(item->s);
    any = any || n != "default";
    names.push_back(n);
  }
  if (!any) return "";
  return absl::StrCat(", operand_precision={", absl::StrJoin(names, ","), "}");
}

std::string FloatText(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", d);
  return buf;
}

absl::StatusOr<double> FloatAttr(OpContext& ctx, absl::string_view name) {
  const MAttr* a = ctx.op().Attr(name);
  if (a == nullptr) return ctx.Error(absl::StrCat("missing ", name));
  if (a->kind == MAttr::Kind::kFloat) return a->f;
  if (a->kind == MAttr::Kind::kInt) return static_cast<double>(a->i);
  return ctx.Error(absl::StrCat(name, " must be a number"));
}

absl::Status SetOneOrTuple(OpContext& ctx, const Value& v) {
  if (ctx.num_results() == 1 && !v.shape.IsTuple()) {
    return ctx.SetResults({v});
  }
  return ctx.SetTupleResults(v);
}

}  // namespace

absl::Status LowerDot(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (ops[0].shape.rank() < 1 || ops[0].shape.rank() > 2 ||
      ops[1].shape.rank() < 1 || ops[1].shape.rank() > 2) {
    return ctx.Error("stablehlo.dot takes vectors and matrices");
  }
  std::string attrs =
      absl::StrCat("lhs_contracting_dims={", ops[0].shape.rank() - 1,
                   "}, rhs_contracting_dims={0}", PrecisionAttr(ctx));
  return ctx.SetResults({ctx.Emit("dot", shape, ops, attrs)});
}

// dot's dimension-number attributes in HLO text (the batch ones only when
// there are any), for dot and ragged-dot.
std::string DotDimsAttrs(const std::vector<int64_t>& lb,
                         const std::vector<int64_t>& rb,
                         const std::vector<int64_t>& lc,
                         const std::vector<int64_t>& rc) {
  const bool batch = !lb.empty() || !rb.empty();
  std::string attrs;
  if (batch) absl::StrAppend(&attrs, "lhs_batch_dims=", BraceList(lb), ", ");
  absl::StrAppend(&attrs, "lhs_contracting_dims=", BraceList(lc));
  if (batch) absl::StrAppend(&attrs, ", rhs_batch_dims=", BraceList(rb));
  absl::StrAppend(&attrs, ", rhs_contracting_dims=", BraceList(rc));
  return attrs;
}

absl::Status LowerDotGeneral(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::vector<int64_t> lb, rb, lc, rc;
  if (const MAttr* dn = ctx.Attr({"dot_dimension_numbers"})) {
    PLEXA_ASSIGN_OR_RETURN(lb, StructInts(ctx, dn, "lhs_batching_dimensions"));
    PLEXA_ASSIGN_OR_RETURN(rb, StructInts(ctx, dn, "rhs_batching_dimensions"));
    PLEXA_ASSIGN_OR_RETURN(lc,
                           StructInts(ctx, dn, "lhs_contracting_dimensions"));
    PLEXA_ASSIGN_OR_RETURN(rc,
                           StructInts(ctx, dn, "rhs_contracting_dimensions"));
  } else {
    // batching_dims = [0] x [0], contracting_dims = [2] x [1]
    auto pair = [&](absl::string_view name, std::vector<int64_t>* l,
                    std::vector<int64_t>* r) -> absl::Status {
      const MAttr* a = ctx.op().Attr(name);
      if (a == nullptr) return absl::OkStatus();
      if (a->kind != MAttr::Kind::kCross || a->items.size() != 2) {
        return ctx.Error(absl::StrCat(name, " must be written '[..] x [..]'"));
      }
      PLEXA_ASSIGN_OR_RETURN(*l, ctx.IntsOf(*a->items[0]));
      PLEXA_ASSIGN_OR_RETURN(*r, ctx.IntsOf(*a->items[1]));
      return absl::OkStatus();
    };
    PLEXA_RETURN_IF_ERROR(pair("batching_dims", &lb, &rb));
    PLEXA_RETURN_IF_ERROR(pair("contracting_dims", &lc, &rc));
  }
  const std::string attrs = DotDimsAttrs(lb, rb, lc, rc) + PrecisionAttr(ctx);
  return ctx.SetResults({ctx.Emit("dot", shape, ops, attrs)});
}

// chlo.ragged_dot(lhs, rhs, group_sizes) with ragged_dot_dimension_numbers =
// #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions =
// [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2],
// lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]> (fields left out
// when empty) and precision_config: HLO's ragged-dot, whose verifier makes
// StableHLO's checks. The result type's element type is the preferred one.
absl::Status LowerChloRaggedDot(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(3));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const MAttr* dn = ctx.Attr({"ragged_dot_dimension_numbers"});
  if (dn == nullptr) return ctx.Error("missing ragged_dot_dimension_numbers");
  if (dn->kind != MAttr::Kind::kStruct) {
    return ctx.Error(
        "ragged_dot_dimension_numbers must be a #chlo.ragged_dot<...>");
  }
  std::vector<int64_t> lb, rb, lc, rc, lr, rg;
  PLEXA_ASSIGN_OR_RETURN(lb, StructInts(ctx, dn, "lhs_batching_dimensions"));
  PLEXA_ASSIGN_OR_RETURN(rb, StructInts(ctx, dn, "rhs_batching_dimensions"));
  PLEXA_ASSIGN_OR_RETURN(lc, StructInts(ctx, dn, "lhs_contracting_dimensions"));
  PLEXA_ASSIGN_OR_RETURN(rc, StructInts(ctx, dn, "rhs_contracting_dimensions"));
  PLEXA_ASSIGN_OR_RETURN(lr, StructInts(ctx, dn, "lhs_ragged_dimensions"));
  PLEXA_ASSIGN_OR_RETURN(rg, StructInts(ctx, dn, "rhs_group_dimensions"));
  std::string attrs = DotDimsAttrs(lb, rb, lc, rc);
  absl::StrAppend(&attrs, ", lhs_ragged_dims=", BraceList(lr));
  if (!rg.empty()) absl::StrAppend(&attrs, ", rhs_group_dims=", BraceList(rg));
  absl::StrAppend(&attrs, PrecisionAttr(ctx));
  return ctx.SetResults({ctx.Emit("ragged-dot", shape, ops, attrs)});
}

absl::Status LowerConvolution(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const int64_t rank = ops[0].shape.rank();
  if (rank < 2 || ops[1].shape.rank() != rank || shape.rank() != rank) {
    return ctx.Error("convolution operands and result must have one rank >= 2");
  }
  const int64_t nsp = rank - 2;
  // Labels: lhs "b01f", rhs "01io", out "b01f".
  std::string lhs(rank, '?'), rhs(rank, '?'), out(rank, '?');
  const MAttr* dn = ctx.Attr({"dimension_numbers", "dim_numbers"});
  if (dn == nullptr) return ctx.Error("missing dimension_numbers");
  const MAttr* cross = dn;
  if (dn->kind == MAttr::Kind::kStruct && dn->items.size() == 1) {
    cross = dn->items[0].get();
  }
  auto label = [&](const MAttr& list, std::string* target,
                   absl::string_view letters) -> absl::Status {
    if (list.kind != MAttr::Kind::kArray ||
        static_cast<int64_t>(list.items.size()) != rank) {
      return ctx.Error("dimension numbers must list every dimension");
    }
    for (int64_t i = 0; i < rank; ++i) {
      const MAttr& it = *list.items[i];
      if (it.kind == MAttr::Kind::kInt && it.i >= 0 && it.i < nsp &&
          it.i < 10) {
        (*target)[i] = static_cast<char>('0' + it.i);
      } else if (it.kind == MAttr::Kind::kIdent && it.s.size() == 1 &&
                 absl::StrContains(letters, it.s)) {
        (*target)[i] = it.s[0];
      } else {
        return ctx.Error("bad dimension label in dimension numbers");
      }
    }
    return absl::OkStatus();
  };
  if (cross->kind == MAttr::Kind::kCross && cross->items.size() == 3) {
    PLEXA_RETURN_IF_ERROR(label(*cross->items[0], &lhs, "bf"));
    PLEXA_RETURN_IF_ERROR(label(*cross->items[1], &rhs, "io"));
    PLEXA_RETURN_IF_ERROR(label(*cross->items[2], &out, "bf"));
  } else if (dn->kind == MAttr::Kind::kStruct) {
    // #stablehlo.conv<raw input_batch_dimension = 0, ...>
    auto put = [&](std::string* target, absl::string_view field,
                   char c) -> absl::Status {
      const MAttr* f = dn->Field(field);
      if (f == nullptr || f->kind != MAttr::Kind::kInt || f->i < 0 ||
          f->i >= rank) {
        return ctx.Error(absl::StrCat("bad or missing ", field));
      }
      (*target)[f->i] = c;
      return absl::OkStatus();
    };
    auto spatial = [&](std::string* target,
                       absl::string_view field) -> absl::Status {
      PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                             StructInts(ctx, dn, field));
      if (static_cast<int64_t>(dims.size()) != nsp) {
        return ctx.Error(absl::StrCat("bad ", field));
      }
      for (int64_t k = 0; k < nsp; ++k) {
        if (dims[k] < 0 || dims[k] >= rank || k >= 10) {
          return ctx.Error(absl::StrCat("bad ", field));
        }
        (*target)[dims[k]] = static_cast<char>('0' + k);
      }
      return absl::OkStatus();
    };
    PLEXA_RETURN_IF_ERROR(put(&lhs, "input_batch_dimension", 'b'));
    PLEXA_RETURN_IF_ERROR(put(&lhs, "input_feature_dimension", 'f'));
    PLEXA_RETURN_IF_ERROR(spatial(&lhs, "input_spatial_dimensions"));
    PLEXA_RETURN_IF_ERROR(put(&rhs, "kernel_input_feature_dimension", 'i'));
    PLEXA_RETURN_IF_ERROR(put(&rhs, "kernel_output_feature_dimension", 'o'));
    PLEXA_RETURN_IF_ERROR(spatial(&rhs, "kernel_spatial_dimensions"));
    PLEXA_RETURN_IF_ERROR(put(&out, "output_batch_dimension", 'b'));
    PLEXA_RETURN_IF_ERROR(put(&out, "output_feature_dimension", 'f'));
    PLEXA_RETURN_IF_ERROR(spatial(&out, "output_spatial_dimensions"));
  } else {
    return ctx.Error("unreadable dimension numbers");
  }
  for (const std::string* s : {&lhs, &rhs, &out}) {
    if (absl::StrContains(*s, '?')) {
      return ctx.Error("dimension numbers leave a dimension unlabelled");
    }
  }
  // Window: sizes from the kernel, the rest from the op.
  const MAttr* window = ctx.op().Attr("window");
  auto window_ints =
      [&](absl::string_view pretty,
          absl::string_view generic) -> absl::StatusOr<std::vector<int64_t>> {
    if (window != nullptr) {
      if (const MAttr* f = window->Field(pretty)) return ctx.IntsOf(*f);
      return std::vector<int64_t>{};
    }
    return ctx.Ints({generic}, false);
  };
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> stride,
                         window_ints("stride", "window_strides"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> lhs_dil,
                         window_ints("lhs_dilate", "lhs_dilation"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> rhs_dil,
                         window_ints("rhs_dilate", "rhs_dilation"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> reversal,
                         window_ints("reverse", "window_reversal"));
  std::vector<std::vector<int64_t>> pad;
  const MAttr* pad_attr =
      window != nullptr ? window->Field("pad") : ctx.op().Attr("padding");
  if (pad_attr != nullptr) {
    PLEXA_ASSIGN_OR_RETURN(pad, ctx.IntMatrix(*pad_attr));
  }
  std::vector<std::string> size_s, stride_s, pad_s, ld_s, rd_s, rev_s;
  for (int64_t k = 0; k < nsp; ++k) {
    const size_t kdim = rhs.find(static_cast<char>('0' + k));
    if (kdim == std::string::npos || lhs.find('0' + k) == std::string::npos ||
        out.find('0' + k) == std::string::npos) {
      return ctx.Error(absl::StrCat("spatial dimension ", k,
                                    " is missing from the dimension numbers"));
    }
    size_s.push_back(absl::StrCat(ops[1].shape.dimensions(kdim)));
    auto at = [&](const std::vector<int64_t>& v, int64_t dflt) {
      return k < static_cast<int64_t>(v.size()) ? v[k] : dflt;
    };
    stride_s.push_back(absl::StrCat(at(stride, 1)));
    ld_s.push_back(absl::StrCat(at(lhs_dil, 1)));
    rd_s.push_back(absl::StrCat(at(rhs_dil, 1)));
    rev_s.push_back(absl::StrCat(at(reversal, 0)));
    if (k < static_cast<int64_t>(pad.size()) && pad[k].size() == 2) {
      pad_s.push_back(absl::StrCat(pad[k][0], "_", pad[k][1]));
    } else {
      pad_s.push_back("0_0");
    }
  }
  std::string attrs;
  if (nsp > 0) {
    attrs = absl::StrCat("window={size=", absl::StrJoin(size_s, "x"),
                         " stride=", absl::StrJoin(stride_s, "x"),
                         " pad=", absl::StrJoin(pad_s, "x"),
                         " lhs_dilate=", absl::StrJoin(ld_s, "x"),
                         " rhs_dilate=", absl::StrJoin(rd_s, "x"),
                         " rhs_reversal=", absl::StrJoin(rev_s, "x"), "}, ");
  }
  absl::StrAppend(&attrs, "dim_labels=", lhs, "_", rhs, "->", out);
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> fgc,
                         ctx.Int({"feature_group_count"}));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> bgc,
                         ctx.Int({"batch_group_count"}));
  if (fgc.has_value() && *fgc != 1) {
    absl::StrAppend(&attrs, ", feature_group_count=", *fgc);
  }
  if (bgc.has_value() && *bgc != 1) {
    absl::StrAppend(&attrs, ", batch_group_count=", *bgc);
  }
  absl::StrAppend(&attrs, PrecisionAttr(ctx));
  return ctx.SetResults({ctx.Emit("convolution", shape, ops, attrs)});
}

absl::Status LowerGather(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const MAttr* dn = ctx.Attr({"dimension_numbers"});
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> offset,
                         StructInts(ctx, dn, "offset_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> collapsed,
                         StructInts(ctx, dn, "collapsed_slice_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> operand_batching,
                         StructInts(ctx, dn, "operand_batching_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> indices_batching,
                         StructInts(ctx, dn, "start_indices_batching_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> start_index_map,
                         StructInts(ctx, dn, "start_index_map"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> ivd,
                         StructInts(ctx, dn, "index_vector_dim"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                         ctx.Ints({"slice_sizes"}, true));
  PLEXA_ASSIGN_OR_RETURN(bool sorted, ctx.Bool({"indices_are_sorted"}, false));
  // StableHLO's default index_vector_dim is 0 (printed only when not).
  if (ivd.empty()) ivd.push_back(0);
  if (ivd.size() != 1) return ctx.Error("bad index_vector_dim");
  std::string attrs =
      absl::StrCat("offset_dims=", BraceList(offset),
                   ", collapsed_slice_dims=", BraceList(collapsed),
                   ", start_index_map=", BraceList(start_index_map));
  if (!operand_batching.empty() || !indices_batching.empty()) {
    absl::StrAppend(
        &attrs, ", operand_batching_dims=", BraceList(operand_batching),
        ", start_indices_batching_dims=", BraceList(indices_batching));
  }
  absl::StrAppend(&attrs, ", index_vector_dim=", ivd[0],
                  ", slice_sizes=", BraceList(sizes));
  if (sorted) absl::StrAppend(&attrs, ", indices_are_sorted=true");
  return ctx.SetResults({ctx.Emit("gather", shape, ops, attrs)});
}

absl::Status LowerScatter(OpContext& ctx, absl::string_view) {
  const int64_t n_ops = ctx.num_operands();
  if (n_ops < 3 || (n_ops - 1) % 2 != 0) {
    return ctx.Error("expected N inputs, the indices and N updates");
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  const MAttr* dn = ctx.Attr({"scatter_dimension_numbers"});
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> uwd,
                         StructInts(ctx, dn, "update_window_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> iwd,
                         StructInts(ctx, dn, "inserted_window_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> ibd,
                         StructInts(ctx, dn, "input_batching_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> sibd,
                         StructInts(ctx, dn, "scatter_indices_batching_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> sdod,
                         StructInts(ctx, dn, "scatter_dims_to_operand_dims"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> ivd,
                         StructInts(ctx, dn, "index_vector_dim"));
  // StableHLO's default index_vector_dim is 0 (printed only when not).
  if (ivd.empty()) ivd.push_back(0);
  if (ivd.size() != 1) return ctx.Error("bad index_vector_dim");
  PLEXA_ASSIGN_OR_RETURN(bool sorted, ctx.Bool({"indices_are_sorted"}, false));
  PLEXA_ASSIGN_OR_RETURN(bool unique, ctx.Bool({"unique_indices"}, false));
  PLEXA_ASSIGN_OR_RETURN(std::string region, ctx.ScalarRegion(0));
  std::string attrs =
      absl::StrCat("update_window_dims=", BraceList(uwd),
                   ", inserted_window_dims=", BraceList(iwd),
                   ", scatter_dims_to_operand_dims=", BraceList(sdod));
  if (!ibd.empty() || !sibd.empty()) {
    absl::StrAppend(&attrs, ", input_batching_dims=", BraceList(ibd),
                    ", scatter_indices_batching_dims=", BraceList(sibd));
  }
  absl::StrAppend(&attrs, ", index_vector_dim=", ivd[0]);
  if (sorted) absl::StrAppend(&attrs, ", indices_are_sorted=true");
  if (unique) absl::StrAppend(&attrs, ", unique_indices=true");
  absl::StrAppend(&attrs, ", to_apply=%", region);
  return SetOneOrTuple(ctx, ctx.Emit("scatter", shape, ops, attrs));
}

absl::Status LowerFft(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::optional<std::string> type = ctx.Enum({"fft_type", "type"});
  if (!type.has_value()) return ctx.Error("missing fft_type");
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> length,
                         ctx.Ints({"fft_length", "length"}, true));
  return ctx.SetResults({ctx.Emit(
      "fft", shape, ops,
      absl::StrCat("fft_type=", *type, ", fft_length=", BraceList(length)))});
}

absl::Status LowerBatchNorm(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  PLEXA_ASSIGN_OR_RETURN(double eps, FloatAttr(ctx, "epsilon"));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> fi, ctx.Int({"feature_index"}));
  if (!fi.has_value()) return ctx.Error("missing feature_index");
  return SetOneOrTuple(ctx, ctx.Emit(hlo_op, shape, ops,
                                     absl::StrCat("epsilon=", FloatText(eps),
                                                  ", feature_index=", *fi)));
}

absl::Status LowerCholesky(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(bool lower, ctx.Bool({"lower"}, false));
  return ctx.SetResults(
      {ctx.Emit("cholesky", shape, ops, lower ? "lower=true" : "lower=false")});
}

absl::Status LowerTriangularSolve(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(bool left, ctx.Bool({"left_side"}, false));
  PLEXA_ASSIGN_OR_RETURN(bool lower, ctx.Bool({"lower"}, false));
  PLEXA_ASSIGN_OR_RETURN(bool unit, ctx.Bool({"unit_diagonal"}, false));
  std::string transpose =
      ctx.Enum({"transpose_a"}).value_or(std::string("NO_TRANSPOSE"));
  return ctx.SetResults({ctx.Emit(
      "triangular-solve", shape, ops,
      absl::StrCat("left_side=", left ? "true" : "false",
                   ", lower=", lower ? "true" : "false", ", unit_diagonal=",
                   unit ? "true" : "false", ", transpose_a=", transpose))});
}

absl::Status LowerRng(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(3));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands(0, 2));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::optional<std::string> dist =
      ctx.Enum({"rng_distribution", "distribution"});
  if (!dist.has_value() || (*dist != "UNIFORM" && *dist != "NORMAL")) {
    return ctx.Error("expected rng_distribution UNIFORM or NORMAL");
  }
  return ctx.SetResults({ctx.Emit(
      "rng", shape, ops,
      absl::StrCat("distribution=rng_", absl::AsciiStrToLower(*dist)))});
}

absl::Status LowerRngBitGenerator(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultShape());
  std::optional<std::string> alg = ctx.Enum({"rng_algorithm", "algorithm"});
  if (!alg.has_value() ||
      (*alg != "DEFAULT" && *alg != "THREE_FRY" && *alg != "PHILOX")) {
    return ctx.Error("expected rng_algorithm DEFAULT, THREE_FRY or PHILOX");
  }
  return ctx.SetTupleResults(
      ctx.Emit("rng-bit-generator", shape, ops,
               absl::StrCat("algorithm=rng_", absl::AsciiStrToLower(*alg))));
}

}  // namespace plexa::stablehlo
