// Elementwise operations, constants and the data-movement ops that are one
// HLO instruction with attributes.
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/ops.h"

namespace plexa::stablehlo {

absl::Status LowerSimple(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> operands, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  return ctx.SetResults({ctx.Emit(hlo_op, shape, operands)});
}

// stablehlo.select takes a scalar predicate and stablehlo.clamp scalar
// bounds with a tensor operand; HLO wants them broadcast.
absl::Status LowerSelectOrClamp(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(3));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const bool is_select = hlo_op == "select";
  for (int i = 0; i < 3; ++i) {
    if (is_select && i != 0) continue;
    if (!is_select && i == 1) continue;
    if (ops[i].shape.IsArray() && ops[i].shape.rank() == 0 && shape.IsArray() &&
        shape.rank() > 0) {
      PLEXA_ASSIGN_OR_RETURN(ops[i], ctx.BroadcastTo(ops[i], shape));
    }
  }
  return ctx.SetResults({ctx.Emit(hlo_op, shape, ops)});
}

absl::Status LowerConstant(OpContext& ctx, absl::string_view) {
  const MAttr* value = ctx.Attr({"value"});
  if (value == nullptr) {
    for (const MAttrPtr& p : ctx.op().positional) {
      if (p->kind == MAttr::Kind::kDense || p->kind == MAttr::Kind::kInt ||
          p->kind == MAttr::Kind::kFloat || p->kind == MAttr::Kind::kBool) {
        value = p.get();
        break;
      }
    }
  }
  if (value == nullptr) return ctx.Error("expected a dense<...> value");
  Shape type;
  if (value->type.has_value()) {
    type = *value->type;
  } else {
    PLEXA_ASSIGN_OR_RETURN(type, ctx.ResultType(0));
  }
  if (value->kind != MAttr::Kind::kDense) {
    PLEXA_ASSIGN_OR_RETURN(std::string lit,
                           ScalarToLiteral(*value, type.element_type()));
    return ctx.SetResults({ctx.EmitConstant(type, lit)});
  }
  bool splat = false;
  PLEXA_ASSIGN_OR_RETURN(std::string lit, DenseToLiteral(*value, type, &splat));
  const Value c = splat ? ctx.Splat(type, lit) : ctx.EmitConstant(type, lit);
  // Small integer vectors are remembered: the dynamic ops read their shape
  // operands from them.
  const PrimitiveType et = type.element_type();
  const bool integral = et == PrimitiveType::S32 || et == PrimitiveType::S64 ||
                        et == PrimitiveType::U32 || et == PrimitiveType::U64;
  if (integral && type.rank() <= 1 && ShapeUtil::ElementsIn(type) <= 64) {
    absl::StatusOr<std::vector<int64_t>> ints = ctx.IntsOf(*value);
    if (ints.ok()) {
      ctx.lowering()->integer_constants()[{ctx.scope()->comp, c.name}] =
          *std::move(ints);
    }
  }
  return ctx.SetResults({c});
}

absl::Status LowerCompare(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::optional<std::string> dir =
      ctx.Enum({"comparison_direction", "direction"}, 0);
  if (!dir.has_value()) return ctx.Error("missing comparison_direction");
  static const char* const kDirs[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  bool ok = false;
  for (const char* d : kDirs) ok = ok || *dir == d;
  if (!ok)
    return ctx.Error(absl::StrCat("unknown comparison direction '", *dir, "'"));
  std::string attrs = absl::StrCat("direction=", *dir);
  std::optional<std::string> type = ctx.Enum({"compare_type"}, 1);
  if (type.has_value() && *type != "NOTYPE") {
    if (*type != "FLOAT" && *type != "TOTALORDER" && *type != "SIGNED" &&
        *type != "UNSIGNED") {
      return ctx.Error(absl::StrCat("unknown comparison type '", *type, "'"));
    }
    absl::StrAppend(&attrs, ", type=", *type);
  }
  return ctx.SetResults({ctx.Emit("compare", shape, ops, attrs)});
}

absl::Status LowerBroadcastInDim(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         ctx.Ints({"broadcast_dimensions", "dims"}, true));
  // StableHLO lets a size-1 operand dimension stretch; HLO's broadcast
  // does not: BroadcastTo reshapes those away first.
  PLEXA_ASSIGN_OR_RETURN(Value b, ctx.BroadcastTo(x, shape, dims));
  return ctx.SetResults({b});
}

// The legacy stablehlo.broadcast: new dimensions in front.
absl::Status LowerBroadcast(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x.shape.rank(); ++i) {
    dims.push_back(shape.rank() - x.shape.rank() + i);
  }
  return ctx.SetResults({ctx.Emit(
      "broadcast", shape, {x}, absl::StrCat("dimensions=", BraceList(dims)))});
}

namespace {
absl::Status DimensionsOp(OpContext& ctx, absl::string_view hlo_op,
                          std::initializer_list<absl::string_view> names) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.Ints(names, true));
  return ctx.SetResults({ctx.Emit(
      hlo_op, shape, ops, absl::StrCat("dimensions=", BraceList(dims)))});
}
}  // namespace

absl::Status LowerTranspose(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  return DimensionsOp(ctx, hlo_op, {"permutation", "dims"});
}

absl::Status LowerReverse(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  return DimensionsOp(ctx, hlo_op, {"dimensions", "dims"});
}

absl::Status LowerConcatenate(OpContext& ctx, absl::string_view hlo_op) {
  return DimensionsOp(ctx, hlo_op, {"dimension", "dim"});
}

absl::Status LowerIota(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim,
                         ctx.Int({"iota_dimension", "dim"}));
  if (!dim.has_value()) return ctx.Error("missing iota_dimension");
  return ctx.SetResults(
      {ctx.Emit("iota", shape, {}, absl::StrCat("iota_dimension=", *dim))});
}

absl::Status LowerSlice(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::vector<int64_t> start, limit, strides;
  const MAttr* ranges = nullptr;
  for (const MAttrPtr& p : ctx.op().positional) {
    if (p->kind == MAttr::Kind::kArray) ranges = p.get();
  }
  if (ranges != nullptr) {
    // [0:2, 1:3:2]
    for (const MAttrPtr& r : ranges->items) {
      if (r->items.size() < 2 || r->items.size() > 3) {
        return ctx.Error(
            "expected ranges 'start:limit' or 'start:limit:stride'");
      }
      start.push_back(r->items[0]->i);
      limit.push_back(r->items[1]->i);
      strides.push_back(r->items.size() == 3 ? r->items[2]->i : 1);
    }
  } else {
    PLEXA_ASSIGN_OR_RETURN(start, ctx.Ints({"start_indices"}, true));
    PLEXA_ASSIGN_OR_RETURN(limit, ctx.Ints({"limit_indices"}, true));
    PLEXA_ASSIGN_OR_RETURN(strides, ctx.Ints({"strides"}, false));
    if (strides.empty()) strides.assign(start.size(), 1);
  }
  if (start.size() != limit.size() || start.size() != strides.size()) {
    return ctx.Error(
        "start_indices, limit_indices and strides differ in length");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < start.size(); ++i) {
    parts.push_back(
        absl::StrCat("[", start[i], ":", limit[i], ":", strides[i], "]"));
  }
  return ctx.SetResults(
      {ctx.Emit("slice", shape, {x},
                absl::StrCat("slice={", absl::StrJoin(parts, ", "), "}"))});
}

absl::Status LowerDynamicSlice(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                         ctx.Ints({"slice_sizes", "sizes"}, true));
  return ctx.SetResults(
      {ctx.Emit("dynamic-slice", shape, ops,
                absl::StrCat("dynamic_slice_sizes=", BraceList(sizes)))});
}

absl::Status LowerPad(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> low,
                         ctx.Ints({"edge_padding_low", "low"}, true));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> high,
                         ctx.Ints({"edge_padding_high", "high"}, true));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                         ctx.Ints({"interior_padding", "interior"}, false));
  if (interior.empty()) interior.assign(low.size(), 0);
  if (low.size() != high.size() || low.size() != interior.size()) {
    return ctx.Error("the padding lists differ in length");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < low.size(); ++i) {
    parts.push_back(absl::StrCat(low[i], "_", high[i], "_", interior[i]));
  }
  std::string padding = absl::StrJoin(parts, "x");
  if (parts.empty()) padding = "{}";
  return ctx.SetResults(
      {ctx.Emit("pad", shape, ops, absl::StrCat("padding=", padding))});
}

absl::Status LowerGetTupleElement(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value t, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> index, ctx.Int({"index"}));
  if (!index.has_value()) {
    for (const MAttrPtr& p : ctx.op().positional) {
      if (p->kind == MAttr::Kind::kArray && p->items.size() == 1 &&
          p->items[0]->items.size() == 1) {
        index = p->items[0]->items[0]->i;
      }
    }
  }
  if (!index.has_value()) return ctx.Error("missing index");
  return ctx.SetResults({ctx.Emit("get-tuple-element", shape, {t},
                                  absl::StrCat("index=", *index))});
}

// optimization_barrier over N values: HLO's opt-barrier takes one tuple.
absl::Status LowerTupleResults(OpContext& ctx, absl::string_view hlo_op) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  std::vector<Shape> shapes;
  for (const Value& v : ops) shapes.push_back(v.shape);
  Shape tuple_shape = ShapeUtil::MakeTupleShape(shapes);
  Value tuple = ctx.Emit("tuple", tuple_shape, ops);
  Value barrier = ctx.Emit(hlo_op, tuple_shape, {tuple});
  return ctx.SetTupleResults(barrier);
}

absl::Status LowerReducePrecision(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> e, ctx.Int({"exponent_bits"}));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> m, ctx.Int({"mantissa_bits"}));
  if (!e.has_value() || !m.has_value()) {
    // Pretty: format = e5m10.
    std::optional<std::string> format = ctx.Enum({"format"});
    int ev = 0, mv = 0;
    if (!format.has_value() ||
        std::sscanf(format->c_str(), "e%dm%d", &ev, &mv) != 2) {
      return ctx.Error(
          "missing exponent_bits/mantissa_bits (or format = eXmY)");
    }
    e = ev;
    m = mv;
  }
  return ctx.SetResults(
      {ctx.Emit("reduce-precision", shape, {x},
                absl::StrCat("exponent_bits=", *e, ", mantissa_bits=", *m))});
}

absl::Status LowerGetDimensionSize(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim, ctx.Int({"dimension"}));
  if (!dim.has_value()) return ctx.Error("missing dimension");
  return ctx.SetResults({ctx.Emit("get-dimension-size", shape, {x},
                                  absl::StrCat("dimensions={", *dim, "}"))});
}

}  // namespace plexa::stablehlo

namespace plexa::stablehlo {

// dynamic_reshape, dynamic_broadcast_in_dim and dynamic_iota whose result
// type is static (the reader refuses `?` dimensions, so any that reach
// here are): the shape operand must equal the result's dimensions (a
// constraint of the op in the StableHLO spec), so the static op on the
// result type is the same computation. The shape operand is not read.
absl::Status LowerStaticDynamicShapeOp(OpContext& ctx,
                                       absl::string_view hlo_op) {
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (hlo_op == "iota") {
    PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
    PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> dim,
                           ctx.Int({"iota_dimension", "dim"}));
    if (!dim.has_value()) return ctx.Error("missing iota_dimension");
    return ctx.SetResults(
        {ctx.Emit("iota", shape, {}, absl::StrCat("iota_dimension=", *dim))});
  }
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  if (hlo_op == "reshape") {
    return ctx.SetResults({ctx.Emit("reshape", shape, {x})});
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                         ctx.Ints({"broadcast_dimensions", "dims"}, true));
  PLEXA_ASSIGN_OR_RETURN(Value b, ctx.BroadcastTo(x, shape, dims));
  return ctx.SetResults({b});
}

}  // namespace plexa::stablehlo

namespace plexa::stablehlo {

// Ops that only annotate their operand (shardings): the operand itself.
absl::Status LowerIdentity(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  return ctx.SetResults({x});
}

}  // namespace plexa::stablehlo

namespace plexa::stablehlo {

namespace {
absl::StatusOr<std::vector<int64_t>> StaticOperand(OpContext& ctx, int64_t i,
                                                   absl::string_view what) {
  PLEXA_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> v,
                         ctx.ConstantOperand(i));
  if (!v.has_value()) {
    return ctx.Unimplemented(absl::StrCat(
        "its ", what,
        " must be a constant (dynamic shapes are not supported: Plexa's "
        "shapes are static)"));
  }
  return *std::move(v);
}
}  // namespace

// real_dynamic_slice with constant start, limit and strides: slice.
absl::Status LowerRealDynamicSlice(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(4));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> start,
                         StaticOperand(ctx, 1, "start_indices"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> limit,
                         StaticOperand(ctx, 2, "limit_indices"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                         StaticOperand(ctx, 3, "strides"));
  if (start.size() != limit.size() || start.size() != strides.size()) {
    return ctx.Error("start, limit and strides differ in length");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < start.size(); ++i) {
    parts.push_back(
        absl::StrCat("[", start[i], ":", limit[i], ":", strides[i], "]"));
  }
  return ctx.SetResults(
      {ctx.Emit("slice", shape, {x},
                absl::StrCat("slice={", absl::StrJoin(parts, ", "), "}"))});
}

// dynamic_pad with constant edge and interior paddings: pad.
absl::Status LowerDynamicPad(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(5));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands(0, 2));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> low,
                         StaticOperand(ctx, 2, "edge_padding_low"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> high,
                         StaticOperand(ctx, 3, "edge_padding_high"));
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> interior,
                         StaticOperand(ctx, 4, "interior_padding"));
  if (low.size() != high.size() || low.size() != interior.size()) {
    return ctx.Error("the padding operands differ in length");
  }
  std::vector<std::string> parts;
  for (size_t i = 0; i < low.size(); ++i) {
    parts.push_back(absl::StrCat(low[i], "_", high[i], "_", interior[i]));
  }
  return ctx.SetResults({ctx.Emit(
      "pad", shape, ops,
      absl::StrCat("padding=",
                   parts.empty() ? "{}" : absl::StrJoin(parts, "x")))});
}

}  // namespace plexa::stablehlo
