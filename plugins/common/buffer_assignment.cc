#include "plugins/common/buffer_assignment.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace plexa::backend {
namespace {

int64_t RoundUp(int64_t n) {
  return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

}  // namespace

BufferAssignment AssignBuffers(const std::vector<LiveValue>& values) {
  BufferAssignment out;
  out.offsets.assign(values.size(), 0);
  // Values in definition order; before allocating a value defined at step
  // t, every value whose last use is before t is dead and its block free.
  std::vector<int64_t> order(values.size());
  for (size_t i = 0; i < values.size(); ++i) order[i] = static_cast<int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return values[a].def < values[b].def;
  });
  std::vector<int64_t> by_death = order;
  std::stable_sort(by_death.begin(), by_death.end(), [&](int64_t a, int64_t b) {
    return values[a].last_use < values[b].last_use;
  });

  std::map<int64_t, int64_t> free_blocks;  // offset -> size
  int64_t top = 0;
  auto release = [&](int64_t offset, int64_t size) {
    auto next = free_blocks.lower_bound(offset);
    if (next != free_blocks.end() && offset + size == next->first) {
      size += next->second;
      next = free_blocks.erase(next);
    }
    if (next != free_blocks.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        offset = prev->first;
        size = prev->second;
        free_blocks.erase(prev);
      }
    }
    if (offset + size == top) {
      top = offset;  // the end of the arena shrinks back
      while (!free_blocks.empty()) {
        auto last = std::prev(free_blocks.end());
        if (last->first + last->second != top) break;
        top = last->first;
        free_blocks.erase(last);
      }
      return;
    }
    free_blocks[offset] = size;
  };

  size_t death = 0;
  for (int64_t v : order) {
    const LiveValue& lv = values[v];
    // Free every value whose last use is before this definition.
    while (death < by_death.size() &&
           values[by_death[death]].last_use < lv.def) {
      const int64_t d = by_death[death++];
      const int64_t size = RoundUp(values[d].bytes);
      if (size > 0) release(out.offsets[d], size);
    }
    const int64_t size = RoundUp(lv.bytes);
    out.total_bytes += size;
    if (size == 0) continue;
    // Best fit among the free blocks.
    auto best = free_blocks.end();
    for (auto it = free_blocks.begin(); it != free_blocks.end(); ++it) {
      if (it->second >= size &&
          (best == free_blocks.end() || it->second < best->second)) {
        best = it;
      }
    }
    if (best != free_blocks.end()) {
      const int64_t offset = best->first;
      const int64_t rest = best->second - size;
      free_blocks.erase(best);
      if (rest > 0) free_blocks[offset + size] = rest;
      out.offsets[v] = offset;
    } else {
      out.offsets[v] = top;
      top += size;
    }
    out.arena_bytes = std::max(out.arena_bytes, top);
  }
  return out;
}

}  // namespace plexa::backend
