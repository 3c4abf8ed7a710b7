// Elementwise operations: unary and binary arithmetic, compare, clamp,
// select, convert, bitcast-convert, reduce-precision, complex/real/imag and
// map.
//
// Each kernel dispatches on the element type once and then runs a typed loop
// over n elements. f16/bf16 are loaded into float, computed there and
// rounded to nearest even when stored (for +,-,*,/ and sqrt the float result
// has more than 2p+2 bits, so the double rounding is innocuous and the
// result is the correctly rounded one). Integer arithmetic wraps: it is done
// in a wide unsigned type (WideUnsigned), never in a signed one.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/ir/opcode.h"

namespace plexa::eval {
namespace {

absl::Status Unsupported(const Instruction& instr, PrimitiveType type) {
  return absl::UnimplementedError(absl::StrCat(
      "evaluator: ", InstrName(instr), " is not defined for element type ",
      primitive_util::Name(type)));
}

template <typename T, typename F>
absl::Status UnaryLoop(const void* in, void* out, int64_t n, F f) {
  const T* a = static_cast<const T*>(in);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = Store<T>(f(Load(a[i])));
  return absl::OkStatus();
}

template <typename T, typename F>
absl::Status BinaryLoop(const void* lhs, const void* rhs, void* out, int64_t n,
                        F f) {
  const T* a = static_cast<const T*>(lhs);
  const T* b = static_cast<const T*>(rhs);
  T* o = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = Store<T>(f(Load(a[i]), Load(b[i])));
  return absl::OkStatus();
}

// ---- Unary ------------------------------------------------------------------

template <typename T>
absl::Status FloatUnary(const Instruction& instr, const void* in, void* out,
                        int64_t n) {
  using F = ComputeT<T>;
  switch (instr.opcode()) {
    case HloOpcode::kAbs:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::fabs(x); });
    case HloOpcode::kCeil:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::ceil(x); });
    case HloOpcode::kFloor:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::floor(x); });
    case HloOpcode::kCos:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::cos(x); });
    case HloOpcode::kSin:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::sin(x); });
    case HloOpcode::kAcos:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::acos(x); });
    case HloOpcode::kAcosh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::acosh(x); });
    case HloOpcode::kAsin:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::asin(x); });
    case HloOpcode::kAsinh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::asinh(x); });
    case HloOpcode::kAtan:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::atan(x); });
    case HloOpcode::kAtanh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::atanh(x); });
    case HloOpcode::kCosh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::cosh(x); });
    case HloOpcode::kSinh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::sinh(x); });
    case HloOpcode::kTan:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::tan(x); });
    case HloOpcode::kTanh:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::tanh(x); });
    case HloOpcode::kExp:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::exp(x); });
    case HloOpcode::kExpm1:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::expm1(x); });
    case HloOpcode::kLog:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::log(x); });
    case HloOpcode::kLog1p:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::log1p(x); });
    case HloOpcode::kLogistic:
      // 1 / (1 + e^-x): exp overflowing to inf gives the correct limit 0.
      return UnaryLoop<T>(in, out, n,
                          [](F x) { return F(1) / (F(1) + std::exp(-x)); });
    case HloOpcode::kSqrt:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::sqrt(x); });
    case HloOpcode::kRsqrt:
      return UnaryLoop<T>(in, out, n, [](F x) { return F(1) / std::sqrt(x); });
    case HloOpcode::kCbrt:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::cbrt(x); });
    case HloOpcode::kErf:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::erf(x); });
    case HloOpcode::kNegate:
      return UnaryLoop<T>(in, out, n, [](F x) { return -x; });
    case HloOpcode::kSign:
      // NaN -> NaN, ±0 -> ±0, else ±1.
      return UnaryLoop<T>(in, out, n, [](F x) {
        if (std::isnan(x) || x == F(0)) return x;
        return std::copysign(F(1), x);
      });
    case HloOpcode::kRoundNearestAfz:
      return UnaryLoop<T>(in, out, n, [](F x) { return std::round(x); });
    case HloOpcode::kRoundNearestEven:
      // The evaluator never changes the floating-point environment, so the
      // current rounding mode is round-to-nearest-even.
      return UnaryLoop<T>(in, out, n, [](F x) { return std::nearbyint(x); });
    case HloOpcode::kReal:
      return UnaryLoop<T>(in, out, n, [](F x) { return x; });
    case HloOpcode::kImag:
      return UnaryLoop<T>(in, out, n, [](F) { return F(0); });
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

// Principal cube root of a complex number.
template <typename R>
std::complex<R> ComplexCbrt(std::complex<R> z) {
  if (z == std::complex<R>(0)) return z;
  return std::exp(std::log(z) / R(3));
}

// e^z - 1 without cancellation for small |z|:
// re = expm1(a) cos(b) - 2 sin^2(b/2), im = e^a sin(b).
template <typename R>
std::complex<R> ComplexExpm1(std::complex<R> z) {
  const R a = z.real();
  const R b = z.imag();
  const R s = std::sin(b / 2);
  return {std::expm1(a) * std::cos(b) - 2 * s * s, std::exp(a) * std::sin(b)};
}

// log(1 + z) without cancellation for small |z|.
template <typename R>
std::complex<R> ComplexLog1p(std::complex<R> z) {
  const R a = z.real();
  const R b = z.imag();
  if (std::fabs(a) < R(0.5) && std::fabs(b) < R(0.5)) {
    return {R(0.5) * std::log1p(a * (2 + a) + b * b), std::atan2(b, 1 + a)};
  }
  return std::log(std::complex<R>(1) + z);
}

template <typename T>
absl::Status ComplexUnary(const Instruction& instr, const void* in, void* out,
                          int64_t n) {
  switch (instr.opcode()) {
    case HloOpcode::kNegate:
      return UnaryLoop<T>(in, out, n, [](T x) { return -x; });
    case HloOpcode::kSqrt:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::sqrt(x); });
    case HloOpcode::kRsqrt:
      return UnaryLoop<T>(in, out, n, [](T x) { return T(1) / std::sqrt(x); });
    case HloOpcode::kCbrt:
      return UnaryLoop<T>(in, out, n, [](T x) { return ComplexCbrt(x); });
    case HloOpcode::kExp:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::exp(x); });
    case HloOpcode::kExpm1:
      return UnaryLoop<T>(in, out, n, [](T x) { return ComplexExpm1(x); });
    case HloOpcode::kLog:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::log(x); });
    case HloOpcode::kLog1p:
      return UnaryLoop<T>(in, out, n, [](T x) { return ComplexLog1p(x); });
    case HloOpcode::kCos:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::cos(x); });
    case HloOpcode::kSin:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::sin(x); });
    case HloOpcode::kAcos:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::acos(x); });
    case HloOpcode::kAcosh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::acosh(x); });
    case HloOpcode::kAsin:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::asin(x); });
    case HloOpcode::kAsinh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::asinh(x); });
    case HloOpcode::kAtan:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::atan(x); });
    case HloOpcode::kAtanh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::atanh(x); });
    case HloOpcode::kCosh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::cosh(x); });
    case HloOpcode::kSinh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::sinh(x); });
    case HloOpcode::kTan:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::tan(x); });
    case HloOpcode::kTanh:
      return UnaryLoop<T>(in, out, n, [](T x) { return std::tanh(x); });
    case HloOpcode::kLogistic:
      return UnaryLoop<T>(in, out, n,
                          [](T x) { return T(1) / (T(1) + std::exp(-x)); });
    case HloOpcode::kSign:
      // z / |z|, 0 -> 0.
      return UnaryLoop<T>(in, out, n, [](T x) {
        if (x == T(0)) return x;
        return x / std::abs(x);
      });
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

// abs, real, imag of a complex operand: the result has the component type.
template <typename T>
absl::Status ComplexToReal(const Instruction& instr, const void* in, void* out,
                           int64_t n) {
  using R = typename T::value_type;
  const T* a = static_cast<const T*>(in);
  R* o = static_cast<R*>(out);
  switch (instr.opcode()) {
    case HloOpcode::kAbs:
      for (int64_t i = 0; i < n; ++i) o[i] = std::abs(a[i]);
      return absl::OkStatus();
    case HloOpcode::kReal:
      for (int64_t i = 0; i < n; ++i) o[i] = a[i].real();
      return absl::OkStatus();
    case HloOpcode::kImag:
      for (int64_t i = 0; i < n; ++i) o[i] = a[i].imag();
      return absl::OkStatus();
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

template <typename T>
absl::Status IntUnary(const Instruction& instr, const void* in, void* out,
                      int64_t n) {
  using U = WideUnsigned<T>;
  using UT = std::make_unsigned_t<T>;
  const PrimitiveType type = instr.shape().element_type();
  if (primitive_util::IsSubByteType(type) &&
      (instr.opcode() == HloOpcode::kPopulationCount ||
       instr.opcode() == HloOpcode::kClz)) {
    // s4/u4/s2/u2 live sign-extended in a byte: count in their own width.
    const int bits = static_cast<int>(primitive_util::BitWidth(type));
    const UT mask = static_cast<UT>((1u << bits) - 1);
    const bool popcount = instr.opcode() == HloOpcode::kPopulationCount;
    return UnaryLoop<T>(in, out, n, [=](T x) {
      const UT m = static_cast<UT>(static_cast<UT>(x) & mask);
      return static_cast<T>(popcount
                                ? std::popcount(m)
                                : std::countl_zero(m) -
                                      (static_cast<int>(sizeof(T)) * 8 - bits));
    });
  }
  switch (instr.opcode()) {
    case HloOpcode::kAbs:
      // abs(INT_MIN) wraps to INT_MIN, as in two's complement hardware.
      return UnaryLoop<T>(in, out, n, [](T x) {
        if constexpr (std::is_signed_v<T>) {
          if (x < 0) return static_cast<T>(U(0) - static_cast<U>(x));
        }
        return x;
      });
    case HloOpcode::kNegate:
      return UnaryLoop<T>(in, out, n, [](T x) {
        return static_cast<T>(U(0) - static_cast<U>(x));
      });
    case HloOpcode::kNot:
      return UnaryLoop<T>(
          in, out, n, [](T x) { return static_cast<T>(~static_cast<U>(x)); });
    case HloOpcode::kPopulationCount:
      return UnaryLoop<T>(in, out, n, [](T x) {
        return static_cast<T>(std::popcount(static_cast<UT>(x)));
      });
    case HloOpcode::kClz:
      return UnaryLoop<T>(in, out, n, [](T x) {
        return static_cast<T>(std::countl_zero(static_cast<UT>(x)));
      });
    case HloOpcode::kSign:
      return UnaryLoop<T>(in, out, n, [](T x) {
        if constexpr (std::is_signed_v<T>) {
          return static_cast<T>((x > 0) - (x < 0));
        } else {
          return static_cast<T>(x != 0);
        }
      });
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

absl::Status PredUnary(const Instruction& instr, const void* in, void* out,
                       int64_t n) {
  if (instr.opcode() == HloOpcode::kNot) {
    return UnaryLoop<bool>(in, out, n, [](bool x) { return !x; });
  }
  return Unsupported(instr, PrimitiveType::PRED);
}

absl::Status UnaryKernel(const Instruction& instr, const void* in, void* out,
                         int64_t n) {
  const PrimitiveType type = instr.operand(0)->shape().element_type();
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      return FloatUnary<T>(instr, in, out, n);
    } else if constexpr (kIsComplex<T>) {
      switch (instr.opcode()) {
        case HloOpcode::kAbs:
        case HloOpcode::kReal:
        case HloOpcode::kImag:
          return ComplexToReal<T>(instr, in, out, n);
        default:
          return ComplexUnary<T>(instr, in, out, n);
      }
    } else if constexpr (kIsInt<T>) {
      return IntUnary<T>(instr, in, out, n);
    } else {
      return PredUnary(instr, in, out, n);
    }
  });
}

absl::Status IsFiniteKernel(const Instruction& instr, const void* in, void* out,
                            int64_t n) {
  const PrimitiveType type = instr.operand(0)->shape().element_type();
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      const T* a = static_cast<const T*>(in);
      bool* o = static_cast<bool*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = std::isfinite(Load(a[i]));
      return absl::OkStatus();
    } else {
      return Unsupported(instr, type);
    }
  });
}

// ---- Binary -----------------------------------------------------------------

template <typename T>
absl::Status FloatBinary(const Instruction& instr, const void* a, const void* b,
                         void* out, int64_t n) {
  using F = ComputeT<T>;
  switch (instr.opcode()) {
    case HloOpcode::kAdd:
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) { return x + y; });
    case HloOpcode::kSubtract:
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) { return x - y; });
    case HloOpcode::kMultiply:
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) { return x * y; });
    case HloOpcode::kDivide:
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) { return x / y; });
    case HloOpcode::kRemainder:
      // The sign of the dividend (C fmod), SEMANTICS.md "Rem".
      return BinaryLoop<T>(a, b, out, n,
                           [](F x, F y) { return std::fmod(x, y); });
    case HloOpcode::kMaximum:
      // NaN-propagating (today's XLA); otherwise std::max, which returns
      // the first operand when they compare equal (max(-0, +0) = -0).
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) {
        if (std::isnan(x)) return x;
        if (std::isnan(y)) return y;
        return std::max(x, y);
      });
    case HloOpcode::kMinimum:
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) {
        if (std::isnan(x)) return x;
        if (std::isnan(y)) return y;
        return std::min(x, y);
      });
    case HloOpcode::kPower:
      // 1^y = 1 and x^0 = 1 for every x, y (NaN included), as XLA.
      return BinaryLoop<T>(a, b, out, n, [](F x, F y) {
        if (x == F(1) || y == F(0)) return F(1);
        return std::pow(x, y);
      });
    case HloOpcode::kAtan2:
      return BinaryLoop<T>(a, b, out, n,
                           [](F y, F x) { return std::atan2(y, x); });
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

template <typename T>
absl::Status ComplexBinary(const Instruction& instr, const void* a,
                           const void* b, void* out, int64_t n) {
  using R = typename T::value_type;
  switch (instr.opcode()) {
    case HloOpcode::kAdd:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) { return x + y; });
    case HloOpcode::kSubtract:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) { return x - y; });
    case HloOpcode::kMultiply:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) { return x * y; });
    case HloOpcode::kDivide:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) { return x / y; });
    case HloOpcode::kPower:
      // XLA's special cases (Kahan, "Branch Cuts for Complex Elementary
      // Functions", section 10), then std::pow.
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) {
        if (x == T(1) || y == T(0)) return T(1);
        const bool x_pos_inf =
            x.imag() == 0 && x.real() > 0 && std::isinf(x.real());
        if (x_pos_inf && y.imag() == 0 && y.real() > 0) return x;
        if (x_pos_inf && y.imag() == 0 && y.real() < 0) return T(0);
        return std::pow(x, y);
      });
    case HloOpcode::kAtan2:
      // atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), as XLA.
      return BinaryLoop<T>(a, b, out, n, [](T y, T x) {
        const T i(R(0), R(1));
        return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
      });
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

template <typename T>
T IntegerPower(T base, T exponent) {
  using U = WideUnsigned<T>;
  if constexpr (std::is_signed_v<T>) {
    // XLA: a negative exponent gives 1 for base 1 and 0 otherwise.
    if (exponent < 0) return base == 1 ? T(1) : T(0);
  }
  U result = 1;
  U b = static_cast<U>(static_cast<std::make_unsigned_t<T>>(base));
  auto e = static_cast<std::make_unsigned_t<T>>(exponent);
  while (e != 0) {
    if (e & 1) result *= b;
    e >>= 1;
    b *= b;
  }
  return static_cast<T>(result);
}

template <typename T>
bool ShiftOutOfRange(T amount) {
  // The amount is read as unsigned, so negative amounts are out of range.
  return static_cast<std::make_unsigned_t<T>>(amount) >=
         static_cast<std::make_unsigned_t<T>>(sizeof(T) * 8);
}

template <typename T>
absl::Status IntBinary(const Instruction& instr, const void* a, const void* b,
                       void* out, int64_t n) {
  using U = WideUnsigned<T>;
  using UT = std::make_unsigned_t<T>;
  using ST = std::make_signed_t<T>;
  const PrimitiveType type = instr.shape().element_type();
  if (primitive_util::IsSubByteType(type) &&
      (instr.opcode() == HloOpcode::kShiftRightLogical ||
       instr.opcode() == HloOpcode::kShiftRightArithmetic)) {
    // s4/u4/s2/u2 shift their own `bits` bits (the byte holds them
    // sign-extended, or zero-extended for unsigned types); amounts read as
    // unsigned and >= the width give 0 (logical) or the sign (arithmetic).
    const int bits = static_cast<int>(primitive_util::BitWidth(type));
    const uint64_t mask = (uint64_t{1} << bits) - 1;
    const bool logical = instr.opcode() == HloOpcode::kShiftRightLogical;
    return BinaryLoop<T>(a, b, out, n, [=](T x, T y) -> T {
      const uint64_t amount = static_cast<uint64_t>(y) & mask;
      const bool out_of_range =
          amount >= static_cast<uint64_t>(bits) ||
          static_cast<uint64_t>(static_cast<UT>(y)) > mask;
      const uint64_t ux = static_cast<uint64_t>(static_cast<UT>(x)) & mask;
      if (logical) {
        return out_of_range ? T(0) : static_cast<T>(ux >> amount);
      }
      const int64_t sx = WrapSignedToBits(static_cast<int64_t>(ux), bits);
      if (out_of_range) return static_cast<T>(sx < 0 ? -1 : 0);
      return static_cast<T>(sx >> amount);
    });
  }
  switch (instr.opcode()) {
    case HloOpcode::kAdd:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) {
        return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
      });
    case HloOpcode::kSubtract:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) {
        return static_cast<T>(static_cast<U>(x) - static_cast<U>(y));
      });
    case HloOpcode::kMultiply:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) {
        return static_cast<T>(static_cast<U>(static_cast<UT>(x)) *
                              static_cast<U>(static_cast<UT>(y)));
      });
    case HloOpcode::kDivide:
      // Truncates toward zero. x/0 = -1 (all ones for unsigned) and
      // INT_MIN/-1 = INT_MIN, as XLA defines them (no trap).
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) -> T {
        if (y == 0) return static_cast<T>(~UT(0));
        if constexpr (std::is_signed_v<T>) {
          if (y == -1 && x == std::numeric_limits<T>::min()) return x;
        }
        return static_cast<T>(x / y);
      });
    case HloOpcode::kRemainder:
      // Sign of the dividend. x%0 = x and INT_MIN%-1 = 0, as XLA.
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) -> T {
        if (y == 0) return x;
        if constexpr (std::is_signed_v<T>) {
          if (y == -1) return 0;
        }
        return static_cast<T>(x % y);
      });
    case HloOpcode::kMaximum:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return std::max(x, y); });
    case HloOpcode::kMinimum:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return std::min(x, y); });
    case HloOpcode::kAnd:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return static_cast<T>(x & y); });
    case HloOpcode::kOr:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return static_cast<T>(x | y); });
    case HloOpcode::kXor:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return static_cast<T>(x ^ y); });
    case HloOpcode::kShiftLeft:
      // Amounts >= the bit width give 0.
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) -> T {
        if (ShiftOutOfRange(y)) return 0;
        return static_cast<T>(static_cast<U>(static_cast<UT>(x))
                              << static_cast<UT>(y));
      });
    case HloOpcode::kShiftRightLogical:
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) -> T {
        if (ShiftOutOfRange(y)) return 0;
        return static_cast<T>(static_cast<UT>(x) >> static_cast<UT>(y));
      });
    case HloOpcode::kShiftRightArithmetic:
      // The bits are shifted as a signed value of the same width (also for
      // unsigned types); amounts >= the width fill with the sign bit.
      return BinaryLoop<T>(a, b, out, n, [](T x, T y) -> T {
        const ST sx = static_cast<ST>(x);
        if (ShiftOutOfRange(y)) return static_cast<T>(sx < 0 ? ST(-1) : ST(0));
        return static_cast<T>(static_cast<ST>(sx >> static_cast<UT>(y)));
      });
    case HloOpcode::kPower:
      return BinaryLoop<T>(a, b, out, n,
                           [](T x, T y) { return IntegerPower(x, y); });
    case HloOpcode::kMulhi: {
      // XLA's mulhi: the high `bits` bits of the 2*bits-bit product, signed
      // for s types and unsigned for u types (s4/u4/s2/u2 of their own
      // width: the byte holds them sign- or zero-extended).
      const int bits = static_cast<int>(primitive_util::BitWidth(type));
      return BinaryLoop<T>(a, b, out, n, [=](T x, T y) -> T {
        if constexpr (std::is_signed_v<T>) {
          const __int128 p =
              static_cast<__int128>(x) * static_cast<__int128>(y);
          return static_cast<T>(p >> bits);
        } else {
          const unsigned __int128 p = static_cast<unsigned __int128>(x) *
                                      static_cast<unsigned __int128>(y);
          return static_cast<T>(p >> bits);
        }
      });
    }
    default:
      return Unsupported(instr, instr.operand(0)->shape().element_type());
  }
}

absl::Status PredBinary(const Instruction& instr, const void* a, const void* b,
                        void* out, int64_t n) {
  switch (instr.opcode()) {
    case HloOpcode::kAdd:  // bool(x + y)
    case HloOpcode::kMaximum:
    case HloOpcode::kOr:
      return BinaryLoop<bool>(a, b, out, n,
                              [](bool x, bool y) { return x || y; });
    case HloOpcode::kMultiply:  // bool(x * y)
    case HloOpcode::kMinimum:
    case HloOpcode::kAnd:
      return BinaryLoop<bool>(a, b, out, n,
                              [](bool x, bool y) { return x && y; });
    case HloOpcode::kXor:
      return BinaryLoop<bool>(a, b, out, n,
                              [](bool x, bool y) { return x != y; });
    default:
      return Unsupported(instr, PrimitiveType::PRED);
  }
}

absl::Status BinaryKernel(const Instruction& instr, const void* a,
                          const void* b, void* out, int64_t n) {
  const PrimitiveType type = instr.operand(0)->shape().element_type();
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      return FloatBinary<T>(instr, a, b, out, n);
    } else if constexpr (kIsComplex<T>) {
      return ComplexBinary<T>(instr, a, b, out, n);
    } else if constexpr (kIsInt<T>) {
      return IntBinary<T>(instr, a, b, out, n);
    } else {
      return PredBinary(instr, a, b, out, n);
    }
  });
}

absl::Status ComplexKernel(const Instruction& instr, const void* a,
                           const void* b, void* out, int64_t n) {
  const PrimitiveType type = instr.operand(0)->shape().element_type();
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* re = static_cast<const T*>(a);
      const T* im = static_cast<const T*>(b);
      auto* o = static_cast<std::complex<T>*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = std::complex<T>(re[i], im[i]);
      return absl::OkStatus();
    } else {
      return Unsupported(instr, type);
    }
  });
}

// ---- Compare ----------------------------------------------------------------

// Key whose signed-integer order is IEEE totalOrder:
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN.
template <typename T>
auto TotalOrderKey(T v) {
  if constexpr (kIsHalfLike<T>) {
    const int16_t s = static_cast<int16_t>(v.bits);
    return static_cast<int16_t>(s < 0 ? s ^ std::numeric_limits<int16_t>::max()
                                      : s);
  } else if constexpr (kIsSmallFloat<T>) {
    // Every f8/f4 value is exact in a float, whose order is the same.
    return TotalOrderKey(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, float>) {
    const int32_t s = std::bit_cast<int32_t>(v);
    return s < 0 ? s ^ std::numeric_limits<int32_t>::max() : s;
  } else {
    const int64_t s = std::bit_cast<int64_t>(v);
    return s < 0 ? s ^ std::numeric_limits<int64_t>::max() : s;
  }
}

template <typename V>
bool ApplyDirection(ComparisonDirection d, const V& x, const V& y) {
  switch (d) {
    case ComparisonDirection::kEq:
      return x == y;
    case ComparisonDirection::kNe:
      return x != y;
    case ComparisonDirection::kGe:
      return x >= y;
    case ComparisonDirection::kGt:
      return x > y;
    case ComparisonDirection::kLe:
      return x <= y;
    case ComparisonDirection::kLt:
      return x < y;
  }
  return false;
}

absl::Status CompareKernel(const Instruction& instr, const void* a,
                           const void* b, void* out, int64_t n) {
  const PrimitiveType type = instr.operand(0)->shape().element_type();
  const ComparisonDirection dir = instr.attrs().comparison_direction;
  const bool total_order =
      instr.attrs().comparison_type == ComparisonType::kFloatTotalOrder;
  bool* o = static_cast<bool*>(out);
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    if constexpr (kIsFloat<T>) {
      if (total_order) {
        for (int64_t i = 0; i < n; ++i) {
          o[i] = ApplyDirection(dir, TotalOrderKey(x[i]), TotalOrderKey(y[i]));
        }
      } else {
        // IEEE: every comparison with NaN is false except NE; -0 == +0.
        for (int64_t i = 0; i < n; ++i) {
          o[i] = ApplyDirection(dir, Load(x[i]), Load(y[i]));
        }
      }
    } else if constexpr (kIsComplex<T>) {
      // EQ/NE compare both parts; the ordered directions compare
      // (real, imag) lexicographically (StableHLO's definition).
      for (int64_t i = 0; i < n; ++i) {
        const auto xr = x[i].real(), yr = y[i].real();
        const auto xi = x[i].imag(), yi = y[i].imag();
        switch (dir) {
          case ComparisonDirection::kEq:
            o[i] = x[i] == y[i];
            break;
          case ComparisonDirection::kNe:
            o[i] = x[i] != y[i];
            break;
          default:
            o[i] = xr == yr ? ApplyDirection(dir, xi, yi)
                            : ApplyDirection(dir, xr, yr);
            break;
        }
      }
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = ApplyDirection(dir, x[i], y[i]);
    }
    return absl::OkStatus();
  });
}

// ---- Clamp, select ----------------------------------------------------------

absl::Status ClampKernel(const Instruction& instr,
                         absl::Span<const void* const> in, void* out,
                         int64_t n) {
  const PrimitiveType type = instr.shape().element_type();
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsComplex<T>) {
      return Unsupported(instr, type);
    } else {
      const T* lo = static_cast<const T*>(in[0]);
      const T* x = static_cast<const T*>(in[1]);
      const T* hi = static_cast<const T*>(in[2]);
      T* o = static_cast<T*>(out);
      // clamp(min, operand, max) = min(max(operand, min), max)
      // (SEMANTICS.md "Clamp"); a NaN in min, operand or max (checked in
      // that order) is the result, as XLA.
      for (int64_t i = 0; i < n; ++i) {
        const auto l = Load(lo[i]);
        const auto v = Load(x[i]);
        const auto h = Load(hi[i]);
        if constexpr (kIsFloat<T>) {
          if (std::isnan(l)) {
            o[i] = lo[i];
            continue;
          }
          if (std::isnan(v)) {
            o[i] = x[i];
            continue;
          }
          if (std::isnan(h)) {
            o[i] = hi[i];
            continue;
          }
        }
        o[i] = Store<T>(std::min(h, std::max(v, l)));
      }
      return absl::OkStatus();
    }
  });
}

absl::Status SelectKernel(const Instruction& instr,
                          absl::Span<const void* const> in, void* out,
                          int64_t n) {
  const int64_t width = primitive_util::ByteWidth(instr.shape().element_type());
  const bool* p = static_cast<const bool*>(in[0]);
  const auto* t = static_cast<const uint8_t*>(in[1]);
  const auto* f = static_cast<const uint8_t*>(in[2]);
  auto* o = static_cast<uint8_t*>(out);
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(o + i * width, (p[i] ? t : f) + i * width, width);
  }
  return absl::OkStatus();
}

// ---- Reduce-precision ---------------------------------------------------

// XLA's ReducePrecision on the bit pattern of a float with `width` bits,
// `src_exp` exponent and `src_mant` mantissa bits (SEMANTICS.md
// "ReducePrecision"): first round the mantissa to `mant_bits` bits, to
// nearest even; then values above the reduced exponent range become ±inf and
// values below the reduced format's smallest normal become ±0.
uint64_t ReducePrecisionBits(uint64_t v, int width, int src_exp, int src_mant,
                             int exp_bits, int mant_bits) {
  if (mant_bits < src_mant) {
    const int drop = src_mant - mant_bits;
    const uint64_t last_mantissa_bit_mask = uint64_t{1} << drop;
    const uint64_t base_rounding_bias = (last_mantissa_bit_mask >> 1) - 1;
    const uint64_t x_last_mantissa_bit = (v & last_mantissa_bit_mask) >> drop;
    const uint64_t truncation_mask = ~(last_mantissa_bit_mask - 1);
    v = (v + x_last_mantissa_bit + base_rounding_bias) & truncation_mask;
  }
  if (exp_bits < src_exp) {
    const uint64_t sign_bit_mask = uint64_t{1} << (width - 1);
    const uint64_t exp_bits_mask = ((uint64_t{1} << src_exp) - 1) << src_mant;
    const uint64_t exponent_bias = (uint64_t{1} << (src_exp - 1)) - 1;
    const uint64_t reduced_exponent_bias = (uint64_t{1} << (exp_bits - 1)) - 1;
    const uint64_t reduced_max_exponent = exponent_bias + reduced_exponent_bias;
    const uint64_t reduced_min_exponent = exponent_bias - reduced_exponent_bias;
    const uint64_t x_exponent = v & exp_bits_mask;
    const uint64_t x_signed_zero = v & sign_bit_mask;
    if (x_exponent > (reduced_max_exponent << src_mant)) {
      v = x_signed_zero | exp_bits_mask;  // ±inf
    } else if (x_exponent <= (reduced_min_exponent << src_mant)) {
      v = x_signed_zero;  // ±0
    }
  }
  if (width < 64) v &= (uint64_t{1} << width) - 1;
  return v;
}

absl::Status ReducePrecisionKernel(const Instruction& instr, const void* in,
                                   void* out, int64_t n) {
  const PrimitiveType type = instr.shape().element_type();
  const int exp_bits = instr.attrs().exponent_bits;
  const int mant_bits = instr.attrs().mantissa_bits;
  if (exp_bits < 1 || mant_bits < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstrName(instr), ": invalid exponent_bits=", exp_bits,
                     " mantissa_bits=", mant_bits));
  }
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    // The f8/f4 types are not reduce-precision operands here (their bit
    // layouts differ from IEEE's; XLA's evaluator has no case for them).
    if constexpr (kIsFloat<T> && !kIsSmallFloat<T>) {
      int width, src_exp, src_mant;
      if constexpr (std::is_same_v<T, Half>) {
        width = 16, src_exp = 5, src_mant = 10;
      } else if constexpr (std::is_same_v<T, BFloat16>) {
        width = 16, src_exp = 8, src_mant = 7;
      } else if constexpr (std::is_same_v<T, float>) {
        width = 32, src_exp = 8, src_mant = 23;
      } else {
        width = 64, src_exp = 11, src_mant = 52;
      }
      const T* a = static_cast<const T*>(in);
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) {
        uint64_t bits = 0;
        std::memcpy(&bits, &a[i], sizeof(T));
        if (std::isnan(Load(a[i]))) {
          // NaN stays NaN. A format without mantissa bits cannot encode
          // NaN; XLA then returns +inf, and so do we.
          if (mant_bits > 0) {
            o[i] = a[i];
          } else {
            o[i] = Store<T>(std::numeric_limits<ComputeT<T>>::infinity());
          }
          continue;
        }
        bits = ReducePrecisionBits(bits, width, src_exp, src_mant, exp_bits,
                                   mant_bits);
        std::memcpy(static_cast<void*>(&o[i]), &bits, sizeof(T));
      }
      return absl::OkStatus();
    } else {
      return Unsupported(instr, type);
    }
  });
}

// Literal whose n elements are copies of the single element of `scalar`.
Literal BroadcastScalar(const Literal& scalar, int64_t n) {
  const PrimitiveType type = scalar.shape().element_type();
  Literal out = MakeLiteral(ShapeUtil::MakeShape(type, {n}));
  const int64_t width = primitive_util::ByteWidth(type);
  uint8_t* o = out.mutable_data().data();
  const uint8_t* s = scalar.data().data();
  for (int64_t i = 0; i < n; ++i) std::memcpy(o + i * width, s, width);
  return out;
}

}  // namespace

bool IsKernelOpcode(HloOpcode opcode) {
  if (opcode == HloOpcode::kMap) return false;
  return IsElementwise(opcode) || opcode == HloOpcode::kCopy;
}

absl::Status ConvertBuffer(PrimitiveType from, PrimitiveType to, const void* in,
                           void* out, int64_t n) {
  return ArrayTypeSwitch(from, [&](auto from_tag) -> absl::Status {
    using From = typename decltype(from_tag)::type;
    return ArrayTypeSwitch(to, [&](auto to_tag) -> absl::Status {
      using To = typename decltype(to_tag)::type;
      const From* a = static_cast<const From*>(in);
      To* o = static_cast<To*>(out);
      if constexpr (kIsFloat<From> && kIsInt<To>) {
        if (primitive_util::IsSubByteType(to)) {
          // Floating -> s4/u4/s2/u2 truncates and saturates to the type's
          // own range (XLA: to ml_dtypes' int4 limits), NaN -> 0.
          const int bits = static_cast<int>(primitive_util::BitWidth(to));
          const bool is_signed = primitive_util::IsSignedIntegralType(to);
          const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
          const double hi = is_signed ? std::ldexp(1.0, bits - 1) - 1
                                      : std::ldexp(1.0, bits) - 1;
          for (int64_t i = 0; i < n; ++i) {
            double d = ToDouble(a[i]);
            d = std::isnan(d) ? 0.0 : std::trunc(d);
            o[i] = static_cast<To>(d < lo ? lo : d > hi ? hi : d);
          }
          return absl::OkStatus();
        }
      }
      for (int64_t i = 0; i < n; ++i) o[i] = ConvertElement<To>(a[i]);
      return absl::OkStatus();
    });
  });
}

absl::StatusOr<Literal> ConvertLiteral(const Literal& in, PrimitiveType to) {
  const Shape& shape = in.shape();
  if (shape.element_type() == to) return Literal(in);
  Literal out = MakeLiteral(ShapeUtil::ChangeElementType(shape, to));
  PLEXA_RETURN_IF_ERROR(ConvertBuffer(
      shape.element_type(), to, in.data().data(), out.mutable_data().data(),
      ElementCount(shape.dimensions())));
  return out;
}

absl::Status ElementwiseKernel(const Instruction& instr,
                               absl::Span<const void* const> in, void* out,
                               int64_t n) {
  const HloOpcode op = instr.opcode();
  const PrimitiveType out_type = instr.shape().element_type();
  switch (op) {
    case HloOpcode::kCopy:
      if (n > 0) {
        std::memcpy(out, in[0], n * primitive_util::ByteWidth(out_type));
      }
      return absl::OkStatus();
    case HloOpcode::kConvert:
      return ConvertBuffer(instr.operand(0)->shape().element_type(), out_type,
                           in[0], out, n);
    case HloOpcode::kBitcastConvert: {
      // Dense row-major bytes are the same on both sides (a wider input
      // element becomes consecutive narrower ones, little-endian).
      if (n > 0) {
        std::memcpy(out, in[0], n * primitive_util::ByteWidth(out_type));
      }
      if (out_type == PrimitiveType::PRED) {
        // Keep bools valid: any non-zero byte is true.
        auto* o = static_cast<uint8_t*>(out);
        for (int64_t i = 0; i < n; ++i) o[i] = o[i] != 0;
      }
      return absl::OkStatus();
    }
    case HloOpcode::kReducePrecision:
      return ReducePrecisionKernel(instr, in[0], out, n);
    case HloOpcode::kCompare:
      return CompareKernel(instr, in[0], in[1], out, n);
    case HloOpcode::kClamp:
      return ClampKernel(instr, in, out, n);
    case HloOpcode::kSelect:
      return SelectKernel(instr, in, out, n);
    case HloOpcode::kComplex:
      return ComplexKernel(instr, in[0], in[1], out, n);
    case HloOpcode::kIsFinite:
      return IsFiniteKernel(instr, in[0], out, n);
    default:
      break;
  }
  if (IsElementwiseUnary(op)) return UnaryKernel(instr, in[0], out, n);
  if (IsElementwiseBinary(op)) return BinaryKernel(instr, in[0], in[1], out, n);
  return absl::InternalError(
      absl::StrCat("evaluator: ", InstrName(instr), " is not elementwise"));
}

absl::StatusOr<Literal> EvalElementwise(Interpreter& interp,
                                        const Instruction& instr,
                                        Operands ops) {
  (void)interp;
  if (instr.opcode() == HloOpcode::kCopy) return Literal(*ops[0]);
  if (!instr.shape().IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstrName(instr), ": expected an array shape, got ",
                     instr.shape().ToString()));
  }
  const int64_t n = ElementCount(instr.shape().dimensions());
  std::vector<const void*> in;
  std::vector<Literal> broadcasts;
  broadcasts.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const Shape& s = ops[i]->shape();
    if (!s.IsArray()) {
      return absl::InvalidArgumentError(
          absl::StrCat(InstrName(instr), ": operand ", i,
                       " is not an array: ", s.ToString()));
    }
    const int64_t count = ElementCount(s.dimensions());
    // Bitcast-convert changes the element count with the element width.
    if (count == n || instr.opcode() == HloOpcode::kBitcastConvert) {
      in.push_back(ops[i]->data().data());
    } else if (s.IsScalar()) {
      // clamp's scalar min/max and select's scalar pred.
      broadcasts.push_back(BroadcastScalar(*ops[i], n));
      in.push_back(broadcasts.back().data().data());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          InstrName(instr), ": operand ", i, " ", s.ToString(),
          " does not match the result ", instr.shape().ToString()));
    }
  }
  if (instr.opcode() == HloOpcode::kBitcastConvert &&
      primitive_util::ByteWidth(ops[0]->shape().element_type()) *
              ElementCount(ops[0]->shape().dimensions()) !=
          primitive_util::ByteWidth(instr.shape().element_type()) * n) {
    return absl::InvalidArgumentError(absl::StrCat(
        InstrName(instr), ": ", ops[0]->shape().ToString(), " and ",
        instr.shape().ToString(), " have different byte sizes"));
  }
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(
      ElementwiseKernel(instr, in, out.mutable_data().data(), n));
  return out;
}

absl::StatusOr<Literal> EvalMap(Interpreter& interp, const Instruction& instr,
                                Operands ops) {
  if (instr.called_computations().size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(InstrName(instr), ": expected one called computation"));
  }
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, interp.GetScalarFn(*instr.to_apply()));
  std::vector<PrimitiveType> param_types;
  for (const Literal* op : ops)
    param_types.push_back(op->shape().element_type());
  PLEXA_RETURN_IF_ERROR(CheckScalarFnTypes(instr, *fn, param_types,
                                           {instr.shape().element_type()}));
  const int64_t n = ElementCount(instr.shape().dimensions());
  Literal out = MakeLiteral(instr.shape());
  const int64_t out_width =
      primitive_util::ByteWidth(instr.shape().element_type());
  std::vector<int64_t> widths;
  for (const Literal* op : ops) {
    if (ElementCount(op->shape().dimensions()) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          InstrName(instr), ": operand ", op->shape().ToString(),
          " does not match the result ", instr.shape().ToString()));
    }
    widths.push_back(primitive_util::ByteWidth(op->shape().element_type()));
  }
  std::vector<const void*> args(ops.size());
  uint8_t* o = out.mutable_data().data();
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < ops.size(); ++k) {
      args[k] = ops[k]->data().data() + i * widths[k];
    }
    void* result = o + i * out_width;
    PLEXA_RETURN_IF_ERROR(fn->Call(args.data(), &result));
  }
  return out;
}

}  // namespace plexa::eval
