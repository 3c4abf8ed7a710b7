#include "core/shape/shape_util.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"

namespace plexa {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// Saturating multiply: sizes of absurd shapes stay defined (INT64_MAX)
// until ValidateShape rejects them.
int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kInt64Max : r;
}

}  // namespace

Shape ShapeUtil::MakeShape(PrimitiveType type, absl::Span<const int64_t> dims) {
  return Shape(type, dims);
}

Shape ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType type,
                                               absl::Span<const int64_t> dims) {
  Shape s(type, dims);
  s.set_layout(LayoutUtil::GetDefaultLayoutForRank(s.rank()));
  return s;
}

Shape ShapeUtil::MakeShapeWithLayout(PrimitiveType type,
                                     absl::Span<const int64_t> dims,
                                     absl::Span<const int64_t> minor_to_major) {
  Shape s(type, dims);
  s.set_layout(Layout(minor_to_major));
  return s;
}

Shape ShapeUtil::MakeScalarShape(PrimitiveType type) { return Shape(type, {}); }

Shape ShapeUtil::MakeTupleShape(absl::Span<const Shape> shapes) {
  return Shape(std::vector<Shape>(shapes.begin(), shapes.end()));
}

Shape ShapeUtil::MakeTokenShape() { return Shape(PrimitiveType::TOKEN, {}); }

absl::StatusOr<Shape> ShapeUtil::MakeValidatedShape(
    PrimitiveType type, absl::Span<const int64_t> dims) {
  if (!primitive_util::IsArrayType(type)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MakeValidatedShape: element type ",
                     primitive_util::Name(type), " is not an array type"));
  }
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "MakeValidatedShape: negative dimension size in ",
          primitive_util::Name(type), "[", absl::StrJoin(dims, ","), "]"));
    }
  }
  return Shape(type, dims);
}

int64_t ShapeUtil::ElementsIn(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) n = SatMul(n, d);
  return n;
}

int64_t ShapeUtil::LeafCount(const Shape& shape) {
  // As XLA's GetLeafCount: every non-tuple subshape (arrays and tokens) is
  // a leaf; an empty tuple has none.
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& s : shape.tuple_shapes()) n += LeafCount(s);
  return n;
}

namespace {
void CollectArrayLeaves(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) CollectArrayLeaves(s, out);
  } else if (shape.IsArray()) {
    out->push_back(shape);
  }
}
}  // namespace

std::vector<Shape> ShapeUtil::ArrayLeafShapes(const Shape& shape) {
  std::vector<Shape> out;
  CollectArrayLeaves(shape, &out);
  return out;
}

int64_t ShapeUtil::ByteSizeOf(const Shape& shape) {
  if (shape.IsTuple()) return 8 * shape.tuple_shapes_size();
  if (!shape.IsArray()) return 0;  // token, invalid
  const int64_t slots = IndexUtil::BufferElementCount(shape);
  if (shape.has_layout() && shape.layout().element_size_in_bits() > 0) {
    // E(n): elements packed at n bits each, the total rounded up to bytes.
    const int64_t bits = SatMul(slots, shape.layout().element_size_in_bits());
    return bits == kInt64Max ? kInt64Max : bits / 8 + (bits % 8 != 0);
  }
  return SatMul(slots, primitive_util::ByteWidth(shape.element_type()));
}

int64_t ShapeUtil::ByteSizeOfElements(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  return SatMul(ElementsIn(shape),
                primitive_util::ByteWidth(shape.element_type()));
}

bool ShapeUtil::IsEffectiveScalar(const Shape& s) {
  return s.IsArray() && ElementsIn(s) == 1;
}

bool ShapeUtil::IsZeroElementArray(const Shape& s) {
  return s.IsArray() && ElementsIn(s) == 0;
}

bool ShapeUtil::SameDimensions(const Shape& a, const Shape& b) {
  return a.rank() == b.rank() &&
         std::equal(a.dimensions().begin(), a.dimensions().end(),
                    b.dimensions().begin());
}

bool ShapeUtil::SameElementType(const Shape& a, const Shape& b) {
  return a.element_type() == b.element_type();
}

namespace {
// Structural compatibility: tuples element-wise, arrays by dimensions (and
// element type unless ignored), tokens with tokens. Layouts and dynamic
// markers are ignored, as in XLA's Compatible.
bool CompatibleImpl(const Shape& a, const Shape& b, bool ignore_type) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple()) return false;
    if (a.tuple_shapes_size() != b.tuple_shapes_size()) return false;
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!CompatibleImpl(a.tuple_shapes(i), b.tuple_shapes(i), ignore_type)) {
        return false;
      }
    }
    return true;
  }
  if (a.IsToken() || b.IsToken()) return a.IsToken() && b.IsToken();
  if (!a.IsArray() || !b.IsArray()) return false;
  if (!ignore_type && a.element_type() != b.element_type()) return false;
  return ShapeUtil::SameDimensions(a, b);
}
}  // namespace

bool ShapeUtil::Compatible(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, /*ignore_type=*/false);
}

bool ShapeUtil::CompatibleIgnoringElementType(const Shape& a, const Shape& b) {
  return CompatibleImpl(a, b, /*ignore_type=*/true);
}

int64_t ShapeUtil::TrueRank(const Shape& shape) {
  int64_t n = 0;
  for (int64_t d : shape.dimensions()) {
    if (d > 1) ++n;
  }
  return n;
}

absl::StatusOr<int64_t> ShapeUtil::CanonicalDimension(const Shape& shape,
                                                      int64_t dimension) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CanonicalDimension: ", shape.ToString(), " is not an array shape"));
  }
  const int64_t rank = shape.rank();
  if (dimension < -rank || dimension >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "CanonicalDimension: dimension ", dimension, " is out of range [",
        -rank, ", ", rank, ") for ", shape.ToString()));
  }
  // Seed 000: "dimension -1 is the last dimension (N-1 for an N-d array)".
  return dimension < 0 ? dimension + rank : dimension;
}

absl::StatusOr<int64_t> ShapeUtil::GetDimension(const Shape& shape,
                                                int64_t dimension) {
  absl::StatusOr<int64_t> d = CanonicalDimension(shape, dimension);
  if (!d.ok()) return d.status();
  return shape.dimensions(*d);
}

Shape ShapeUtil::ChangeElementType(const Shape& shape, PrimitiveType type) {
  Shape s = shape;
  if (s.IsTuple()) {
    for (Shape& t : *s.mutable_tuple_shapes()) t = ChangeElementType(t, type);
    return s;
  }
  s.set_element_type(type);
  // A sub-byte packing chosen for the old type does not carry over.
  if (s.has_layout() && s.layout().element_size_in_bits() != 0) {
    s.mutable_layout()->set_element_size_in_bits(0);
  }
  return s;
}

Shape ShapeUtil::DeleteDimension(int64_t dim, Shape shape) {
  if (!shape.IsArray() || dim < 0 || dim >= shape.rank()) return shape;
  Shape out(shape.element_type(), {});
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i != dim) {
      out.add_dimension(shape.dimensions(i), shape.is_dynamic_dimension(i));
    }
  }
  if (shape.has_layout()) {
    // Drop `dim` from minor_to_major and renumber the dimensions above it;
    // drop its padded width. Tiles apply to the physical order, which keeps
    // its shape, so they stay (as in XLA).
    Layout l = shape.layout();
    std::vector<int64_t> m2m;
    for (int64_t d : l.minor_to_major()) {
      if (d == dim) continue;
      m2m.push_back(d > dim ? d - 1 : d);
    }
    l.set_minor_to_major(m2m);
    if (!l.padded_dimensions().empty()) {
      std::vector<int64_t> pd(l.padded_dimensions().begin(),
                              l.padded_dimensions().end());
      if (dim < static_cast<int64_t>(pd.size())) pd.erase(pd.begin() + dim);
      l.set_padded_dimensions(pd);
    }
    out.set_layout(std::move(l));
  }
  return out;
}

Shape ShapeUtil::FilterDimensions(const Shape& shape,
                                  absl::Span<const int64_t> keep) {
  Shape out = shape;
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    if (std::find(keep.begin(), keep.end(), d) == keep.end()) {
      out = DeleteDimension(d, std::move(out));
    }
  }
  return out;
}

Shape ShapeUtil::PermuteDimensions(absl::Span<const int64_t> permutation,
                                   const Shape& shape) {
  const int64_t rank = shape.rank();
  if (!shape.IsArray() || static_cast<int64_t>(permutation.size()) != rank) {
    return shape;
  }
  Shape out(shape.element_type(), {});
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t src = permutation[i];
    if (src < 0 || src >= rank) return shape;
    out.add_dimension(shape.dimensions(src), shape.is_dynamic_dimension(src));
  }
  if (shape.has_layout()) {
    // Keep the physical layout (the permutation is then a bitcast): old
    // dimension k is new dimension inverse[k].
    std::vector<int64_t> inverse(rank, 0);
    for (int64_t i = 0; i < rank; ++i) inverse[permutation[i]] = i;
    Layout l = shape.layout();
    if (static_cast<int64_t>(l.minor_to_major().size()) == rank) {
      std::vector<int64_t> m2m(rank);
      for (int64_t i = 0; i < rank; ++i) {
        m2m[i] = inverse[l.minor_to_major(i)];
      }
      l.set_minor_to_major(m2m);
    }
    if (static_cast<int64_t>(l.padded_dimensions().size()) == rank) {
      std::vector<int64_t> pd(rank);
      for (int64_t i = 0; i < rank; ++i) {
        pd[i] = l.padded_dimensions()[permutation[i]];
      }
      l.set_padded_dimensions(pd);
    }
    out.set_layout(std::move(l));
  }
  return out;
}

absl::StatusOr<const Shape*> ShapeUtil::TryGetSubshape(
    const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (size_t i = 0; i < index.size(); ++i) {
    if (!s->IsTuple() || index[i] < 0 || index[i] >= s->tuple_shapes_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("GetSubshape: index {", absl::StrJoin(index, ","),
                       "} does not exist in ", shape.ToString()));
    }
    s = &s->tuple_shapes(index[i]);
  }
  return s;
}

const Shape& ShapeUtil::GetSubshape(const Shape& shape,
                                    absl::Span<const int64_t> index) {
  absl::StatusOr<const Shape*> s = TryGetSubshape(shape, index);
  if (s.ok()) return **s;
  // Never abort on bad input: a missing path yields an invalid shape.
  static const Shape* const kInvalid = new Shape();
  return *kInvalid;
}

absl::Status ShapeUtil::ValidateShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      absl::Status st = ValidateShape(s);
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    if (shape.rank() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "ValidateShape: token shape with dimensions: ", shape.ToString()));
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ValidateShape: invalid element type in ", shape.ToString()));
  }
  if (shape.dynamic_dimensions().size() != shape.dimensions().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ValidateShape: dynamic-dimension markers do not match the rank in ",
        shape.ToString()));
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (shape.dimensions(i) < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("ValidateShape: dimension ", i, " has negative size in ",
                       shape.ToString()));
    }
  }
  if (shape.has_layout()) {
    absl::Status st = LayoutUtil::ValidateLayoutForShape(shape.layout(), shape);
    if (!st.ok()) return st;
  }
  // As XLA: the buffer size must fit in int64 (sizes saturate at
  // INT64_MAX, so reaching it means overflow).
  if (ByteSizeOf(shape) == kInt64Max || ElementsIn(shape) == kInt64Max) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ValidateShape: the size of ", shape.ToString(), " overflows int64"));
  }
  return absl::OkStatus();
}

bool ShapeUtil::IsDenseArray(const Shape& shape) {
  if (!shape.IsArray()) return false;
  if (shape.has_layout() &&
      (LayoutUtil::IsTiled(shape) || LayoutUtil::IsPadded(shape) ||
       shape.layout().element_size_in_bits() != 0)) {
    return false;
  }
  return ByteSizeOf(shape) == ByteSizeOfElements(shape);
}

}  // namespace plexa
