// Complex values on the device: c64 as vec2 and c128 as dvec2 (real,
// imaginary), with the evaluator's semantics (std::complex): data movement
// and index maps, add, subtract, negate, multiply, divide (Smith's
// scaling), complex, real, imag, abs (scaled, no overflow), sign, compare
// EQ/NE, select, convert, sqrt, rsqrt, exp and log (c128's on the double
// functions of the prelude and glsl_f64_math.cc); reductions through their
// reducers. Other complex functions, and dot or convolution of complex
// values, run on the host (UseType refuses them by opcode).
#include <string>
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

// exp and log, instantiated like the template above with EXP and LOG
// (the f64 ones are the prelude's and glsl_f64_math.cc's) and NAN.
constexpr char kComplexExpLog[] = R"(
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
)";

}  // namespace

std::string ComplexPrelude(bool c64, bool c128, absl::string_view body) {
  // exp and log only where called: c128's pull in the double sin, cos and
  // atan2 (glsl_f64_math.cc).
  const bool exp_log =
      absl::StrContains(body, "cexp(") || absl::StrContains(body, "clog(");
  std::string out;
  if (c64) {
    out += absl::StrReplaceAll(
        kComplexTemplate,
        {{"C(", "vec2("},
         {"C ", "vec2 "},
         {"R(", "float("},
         {"R ", "float "},
         {"INF", "uintBitsToFloat(0x7f800000u)"},
         {"BIG", "1.0e37"},
         {"S(m, s)",
          "uintBitsToFloat((floatBitsToUint(m) & 0x7fffffffu) | "
          "(floatBitsToUint(s) & 0x80000000u))"}});
    if (exp_log) {
      out += absl::StrReplaceAll(kComplexExpLog,
                                 {{"C(", "vec2("},
                                  {"C ", "vec2 "},
                                  {"R(", "float("},
                                  {"R ", "float "},
                                  {"EXP", "exp"},
                                  {"LOG", "log"},
                                  {"NAN", "uintBitsToFloat(0x7fc00000u)"}});
    }
  }
  if (c128) {
    out += absl::StrReplaceAll(
        kComplexTemplate, {{"C(", "dvec2("},
                           {"C ", "dvec2 "},
                           {"R(", "double("},
                           {"R ", "double "},
                           {"INF", "packDouble2x32(uvec2(0u, 0x7ff00000u))"},
                           {"BIG", "1.0e307lf"},
                           {"S(m, s)",
                            "packDouble2x32(uvec2(unpackDouble2x32(m).x, "
                            "(unpackDouble2x32(m).y & 0x7fffffffu) | "
                            "(unpackDouble2x32(s).y & 0x80000000u)))"}});
    if (exp_log) {
      out += absl::StrReplaceAll(
          kComplexExpLog, {{"C(", "dvec2("},
                           {"C ", "dvec2 "},
                           {"R(", "double("},
                           {"R ", "double "},
                           {"EXP", "xexp"},
                           {"LOG", "xlog"},
                           {"NAN", "packDouble2x32(uvec2(0u, 0x7ff80000u))"}});
    }
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
    case HloOpcode::kLog:
      return call(h.opcode() == HloOpcode::kExp ? "cexp" : "clog");
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
