// rng(a, b), distribution=rng_uniform | rng_normal.
//
// Generator: SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom
// number generators", 2014). The state starts at
//   rng_seed ^ (replica_id * 0xD1B54A32D192ED03)
// and advances by 0x9E3779B97F4A7C15 per 64-bit draw; the output is the
// state passed through the SplitMix64 finaliser. One generator per replica
// serves every rng instruction in execution order; elements are drawn in
// row-major order. So a seed fixes every value, and any backend that wants
// to match the oracle bit for bit can reproduce it.
//
// Values:
//   uniform float:  u = (draw >> 11) * 2^-53 in [0, 1);
//                   x = a + (b - a) * u in double, rounded to the type;
//                   a result rounded up to b becomes the largest value < b.
//   uniform integer: a + (draw mod (b - a)) with rejection of the draws
//                   that would bias the modulo (so exactly uniform).
//   normal:          Box-Muller with u1 in (0, 1], u2 in [0, 1):
//                   mu + sigma * sqrt(-2 ln u1) * cos(2 pi u2) in double,
//                   rounded to the type (one normal per two draws).
//   b <= a (uniform) is implementation-defined in XLA; we return a.
#include <cmath>
#include <limits>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {

uint64_t RandomGenerator::Next() {
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double RandomGenerator::NextUnit() {
  return static_cast<double>(Next() >> 11) * 0x1.0p-53;
}

namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// The largest value of T strictly below `b` (b finite or +inf).
template <typename T>
T NextBelow(T b) {
  if constexpr (kIsHalfLike<T>) {
    const float f = static_cast<float>(b);
    if (f == 0.0f) return T::FromBits(0x8001);  // -smallest subnormal
    uint16_t bits = b.bits;
    // Positive: step the magnitude down; negative: step it up.
    bits = (bits & 0x8000) ? bits + 1 : bits - 1;
    return T::FromBits(bits);
  } else if constexpr (kIsSmallFloat<T>) {
    // 256 encodings: take the largest value below b.
    const double limit = ToDouble(b);
    T best = b;
    double best_value = -std::numeric_limits<double>::infinity();
    for (int bits = 0; bits < 256; ++bits) {
      const T c = T::FromBits(static_cast<uint8_t>(bits));
      const double v = ToDouble(c);
      if (v < limit && v > best_value) {
        best = c;
        best_value = v;
      }
    }
    return best;
  } else {
    return std::nextafter(b, -std::numeric_limits<T>::infinity());
  }
}

template <typename T>
absl::Status Uniform(RandomGenerator& rng, const Literal& a_lit,
                     const Literal& b_lit, Literal& out) {
  const T a = DataOf<T>(a_lit)[0];
  const T b = DataOf<T>(b_lit)[0];
  T* o = MutableDataOf<T>(out);
  const int64_t n = ElementCount(out.shape().dimensions());
  if constexpr (kIsFloat<T>) {
    const double da = ToDouble(a);
    const double db = ToDouble(b);
    for (int64_t i = 0; i < n; ++i) {
      const double u = rng.NextUnit();
      if (!(da < db)) {
        o[i] = a;
        continue;
      }
      double x = da + (db - da) * u;
      if (!std::isfinite(x)) x = da * (1 - u) + db * u;  // b - a overflowed
      T v = ConvertElement<T>(x);
      if (!(ToDouble(v) < db)) v = NextBelow<T>(b);
      if (ToDouble(v) < da) v = a;
      o[i] = v;
    }
    return absl::OkStatus();
  } else if constexpr (kIsInt<T>) {
    // The range b - a as an unsigned 64-bit count (exact for every pair).
    const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(b)) -
                           static_cast<uint64_t>(static_cast<int64_t>(a));
    const bool empty = !(a < b);
    const uint64_t limit =
        empty ? 0
              : std::numeric_limits<uint64_t>::max() -
                    std::numeric_limits<uint64_t>::max() % range;
    for (int64_t i = 0; i < n; ++i) {
      if (empty) {
        o[i] = a;
        continue;
      }
      uint64_t draw;
      do {
        draw = rng.Next();
      } while (draw >= limit);
      o[i] = static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(a)) +
                            draw % range);
    }
    return absl::OkStatus();
  } else {
    return absl::UnimplementedError("rng_uniform of this type");
  }
}

template <typename T>
absl::Status Normal(RandomGenerator& rng, const Literal& mu_lit,
                    const Literal& sigma_lit, Literal& out) {
  if constexpr (kIsFloat<T>) {
    const double mu = ToDouble(DataOf<T>(mu_lit)[0]);
    const double sigma = ToDouble(DataOf<T>(sigma_lit)[0]);
    T* o = MutableDataOf<T>(out);
    const int64_t n = ElementCount(out.shape().dimensions());
    for (int64_t i = 0; i < n; ++i) {
      const double u1 = 1.0 - rng.NextUnit();  // (0, 1]
      const double u2 = rng.NextUnit();
      const double z = std::sqrt(-2.0 * std::log(u1)) *
                       std::cos(2.0 * std::numbers::pi * u2);
      o[i] = ConvertElement<T>(mu + sigma * z);
    }
    return absl::OkStatus();
  } else {
    return absl::UnimplementedError("rng_normal of this type");
  }
}

}  // namespace

absl::StatusOr<Literal> EvalRng(Interpreter& interp, const Instruction& instr,
                                Operands ops) {
  if (ops.size() != 2 || !instr.shape().IsArray()) {
    return Invalid(instr, "expected two scalar parameters");
  }
  const PrimitiveType type = instr.shape().element_type();
  for (const Literal* op : ops) {
    if (!op->shape().IsArray() || op->shape().element_type() != type ||
        ElementCount(op->shape().dimensions()) != 1) {
      return Invalid(
          instr, absl::StrCat("parameters must be ", primitive_util::Name(type),
                              " scalars"));
    }
  }
  Literal out = MakeLiteral(instr.shape());
  const bool uniform =
      instr.attrs().distribution == RandomDistribution::kUniform;
  absl::Status status = ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if (uniform) return Uniform<T>(interp.rng(), *ops[0], *ops[1], out);
    return Normal<T>(interp.rng(), *ops[0], *ops[1], out);
  });
  if (absl::IsUnimplemented(status)) {
    return absl::UnimplementedError(
        absl::StrCat("evaluator: ", InstrName(instr), ": ", status.message(),
                     " ", primitive_util::Name(type), " is not supported"));
  }
  PLEXA_RETURN_IF_ERROR(status);
  return out;
}

}  // namespace plexa::eval
