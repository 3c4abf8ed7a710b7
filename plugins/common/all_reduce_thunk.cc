#include "plugins/common/all_reduce_thunk.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reduction_ops.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

namespace {

template <typename T>
T Apply(HloOpcode op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Wrapping and bitwise operations on the unsigned twin (two's
    // complement, no signed-overflow UB); maximum and minimum signed.
    using U = std::make_unsigned_t<T>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b);
    switch (op) {
      case HloOpcode::kAdd:
        return static_cast<T>(WrapAddOp<U>::Apply(ua, ub));
      case HloOpcode::kMultiply:
        return static_cast<T>(WrapMulOp<U>::Apply(ua, ub));
      case HloOpcode::kMaximum:
        return MaxOp<T>::Apply(a, b);
      case HloOpcode::kMinimum:
        return MinOp<T>::Apply(a, b);
      case HloOpcode::kAnd:
        return static_cast<T>(AndOp<U>::Apply(ua, ub));
      case HloOpcode::kOr:
        return static_cast<T>(OrOp<U>::Apply(ua, ub));
      default:
        return a;
    }
  } else {
    switch (op) {
      case HloOpcode::kAdd:
        return FloatAddOp<T>::Apply(a, b);
      case HloOpcode::kMultiply:
        return FloatMulOp<T>::Apply(a, b);
      case HloOpcode::kMaximum:
        return MaxOp<T>::Apply(a, b);
      case HloOpcode::kMinimum:
        return MinOp<T>::Apply(a, b);
      default:  // and/or of floats: turned down when emitted
        return a;
    }
  }
}

template <typename T>
void ReduceTyped(HloOpcode reducer, int64_t n,
                 const std::vector<const void*>& src, void* dst) {
  T* out = static_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    T acc = static_cast<const T*>(src[0])[i];
    for (size_t r = 1; r < src.size(); ++r) {
      acc = Apply<T>(reducer, acc, static_cast<const T*>(src[r])[i]);
    }
    out[i] = acc;
  }
}

}  // namespace

void ReduceBuffers(HloOpcode reducer, PrimitiveType type, int64_t n,
                   const std::vector<const void*>& src, void* dst) {
  switch (type) {
    case PrimitiveType::F32:
      return ReduceTyped<float>(reducer, n, src, dst);
    case PrimitiveType::F64:
      return ReduceTyped<double>(reducer, n, src, dst);
    case PrimitiveType::S8:
      return ReduceTyped<int8_t>(reducer, n, src, dst);
    case PrimitiveType::S16:
      return ReduceTyped<int16_t>(reducer, n, src, dst);
    case PrimitiveType::S32:
      return ReduceTyped<int32_t>(reducer, n, src, dst);
    case PrimitiveType::S64:
      return ReduceTyped<int64_t>(reducer, n, src, dst);
    case PrimitiveType::U8:
      return ReduceTyped<uint8_t>(reducer, n, src, dst);
    case PrimitiveType::U16:
      return ReduceTyped<uint16_t>(reducer, n, src, dst);
    case PrimitiveType::U32:
      return ReduceTyped<uint32_t>(reducer, n, src, dst);
    case PrimitiveType::U64:
      return ReduceTyped<uint64_t>(reducer, n, src, dst);
    case PrimitiveType::PRED: {
      uint8_t* out = static_cast<uint8_t*>(dst);
      for (int64_t i = 0; i < n; ++i) {
        bool acc = static_cast<const uint8_t*>(src[0])[i] != 0;
        for (size_t r = 1; r < src.size(); ++r) {
          const bool v = static_cast<const uint8_t*>(src[r])[i] != 0;
          acc =
              (reducer == HloOpcode::kAnd || reducer == HloOpcode::kMultiply ||
               reducer == HloOpcode::kMinimum)
                  ? (acc && v)
                  : (acc || v);
        }
        out[i] = acc ? 1 : 0;
      }
      return;
    }
    default:
      return;
  }
}

void AllReduceThunk::Compute(Frame& f,
                             const std::vector<std::vector<const void*>>& peers,
                             int64_t) const {
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<const void*> sources;
    for (const std::vector<const void*>& member : peers) {
      sources.push_back(member[i]);
    }
    ReduceBuffers(reducer_, shapes_[i].element_type(),
                  ShapeUtil::ElementsIn(shapes_[i]), sources,
                  f.ptr[outputs[i]]);
  }
}

void ReduceScatterThunk::Compute(
    Frame& f, const std::vector<std::vector<const void*>>& peers,
    int64_t me) const {
  // Operand i is [rows, n pieces of `piece` elements] in row-major order:
  // row r of the result reduces piece `me` of row r over the members.
  const int64_t n = static_cast<int64_t>(peers.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = shapes_[i];
    const int64_t w = primitive_util::ByteWidth(s.element_type());
    int64_t rows = 1;
    for (int64_t d = 0; d < dimension_; ++d) rows *= s.dimensions(d);
    const int64_t row = rows == 0 ? 0 : ShapeUtil::ElementsIn(s) / rows;
    const int64_t piece = row / n;
    uint8_t* out = f.ptr[outputs[i]];
    std::vector<const void*> sources(peers.size());
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t k = 0; k < n; ++k) {
        sources[k] = static_cast<const uint8_t*>(peers[k][i]) +
                     (r * row + me * piece) * w;
      }
      ReduceBuffers(reducer_, s.element_type(), piece, sources,
                    out + r * piece * w);
    }
  }
}

int64_t CollectiveReduceThunk::Root(
    const std::vector<std::vector<const void*>>& peers, int64_t me,
    size_t i) const {
  if (!dynamic_root_) return 0;
  // This member's own roots operand, after the data leaves.
  const auto* roots = static_cast<const int32_t*>(peers[me][shapes_.size()]);
  return roots[i];
}

absl::Status CollectiveReduceThunk::Check(
    const std::vector<std::vector<const void*>>& peers, int64_t me) const {
  const int64_t n = static_cast<int64_t>(peers.size());
  for (size_t i = 0; i < shapes_.size(); ++i) {
    const int64_t root = Root(peers, me, i);
    if (root < 0 || root >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("collective-reduce dynamic root ", root, " at index ", i,
                       " is out of range [0, ", n, ")"));
    }
  }
  return absl::OkStatus();
}

void CollectiveReduceThunk::Compute(
    Frame& f, const std::vector<std::vector<const void*>>& peers,
    int64_t me) const {
  for (size_t i = 0; i < shapes_.size(); ++i) {
    void* out = f.ptr[outputs[i]];
    if (Root(peers, me, i) == me) {
      std::vector<const void*> sources;
      for (const std::vector<const void*>& member : peers) {
        sources.push_back(member[i]);
      }
      ReduceBuffers(reducer_, shapes_[i].element_type(),
                    ShapeUtil::ElementsIn(shapes_[i]), sources, out);
    } else if (out != peers[me][i]) {
      std::memcpy(out, peers[me][i], ShapeUtil::ByteSizeOf(shapes_[i]));
    }
  }
}

}  // namespace plexa::backend
