#include "plugins/common/all_to_all_thunk.h"

#include <cstring>

#include "core/shape/shape_util.h"

namespace plexa::backend {

void AllToAllThunk::Compute(Frame& f,
                            const std::vector<std::vector<const void*>>& peers,
                            int64_t me) const {
  const int64_t n = static_cast<int64_t>(peers.size());
  if (!split_dimension_.has_value()) {
    // Result j is member j's operand `me`.
    for (int64_t j = 0; j < n; ++j) {
      const int64_t bytes = ShapeUtil::ByteSizeOfElements(shapes_[j]);
      if (bytes > 0) std::memcpy(f.ptr[outputs[j]], peers[j][me], bytes);
    }
    return;
  }
  // Row r of every member's operand holds n pieces along the split
  // dimension; piece `me` of member k's row r becomes piece k of row r.
  const Shape& s = shapes_[0];
  int64_t rows = 1;
  for (int64_t d = 0; d < *split_dimension_; ++d) rows *= s.dimensions(d);
  const int64_t row = rows == 0 ? 0 : ShapeUtil::ByteSizeOfElements(s) / rows;
  const int64_t piece = row / n;
  uint8_t* out = f.ptr[outputs[0]];
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < n; ++k) {
      std::memcpy(
          out + r * row + k * piece,
          static_cast<const uint8_t*>(peers[k][0]) + r * row + me * piece,
          piece);
    }
  }
}

}  // namespace plexa::backend
