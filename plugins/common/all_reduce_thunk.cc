#include "plugins/common/all_reduce_thunk.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reduction_ops.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

absl::Status AllReduceThunk::Run(Frame& f) const {
  ExecContext& ctx = *f.ctx;
  std::vector<const void*> mine;
  for (int s : inputs) mine.push_back(f.ptr[s]);
  if (ctx.replica_count == 1 || ctx.hub == nullptr) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const int64_t bytes = f.cc->slots[outputs[i]].bytes;
      if (bytes > 0) std::memcpy(f.ptr[outputs[i]], mine[i], bytes);
    }
    return absl::OkStatus();
  }
  std::vector<int64_t> group;
  for (const auto& g : groups_) {
    if (std::find(g.begin(), g.end(), ctx.replica_id) != g.end()) group = g;
  }
  if (group.empty()) {
    for (int64_t r = 0; r < ctx.replica_count; ++r) group.push_back(r);
  }
  // The k-th run of this all-reduce on every member of the group meets
  // under one key (as the evaluator keys its collectives).
  const std::string key = absl::StrCat(name_, "#", ctx.collective_runs[this]++);
  absl::StatusOr<std::vector<std::vector<const void*>>> all =
      ctx.hub->Exchange(key, group, ctx.replica_id, mine);
  if (!all.ok()) return all.status();
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<const void*> sources;
    for (const std::vector<const void*>& member : *all) {
      sources.push_back(member[i]);
    }
    Reduce(shapes_[i], sources, f.ptr[outputs[i]]);
  }
  // Nobody may overwrite or free its operands until every member has read
  // them: a second meeting with nothing to exchange.
  return ctx.hub
      ->Exchange(absl::StrCat(key, "/read"), group, ctx.replica_id, {})
      .status();
}

template <typename T>
T AllReduceThunk::Apply(HloOpcode op, T a, T b) {
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
void AllReduceThunk::ReduceTyped(int64_t n, const std::vector<const void*>& src,
                                 void* dst) const {
  T* out = static_cast<T*>(dst);
  for (int64_t i = 0; i < n; ++i) {
    T acc = static_cast<const T*>(src[0])[i];
    for (size_t r = 1; r < src.size(); ++r) {
      acc = Apply<T>(reducer_, acc, static_cast<const T*>(src[r])[i]);
    }
    out[i] = acc;
  }
}

void AllReduceThunk::Reduce(const Shape& s, const std::vector<const void*>& src,
                            void* dst) const {
  const int64_t n = ShapeUtil::ElementsIn(s);
  switch (s.element_type()) {
    case PrimitiveType::F32:
      return ReduceTyped<float>(n, src, dst);
    case PrimitiveType::F64:
      return ReduceTyped<double>(n, src, dst);
    case PrimitiveType::S8:
      return ReduceTyped<int8_t>(n, src, dst);
    case PrimitiveType::S16:
      return ReduceTyped<int16_t>(n, src, dst);
    case PrimitiveType::S32:
      return ReduceTyped<int32_t>(n, src, dst);
    case PrimitiveType::S64:
      return ReduceTyped<int64_t>(n, src, dst);
    case PrimitiveType::U8:
      return ReduceTyped<uint8_t>(n, src, dst);
    case PrimitiveType::U16:
      return ReduceTyped<uint16_t>(n, src, dst);
    case PrimitiveType::U32:
      return ReduceTyped<uint32_t>(n, src, dst);
    case PrimitiveType::U64:
      return ReduceTyped<uint64_t>(n, src, dst);
    case PrimitiveType::PRED: {
      uint8_t* out = static_cast<uint8_t*>(dst);
      for (int64_t i = 0; i < n; ++i) {
        bool acc = static_cast<const uint8_t*>(src[0])[i] != 0;
        for (size_t r = 1; r < src.size(); ++r) {
          const bool v = static_cast<const uint8_t*>(src[r])[i] != 0;
          acc = (reducer_ == HloOpcode::kAnd ||
                 reducer_ == HloOpcode::kMultiply ||
                 reducer_ == HloOpcode::kMinimum)
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

}  // namespace plexa::backend
