#include "plugins/cpu/dynamic_update_slice_thunk.h"

#include <algorithm>
#include <utility>

#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa::cpu {

absl::Status DusThunk::Run(Frame& f) const {
  uint8_t* out = f.ptr[outputs[0]];
  const uint8_t* in = f.ptr[inputs[0]];
  if (bytes_ > 0 && out != in) std::memcpy(out, in, bytes_);
  if (update_elements_ == 0) return absl::OkStatus();
  const uint8_t* update = f.ptr[inputs[1]];
  const int64_t rank = static_cast<int64_t>(dims_.size());
  int64_t base = 0;  // element offset of the window in the result
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t start =
        std::clamp<int64_t>(ReadIndex(f.ptr[inputs[2 + d]], index_types_[d]), 0,
                            dims_[d] - update_dims_[d]);
    base += start * out_strides_[d];
  }
  if (rank == 0) {
    std::memmove(out, update, element_bytes_);
    return absl::OkStatus();
  }
  // Runs along the update's most-minor dimension; an odometer over the
  // other dimensions.
  const int64_t run = update_dims_[minor_];
  const bool contiguous = out_strides_[minor_] == 1;
  std::vector<int64_t> index(rank, 0);
  while (true) {
    int64_t o = base, u = 0;
    for (int64_t d = 0; d < rank; ++d) {
      o += index[d] * out_strides_[d];
      u += index[d] * update_strides_[d];
    }
    if (contiguous) {
      std::memmove(out + o * element_bytes_, update + u * element_bytes_,
                   run * element_bytes_);
    } else {
      for (int64_t i = 0; i < run; ++i) {
        std::memmove(out + (o + i * out_strides_[minor_]) * element_bytes_,
                     update + (u + i) * element_bytes_, element_bytes_);
      }
    }
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (d == minor_) continue;
      if (++index[d] < update_dims_[d]) break;
      index[d] = 0;
    }
    if (d < 0) break;
  }
  return absl::OkStatus();
}

std::unique_ptr<DusThunk> MakeDynamicUpdateSliceThunk(const Instruction& h) {
  const Shape result = WithLayout(h.shape());
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape update = WithLayout(h.operand(1)->shape());
  const int64_t rank = result.rank();
  if (!ShapeUtil::IsDenseArray(result) || !ShapeUtil::IsDenseArray(operand) ||
      !ShapeUtil::IsDenseArray(update) ||
      !(LayoutUtil::EffectiveLayout(result) ==
        LayoutUtil::EffectiveLayout(operand)) ||
      h.operand_count() != 2 + rank) {
    return nullptr;
  }
  std::vector<PrimitiveType> index_types;
  for (int64_t i = 2; i < h.operand_count(); ++i) {
    const Shape& s = h.operand(i)->shape();
    if (!s.IsScalar() || !primitive_util::IsIntegralType(s.element_type())) {
      return nullptr;
    }
    index_types.push_back(s.element_type());
  }
  return std::make_unique<DusThunk>(result, update, std::move(index_types));
}

}  // namespace plexa::cpu
