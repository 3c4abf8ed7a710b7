#include "plugins/common/aligned_memory.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace plexa::backend {
namespace {

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(AlignedMemoryTest, Alignment) {
  for (size_t bytes :
       {size_t{1}, size_t{63}, size_t{64}, size_t{1000}, size_t{1} << 20}) {
    AlignedMemory m(bytes);
    ASSERT_NE(m.data(), nullptr);
    EXPECT_EQ(m.size(), bytes);
    EXPECT_EQ(Address(m.data()) % 64, 0u) << bytes;
    std::memset(m.data(), 0xab, bytes);  // the whole range is writable
  }
}

TEST(AlignedMemoryTest, HugeBlocksAreHugePageAligned) {
  AlignedMemory m(size_t{3} << 20);
  EXPECT_EQ(Address(m.data()) % (size_t{2} << 20), 0u);
  std::memset(m.data(), 1, m.size());
  absl::StatusOr<AlignedMemory> f = AlignedMemory::Allocate(size_t{2} << 20);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(Address(f->data()) % (size_t{2} << 20), 0u);
}

TEST(AlignedMemoryTest, SizeZeroIsNonNull) {
  AlignedMemory m(0);
  EXPECT_NE(m.data(), nullptr);
  EXPECT_EQ(m.size(), 0u);
  absl::StatusOr<AlignedMemory> f = AlignedMemory::Allocate(0);
  ASSERT_TRUE(f.ok());
  EXPECT_NE(f->data(), nullptr);
}

TEST(AlignedMemoryTest, MoveTransfersOwnership) {
  AlignedMemory a(128);
  void* p = a.data();
  AlignedMemory b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.size(), 128u);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.size(), 0u);
  AlignedMemory c(64);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 128u);
  AlignedMemory empty;
  EXPECT_EQ(empty.data(), nullptr);
}

TEST(AlignedMemoryTest, FailureIsResourceExhausted) {
  const size_t huge = std::numeric_limits<size_t>::max() - 10;
  absl::StatusOr<AlignedMemory> m = AlignedMemory::Allocate(huge);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(m.status().message()).find(std::to_string(huge)),
            std::string::npos)
      << m.status().message();
}

TEST(AlignedMemoryTest, ReserveGrowsOnlyWhenTooSmall) {
  AlignedMemory m;
  ASSERT_TRUE(m.Reserve(0).ok());
  EXPECT_NE(m.data(), nullptr);  // empty memory is allocated even for 0
  ASSERT_TRUE(m.Reserve(256).ok());
  EXPECT_GE(m.size(), 256u);
  void* p = m.data();
  ASSERT_TRUE(m.Reserve(128).ok());  // big enough: kept
  EXPECT_EQ(m.data(), p);
  const absl::Status s = m.Reserve(std::numeric_limits<size_t>::max() - 10);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(m.data(), nullptr);  // the old block is gone, nothing new
}

}  // namespace
}  // namespace plexa::backend
