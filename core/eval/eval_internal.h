// Internals of the reference evaluator shared by its op-family files.
//
// Values: every intermediate value is a Literal in the default
// (major-to-minor, dense) layout, so element i of an array is at offset
// i * element_size of its data() in row-major order. Layouts matter only at
// the edges (arguments, the result, bitcast, custom-call buffers, feeds),
// where values are converted.
#ifndef PLEXA_CORE_EVAL_EVAL_INTERNAL_H_
#define PLEXA_CORE_EVAL_EVAL_INTERNAL_H_

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/base/status_macros.h"
#include "core/eval/evaluator.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/runtime/rendezvous.h"
#include "core/shape/shape.h"
#include "core/shape/shape_util.h"

namespace plexa::eval {

// ---- Element types --------------------------------------------------------

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<NativeType>{}) for an array element type. f must return
// absl::Status or absl::StatusOr<X>; TUPLE/TOKEN/INVALID give an error.
template <typename F>
auto ArrayTypeSwitch(PrimitiveType t, F&& f) -> decltype(f(TypeTag<float>{})) {
  switch (t) {
    case PrimitiveType::PRED:
      return f(TypeTag<bool>{});
    case PrimitiveType::S8:
      return f(TypeTag<int8_t>{});
    case PrimitiveType::S16:
      return f(TypeTag<int16_t>{});
    case PrimitiveType::S32:
      return f(TypeTag<int32_t>{});
    case PrimitiveType::S64:
      return f(TypeTag<int64_t>{});
    case PrimitiveType::U8:
      return f(TypeTag<uint8_t>{});
    case PrimitiveType::U16:
      return f(TypeTag<uint16_t>{});
    case PrimitiveType::U32:
      return f(TypeTag<uint32_t>{});
    case PrimitiveType::U64:
      return f(TypeTag<uint64_t>{});
    case PrimitiveType::F16:
      return f(TypeTag<Half>{});
    case PrimitiveType::BF16:
      return f(TypeTag<BFloat16>{});
    case PrimitiveType::F32:
      return f(TypeTag<float>{});
    case PrimitiveType::F64:
      return f(TypeTag<double>{});
    case PrimitiveType::C64:
      return f(TypeTag<std::complex<float>>{});
    case PrimitiveType::C128:
      return f(TypeTag<std::complex<double>>{});
    // Sub-byte integers are computed in a byte; the interpreter wraps every
    // instruction's result to the type's width (WrapSubByteIntegers), so
    // the ops need no case of their own.
    case PrimitiveType::S4:
    case PrimitiveType::S2:
      return f(TypeTag<int8_t>{});
    case PrimitiveType::U4:
    case PrimitiveType::U2:
      return f(TypeTag<uint8_t>{});
    case PrimitiveType::F8E5M2:
      return f(TypeTag<F8e5m2>{});
    case PrimitiveType::F8E4M3FN:
      return f(TypeTag<F8e4m3fn>{});
    case PrimitiveType::F8E4M3B11FNUZ:
      return f(TypeTag<F8e4m3b11fnuz>{});
    case PrimitiveType::F8E5M2FNUZ:
      return f(TypeTag<F8e5m2fnuz>{});
    case PrimitiveType::F8E4M3FNUZ:
      return f(TypeTag<F8e4m3fnuz>{});
    case PrimitiveType::F8E4M3:
      return f(TypeTag<F8e4m3>{});
    case PrimitiveType::F8E3M4:
      return f(TypeTag<F8e3m4>{});
    case PrimitiveType::F4E2M1FN:
      return f(TypeTag<F4e2m1fn>{});
    case PrimitiveType::F8E8M0FNU:
      return f(TypeTag<F8e8m0fnu>{});
    default:
      break;
  }
  return absl::InternalError(absl::StrCat(
      "evaluator: not an array element type: ", primitive_util::Name(t)));
}

template <typename T>
inline constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> ||
                                   std::is_same_v<T, std::complex<double>>;
template <typename T>
inline constexpr bool kIsHalfLike =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
// f16, bf16 and the f8/f4 types: storage types computed in float.
template <typename T>
inline constexpr bool kIsNarrowFloat = kIsHalfLike<T> || kIsSmallFloat<T>;
template <typename T>
inline constexpr bool kIsFloat =
    kIsNarrowFloat<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kIsInt =
    std::is_integral_v<T> && !std::is_same_v<T, bool>;

// f16, bf16 and the f8/f4 types are computed in float and rounded (to
// nearest even, by the type's own rules: float8.h) when stored, as XLA's
// evaluator computes them (through float, rounding each result back); every
// other type is computed in itself. This is the one place that rule lives.
template <typename T>
struct ComputeTypeOf {
  using type = std::conditional_t<kIsSmallFloat<T>, float, T>;
};
template <>
struct ComputeTypeOf<Half> {
  using type = float;
};
template <>
struct ComputeTypeOf<BFloat16> {
  using type = float;
};
template <typename T>
using ComputeT = typename ComputeTypeOf<T>::type;

template <typename T>
inline ComputeT<T> Load(T v) {
  if constexpr (kIsNarrowFloat<T>) {
    return static_cast<float>(v);
  } else {
    return v;
  }
}
template <typename T>
inline T Store(ComputeT<T> v) {
  if constexpr (kIsNarrowFloat<T>) {
    return T(v);
  } else {
    return v;
  }
}

// Integer arithmetic is done in an unsigned type at least as wide as
// `unsigned` so that overflow wraps without undefined behaviour (uint16 *
// uint16 would otherwise promote to a signed int and overflow).
template <typename T>
using WideUnsigned = std::conditional_t<(sizeof(T) < sizeof(unsigned)),
                                        unsigned, std::make_unsigned_t<T>>;

// Exact value of a real (non-complex) element as a double.
template <typename T>
inline double ToDouble(T v) {
  if constexpr (kIsNarrowFloat<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// XLA's convert of one element (docs/evaluator.md "convert"): float -> int
// truncates toward zero and saturates, NaN -> 0; int -> float and float ->
// narrower float round to nearest even, once; anything -> pred is `!= 0`;
// complex -> real keeps the real part.
template <typename To, typename From>
To ConvertElement(From v);

namespace convert_detail {

// |v| rounded to `bits` significant bits, to nearest even (exact in a
// double): int -> f16/bf16 must round once from the integer, not through
// float or double, which would round twice for large 64-bit values.
inline double RoundIntegerMagnitude(uint64_t mag, int bits) {
  const int width = std::bit_width(mag);
  if (width <= bits) return static_cast<double>(mag);
  const int shift = width - bits;
  uint64_t q = mag >> shift;
  const uint64_t rem = mag & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return std::ldexp(static_cast<double>(q), shift);
}

template <typename To>
To DoubleToFloatLike(double d) {
  if constexpr (std::is_same_v<To, double>) {
    return d;
  } else if constexpr (std::is_same_v<To, float>) {
    // One rounding, to nearest even. Doubles beyond the float range are
    // handled here: converting them with a cast is undefined behaviour.
    // FLT_MAX + half an ulp (2^103) rounds to infinity (FLT_MAX's
    // significand is odd), anything smaller to FLT_MAX.
    constexpr double kFloatMax = 3.4028234663852886e38;
    constexpr double kOverflow = 3.4028235677973366e38;  // FLT_MAX + 2^103
    if (std::isfinite(d) && std::fabs(d) > kFloatMax) {
      if (std::fabs(d) >= kOverflow) {
        return d > 0 ? std::numeric_limits<float>::infinity()
                     : -std::numeric_limits<float>::infinity();
      }
      return d > 0 ? std::numeric_limits<float>::max()
                   : -std::numeric_limits<float>::max();
    }
    return static_cast<float>(d);
  } else if constexpr (std::is_same_v<To, Half>) {
    return Half::FromBits(DoubleToHalfBits(d));
  } else if constexpr (kIsSmallFloat<To>) {
    return To::FromDouble(d);
  } else {
    return BFloat16::FromBits(DoubleToBFloat16Bits(d));
  }
}

template <typename To, typename From>
To IntToFloatLike(From v) {
  if constexpr (std::is_same_v<To, float> || std::is_same_v<To, double>) {
    return static_cast<To>(v);  // the hardware rounds once, to nearest even
  } else {
    bool negative = false;
    uint64_t mag;
    if constexpr (std::is_signed_v<From>) {
      negative = v < 0;
      mag = negative ? uint64_t{0} - static_cast<uint64_t>(v)
                     : static_cast<uint64_t>(v);
    } else {
      mag = static_cast<uint64_t>(v);
    }
    int bits;
    if constexpr (kIsSmallFloat<To>) {
      bits = To::Format().mantissa_bits + 1;
    } else {
      bits = std::is_same_v<To, Half> ? 11 : 8;
    }
    double r = RoundIntegerMagnitude(mag, bits);
    return DoubleToFloatLike<To>(negative ? -r : r);
  }
}

// Truncates toward zero, saturates to the range of To, NaN -> 0.
template <typename To>
To FloatToIntSaturating(double d) {
  if (std::isnan(d)) return 0;
  const double lo = static_cast<double>(std::numeric_limits<To>::min());
  const double hi_exclusive = std::ldexp(1.0, std::numeric_limits<To>::digits);
  if (d <= lo) return std::numeric_limits<To>::min();
  if (d >= hi_exclusive) return std::numeric_limits<To>::max();
  return static_cast<To>(d);
}

}  // namespace convert_detail

template <typename To, typename From>
To ConvertElement(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsComplex<From>) {
    if constexpr (kIsComplex<To>) {
      using R = typename To::value_type;
      return To(ConvertElement<R>(v.real()), ConvertElement<R>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      // complex -> real keeps the real part (as C++'s std::real and numpy).
      return ConvertElement<To>(v.real());
    }
  } else if constexpr (kIsComplex<To>) {
    using R = typename To::value_type;
    return To(ConvertElement<R>(v), R(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kIsNarrowFloat<From>) {
      return static_cast<float>(v) != 0.0f;  // NaN -> true
    } else {
      return v != 0;
    }
  } else if constexpr (std::is_same_v<From, bool>) {
    return ConvertElement<To>(static_cast<uint8_t>(v ? 1 : 0));
  } else if constexpr (kIsFloat<From>) {
    const double d = ToDouble(v);  // exact
    if constexpr (kIsInt<To>) {
      return convert_detail::FloatToIntSaturating<To>(d);
    } else {
      return convert_detail::DoubleToFloatLike<To>(d);
    }
  } else {  // From is an integer
    if constexpr (kIsInt<To>) {
      return static_cast<To>(v);  // modular (two's complement)
    } else {
      return convert_detail::IntToFloatLike<To>(v);
    }
  }
}

// ---- Literal helpers (literal_util.cc) -----------------------------------

// `shape` with every layout removed (recursively).
Shape StripLayout(const Shape& shape);
// A zero-filled literal of `shape` in the default layout (tuples and tokens
// included).
Literal MakeLiteral(const Shape& shape);
Literal MakeTokenLiteral();
// True if an array shape's layout (or its absence) stores elements densely
// in row-major order: minor_to_major descending, no tiles, no padding.
bool IsDefaultDense(const Shape& shape);
// The same values in the default layout (recursively for tuples).
absl::StatusOr<Literal> ToDefaultLayout(const Literal& literal);
// A default-layout literal re-laid out to the layouts of `target` (which
// has the same dimensions; arrays without a layout get the default).
absl::StatusOr<Literal> ToLayoutOf(const Literal& dense, const Shape& target);
// Transposes an array literal: result dimension i is operand dimension
// perm[i] (perm must be a permutation of the operand's dimensions).
Literal TransposeLiteral(const Literal& in, absl::Span<const int64_t> perm);
// Row-major strides of `dims` in elements: [2,3,4] -> {12,4,1}.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);
int64_t ElementCount(absl::Span<const int64_t> dims);

template <typename T>
const T* DataOf(const Literal& l) {
  return reinterpret_cast<const T*>(l.data().data());
}
template <typename T>
T* MutableDataOf(Literal& l) {
  return reinterpret_cast<T*>(l.mutable_data().data());
}

// Sets every PRED element (recursively) to 0 or 1, so that bytes written by
// foreign code (custom calls, bitcasts, feeds) are valid bools.
void NormalizePred(Literal* literal);
// Wraps every S4/U4/S2/U2 element (recursively) to its width, sign-extended
// for the signed types, and keeps the low 4 bits of F4E2M1FN elements: the
// interpreter applies it to every instruction's result, so integer ops
// computed in a byte wrap as in 4 or 2 bits and bitcasts between sub-byte
// types leave canonical bytes.
void WrapSubByteIntegers(Literal* literal);

// Calls f(index) for every index of `dims` in row-major order (last
// dimension fastest); index is a span over a reused buffer. No calls if a
// dimension is 0; one call with an empty index for rank 0.
template <typename F>
void ForEachIndexRowMajor(absl::Span<const int64_t> dims, F&& f) {
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  const int64_t rank = static_cast<int64_t>(dims.size());
  absl::InlinedVector<int64_t, 8> index(rank, 0);
  while (true) {
    f(absl::Span<const int64_t>(index));
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Element `linear` (row-major) of an integer array, as int64 (u64 values
// above INT64_MAX saturate, which clamping treats the same way).
absl::StatusOr<int64_t> ReadIndexElement(const Literal& literal,
                                         int64_t linear);
// Checks that an evaluated value has the instruction's dimensions and
// element types (layouts ignored): Internal error otherwise.
absl::Status CheckResultShape(const Instruction& instr, const Literal& value);

// "op %name" for messages.
std::string InstrName(const Instruction& instr);

// Accumulator type of dot and convolution: float for f16/bf16 (rounded once
// when stored), the type itself for f32/f64/complex, a wide unsigned type
// for integers (wrapping), bool for pred (or of ands).
template <typename T>
struct AccumulatorOf {
  using type = ComputeT<T>;
};
template <typename T>
requires kIsInt<T>
struct AccumulatorOf<T> {
  using type = WideUnsigned<T>;
};
template <typename T>
using AccumulatorT = typename AccumulatorOf<T>::type;

template <typename T>
inline AccumulatorT<T> ToAccumulator(T v) {
  if constexpr (kIsInt<T>) {
    return static_cast<AccumulatorT<T>>(
        static_cast<std::make_unsigned_t<T>>(v));
  } else {
    return Load(v);
  }
}
template <typename T>
inline T FromAccumulator(AccumulatorT<T> v) {
  if constexpr (kIsInt<T>) {
    return static_cast<T>(v);
  } else {
    return Store<T>(v);
  }
}
// acc += a * b in the accumulator type.
template <typename T>
inline void MultiplyAccumulate(AccumulatorT<T>& acc, AccumulatorT<T> a,
                               AccumulatorT<T> b) {
  if constexpr (std::is_same_v<T, bool>) {
    acc = acc || (a && b);
  } else {
    acc += a * b;
  }
}

// ---- Elementwise kernels (elementwise.cc) --------------------------------

// Applies an elementwise instruction (unary, binary, compare, clamp, select,
// convert, bitcast-convert, reduce-precision, complex, real, imag, copy) to
// n elements: in[i] holds n elements of operand i (already broadcast), out
// n elements of the result type. Used for whole arrays and, with n = 1, by
// scalar programs.
absl::Status ElementwiseKernel(const Instruction& instr,
                               absl::Span<const void* const> in, void* out,
                               int64_t n);
// True if ElementwiseKernel handles this opcode.
bool IsKernelOpcode(HloOpcode opcode);
// Converts n elements with XLA's convert semantics.
absl::Status ConvertBuffer(PrimitiveType from, PrimitiveType to, const void* in,
                           void* out, int64_t n);
absl::StatusOr<Literal> ConvertLiteral(const Literal& in, PrimitiveType to);

// ---- Scalar functions ------------------------------------------------------

class Interpreter;

// A called computation applied to scalars (reduce's reducer, sort's
// comparator, map's function, ...). Computations made only of scalar
// elementwise instructions run as a compiled step list without building
// literals; any other computation goes through the interpreter.
class ScalarFn {
 public:
  static absl::StatusOr<std::unique_ptr<ScalarFn>> Create(
      const Computation& computation, Interpreter* interpreter);

  // args[i] points to one element of parameter i's type; results[j] to
  // storage for output j (the root, or element j of a tuple root). Results
  // may alias arguments.
  absl::Status Call(const void* const* args, void* const* results);

  int64_t num_params() const {
    return static_cast<int64_t>(param_types_.size());
  }
  int64_t num_results() const {
    return static_cast<int64_t>(result_types_.size());
  }
  PrimitiveType param_type(int64_t i) const { return param_types_[i]; }
  PrimitiveType result_type(int64_t i) const { return result_types_[i]; }
  const Computation& computation() const { return *computation_; }

 private:
  ScalarFn() = default;
  absl::Status CallSlow(const void* const* args, void* const* results);

  struct Step {
    const Instruction* instr;
    absl::InlinedVector<int32_t, 3> operands;  // slot numbers
    int32_t out;                               // slot number
  };
  const Computation* computation_ = nullptr;
  Interpreter* interpreter_ = nullptr;
  std::vector<PrimitiveType> param_types_;
  std::vector<PrimitiveType> result_types_;
  bool compiled_ = false;
  // Compiled form: slot i holds one element (16 bytes fit every type).
  std::vector<std::complex<double>> slots_;
  std::vector<int32_t> param_slots_;
  std::vector<Step> steps_;
  std::vector<int32_t> result_slots_;
};

// Checks that a called computation applied to elements takes parameters of
// `params` types and returns `results` types (InvalidArgument naming the
// instruction otherwise), so no element is ever read with the wrong width.
absl::Status CheckScalarFnTypes(const Instruction& instr, const ScalarFn& fn,
                                absl::Span<const PrimitiveType> params,
                                absl::Span<const PrimitiveType> results);

// ---- Collectives (collectives.cc) --------------------------------------

// Where the replicas of RunReplicated meet for all-reduce: the one
// rendezvous every executor uses (core/runtime/rendezvous.h), exchanging
// each replica's operand values.
using CollectiveHub = Rendezvous<std::vector<Literal>>;

// ---- Random numbers (rng.cc) -----------------------------------------------

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter advanced by the
// golden-ratio increment and mixed by a fixed bijection. Deterministic per
// seed; docs/evaluator.md describes how values are drawn.
class RandomGenerator {
 public:
  explicit RandomGenerator(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [0, 1) with 53 random bits.
  double NextUnit();

 private:
  uint64_t state_;
};

// ---- The interpreter ---------------------------------------------------

class Interpreter {
 public:
  // Runs as `device` of `grid` (replica grid.ReplicaOf(device), partition
  // grid.PartitionOf(device)); the hub's participants are device numbers.
  Interpreter(const EvaluatorOptions& options, const DeviceGrid& grid,
              int64_t device, CollectiveHub* hub);
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;
  ~Interpreter();

  // Evaluates `computation` with `args` (default-layout literals, one per
  // parameter).
  absl::StatusOr<Literal> Evaluate(const Computation& computation,
                                   absl::Span<const Literal* const> args);
  // The cached ScalarFn of a called computation.
  absl::StatusOr<ScalarFn*> GetScalarFn(const Computation& computation);

  // One instruction on evaluated operands (default layout); `args` are the
  // enclosing computation's arguments (unused by every handler today).
  absl::StatusOr<Literal> EvaluateInstruction(
      const Instruction& instr, absl::Span<const Literal* const> operands,
      absl::Span<const Literal* const> args);

  const EvaluatorOptions& options() const { return options_; }
  int64_t replica_id() const { return grid_.ReplicaOf(device_); }
  int64_t partition_id() const { return grid_.PartitionOf(device_); }
  // This run's number among every replica and partition (XLA's flattened
  // id): what collectives meet by, and what feeds and rng states are kept
  // per.
  int64_t device() const { return device_; }
  const DeviceGrid& grid() const { return grid_; }
  CollectiveHub* hub() const { return hub_; }
  RandomGenerator& rng() { return rng_; }
  // rng-get-and-update-state's states: options().rng_states (the
  // executable's), or this interpreter's own.
  RngStateTable& rng_states() {
    return options_.rng_states != nullptr ? *options_.rng_states
                                          : own_rng_states_;
  }
  // options().feeds, or the replica's queues from the options.
  HostFeeds& feeds() {
    return options_.feeds != nullptr ? *options_.feeds : queue_feeds_;
  }
  // Number of times `instr` has executed on this replica before (used to
  // match collectives across replicas).
  int64_t NextExecutionCount(const Instruction* instr) {
    return execution_counts_[instr]++;
  }
  // What the last send of each channel_id delivered to this replica,
  // waiting for the recv-done of that channel (channels.cc).
  absl::flat_hash_map<int64_t, Literal>& channel_deliveries() {
    return channel_deliveries_;
  }

 private:
  struct Plan;
  absl::StatusOr<const Plan*> GetPlan(const Computation& computation);

  const EvaluatorOptions& options_;
  DeviceGrid grid_;
  int64_t device_;
  CollectiveHub* hub_;
  RandomGenerator rng_;
  RngStateTable own_rng_states_;
  QueueFeeds queue_feeds_;
  absl::flat_hash_map<const Computation*, std::unique_ptr<Plan>> plans_;
  absl::flat_hash_map<const Computation*, std::unique_ptr<ScalarFn>>
      scalar_fns_;
  absl::flat_hash_map<const Instruction*, int64_t> execution_counts_;
  absl::flat_hash_map<int64_t, Literal> channel_deliveries_;
};

// ---- Op handlers -----------------------------------------------------------
// Each takes the instruction and its evaluated operands (default layout) and
// returns the value in the default layout.
using Operands = absl::Span<const Literal* const>;
#define PLEXA_EVAL_HANDLER(name)                                              \
  absl::StatusOr<Literal> name(Interpreter& interp, const Instruction& instr, \
                               Operands ops)

// elementwise.cc
PLEXA_EVAL_HANDLER(EvalElementwise);
PLEXA_EVAL_HANDLER(EvalMap);
// data_movement.cc
PLEXA_EVAL_HANDLER(EvalBroadcast);
PLEXA_EVAL_HANDLER(EvalReshape);
PLEXA_EVAL_HANDLER(EvalTranspose);
PLEXA_EVAL_HANDLER(EvalReverse);
PLEXA_EVAL_HANDLER(EvalConcatenate);
PLEXA_EVAL_HANDLER(EvalSlice);
PLEXA_EVAL_HANDLER(EvalPad);
PLEXA_EVAL_HANDLER(EvalDynamicSlice);
PLEXA_EVAL_HANDLER(EvalDynamicUpdateSlice);
PLEXA_EVAL_HANDLER(EvalIota);
PLEXA_EVAL_HANDLER(EvalBitcast);
PLEXA_EVAL_HANDLER(EvalGetDimensionSize);
PLEXA_EVAL_HANDLER(EvalTuple);
PLEXA_EVAL_HANDLER(EvalGetTupleElement);
// gather_scatter.cc
PLEXA_EVAL_HANDLER(EvalGather);
PLEXA_EVAL_HANDLER(EvalScatter);
// reduction.cc
PLEXA_EVAL_HANDLER(EvalReduce);
PLEXA_EVAL_HANDLER(EvalReduceWindow);
PLEXA_EVAL_HANDLER(EvalSelectAndScatter);
// sort.cc
PLEXA_EVAL_HANDLER(EvalSort);
// dot.cc
PLEXA_EVAL_HANDLER(EvalDot);
PLEXA_EVAL_HANDLER(EvalRaggedDot);
PLEXA_EVAL_HANDLER(EvalScaledDot);
// scan_shuffle.cc
PLEXA_EVAL_HANDLER(EvalScan);
PLEXA_EVAL_HANDLER(EvalShuffle);
// convolution.cc
PLEXA_EVAL_HANDLER(EvalConvolution);
// linalg.cc
PLEXA_EVAL_HANDLER(EvalTriangularSolve);
PLEXA_EVAL_HANDLER(EvalCholesky);
// fft.cc, topk.cc
PLEXA_EVAL_HANDLER(EvalFft);
PLEXA_EVAL_HANDLER(EvalTopK);
// stochastic_convert.cc
PLEXA_EVAL_HANDLER(EvalStochasticConvert);
// topk's kernel: the top k of `operand` along its last dimension into
// instr's (values, s32 indices) shape; also runs XLA's "TopK" custom call.
absl::StatusOr<Literal> TopKKernel(const Instruction& instr,
                                   const Literal& operand, int64_t k,
                                   bool largest);
// batch_norm.cc
PLEXA_EVAL_HANDLER(EvalBatchNormTraining);
PLEXA_EVAL_HANDLER(EvalBatchNormInference);
PLEXA_EVAL_HANDLER(EvalBatchNormGrad);
// control_flow.cc
PLEXA_EVAL_HANDLER(EvalWhile);
PLEXA_EVAL_HANDLER(EvalConditional);
PLEXA_EVAL_HANDLER(EvalCall);
// collectives.cc
PLEXA_EVAL_HANDLER(EvalAllReduce);
PLEXA_EVAL_HANDLER(EvalAllGather);
PLEXA_EVAL_HANDLER(EvalReduceScatter);
PLEXA_EVAL_HANDLER(EvalCollectivePermute);
PLEXA_EVAL_HANDLER(EvalCollectiveReduce);
PLEXA_EVAL_HANDLER(EvalRaggedAllToAll);
// collective-permute's exchange with explicit pairs and result shape: every
// replica meets at `instr`; a target takes its source's `operands`, any
// other replica zeros of `result_shape` (also send's, channels.cc). One
// operand gives an array; several (XLA's combined form) their tuple.
absl::StatusOr<Literal> PermuteAcrossReplicas(
    Interpreter& interp, const Instruction& instr,
    absl::Span<const std::pair<int64_t, int64_t>> pairs, Operands operands,
    const Shape& result_shape);
// channels.cc: send, recv, send-done, recv-done.
PLEXA_EVAL_HANDLER(EvalSend);
PLEXA_EVAL_HANDLER(EvalRecv);
PLEXA_EVAL_HANDLER(EvalSendDone);
PLEXA_EVAL_HANDLER(EvalRecvDone);
PLEXA_EVAL_HANDLER(EvalCollectiveBroadcast);
PLEXA_EVAL_HANDLER(EvalAllToAll);
PLEXA_EVAL_HANDLER(EvalAsyncStart);
PLEXA_EVAL_HANDLER(EvalAsyncDone);
PLEXA_EVAL_HANDLER(EvalReplicaId);
PLEXA_EVAL_HANDLER(EvalPartitionId);
// async.cc
PLEXA_EVAL_HANDLER(EvalAsyncWrapperStart);
PLEXA_EVAL_HANDLER(EvalAsyncWrapperUpdate);
PLEXA_EVAL_HANDLER(EvalAsyncWrapperDone);
PLEXA_EVAL_HANDLER(EvalCopyStart);
PLEXA_EVAL_HANDLER(EvalCopyDone);
PLEXA_EVAL_HANDLER(EvalForwardOperand);
PLEXA_EVAL_HANDLER(EvalRngGetAndUpdateState);
// feeds.cc
PLEXA_EVAL_HANDLER(EvalInfeed);
PLEXA_EVAL_HANDLER(EvalOutfeed);
PLEXA_EVAL_HANDLER(EvalAfterAll);
// custom_call.cc
PLEXA_EVAL_HANDLER(EvalCustomCall);
// rng.cc
PLEXA_EVAL_HANDLER(EvalRng);
// rng_bit_generator.cc
PLEXA_EVAL_HANDLER(EvalRngBitGenerator);

#undef PLEXA_EVAL_HANDLER

}  // namespace plexa::eval

#endif  // PLEXA_CORE_EVAL_EVAL_INTERNAL_H_
