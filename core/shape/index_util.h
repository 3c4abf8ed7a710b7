// Multi-dimensional index <-> linear index in a buffer, for a shape and its
// layout (XLA's IndexUtil). Handles any minor_to_major, seed 000's
// padded_dimensions, and tiled layouts (seed 001/002):
//
//   f32[2,3] {1,0}: index {1,0} -> 3        (a b c d e f: d is element 3)
//   f32[2,3] {0,1}: index {1,0} -> 1        (a d b e c f: d is element 1)
//   f32[2,3] {0,1} padded to [3,5]: index {1,2} -> 7
//            (a d 0 b e 0 c f 0 0 0 0 0 0 0: f is element 7)
//   f32[3,5] {1,0:T(2,2)}: index {2,3} -> 17 (XLA's tiled_layout.md)
//
// The buffer is built in three steps:
//  1. the dimensions in physical order (major to minor, the reverse of
//     minor_to_major), each widened to its padded_dimensions entry if any;
//  2. each tile in turn (XLA's tiling): the tile covers the most minor
//     tile-rank dimensions (a tile with more entries than there are
//     dimensions treats the missing major ones as size 1); a '*' entry
//     merges that dimension into the next more minor one; every covered
//     dimension d with tile size t is padded to a multiple of t and split
//     into (ceil(d/t), t), giving [uncovered..., tile counts..., tile
//     sizes...]. A later tile applies the same way to that result, so
//     T(8,128)(2,1) tiles each 8x128 tile by 2x1;
//  3. the final dimensions are laid out row-major, and the slot count is
//     rounded up to tail_padding_alignment_in_elements (seed 001).
// A shape without a layout uses the default {rank-1, ..., 0}.
//
// Linear indices count element slots, not bytes (element_size_in_bits
// packing is a byte-size matter for ShapeUtil::ByteSizeOf only).
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
  // padding). Returns the index of the element stored there; for a padding
  // slot the result is unspecified (check IsPaddingSlot first).
  static std::vector<int64_t> LinearIndexToMultidimensionalIndex(
      const Shape& shape, int64_t linear_index);
  // Number of element slots the buffer holds, padding included
  // (ByteSizeOf / element width for arrays).
  static int64_t BufferElementCount(const Shape& shape);
  // True if linear_index is a padding slot (tile padding, seed 000 padding,
  // or tail padding); false for element slots and for indices outside
  // [0, BufferElementCount).
  static bool IsPaddingSlot(const Shape& shape, int64_t linear_index);

  // Advances `index` to the next index in row-major order; false at the
  // end.
  static bool BumpIndices(const Shape& shape, absl::Span<int64_t> indices);
  // Row-major logical strides (in elements) of each dimension, ignoring the
  // layout: for [2,3,4] -> {12,4,1}.
  static std::vector<int64_t> RowMajorStrides(const Shape& shape);
  // Element strides of each dimension in memory under the shape's layout
  // (default layout if none), for dense arrays (ShapeUtil::IsDenseArray):
  // [2,3,4]{0,1,2} -> {1,2,6}.
  static std::vector<int64_t> LayoutStrides(const Shape& shape);
};

}  // namespace plexa

#endif  // PLEXA_CORE_SHAPE_INDEX_UTIL_H_
