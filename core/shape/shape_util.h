// Static helpers over shapes (XLA's ShapeUtil). Worked examples in comments.
#ifndef PLEXA_CORE_SHAPE_SHAPE_UTIL_H_
#define PLEXA_CORE_SHAPE_SHAPE_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape/shape.h"

namespace plexa {

class ShapeUtil {
 public:
  // f32[2,3] without a layout.
  static Shape MakeShape(PrimitiveType type, absl::Span<const int64_t> dims);
  // f32[2,3]{1,0}: with the default (major-to-minor) layout.
  static Shape MakeShapeWithDescendingLayout(PrimitiveType type,
                                             absl::Span<const int64_t> dims);
  // f32[2,3]{0,1} for minor_to_major {0,1}.
  static Shape MakeShapeWithLayout(PrimitiveType type,
                                   absl::Span<const int64_t> dims,
                                   absl::Span<const int64_t> minor_to_major);
  static Shape MakeScalarShape(PrimitiveType type);
  static Shape MakeTupleShape(absl::Span<const Shape> shapes);
  static Shape MakeTokenShape();
  // Validates then builds: negative sizes, bad types are InvalidArgument.
  static absl::StatusOr<Shape> MakeValidatedShape(
      PrimitiveType type, absl::Span<const int64_t> dims);

  // Product of the dimensions (1 for a scalar; 0 if any dimension is 0).
  // 0 for tuples and tokens.
  static int64_t ElementsIn(const Shape& shape);
  // Number of leaves of a (nested) tuple; 1 for an array or a token (as
  // XLA's GetLeafCount); 0 for an empty tuple.
  static int64_t LeafCount(const Shape& shape);
  // The array leaves of a (nested) tuple, depth first, tokens left out: how
  // the ABI flattens parameters and results. Layouts are kept.
  static std::vector<Shape> ArrayLeafShapes(const Shape& shape);

  // Bytes the array occupies in memory under its layout (default layout if
  // none), including seed 000's padding, tiling padding and seed 001's tail
  // padding: f32[2,3] with padded_dimensions [3,5] -> 60 bytes.
  // With E(n) (element_size_in_bits) the slots are packed at n bits and
  // the total rounded up to whole bytes (XLA). For tuples: the pointer
  // table (8 bytes per element), as XLA. 0 for tokens.
  static int64_t ByteSizeOf(const Shape& shape);
  // Bytes of the elements alone, without any padding: ElementsIn * width
  // (0 for tuples and tokens).
  static int64_t ByteSizeOfElements(const Shape& shape);
  // An array whose elements fill its buffer with nothing else: no tiling,
  // no padding, no sub-byte element size (any minor_to_major).
  static bool IsDenseArray(const Shape& shape);

  static bool IsScalar(const Shape& s) { return s.IsScalar(); }
  static bool IsEffectiveScalar(const Shape& s);  // array with 1 element
  static bool IsZeroElementArray(const Shape& s);
  static bool SameDimensions(const Shape& a, const Shape& b);
  static bool SameElementType(const Shape& a, const Shape& b);
  // Same dimensions and element type, layouts ignored.
  static bool Compatible(const Shape& a, const Shape& b);
  // Same dimensions, element types may differ (for compare, convert).
  static bool CompatibleIgnoringElementType(const Shape& a, const Shape& b);
  static bool Equal(const Shape& a, const Shape& b) { return a == b; }

  // "true rank" of seed 000: number of dimensions of size > 1.
  static int64_t TrueRank(const Shape& shape);

  // Negative dimension numbers count from the end, as seed 000 allows in
  // some utilities: for f32[A,B,C], -1 is C. InvalidArgument if out of
  // [-rank, rank).
  static absl::StatusOr<int64_t> CanonicalDimension(const Shape& shape,
                                                    int64_t dimension);
  // Size of dimension `dimension`, negative numbers allowed as above.
  static absl::StatusOr<int64_t> GetDimension(const Shape& shape,
                                              int64_t dimension);

  // The element type changed (every leaf of a tuple); the layout is kept,
  // except a sub-byte E(n), which belonged to the old type.
  static Shape ChangeElementType(const Shape& shape, PrimitiveType type);
  // Removes dimension `dim`; the layout follows (minor_to_major loses it
  // and renumbers, padded_dimensions loses its entry; tiles are kept).
  // f32[2,3,4]{0,2,1} without dim 1 -> f32[2,4]{0,1}. Out of range: the
  // shape unchanged.
  static Shape DeleteDimension(int64_t dim, Shape shape);
  // Keeps the dimensions listed in `keep` (in their original order),
  // deleting the others as DeleteDimension does.
  static Shape FilterDimensions(const Shape& shape,
                                absl::Span<const int64_t> keep);
  // Permutes dimensions: result dim i = shape dim permutation[i]. A layout
  // is rewritten so the physical order is unchanged (a bitcast):
  // f32[2,3,4]{2,1,0} by {2,0,1} -> f32[4,2,3]{0,2,1}. An invalid
  // permutation returns the shape unchanged.
  static Shape PermuteDimensions(absl::Span<const int64_t> permutation,
                                 const Shape& shape);

  // The subshape at a tuple index path; InvalidArgument if the path does
  // not exist.
  static absl::StatusOr<const Shape*> TryGetSubshape(
      const Shape& shape, absl::Span<const int64_t> index);
  // As TryGetSubshape; a missing path gives an invalid (default) Shape
  // instead of aborting.
  static const Shape& GetSubshape(const Shape& shape,
                                  absl::Span<const int64_t> index);

  // Calls fn(index) for every multi-dimensional index in row-major order
  // (last dimension fastest). No calls for a zero-element shape (nor for
  // one with a negative dimension). A scalar gets one call with {}.
  template <typename Fn>
  static void ForEachIndex(const Shape& shape, Fn&& fn);

  // Checks an array shape for validity: known element type, non-negative
  // dimensions, a layout (if any) that is a permutation of the dimensions
  // and whose padding/tiling is consistent.
  static absl::Status ValidateShape(const Shape& shape);

  static std::string HumanString(const Shape& shape) {
    return shape.ToString(false);
  }
  static std::string HumanStringWithLayout(const Shape& shape) {
    return shape.ToString(true);
  }
};

template <typename Fn>
void ShapeUtil::ForEachIndex(const Shape& shape, Fn&& fn) {
  const int64_t rank = shape.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (shape.dimensions(d) <= 0) return;  // no elements (or invalid)
  }
  std::vector<int64_t> index(rank, 0);
  while (true) {
    fn(absl::Span<const int64_t>(index));
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_SHAPE_UTIL_H_
