#include "core/literal/literal.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

// ---- Type dispatch ----

template <typename T>
struct Tag {
  using type = T;
};

// Calls f(Tag<NativeType>{}) for an array element type. Callers check
// primitive_util::IsArrayType first.
template <typename F>
auto Dispatch(PrimitiveType t, F&& f) {
  switch (t) {
    case PrimitiveType::S8:
      return f(Tag<int8_t>{});
    case PrimitiveType::S16:
      return f(Tag<int16_t>{});
    case PrimitiveType::S32:
      return f(Tag<int32_t>{});
    case PrimitiveType::S64:
      return f(Tag<int64_t>{});
    case PrimitiveType::U8:
      return f(Tag<uint8_t>{});
    case PrimitiveType::U16:
      return f(Tag<uint16_t>{});
    case PrimitiveType::U32:
      return f(Tag<uint32_t>{});
    case PrimitiveType::U64:
      return f(Tag<uint64_t>{});
    case PrimitiveType::F16:
      return f(Tag<Half>{});
    case PrimitiveType::BF16:
      return f(Tag<BFloat16>{});
    case PrimitiveType::F32:
      return f(Tag<float>{});
    case PrimitiveType::F64:
      return f(Tag<double>{});
    case PrimitiveType::C64:
      return f(Tag<std::complex<float>>{});
    case PrimitiveType::C128:
      return f(Tag<std::complex<double>>{});
    case PrimitiveType::S4:
    case PrimitiveType::S2:
      return f(Tag<int8_t>{});
    case PrimitiveType::U4:
    case PrimitiveType::U2:
      return f(Tag<uint8_t>{});
    case PrimitiveType::F8E5M2:
      return f(Tag<F8e5m2>{});
    case PrimitiveType::F8E4M3FN:
      return f(Tag<F8e4m3fn>{});
    case PrimitiveType::F8E4M3B11FNUZ:
      return f(Tag<F8e4m3b11fnuz>{});
    case PrimitiveType::F8E5M2FNUZ:
      return f(Tag<F8e5m2fnuz>{});
    case PrimitiveType::F8E4M3FNUZ:
      return f(Tag<F8e4m3fnuz>{});
    case PrimitiveType::F8E4M3:
      return f(Tag<F8e4m3>{});
    case PrimitiveType::F8E3M4:
      return f(Tag<F8e3m4>{});
    case PrimitiveType::F4E2M1FN:
      return f(Tag<F4e2m1fn>{});
    case PrimitiveType::F8E8M0FNU:
      return f(Tag<F8e8m0fnu>{});
    case PrimitiveType::PRED:
    default:
      return f(Tag<bool>{});
  }
}

// ---- Value conversion (C++ semantics, made total) ----

template <typename T>
inline constexpr bool kIsComplex = false;
template <typename T>
inline constexpr bool kIsComplex<std::complex<T>> = true;
template <typename T>
inline constexpr bool kIsNarrow =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename N>
N NarrowFromDouble(double d) {
  if constexpr (std::is_same_v<N, Half>) {
    return Half::FromBits(DoubleToHalfBits(d));
  } else {
    return BFloat16::FromBits(DoubleToBFloat16Bits(d));
  }
}

// Integer -> double rounding to odd: exact below 2^53, otherwise the
// discarded bits are folded into the lowest kept bit. Rounding the result
// again to any format with at most 51 significand bits (f16, bf16) then
// gives the correctly rounded value: no double rounding.
template <typename I>
double IntegerToDoubleRoundToOdd(I v) {
  bool negative = false;
  uint64_t u;
  if constexpr (std::is_signed_v<I>) {
    negative = v < 0;
    u = negative ? uint64_t{0} - static_cast<uint64_t>(v)
                 : static_cast<uint64_t>(v);
  } else {
    u = static_cast<uint64_t>(v);
  }
  double d;
  if (u < (uint64_t{1} << 53)) {
    d = static_cast<double>(u);
  } else {
    const int len = 64 - std::countl_zero(u);
    const int s = len - 53;
    uint64_t m = u >> s;
    if (u & ((uint64_t{1} << s) - 1)) m |= 1;
    d = std::ldexp(static_cast<double>(m), s);
  }
  return negative ? -d : d;
}

// Floating -> integer: truncation toward zero as C++, made defined where
// C++ is not: out-of-range values saturate and NaN gives 0 (the same
// choice as XLA's literal conversion).
template <typename To, typename From>
To SaturatingFloatToInt(From f) {
  if (f != f) return To{0};
  if (f >= static_cast<From>(std::numeric_limits<To>::max())) {
    return std::numeric_limits<To>::max();
  }
  if (f <= static_cast<From>(std::numeric_limits<To>::lowest())) {
    return std::numeric_limits<To>::lowest();
  }
  return static_cast<To>(f);
}

// One conversion routine for Convert, GetAs* and SetFrom*:
//  - bool -> x: 0 or 1; x -> bool: x != 0 (NaN is true, as in C++);
//  - f16/bf16 read through float (exact), written with one rounding to
//    nearest even from the source value;
//  - float -> int: truncate, saturate, NaN -> 0; int -> int: wraps
//    (C++20 modular conversion); int -> float: nearest;
//  - complex -> real: the real part; real -> complex: (x, 0).
template <typename To, typename From>
To ConvertValue(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsNarrow<From> || kIsSmallFloat<From>) {
    return ConvertValue<To>(static_cast<float>(v));
  } else if constexpr (kIsComplex<From>) {
    if constexpr (kIsComplex<To>) {
      using C = typename To::value_type;
      return To(static_cast<C>(v.real()), static_cast<C>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return ConvertValue<To>(v.real());
    }
  } else if constexpr (kIsComplex<To>) {
    using C = typename To::value_type;
    return To(ConvertValue<C>(v), C{0});
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return ConvertValue<To>(static_cast<int32_t>(v ? 1 : 0));
  } else if constexpr (kIsNarrow<To>) {
    if constexpr (std::is_floating_point_v<From>) {
      return NarrowFromDouble<To>(static_cast<double>(v));
    } else {
      return NarrowFromDouble<To>(IntegerToDoubleRoundToOdd(v));
    }
  } else if constexpr (kIsSmallFloat<To>) {
    if constexpr (std::is_floating_point_v<From>) {
      return To::FromDouble(static_cast<double>(v));
    } else {
      return To::FromDouble(IntegerToDoubleRoundToOdd(v));
    }
  } else if constexpr (std::is_integral_v<To> &&
                       std::is_floating_point_v<From>) {
    return SaturatingFloatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

// A value of the native type of `type` wrapped to the width of a sub-byte
// integer type (s4, u4, s2, u2); other values are returned unchanged.
template <typename T>
T WrapToElementType(PrimitiveType type, T v) {
  if constexpr (std::is_same_v<T, int8_t>) {
    if (type == PrimitiveType::S4 || type == PrimitiveType::S2) {
      return static_cast<int8_t>(WrapSignedToBits(
          v, static_cast<int>(primitive_util::BitWidth(type))));
    }
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    if (type == PrimitiveType::U4 || type == PrimitiveType::U2) {
      return static_cast<uint8_t>(WrapUnsignedToBits(
          v, static_cast<int>(primitive_util::BitWidth(type))));
    }
  }
  return v;
}

// ConvertValue into an element of `type`: sub-byte integers wrap from
// integers and saturate from floating values (to [-8, 7] for s4, as the
// saturation to int8's range would not).
template <typename T, typename V>
T ConvertToElement(PrimitiveType type, V v) {
  if constexpr ((std::is_same_v<T, int8_t> ||
                 std::is_same_v<T, uint8_t>)&&!std::is_integral_v<V>) {
    if (primitive_util::IsSubByteType(type)) {
      const int bits = static_cast<int>(primitive_util::BitWidth(type));
      const bool is_signed = primitive_util::IsSignedIntegralType(type);
      const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
      const double hi =
          is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
      double d = ConvertValue<double>(v);
      if (d != d) return T{0};
      d = std::trunc(d);
      return static_cast<T>(d < lo ? lo : d > hi ? hi : d);
    }
  }
  return WrapToElementType<T>(type, ConvertValue<T>(v));
}

template <typename T>
T ReadAt(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

template <typename T>
void WriteAt(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// ---- Padding values ----

// kLowest/kHighest are the identities of max/min: -inf/+inf for floating
// types (as XLA's LiteralUtil::MinValue/MaxValue), the integer limits for
// integers, false/true for pred; complex numbers have no order, so their
// real part gets the float value and the imaginary part 0.
template <typename T>
T PaddingValueOf(PaddingValue pv) {
  if (pv != PaddingValue::kLowest && pv != PaddingValue::kHighest) {
    return T{};
  }
  const bool low = pv == PaddingValue::kLowest;
  if constexpr (std::is_same_v<T, bool>) {
    return !low;
  } else if constexpr (kIsSmallFloat<T>) {
    // Types without inf pad with their lowest/highest finite value (XLA's
    // MinValue/MaxValue do the same).
    const SmallFloatFormat& f = T::Format();
    if (f.kind == SmallFloatFormat::Kind::kIeee) {
      return T::FromDouble(low ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity());
    }
    return T::FromBits(low ? SmallFloatLowestBits(f) : SmallFloatMaxBits(f));
  } else if constexpr (kIsNarrow<T> || std::is_floating_point_v<T> ||
                       kIsComplex<T>) {
    return ConvertValue<T>(low ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity());
  } else {
    return low ? std::numeric_limits<T>::lowest()
               : std::numeric_limits<T>::max();
  }
}

// ---- Text ----

// XLA's NaN spelling: "nan"/"-nan", with "(0x<mantissa bits>)" when the
// mantissa is not just the quiet bit.
std::string NanToString(bool negative, uint64_t mantissa, int mant_bits) {
  std::string out = negative ? "-nan" : "nan";
  if (mantissa != (uint64_t{1} << (mant_bits - 1))) {
    absl::StrAppendFormat(&out, "(0x%x)", mantissa);
  }
  return out;
}

template <typename F>
std::string ShortestToChars(F v) {
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string FloatToString(float v) {
  const uint32_t bits = std::bit_cast<uint32_t>(v);
  if (std::isnan(v)) {
    return NanToString(bits >> 31, bits & 0x7fffff, 23);
  }
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return ShortestToChars(v);  // shortest round-trip for float
}

std::string DoubleToString(double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  if (std::isnan(v)) {
    return NanToString(bits >> 63, bits & ((uint64_t{1} << 52) - 1), 52);
  }
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return ShortestToChars(v);
}

// f16/bf16 text by the rule std::to_chars uses for float and double (so
// all four types print alike): the fewest characters that read back to the
// same value, then the closest to the value; fixed notation wins a tie with
// exponent notation. "Reads back" means what a parser does: text -> double
// (correctly rounded) -> one rounding to the 16-bit type.
//
// Exponent notation needs the fewest significant digits p. For each p, the
// two p-digit decimals around the value (the nearest one, from to_chars,
// and its neighbours) are the only ones that can read back; a neighbour
// can when the value is a power of two, where the rounding interval is
// lopsided. Fixed notation of an integral value is its exact digits (no
// other fixed spelling of it is shorter or closer); of a fractional value
// it is the same p digits with a decimal point (fewest fractional digits).
template <typename N>
std::string NarrowToString(N v) {
  const int mant_bits = std::is_same_v<N, Half> ? 10 : 7;
  const uint16_t bits = v.bits;
  const uint16_t exp_mask = std::is_same_v<N, Half> ? 0x7c00 : 0x7f80;
  const uint16_t mant_mask = static_cast<uint16_t>((1u << mant_bits) - 1);
  const bool negative = bits >> 15;
  if ((bits & exp_mask) == exp_mask) {
    if (bits & mant_mask) {
      return NanToString(negative, bits & mant_mask, mant_bits);
    }
    return negative ? "-inf" : "inf";
  }
  const double mag = std::fabs(static_cast<double>(static_cast<float>(v)));
  const std::string sign = negative ? "-" : "";
  if (mag == 0) return sign + "0";
  auto reads_back = [&](double d) {
    return (NarrowFromDouble<N>(d).bits & 0x7fff) == (bits & 0x7fff);
  };

  // Fewest significant digits: digits D (no trailing zeros) and decimal
  // exponent E, value ~ D[0].D[1...] * 10^E.
  std::string digits;
  int exp10 = 0;
  for (int p = 1; p <= 17 && digits.empty(); ++p) {
    char buf[64];
    std::to_chars_result r = std::to_chars(
        buf, buf + sizeof(buf), mag, std::chars_format::scientific, p - 1);
    const std::string sci(buf, r.ptr);  // "d.ddde+XX"
    const size_t e_pos = sci.find('e');
    std::string m_digits;
    for (size_t i = 0; i < e_pos; ++i) {
      if (sci[i] != '.') m_digits += sci[i];
    }
    const int scale = std::stoi(sci.substr(e_pos + 1)) - (p - 1);
    const int64_t m = std::stoll(m_digits);
    double best_distance = 0;
    int64_t best = -1;
    for (int64_t cand : {m, m - 1, m + 1}) {
      if (cand <= 0) continue;
      const std::string text = absl::StrCat(cand, "e", scale);
      double d = 0;
      std::from_chars(text.data(), text.data() + text.size(), d);
      if (!reads_back(d)) continue;
      if (best < 0 || std::fabs(d - mag) < best_distance) {
        best = cand;
        best_distance = std::fabs(d - mag);
      }
    }
    if (best < 0) continue;
    digits = absl::StrCat(best);
    exp10 = scale + static_cast<int>(digits.size()) - 1;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  }
  if (digits.empty()) return sign + ShortestToChars(mag);  // not reached

  std::string sci = digits.substr(0, 1);
  if (digits.size() > 1) absl::StrAppend(&sci, ".", digits.substr(1));
  absl::StrAppend(&sci, "e", exp10 < 0 ? "-" : "+",
                  std::abs(exp10) < 10 ? "0" : "", std::abs(exp10));

  std::string fixed;
  if (std::trunc(mag) == mag) {
    char buf[64];
    std::to_chars_result r =
        std::to_chars(buf, buf + sizeof(buf), mag, std::chars_format::fixed, 0);
    fixed.assign(buf, r.ptr);
  } else if (exp10 >= 0) {
    std::string d = digits;
    if (static_cast<int>(d.size()) <= exp10 + 1) d.resize(exp10 + 2, '0');
    fixed = absl::StrCat(d.substr(0, exp10 + 1), ".", d.substr(exp10 + 1));
  } else {
    fixed = absl::StrCat("0.", std::string(-exp10 - 1, '0'), digits);
  }
  return sign + (fixed.size() <= sci.size() ? fixed : sci);
}

template <typename T>
std::string ElementToString(T v, bool in_array) {
  if constexpr (std::is_same_v<T, bool>) {
    // XLA writes predicates inside arrays as 1/0 (denser), scalars as
    // true/false.
    if (in_array) return v ? "1" : "0";
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, float>) {
    return FloatToString(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return DoubleToString(v);
  } else if constexpr (kIsNarrow<T>) {
    return NarrowToString(v);
  } else if constexpr (kIsSmallFloat<T>) {
    // Every f8/f4 value is exact in a float: its shortest float spelling
    // reads back to the same value (1, 0.5, -448, 0.001953125).
    const SmallFloatFormat& f = T::Format();
    if (SmallFloatIsNan(f, v.bits)) {
      const bool negative = (f.kind == SmallFloatFormat::Kind::kIeee ||
                             f.kind == SmallFloatFormat::Kind::kFn) &&
                            (v.bits & 0x80);
      return negative ? "-nan" : "nan";
    }
    return FloatToString(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    return absl::StrCat("(", FloatToString(v.real()), ", ",
                        FloatToString(v.imag()), ")");
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    return absl::StrCat("(", DoubleToString(v.real()), ", ",
                        DoubleToString(v.imag()), ")");
  } else if constexpr (std::is_signed_v<T>) {
    return absl::StrCat(static_cast<int64_t>(v));
  } else {
    return absl::StrCat(static_cast<uint64_t>(v));
  }
}

bool InBounds(const Shape& shape, absl::Span<const int64_t> index) {
  if (static_cast<int64_t>(index.size()) != shape.rank()) return false;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (index[i] < 0 || index[i] >= shape.dimensions(i)) return false;
  }
  return true;
}

absl::Status NotAnArray(absl::string_view op, const Shape& shape) {
  return absl::InvalidArgumentError(absl::StrCat(
      op, ": literal of shape ", shape.ToString(), " is not an array"));
}

absl::Status IndexOutOfRange(absl::string_view op, const Shape& shape,
                             absl::Span<const int64_t> index) {
  return absl::OutOfRangeError(
      absl::StrCat(op, ": index {", absl::StrJoin(index, ","),
                   "} is out of range for ", shape.ToString()));
}

}  // namespace

// ---- Construction ----

Literal::Literal() : shape_(std::vector<Shape>{}) {}

Literal::Literal(const Shape& shape) : shape_(shape) {
  LayoutUtil::SetToDefaultLayoutIfEmpty(&shape_);
  if (shape_.IsArray() &&
      !LayoutUtil::ValidateLayoutForShape(shape_.layout(), shape_).ok()) {
    // Never index outside the buffer: an invalid layout (say {0,0}) would
    // map elements anywhere.
    LayoutUtil::SetToDefaultLayout(&shape_);
  }
  if (shape_.IsTuple()) {
    elements_.reserve(shape_.tuple_shapes_size());
    for (const Shape& s : shape_.tuple_shapes()) elements_.emplace_back(s);
    return;
  }
  if (!shape_.IsArray()) return;  // token: no data
  const int64_t slots = IndexUtil::BufferElementCount(shape_);
  const int64_t width = primitive_util::ByteWidth(shape_.element_type());
  // A shape whose size overflows (ShapeUtil::ValidateShape rejects it)
  // gets no buffer rather than a failed allocation.
  if (slots <= 0 || slots > std::numeric_limits<int64_t>::max() / 16) return;
  data_.assign(slots * width, 0);
  FillPadding();
}

Literal::Literal(const Literal&) = default;
Literal& Literal::operator=(const Literal&) = default;

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& e : elements) shapes.push_back(e.shape());
  Literal lit;
  lit.shape_ = Shape(std::move(shapes));
  lit.elements_ = std::move(elements);
  return lit;
}

void Literal::FillPadding() {
  const PaddingValue pv = shape_.has_layout() ? shape_.layout().padding_value()
                                              : PaddingValue::kZero;
  if (pv != PaddingValue::kLowest && pv != PaddingValue::kHighest) return;
  const int64_t slots = IndexUtil::BufferElementCount(shape_);
  if (slots == ShapeUtil::ElementsIn(shape_)) return;  // no padding slots
  Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // Every slot gets the padding value, then the element slots get zero
    // back: padding slots are exactly the slots no index maps to.
    const T pad = PaddingValueOf<T>(pv);
    for (int64_t i = 0; i < slots; ++i) {
      WriteAt<T>(data_.data() + i * sizeof(T), pad);
    }
    ShapeUtil::ForEachIndex(shape_, [&](absl::Span<const int64_t> index) {
      WriteAt<T>(data_.data() + ElementOffsetBytes(index), T{});
    });
  });
}

absl::Status Literal::CheckCreateFromValues(const Shape& shape, int64_t n) {
  if (!shape.IsArray()) return NotAnArray("CreateFromValues", shape);
  absl::Status st = ShapeUtil::ValidateShape(shape);
  if (!st.ok()) return st;
  if (ShapeUtil::ElementsIn(shape) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CreateFromValues: ", n, " values given for ", shape.ToString(),
        ", which has ", ShapeUtil::ElementsIn(shape), " elements"));
  }
  return absl::OkStatus();
}

int64_t Literal::element_count() const { return ShapeUtil::ElementsIn(shape_); }

std::vector<Literal> Literal::DecomposeTuple() && {
  std::vector<Literal> out = std::move(elements_);
  elements_.clear();
  shape_ = Shape(std::vector<Shape>{});
  data_.clear();
  return out;
}

// ---- Type-erased access ----

double Literal::GetAsDouble(absl::Span<const int64_t> index) const {
  if (!shape_.IsArray() || !InBounds(shape_, index)) return 0;
  const uint8_t* p = data_.data() + ElementOffsetBytes(index);
  return Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ConvertValue<double>(ReadAt<T>(p));
  });
}

int64_t Literal::GetAsInt64(absl::Span<const int64_t> index) const {
  if (!shape_.IsArray() || !InBounds(shape_, index)) return 0;
  const uint8_t* p = data_.data() + ElementOffsetBytes(index);
  return Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ConvertValue<int64_t>(ReadAt<T>(p));
  });
}

uint64_t Literal::GetAsUint64(absl::Span<const int64_t> index) const {
  if (!shape_.IsArray() || !InBounds(shape_, index)) return 0;
  const uint8_t* p = data_.data() + ElementOffsetBytes(index);
  return Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ConvertValue<uint64_t>(ReadAt<T>(p));
  });
}

std::complex<double> Literal::GetAsComplex(
    absl::Span<const int64_t> index) const {
  if (!shape_.IsArray() || !InBounds(shape_, index)) return 0;
  const uint8_t* p = data_.data() + ElementOffsetBytes(index);
  return Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return ConvertValue<std::complex<double>>(ReadAt<T>(p));
  });
}

namespace {
template <typename V>
absl::Status SetFromImpl(Literal* lit, absl::string_view op,
                         absl::Span<const int64_t> index, V v) {
  const Shape& shape = lit->shape();
  if (!shape.IsArray()) return NotAnArray(op, shape);
  if (!InBounds(shape, index)) return IndexOutOfRange(op, shape, index);
  Dispatch(shape.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    lit->Set<T>(index, ConvertToElement<T>(shape.element_type(), v));
  });
  return absl::OkStatus();
}
}  // namespace

absl::Status Literal::SetFromDouble(absl::Span<const int64_t> index, double v) {
  return SetFromImpl(this, "SetFromDouble", index, v);
}
absl::Status Literal::SetFromInt64(absl::Span<const int64_t> index, int64_t v) {
  return SetFromImpl(this, "SetFromInt64", index, v);
}
absl::Status Literal::SetFromUint64(absl::Span<const int64_t> index,
                                    uint64_t v) {
  return SetFromImpl(this, "SetFromUint64", index, v);
}
absl::Status Literal::SetFromComplex(absl::Span<const int64_t> index,
                                     std::complex<double> v) {
  return SetFromImpl(this, "SetFromComplex", index, v);
}

// ---- Whole-literal transforms ----

absl::StatusOr<Literal> Literal::Relayout(const Layout& layout) const {
  if (shape_.IsTuple()) {
    std::vector<Literal> out;
    out.reserve(elements_.size());
    for (const Literal& e : elements_) {
      absl::StatusOr<Literal> r = e.Relayout(layout);
      if (!r.ok()) return r.status();
      out.push_back(*std::move(r));
    }
    return MakeTuple(std::move(out));
  }
  if (!shape_.IsArray()) return NotAnArray("Relayout", shape_);
  absl::Status st = LayoutUtil::ValidateLayoutForShape(layout, shape_);
  if (!st.ok()) return st;
  Shape new_shape = shape_;
  new_shape.set_layout(layout);
  Literal out(new_shape);
  const int64_t width = primitive_util::ByteWidth(shape_.element_type());
  ShapeUtil::ForEachIndex(shape_, [&](absl::Span<const int64_t> index) {
    std::memcpy(out.data_.data() + out.ElementOffsetBytes(index),
                data_.data() + ElementOffsetBytes(index), width);
  });
  return out;
}

absl::StatusOr<Literal> Literal::Convert(PrimitiveType type) const {
  if (!shape_.IsArray()) return NotAnArray("Convert", shape_);
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("Convert: cannot convert ",
                                                   shape_.ToString(), " to ",
                                                   primitive_util::Name(type)));
  }
  Literal out(ShapeUtil::ChangeElementType(shape_, type));
  Dispatch(shape_.element_type(), [&](auto src_tag) {
    using From = typename decltype(src_tag)::type;
    Dispatch(type, [&](auto dst_tag) {
      using To = typename decltype(dst_tag)::type;
      ShapeUtil::ForEachIndex(shape_, [&](absl::Span<const int64_t> index) {
        out.Set<To>(index, ConvertToElement<To>(type, Get<From>(index)));
      });
    });
  });
  return out;
}

absl::StatusOr<Literal> Literal::Reshape(absl::Span<const int64_t> dims) const {
  if (!shape_.IsArray()) return NotAnArray("Reshape", shape_);
  absl::StatusOr<Shape> new_shape =
      ShapeUtil::MakeValidatedShape(shape_.element_type(), dims);
  if (!new_shape.ok()) return new_shape.status();
  if (ShapeUtil::ElementsIn(*new_shape) != element_count()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reshape: cannot reshape ", shape_.ToString(), " (",
                     element_count(), " elements) to ", new_shape->ToString(),
                     " (", ShapeUtil::ElementsIn(*new_shape), " elements)"));
  }
  Literal out(*new_shape);
  if (element_count() == 0) return out;
  const int64_t width = primitive_util::ByteWidth(shape_.element_type());
  std::vector<int64_t> dst(dims.size(), 0);
  ShapeUtil::ForEachIndex(shape_, [&](absl::Span<const int64_t> index) {
    std::memcpy(out.data_.data() + out.ElementOffsetBytes(dst),
                data_.data() + ElementOffsetBytes(index), width);
    IndexUtil::BumpIndices(out.shape_, absl::MakeSpan(dst));
  });
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (!Shape::Equal().IgnoreLayout()(shape_, other.shape_)) return false;
  if (shape_.IsTuple()) {
    if (elements_.size() != other.elements_.size()) return false;
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (elements_[i] != other.elements_[i]) return false;
    }
    return true;
  }
  if (!shape_.IsArray()) return true;  // tokens
  const int64_t width = primitive_util::ByteWidth(shape_.element_type());
  bool equal = true;
  ShapeUtil::ForEachIndex(shape_, [&](absl::Span<const int64_t> index) {
    if (!equal) return;
    if (std::memcmp(data_.data() + ElementOffsetBytes(index),
                    other.data_.data() + other.ElementOffsetBytes(index),
                    width) != 0) {
      equal = false;
    }
  });
  return equal;
}

// ---- Text ----

std::string Literal::ToStringWithoutShape() const {
  if (shape_.IsTuple()) {
    // XLA one-line tuple: "( a, b )".
    std::string out = "( ";
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) out += ", ";
      out += elements_[i].ToStringWithoutShape();
    }
    out += " )";
    return out;
  }
  if (shape_.IsToken()) return "token";
  if (!shape_.IsArray()) return "invalid";
  const int64_t rank = shape_.rank();
  std::string out;
  Dispatch(shape_.element_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (rank == 0) {
      out = ElementToString(Get<T>({}), /*in_array=*/false);
      return;
    }
    // Mirrors XLA's DenseArrayPrintHelper in one-line mode.
    std::vector<int64_t> index;
    auto print = [&](auto&& self) -> void {
      const int64_t level = static_cast<int64_t>(index.size());
      if (level == rank) {
        out += ElementToString(Get<T>(index), /*in_array=*/true);
        return;
      }
      const int64_t n = shape_.dimensions(level);
      const bool innermost = level == rank - 1;
      if (rank == 1) {
        out += "{";
      } else if (innermost) {
        out += n <= 1 ? "{" : "{ ";
      } else {
        out += "{ ";
      }
      for (int64_t i = 0; i < n; ++i) {
        index.push_back(i);
        self(self);
        index.pop_back();
        if (i + 1 < n) out += ", ";
      }
      if (rank == 1) {
        out += "}";
      } else if (innermost) {
        out += n <= 1 ? "}" : " }";
      } else {
        out += " }";
      }
    };
    print(print);
  });
  return out;
}

std::string Literal::ToString() const {
  return absl::StrCat(shape_.ToString(/*print_layout=*/false), " ",
                      ToStringWithoutShape());
}

namespace {

void FlattenInto(Literal literal, std::vector<Literal>* out) {
  if (literal.shape().IsTuple()) {
    for (Literal& e : std::move(literal).DecomposeTuple()) {
      FlattenInto(std::move(e), out);
    }
  } else if (literal.shape().IsArray()) {
    out->push_back(std::move(literal));
  }
}

absl::StatusOr<Literal> AssembleFrom(const Shape& shape,
                                     std::vector<Literal>& leaves,
                                     size_t& next) {
  if (shape.IsToken()) return Literal(shape);
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (const Shape& s : shape.tuple_shapes()) {
      absl::StatusOr<Literal> e = AssembleFrom(s, leaves, next);
      if (!e.ok()) return e.status();
      elements.push_back(std::move(*e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (next >= leaves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("only ", leaves.size(), " array leaves for a value of ",
                     "shape ", shape.ToString()));
  }
  Literal& leaf = leaves[next];
  if (!Shape::Equal().IgnoreLayout()(leaf.shape(), shape)) {
    return absl::InvalidArgumentError(
        absl::StrCat("array leaf ", next, " is ", leaf.shape().ToString(),
                     " but the shape wants ", shape.ToString()));
  }
  ++next;
  return std::move(leaf);
}

}  // namespace

std::vector<Literal> FlattenArrayLeaves(Literal literal) {
  std::vector<Literal> out;
  FlattenInto(std::move(literal), &out);
  return out;
}

absl::StatusOr<Literal> AssembleFromArrayLeaves(const Shape& shape,
                                                std::vector<Literal> leaves) {
  size_t next = 0;
  absl::StatusOr<Literal> out = AssembleFrom(shape, leaves, next);
  if (out.ok() && next != leaves.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(leaves.size(), " array leaves for a value of shape ",
                     shape.ToString(), ", which has ", next));
  }
  return out;
}

}  // namespace plexa
