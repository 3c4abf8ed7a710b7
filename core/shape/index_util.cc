#include "core/shape/index_util.h"

#include <limits>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/shape/layout.h"
#include "core/shape/layout_util.h"

namespace plexa {
namespace {

using Dims = absl::InlinedVector<int64_t, 8>;

// The memory image of an array is built in three steps (see index_util.h):
//  1. Physical order: the dimensions taken major-to-minor (the reverse of
//     minor_to_major), each widened to its seed-000 padded size if the
//     layout has padded_dimensions.
//  2. Tiling (XLA's tiled layout): each tile in turn rewrites the current
//     dimension list; see ApplyTile.
//  3. The resulting dimension list is laid out row-major; the total slot
//     count is rounded up to tail_padding_alignment_in_elements (seed 001).

// i-th entry of the effective minor_to_major (the shape's own if it has a
// complete one, otherwise the default {rank-1, ..., 0}).
inline int64_t MinorToMajor(const Shape& shape, int64_t i) {
  if (shape.has_layout()) {
    absl::Span<const int64_t> m2m = shape.layout().minor_to_major();
    if (static_cast<int64_t>(m2m.size()) == shape.rank()) return m2m[i];
  }
  return shape.rank() - 1 - i;
}

// Width of logical dimension d in memory: its seed-000 padded size if any.
inline int64_t PaddedSize(const Shape& shape, int64_t d) {
  const int64_t size = shape.dimensions(d);
  if (shape.has_layout()) {
    absl::Span<const int64_t> pd = shape.layout().padded_dimensions();
    if (static_cast<int64_t>(pd.size()) == shape.rank() && pd[d] > size) {
      return pd[d];
    }
  }
  return size;
}

inline bool HasTiles(const Shape& shape) {
  return shape.has_layout() && !shape.layout().tiles().empty();
}

inline int64_t CeilOfRatio(int64_t a, int64_t b) {
  return a / b + (a % b != 0 ? 1 : 0);
}

// Sizes saturate at INT64_MAX instead of overflowing (undefined behaviour):
// a shape that large is rejected by ShapeUtil::ValidateShape, but must not
// crash the code that looks at it first.
inline int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::numeric_limits<int64_t>::max();
  }
  return r;
}

// Step 1: physical (major-to-minor) padded dimensions.
Dims PhysicalDims(const Shape& shape) {
  const int64_t rank = shape.rank();
  Dims dims(rank);
  for (int64_t p = 0; p < rank; ++p) {
    dims[p] = PaddedSize(shape, MinorToMajor(shape, rank - 1 - p));
  }
  return dims;
}

// Step 2 for one tile, XLA's semantics (docs/tiled_layout.md of openxla):
//  - the tile covers the most minor tile.size() dimensions of `dims`; if it
//    has more entries than there are dimensions, the missing major
//    dimensions are taken to be of size 1;
//  - a '*' (kCombineDimension) entry merges that dimension into the next
//    more minor one (bound d_i * d_{i-1}, index e_i * d_{i-1} + e_{i-1});
//  - every remaining covered dimension d with tile size t becomes
//    (ceil(d/t), t) and the result is ordered
//      [uncovered dims..., tile counts..., tile sizes...].
// `idx` (may be null) is transformed alongside: e -> (e / t, e mod t).
void ApplyTile(absl::Span<const int64_t> tile, Dims* dims, Dims* idx) {
  const int64_t k = static_cast<int64_t>(tile.size());
  int64_t n = static_cast<int64_t>(dims->size());
  if (k > n) {
    dims->insert(dims->begin(), k - n, 1);
    if (idx != nullptr) idx->insert(idx->begin(), k - n, 0);
    n = k;
  }
  const int64_t base = n - k;
  Dims counts, sizes, count_idx, within_idx;
  int64_t acc_dim = 1, acc_idx = 0;
  bool pending = false;
  for (int64_t j = 0; j < k; ++j) {
    const int64_t d = (*dims)[base + j];
    acc_dim = SatMul(acc_dim, d);
    if (idx != nullptr) acc_idx = acc_idx * d + (*idx)[base + j];
    pending = true;
    if (tile[j] == Tile::kCombineDimension) continue;
    // Validation rejects non-positive sizes; treat them as 1 here so that
    // an unvalidated layout cannot divide by zero.
    const int64_t t = tile[j] > 0 ? tile[j] : 1;
    counts.push_back(CeilOfRatio(acc_dim, t));
    sizes.push_back(t);
    if (idx != nullptr) {
      count_idx.push_back(acc_idx / t);
      within_idx.push_back(acc_idx % t);
    }
    acc_dim = 1;
    acc_idx = 0;
    pending = false;
  }
  if (pending) {
    // A trailing '*' (invalid, rejected by validation): keep the merged
    // dimension untiled.
    counts.push_back(acc_dim);
    sizes.push_back(1);
    if (idx != nullptr) {
      count_idx.push_back(acc_idx);
      within_idx.push_back(0);
    }
  }
  dims->resize(base);
  dims->insert(dims->end(), counts.begin(), counts.end());
  dims->insert(dims->end(), sizes.begin(), sizes.end());
  if (idx != nullptr) {
    idx->resize(base);
    idx->insert(idx->end(), count_idx.begin(), count_idx.end());
    idx->insert(idx->end(), within_idx.begin(), within_idx.end());
  }
}

// Inverse of ApplyTile for one index. `pre_dims` are the dimensions before
// the tile was applied. Returns false if the index lands in padding (some
// recovered coordinate is outside its dimension).
bool UnapplyTile(absl::Span<const int64_t> tile,
                 absl::Span<const int64_t> pre_dims, Dims* idx) {
  const int64_t k = static_cast<int64_t>(tile.size());
  const int64_t n = static_cast<int64_t>(pre_dims.size());
  const int64_t ext = k > n ? k : n;
  const int64_t prepended = ext - n;
  const int64_t base = ext - k;
  Dims ext_dims(prepended, 1);
  ext_dims.insert(ext_dims.end(), pre_dims.begin(), pre_dims.end());

  // Number of tiled (count, size) pairs the forward step produced.
  int64_t m = 0;
  {
    bool pending = false;
    for (int64_t j = 0; j < k; ++j) {
      pending = true;
      if (tile[j] != Tile::kCombineDimension) {
        ++m;
        pending = false;
      }
    }
    if (pending) ++m;
  }

  bool in_bounds = true;
  Dims r(ext, 0);
  for (int64_t i = 0; i < base; ++i) r[i] = (*idx)[i];
  int64_t group = 0;
  int64_t start = 0;
  for (int64_t j = 0; j < k; ++j) {
    const bool last = (j == k - 1);
    if (tile[j] == Tile::kCombineDimension && !last) continue;
    const int64_t t =
        (tile[j] == Tile::kCombineDimension) ? 1 : (tile[j] > 0 ? tile[j] : 1);
    const int64_t count = (*idx)[base + group];
    const int64_t within = (*idx)[base + m + group];
    if (within >= t) in_bounds = false;
    int64_t combined = count * t + within;
    // Split the combined index back into the merged dimensions, most minor
    // first; the most major keeps the quotient (and so shows padding).
    for (int64_t p = j; p > start; --p) {
      const int64_t d = ext_dims[base + p];
      if (d <= 0) {
        in_bounds = false;
        r[base + p] = 0;
        continue;
      }
      r[base + p] = combined % d;
      combined /= d;
    }
    r[base + start] = combined;
    ++group;
    start = j + 1;
  }
  for (int64_t i = 0; i < ext; ++i) {
    if (r[i] < 0 || r[i] >= ext_dims[i]) in_bounds = false;
  }
  idx->assign(r.begin() + prepended, r.end());
  return in_bounds;
}

int64_t RowMajorLinear(absl::Span<const int64_t> dims,
                       absl::Span<const int64_t> idx) {
  int64_t linear = 0;
  for (size_t i = 0; i < dims.size(); ++i) linear = linear * dims[i] + idx[i];
  return linear;
}

int64_t Product(absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p = SatMul(p, d);
  return p;
}

// Element slots before tail padding (product of the final dimensions).
int64_t SlotsBeforeTailPadding(const Shape& shape) {
  Dims dims = PhysicalDims(shape);
  if (HasTiles(shape)) {
    for (const Tile& tile : shape.layout().tiles()) {
      ApplyTile(tile.dimensions(), &dims, nullptr);
    }
  }
  return Product(dims);
}

// Inverse mapping; returns false if `linear_index` is not an element slot.
// `out` receives the logical index (meaningful only when true is returned).
bool Delinearize(const Shape& shape, int64_t linear_index,
                 std::vector<int64_t>* out) {
  const int64_t rank = shape.rank();
  out->assign(rank, 0);
  if (linear_index < 0) return false;

  // Dimensions before each tiling step, and the final ones.
  std::vector<Dims> steps;
  steps.push_back(PhysicalDims(shape));
  if (HasTiles(shape)) {
    for (const Tile& tile : shape.layout().tiles()) {
      Dims next = steps.back();
      ApplyTile(tile.dimensions(), &next, nullptr);
      steps.push_back(std::move(next));
    }
  }
  const Dims& final_dims = steps.back();
  if (Product(final_dims) == 0) return false;

  bool in_bounds = true;
  Dims idx(final_dims.size(), 0);
  int64_t rest = linear_index;
  for (int64_t i = static_cast<int64_t>(final_dims.size()) - 1; i > 0; --i) {
    idx[i] = rest % final_dims[i];
    rest /= final_dims[i];
  }
  if (!final_dims.empty()) {
    idx[0] = rest;
    if (rest >= final_dims[0]) in_bounds = false;  // tail padding or beyond
  } else if (rest != 0) {
    in_bounds = false;  // a scalar has one slot
  }

  if (HasTiles(shape)) {
    absl::Span<const Tile> tiles = shape.layout().tiles();
    for (int64_t s = static_cast<int64_t>(tiles.size()) - 1; s >= 0; --s) {
      if (!UnapplyTile(tiles[s].dimensions(), steps[s], &idx)) {
        in_bounds = false;
      }
    }
  }

  // Physical (major-to-minor) -> logical, checking seed-000 padding.
  for (int64_t p = 0; p < rank; ++p) {
    const int64_t d = MinorToMajor(shape, rank - 1 - p);
    (*out)[d] = idx[p];
    if (idx[p] >= shape.dimensions(d)) in_bounds = false;
  }
  return in_bounds;
}

}  // namespace

int64_t IndexUtil::MultidimensionalIndexToLinearIndex(
    const Shape& shape, absl::Span<const int64_t> multi_index) {
  const int64_t rank = shape.rank();
  if (!HasTiles(shape)) {
    // Plain and seed-000 padded layouts: walk the dimensions from most
    // minor to most major, the stride growing by each (padded) width.
    // f32[2,3]{0,1} padded to [3,5], index {1,2}: dim 0 (minor) gives
    // 1 * 1, dim 1 gives 2 * 3 -> 7.
    int64_t linear = 0;
    int64_t scale = 1;
    for (int64_t i = 0; i < rank; ++i) {
      const int64_t d = MinorToMajor(shape, i);
      linear += multi_index[d] * scale;
      scale *= PaddedSize(shape, d);
    }
    return linear;
  }
  Dims dims = PhysicalDims(shape);
  Dims idx(rank);
  for (int64_t p = 0; p < rank; ++p) {
    idx[p] = multi_index[MinorToMajor(shape, rank - 1 - p)];
  }
  for (const Tile& tile : shape.layout().tiles()) {
    ApplyTile(tile.dimensions(), &dims, &idx);
  }
  return RowMajorLinear(dims, idx);
}

std::vector<int64_t> IndexUtil::LinearIndexToMultidimensionalIndex(
    const Shape& shape, int64_t linear_index) {
  std::vector<int64_t> out;
  Delinearize(shape, linear_index, &out);
  return out;
}

int64_t IndexUtil::BufferElementCount(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return 0;  // invalid shape: no buffer
  }
  int64_t slots = SlotsBeforeTailPadding(shape);
  if (shape.has_layout()) {
    const int64_t align = shape.layout().tail_padding_alignment_in_elements();
    if (align > 1) slots = SatMul(CeilOfRatio(slots, align), align);
  }
  return slots;
}

bool IndexUtil::IsPaddingSlot(const Shape& shape, int64_t linear_index) {
  if (linear_index < 0 || linear_index >= BufferElementCount(shape)) {
    return false;  // not a slot of the buffer at all
  }
  std::vector<int64_t> index;
  if (!Delinearize(shape, linear_index, &index)) return true;
  // Guard against any aliasing: an element slot maps back to itself.
  return MultidimensionalIndexToLinearIndex(shape, index) != linear_index;
}

bool IndexUtil::BumpIndices(const Shape& shape, absl::Span<int64_t> indices) {
  for (int64_t d = shape.rank() - 1; d >= 0; --d) {
    if (++indices[d] < shape.dimensions(d)) return true;
    indices[d] = 0;
  }
  return false;
}

std::vector<int64_t> IndexUtil::LayoutStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank(), 1);
  int64_t stride = 1;
  const Layout layout = LayoutUtil::EffectiveLayout(shape);
  for (int64_t d : layout.minor_to_major()) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

std::vector<int64_t> IndexUtil::RowMajorStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * shape.dimensions(d + 1);
  }
  return strides;
}

}  // namespace plexa
