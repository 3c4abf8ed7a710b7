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

absl::StatusOr<std::vector<RaggedUpdate>> RaggedAllToAllThunk::Updates(
    const std::vector<std::vector<const void*>>& peers, int64_t me) const {
  auto value = [&](int64_t member, RaggedOperand operand, int64_t i) {
    return Offset(peers, member, static_cast<int>(operand), i);
  };
  // Every member's input has this executable's input shape.
  auto input_rows = [&](int64_t) { return input_.dimensions(0); };
  absl::StatusOr<std::vector<RaggedUpdate>> updates =
      RaggedUpdatesTo(static_cast<int64_t>(peers.size()), offsets_, me, value,
                      input_rows, output_.dimensions(0));
  if (!updates.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", updates.status().message()));
  }
  return updates;
}

absl::Status RaggedAllToAllThunk::Check(
    const std::vector<std::vector<const void*>>& peers, int64_t me) const {
  return Updates(peers, me).status();
}

void RaggedAllToAllThunk::Compute(
    Frame& f, const std::vector<std::vector<const void*>>& peers,
    int64_t me) const {
  uint8_t* out = f.ptr[outputs[0]];
  const void* own_output = peers[me][1];
  if (out != own_output) {
    std::memcpy(out, own_output, ShapeUtil::ByteSizeOf(output_));
  }
  const int64_t row = RowBytes(output_);
  // Check() accepted these updates before Compute runs.
  const std::vector<RaggedUpdate> updates = *Updates(peers, me);
  for (const RaggedUpdate& u : updates) {
    if (u.size == 0) continue;
    const auto* in = static_cast<const uint8_t*>(peers[u.sender][0]);
    std::memcpy(out + u.to * row, in + u.from * row, u.size * row);
  }
}

}  // namespace plexa::backend
