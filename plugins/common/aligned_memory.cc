#include "plugins/common/aligned_memory.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace plexa::backend {

void* AlignedMemory::AllocateRaw(size_t bytes) {
  const size_t alignment = bytes >= kHugePageSize ? kHugePageSize : kAlignment;
  // Round up so aligned_alloc's size rule holds and a huge-page block covers
  // whole huge pages; size 0 still gets one cache line (a non-null pointer).
  if (bytes > std::numeric_limits<size_t>::max() - alignment) return nullptr;
  const size_t rounded =
      bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
  void* p = nullptr;
  if (posix_memalign(&p, alignment, rounded) != 0) return nullptr;
  if (alignment == kHugePageSize) {
    // Advisory only: failure (no THP support) leaves ordinary pages.
    madvise(p, rounded, MADV_HUGEPAGE);
  }
  return p;
}

AlignedMemory::AlignedMemory(size_t bytes) : data_(AllocateRaw(bytes)) {
  if (data_ == nullptr) {
    std::fprintf(stderr, "plexa cpu runtime: cannot allocate %zu bytes\n",
                 bytes);
    std::abort();
  }
  size_ = bytes;
}

absl::Status AlignedMemory::Reserve(size_t bytes) {
  if (data_ != nullptr && size_ >= bytes) return absl::OkStatus();
  *this = AlignedMemory();
  absl::StatusOr<AlignedMemory> m = Allocate(bytes);
  if (!m.ok()) return m.status();
  *this = *std::move(m);
  return absl::OkStatus();
}

absl::StatusOr<AlignedMemory> AlignedMemory::Allocate(size_t bytes) {
  AlignedMemory m;
  m.data_ = AllocateRaw(bytes);
  if (m.data_ == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("AlignedMemory: cannot allocate ", bytes, " bytes (",
                     bytes >> 20, " MiB)"));
  }
  m.size_ = bytes;
  return m;
}

AlignedMemory::~AlignedMemory() { std::free(data_); }

AlignedMemory::AlignedMemory(AlignedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

AlignedMemory& AlignedMemory::operator=(AlignedMemory&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace plexa::backend
