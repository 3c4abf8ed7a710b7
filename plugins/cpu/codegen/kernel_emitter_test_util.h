// Support for kernel_emitter_test.cc: a test case (one module whose root
// is the instruction under test), deterministic inputs with edge values,
// running a kernel the way the CPU plugin does, and the comparison with the
// evaluator's result (bit for bit; any NaN matches any NaN).
#ifndef PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_TEST_UTIL_H_
#define PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_TEST_UTIL_H_

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/literal/float16.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/codegen/kernel_emitter.h"

namespace plexa::cpu::emitter_test {

using PT = PrimitiveType;

inline bool IsFloat(PT t) { return primitive_util::IsFloatingPointType(t); }
inline bool IsHalf(PT t) { return t == PT::F16 || t == PT::BF16; }
inline std::string Name(PT t) { return std::string(primitive_util::Name(t)); }

// ---- Test cases -----------------------------------------------------------

// How the values of a parameter are chosen.
enum class Fill {
  // Edge values crossed with those of the other parameters, then random.
  kMixed,
  // Each edge value once, then random: neighbours differ (shape ops).
  kDistinct,
  // kMixed with -0 replaced by +0: inside a reduction maximum/minimum are
  // IEEE maximum/minimum, which may return either zero (docs/cpu.md).
  kNoNegativeZero,
  // kNoNegativeZero without NaN (a NaN anywhere makes a whole-array
  // maximum NaN, which would hide the rest).
  kOrdered,
  // Integers in [-3, 3] ([0, 6] unsigned, 0/1 pred): sums are exact in
  // every type and order, so reassociated reductions stay bit-exact.
  kSmallInts,
  // Start indices: kStartIndices, rotated by the run number.
  kIndex,
};

struct Case {
  std::string name;  // the gtest name: opcode_types
  std::string hlo;
  // Per parameter number; missing ones kMixed (elementwise) or kDistinct.
  std::vector<Fill> fills;
  Fill default_fill = Fill::kMixed;
  int runs = 1;
  // f32 exp/tanh/logistic: compared with WithinPolynomialTolerance.
  bool polynomial = false;
};

// gtest prints the name instead of the struct's bytes.
inline void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// ---- Inputs ---------------------------------------------------------------

inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char ch : s) h = (h ^ static_cast<uint8_t>(ch)) * 0x100000001B3ull;
  return h;
}

// The bits of `d` in float type `t` (rounded to nearest).
inline uint64_t FloatBits(double d, PT t) {
  switch (t) {
    case PT::F64:
      return std::bit_cast<uint64_t>(d);
    case PT::F32:
      if (std::isfinite(d) &&
          std::fabs(d) > std::numeric_limits<float>::max()) {
        d = std::copysign(std::numeric_limits<double>::infinity(), d);
      }
      return std::bit_cast<uint32_t>(static_cast<float>(d));
    case PT::F16:
      return Half(static_cast<float>(d)).bits;
    default:
      return BFloat16(static_cast<float>(d)).bits;
  }
}

inline double BitsToDouble(uint64_t bits, PT t) {
  switch (t) {
    case PT::F64:
      return std::bit_cast<double>(bits);
    case PT::F32:
      return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case PT::F16:
      return Half::ToFloat(static_cast<uint16_t>(bits));
    default:
      return BFloat16::ToFloat(static_cast<uint16_t>(bits));
  }
}

inline uint64_t WidthMask(PT t) {
  const int64_t bits = primitive_util::BitWidth(t);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

inline uint64_t SignBit(PT t) {
  return uint64_t{1} << (primitive_util::BitWidth(t) - 1);
}

// Edge values of `t` as bit patterns.
inline std::vector<uint64_t> EdgeValues(PT t) {
  if (t == PT::PRED) return {0, 1};
  std::vector<uint64_t> out;
  if (!IsFloat(t)) {
    const bool is_signed = primitive_util::IsSignedIntegralType(t);
    const uint64_t min = is_signed ? SignBit(t) : 0;
    const uint64_t max = is_signed ? SignBit(t) - 1 : WidthMask(t);
    for (int64_t v :
         {0, 1, -1, 2, -2, 3, 7, 8, 15, 16, 31, 32, 63, 64, -64, 100}) {
      out.push_back(static_cast<uint64_t>(v) & WidthMask(t));
    }
    for (uint64_t v : {min, min + 1, max, max - 1}) {
      out.push_back(v & WidthMask(t));
    }
    return out;
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double d :
       {0.0,     -0.0,    1.0,      -1.0, 0.5,   -0.5,  1.5,    2.5,
        -2.5,    3.0,     -7.25,    1e-3, 100.0, 300.0, -129.0, 255.5,
        65504.0, 65536.0, -40000.0, 3e9,  -3e9,  1e19,  -1e19,  0x1p63,
        0x1p64,  1e30,    inf,      -inf, nan,   -nan}) {
    out.push_back(FloatBits(d, t));
  }
  // Largest finite, smallest normal and smallest subnormal magnitudes.
  const int64_t mantissa = t == PT::F16    ? 10
                           : t == PT::BF16 ? 7
                           : t == PT::F32  ? 23
                                           : 52;
  const uint64_t max_finite = (SignBit(t) - 1) - (uint64_t{1} << mantissa);
  for (uint64_t v : {max_finite, uint64_t{1} << mantissa, uint64_t{1}}) {
    out.push_back(v);
    out.push_back(v | SignBit(t));
  }
  // A signaling NaN and the quiet NaN with the same payload (totalOrder
  // tells them apart; a conversion through float may quiet the first).
  const uint64_t exponent_all_ones =
      (SignBit(t) - 1) & ~((uint64_t{1} << mantissa) - 1);
  out.push_back(exponent_all_ones | 1);
  out.push_back(exponent_all_ones | (uint64_t{1} << (mantissa - 1)) | 1);
  return out;
}

// Start indices (in range, at the edges, negative, far out, INT_MIN).
inline constexpr int64_t kStartIndices[] = {
    0, 1, 2, 3, 5, -1, -3, 100, std::numeric_limits<int32_t>::min()};

inline uint64_t RandomValue(PT t, uint64_t& state) {
  const uint64_t r = SplitMix64(state);
  if (t == PT::PRED) return r & 1;
  const uint64_t kind = SplitMix64(state) % 3;
  if (!IsFloat(t)) {
    if (kind == 0) {
      return (static_cast<uint64_t>(static_cast<int64_t>(r % 141) - 70)) &
             WidthMask(t);
    }
    return r & WidthMask(t);
  }
  const double unit = static_cast<double>(r >> 11) * 0x1p-53;  // [0, 1)
  switch (kind) {
    case 0:
      return r & WidthMask(t);  // any bits: NaNs, infinities, subnormals
    case 1:
      return FloatBits(20.0 * unit - 10.0, t);
    default: {
      const double mag = std::ldexp(1.0 + unit, static_cast<int>(r % 81) - 40);
      return FloatBits((r >> 7) & 1 ? -mag : mag, t);
    }
  }
}

inline void SetBits(Literal& lit, int64_t i, uint64_t bits) {
  const int64_t w = primitive_util::ByteWidth(lit.shape().element_type());
  std::memcpy(lit.mutable_data().data() + i * w, &bits, w);  // little-endian
}

inline uint64_t GetBits(const Literal& lit, int64_t i) {
  const int64_t w = primitive_util::ByteWidth(lit.shape().element_type());
  uint64_t bits = 0;
  std::memcpy(&bits, lit.data().data() + i * w, w);
  return bits;
}

// Parameter `p` of a module (row-major literal) filled as `fill` says.
inline Literal MakeArgument(const Shape& shape, int64_t p, Fill fill, int run,
                            uint64_t seed) {
  const PT t = shape.element_type();
  Literal lit(ShapeUtil::MakeShape(t, shape.dimensions()));
  const int64_t n = ShapeUtil::ElementsIn(shape);
  const std::vector<uint64_t> edges = EdgeValues(t);
  const int64_t e = static_cast<int64_t>(edges.size());
  uint64_t state =
      seed ^ (static_cast<uint64_t>(p) << 32) ^ static_cast<uint64_t>(run);
  const uint64_t neg_zero = IsFloat(t) ? SignBit(t) : 1;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    if (fill == Fill::kIndex) {
      constexpr int64_t kCount = sizeof(kStartIndices) / sizeof(int64_t);
      const int64_t k = kStartIndices[(i + run + 4 * p) % kCount];
      v = static_cast<uint64_t>(k) & WidthMask(t);
    } else if (fill == Fill::kSmallInts) {
      const uint64_t r = SplitMix64(state);
      int64_t k = static_cast<int64_t>(r % 7) - 3;
      if (t == PT::PRED) k = k & 1;
      if (primitive_util::IsUnsignedIntegralType(t)) k += 3;
      v = IsFloat(t) ? FloatBits(static_cast<double>(k), t)
                     : static_cast<uint64_t>(k) & WidthMask(t);
    } else {
      // Operand p walks the edges at its own pace: 0 the slowest, 1 the
      // fastest, so operands 0 and 1 meet in every combination.
      if (fill == Fill::kDistinct) {
        v = i < e ? edges[i] : RandomValue(t, state);
      } else if (i < e * e) {
        const int64_t k = p == 0 ? i / e : p == 1 ? i % e : (i * 7 + 3) % e;
        v = edges[k];
      } else {
        v = RandomValue(t, state);
      }
      if (IsFloat(t) &&
          (fill == Fill::kNoNegativeZero || fill == Fill::kOrdered)) {
        if (v == neg_zero) v = 0;
        const double d = BitsToDouble(v, t);
        if (fill == Fill::kOrdered && std::isnan(d)) v = FloatBits(1.25, t);
      }
    }
    SetBits(lit, i, v);
  }
  return lit;
}

inline std::vector<Literal> MakeArguments(const Module& module, const Case& c,
                                          int run) {
  std::vector<Literal> args;
  const Computation& entry = *module.entry_computation();
  for (int64_t p = 0; p < entry.num_parameters(); ++p) {
    const Fill fill =
        p < static_cast<int64_t>(c.fills.size()) ? c.fills[p] : c.default_fill;
    args.push_back(MakeArgument(entry.parameter_instruction(p)->shape(), p,
                                fill, run, Fnv1a(c.name)));
  }
  return args;
}

// ---- Running the kernel ---------------------------------------------------

struct Kernel {
  std::unique_ptr<JitLibrary> library;
  KernelFn fn = nullptr;
  KernelShape shape;
};

// As CpuThunkEmitter::EmitKernel and CompileProgram do it.
inline absl::StatusOr<Kernel> CompileKernel(const Instruction& instr) {
  KernelModule module("kernel_emitter_test");
  absl::StatusOr<KernelShape> shape = module.AddKernel(instr, "test_kernel");
  if (!shape.ok()) return shape.status();
  absl::StatusOr<std::vector<std::string>> objects = module.Compile();
  if (!objects.ok()) return objects.status();
  absl::StatusOr<std::unique_ptr<JitLibrary>> library =
      JitLibrary::Load(std::move(*objects));
  if (!library.ok()) return library.status();
  absl::StatusOr<void*> fn = (*library)->Lookup("test_kernel");
  if (!fn.ok()) return fn.status();
  Kernel k;
  k.library = std::move(*library);
  k.fn = reinterpret_cast<KernelFn>(*fn);
  k.shape = *shape;
  return k;
}

// The kernel's result for `args` (the entry parameters, row-major), in the
// result's layout.
inline absl::StatusOr<Literal> RunKernel(const Kernel& k,
                                         const Instruction& instr,
                                         const std::vector<Literal>& args) {
  std::vector<Literal> operands;  // each in its operand's layout
  for (const Instruction* op : instr.operands()) {
    absl::StatusOr<Literal> relaid = args[op->parameter_number()].Relayout(
        LayoutUtil::EffectiveLayout(op->shape()));
    if (!relaid.ok()) return relaid.status();
    operands.push_back(std::move(*relaid));
  }
  Shape result_shape = instr.shape();
  result_shape.set_layout(LayoutUtil::EffectiveLayout(instr.shape()));
  Literal result(result_shape);
  // Elements the kernel does not write show up as mismatches (0xA5 is not
  // a valid pred either).
  for (uint8_t& byte : result.mutable_data()) byte = 0xA5;
  std::vector<void*> buffers = {result.mutable_data().data()};
  for (Literal& o : operands) buffers.push_back(o.mutable_data().data());
  // Two pieces, as two threads would run them: rows are independent.
  const int64_t middle = k.shape.rows / 2;
  k.fn(buffers.data(), 0, middle);
  k.fn(buffers.data(), middle, k.shape.rows);
  return result;
}

// ---- Comparing ------------------------------------------------------------

inline std::string Describe(uint64_t bits, PT t) {
  if (!IsFloat(t)) return absl::StrCat("0x", absl::Hex(bits));
  return absl::StrCat(BitsToDouble(bits, t), " (0x", absl::Hex(bits), ")");
}

// f32 exp, tanh and logistic are branch-free polynomial approximations
// within a few ulp (docs/cpu.md; the conformance suite's f32 tolerance is
// rtol 1e-5), so they may differ from libm in the last bits (tanh: about a
// quarter of the inputs, logistic 2%; exp matches here). Results in the
// subnormal range keep an absolute error of about one subnormal step, where
// the polynomial's relative error no longer applies. f16 and bf16 run the
// same polynomials but are held bit-exact: rounded to their few bits, the
// results match the evaluator's on every input here.
inline bool WithinPolynomialTolerance(double actual, double expected) {
  if (std::isinf(expected) || std::isinf(actual)) return false;
  return std::fabs(actual - expected) <= 1e-5 * std::fabs(expected) + 0x1p-148;
}

// Empty when `actual` matches `expected`; else the first mismatches with
// the argument elements at the same row-major position (when an argument
// has the result's element count).
inline std::string Mismatches(const Literal& actual_any,
                              const Literal& expected_any, const Case& c,
                              const std::vector<Literal>& args) {
  const int64_t rank = expected_any.shape().rank();
  const Layout row_major = LayoutUtil::GetDefaultLayoutForRank(rank);
  absl::StatusOr<Literal> actual = actual_any.Relayout(row_major);
  absl::StatusOr<Literal> expected = expected_any.Relayout(row_major);
  if (!actual.ok() || !expected.ok()) return "relayout failed";
  if (!ShapeUtil::Compatible(actual->shape(), expected->shape())) {
    return absl::StrCat("shapes differ: ", actual->shape().ToString(), " vs ",
                        expected->shape().ToString());
  }
  const PT t = expected->shape().element_type();
  const int64_t n = ShapeUtil::ElementsIn(expected->shape());
  std::string out;
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t a = GetBits(*actual, i);
    const uint64_t e = GetBits(*expected, i);
    if (a == e) continue;
    if (IsFloat(t)) {
      const double ad = BitsToDouble(a, t);
      const double ed = BitsToDouble(e, t);
      if (std::isnan(ad) && std::isnan(ed)) continue;
      if (c.polynomial && WithinPolynomialTolerance(ad, ed)) continue;
    }
    if (++count > 8) continue;
    absl::StrAppend(&out, "  element ", i, ": kernel ", Describe(a, t),
                    ", evaluator ", Describe(e, t));
    for (size_t p = 0; p < args.size(); ++p) {
      if (ShapeUtil::ElementsIn(args[p].shape()) == n) {
        absl::StrAppend(
            &out, ", p", p, "=",
            Describe(GetBits(args[p], i), args[p].shape().element_type()));
      }
    }
    absl::StrAppend(&out, "\n");
  }
  if (count == 0) return "";
  return absl::StrCat(count, " of ", n, " elements differ:\n", out);
}

}  // namespace plexa::cpu::emitter_test

#endif  // PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_TEST_UTIL_H_
