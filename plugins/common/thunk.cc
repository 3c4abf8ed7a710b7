#include "plugins/common/thunk.h"

#include <cstring>

#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa::backend {

absl::StatusOr<uint8_t*> ExecContext::ArenaFor(int id, int64_t bytes) {
  AlignedMemory& arena = arenas[id];
  if (absl::Status s = arena.Reserve(bytes); !s.ok()) return s;
  return static_cast<uint8_t*>(arena.data());
}

Shape WithLayout(Shape s) {
  if (s.IsArray()) LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  return s;
}

void FlattenLeafShapes(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) FlattenLeafShapes(e, out);
    return;
  }
  out->push_back(WithLayout(shape));
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& e : shape.tuple_shapes()) n += LeafCount(e);
  return n;
}

int64_t SlotBytes(const Shape& s) {
  return s.IsArray() ? ShapeUtil::ByteSizeOf(s) : 0;
}
CopyThunk::CopyThunk(int src, int dst, int64_t bytes) : bytes_(bytes) {
  inputs = {src};
  outputs = {dst};
}

absl::Status CopyThunk::Run(Frame& f) const {
  if (bytes_ > 0 && f.ptr[outputs[0]] != f.ptr[inputs[0]]) {
    std::memcpy(f.ptr[outputs[0]], f.ptr[inputs[0]], bytes_);
  }
  return absl::OkStatus();
}

}  // namespace plexa::backend
