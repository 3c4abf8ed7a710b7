// Elementwise arithmetic on register values: conversions, max/min with
// NaN propagation, integer division and shifts with XLA's edge cases,
// comparisons, and the float functions (libm calls, fast exp/tanh for f32).
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/codegen/emitter_internal.h"

namespace plexa::cpu::emitter_internal {

// ---- Elementwise arithmetic ------------------------------------------------

Value* Emitter::Intrinsic(llvm::Intrinsic::ID id, std::vector<Value*> args) {
  llvm::Function* f =
      llvm::Intrinsic::getDeclaration(module_, id, {args[0]->getType()});
  return b_.CreateCall(f, args);
}

Value* Emitter::CallLibm(absl::string_view f32_name, absl::string_view f64_name,
                         PrimitiveType t, std::vector<Value*> args) {
  llvm::Type* ty = RegisterType(t);
  std::vector<llvm::Type*> params(args.size(), ty);
  const absl::string_view name = ty->isFloatTy() ? f32_name : f64_name;
  llvm::FunctionCallee f =
      module_->getOrInsertFunction(llvm::StringRef(name.data(), name.size()),
                                   llvm::FunctionType::get(ty, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b_.CreateCall(f, args);
}

Value* Emitter::EmitConvert(Value* v, PrimitiveType from, PrimitiveType to) {
  if (from == to) return v;
  llvm::Type* ty = RegisterType(to);
  const bool from_fp = primitive_util::IsFloatingPointType(from);
  const bool to_fp = primitive_util::IsFloatingPointType(to);
  if (to == PrimitiveType::PRED) {
    if (from_fp) {
      return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    }
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == PrimitiveType::PRED) {
    return to_fp ? b_.CreateUIToFP(v, ty) : b_.CreateZExt(v, ty);  // 0 or 1
  }
  if (from_fp && to_fp) {
    // f16/bf16 live in float registers: rounding to them is Round();
    // f64 -> f16 rounds once through LLVM's half type.
    if (IsHalf(to)) {
      if (from == PrimitiveType::F64 && to == PrimitiveType::F16) {
        return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getHalfTy()), ty);
      }
      if (v->getType() != ty) v = b_.CreateFPTrunc(v, ty);
      return Round(v, to);
    }
    if (v->getType() == ty) return v;
    return v->getType()->getPrimitiveSizeInBits() < ty->getPrimitiveSizeInBits()
               ? b_.CreateFPExt(v, ty)
               : b_.CreateFPTrunc(v, ty);
  }
  if (from_fp) {
    // Saturating, NaN -> 0 (llvm.fpto[su]i.sat).
    const auto id = primitive_util::IsSignedIntegralType(to)
                        ? llvm::Intrinsic::fptosi_sat
                        : llvm::Intrinsic::fptoui_sat;
    llvm::Function* f =
        llvm::Intrinsic::getDeclaration(module_, id, {ty, v->getType()});
    return b_.CreateCall(f, {v});
  }
  if (to_fp) {
    Value* r = primitive_util::IsSignedIntegralType(from)
                   ? b_.CreateSIToFP(v, ty)
                   : b_.CreateUIToFP(v, ty);
    return Round(r, to);  // exact in float for the ≤ 16-bit integers allowed
  }
  return b_.CreateIntCast(v, ty, primitive_util::IsSignedIntegralType(from));
}

Value* Emitter::EmitMaxMin(Value* a, Value* b, PrimitiveType t, bool is_max) {
  if (t == PrimitiveType::PRED) {
    return is_max ? b_.CreateOr(a, b) : b_.CreateAnd(a, b);
  }
  if (primitive_util::IsFloatingPointType(t) &&
      b_.getFastMathFlags().allowReassoc()) {
    // Inside a reduction (reassociation allowed): IEEE maximum/minimum,
    // NaN-propagating, which LLVM vectorizes as a reduction. It differs
    // from the form below only in the sign of a zero result of max(-0, +0),
    // an order-dependent choice anyway once the reduction is reordered.
    return Intrinsic(
        is_max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, {a, b});
  }
  if (primitive_util::IsFloatingPointType(t)) {
    // std::max(a, b) = a < b ? b : a; std::min(a, b) = b < a ? b : a; a
    // NaN on either side is the result (lhs first).
    Value* pick_b = is_max ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOLT(b, a);
    Value* r = b_.CreateSelect(pick_b, b, a);
    r = b_.CreateSelect(b_.CreateFCmpUNO(b, b), b, r);
    return b_.CreateSelect(b_.CreateFCmpUNO(a, a), a, r);
  }
  const bool is_signed = primitive_util::IsSignedIntegralType(t);
  Value* pick_b =
      is_max ? (is_signed ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b))
             : (is_signed ? b_.CreateICmpSLT(b, a) : b_.CreateICmpULT(b, a));
  return b_.CreateSelect(pick_b, b, a);
}

Value* Emitter::EmitDivRem(Value* a, Value* b, PrimitiveType t, bool is_div) {
  if (primitive_util::IsFloatingPointType(t)) {
    return is_div ? b_.CreateFDiv(a, b) : b_.CreateFRem(a, b);
  }
  llvm::Type* ty = a->getType();
  Value* zero = llvm::ConstantInt::get(ty, 0);
  Value* one = llvm::ConstantInt::get(ty, 1);
  Value* all_ones = llvm::ConstantInt::get(ty, -1, true);
  Value* by_zero = b_.CreateICmpEQ(b, zero);
  if (primitive_util::IsSignedIntegralType(t)) {
    const unsigned bits = ty->getIntegerBitWidth();
    Value* int_min =
        llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(bits));
    Value* overflow =
        b_.CreateAnd(b_.CreateICmpEQ(a, int_min), b_.CreateICmpEQ(b, all_ones));
    Value* safe_b = b_.CreateSelect(b_.CreateOr(by_zero, overflow), one, b);
    if (is_div) {
      // x / 0 = -1; INT_MIN / -1 = INT_MIN (XLA).
      Value* q = b_.CreateSDiv(a, safe_b);
      q = b_.CreateSelect(overflow, int_min, q);
      return b_.CreateSelect(by_zero, all_ones, q);
    }
    // x % 0 = x; INT_MIN % -1 = 0.
    Value* r = b_.CreateSRem(a, safe_b);
    r = b_.CreateSelect(overflow, zero, r);
    return b_.CreateSelect(by_zero, a, r);
  }
  Value* safe_b = b_.CreateSelect(by_zero, one, b);
  if (is_div) {
    return b_.CreateSelect(by_zero, all_ones, b_.CreateUDiv(a, safe_b));
  }
  return b_.CreateSelect(by_zero, a, b_.CreateURem(a, safe_b));
}

Value* Emitter::EmitShift(Value* a, Value* b, PrimitiveType t, HloOpcode op) {
  (void)t;
  llvm::Type* ty = a->getType();
  const unsigned bits = ty->getIntegerBitWidth();
  Value* too_far =
      b_.CreateICmpUGE(b, llvm::ConstantInt::get(ty, bits));  // unsigned read
  Value* safe = b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0), b);
  switch (op) {
    case HloOpcode::kShiftLeft:
      return b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0),
                             b_.CreateShl(a, safe));
    case HloOpcode::kShiftRightLogical:
      return b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0),
                             b_.CreateLShr(a, safe));
    default:
      return b_.CreateSelect(
          too_far, b_.CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1)),
          b_.CreateAShr(a, safe));
  }
}

Value* Emitter::EmitCompare(Value* a, Value* b, PrimitiveType t,
                            ComparisonDirection dir) {
  if (primitive_util::IsFloatingPointType(t)) {
    switch (dir) {
      case ComparisonDirection::kEq:
        return b_.CreateFCmpOEQ(a, b);
      case ComparisonDirection::kNe:
        return b_.CreateFCmpUNE(a, b);
      case ComparisonDirection::kGe:
        return b_.CreateFCmpOGE(a, b);
      case ComparisonDirection::kGt:
        return b_.CreateFCmpOGT(a, b);
      case ComparisonDirection::kLe:
        return b_.CreateFCmpOLE(a, b);
      case ComparisonDirection::kLt:
        return b_.CreateFCmpOLT(a, b);
    }
  }
  const bool s = primitive_util::IsSignedIntegralType(t);
  switch (dir) {
    case ComparisonDirection::kEq:
      return b_.CreateICmpEQ(a, b);
    case ComparisonDirection::kNe:
      return b_.CreateICmpNE(a, b);
    case ComparisonDirection::kGe:
      return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case ComparisonDirection::kGt:
      return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case ComparisonDirection::kLe:
      return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case ComparisonDirection::kLt:
      return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
  }
  return nullptr;
}

// exp for f32: Cody–Waite range reduction x = n·ln2 + r, a degree-6
// polynomial for e^r, and 2^n applied in two steps (so that results in the
// subnormal range and up to FLT_MAX are reachable). Branch-free, so loops
// over it vectorize. Within 2 ulp of the correctly rounded value for
// normal results.
Value* Emitter::ExpF32(Value* x) {
  llvm::Type* f = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
  Value* xc = Intrinsic(llvm::Intrinsic::minnum, {x, c(88.72283935546875)});
  xc = Intrinsic(llvm::Intrinsic::maxnum, {xc, c(-104.0)});
  Value* n = Intrinsic(llvm::Intrinsic::roundeven,
                       {b_.CreateFMul(xc, c(1.44269504088896341))});
  Value* r = b_.CreateFSub(xc, b_.CreateFMul(n, c(0.693359375)));
  r = b_.CreateFSub(r, b_.CreateFMul(n, c(-2.12194440e-4)));
  Value* p = c(1.9875691500e-4);
  for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                   1.6666665459e-1, 5.0000001201e-1}) {
    p = b_.CreateFAdd(b_.CreateFMul(p, r), c(k));
  }
  Value* y = b_.CreateFAdd(
      b_.CreateFAdd(b_.CreateFMul(b_.CreateFMul(p, r), r), r), c(1.0));
  Value* ni = b_.CreateFPToSI(n, i32);
  Value* n1 = b_.CreateAShr(ni, 1);
  Value* n2 = b_.CreateSub(ni, n1);
  auto pow2 = [&](Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, b_.getInt32(127)), 23),
                            f);
  };
  y = b_.CreateFMul(b_.CreateFMul(y, pow2(n1)), pow2(n2));
  y = b_.CreateSelect(b_.CreateFCmpOGT(x, c(88.72283935546875)),
                      c(std::numeric_limits<float>::infinity()), y);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, y);
}

// tanh for f32: a 13/6 odd rational approximation on [-7.9, 7.9] (beyond
// that tanh rounds to ±1), x itself below 4e-4. Branch-free.
Value* Emitter::TanhF32(Value* x) {
  llvm::Type* f = b_.getFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
  const double kClamp = 7.90531110763549805;
  Value* xc = Intrinsic(llvm::Intrinsic::minnum, {x, c(kClamp)});
  xc = Intrinsic(llvm::Intrinsic::maxnum, {xc, c(-kClamp)});
  Value* x2 = b_.CreateFMul(xc, xc);
  Value* p = c(-2.76076847742355e-16);
  for (double k :
       {2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
        1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03}) {
    p = b_.CreateFAdd(b_.CreateFMul(p, x2), c(k));
  }
  p = b_.CreateFMul(p, xc);
  Value* q = c(1.19825839466702e-06);
  for (double k :
       {1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03}) {
    q = b_.CreateFAdd(b_.CreateFMul(q, x2), c(k));
  }
  Value* r = b_.CreateFDiv(p, q);
  Value* tiny =
      b_.CreateFCmpOLT(Intrinsic(llvm::Intrinsic::fabs, {x}), c(0.0004));
  r = b_.CreateSelect(tiny, x, r);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
}

Value* Emitter::EmitUnaryFloat(HloOpcode op, Value* x, PrimitiveType t) {
  const bool f32 = x->getType()->isFloatTy();
  llvm::Type* ty = x->getType();
  auto one = llvm::ConstantFP::get(ty, 1.0);
  switch (op) {
    case HloOpcode::kExp:
      return f32 ? ExpF32(x) : CallLibm("expf", "exp", t, {x});
    case HloOpcode::kTanh:
      return f32 ? TanhF32(x) : CallLibm("tanhf", "tanh", t, {x});
    case HloOpcode::kLogistic: {
      Value* e = f32 ? ExpF32(b_.CreateFNeg(x))
                     : CallLibm("expf", "exp", t, {b_.CreateFNeg(x)});
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
    }
    case HloOpcode::kExpm1:
      return CallLibm("expm1f", "expm1", t, {x});
    case HloOpcode::kLog:
      return CallLibm("logf", "log", t, {x});
    case HloOpcode::kLog1p:
      return CallLibm("log1pf", "log1p", t, {x});
    case HloOpcode::kSqrt:
      return Intrinsic(llvm::Intrinsic::sqrt, {x});
    case HloOpcode::kRsqrt:
      return b_.CreateFDiv(one, Intrinsic(llvm::Intrinsic::sqrt, {x}));
    case HloOpcode::kCbrt:
      return CallLibm("cbrtf", "cbrt", t, {x});
    case HloOpcode::kSin:
      return CallLibm("sinf", "sin", t, {x});
    case HloOpcode::kCos:
      return CallLibm("cosf", "cos", t, {x});
    case HloOpcode::kAcos:
      return CallLibm("acosf", "acos", t, {x});
    case HloOpcode::kAcosh:
      return CallLibm("acoshf", "acosh", t, {x});
    case HloOpcode::kAsin:
      return CallLibm("asinf", "asin", t, {x});
    case HloOpcode::kAsinh:
      return CallLibm("asinhf", "asinh", t, {x});
    case HloOpcode::kAtan:
      return CallLibm("atanf", "atan", t, {x});
    case HloOpcode::kAtanh:
      return CallLibm("atanhf", "atanh", t, {x});
    case HloOpcode::kCosh:
      return CallLibm("coshf", "cosh", t, {x});
    case HloOpcode::kSinh:
      return CallLibm("sinhf", "sinh", t, {x});
    case HloOpcode::kTan:
      return CallLibm("tanf", "tan", t, {x});
    case HloOpcode::kErf:
      return CallLibm("erff", "erf", t, {x});
    case HloOpcode::kFloor:
      return Intrinsic(llvm::Intrinsic::floor, {x});
    case HloOpcode::kCeil:
      return Intrinsic(llvm::Intrinsic::ceil, {x});
    case HloOpcode::kRoundNearestAfz:
      return Intrinsic(llvm::Intrinsic::round, {x});
    case HloOpcode::kRoundNearestEven:
      return Intrinsic(llvm::Intrinsic::roundeven, {x});
    case HloOpcode::kIsFinite:
      return b_.CreateFCmpONE(Intrinsic(llvm::Intrinsic::fabs, {x}),
                              llvm::ConstantFP::getInfinity(ty));
    default:
      return nullptr;
  }
}

absl::StatusOr<Value*> Emitter::EmitElementwise(const Instruction& h,
                                                absl::Span<Value* const> ops) {
  absl::StatusOr<Value*> v = EmitElementwiseUnrounded(h, ops);
  if (!v.ok()) return v;
  // f16/bf16: every operation rounds its float result (docs/evaluator.md).
  return Round(*v, h.shape().element_type());
}

absl::StatusOr<Value*> Emitter::EmitElementwiseUnrounded(
    const Instruction& h, absl::Span<Value* const> ops) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType t =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  const bool fp = primitive_util::IsFloatingPointType(t);
  const bool pred = t == PrimitiveType::PRED;
  switch (h.opcode()) {
    case HloOpcode::kAdd:
      if (pred) return b_.CreateOr(ops[0], ops[1]);
      return fp ? b_.CreateFAdd(ops[0], ops[1]) : b_.CreateAdd(ops[0], ops[1]);
    case HloOpcode::kSubtract:
      if (pred) return b_.CreateXor(ops[0], ops[1]);
      return fp ? b_.CreateFSub(ops[0], ops[1]) : b_.CreateSub(ops[0], ops[1]);
    case HloOpcode::kMultiply:
      if (pred) return b_.CreateAnd(ops[0], ops[1]);
      return fp ? b_.CreateFMul(ops[0], ops[1]) : b_.CreateMul(ops[0], ops[1]);
    case HloOpcode::kDivide:
      if (pred) break;
      return EmitDivRem(ops[0], ops[1], t, true);
    case HloOpcode::kRemainder:
      if (pred) break;
      return EmitDivRem(ops[0], ops[1], t, false);
    case HloOpcode::kMaximum:
      return EmitMaxMin(ops[0], ops[1], t, true);
    case HloOpcode::kMinimum:
      return EmitMaxMin(ops[0], ops[1], t, false);
    case HloOpcode::kAnd:
      return b_.CreateAnd(ops[0], ops[1]);
    case HloOpcode::kOr:
      return b_.CreateOr(ops[0], ops[1]);
    case HloOpcode::kXor:
      return b_.CreateXor(ops[0], ops[1]);
    case HloOpcode::kNot:
      return b_.CreateNot(ops[0]);
    case HloOpcode::kNegate:
      if (pred) return ops[0];
      return fp ? b_.CreateFNeg(ops[0]) : b_.CreateNeg(ops[0]);
    case HloOpcode::kAbs:
      if (fp) return Intrinsic(llvm::Intrinsic::fabs, {ops[0]});
      if (pred || primitive_util::IsUnsignedIntegralType(t)) return ops[0];
      return b_.CreateCall(
          llvm::Intrinsic::getDeclaration(module_, llvm::Intrinsic::abs,
                                          {ops[0]->getType()}),
          {ops[0], b_.getFalse()});
    case HloOpcode::kSign: {
      Value* x = ops[0];
      llvm::Type* ty = x->getType();
      if (fp) {
        Value* one = llvm::ConstantFP::get(ty, 1.0);
        Value* zero = llvm::ConstantFP::get(ty, 0.0);
        Value* r = b_.CreateSelect(b_.CreateFCmpOGT(x, zero), one, x);
        return b_.CreateSelect(b_.CreateFCmpOLT(x, zero),
                               llvm::ConstantFP::get(ty, -1.0), r);
      }
      if (pred) return x;
      Value* zero = llvm::ConstantInt::get(ty, 0);
      if (primitive_util::IsUnsignedIntegralType(t)) {
        return b_.CreateZExt(b_.CreateICmpNE(x, zero), ty);
      }
      return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(x, zero), ty),
                          b_.CreateZExt(b_.CreateICmpSLT(x, zero), ty));
    }
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      return EmitShift(ops[0], ops[1], t, h.opcode());
    case HloOpcode::kMulhi: {
      // The high half of the double-width product (sign- or zero-extended
      // operands, the product shifted down, truncated); vectors too.
      llvm::Type* ty = ops[0]->getType();
      const unsigned bits = ty->getScalarSizeInBits();
      llvm::Type* wide = ty->getWithNewBitWidth(2 * bits);
      const bool is_signed = primitive_util::IsSignedIntegralType(t);
      Value* x =
          is_signed ? b_.CreateSExt(ops[0], wide) : b_.CreateZExt(ops[0], wide);
      Value* y =
          is_signed ? b_.CreateSExt(ops[1], wide) : b_.CreateZExt(ops[1], wide);
      Value* p = b_.CreateMul(x, y);
      Value* high = is_signed ? b_.CreateAShr(p, bits) : b_.CreateLShr(p, bits);
      return b_.CreateTrunc(high, ty);
    }
    case HloOpcode::kPopulationCount:
      return Intrinsic(llvm::Intrinsic::ctpop, {ops[0]});
    case HloOpcode::kClz:
      return b_.CreateCall(
          llvm::Intrinsic::getDeclaration(module_, llvm::Intrinsic::ctlz,
                                          {ops[0]->getType()}),
          {ops[0], b_.getFalse()});
    case HloOpcode::kCompare:
      if (fp && h.attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
        // IEEE totalOrder: compare the bits as signed integers after
        // flipping every bit but the sign of negative values
        // (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN).
        auto key = [&](Value* v) {
          const unsigned bits = v->getType()->getPrimitiveSizeInBits();
          llvm::Type* it = b_.getIntNTy(bits);
          Value* i = b_.CreateBitCast(v, it);
          Value* mask = b_.CreateLShr(b_.CreateAShr(i, bits - 1), 1);
          return b_.CreateXor(i, mask);
        };
        return EmitCompare(key(ops[0]), key(ops[1]), PrimitiveType::S64,
                           h.attrs().comparison_direction);
      }
      return EmitCompare(ops[0], ops[1], t, h.attrs().comparison_direction);
    case HloOpcode::kSelect:
      return b_.CreateSelect(ops[0], ops[1], ops[2]);
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(hi, max(x, lo)) with std::min/std::max's
      // choice between equal values, as the evaluator (and ClampExpander):
      // clamp(0, -7.25, -0) is -0 (hi), not 0; a NaN in lo, x or hi (in
      // that order) is the result.
      const PrimitiveType vt = h.operand(1)->shape().element_type();
      Value* r =
          EmitMaxMin(ops[2], EmitMaxMin(ops[1], ops[0], vt, true), vt, false);
      if (primitive_util::IsFloatingPointType(vt)) {
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[2], ops[2]), ops[2], r);
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[1], ops[1]), ops[1], r);
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[0], ops[0]), ops[0], r);
      }
      return r;
    }
    case HloOpcode::kConvert:
      return EmitConvert(ops[0], t, out);
    case HloOpcode::kBitcastConvert:
      return b_.CreateBitCast(ops[0], RegisterType(out));
    case HloOpcode::kAtan2:
      return CallLibm("atan2f", "atan2", t, {ops[0], ops[1]});
    case HloOpcode::kPower: {
      // 1^y = 1 and x^0 = 1 for every x, y (NaN included), else pow.
      llvm::Type* ty = ops[0]->getType();
      Value* one = llvm::ConstantFP::get(ty, 1.0);
      Value* special =
          b_.CreateOr(b_.CreateFCmpOEQ(ops[0], one),
                      b_.CreateFCmpOEQ(ops[1], llvm::ConstantFP::get(ty, 0.0)));
      return b_.CreateSelect(special, one,
                             CallLibm("powf", "pow", t, {ops[0], ops[1]}));
    }
    default:
      if (fp) {
        if (Value* v = EmitUnaryFloat(h.opcode(), ops[0], t)) return v;
      }
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": no generated code for ", HloOpcodeString(h.opcode())));
}

}  // namespace plexa::cpu::emitter_internal
