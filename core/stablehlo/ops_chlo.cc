// chlo operations that have no HLO opcode of their own, written as HLO.
// Each decomposition names its formula; they follow XLA's own chlo
// legalizations (xla/mlir_hlo chlo_legalize_to_hlo) where one exists.
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
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

namespace {

// Small arithmetic on one shape, for the decompositions below.
class Arith {
 public:
  Arith(OpContext& ctx, const Shape& shape) : ctx_(ctx), shape_(shape) {
    pred_ = shape;
    pred_.set_element_type(PrimitiveType::PRED);
  }
  Value C(absl::string_view literal) { return ctx_.Splat(shape_, literal); }
  Value C(double d) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", d);
    return C(buf);
  }
  Value Op(absl::string_view op, std::vector<Value> v) {
    return ctx_.Emit(op, shape_, v);
  }
  Value Add(Value a, Value b) { return Op("add", {a, b}); }
  Value Sub(Value a, Value b) { return Op("subtract", {a, b}); }
  Value Mul(Value a, Value b) { return Op("multiply", {a, b}); }
  Value Div(Value a, Value b) { return Op("divide", {a, b}); }
  Value Cmp(Value a, Value b, absl::string_view dir) {
    return ctx_.Emit("compare", pred_, {a, b}, absl::StrCat("direction=", dir));
  }
  Value Select(Value p, Value a, Value b) {
    return ctx_.Emit("select", shape_, {p, a, b});
  }
  const Shape& pred() const { return pred_; }

 private:
  OpContext& ctx_;
  Shape shape_;
  Shape pred_;
};

// The Lanczos approximation XLA uses for lgamma and digamma (g = 7, n = 9;
// Numerical Recipes' coefficients as in xla/client/lib/math.cc).
constexpr double kLanczosGamma = 7;
constexpr double kBaseLanczosCoeff = 0.99999999999980993227684700473478;
constexpr double kLanczosCoefficients[] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

// The operand in the type the series runs in: f32 for f16/bf16/f32, f64.
absl::StatusOr<std::pair<Value, Shape>> SeriesOperand(OpContext& ctx) {
  PLEXA_RETURN_IF_ERROR(ctx.ExpectOperands(1));
  PLEXA_ASSIGN_OR_RETURN(Value x, ctx.Operand(0));
  const PrimitiveType et = x.shape.element_type();
  if (!IsFloatType(et) || x.shape.IsTuple()) {
    return ctx.Error("expected a floating-point operand");
  }
  Shape s = x.shape;
  if (et != PrimitiveType::F64) {
    s.set_element_type(PrimitiveType::F32);
    if (et != PrimitiveType::F32) x = ctx.Emit("convert", s, {x});
  }
  return std::make_pair(x, s);
}

absl::Status SetConverted(OpContext& ctx, Value v) {
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ctx.ResultType(0));
  if (shape.element_type() != v.shape.element_type()) {
    v = ctx.Emit("convert", shape, {v});
  }
  return ctx.SetResults({v});
}

}  // namespace

// lgamma(x), as XLA: for x >= 0.5, with z = x - 1 and t = z + g + 0.5,
//   lgamma(x) = log(sqrt(2 pi)) + (z + 0.5 - t / log t) log t + log A(z),
//   A(z) = c0 + sum_i c_i / (z + i + 1);
// for x < 0.5 the reflection log(pi) - log|sin(pi x)| - lgamma(1 - x)
// (with the fractional part folded into [0, 0.5] for sin's accuracy);
// +inf at +-inf. f16/bf16 are computed in f32.
absl::Status LowerChloLgamma(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(auto xs, SeriesOperand(ctx));
  auto [input, s] = xs;
  Arith a(ctx, s);
  Value one = a.C(1), half = a.C(0.5);
  Value reflect = a.Cmp(input, half, "LT");
  Value z = a.Select(reflect, a.Op("negate", {input}), a.Sub(input, one));
  Value x = a.C(kBaseLanczosCoeff);
  for (int i = 0; i < 8; ++i) {
    x = a.Add(x, a.Div(a.C(kLanczosCoefficients[i]),
                       a.Add(z, a.C(static_cast<double>(i + 1)))));
  }
  const double gh = kLanczosGamma + 0.5;
  Value t = a.Add(z, a.C(gh));
  Value log_t =
      a.Add(a.Op("log-plus-one", {a.Div(z, a.C(gh))}), a.C(std::log(gh)));
  Value log_y =
      a.Add(a.Add(a.C(0.91893853320467274178032973640562),  // log(sqrt(2 pi))
                  a.Mul(a.Sub(a.Add(z, half), a.Div(t, log_t)), log_t)),
            a.Op("log", {x}));
  Value abs_input = a.Op("abs", {input});
  Value frac = a.Sub(abs_input, a.Op("floor", {abs_input}));
  Value reduced = a.Select(a.Cmp(frac, half, "GT"), a.Sub(one, frac), frac);
  Value denom = a.Op(
      "log", {a.Op("sine", {a.Mul(a.C(3.14159265358979323846), reduced)})});
  Value finite = ctx.Emit("is-finite", a.pred(), {denom});
  Value reflection = a.Select(
      finite, a.Sub(a.Sub(a.C(1.1447298858494002), denom), log_y),  // log(pi)
      a.Op("negate", {denom}));
  Value result = a.Select(reflect, reflection, log_y);
  Value is_inf = a.Cmp(abs_input, a.C("inf"), "EQ");
  return SetConverted(ctx, a.Select(is_inf, a.C("inf"), result));
}

// digamma(x), as XLA: for x >= 0.5, with z = x - 1, t = z + g + 0.5,
//   digamma(x) = log t + A'(z) / A(z) - g / t,
//   A'(z) = -sum_i c_i / (z + i + 1)^2;
// for x < 0.5 the reflection digamma(1 - x) - pi cos(pi x) / sin(pi x)
// (x shifted by an integer for sin/cos's accuracy); NaN at the poles
// (0 and the negative integers).
absl::Status LowerChloDigamma(OpContext& ctx, absl::string_view) {
  PLEXA_ASSIGN_OR_RETURN(auto xs, SeriesOperand(ctx));
  auto [input, s] = xs;
  Arith a(ctx, s);
  Value one = a.C(1), half = a.C(0.5);
  Value reflect = a.Cmp(input, half, "LT");
  Value z = a.Select(reflect, a.Op("negate", {input}), a.Sub(input, one));
  Value num = a.C(0);
  Value denom = a.C(kBaseLanczosCoeff);
  for (int i = 0; i < 8; ++i) {
    Value zi = a.Add(z, a.C(static_cast<double>(i + 1)));
    Value c = a.C(kLanczosCoefficients[i]);
    num = a.Sub(num, a.Div(c, a.Mul(zi, zi)));
    denom = a.Add(denom, a.Div(c, zi));
  }
  const double gh = kLanczosGamma + 0.5;
  Value t = a.Add(z, a.C(gh));
  Value log_t =
      a.Add(a.C(std::log(gh)), a.Op("log-plus-one", {a.Div(z, a.C(gh))}));
  Value y =
      a.Sub(a.Add(log_t, a.Div(num, denom)), a.Div(a.C(kLanczosGamma), t));
  Value reduced =
      a.Add(input, a.Op("abs", {a.Op("floor", {a.Add(input, half)})}));
  Value pi = a.C(3.14159265358979323846);
  Value pix = a.Mul(pi, reduced);
  Value reflection =
      a.Sub(y, a.Div(a.Mul(pi, a.Op("cosine", {pix})), a.Op("sine", {pix})));
  Value result = a.Select(reflect, reflection, y);
  Value pole = ctx.Emit(
      "and", a.pred(),
      {a.Cmp(input, a.C(0), "LE"), a.Cmp(input, a.Op("floor", {input}), "EQ")});
  return SetConverted(ctx, a.Select(pole, a.C("nan"), result));
}

absl::Status LowerRefused(OpContext& ctx, absl::string_view reason) {
  return ctx.Unimplemented(reason);
}

}  // namespace plexa::stablehlo
