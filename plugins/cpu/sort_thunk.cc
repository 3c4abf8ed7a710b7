#include "plugins/cpu/sort_thunk.h"

#include <algorithm>
#include <cstring>

#include "core/shape/shape_util.h"

namespace plexa::cpu {

absl::Status SortThunk::Run(Frame& f) const {
  const Shape& s = shapes_[0];
  const int64_t n = s.dimensions(dim_);
  const int64_t total = ShapeUtil::ElementsIn(s);
  if (total == 0) return absl::OkStatus();
  const int64_t lines = total / n;
  const size_t k = shapes_.size();
  // The other dimensions, enumerated row-major.
  std::vector<int64_t> others;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (d != dim_) others.push_back(d);
  }
  auto body = [&](int64_t lo, int64_t hi) {
    std::vector<int64_t> idx(n);
    std::vector<int64_t> base(k);
    std::vector<const void*> args(2 * k);
    for (int64_t line = lo; line < hi; ++line) {
      int64_t rest = line;
      std::fill(base.begin(), base.end(), 0);
      for (auto it = others.rbegin(); it != others.rend(); ++it) {
        const int64_t i = rest % s.dimensions(*it);
        rest /= s.dimensions(*it);
        for (size_t o = 0; o < k; ++o) base[o] += i * strides_[o][*it];
      }
      for (int64_t i = 0; i < n; ++i) idx[i] = i;
      std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        for (size_t o = 0; o < k; ++o) {
          const uint8_t* in = f.ptr[inputs[o]];
          const int64_t st = strides_[o][dim_];
          args[2 * o] = in + (base[o] + a * st) * widths_[o];
          args[2 * o + 1] = in + (base[o] + b * st) * widths_[o];
        }
        return fn_(args.data()) != 0;
      });
      for (size_t o = 0; o < k; ++o) {
        const uint8_t* in = f.ptr[inputs[o]];
        uint8_t* out = f.ptr[outputs[o]];
        const int64_t st = strides_[o][dim_];
        const int64_t w = widths_[o];
        for (int64_t i = 0; i < n; ++i) {
          std::memcpy(out + (base[o] + i * st) * w,
                      in + (base[o] + idx[i] * st) * w, w);
        }
      }
    }
  };
  PoolOf(f)->ParallelFor(lines, std::max<int64_t>(1, 4096 / n), body);
  return absl::OkStatus();
}

}  // namespace plexa::cpu
