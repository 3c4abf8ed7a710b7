// Static helpers over layouts (XLA's LayoutUtil).
#ifndef PLEXA_CORE_SHAPE_LAYOUT_UTIL_H_
#define PLEXA_CORE_SHAPE_LAYOUT_UTIL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/shape/shape.h"

namespace plexa {

class LayoutUtil {
 public:
  // {rank-1, ..., 1, 0}: "dimension order is major-to-minor" (seed 000).
  static Layout GetDefaultLayoutForRank(int64_t rank);
  static Layout MakeLayout(absl::Span<const int64_t> minor_to_major);
  // Gives every array in `shape` (recursively) the default layout if it has
  // none.
  static void SetToDefaultLayoutIfEmpty(Shape* shape);
  static void SetToDefaultLayout(Shape* shape);
  // The layout in force: the shape's own, or the default for its rank.
  static Layout EffectiveLayout(const Shape& shape);

  static bool IsMonotonicWithDim0Major(const Layout& layout);  // {n-1..0}
  static bool IsMonotonicWithDim0Minor(const Layout& layout);  // {0..n-1}
  static bool IsPadded(const Shape& shape);  // seed 000 padded_dimensions
  static bool IsTiled(const Shape& shape);

  // Checks that `layout` fits `shape`: minor_to_major is a permutation of
  // [0, rank), padded_dimensions has rank entries each >= the dimension,
  // tiles are non-empty with positive sizes, tail alignment >= 1.
  static absl::Status ValidateLayoutForShape(const Layout& layout,
                                             const Shape& shape);

  // Physical dimension order, major first: reverse of minor_to_major.
  static std::vector<int64_t> MajorToMinor(const Layout& layout);
  // Position of `dimension` in minor_to_major (0 = most minor); -1 if the
  // layout does not mention it.
  static int64_t PhysicalPosition(const Layout& layout, int64_t dimension);
};

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_LAYOUT_UTIL_H_
