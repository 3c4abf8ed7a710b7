// Scatter in place (scatter.h).
//
// Everything that does not depend on the index values is worked out once
// (a Plan): the full-window bounds of every operand dimension, the strides
// that step through the scatter positions of the indices and updates, and
// the window as a few loops ordered so the innermost one runs along the
// output's smallest stride (the window's elements never collide, so their
// order is free; windows themselves are applied strictly in order). Then,
// a chunk of scatter positions at a time, one loop (a template on the index
// type) reads the index vectors and lists the windows that fit, and another
// (a template on the element type and combiner) applies them in that order;
// its innermost loop is a plain strided, usually contiguous, one.
#include "plugins/cpu/runtime/scatter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "plugins/common/reduction_ops.h"

namespace plexa::cpu {
namespace {

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat("scatter: ", args...));
}

std::string Dims(const std::vector<int64_t>& v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}

bool IsKnownType(ScatterType t) {
  return static_cast<int32_t>(t) >= static_cast<int32_t>(ScatterType::kPred) &&
         static_cast<int32_t>(t) <= static_cast<int32_t>(ScatterType::kF64);
}

bool IsIntegerType(ScatterType t) {
  return IsKnownType(t) && t != ScatterType::kPred && t != ScatterType::kF32 &&
         t != ScatterType::kF64;
}

bool IsFloatType(ScatterType t) {
  return t == ScatterType::kF32 || t == ScatterType::kF64;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

bool SortedStrictly(const std::vector<int64_t>& v) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i - 1] >= v[i]) return false;
  }
  return true;
}

bool AllUnique(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return std::adjacent_find(v.begin(), v.end()) == v.end();
}

// Element count of `dims`, or -1 if it does not fit in int64.
int64_t ElementCount(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    if (n > std::numeric_limits<int64_t>::max() / d) return -1;
    n *= d;
  }
  return n;
}

absl::Status ValidateArray(const ScatterArray& a, const char* name) {
  if (a.dims.size() != a.strides.size()) {
    return Invalid(name, " has ", a.dims.size(), " dimensions ", Dims(a.dims),
                   " but ", a.strides.size(), " strides ", Dims(a.strides));
  }
  for (int64_t d : a.dims) {
    if (d < 0) return Invalid(name, " has a negative dimension ", Dims(a.dims));
  }
  if (ElementCount(a.dims) < 0) {
    return Invalid(name, " dimensions ", Dims(a.dims), " overflow int64");
  }
  return absl::OkStatus();
}

// ---- Index reading ----------------------------------------------------------

template <typename I>
int64_t ReadIndex(const uint8_t* base, int64_t element) {
  I v;
  std::memcpy(&v, base + element * static_cast<int64_t>(sizeof(I)), sizeof(I));
  if constexpr (std::is_unsigned_v<I> && sizeof(I) == 8) {
    // Above INT64_MAX: out of bounds for every dimension.
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return std::numeric_limits<int64_t>::max();
    }
  }
  return static_cast<int64_t>(v);
}

// ---- Combiners --------------------------------------------------------------
// The toolkit's reduction operations (plugins/common/reduction_ops.h), each
// Apply(first argument, second argument) of the update computation.

using backend::AndOp;
using backend::AssignOp;
using backend::FloatAddOp;
using backend::FloatMulOp;
using backend::MaxOp;
using backend::MinOp;
using backend::OrOp;
using backend::PredAndOp;
using backend::PredOrOp;
using backend::UpdateFirst;
using backend::WrapAddOp;
using backend::WrapMulOp;

// ---- Plan -------------------------------------------------------------------

struct Plan {
  // Scatter positions: the updates' non-window dimensions (row-major), with
  // the matching strides in the updates and the indices.
  std::vector<int64_t> pos_extent, pos_upd_stride, pos_idx_stride;
  int64_t positions = 0;
  // Index vector: element k is at k * index_vector_stride and starts
  // operand dimension index_dims[k], whose start must be in
  // [0, index_bound[k]]; its output stride is index_out_stride[k].
  std::vector<int64_t> index_dims, index_bound, index_out_stride;
  int64_t index_vector_stride = 0;
  // Batching: operand dimension batch_dims[j] starts at the position's
  // coordinate batch_pos[j].
  std::vector<int64_t> batch_pos, batch_bound, batch_out_stride;
  // Some dimension with a fixed start of 0 cannot hold its window.
  bool all_skipped = false;
  // Window loops, outermost first, without size-1 dimensions; the
  // innermost has the smallest output stride.
  std::vector<int64_t> win_size, win_out_stride, win_upd_stride;
  bool empty_window = false;
};

Plan MakePlan(const ScatterDesc& d) {
  Plan p;
  const int64_t rank = static_cast<int64_t>(d.operand.dims.size());
  const int64_t idx_rank = static_cast<int64_t>(d.indices.dims.size());
  const int64_t upd_rank = static_cast<int64_t>(d.updates.dims.size());
  // Window size of each operand dimension (1 for inserted/batching ones).
  std::vector<int64_t> window_size(rank, 1);
  std::vector<int64_t> window_dims_op;
  for (int64_t i = 0; i < rank; ++i) {
    if (!Contains(d.inserted_window_dims, i) &&
        !Contains(d.input_batching_dims, i)) {
      window_dims_op.push_back(i);
    }
  }
  for (size_t k = 0; k < window_dims_op.size(); ++k) {
    window_size[window_dims_op[k]] = d.updates.dims[d.update_window_dims[k]];
  }
  std::vector<int64_t> bound(rank);
  for (int64_t i = 0; i < rank; ++i) {
    bound[i] = d.operand.dims[i] - window_size[i];
  }
  // Scatter positions.
  std::vector<int64_t> idx_batch_dims;
  for (int64_t i = 0; i < idx_rank; ++i) {
    if (i != d.index_vector_dim) idx_batch_dims.push_back(i);
  }
  size_t j = 0;
  for (int64_t i = 0; i < upd_rank; ++i) {
    if (Contains(d.update_window_dims, i)) continue;
    p.pos_extent.push_back(d.updates.dims[i]);
    p.pos_upd_stride.push_back(d.updates.strides[i]);
    p.pos_idx_stride.push_back(d.indices.strides[idx_batch_dims[j++]]);
  }
  p.positions = ElementCount(p.pos_extent);
  // Index vector.
  p.index_vector_stride =
      d.index_vector_dim < idx_rank ? d.indices.strides[d.index_vector_dim] : 0;
  for (int64_t od : d.scatter_dims_to_operand_dims) {
    p.index_dims.push_back(od);
    p.index_bound.push_back(bound[od]);
    p.index_out_stride.push_back(d.operand.strides[od]);
  }
  // Batching dimensions.
  for (size_t b = 0; b < d.input_batching_dims.size(); ++b) {
    const int64_t od = d.input_batching_dims[b];
    const auto it = std::find(idx_batch_dims.begin(), idx_batch_dims.end(),
                              d.scatter_indices_batching_dims[b]);
    p.batch_pos.push_back(it - idx_batch_dims.begin());
    p.batch_bound.push_back(bound[od]);
    p.batch_out_stride.push_back(d.operand.strides[od]);
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (!Contains(d.scatter_dims_to_operand_dims, i) &&
        !Contains(d.input_batching_dims, i) && bound[i] < 0) {
      p.all_skipped = true;
    }
  }
  // Window loops: drop size-1 dimensions, order by decreasing output stride
  // (ties: decreasing update stride), then merge neighbours that are one
  // run in both arrays.
  struct Loop {
    int64_t size, out_stride, upd_stride;
  };
  std::vector<Loop> loops;
  for (size_t k = 0; k < window_dims_op.size(); ++k) {
    const int64_t ud = d.update_window_dims[k];
    const int64_t size = d.updates.dims[ud];
    if (size == 0) p.empty_window = true;
    if (size == 1) continue;
    loops.push_back(
        {size, d.operand.strides[window_dims_op[k]], d.updates.strides[ud]});
  }
  std::stable_sort(
      loops.begin(), loops.end(), [](const Loop& a, const Loop& b) {
        const int64_t ao = std::abs(a.out_stride), bo = std::abs(b.out_stride);
        if (ao != bo) return ao > bo;
        return std::abs(a.upd_stride) > std::abs(b.upd_stride);
      });
  std::vector<Loop> merged;
  for (const Loop& l : loops) {
    if (!merged.empty()) {
      Loop& outer = merged.back();
      if (outer.out_stride == l.out_stride * l.size &&
          outer.upd_stride == l.upd_stride * l.size) {
        outer = {outer.size * l.size, l.out_stride, l.upd_stride};
        continue;
      }
    }
    merged.push_back(l);
  }
  for (const Loop& l : merged) {
    p.win_size.push_back(l.size);
    p.win_out_stride.push_back(l.out_stride);
    p.win_upd_stride.push_back(l.upd_stride);
  }
  return p;
}

// ---- Kernel -----------------------------------------------------------------

template <typename T, typename Op>
void InnerLoop(T* __restrict out, const T* __restrict upd, int64_t n,
               int64_t out_stride, int64_t upd_stride) {
  if (out_stride == 1 && upd_stride == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::Apply(out[i], upd[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) {
      T& o = out[i * out_stride];
      o = Op::Apply(o, upd[i * upd_stride]);
    }
  }
}

template <typename T, typename Op>
void ApplyWindow(const Plan& p, T* out, const T* upd,
                 std::vector<int64_t>& counter) {
  const size_t loops = p.win_size.size();
  if (loops == 0) {
    *out = Op::Apply(*out, *upd);
    return;
  }
  const size_t inner = loops - 1;
  const int64_t n = p.win_size[inner];
  const int64_t os = p.win_out_stride[inner];
  const int64_t us = p.win_upd_stride[inner];
  if (loops == 1) {
    InnerLoop<T, Op>(out, upd, n, os, us);
    return;
  }
  std::fill(counter.begin(), counter.begin() + inner, 0);
  int64_t out_off = 0, upd_off = 0;
  while (true) {
    InnerLoop<T, Op>(out + out_off, upd + upd_off, n, os, us);
    size_t k = inner;
    while (k > 0) {
      --k;
      out_off += p.win_out_stride[k];
      upd_off += p.win_upd_stride[k];
      if (++counter[k] < p.win_size[k]) break;
      out_off -= p.win_out_stride[k] * p.win_size[k];
      upd_off -= p.win_upd_stride[k] * p.win_size[k];
      counter[k] = 0;
      if (k == 0) return;
    }
  }
}

// The scatter positions are handled in chunks: first the windows that fit
// are found (a loop over the index type), then applied (a loop over the
// element type and combiner), in order.
constexpr int64_t kChunk = 256;

// Output and update element offsets of the windows of one chunk that fit.
struct Windows {
  int64_t count = 0;
  int64_t out[kChunk];
  int64_t upd[kChunk];
};

// The next scatter position (row-major) and its offsets.
struct Cursor {
  std::vector<int64_t> pos;
  int64_t next = 0;
  int64_t idx_off = 0, upd_off = 0;
};

template <typename I>
void FindWindows(const Plan& p, const uint8_t* indices, Cursor& c, Windows& w) {
  const size_t nk = p.index_dims.size();
  const size_t nb = p.batch_pos.size();
  const size_t npos = p.pos_extent.size();
  const int64_t end = std::min(p.positions, c.next + kChunk);
  w.count = 0;
  for (; c.next < end; ++c.next) {
    int64_t out_off = 0;
    bool in_bounds = true;
    for (size_t k = 0; k < nk; ++k) {
      const int64_t v = ReadIndex<I>(
          indices, c.idx_off + static_cast<int64_t>(k) * p.index_vector_stride);
      if (v < 0 || v > p.index_bound[k]) {
        in_bounds = false;
        break;
      }
      out_off += v * p.index_out_stride[k];
    }
    for (size_t b = 0; in_bounds && b < nb; ++b) {
      const int64_t v = c.pos[p.batch_pos[b]];
      if (v > p.batch_bound[b]) {
        in_bounds = false;
        break;
      }
      out_off += v * p.batch_out_stride[b];
    }
    if (in_bounds) {
      w.out[w.count] = out_off;
      w.upd[w.count] = c.upd_off;
      ++w.count;
    }
    for (size_t i = npos; i > 0; --i) {
      const size_t k = i - 1;
      c.idx_off += p.pos_idx_stride[k];
      c.upd_off += p.pos_upd_stride[k];
      if (++c.pos[k] < p.pos_extent[k]) break;
      c.idx_off -= p.pos_idx_stride[k] * p.pos_extent[k];
      c.upd_off -= p.pos_upd_stride[k] * p.pos_extent[k];
      c.pos[k] = 0;
    }
  }
}

using FindWindowsFn = void (*)(const Plan&, const uint8_t*, Cursor&, Windows&);

FindWindowsFn WindowFinder(ScatterType index_type) {
  switch (index_type) {
    case ScatterType::kS8:
      return &FindWindows<int8_t>;
    case ScatterType::kS16:
      return &FindWindows<int16_t>;
    case ScatterType::kS32:
      return &FindWindows<int32_t>;
    case ScatterType::kS64:
      return &FindWindows<int64_t>;
    case ScatterType::kU8:
      return &FindWindows<uint8_t>;
    case ScatterType::kU16:
      return &FindWindows<uint16_t>;
    case ScatterType::kU32:
      return &FindWindows<uint32_t>;
    case ScatterType::kU64:
      return &FindWindows<uint64_t>;
    default:
      return nullptr;  // rejected by ValidateScatter
  }
}

template <typename T, typename Op>
void ApplyWindows(const Plan& p, const Windows& w, void* out_buffer,
                  const void* updates, std::vector<int64_t>& counter) {
  T* out = static_cast<T*>(out_buffer);
  const T* upd = static_cast<const T*>(updates);
  if (p.win_size.empty()) {  // one element per window
    for (int64_t i = 0; i < w.count; ++i) {
      T& o = out[w.out[i]];
      o = Op::Apply(o, upd[w.upd[i]]);
    }
    return;
  }
  for (int64_t i = 0; i < w.count; ++i) {
    ApplyWindow<T, Op>(p, out + w.out[i], upd + w.upd[i], counter);
  }
}

using ApplyWindowsFn = void (*)(const Plan&, const Windows&, void*, const void*,
                                std::vector<int64_t>&);

// Integers: S is the stored type, U its unsigned twin (for the wrapping and
// bitwise combiners, whose bits do not depend on signedness).
template <typename S, typename U>
ApplyWindowsFn IntegerApplier(ScatterCombiner c) {
  switch (c) {
    case ScatterCombiner::kAssign:
      return &ApplyWindows<U, AssignOp<U>>;
    case ScatterCombiner::kAdd:
      return &ApplyWindows<U, WrapAddOp<U>>;
    case ScatterCombiner::kMultiply:
      return &ApplyWindows<U, WrapMulOp<U>>;
    case ScatterCombiner::kMax:
      return &ApplyWindows<S, MaxOp<S>>;
    case ScatterCombiner::kMin:
      return &ApplyWindows<S, MinOp<S>>;
    case ScatterCombiner::kAnd:
      return &ApplyWindows<U, AndOp<U>>;
    case ScatterCombiner::kOr:
      return &ApplyWindows<U, OrOp<U>>;
  }
  return nullptr;
}

template <typename F>
ApplyWindowsFn FloatApplier(ScatterCombiner c, bool update_first) {
  switch (c) {
    case ScatterCombiner::kAssign:
      return &ApplyWindows<F, AssignOp<F>>;
    case ScatterCombiner::kAdd:
      return &ApplyWindows<F, FloatAddOp<F>>;
    case ScatterCombiner::kMultiply:
      return &ApplyWindows<F, FloatMulOp<F>>;
    case ScatterCombiner::kMax:
      return update_first ? &ApplyWindows<F, UpdateFirst<MaxOp<F>>>
                          : &ApplyWindows<F, MaxOp<F>>;
    case ScatterCombiner::kMin:
      return update_first ? &ApplyWindows<F, UpdateFirst<MinOp<F>>>
                          : &ApplyWindows<F, MinOp<F>>;
    case ScatterCombiner::kAnd:
    case ScatterCombiner::kOr:
      return nullptr;  // rejected by ValidateScatter
  }
  return nullptr;
}

ApplyWindowsFn PredApplier(ScatterCombiner c) {
  switch (c) {
    case ScatterCombiner::kAssign:
      return &ApplyWindows<uint8_t, AssignOp<uint8_t>>;
    case ScatterCombiner::kAdd:
    case ScatterCombiner::kMax:
    case ScatterCombiner::kOr:
      return &ApplyWindows<uint8_t, PredOrOp>;
    case ScatterCombiner::kMultiply:
    case ScatterCombiner::kMin:
    case ScatterCombiner::kAnd:
      return &ApplyWindows<uint8_t, PredAndOp>;
  }
  return nullptr;
}

ApplyWindowsFn Applier(const ScatterDesc& d) {
  switch (d.element_type) {
    case ScatterType::kPred:
      return PredApplier(d.combiner);
    case ScatterType::kS8:
      return IntegerApplier<int8_t, uint8_t>(d.combiner);
    case ScatterType::kS16:
      return IntegerApplier<int16_t, uint16_t>(d.combiner);
    case ScatterType::kS32:
      return IntegerApplier<int32_t, uint32_t>(d.combiner);
    case ScatterType::kS64:
      return IntegerApplier<int64_t, uint64_t>(d.combiner);
    case ScatterType::kU8:
      return IntegerApplier<uint8_t, uint8_t>(d.combiner);
    case ScatterType::kU16:
      return IntegerApplier<uint16_t, uint16_t>(d.combiner);
    case ScatterType::kU32:
      return IntegerApplier<uint32_t, uint32_t>(d.combiner);
    case ScatterType::kU64:
      return IntegerApplier<uint64_t, uint64_t>(d.combiner);
    case ScatterType::kF32:
      return FloatApplier<float>(d.combiner, d.update_first);
    case ScatterType::kF64:
      return FloatApplier<double>(d.combiner, d.update_first);
  }
  return nullptr;
}

}  // namespace

int64_t ScatterTypeByteWidth(ScatterType type) {
  switch (type) {
    case ScatterType::kPred:
    case ScatterType::kS8:
    case ScatterType::kU8:
      return 1;
    case ScatterType::kS16:
    case ScatterType::kU16:
      return 2;
    case ScatterType::kS32:
    case ScatterType::kU32:
    case ScatterType::kF32:
      return 4;
    case ScatterType::kS64:
    case ScatterType::kU64:
    case ScatterType::kF64:
      return 8;
  }
  return 0;
}

absl::Status ValidateScatter(const ScatterDesc& d) {
  if (!IsKnownType(d.element_type)) {
    return Invalid("unknown element type ",
                   static_cast<int32_t>(d.element_type));
  }
  if (!IsIntegerType(d.index_type)) {
    return Invalid("the index type must be an integer type; got ",
                   static_cast<int32_t>(d.index_type));
  }
  const int32_t c = static_cast<int32_t>(d.combiner);
  if (c < static_cast<int32_t>(ScatterCombiner::kAssign) ||
      c > static_cast<int32_t>(ScatterCombiner::kOr)) {
    return Invalid("unknown combiner ", c);
  }
  if ((d.combiner == ScatterCombiner::kAnd ||
       d.combiner == ScatterCombiner::kOr) &&
      IsFloatType(d.element_type)) {
    return Invalid("the and/or combiners need integer or pred elements");
  }
  if (absl::Status s = ValidateArray(d.operand, "operand"); !s.ok()) return s;
  if (absl::Status s = ValidateArray(d.indices, "indices"); !s.ok()) return s;
  if (absl::Status s = ValidateArray(d.updates, "updates"); !s.ok()) return s;
  const int64_t rank = static_cast<int64_t>(d.operand.dims.size());
  const int64_t idx_rank = static_cast<int64_t>(d.indices.dims.size());
  const int64_t upd_rank = static_cast<int64_t>(d.updates.dims.size());

  if (d.index_vector_dim < 0 || d.index_vector_dim > idx_rank) {
    return Invalid("index_vector_dim ", d.index_vector_dim, " is outside [0, ",
                   idx_rank, "] for indices of rank ", idx_rank);
  }
  if (!SortedStrictly(d.update_window_dims)) {
    return Invalid("update_window_dims ", Dims(d.update_window_dims),
                   " must be sorted and unique");
  }
  for (int64_t x : d.update_window_dims) {
    if (x < 0 || x >= upd_rank) {
      return Invalid("update_window_dims entry ", x,
                     " is out of bounds for updates of rank ", upd_rank);
    }
  }
  if (!SortedStrictly(d.inserted_window_dims)) {
    return Invalid("inserted_window_dims ", Dims(d.inserted_window_dims),
                   " must be sorted and unique");
  }
  for (int64_t x : d.inserted_window_dims) {
    if (x < 0 || x >= rank) {
      return Invalid("inserted_window_dims entry ", x,
                     " is out of bounds for an operand of rank ", rank);
    }
  }
  if (!SortedStrictly(d.input_batching_dims)) {
    return Invalid("input_batching_dims ", Dims(d.input_batching_dims),
                   " must be sorted and unique");
  }
  for (int64_t x : d.input_batching_dims) {
    if (x < 0 || x >= rank) {
      return Invalid("input_batching_dims entry ", x,
                     " is out of bounds for an operand of rank ", rank);
    }
    if (Contains(d.inserted_window_dims, x)) {
      return Invalid("operand dimension ", x,
                     " is both an inserted window and a batching dimension");
    }
  }
  if (!AllUnique(d.scatter_indices_batching_dims)) {
    return Invalid("scatter_indices_batching_dims ",
                   Dims(d.scatter_indices_batching_dims),
                   " repeat a dimension");
  }
  for (int64_t x : d.scatter_indices_batching_dims) {
    if (x < 0 || x >= idx_rank) {
      return Invalid("scatter_indices_batching_dims entry ", x,
                     " is out of bounds for indices of rank ", idx_rank);
    }
    if (x == d.index_vector_dim) {
      return Invalid("index_vector_dim ", x,
                     " must not be a scatter indices batching dimension");
    }
  }
  if (d.input_batching_dims.size() != d.scatter_indices_batching_dims.size()) {
    return Invalid("input_batching_dims ", Dims(d.input_batching_dims),
                   " and scatter_indices_batching_dims ",
                   Dims(d.scatter_indices_batching_dims), " differ in length");
  }
  for (size_t i = 0; i < d.input_batching_dims.size(); ++i) {
    const int64_t od = d.input_batching_dims[i];
    const int64_t id = d.scatter_indices_batching_dims[i];
    if (d.operand.dims[od] != d.indices.dims[id]) {
      return Invalid("operand batching dimension ", od, " (size ",
                     d.operand.dims[od], ") and indices batching dimension ",
                     id, " (size ", d.indices.dims[id], ") differ in size");
    }
  }
  if (static_cast<int64_t>(d.update_window_dims.size() +
                           d.inserted_window_dims.size() +
                           d.input_batching_dims.size()) != rank) {
    return Invalid("update_window_dims ", Dims(d.update_window_dims),
                   ", inserted_window_dims ", Dims(d.inserted_window_dims),
                   " and input_batching_dims ", Dims(d.input_batching_dims),
                   " do not account for the ", rank,
                   " operand dimensions exactly");
  }
  const int64_t vector_size =
      d.index_vector_dim < idx_rank ? d.indices.dims[d.index_vector_dim] : 1;
  if (static_cast<int64_t>(d.scatter_dims_to_operand_dims.size()) !=
      vector_size) {
    return Invalid("scatter_dims_to_operand_dims ",
                   Dims(d.scatter_dims_to_operand_dims), " has ",
                   d.scatter_dims_to_operand_dims.size(),
                   " entries but the index vectors have ", vector_size);
  }
  for (int64_t x : d.scatter_dims_to_operand_dims) {
    if (x < 0 || x >= rank) {
      return Invalid("scatter_dims_to_operand_dims entry ", x,
                     " is out of bounds for an operand of rank ", rank);
    }
  }
  std::vector<int64_t> started = d.scatter_dims_to_operand_dims;
  started.insert(started.end(), d.input_batching_dims.begin(),
                 d.input_batching_dims.end());
  if (!AllUnique(started)) {
    return Invalid("scatter_dims_to_operand_dims ",
                   Dims(d.scatter_dims_to_operand_dims),
                   " and input_batching_dims ", Dims(d.input_batching_dims),
                   " repeat an operand dimension");
  }
  const int64_t batch_rank = idx_rank - (d.index_vector_dim < idx_rank ? 1 : 0);
  const int64_t want_upd_rank =
      batch_rank + static_cast<int64_t>(d.update_window_dims.size());
  if (upd_rank != want_upd_rank) {
    return Invalid("updates ", Dims(d.updates.dims), " have rank ", upd_rank,
                   "; expected ", want_upd_rank);
  }
  // Window sizes fit the operand's window dimensions (in order).
  size_t w = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (Contains(d.inserted_window_dims, i) ||
        Contains(d.input_batching_dims, i)) {
      continue;
    }
    const int64_t ud = d.update_window_dims[w++];
    if (d.updates.dims[ud] > d.operand.dims[i]) {
      return Invalid("updates window dimension ", ud, " (size ",
                     d.updates.dims[ud], ") exceeds operand dimension ", i,
                     " (size ", d.operand.dims[i], ")");
    }
  }
  // The updates' other dimensions are the indices' batch dimensions.
  int64_t id = 0;
  for (int64_t i = 0; i < upd_rank; ++i) {
    if (Contains(d.update_window_dims, i)) continue;
    if (id == d.index_vector_dim) ++id;
    if (d.updates.dims[i] != d.indices.dims[id]) {
      return Invalid("updates scatter dimension ", i, " (size ",
                     d.updates.dims[i], ") differs from indices dimension ", id,
                     " (size ", d.indices.dims[id], ")");
    }
    ++id;
  }
  return absl::OkStatus();
}

absl::Status Scatter(const ScatterDesc& d, void* out, const void* indices,
                     const void* updates) {
  if (absl::Status s = ValidateScatter(d); !s.ok()) return s;
  if ((out == nullptr && ElementCount(d.operand.dims) > 0) ||
      (indices == nullptr && ElementCount(d.indices.dims) > 0) ||
      (updates == nullptr && ElementCount(d.updates.dims) > 0)) {
    return Invalid("a null buffer for a non-empty array");
  }
  const Plan plan = MakePlan(d);
  if (plan.positions == 0 || plan.all_skipped || plan.empty_window) {
    return absl::OkStatus();
  }
  const FindWindowsFn find = WindowFinder(d.index_type);
  const ApplyWindowsFn apply = Applier(d);
  if (find == nullptr || apply == nullptr) {
    return absl::InternalError("scatter: no kernel for a valid description");
  }
  Cursor cursor;
  cursor.pos.assign(plan.pos_extent.size(), 0);
  Windows windows;
  std::vector<int64_t> counter(plan.win_size.size(), 0);
  while (cursor.next < plan.positions) {
    find(plan, static_cast<const uint8_t*>(indices), cursor, windows);
    apply(plan, windows, out, updates, counter);
  }
  return absl::OkStatus();
}

}  // namespace plexa::cpu
