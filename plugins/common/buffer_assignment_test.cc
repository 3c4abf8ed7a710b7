// Buffer assignment on its own: reuse after the last use, best fit,
// coalescing, zero-sized values. Expected offsets are worked out by hand.
#include "plugins/common/buffer_assignment.h"

#include <vector>

#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

TEST(BufferAssignmentTest, DeadValuesAreReused) {
  // a (0..1) -> b (1..2) -> c (2..3): c reuses a; b cannot (a is read at 1).
  BufferAssignment a = AssignBuffers({{100, 0, 1}, {100, 1, 2}, {100, 2, 3}});
  EXPECT_EQ(a.offsets[0], 0);
  EXPECT_EQ(a.offsets[1], 128);
  EXPECT_EQ(a.offsets[2], 0);
  EXPECT_EQ(a.arena_bytes, 256);
  EXPECT_EQ(a.total_bytes, 384);
}

TEST(BufferAssignmentTest, LiveTogetherNeverOverlap) {
  std::vector<LiveValue> values = {
      {64, 0, 5}, {200, 1, 2}, {64, 2, 3}, {500, 3, 5}, {1, 4, 5}};
  BufferAssignment a = AssignBuffers(values);
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(a.offsets[i] % kBufferAlignment, 0);
    for (size_t j = i + 1; j < values.size(); ++j) {
      const bool overlap_in_time = values[i].def <= values[j].last_use &&
                                   values[j].def <= values[i].last_use;
      const int64_t ei = a.offsets[i] + values[i].bytes;
      const int64_t ej = a.offsets[j] + values[j].bytes;
      const bool overlap_in_space = a.offsets[i] < ej && a.offsets[j] < ei;
      EXPECT_FALSE(overlap_in_time && overlap_in_space) << i << " " << j;
    }
  }
}

TEST(BufferAssignmentTest, FreedNeighboursCoalesce) {
  // Two 64-byte values die, then a 128-byte value fits where they were.
  BufferAssignment a =
      AssignBuffers({{64, 0, 1}, {64, 0, 1}, {64, 0, 3}, {128, 2, 3}});
  EXPECT_EQ(a.offsets[3], 0);
  EXPECT_EQ(a.arena_bytes, 192);
}

TEST(BufferAssignmentTest, ZeroSizedValuesTakeNothing) {
  BufferAssignment a = AssignBuffers({{0, 0, 1}, {0, 1, 2}});
  EXPECT_EQ(a.arena_bytes, 0);
}

}  // namespace
}  // namespace plexa::backend
