// Literal: a typed N-d value (or a tuple of them) held in host memory.
//
// The bytes are stored in the shape's layout (the default major-to-minor
// layout if the shape has none), padding and tiling included, so a
// literal's data() is exactly a device buffer's image; element access goes
// through IndexUtil. Padding slots hold the layout's padding value: zero,
// or for kLowest/kHighest -inf/+inf (floating types, as XLA's MinValue/
// MaxValue), the integer limits, false/true (pred), and (-inf, 0)/(+inf, 0)
// for complex. Elements are stored at their natural width: a layout's
// element_size_in_bits (E(n)) changes ShapeUtil::ByteSizeOf only.
#ifndef PLEXA_CORE_LITERAL_LITERAL_H_
#define PLEXA_CORE_LITERAL_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/literal/float16.h"
#include "core/literal/float8.h"
#include "core/shape/index_util.h"
#include "core/shape/shape.h"
#include "core/shape/shape_util.h"

namespace plexa {

// Native C++ type of each array element type.
template <PrimitiveType T>
struct NativeTypeOf;
#define PLEXA_NATIVE(pt, ty) \
  template <>                \
  struct NativeTypeOf<pt> {  \
    using type = ty;         \
  };
PLEXA_NATIVE(PrimitiveType::PRED, bool)
PLEXA_NATIVE(PrimitiveType::S8, int8_t)
PLEXA_NATIVE(PrimitiveType::S16, int16_t)
PLEXA_NATIVE(PrimitiveType::S32, int32_t)
PLEXA_NATIVE(PrimitiveType::S64, int64_t)
PLEXA_NATIVE(PrimitiveType::U8, uint8_t)
PLEXA_NATIVE(PrimitiveType::U16, uint16_t)
PLEXA_NATIVE(PrimitiveType::U32, uint32_t)
PLEXA_NATIVE(PrimitiveType::U64, uint64_t)
PLEXA_NATIVE(PrimitiveType::F16, Half)
PLEXA_NATIVE(PrimitiveType::BF16, BFloat16)
PLEXA_NATIVE(PrimitiveType::F32, float)
PLEXA_NATIVE(PrimitiveType::F64, double)
PLEXA_NATIVE(PrimitiveType::C64, std::complex<float>)
PLEXA_NATIVE(PrimitiveType::C128, std::complex<double>)
// Sub-byte integers: one byte per element, the value wrapped to its width.
PLEXA_NATIVE(PrimitiveType::S4, int8_t)
PLEXA_NATIVE(PrimitiveType::U4, uint8_t)
PLEXA_NATIVE(PrimitiveType::S2, int8_t)
PLEXA_NATIVE(PrimitiveType::U2, uint8_t)
PLEXA_NATIVE(PrimitiveType::F8E5M2, F8e5m2)
PLEXA_NATIVE(PrimitiveType::F8E4M3FN, F8e4m3fn)
PLEXA_NATIVE(PrimitiveType::F8E4M3B11FNUZ, F8e4m3b11fnuz)
PLEXA_NATIVE(PrimitiveType::F8E5M2FNUZ, F8e5m2fnuz)
PLEXA_NATIVE(PrimitiveType::F8E4M3FNUZ, F8e4m3fnuz)
PLEXA_NATIVE(PrimitiveType::F8E4M3, F8e4m3)
PLEXA_NATIVE(PrimitiveType::F8E3M4, F8e3m4)
PLEXA_NATIVE(PrimitiveType::F4E2M1FN, F4e2m1fn)
PLEXA_NATIVE(PrimitiveType::F8E8M0FNU, F8e8m0fnu)
#undef PLEXA_NATIVE

template <typename T>
constexpr PrimitiveType NativeToPrimitiveType();

class Literal {
 public:
  // An empty tuple.
  Literal();
  // A zero-filled literal of `shape`. Array shapes without a layout get the
  // default layout, as does an array whose layout is invalid for it (so no
  // access can leave the buffer; validate shapes first to catch that).
  // Tuples get zero-filled elements; tokens hold no data.
  explicit Literal(const Shape& shape);
  static Literal MakeTuple(std::vector<Literal> elements);
  template <typename T>
  static Literal CreateR0(T value);
  template <typename T>
  static Literal CreateR1(absl::Span<const T> values);
  template <typename T>
  static Literal CreateR2(
      std::initializer_list<std::initializer_list<T>> values);
  // Values given in row-major order for `shape`.
  template <typename T>
  static absl::StatusOr<Literal> CreateFromValues(const Shape& shape,
                                                  absl::Span<const T> values);

  Literal(const Literal&);
  Literal& operator=(const Literal&);
  Literal(Literal&&) noexcept = default;
  Literal& operator=(Literal&&) noexcept = default;

  const Shape& shape() const { return shape_; }
  int64_t element_count() const;  // arrays: logical elements

  // Raw bytes in the layout (arrays).
  absl::Span<const uint8_t> data() const { return data_; }
  absl::Span<uint8_t> mutable_data() { return absl::MakeSpan(data_); }

  // Typed access by multi-dimensional index. T must be the native type of
  // the element type (checked in debug builds only: callers dispatch on
  // the element type first).
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    T v;
    std::memcpy(&v, data_.data() + ElementOffsetBytes(index), sizeof(T));
    return v;
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    std::memcpy(data_.data() + ElementOffsetBytes(index), &value, sizeof(T));
  }

  // Type-erased access, converting as C++ does (for printing, parsing and
  // tests). GetAsDouble on a complex returns the real part. Where C++ is
  // undefined the result is defined instead: floating -> integer
  // saturates, NaN -> 0. Out-of-range indices and non-arrays give 0.
  double GetAsDouble(absl::Span<const int64_t> index) const;
  int64_t GetAsInt64(absl::Span<const int64_t> index) const;
  uint64_t GetAsUint64(absl::Span<const int64_t> index) const;
  std::complex<double> GetAsComplex(absl::Span<const int64_t> index) const;
  // Stores a value converted to the element type: f16/bf16 round to
  // nearest even once from the exact value (also from 64-bit integers);
  // integer -> narrower integer wraps; double -> integer truncates and
  // saturates (NaN -> 0); x -> pred is x != 0; a complex into a real type
  // keeps the real part; f8/f4 types round once to nearest even as
  // float8.h says; s4/u4/s2/u2 wrap to their width. InvalidArgument for
  // tuples/tokens, OutOfRange for a bad index.
  absl::Status SetFromDouble(absl::Span<const int64_t> index, double v);
  absl::Status SetFromInt64(absl::Span<const int64_t> index, int64_t v);
  absl::Status SetFromUint64(absl::Span<const int64_t> index, uint64_t v);
  absl::Status SetFromComplex(absl::Span<const int64_t> index,
                              std::complex<double> v);

  // Tuples.
  int64_t tuple_element_count() const {
    return static_cast<int64_t>(elements_.size());
  }
  const Literal& tuple_element(int64_t i) const { return elements_[i]; }
  Literal* mutable_tuple_element(int64_t i) { return &elements_[i]; }
  std::vector<Literal> DecomposeTuple() &&;

  // The same values in another layout (arrays; tuples element-wise).
  absl::StatusOr<Literal> Relayout(const Layout& layout) const;
  // Values converted to another element type with the C++ semantics of
  // SetFrom* above (tests, the parser). XLA's convert semantics live in the
  // evaluator. The layout is kept.
  absl::StatusOr<Literal> Convert(PrimitiveType type) const;
  // Same elements, new dimensions with the same element count (row-major).
  // The result has the default layout.
  absl::StatusOr<Literal> Reshape(absl::Span<const int64_t> dims) const;

  // Value equality: same shape ignoring layout, same elements (bitwise for
  // floats, so NaN == NaN with the same bits).
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

  // XLA's one-line literal text (LiteralBase::ToStringWithoutShapeOneline),
  // as the HLO printer writes constants:
  //   scalars    1   1.5   -0   inf   -inf   nan   -nan   true   false
  //              complex (1, 2); a NaN with a non-default payload is
  //              nan(0x...) (the stored mantissa bits in hex), as XLA.
  //   rank 1     {1, 2, 3}          zero elements: {}
  //   rank >= 2  { { 1, 2, 3 }, { 4, 5, 6 } }
  //              an innermost row of 0 or 1 element has no inner spaces:
  //              f32[2,1] { {1}, {2} }, f32[2,0] { {}, {} }; an empty outer
  //              level is "{  }" (f32[0,3]). XLA's /*i0=0*/ comments for
  //              rank > 3 are not written.
  //   pred       true/false as a scalar, 1/0 inside arrays (as XLA)
  //   tuples     ( 1, {2, 3} )      the empty tuple: (  )
  //   token      token
  // Floats are the shortest decimal that reads back to the same value of
  // their own type (f16/bf16/f32/f64); integers are decimal.
  std::string ToStringWithoutShape() const;
  // The shape without layout, a space, then the text above:
  // "f32[2,2] { { 1, 2 }, { 3, 4 } }", "(f32[], s32[2]) ( 1, {2, 3} )".
  std::string ToString() const;

 private:
  int64_t ElementOffsetBytes(absl::Span<const int64_t> index) const {
    return IndexUtil::MultidimensionalIndexToLinearIndex(shape_, index) *
           primitive_util::ByteWidth(shape_.element_type());
  }
  void FillPadding();
  // InvalidArgument unless this is an array literal of `shape`'s element
  // count `n` and `shape` is a valid array shape (CreateFromValues).
  static absl::Status CheckCreateFromValues(const Shape& shape, int64_t n);

  Shape shape_;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
};

// ---- Template definitions ----

namespace literal_internal {
template <typename T>
inline constexpr bool kAlwaysFalse = false;
}  // namespace literal_internal

// The element type of a C++ type: bool -> PRED, Half -> F16, float -> F32,
// std::complex<float> -> C64, and any integer type by size and signedness
// (so `long long` and `int64_t` both give S64).
template <typename T>
constexpr PrimitiveType NativeToPrimitiveType() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return PrimitiveType::PRED;
  } else if constexpr (std::is_same_v<U, Half>) {
    return PrimitiveType::F16;
  } else if constexpr (std::is_same_v<U, BFloat16>) {
    return PrimitiveType::BF16;
  } else if constexpr (kIsSmallFloat<U>) {
    return U::kPrimitiveType;
  } else if constexpr (std::is_same_v<U, float>) {
    return PrimitiveType::F32;
  } else if constexpr (std::is_same_v<U, double>) {
    return PrimitiveType::F64;
  } else if constexpr (std::is_same_v<U, std::complex<float>>) {
    return PrimitiveType::C64;
  } else if constexpr (std::is_same_v<U, std::complex<double>>) {
    return PrimitiveType::C128;
  } else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>) {
    static_assert(sizeof(U) == 1 || sizeof(U) == 2 || sizeof(U) == 4 ||
                  sizeof(U) == 8);
    if constexpr (sizeof(U) == 1) return PrimitiveType::S8;
    if constexpr (sizeof(U) == 2) return PrimitiveType::S16;
    if constexpr (sizeof(U) == 4) return PrimitiveType::S32;
    return PrimitiveType::S64;
  } else if constexpr (std::is_integral_v<U>) {
    static_assert(sizeof(U) == 1 || sizeof(U) == 2 || sizeof(U) == 4 ||
                  sizeof(U) == 8);
    if constexpr (sizeof(U) == 1) return PrimitiveType::U8;
    if constexpr (sizeof(U) == 2) return PrimitiveType::U16;
    if constexpr (sizeof(U) == 4) return PrimitiveType::U32;
    return PrimitiveType::U64;
  } else {
    static_assert(literal_internal::kAlwaysFalse<T>,
                  "no Plexa element type for this C++ type");
    return PrimitiveType::PRIMITIVE_TYPE_INVALID;
  }
}

template <typename T>
Literal Literal::CreateR0(T value) {
  Literal lit(Shape(NativeToPrimitiveType<T>(), {}));
  lit.Set<T>({}, value);
  return lit;
}

template <typename T>
Literal Literal::CreateR1(absl::Span<const T> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  Literal lit(Shape(NativeToPrimitiveType<T>(), {n}));
  for (int64_t i = 0; i < n; ++i) lit.Set<T>({i}, values[i]);
  return lit;
}

// Rows must all have the same length; the first row's length is the
// number of columns (missing values of a shorter row stay zero, extra
// values of a longer row are dropped).
template <typename T>
Literal Literal::CreateR2(
    std::initializer_list<std::initializer_list<T>> values) {
  const int64_t rows = static_cast<int64_t>(values.size());
  const int64_t cols =
      rows == 0 ? 0 : static_cast<int64_t>(values.begin()->size());
  Literal lit(Shape(NativeToPrimitiveType<T>(), {rows, cols}));
  int64_t i = 0;
  for (const auto& row : values) {
    int64_t j = 0;
    for (const T& v : row) {
      if (j >= cols) break;
      lit.Set<T>({i, j}, v);
      ++j;
    }
    ++i;
  }
  return lit;
}

// If T is not the native type of shape's element type, each value is
// converted as by SetFromDouble/SetFromInt64/SetFromUint64/SetFromComplex.
template <typename T>
absl::StatusOr<Literal> Literal::CreateFromValues(const Shape& shape,
                                                  absl::Span<const T> values) {
  absl::Status st =
      CheckCreateFromValues(shape, static_cast<int64_t>(values.size()));
  if (!st.ok()) return st;
  Literal lit(shape);
  const bool same_type =
      NativeToPrimitiveType<T>() == lit.shape().element_type();
  int64_t k = 0;
  ShapeUtil::ForEachIndex(lit.shape(), [&](absl::Span<const int64_t> index) {
    const T& v = values[k++];
    if (same_type) {
      lit.Set<T>(index, v);
    } else if constexpr (std::is_same_v<T, bool>) {
      st.Update(lit.SetFromInt64(index, v ? 1 : 0));
    } else if constexpr (std::is_same_v<T, Half> ||
                         std::is_same_v<T, BFloat16>) {
      st.Update(lit.SetFromDouble(index, static_cast<float>(v)));
    } else if constexpr (std::is_floating_point_v<T>) {
      st.Update(lit.SetFromDouble(index, v));
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      st.Update(
          lit.SetFromComplex(index, std::complex<double>(v.real(), v.imag())));
    } else if constexpr (std::is_signed_v<T>) {
      st.Update(lit.SetFromInt64(index, static_cast<int64_t>(v)));
    } else {
      st.Update(lit.SetFromUint64(index, static_cast<uint64_t>(v)));
    }
  });
  if (!st.ok()) return st;
  return lit;
}

// The array leaves of a (nested) tuple literal, depth first, tokens left
// out (the ABI's flattening; ShapeUtil::ArrayLeafShapes).
std::vector<Literal> FlattenArrayLeaves(Literal literal);
// The inverse: a literal of `shape` from its array leaves in order, tokens
// recreated. InvalidArgument when the count or a leaf's dimensions or type
// do not match (layouts may differ; each leaf keeps its own).
absl::StatusOr<Literal> AssembleFromArrayLeaves(const Shape& shape,
                                                std::vector<Literal> leaves);

}  // namespace plexa

#endif  // PLEXA_CORE_LITERAL_LITERAL_H_
