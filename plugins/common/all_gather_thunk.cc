#include "plugins/common/all_gather_thunk.h"

#include <cstring>

#include "core/shape/shape_util.h"

namespace plexa::backend {

void AllGatherThunk::Compute(Frame& f,
                             const std::vector<std::vector<const void*>>& peers,
                             int64_t) const {
  // Operand i is [rows, row bytes] in row-major order (rows: the product of
  // the dimensions before the gathered one); row r of the result is row r
  // of every member, in group order.
  const int64_t n = static_cast<int64_t>(peers.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = shapes_[i];
    int64_t rows = 1;
    for (int64_t d = 0; d < dimension_; ++d) rows *= s.dimensions(d);
    const int64_t bytes = ShapeUtil::ByteSizeOfElements(s);
    const int64_t row = rows == 0 ? 0 : bytes / rows;
    uint8_t* out = f.ptr[outputs[i]];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(out + (r * n + k) * row,
                    static_cast<const uint8_t*>(peers[k][i]) + r * row, row);
      }
    }
  }
}

}  // namespace plexa::backend
