#include "plugins/cpu/runtime/select_and_scatter.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace plexa::cpu {
namespace {

template <typename T>
bool Keep(SelectDirection dir, T x, T c) {
  switch (dir) {
    case SelectDirection::kGe:
      return x >= c;
    case SelectDirection::kGt:
      return x > c;
    case SelectDirection::kLe:
      return x <= c;
    case SelectDirection::kLt:
      return x < c;
  }
  return true;
}

// Source positions [begin, end).
template <typename T>
void Select(const WindowSelectDesc& d, const uint8_t* operand,
            int64_t* selected, int64_t begin, int64_t end) {
  const int64_t rank = static_cast<int64_t>(d.operand.dims.size());
  auto load = [&](int64_t offset) {
    T v;
    std::memcpy(&v, operand + offset * sizeof(T), sizeof(T));
    return v;
  };
  std::vector<int64_t> s(rank, 0), w(rank, 0), best(rank, 0);
  for (int64_t k = rank - 1, rest = begin; k >= 0; --k) {
    s[k] = rest % d.source_dims[k];
    rest /= d.source_dims[k];
  }
  int64_t window_elements = 1;
  for (int64_t n : d.window_size) window_elements *= n;
  for (int64_t p = begin; p < end; ++p) {
    bool found = false;
    T best_value{};
    std::fill(w.begin(), w.end(), 0);
    for (int64_t e = 0; e < window_elements; ++e) {
      int64_t offset = 0;
      bool inside = true;
      for (int64_t k = 0; k < rank; ++k) {
        const int64_t i = s[k] * d.window_stride[k] - d.padding_low[k] + w[k];
        inside &= i >= 0 && i < d.operand.dims[k];
        offset += i * d.operand.strides[k];
      }
      if (inside) {
        const T v = load(offset);
        if (!found || !Keep(d.direction, best_value, v)) {
          found = true;
          best_value = v;
          for (int64_t k = 0; k < rank; ++k) {
            best[k] = s[k] * d.window_stride[k] - d.padding_low[k] + w[k];
          }
        }
      }
      for (int64_t k = rank - 1; k >= 0; --k) {  // next window element
        if (++w[k] < d.window_size[k]) break;
        w[k] = 0;
      }
    }
    for (int64_t k = 0; k < rank; ++k) {
      selected[p * rank + k] = found ? best[k] : -1;
    }
    for (int64_t k = rank - 1; k >= 0; --k) {  // next source position
      if (++s[k] < d.source_dims[k]) break;
      s[k] = 0;
    }
  }
}

}  // namespace

absl::Status SelectInWindows(const WindowSelectDesc& d, const void* operand,
                             int64_t* selected, ThreadPool* pool) {
  const size_t rank = d.operand.dims.size();
  if (d.operand.strides.size() != rank || d.source_dims.size() != rank ||
      d.window_size.size() != rank || d.window_stride.size() != rank ||
      d.padding_low.size() != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("select-and-scatter: the operand has rank ", rank,
                     " but the source, window or strides do not"));
  }
  for (size_t k = 0; k < rank; ++k) {
    if (d.window_size[k] < 1 || d.window_stride[k] < 1 ||
        d.source_dims[k] < 0 || d.operand.dims[k] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "select-and-scatter: bad window or size in dimension ", k));
    }
  }
  const auto* in = static_cast<const uint8_t*>(operand);
  int64_t sources = 1;
  for (int64_t n : d.source_dims) sources *= n;
  int64_t window_elements = 1;
  for (int64_t n : d.window_size) window_elements *= n;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    auto chunk = [&](int64_t begin, int64_t end) {
      Select<T>(d, in, selected, begin, end);
    };
    if (pool == nullptr) {
      chunk(0, sources);
    } else {
      pool->ParallelFor(sources, std::max<int64_t>(1, 16384 / window_elements),
                        chunk);
    }
  };
  switch (d.element_type) {
    case ScatterType::kS8:
      run(int8_t{});
      break;
    case ScatterType::kS16:
      run(int16_t{});
      break;
    case ScatterType::kS32:
      run(int32_t{});
      break;
    case ScatterType::kS64:
      run(int64_t{});
      break;
    case ScatterType::kU8:
      run(uint8_t{});
      break;
    case ScatterType::kU16:
      run(uint16_t{});
      break;
    case ScatterType::kU32:
      run(uint32_t{});
      break;
    case ScatterType::kU64:
      run(uint64_t{});
      break;
    case ScatterType::kF32:
      run(float{});
      break;
    case ScatterType::kF64:
      run(double{});
      break;
    default:
      return absl::InvalidArgumentError(
          "select-and-scatter: unsupported element type");
  }
  return absl::OkStatus();
}

}  // namespace plexa::cpu
