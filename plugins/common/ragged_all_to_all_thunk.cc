#include "plugins/common/ragged_all_to_all_thunk.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"

namespace plexa::backend {
namespace {

// The bytes of one row (everything after dimension 0) of a row-major array.
int64_t RowBytes(const Shape& s) {
  int64_t row = primitive_util::ByteWidth(s.element_type());
  for (int64_t d = 1; d < s.rank(); ++d) row *= s.dimensions(d);
  return row;
}

}  // namespace

int64_t RaggedAllToAllThunk::Offset(
    const std::vector<std::vector<const void*>>& peers, int64_t s, int operand,
    int64_t i) const {
  const void* p = peers[s][operand];
  return offset_type_ == PrimitiveType::S64 ? static_cast<const int64_t*>(p)[i]
                                            : static_cast<const int32_t*>(p)[i];
}

absl::Status RaggedAllToAllThunk::Check(
    const std::vector<std::vector<const void*>>& peers, int64_t me) const {
  const int64_t n = static_cast<int64_t>(peers.size());
  if (offsets_ % n != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", offsets_, " offsets do not divide among ", n,
                     " group member(s)"));
  }
  const int64_t k = offsets_ / n;
  const int64_t in_rows = input_.dimensions(0);
  const int64_t out_rows = output_.dimensions(0);
  for (int64_t s = 0; s < n; ++s) {
    for (int64_t j = 0; j < k; ++j) {
      const int64_t idx = me * k + j;
      const int64_t from = Offset(peers, s, 2, idx);
      const int64_t size = Offset(peers, s, 3, idx);
      const int64_t to = Offset(peers, s, 4, idx);
      const int64_t expected = Offset(peers, me, 5, s * k + j);
      if (expected != size) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": recv_sizes[", s * k + j, "] is ", expected,
                         " but group member ", s, " sends ", size,
                         " row(s) (its send_sizes[", idx, "])"));
      }
      if (from < 0 || size < 0 || to < 0 || from + size > in_rows ||
          to + size > out_rows) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, ": update ", idx, " of group member ", s,
                         ": rows [", from, ", ", from + size, ") of its ",
                         in_rows, " input rows to rows [", to, ", ", to + size,
                         ") of ", out_rows, " output rows is out of range"));
      }
    }
  }
  return absl::OkStatus();
}

void RaggedAllToAllThunk::Compute(
    Frame& f, const std::vector<std::vector<const void*>>& peers,
    int64_t me) const {
  uint8_t* out = f.ptr[outputs[0]];
  const void* own_output = peers[me][1];
  if (out != own_output) {
    std::memcpy(out, own_output, ShapeUtil::ByteSizeOf(output_));
  }
  const int64_t n = static_cast<int64_t>(peers.size());
  const int64_t k = offsets_ / n;
  const int64_t row = RowBytes(output_);
  for (int64_t s = 0; s < n; ++s) {
    const auto* in = static_cast<const uint8_t*>(peers[s][0]);
    for (int64_t j = 0; j < k; ++j) {
      const int64_t idx = me * k + j;
      const int64_t size = Offset(peers, s, 3, idx);
      if (size == 0) continue;
      std::memcpy(out + Offset(peers, s, 4, idx) * row,
                  in + Offset(peers, s, 2, idx) * row, size * row);
    }
  }
}

}  // namespace plexa::backend
