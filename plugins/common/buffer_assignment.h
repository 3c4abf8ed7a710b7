// Buffer assignment for one computation's temporaries: every value gets an
// offset in one arena; a value's bytes are reused by values defined after
// its last use (linear scan over the thunk order, best fit among freed
// blocks, neighbours coalesced). The arena size is the computation's peak
// temporary memory.
#ifndef PLEXA_PLUGINS_COMMON_BUFFER_ASSIGNMENT_H_
#define PLEXA_PLUGINS_COMMON_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <vector>

namespace plexa::backend {

inline constexpr int64_t kBufferAlignment = 64;

struct LiveValue {
  int64_t bytes = 0;
  // Step that writes the value and the last step that reads it
  // (last_use >= def). Values alive at the end use a last step past
  // every thunk.
  int64_t def = 0;
  int64_t last_use = 0;
};

struct BufferAssignment {
  std::vector<int64_t> offsets;  // per value, a multiple of kBufferAlignment
  int64_t arena_bytes = 0;       // peak temporary memory
  int64_t total_bytes = 0;       // what one buffer per value would take
};

// Two values share bytes only if one's last use comes before the other's
// definition: a step's outputs never overlap its inputs.
BufferAssignment AssignBuffers(const std::vector<LiveValue>& values);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_BUFFER_ASSIGNMENT_H_
