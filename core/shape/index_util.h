// Multi-dimensional index <-> linear index in a buffer, for a shape and its
// layout (XLA's IndexUtil). Handles any minor_to_major, seed 000's
// padded_dimensions, and tiled layouts (seed 001/002):
//
//   f32[2,3] {1,0}: index {1,0} -> 3        (a b c d e f: d is element 3)
//   f32[2,3] {0,1}: index {1,0} -> 1        (a d b e c f: d is element 1)
//   f32[2,3] {0,1} padded to [3,5]: index {1,2} -> 7
//            (a d 0 b e 0 c f 0 0 0 0 0 0 0: f is element 7)
//
// Linear indices count elements, not bytes.
#ifndef PLEXA_CORE_SHAPE_INDEX_UTIL_H_
#define PLEXA_CORE_SHAPE_INDEX_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/shape/shape.h"

namespace plexa {

class IndexUtil {
 public:
  // The element offset of `multi_index` in a buffer laid out by the shape's
  // layout (default layout if none). multi_index must be in bounds.
  static int64_t MultidimensionalIndexToLinearIndex(
      const Shape& shape, absl::Span<const int64_t> multi_index);
  // Inverse of the above, for linear indices that hold an element (not
  // padding). Returns the index of the element stored there.
  static std::vector<int64_t> LinearIndexToMultidimensionalIndex(
      const Shape& shape, int64_t linear_index);
  // Number of element slots the buffer holds, padding included
  // (ByteSizeOf / element width for arrays).
  static int64_t BufferElementCount(const Shape& shape);
  // True if linear_index is a padding slot (tile padding, seed 000 padding,
  // or tail padding).
  static bool IsPaddingSlot(const Shape& shape, int64_t linear_index);

  // Advances `index` to the next index in row-major order; false at the
  // end.
  static bool BumpIndices(const Shape& shape, absl::Span<int64_t> indices);
  // Row-major logical strides (in elements) of each dimension, ignoring the
  // layout: for [2,3,4] -> {12,4,1}.
  static std::vector<int64_t> RowMajorStrides(const Shape& shape);
};

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_INDEX_UTIL_H_
