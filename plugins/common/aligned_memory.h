// Owned, aligned host memory for backends (arenas, scratch, buffers): 64-byte
// (cache line) alignment, and for blocks of 2 MiB or more 2 MiB alignment plus
// madvise(MADV_HUGEPAGE) so packed GEMM panels and large buffers sit on
// transparent huge pages when the system allows it.
#ifndef PLEXA_PLUGINS_COMMON_ALIGNED_MEMORY_H_
#define PLEXA_PLUGINS_COMMON_ALIGNED_MEMORY_H_

#include <cstddef>

#include "absl/status/statusor.h"

namespace plexa::backend {

class AlignedMemory {
 public:
  static constexpr size_t kAlignment = 64;
  static constexpr size_t kHugePageSize = size_t{2} << 20;

  // Empty: data() == nullptr, size() == 0 (also the moved-from state).
  AlignedMemory() = default;
  // Allocates `bytes` (0 is valid and gives a non-null pointer). Terminates
  // the process with a message if the allocation fails; use Allocate() where
  // failure must be reported.
  explicit AlignedMemory(size_t bytes);
  // Like the constructor, but a failed allocation is a ResourceExhausted
  // error naming the size.
  static absl::StatusOr<AlignedMemory> Allocate(size_t bytes);

  // Makes the memory at least `bytes` (allocated, data() != nullptr): when
  // it is smaller or empty, the old block is freed first (its contents are
  // not kept; peak memory does not double) and a new one allocated. A
  // failed allocation is ResourceExhausted and leaves the object empty.
  absl::Status Reserve(size_t bytes);

  ~AlignedMemory();
  AlignedMemory(AlignedMemory&& other) noexcept;
  AlignedMemory& operator=(AlignedMemory&& other) noexcept;
  AlignedMemory(const AlignedMemory&) = delete;
  AlignedMemory& operator=(const AlignedMemory&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  size_t size() const { return size_; }

  template <typename T>
  T* as() {
    return static_cast<T*>(data_);
  }

 private:
  // Returns nullptr on failure.
  static void* AllocateRaw(size_t bytes);

  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_ALIGNED_MEMORY_H_
