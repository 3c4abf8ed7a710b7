#include "core/shape/shape.h"

#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace plexa {

Shape::Shape(PrimitiveType type, absl::Span<const int64_t> dimensions)
    : element_type_(type),
      dims_(dimensions.begin(), dimensions.end()),
      dynamic_(dimensions.size(), false) {}

Shape::Shape(std::vector<Shape> tuple_shapes)
    : element_type_(PrimitiveType::TUPLE),
      tuple_shapes_(std::move(tuple_shapes)) {}

bool Shape::IsArray() const {
  return primitive_util::IsArrayType(element_type_);
}

void Shape::add_dimension(int64_t size, bool is_dynamic) {
  dims_.push_back(size);
  dynamic_.push_back(is_dynamic);
}

void Shape::clear_dimensions() {
  dims_.clear();
  dynamic_.clear();
}

bool Shape::is_dynamic() const {
  for (bool d : dynamic_) {
    if (d) return true;
  }
  for (const Shape& t : tuple_shapes_) {
    if (t.is_dynamic()) return true;
  }
  return false;
}

const Layout& Shape::layout() const {
  static const Layout* const kEmpty = new Layout();
  return layout_ ? *layout_ : *kEmpty;
}

Layout* Shape::mutable_layout() {
  if (!layout_) layout_.emplace();
  return &*layout_;
}

void Shape::clear_layout() {
  layout_.reset();
  for (Shape& t : tuple_shapes_) t.clear_layout();
}

bool Shape::Equal::operator()(const Shape& a, const Shape& b) const {
  if (a.IsTuple() || b.IsTuple()) {
    if (a.element_type_ != b.element_type_) return false;
    if (a.tuple_shapes_.size() != b.tuple_shapes_.size()) return false;
    for (size_t i = 0; i < a.tuple_shapes_.size(); ++i) {
      if (!(*this)(a.tuple_shapes_[i], b.tuple_shapes_[i])) return false;
    }
    return true;
  }
  if (!ignore_element_type_ && a.element_type_ != b.element_type_) {
    return false;
  }
  if (a.dims_ != b.dims_) return false;
  if (!ignore_dynamic_ && a.dynamic_ != b.dynamic_) return false;
  if (!ignore_layout_) {
    // A scalar's empty layout "{}" is not printed (as in XLA), so for rank 0
    // an absent layout and an empty one are the same thing.
    const bool scalar_defaults =
        a.dims_.empty() && (!a.layout_ || a.layout_->ToString() == "{}") &&
        (!b.layout_ || b.layout_->ToString() == "{}");
    if (scalar_defaults) return true;
    if (a.layout_.has_value() != b.layout_.has_value()) return false;
    if (a.layout_) {
      Layout::Equal eq;
      if (ignore_tiles_) eq.IgnoreTiles();
      if (ignore_memory_space_) eq.IgnoreMemorySpace();
      if (!eq(*a.layout_, *b.layout_)) return false;
    }
  }
  return true;
}

std::string Shape::ToString(bool print_layout) const {
  if (IsTuple()) {
    std::string out = "(";
    for (size_t i = 0; i < tuple_shapes_.size(); ++i) {
      if (i) out += ", ";
      out += tuple_shapes_[i].ToString(print_layout);
    }
    out += ")";
    return out;
  }
  std::string out(primitive_util::Name(element_type_));
  out += "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) out += ",";
    if (dynamic_[i]) out += "<=";
    absl::StrAppend(&out, dims_[i]);
  }
  out += "]";
  // XLA leaves out a scalar's empty layout "{}"; any layout with content is
  // printed so that it round-trips.
  if (print_layout && layout_ && IsArray()) {
    std::string l = layout_->ToString();
    if (!(dims_.empty() && l == "{}")) out += l;
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  return os << shape.ToString();
}

std::ostream& operator<<(std::ostream& os, const Layout& layout) {
  return os << layout.ToString();
}

std::string ProgramShape::ToString() const {
  std::string out = "(";
  for (size_t i = 0; i < parameters.size(); ++i) {
    if (i) out += ", ";
    if (i < parameter_names.size() && !parameter_names[i].empty()) {
      absl::StrAppend(&out, parameter_names[i], ": ");
    }
    out += parameters[i].ToString();
  }
  absl::StrAppend(&out, ") -> ", result.ToString());
  return out;
}

}  // namespace plexa
