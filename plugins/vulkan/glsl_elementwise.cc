// Elementwise operations as GLSL expressions, with XLA's semantics (the
// evaluator's and the CPU code generator's): conversions, NaN-propagating
// max/min, integer division and shifts, comparisons, float functions.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "plugins/vulkan/glsl_emitter_internal.h"
#include "plugins/vulkan/glsl_small_float.h"

namespace plexa::vulkan::glsl_internal {

absl::StatusOr<std::string> Emitter::Convert(const Instruction& h,
                                             PrimitiveType from,
                                             PrimitiveType to,
                                             const std::string& x) {
  if (from == to) return x;
  const std::string r = Reg(to);
  if (to == PrimitiveType::PRED) {
    if (IsFloat(from))
      return absl::StrCat("!(", x, " == ", Const(from, 0), ")");
    return absl::StrCat("(", x, " != ", Const(from, 0), ")");
  }
  if (from == PrimitiveType::PRED) {
    return absl::StrCat("((", x, ") ? ", Const(to, 1), " : ", Const(to, 0),
                        ")");
  }
  if (IsFloat(from) && IsFloat(to)) {
    // From f64 to a type narrower than f32: rounded to odd first, so the
    // second rounding is the only one.
    if (from == PrimitiveType::F64 &&
        (to == PrimitiveType::F16 || to == PrimitiveType::BF16 ||
         IsSmallFloat(to))) {
      return Round(to, absl::StrCat("f64_to_f32_odd(", x, ")"));
    }
    return Round(to, absl::StrCat(r, "(", x, ")"));
  }
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0 (XLA).
    double lo, hi_excl;
    std::string min_v, max_v;
    if (IsSigned(to)) {
      lo = -std::ldexp(1.0, Bits(to) - 1);
      hi_excl = std::ldexp(1.0, Bits(to) - 1);
      min_v = to == PrimitiveType::S64 ? "int64_t(0x8000000000000000ul)"
                                       : IntConst(to, static_cast<int64_t>(lo));
      max_v = to == PrimitiveType::S64
                  ? "int64_t(0x7FFFFFFFFFFFFFFFl)"
                  : IntConst(to, static_cast<int64_t>(hi_excl - 1));
    } else {
      lo = 0;
      hi_excl = std::ldexp(1.0, Bits(to));
      min_v = IntConst(to, 0);
      max_v = to == PrimitiveType::U64
                  ? "uint64_t(0xFFFFFFFFFFFFFFFFul)"
                  : absl::StrCat(static_cast<uint32_t>(hi_excl - 1), "u");
    }
    const PrimitiveType ft =
        from == PrimitiveType::F64 ? PrimitiveType::F64 : PrimitiveType::F32;
    return absl::StrCat("(isnan(", x, ") ? ", IntConst(to, 0), " : (", x,
                        " <= ", FloatConst(ft, lo), " ? ", min_v, " : (", x,
                        " >= ", FloatConst(ft, hi_excl), " ? ", max_v, " : ", r,
                        "(", x, "))))");
  }
  if (IsFloat(to)) return Round(to, absl::StrCat(r, "(", x, ")"));
  return Wrap(to, absl::StrCat(r, "(", x, ")"));
}

absl::StatusOr<std::string> Emitter::BitcastConvert(const Instruction& h,
                                                    PrimitiveType from,
                                                    PrimitiveType to,
                                                    const std::string& x) {
  if (from == to) return x;
  if (Bits(from) != Bits(to) || from == PrimitiveType::PRED ||
      to == PrimitiveType::PRED) {
    return NoCode(h, "a bitcast-convert between widths");
  }
  // Through the unsigned bits of the width.
  std::string bits;
  if (IsSmallFloat(from)) {
    bits = absl::StrCat(SmallFloatFunction(from, "enc"), "(", x, ")");
  }
  if (IsSmallFloat(to)) {
    if (bits.empty()) {
      bits = Wrap(PrimitiveType::U8, absl::StrCat("uint(", x, ")"));
    }
    return absl::StrCat(SmallFloatFunction(to, "dec"), "(", bits, ")");
  }
  if (!bits.empty()) {
    if (to == PrimitiveType::U8) return bits;
    return Wrap(to, absl::StrCat(Reg(to), "(", bits, ")"));
  }
  switch (from) {
    case PrimitiveType::F32:
      bits = absl::StrCat("floatBitsToUint(", x, ")");
      break;
    case PrimitiveType::F64:
      bits = absl::StrCat("pack64(unpackDouble2x32(", x, "))");
      break;
    case PrimitiveType::F16:
      bits = absl::StrCat("f2h(", x, ")");
      break;
    case PrimitiveType::BF16:
      bits = absl::StrCat("f2bf(", x, ")");
      break;
    case PrimitiveType::S64:
      bits = absl::StrCat("uint64_t(", x, ")");
      break;
    case PrimitiveType::U64:
      bits = x;
      break;
    default:
      bits = Wrap(Bits(from) == 8    ? PrimitiveType::U8
                  : Bits(from) == 16 ? PrimitiveType::U16
                                     : PrimitiveType::U32,
                  absl::StrCat("uint(", x, ")"));
  }
  switch (to) {
    case PrimitiveType::F32:
      return absl::StrCat("uintBitsToFloat(", bits, ")");
    case PrimitiveType::F64:
      return absl::StrCat("packDouble2x32(unpack32(", bits, "))");
    case PrimitiveType::F16:
      return absl::StrCat("h2f(", bits, ")");
    case PrimitiveType::BF16:
      return absl::StrCat("uintBitsToFloat((", bits, ") << 16)");
    case PrimitiveType::S64:
      return absl::StrCat("int64_t(", bits, ")");
    case PrimitiveType::U64:
      return bits;
    default:
      return Wrap(to, absl::StrCat(Reg(to), "(", bits, ")"));
  }
}

absl::StatusOr<std::string> Emitter::FloatUnary(const Instruction& h,
                                                PrimitiveType t,
                                                const std::string& x) {
  const bool f64 = t == PrimitiveType::F64;
  const std::string r = Reg(t);
  // GLSL has no double transcendentals: exp, log, expm1, log1p, tanh and
  // logistic have double overloads in the prelude, sin, cos, tan, erf and
  // cbrt in glsl_f64_math.cc (computed in double arithmetic).
  auto f64_as = [&](std::string e, const char* fn) -> std::string {
    return f64 ? absl::StrCat(fn, "(", x, ")") : e;
  };
  switch (h.opcode()) {
    case HloOpcode::kNegate:
      return absl::StrCat("(-", x, ")");
    case HloOpcode::kAbs:
      return absl::StrCat("abs(", x, ")");
    case HloOpcode::kSign:
      return absl::StrCat("fsign(", x, ")");
    case HloOpcode::kFloor:
      return absl::StrCat("floor(", x, ")");
    case HloOpcode::kCeil:
      return absl::StrCat("ceil(", x, ")");
    case HloOpcode::kRoundNearestEven:
      return absl::StrCat("roundEven(", x, ")");
    case HloOpcode::kRoundNearestAfz:
      return absl::StrCat("round_afz(", x, ")");
    case HloOpcode::kSqrt:
      return absl::StrCat("fsqrt(", x, ")");
    case HloOpcode::kRsqrt:
      return absl::StrCat("(", r, "(1) / fsqrt(", x, "))");
    case HloOpcode::kIsFinite:
      return absl::StrCat("(!isnan(", x, ") && !isinf(", x, "))");
    case HloOpcode::kExp:
      return f64_as(absl::StrCat("exp(", x, ")"), "xexp");
    case HloOpcode::kExpm1:
      return absl::StrCat("xexpm1(", x, ")");
    case HloOpcode::kLog:
      return absl::StrCat("xlog(", x, ")");
    case HloOpcode::kLog1p:
      return absl::StrCat("xlog1p(", x, ")");
    case HloOpcode::kLogistic:
      return f64_as(absl::StrCat("(1.0 / (1.0 + exp(-", x, ")))"), "xlogistic");
    case HloOpcode::kTanh:
      return absl::StrCat("xtanh(", x, ")");
    case HloOpcode::kAsin:
      return absl::StrCat("xasin(", x, ")");
    case HloOpcode::kAcos:
      return absl::StrCat("xacos(", x, ")");
    case HloOpcode::kAtan:
      return absl::StrCat("xatan(", x, ")");
    case HloOpcode::kAsinh:
      return absl::StrCat("xasinh(", x, ")");
    case HloOpcode::kAcosh:
      return absl::StrCat("xacosh(", x, ")");
    case HloOpcode::kAtanh:
      return absl::StrCat("xatanh(", x, ")");
    case HloOpcode::kSinh:
      return absl::StrCat("xsinh(", x, ")");
    case HloOpcode::kCosh:
      return absl::StrCat("xcosh(", x, ")");
    case HloOpcode::kSin:
      return absl::StrCat("xsin(", x, ")");
    case HloOpcode::kCos:
      return absl::StrCat("xcos(", x, ")");
    case HloOpcode::kTan:
      return absl::StrCat("xtan(", x, ")");
    case HloOpcode::kErf:
      return absl::StrCat("xerf(", x, ")");
    case HloOpcode::kCbrt:
      return absl::StrCat("xcbrt(", x, ")");
    default:
      return NoCode(h, HloOpcodeString(h.opcode()));
  }
}

// stochastic-convert(x, random) to a signed integer, as the evaluator
// (core/eval/stochastic_convert.cc): NaN -> 0, infinities and values past
// the type's range saturate; else |x| = t + f (both exact in x's type)
// rounds up to t + 1 when random < trunc(f 2^w), w the random operand's
// width; the sign put back.
absl::StatusOr<std::string> Emitter::StochasticConvert(
    const Instruction& h, const std::string& x, const std::string& random) {
  const PrimitiveType from = h.operand(0)->shape().element_type();
  const PrimitiveType rt = h.operand(1)->shape().element_type();
  const PrimitiveType to = h.shape().element_type();
  if (!IsFloat(from) || !IsUnsigned(rt) || !IsSigned(to)) {
    return NoCode(h, "this stochastic-convert");
  }
  const int bits = Bits(to), w = Bits(rt);
  const bool wide = to == PrimitiveType::S64;
  const PrimitiveType ft =
      from == PrimitiveType::F64 ? PrimitiveType::F64 : PrimitiveType::F32;
  const std::string real = Reg(ft), out = Reg(to), ru = Reg(rt);
  const std::string ri = wide ? "int64_t" : "int";
  const int64_t max = static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
  const std::string max_c =
      wide ? "int64_t(0x7FFFFFFFFFFFFFFFl)" : IntConst(to, max);
  const std::string min_c =
      wide ? "int64_t(0x8000000000000000ul)" : IntConst(to, -max - 1);
  const std::string name = NewName("sc");
  absl::StrAppend(
      &functions_, out, " ", name, "(", real, " x, ", ru, " rnd) {\n",
      "  if (isnan(x)) return ", out, "(0);\n", "  if (isinf(x)) return x < ",
      real, "(0) ? ", min_c, " : ", max_c, ";\n",
      "  if (x >= ", FloatConst(ft, static_cast<double>(max)), ") return ",
      max_c, ";\n",
      "  if (x <= ", FloatConst(ft, static_cast<double>(-max - 1)), ") return ",
      min_c, ";\n", "  ", real, " a = abs(x);\n", "  ", real,
      " t = floor(a);\n", "  ", real, " f = a - t;\n", "  ", ri, " r = ", ri,
      "(t);\n", "  if (f != ", real, "(0) && rnd < ", ru, "(ldexp(f, ", w,
      "))) r += ", ri, "(1);\n", "  if (x < ", real, "(0)) r = -r;\n",
      "  return ", out, "(r);\n}\n");
  return absl::StrCat(name, "(", x, ", ", random, ")");
}

absl::StatusOr<std::string> Emitter::ReducePrecision(const Instruction& h,
                                                     PrimitiveType t,
                                                     const std::string& x) {
  // The evaluator's algorithm on the value's bits (SEMANTICS.md): round the
  // mantissa to nearest even, then out-of-range exponents become ±inf or
  // ±0; NaN stays NaN (+inf when no mantissa bits are left).
  int width, src_exp, src_mant;
  std::string to_bits, from_bits;
  switch (t) {
    case PrimitiveType::F16:
      width = 16, src_exp = 5, src_mant = 10;
      to_bits = "f2h(x)";
      from_bits = "h2f(v)";
      break;
    case PrimitiveType::BF16:
      width = 16, src_exp = 8, src_mant = 7;
      to_bits = "f2bf(x)";
      from_bits = "uintBitsToFloat(v << 16)";
      break;
    case PrimitiveType::F32:
      width = 32, src_exp = 8, src_mant = 23;
      to_bits = "floatBitsToUint(x)";
      from_bits = "uintBitsToFloat(v)";
      break;
    case PrimitiveType::F64:
      width = 64, src_exp = 11, src_mant = 52;
      to_bits = "pack64(unpackDouble2x32(x))";
      from_bits = "packDouble2x32(unpack32(v))";
      break;
    default:
      return NoCode(h,
                    absl::StrCat(primitive_util::Name(t), " reduce-precision"));
  }
  const bool wide = width == 64;
  const char* real = wide ? "double" : "float";
  const char* bits = wide ? "uint64_t" : "uint";
  const int exp_bits = h.attrs().exponent_bits;
  const int mant_bits = h.attrs().mantissa_bits;
  if (exp_bits < 1 || mant_bits < 0)
    return NoCode(h, "these reduce-precision bits");
  const std::string name = NewName("rp");
  std::string f =
      absl::StrCat(real, " ", name, "(", real, " x) {\n",
                   "  if (isnan(x)) return ", mant_bits > 0 ? "x" : "finf(x)",
                   ";\n", "  ", bits, " v = ", to_bits, ";\n");
  auto hex = [wide](uint64_t v) {
    if (wide) return absl::StrCat("0x", absl::Hex(v), "ul");
    return absl::StrCat("0x", absl::Hex(static_cast<uint32_t>(v)), "u");
  };
  if (mant_bits < src_mant) {
    const int drop = src_mant - mant_bits;
    const uint64_t last = uint64_t{1} << drop;
    absl::StrAppend(&f, "  v = (v + ((v & ", hex(last), ") >> ", drop, ") + ",
                    hex((last >> 1) - 1), ") & ", hex(~(last - 1)), ";\n");
  }
  if (exp_bits < src_exp) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    const uint64_t exp_mask = ((uint64_t{1} << src_exp) - 1) << src_mant;
    const uint64_t bias = (uint64_t{1} << (src_exp - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exp_bits - 1)) - 1;
    absl::StrAppend(&f, "  ", bits, " e = v & ", hex(exp_mask), ";\n",
                    "  if (e > ", hex((bias + reduced_bias) << src_mant),
                    ") v = (v & ", hex(sign), ") | ", hex(exp_mask), ";\n",
                    "  else if (e <= ", hex((bias - reduced_bias) << src_mant),
                    ") v = v & ", hex(sign), ";\n");
  }
  if (width < 32) {
    absl::StrAppend(&f, "  v &= ", hex((uint64_t{1} << width) - 1), ";\n");
  }
  absl::StrAppend(&f, "  return ", from_bits, ";\n}\n");
  absl::StrAppend(&functions_, f);
  return absl::StrCat(name, "(", x, ")");
}

namespace {

std::string CompareExpr(ComparisonDirection dir, const std::string& a,
                        const std::string& b) {
  switch (dir) {
    case ComparisonDirection::kEq:
      return absl::StrCat("(", a, " == ", b, ")");
    case ComparisonDirection::kNe:
      return absl::StrCat("!(", a, " == ", b, ")");
    case ComparisonDirection::kGe:
      return absl::StrCat("(", a, " >= ", b, ")");
    case ComparisonDirection::kGt:
      return absl::StrCat("(", a, " > ", b, ")");
    case ComparisonDirection::kLe:
      return absl::StrCat("(", a, " <= ", b, ")");
    case ComparisonDirection::kLt:
      return absl::StrCat("(", a, " < ", b, ")");
  }
  return "false";
}

}  // namespace

absl::StatusOr<std::string> Emitter::Elementwise(
    const Instruction& h, const std::vector<std::string>& ops) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType t =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  for (const Instruction* op : h.operands()) {
    if (absl::Status s = UseType(h, op->shape().element_type()); !s.ok()) {
      return s;
    }
  }
  if (absl::Status s = UseType(h, out); !s.ok()) return s;
  if (IsComplex(t) || IsComplex(out)) return ComplexElementwise(h, ops);
  const bool fp = IsFloat(t);
  const bool pred = t == PrimitiveType::PRED;
  const std::string a = ops.empty() ? "" : ops[0];
  const std::string b = ops.size() > 1 ? ops[1] : "";
  const std::string r = Reg(t);
  auto bin = [&](absl::string_view op) {
    std::string e = absl::StrCat("(", a, " ", op, " ", b, ")");
    return fp ? Round(t, e) : Wrap(t, e);
  };
  switch (h.opcode()) {
    case HloOpcode::kAdd:
      if (pred) return absl::StrCat("(", a, " || ", b, ")");
      return bin("+");
    case HloOpcode::kSubtract:
      if (pred) return absl::StrCat("(", a, " != ", b, ")");
      return bin("-");
    case HloOpcode::kMultiply:
      if (pred) return absl::StrCat("(", a, " && ", b, ")");
      return bin("*");
    case HloOpcode::kDivide:
      if (pred) break;
      if (fp) return bin("/");
      return Wrap(t, absl::StrCat("idiv(", a, ", ", b, ")"));
    case HloOpcode::kRemainder:
      if (pred) break;
      // Exact, on the significands as integers (the prelude's xrem).
      if (fp) return Round(t, absl::StrCat("xrem(", a, ", ", b, ")"));
      return Wrap(t, absl::StrCat("irem(", a, ", ", b, ")"));
    case HloOpcode::kMaximum:
      if (pred) return absl::StrCat("(", a, " || ", b, ")");
      return absl::StrCat(fp ? "fmaxn(" : "imax(", a, ", ", b, ")");
    case HloOpcode::kMinimum:
      if (pred) return absl::StrCat("(", a, " && ", b, ")");
      return absl::StrCat(fp ? "fminn(" : "imin(", a, ", ", b, ")");
    case HloOpcode::kAnd:
      return absl::StrCat("(", a, pred ? " && " : " & ", b, ")");
    case HloOpcode::kOr:
      return absl::StrCat("(", a, pred ? " || " : " | ", b, ")");
    case HloOpcode::kXor:
      return absl::StrCat("(", a, pred ? " != " : " ^ ", b, ")");
    case HloOpcode::kNot:
      if (pred) return absl::StrCat("(!", a, ")");
      return Wrap(t, absl::StrCat("(~", a, ")"));
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical: {
      if (fp || pred) break;
      const char* fn = h.opcode() == HloOpcode::kShiftLeft           ? "ishl"
                       : h.opcode() == HloOpcode::kShiftRightLogical ? "ishrl"
                                                                     : "ishra";
      return Wrap(t, absl::StrCat(fn, "(", a, ", ", b, ", ", Bits(t), ")"));
    }
    case HloOpcode::kMulhi:
      // The high half of the double-width product: 8 and 16 bits from
      // their product in 32 (arithmetic shift for the signed types), 32
      // and 64 bits in the prelude's imulhi.
      if (fp || pred || primitive_util::IsSubByteType(t)) break;
      if (Bits(t) <= 16) {
        return Wrap(t, absl::StrCat("((", a, " * ", b, ") >> ", Bits(t), ")"));
      }
      return absl::StrCat("imulhi(", a, ", ", b, ")");
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz: {
      if (fp || pred) break;
      const char* fn = h.opcode() == HloOpcode::kClz ? "iclz" : "ipopcnt";
      return absl::StrCat(r, "(", fn, "(", a, ", ", Bits(t), "))");
    }
    case HloOpcode::kNegate:
      if (pred) return a;
      if (!fp) return Wrap(t, absl::StrCat("(", r, "(0) - ", a, ")"));
      return FloatUnary(h, t, a);
    case HloOpcode::kAbs:
      if (pred || IsUnsigned(t)) return a;
      if (!fp)
        return Wrap(t, absl::StrCat("(", a, " < ", r, "(0) ? ", r, "(0) - ", a,
                                    " : ", a, ")"));
      return FloatUnary(h, t, a);
    case HloOpcode::kSign:
      if (pred) return a;
      if (IsUnsigned(t)) {
        return absl::StrCat("(", a, " != ", r, "(0) ? ", r, "(1) : ", r,
                            "(0))");
      }
      if (!fp) {
        return absl::StrCat("(", a, " > ", r, "(0) ? ", r, "(1) : (", a, " < ",
                            r, "(0) ? ", r, "(-1) : ", r, "(0)))");
      }
      return FloatUnary(h, t, a);
    case HloOpcode::kCompare: {
      const ComparisonDirection dir = h.attrs().comparison_direction;
      if (fp && h.attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
        return CompareExpr(dir, absl::StrCat("ftotal(", a, ")"),
                           absl::StrCat("ftotal(", b, ")"));
      }
      if (pred) {
        return CompareExpr(dir, absl::StrCat("int(", a, ")"),
                           absl::StrCat("int(", b, ")"));
      }
      return CompareExpr(dir, a, b);
    }
    case HloOpcode::kSelect:
      return absl::StrCat("(", a, " ? ", b, " : ", ops[2], ")");
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(hi, max(x, lo)) with the evaluator's choice
      // between equal values; a NaN in lo, x or hi (in that order) wins.
      const PrimitiveType vt = h.operand(1)->shape().element_type();
      if (vt == PrimitiveType::PRED) {
        return absl::StrCat("((", ops[1], " || ", a, ") && ", ops[2], ")");
      }
      if (IsFloat(vt)) {
        return absl::StrCat("fclamp(", a, ", ", ops[1], ", ", ops[2], ")");
      }
      return absl::StrCat("imin(", ops[2], ", imax(", ops[1], ", ", a, "))");
    }
    case HloOpcode::kConvert:
      return Convert(h, t, out, a);
    case HloOpcode::kStochasticConvert:
      return StochasticConvert(h, a, b);
    case HloOpcode::kReducePrecision:
      if (!fp) break;
      return ReducePrecision(h, t, a);
    case HloOpcode::kBitcastConvert:
      return BitcastConvert(h, t, out, a);
    case HloOpcode::kAtan2:
      return Round(t, absl::StrCat("xatan2(", a, ", ", b, ")"));
    case HloOpcode::kPower:
      // Integers: square and multiply, wrapping; a negative exponent gives
      // 1 for base 1 and 0 otherwise (XLA, the evaluator).
      if (!fp) return Wrap(t, absl::StrCat("ipow(", a, ", ", b, ")"));
      return Round(t, absl::StrCat("xpow(", a, ", ", b, ")"));
    default:
      if (fp) {
        absl::StatusOr<std::string> e = FloatUnary(h, t, a);
        if (!e.ok()) return e.status();
        return h.opcode() == HloOpcode::kIsFinite ? *e : Round(t, *e);
      }
      break;
  }
  return NoCode(h, absl::StrCat(HloOpcodeString(h.opcode()), " on ",
                                primitive_util::Name(t)));
}

}  // namespace plexa::vulkan::glsl_internal
