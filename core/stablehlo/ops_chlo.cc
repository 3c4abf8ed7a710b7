// chlo operations that have no HLO opcode of their own, written as HLO.
// Each decomposition names its formula; they follow XLA's own chlo
// legalizations (xla/mlir_hlo chlo_legalize_to_hlo) where one exists.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/ops.h"

namespace plexa::stablehlo {
namespace {

Shape WithType(const Shape& s, PrimitiveType t) {
  Shape out = s;
  out.set_element_type(t);
  return out;
}

// Operands broadcast to the result's dimensions (numpy rules, or the
// op's broadcast_dimensions for the lower-rank operand).
absl::StatusOr<std::vector<Value>> Broadcasted(OpContext& ctx,
                                               const Shape& result) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, ctx.Operands());
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> bdims,
                         ctx.Ints({"broadcast_dimensions"}, false));
  for (Value& v : ops) {
    if (!v.shape.IsArray()) return ctx.Error("operands must be tensors");
    if (v.shape.dimensions() == result.dimensions()) continue;
    std::optional<std::vector<int64_t>> dims;
    if (!bdims.empty() && v.shape.rank() < result.rank() &&
        static_cast<int64_t>(bdims.size()) == v.shape.rank()) {
      dims = bdims;
    }
    if (v.shape.rank() > result.rank()) {
      return ctx.Error("an operand has a higher rank than the result");
    }
    PLEXA_ASSIGN_OR_RETURN(v, ctx.BroadcastTo(v, result, dims));
  }
  return ops;
}

bool IsFloatType(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
         t == PrimitiveType::F32 || t == PrimitiveType::F64;
}

}  // namespace

absl::Status LowerChloBroadcastBinary(OpContext& ctx,
                                      absl::string_view hlo_op) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, Broadcasted(ctx, shape));
  return ctx.SetResults({ctx.Emit(hlo_op, shape, ops)});
}

absl::Status LowerChloBroadcastCompare(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, Broadcasted(ctx, shape));
  std::optional<std::string> dir = ctx.Enum({"comparison_direction"});
  if (!dir.has_value()) return ctx.Error("missing comparison_direction");
  std::string attrs = absl::StrCat("direction=", *dir);
  std::optional<std::string> type = ctx.Enum({"compare_type"});
  if (type.has_value() && *type != "NOTYPE") {
    absl::StrAppend(&attrs, ", type=", *type);
  }
  return ctx.SetResults({ctx.Emit("compare", shape, ops, attrs)});
}

absl::Status LowerChloBroadcastSelect(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(3));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Value> ops, Broadcasted(ctx, shape));
  return ctx.SetResults({ctx.Emit("select", shape, ops)});
}

// square(x) = x * x.
absl::Status LowerChloSquare(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  return ctx.SetResults({ctx.Emit("multiply", shape, {x, x})});
}

// is_inf(x) = |x| == inf; is_pos_inf(x) = x == inf; is_neg_inf(x) =
// x == -inf (IEEE comparisons: NaN gives false).
absl::Status LowerChloIsInf(OpContext& ctx, absl::string_view which) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (!IsFloatType(x.shape.element_type())) {
    return ctx.Error("expected a floating-point operand");
  }
  Value v = which == "inf" ? ctx.Emit("abs", x.shape, {x}) : x;
  Value inf = ctx.Splat(x.shape, which == "neg" ? "-inf" : "inf");
  return ctx.SetResults({ctx.Emit("compare", shape, {v, inf}, "direction=EQ")});
}

// erfc(x) = 1 - erf(x). Absolute error as erf's; the relative error grows
// for large x where erfc(x) is tiny (x > ~4 in f32 rounds to 0).
absl::Status LowerChloErfc(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (!IsFloatType(x.shape.element_type())) {
    return ctx.Error("expected a floating-point operand");
  }
  Value erf = ctx.Emit("erf", shape, {x});
  Value one = ctx.Splat(shape, "1");
  return ctx.SetResults({ctx.Emit("subtract", shape, {one, erf})});
}

// erf_inv(x): Giles, "Approximating the erfinv function" (GPU Computing
// Gems, 2011), the single-precision branch XLA uses for f32:
//   w = -log((1 - x)(1 + x))
//   w < 5:  p = P1(w - 2.5)     else: p = P2(sqrt(w) - 3)
//   erf_inv(x) = p * x, and ±inf at x = ±1.
// Computed in f32 (f16/bf16 are converted); f64 is refused rather than
// given single precision.
absl::Status LowerChloErfInv(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x_in, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const PrimitiveType et = x_in.shape.element_type();
  if (et == PrimitiveType::F64) {
    return ctx.Unimplemented(
        "erf_inv on f64 (only the single-precision approximation is "
        "implemented)");
  }
  if (!IsFloatType(et)) return ctx.Error("expected a floating-point operand");
  const Shape f = WithType(shape, PrimitiveType::F32);
  const Shape pred = WithType(shape, PrimitiveType::PRED);
  Value x = et == PrimitiveType::F32 ? x_in : ctx.Emit("convert", f, {x_in});
  Value one = ctx.Splat(f, "1");
  Value w = ctx.Emit("negate", f,
                     {ctx.Emit("log", f,
                               {ctx.Emit("multiply", f,
                                         {ctx.Emit("subtract", f, {one, x}),
                                          ctx.Emit("add", f, {one, x})})})});
  static const char* const kSmall[] = {
      "2.81022636e-08",  "3.43273939e-07", "-3.5233877e-06",
      "-4.39150654e-06", "0.00021858087",  "-0.00125372503",
      "-0.00417768164",  "0.246640727",    "1.50140941"};
  static const char* const kLarge[] = {
      "-0.000200214257", "0.000100950558", "0.00134934322",
      "-0.00367342844",  "0.00573950773",  "-0.0076224613",
      "0.00943887047",   "1.00167406",     "2.83297682"};
  auto horner = [&](const Value& t, const char* const* c) {
    Value p = ctx.Splat(f, c[0]);
    for (int i = 1; i < 9; ++i) {
      p = ctx.Emit("add", f,
                   {ctx.Splat(f, c[i]), ctx.Emit("multiply", f, {p, t})});
    }
    return p;
  };
  Value small =
      horner(ctx.Emit("subtract", f, {w, ctx.Splat(f, "2.5")}), kSmall);
  Value large = horner(
      ctx.Emit("subtract", f, {ctx.Emit("sqrt", f, {w}), ctx.Splat(f, "3")}),
      kLarge);
  Value is_small =
      ctx.Emit("compare", pred, {w, ctx.Splat(f, "5")}, "direction=LT");
  Value p = ctx.Emit("select", f, {is_small, small, large});
  Value result = ctx.Emit("multiply", f, {p, x});
  // |x| == 1: w is inf and the polynomial gives inf*0 = nan; XLA returns
  // x * inf there.
  Value at_one =
      ctx.Emit("compare", pred, {ctx.Emit("abs", f, {x}), one}, "direction=EQ");
  Value inf = ctx.Emit("multiply", f, {x, ctx.Splat(f, "inf")});
  result = ctx.Emit("select", f, {at_one, inf, result});
  if (et != PrimitiveType::F32) result = ctx.Emit("convert", shape, {result});
  return ctx.SetResults({result});
}

// conj(x) = complex(real(x), -imag(x)); the identity on real types.
absl::Status LowerChloConj(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const PrimitiveType et = x.shape.element_type();
  if (et != PrimitiveType::C64 && et != PrimitiveType::C128) {
    return ctx.SetResults({x});
  }
  const Shape part =
      WithType(shape, et == PrimitiveType::C64 ? PrimitiveType::F32
                                               : PrimitiveType::F64);
  Value re = ctx.Emit("real", part, {x});
  Value im = ctx.Emit("negate", part, {ctx.Emit("imag", part, {x})});
  return ctx.SetResults({ctx.Emit("complex", shape, {re, im})});
}

// constant_like(x) {value}: the value broadcast to x's shape.
absl::Status LowerChloConstantLike(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  const MAttr* value = ctx.Attr({"value"});
  if (value == nullptr) return ctx.Error("missing value");
  PLEXA_ASSIGN_OR_RETURN(std::string lit,
                         ScalarToLiteral(*value, shape.element_type()));
  return ctx.SetResults({ctx.Splat(shape, lit)});
}

absl::Status LowerChloTopK(OpContext& ctx, absl::string_view) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  PLEXA_ASSIGN_OR_RETURN(std::optional<int64_t> k, ctx.Int({"k"}));
  if (!k.has_value()) return ctx.Error("missing k");
  PLEXA_ASSIGN_OR_RETURN(Shape values, ctx.ResultType(0));
  PLEXA_ASSIGN_OR_RETURN(Shape indices, ctx.ResultType(1));
  Value t = ctx.Emit("topk", ShapeUtil::MakeTupleShape({values, indices}), {x},
                     absl::StrCat("k=", *k, ", largest=true"));
  return ctx.SetTupleResults(t);
}

// next_after(x, y), as XLA's chlo legalization, on the bits:
//   NaN if either is NaN; y if x == y; the smallest subnormal with y's
//   sign if x == 0; else bits(x) - 1 when |x| > |y| or the signs differ,
//   bits(x) + 1 otherwise.
absl::Status LowerChloNextAfter(OpContext& ctx, absl::string_view mode) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(2));
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  std::vector<Value> ops;
  if (mode == "broadcast") {
    PLEXA_ASSIGN_OR_RETURN(ops, Broadcasted(ctx, shape));
  } else {
    PLEXA_ASSIGN_OR_RETURN(ops, ctx.Operands());
  }
  const PrimitiveType et = shape.element_type();
  PrimitiveType it;
  std::string sign_mask, nan_bits;
  switch (et) {
    case PrimitiveType::F32:
      it = PrimitiveType::S32;
      sign_mask = "-2147483648";
      nan_bits = "2143289344";  // 0x7FC00000
      break;
    case PrimitiveType::F64:
      it = PrimitiveType::S64;
      sign_mask = "-9223372036854775808";
      nan_bits = "9221120237041090560";  // 0x7FF8000000000000
      break;
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      it = PrimitiveType::S16;
      sign_mask = "-32768";
      nan_bits = et == PrimitiveType::F16 ? "32256" : "32704";
      break;
    default:
      return ctx.Error("expected a floating-point type");
  }
  const Shape ishape = WithType(shape, it);
  const Shape pred = WithType(shape, PrimitiveType::PRED);
  Value x = ops[0], y = ops[1];
  Value xi = ctx.Emit("bitcast-convert", ishape, {x});
  Value yi = ctx.Emit("bitcast-convert", ishape, {y});
  Value mask = ctx.Splat(ishape, sign_mask);
  Value not_mask = ctx.Emit("not", ishape, {mask});
  Value x_abs = ctx.Emit("and", ishape, {xi, not_mask});
  Value y_abs = ctx.Emit("and", ishape, {yi, not_mask});
  Value x_sign = ctx.Emit("and", ishape, {xi, mask});
  Value y_sign = ctx.Emit("and", ishape, {yi, mask});
  Value zero = ctx.Splat(ishape, "0");
  Value one = ctx.Splat(ishape, "1");
  Value x_is_zero = ctx.Emit("compare", pred, {x_abs, zero}, "direction=EQ");
  Value y_is_zero = ctx.Emit("compare", pred, {y_abs, zero}, "direction=EQ");
  Value nan_in = ctx.Emit("or", pred,
                          {ctx.Emit("compare", pred, {x, x}, "direction=NE"),
                           ctx.Emit("compare", pred, {y, y}, "direction=NE")});
  Value equal = ctx.Emit("compare", pred, {x, y}, "direction=EQ");
  Value decrement =
      ctx.Emit("or", pred,
               {ctx.Emit("compare", pred, {x_abs, y_abs}, "direction=GT"),
                ctx.Emit("compare", pred, {x_sign, y_sign}, "direction=NE")});
  Value step =
      ctx.Emit("select", ishape, {decrement, ctx.Splat(ishape, "-1"), one});
  Value r = ctx.Emit("add", ishape, {xi, step});
  Value from_zero = ctx.Emit(
      "select", ishape, {y_is_zero, yi, ctx.Emit("or", ishape, {y_sign, one})});
  r = ctx.Emit("select", ishape, {x_is_zero, from_zero, r});
  r = ctx.Emit("select", ishape, {equal, yi, r});
  r = ctx.Emit("select", ishape, {nan_in, ctx.Splat(ishape, nan_bits), r});
  return ctx.SetResults({ctx.Emit("bitcast-convert", shape, {r})});
}

absl::Status LowerRefused(OpContext& ctx, absl::string_view reason) {
  return ctx.Unimplemented(reason);
}

}  // namespace plexa::stablehlo
