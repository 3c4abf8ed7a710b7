// Literal: a typed N-d value (or a tuple of them) held in host memory.
//
// The bytes are stored in the shape's layout (the default major-to-minor
// layout if the shape has none), padding and tiling included, so a
// literal's data() is exactly a device buffer's image; element access goes
// through IndexUtil. Padding slots hold the layout's padding value.
#ifndef PLEXA_CORE_LITERAL_LITERAL_H_
#define PLEXA_CORE_LITERAL_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/literal/float16.h"
#include "core/shape/index_util.h"
#include "core/shape/shape.h"

namespace plexa {

// Native C++ type of each array element type.
template <PrimitiveType T>
struct NativeTypeOf;
#define PLEXA_NATIVE(pt, ty)    \
  template <>                   \
  struct NativeTypeOf<pt> {     \
    using type = ty;            \
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
#undef PLEXA_NATIVE

template <typename T>
constexpr PrimitiveType NativeToPrimitiveType();

class Literal {
 public:
  // An empty tuple.
  Literal();
  // A zero-filled literal of `shape`. Array shapes without a layout get the
  // default layout. Tuples get zero-filled elements.
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
  // tests). GetAsDouble on a complex returns the real part.
  double GetAsDouble(absl::Span<const int64_t> index) const;
  int64_t GetAsInt64(absl::Span<const int64_t> index) const;
  uint64_t GetAsUint64(absl::Span<const int64_t> index) const;
  std::complex<double> GetAsComplex(absl::Span<const int64_t> index) const;
  // Stores a value converted to the element type (round to nearest even
  // for f16/bf16; integers wrap). Errors for tuples.
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
  // Values converted to another element type with C++ semantics (tests,
  // the parser). XLA's convert semantics live in the evaluator.
  absl::StatusOr<Literal> Convert(PrimitiveType type) const;
  // Same elements, new dimensions with the same element count (row-major).
  absl::StatusOr<Literal> Reshape(absl::Span<const int64_t> dims) const;

  // Value equality: same shape ignoring layout, same elements (bitwise for
  // floats, so NaN == NaN with the same bits).
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

  // XLA's literal text, without the shape: "{ {1, 2}, {3, 4} }", "1.5",
  // "nan", "-inf", "true", "(1+2j)" for complex as "(1, 2)", tuples
  // "( {1, 2}, 3 )". Floats are printed shortest round-trip.
  std::string ToStringWithoutShape() const;
  // "f32[2,2] { {1, 2}, {3, 4} }".
  std::string ToString() const;

 private:
  int64_t ElementOffsetBytes(absl::Span<const int64_t> index) const {
    return IndexUtil::MultidimensionalIndexToLinearIndex(shape_, index) *
           primitive_util::ByteWidth(shape_.element_type());
  }
  void FillPadding();

  Shape shape_;
  std::vector<uint8_t> data_;
  std::vector<Literal> elements_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_LITERAL_LITERAL_H_
