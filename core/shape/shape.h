// Shape: an array (element type, dimensions, optional layout), a tuple of
// shapes, or a token (seeds 000 and 002).
//
// A dimension of size 0 is valid. A dimension may be dynamic with a bound:
// f32[<=4,3] has dimension 0 dynamic with bound 4; dimensions() holds the
// bound. The layout is optional: a shape parsed without `{...}` has none and
// prints without one, so printing is canonical; LayoutUtil supplies the
// default (major-to-minor) layout where one is needed.
#ifndef PLEXA_CORE_SHAPE_SHAPE_H_
#define PLEXA_CORE_SHAPE_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/shape/layout.h"
#include "core/shape/primitive_type.h"

namespace plexa {

class Shape {
 public:
  Shape() = default;
  // An array shape (or TOKEN with no dimensions).
  Shape(PrimitiveType type, absl::Span<const int64_t> dimensions);
  // A tuple shape.
  explicit Shape(std::vector<Shape> tuple_shapes);

  PrimitiveType element_type() const { return element_type_; }
  void set_element_type(PrimitiveType t) { element_type_ = t; }

  bool IsArray() const;
  bool IsTuple() const { return element_type_ == PrimitiveType::TUPLE; }
  bool IsToken() const { return element_type_ == PrimitiveType::TOKEN; }
  bool IsScalar() const { return IsArray() && dims_.empty(); }

  // Array dimensions. For dynamic dimensions the size is the bound.
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  absl::Span<const int64_t> dimensions() const { return dims_; }
  int64_t dimensions(int64_t i) const { return dims_[i]; }
  void set_dimensions(int64_t i, int64_t size) { dims_[i] = size; }
  void add_dimension(int64_t size, bool is_dynamic = false);
  void clear_dimensions();

  bool is_dynamic_dimension(int64_t i) const { return dynamic_[i]; }
  void set_dynamic_dimension(int64_t i, bool d) { dynamic_[i] = d; }
  absl::Span<const bool> dynamic_dimensions() const { return dynamic_; }
  bool is_dynamic() const;  // any dynamic dimension, recursively for tuples

  // Tuples.
  int64_t tuple_shapes_size() const {
    return static_cast<int64_t>(tuple_shapes_.size());
  }
  const std::vector<Shape>& tuple_shapes() const { return tuple_shapes_; }
  const Shape& tuple_shapes(int64_t i) const { return tuple_shapes_[i]; }
  Shape* mutable_tuple_shapes(int64_t i) { return &tuple_shapes_[i]; }
  std::vector<Shape>* mutable_tuple_shapes() { return &tuple_shapes_; }

  // Layout (arrays only).
  bool has_layout() const { return layout_.has_value(); }
  const Layout& layout() const;  // requires has_layout()
  Layout* mutable_layout();      // creates an empty layout when absent
  void set_layout(Layout l) { layout_ = std::move(l); }
  void clear_layout();  // recursively for tuples

  // Equality with options (XLA's Shape::Equal).
  class Equal {
   public:
    bool operator()(const Shape& a, const Shape& b) const;
    Equal& IgnoreLayout() {
      ignore_layout_ = true;
      return *this;
    }
    Equal& IgnoreElementType() {
      ignore_element_type_ = true;
      return *this;
    }
    Equal& IgnoreDynamicDimension() {
      ignore_dynamic_ = true;
      return *this;
    }
    Equal& IgnoreMemorySpaceInLayout() {
      ignore_memory_space_ = true;
      return *this;
    }
    Equal& IgnoreTilesInLayout() {
      ignore_tiles_ = true;
      return *this;
    }

   private:
    bool ignore_layout_ = false;
    bool ignore_element_type_ = false;
    bool ignore_dynamic_ = false;
    bool ignore_memory_space_ = false;
    bool ignore_tiles_ = false;
  };

  // Exact equality, layouts included (an absent layout equals only an
  // absent layout).
  bool operator==(const Shape& o) const { return Equal()(*this, o); }
  bool operator!=(const Shape& o) const { return !(*this == o); }

  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    h = H::combine(std::move(h), static_cast<int>(s.element_type_), s.dims_,
                   s.dynamic_, s.layout_.has_value());
    if (s.layout_) h = H::combine(std::move(h), *s.layout_);
    for (const Shape& t : s.tuple_shapes_) h = H::combine(std::move(h), t);
    return h;
  }

  // HLO spelling: "f32[2,3]{1,0}", "f32[<=4]", "(f32[], s32[2])", "token[]".
  // With print_layout=false the layout is left out.
  std::string ToString(bool print_layout = true) const;

 private:
  PrimitiveType element_type_ = PrimitiveType::PRIMITIVE_TYPE_INVALID;
  absl::InlinedVector<int64_t, 6> dims_;
  absl::InlinedVector<bool, 6> dynamic_;
  std::vector<Shape> tuple_shapes_;
  std::optional<Layout> layout_;
};

std::ostream& operator<<(std::ostream& os, const Shape& shape);
std::ostream& operator<<(std::ostream& os, const Layout& layout);

// A computation's signature: parameter shapes and result shape.
struct ProgramShape {
  std::vector<Shape> parameters;
  std::vector<std::string> parameter_names;
  Shape result;

  // "(a: f32[2], b: s32[]) -> f32[2]"
  std::string ToString() const;
};

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_SHAPE_H_
