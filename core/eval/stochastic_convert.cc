// stochastic-convert(x, random): a float rounded to a signed integer, down or
// up at random, as XLA's evaluator (HloEvaluator::HandleStochasticConvert;
// docs/evaluator.md "stochastic-convert"). For each element:
//   NaN -> 0; +-inf -> the result type's max / min;
//   x >= max -> max; x <= min -> min;
//   else t = floor(|x|), f = |x| - t (both exact); f = 0 -> +-t;
//   otherwise the fraction as an unsigned fixed-point number of the random
//   operand's width w, F = trunc(f * 2^w), and |x| rounds up to t + 1 when
//   random < F (probability f for uniform random bits), else down to t;
//   the sign is put back.
// Every float type converts to double exactly, so the arithmetic is done in
// double (floor and the fraction are exact there as in the operand's type).
// Other result types are UNIMPLEMENTED, as in XLA's evaluator and its
// stochastic-convert decomposer.
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

// One element; `bits` is the result type's width, `random_bits` the random
// operand's.
int64_t StochasticRound(double x, uint64_t random, int64_t bits,
                        int64_t random_bits) {
  const int64_t max = static_cast<int64_t>((uint64_t{1} << (bits - 1)) - 1);
  const int64_t min = -max - 1;
  if (std::isnan(x)) return 0;
  if (std::isinf(x)) return x < 0 ? min : max;
  if (x >= static_cast<double>(max)) return max;
  if (x <= static_cast<double>(min)) return min;
  const bool negative = std::signbit(x);
  const double a = std::fabs(x);
  const double t = std::floor(a);
  const double f = a - t;
  // |x| < 2^63 here, so t fits.
  int64_t r = static_cast<int64_t>(t);
  if (f != 0.0) {
    // f < 1, so f * 2^w < 2^w: it fits in w bits (w <= 64).
    const uint64_t fixed =
        static_cast<uint64_t>(std::ldexp(f, static_cast<int>(random_bits)));
    if (random < fixed) ++r;
  }
  r = negative ? -r : r;
  // Rounding up can pass the range only below min + 1 (|x| < 2^(bits-1)).
  return r < min ? min : (r > max ? max : r);
}

}  // namespace

absl::StatusOr<Literal> EvalStochasticConvert(Interpreter& interp,
                                              const Instruction& instr,
                                              Operands ops) {
  (void)interp;
  const Shape& xs = ops[0]->shape();
  const Shape& rs = ops[1]->shape();
  const PrimitiveType to = instr.shape().element_type();
  if (!xs.IsArray() || !rs.IsArray() || !instr.shape().IsArray() ||
      !primitive_util::IsFloatingPointType(xs.element_type()) ||
      !primitive_util::IsUnsignedIntegralType(rs.element_type()) ||
      ElementCount(xs.dimensions()) != ElementCount(rs.dimensions()) ||
      ElementCount(xs.dimensions()) !=
          ElementCount(instr.shape().dimensions())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evaluator: ", InstrName(instr), ": stochastic-convert of ",
        xs.ToString(), " with random bits ", rs.ToString(), " to ",
        instr.shape().ToString()));
  }
  if (!primitive_util::IsSignedIntegralType(to)) {
    return absl::UnimplementedError(absl::StrCat(
        "evaluator: ", InstrName(instr), ": stochastically converting from ",
        primitive_util::Name(xs.element_type()), " to ",
        primitive_util::Name(to),
        " is not implemented (XLA rounds to signed integers only)"));
  }
  const int64_t n = ElementCount(xs.dimensions());
  const int64_t bits = primitive_util::BitWidth(to);
  const int64_t random_bits = primitive_util::BitWidth(rs.element_type());
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(xs.element_type(), [&](auto xtag) -> absl::Status {
        using X = typename decltype(xtag)::type;
        if constexpr (!kIsFloat<X>) {
          return absl::InternalError("stochastic-convert: not a float");
        } else {
          return ArrayTypeSwitch(
              rs.element_type(), [&](auto rtag) -> absl::Status {
                using R = typename decltype(rtag)::type;
                if constexpr (!std::is_integral_v<R> || std::is_signed_v<R>) {
                  return absl::InternalError(
                      "stochastic-convert: random bits not unsigned");
                } else {
                  return ArrayTypeSwitch(to, [&](auto otag) -> absl::Status {
                    using O = typename decltype(otag)::type;
                    if constexpr (!std::is_integral_v<O> ||
                                  !std::is_signed_v<O>) {
                      return absl::InternalError(
                          "stochastic-convert: result not signed");
                    } else {
                      const X* x =
                          reinterpret_cast<const X*>(ops[0]->data().data());
                      const R* r =
                          reinterpret_cast<const R*>(ops[1]->data().data());
                      O* o = reinterpret_cast<O*>(out.mutable_data().data());
                      for (int64_t i = 0; i < n; ++i) {
                        o[i] = static_cast<O>(StochasticRound(
                            ToDouble(x[i]), static_cast<uint64_t>(r[i]), bits,
                            random_bits));
                      }
                      return absl::OkStatus();
                    }
                  });
                }
              });
        }
      }));
  return out;
}

}  // namespace plexa::eval
