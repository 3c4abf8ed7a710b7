// Complex values on the device: c64 as vec2 and c128 as dvec2 (real,
// imaginary), with the evaluator's semantics (std::complex): data movement
// and index maps, add, subtract, negate, multiply, divide (Smith's
// scaling), complex, real, imag, abs (scaled, no overflow), sign, compare
// EQ/NE, select, convert, sqrt, rsqrt, exp, log, sin, cos, tan, sinh,
// cosh, tanh, expm1, log1p, cbrt, logistic, power and atan2 (c128's on the
// double functions of the prelude and glsl_f64_math.cc); reductions
// through their reducers. The inverse functions, and dot or convolution
// of complex values, run on the host (UseType refuses them by opcode).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {

bool ComplexCode(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter:
    case HloOpcode::kConstant:
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kBitcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kConcatenate:
    case HloOpcode::kPad:
    case HloOpcode::kReverse:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kGather:
    case HloOpcode::kSelect:
    case HloOpcode::kTuple:
    case HloOpcode::kGetTupleElement:
    case HloOpcode::kFusion:
    case HloOpcode::kReduce:
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kNegate:
    case HloOpcode::kComplex:
    case HloOpcode::kReal:
    case HloOpcode::kImag:
    case HloOpcode::kAbs:
    case HloOpcode::kSign:
    case HloOpcode::kCompare:
    case HloOpcode::kConvert:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kExp:
    case HloOpcode::kLog:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kTan:
    case HloOpcode::kSinh:
    case HloOpcode::kCosh:
    case HloOpcode::kTanh:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog1p:
    case HloOpcode::kCbrt:
    case HloOpcode::kLogistic:
    case HloOpcode::kPower:
    case HloOpcode::kAtan2:
    case HloOpcode::kDot:  // multiply-add by cmul
    case HloOpcode::kRaggedDot:
    case HloOpcode::kTriangularSolve:
    case HloOpcode::kCholesky:
      return true;
    default:
      return false;
  }
}

namespace {

// Written once with C (the complex type), R (its part), INF, BIG (a
// magnitude whose square root's scaling stays finite) and S (copysign)
// and instantiated per type; GLSL overloads the names.
constexpr char kComplexTemplate[] = R"(
R csgn(R m, R s) { return S(m, s); }
// C's Annex G, as the evaluator's std::complex: the naive product, and
// where both parts come out NaN the infinities recovered.
C cmul(C a, C b) {
  R ac = a.x * b.x, bd = a.y * b.y, ad = a.x * b.y, bc = a.y * b.x;
  C r = C(ac - bd, ad + bc);
  if (!(isnan(r.x) && isnan(r.y))) return r;
  R x = a.x, y = a.y, u = b.x, v = b.y;
  bool again = false;
  if (isinf(x) || isinf(y)) {
    x = csgn(isinf(x) ? R(1) : R(0), x);
    y = csgn(isinf(y) ? R(1) : R(0), y);
    if (isnan(u)) u = csgn(R(0), u);
    if (isnan(v)) v = csgn(R(0), v);
    again = true;
  }
  if (isinf(u) || isinf(v)) {
    u = csgn(isinf(u) ? R(1) : R(0), u);
    v = csgn(isinf(v) ? R(1) : R(0), v);
    if (isnan(x)) x = csgn(R(0), x);
    if (isnan(y)) y = csgn(R(0), y);
    again = true;
  }
  if (!again && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
    if (isnan(x)) x = csgn(R(0), x);
    if (isnan(y)) y = csgn(R(0), y);
    if (isnan(u)) u = csgn(R(0), u);
    if (isnan(v)) v = csgn(R(0), v);
    again = true;
  }
  if (again) r = C(INF * (x * u - y * v), INF * (x * v + y * u));
  return r;
}
// Smith's quotient, then Annex G's recovery of infinities and zeros.
C cdiv(C a, C b) {
  C r;
  if (abs(b.x) >= abs(b.y)) {
    R q = b.y / b.x;
    R d = b.x + b.y * q;
    r = C((a.x + a.y * q) / d, (a.y - a.x * q) / d);
  } else {
    R q = b.x / b.y;
    R d = b.y + b.x * q;
    r = C((a.x * q + a.y) / d, (a.y * q - a.x) / d);
  }
  if (!(isnan(r.x) && isnan(r.y))) return r;
  bool a_finite = !isinf(a.x) && !isnan(a.x) && !isinf(a.y) && !isnan(a.y);
  bool b_finite = !isinf(b.x) && !isnan(b.x) && !isinf(b.y) && !isnan(b.y);
  if (b.x == R(0) && b.y == R(0) && (!isnan(a.x) || !isnan(a.y))) {
    R i = csgn(INF, b.x);
    return C(i * a.x, i * a.y);
  }
  if ((isinf(a.x) || isinf(a.y)) && b_finite) {
    R x = csgn(isinf(a.x) ? R(1) : R(0), a.x);
    R y = csgn(isinf(a.y) ? R(1) : R(0), a.y);
    return C(INF * (x * b.x + y * b.y), INF * (y * b.x - x * b.y));
  }
  if ((isinf(b.x) || isinf(b.y)) && a_finite) {
    R x = csgn(isinf(b.x) ? R(1) : R(0), b.x);
    R y = csgn(isinf(b.y) ? R(1) : R(0), b.y);
    return C(R(0) * (a.x * x + a.y * y), R(0) * (a.y * x - a.x * y));
  }
  return r;
}
R cabs(C a) {
  R x = abs(a.x), y = abs(a.y);
  if (isinf(x) || isinf(y)) return INF;  // even beside a NaN
  R m = max(x, y);
  if (m == R(0) || isnan(x) || isnan(y)) return x + y;
  R q = min(x, y) / m;
  return m * sqrt(R(1) + q * q);
}
C csign(C a) {
  if (a.x == R(0) && a.y == R(0)) return a;
  R m = cabs(a);
  return C(a.x / m, a.y / m);
}
C csqrt_near(C a) {
  R t = sqrt(R(0.5) * (abs(a.x) + cabs(a)));
  if (a.x >= R(0)) return C(t, a.y / (R(2) * t));
  return C(abs(a.y) / (R(2) * t), csgn(t, a.y));
}
// The principal root; |z| near the type's limit is scaled by 1/4 first.
C csqrt(C a) {
  if (a.x == R(0) && a.y == R(0)) return C(R(0), a.y);
  if (isinf(a.y)) return C(INF, a.y);
  if (isinf(a.x) || isnan(a.x) || isnan(a.y)) return csqrt_near(a);
  if (max(abs(a.x), abs(a.y)) > BIG) {
    C s = csqrt_near(C(a.x * R(0.25), a.y * R(0.25)));
    return C(s.x * R(2), s.y * R(2));
  }
  return csqrt_near(a);
}
C crsqrt(C a) { return cdiv(C(R(1), R(0)), csqrt(a)); }
)";

// The complex functions, instantiated like the template above, with EXP
// and LOG (the f64 ones are the prelude's and glsl_f64_math.cc's), NAN and
// TANH_BIG (past it sinh(x)^2 overflows and tanh(x) is +-1). As the
// evaluator's std::complex (glibc): exp and log; sinh, cosh and tanh with
// C's Annex G special values, and sin, cos, tan from them (sin z = -i
// sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz)); expm1, log1p, cbrt,
// logistic, power and atan2 by the evaluator's own formulas
// (core/eval/elementwise.cc).
constexpr char kComplexFunctions[] = R"(
C cexp(C a) {
  if (isinf(a.x) && (isinf(a.y) || isnan(a.y))) {
    // (a NaN constant: the compiler may fold y - y to 0)
    return a.x < R(0) ? C(R(0), R(0)) : C(a.x, NAN);
  }
  R e = EXP(a.x);
  if (a.y == R(0)) return C(e, a.y);
  return C(e * xcos(a.y), e * xsin(a.y));
}
C clog(C a) { return C(LOG(cabs(a)), xatan2(a.y, a.x)); }
bool cfinite(R v) { return !isinf(v) && !isnan(v); }
C csinh(C z) {
  R x = z.x, y = z.y;
  if (cfinite(x) && cfinite(y)) {
    if (y == R(0)) return C(xsinh(x), y);
    R c = xcos(y), s = xsin(y);
    if (abs(x) < TANH_BIG * R(2)) return C(xsinh(x) * c, xcosh(x) * s);
    R h = EXP(R(0.5) * abs(x));  // e^|x| / 2 in two factors
    R re = (R(0.5) * h * c) * h;
    return C(x < R(0) ? -re : re, (R(0.5) * h * s) * h);
  }
  if (isinf(x)) {
    if (y == R(0)) return C(x, y);
    if (cfinite(y)) {
      R re = csgn(INF, xcos(y));
      return C(x < R(0) ? -re : re, csgn(INF, xsin(y)));
    }
    return C(INF, NAN);  // the sign is unspecified: glibc's +inf
  }
  if (cfinite(x)) return C(x == R(0) ? x : NAN, NAN);
  return C(NAN, y == R(0) ? y : NAN);
}
C ccosh(C z) {
  R x = z.x, y = z.y;
  if (cfinite(x) && cfinite(y)) {
    if (y == R(0)) return C(xcosh(x), csgn(R(1), x) * y);
    R c = xcos(y), s = xsin(y);
    if (abs(x) < TANH_BIG * R(2)) return C(xcosh(x) * c, xsinh(x) * s);
    R h = EXP(R(0.5) * abs(x));
    R im = (R(0.5) * h * s) * h;
    return C((R(0.5) * h * c) * h, x < R(0) ? -im : im);
  }
  if (isinf(x)) {
    if (y == R(0)) return C(INF, csgn(R(1), x) * y);
    if (cfinite(y)) {
      R im = csgn(INF, xsin(y));
      return C(csgn(INF, xcos(y)), x < R(0) ? -im : im);
    }
    return C(INF, NAN);
  }
  if (cfinite(x)) return C(NAN, x == R(0) ? R(0) : NAN);
  return C(NAN, y == R(0) ? y : NAN);
}
C ctanh(C z) {
  R x = z.x, y = z.y;
  if (isinf(x)) {
    R im = !cfinite(y) ? R(0) : (y == R(0) ? y : csgn(R(0), xsin(y) * xcos(y)));
    return C(csgn(R(1), x), im);
  }
  if (isnan(x)) return C(NAN, y == R(0) ? y : NAN);
  if (!cfinite(y)) return C(x == R(0) ? x : NAN, NAN);
  if (abs(x) > TANH_BIG) {
    R e = EXP(R(-2) * abs(x));
    return C(csgn(R(1), x), R(4) * xsin(y) * xcos(y) * e);
  }
  R sx = xsinh(x), cx = xcosh(x), s = xsin(y), c = xcos(y);
  R den = sx * sx + c * c;
  return C(sx * cx / den, s * c / den);
}
C csin(C z) {
  C w = csinh(C(-z.y, z.x));
  // NaN + i inf: the infinity's sign is unspecified; glibc's is +.
  return C(w.y, isnan(w.y) && isinf(w.x) ? INF : -w.x);
}
C ccos(C z) { return ccosh(C(-z.y, z.x)); }
C ctan(C z) { C w = ctanh(C(-z.y, z.x)); return C(w.y, -w.x); }
C cexpm1(C z) {
  R s = xsin(R(0.5) * z.y);
  return C(xexpm1(z.x) * xcos(z.y) - R(2) * s * s, EXP(z.x) * xsin(z.y));
}
C clog1p(C z) {
  if (abs(z.x) < R(0.5) && abs(z.y) < R(0.5)) {
    return C(R(0.5) * xlog1p(z.x * (R(2) + z.x) + z.y * z.y),
             xatan2(z.y, R(1) + z.x));
  }
  // 1 + z, its imaginary part 0 + y spelled out: the compiler folds 0 + y
  // to y (even `precise`), which is -0 for y = -0 where IEEE gives +0,
  // and log's imaginary part would be -pi instead of +pi.
  return clog(C(R(1) + z.x, z.y == R(0) ? R(0) : z.y));
}
C ccbrt(C z) {
  if (z.x == R(0) && z.y == R(0)) return z;
  return cexp(clog(z) / R(3));
}
C clogistic(C z) { return cdiv(C(R(1), R(0)), C(R(1), R(0)) + cexp(-z)); }
// XLA's special cases (Kahan's "Branch Cuts for Complex Elementary
// Functions", section 10), then C's cpow: exp(y log x).
C cpow(C x, C y) {
  if ((x.x == R(1) && x.y == R(0)) || (y.x == R(0) && y.y == R(0))) {
    return C(R(1), R(0));
  }
  bool x_pos_inf = x.y == R(0) && x.x > R(0) && isinf(x.x);
  if (x_pos_inf && y.y == R(0) && y.x > R(0)) return x;
  if (x_pos_inf && y.y == R(0) && y.x < R(0)) return C(R(0), R(0));
  return cexp(cmul(y, clog(x)));
}
// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), as XLA.
C catan2(C y, C x) {
  C i = C(R(0), R(1));
  C q = cdiv(x + cmul(i, y), csqrt(cmul(x, x) + cmul(y, y)));
  return cmul(-i, clog(q));
}
)";

// The complex functions a shader's code calls (each name followed by "(").
constexpr const char* kComplexFunctionNames[] = {
    "cexp", "clog",   "csinh",  "ccosh", "ctanh",     "csin", "ccos",
    "ctan", "cexpm1", "clog1p", "ccbrt", "clogistic", "cpow", "catan2"};

}  // namespace

std::string ComplexPrelude(bool c64, bool c128, absl::string_view body) {
  // The functions only where called: c128's pull in the double sin, cos
  // and atan2 (glsl_f64_math.cc).
  bool functions = false;
  for (const char* name : kComplexFunctionNames) {
    functions |= absl::StrContains(body, absl::StrCat(name, "("));
  }
  std::string out;
  if (c64) {
    const std::vector<std::pair<std::string, std::string>> f32 = {
        {"C(", "vec2("},
        {"C ", "vec2 "},
        {"R(", "float("},
        {"R ", "float "},
        {"INF", "uintBitsToFloat(0x7f800000u)"},
        {"BIG", "1.0e37"},
        {"S(m, s)",
         "uintBitsToFloat((floatBitsToUint(m) & 0x7fffffffu) | "
         "(floatBitsToUint(s) & 0x80000000u))"},
        {"EXP", "exp"},
        {"LOG", "log"},
        {"NAN", "uintBitsToFloat(0x7fc00000u)"},
        {"TANH_BIG", "44.0"}};
    out += absl::StrReplaceAll(kComplexTemplate, f32);
    if (functions) out += absl::StrReplaceAll(kComplexFunctions, f32);
  }
  if (c128) {
    const std::vector<std::pair<std::string, std::string>> f64 = {
        {"C(", "dvec2("},
        {"C ", "dvec2 "},
        {"R(", "double("},
        {"R ", "double "},
        {"INF", "packDouble2x32(uvec2(0u, 0x7ff00000u))"},
        {"BIG", "1.0e307lf"},
        {"S(m, s)",
         "packDouble2x32(uvec2(unpackDouble2x32(m).x, "
         "(unpackDouble2x32(m).y & 0x7fffffffu) | "
         "(unpackDouble2x32(s).y & 0x80000000u)))"},
        {"EXP", "xexp"},
        {"LOG", "xlog"},
        {"NAN", "packDouble2x32(uvec2(0u, 0x7ff80000u))"},
        {"TANH_BIG", "354.0lf"}};
    out += absl::StrReplaceAll(kComplexTemplate, f64);
    if (functions) out += absl::StrReplaceAll(kComplexFunctions, f64);
  }
  return out;
}

absl::StatusOr<std::string> Emitter::ComplexElementwise(
    const Instruction& h, const std::vector<std::string>& ops) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType t =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  const std::string a = ops.empty() ? "" : ops[0];
  const std::string b = ops.size() > 1 ? ops[1] : "";
  auto call = [&](absl::string_view fn) {
    return absl::StrCat(fn, "(", absl::StrJoin(ops, ", "), ")");
  };
  switch (h.opcode()) {
    case HloOpcode::kAdd:
      return absl::StrCat("(", a, " + ", b, ")");
    case HloOpcode::kSubtract:
      return absl::StrCat("(", a, " - ", b, ")");
    case HloOpcode::kNegate:
      return absl::StrCat("(-", a, ")");
    case HloOpcode::kMultiply:
      return call("cmul");
    case HloOpcode::kDivide:
      return call("cdiv");
    case HloOpcode::kSqrt:
      return call("csqrt");
    case HloOpcode::kRsqrt:
      return call("crsqrt");
    case HloOpcode::kSign:
      return call("csign");
    case HloOpcode::kAbs:
      return call("cabs");
    case HloOpcode::kReal:
      return absl::StrCat("(", a, ").x");
    case HloOpcode::kImag:
      return absl::StrCat("(", a, ").y");
    case HloOpcode::kComplex:
      return absl::StrCat(Reg(out), "(", a, ", ", b, ")");
    case HloOpcode::kExp:
      return call("cexp");
    case HloOpcode::kLog:
      return call("clog");
    case HloOpcode::kSin:
      return call("csin");
    case HloOpcode::kCos:
      return call("ccos");
    case HloOpcode::kTan:
      return call("ctan");
    case HloOpcode::kSinh:
      return call("csinh");
    case HloOpcode::kCosh:
      return call("ccosh");
    case HloOpcode::kTanh:
      return call("ctanh");
    case HloOpcode::kExpm1:
      return call("cexpm1");
    case HloOpcode::kLog1p:
      return call("clog1p");
    case HloOpcode::kCbrt:
      return call("ccbrt");
    case HloOpcode::kLogistic:
      return call("clogistic");
    case HloOpcode::kPower:
      return call("cpow");
    case HloOpcode::kAtan2:
      return call("catan2");
    case HloOpcode::kSelect:
      return absl::StrCat("(", a, " ? ", b, " : ", ops[2], ")");
    case HloOpcode::kCompare: {
      // Only equality is defined on complex values; vector == is true when
      // every part is equal (a NaN part: false), != when any differs.
      const ComparisonDirection dir = h.attrs().comparison_direction;
      if (dir == ComparisonDirection::kEq) {
        return absl::StrCat("(", a, " == ", b, ")");
      }
      if (dir == ComparisonDirection::kNe) {
        return absl::StrCat("(", a, " != ", b, ")");
      }
      break;
    }
    case HloOpcode::kConvert: {
      if (!IsComplex(out)) break;  // complex -> real: the host's
      if (IsComplex(t)) return absl::StrCat(Reg(out), "(", a, ")");
      const std::string part = out == PrimitiveType::C128 ? "double" : "float";
      if (t == PrimitiveType::PRED) {
        return absl::StrCat(Reg(out), "((", a, ") ? ", part, "(1) : ", part,
                            "(0), ", part, "(0))");
      }
      return absl::StrCat(Reg(out), "(", part, "(", a, "), ", part, "(0))");
    }
    default:
      break;
  }
  return NoCode(h, absl::StrCat(HloOpcodeString(h.opcode()), " on ",
                                primitive_util::Name(t), " -> ",
                                primitive_util::Name(out)));
}

}  // namespace plexa::vulkan::glsl_internal
