// dynamic-update-slice on host memory (DusThunk), for dense arrays whose
// operand and result share a layout and whose start indices are integer
// scalars.
#ifndef PLEXA_PLUGINS_CPU_DYNAMIC_UPDATE_SLICE_THUNK_H_
#define PLEXA_PLUGINS_CPU_DYNAMIC_UPDATE_SLICE_THUNK_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/ir/instruction.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/cpu_thunk.h"

namespace plexa::cpu {

// dynamic-update-slice as copies: the operand into the result (skipped in
// place, when the result shares the operand's memory: see MakeUpdatesInPlace),
// then the update into its window, whose start indices are clamped so the
// window fits (XLA). Operand and result share a layout; the update may have
// any dense layout.
class DusThunk : public Thunk {
 public:
  // inputs: operand, update, one scalar start index per dimension;
  // outputs: the result.
  DusThunk(const Shape& result, const Shape& update,
           std::vector<PrimitiveType> index_types)
      : dims_(result.dimensions().begin(), result.dimensions().end()),
        update_dims_(update.dimensions().begin(), update.dimensions().end()),
        out_strides_(IndexUtil::LayoutStrides(result)),
        update_strides_(IndexUtil::LayoutStrides(update)),
        index_types_(std::move(index_types)),
        element_bytes_(primitive_util::ByteWidth(result.element_type())),
        bytes_(ShapeUtil::ByteSizeOf(result)) {
    const Layout layout = LayoutUtil::EffectiveLayout(update);
    minor_ = layout.minor_to_major().empty() ? -1 : layout.minor_to_major(0);
    update_elements_ = ShapeUtil::ElementsIn(update);
  }
  bool CanUpdateInPlace() const override { return true; }

  absl::Status Run(Frame& f) const override;

 private:
  static int64_t ReadIndex(const uint8_t* p, PrimitiveType t) {
    switch (t) {
      case PrimitiveType::S8:
        return Load<int8_t>(p);
      case PrimitiveType::S16:
        return Load<int16_t>(p);
      case PrimitiveType::S32:
        return Load<int32_t>(p);
      case PrimitiveType::S64:
        return Load<int64_t>(p);
      case PrimitiveType::U8:
        return Load<uint8_t>(p);
      case PrimitiveType::U16:
        return Load<uint16_t>(p);
      case PrimitiveType::U32:
        return Load<uint32_t>(p);
      // Beyond int64: clamped to the largest start anyway.
      default: {
        const uint64_t v = Load<uint64_t>(p);
        return v > uint64_t{INT64_MAX} ? INT64_MAX : static_cast<int64_t>(v);
      }
    }
  }
  template <typename T>
  static int64_t Load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof(T));
    return static_cast<int64_t>(v);
  }

  std::vector<int64_t> dims_, update_dims_, out_strides_, update_strides_;
  std::vector<PrimitiveType> index_types_;
  int64_t element_bytes_;
  int64_t bytes_;
  int64_t minor_ = -1;
  int64_t update_elements_ = 0;
};

// A DusThunk for `h` (inputs and outputs left to the caller), or null when
// `h` is not one it runs (the kernel emitter takes those).
std::unique_ptr<DusThunk> MakeDynamicUpdateSliceThunk(const Instruction& h);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_DYNAMIC_UPDATE_SLICE_THUNK_H_
