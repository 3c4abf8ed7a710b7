// PlanMemory (vk_device.h): direct or staging, and which memory types,
// from a device's memory types as drivers report them. The properties are
// written by hand after real devices' (vulkaninfo): lavapipe, a discrete
// GPU without resizable BAR (a 256 MiB host-visible window of device
// memory), one with it, one with no host-visible device memory at all.
#include <cstdint>
#include <initializer_list>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {
namespace {

using ::testing::HasSubstr;

constexpr VkMemoryPropertyFlags L = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags V = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
constexpr VkMemoryPropertyFlags C = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags H = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
constexpr uint64_t kMiB = uint64_t{1} << 20;

struct Heap {
  uint64_t bytes;
  bool device_local;
};

// `types`: (property flags, heap index) per memory type.
VkPhysicalDeviceMemoryProperties Memory(
    std::initializer_list<Heap> heaps,
    std::initializer_list<std::pair<VkMemoryPropertyFlags, uint32_t>> types) {
  VkPhysicalDeviceMemoryProperties mp{};
  for (const Heap& h : heaps) {
    mp.memoryHeaps[mp.memoryHeapCount].size = h.bytes;
    mp.memoryHeaps[mp.memoryHeapCount].flags =
        h.device_local ? VK_MEMORY_HEAP_DEVICE_LOCAL_BIT : 0;
    ++mp.memoryHeapCount;
  }
  for (const auto& [flags, heap] : types) {
    mp.memoryTypes[mp.memoryTypeCount].propertyFlags = flags;
    mp.memoryTypes[mp.memoryTypeCount].heapIndex = heap;
    ++mp.memoryTypeCount;
  }
  return mp;
}

constexpr uint32_t kAll = ~0u;

TEST(MemoryPlanTest, LavapipeMapsItsOneMemoryTypeUnlessToldToStage) {
  const auto mp = Memory({{2048 * kMiB, true}}, {{L | V | C | H, 0}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->staging);
  EXPECT_EQ(plan->mode, "direct (device-local memory is host-visible)");
  EXPECT_EQ(plan->buffer_type, 0);
  EXPECT_EQ(plan->host_type, 0);
  auto forced = PlanMemory(mp, kAll, StagingMode::kOn);
  ASSERT_TRUE(forced.ok()) << forced.status();
  EXPECT_TRUE(forced->staging);
  EXPECT_EQ(forced->mode, "staging (option staging=1)");
  EXPECT_EQ(forced->buffer_type, 0);
}

// A discrete GPU without resizable BAR: 8 GiB of device memory, system
// memory (uncached and cached types), and a 256 MiB heap of device memory
// the host can map.
const VkPhysicalDeviceMemoryProperties kSmallBar =
    Memory({{8192 * kMiB, true}, {16384 * kMiB, false}, {256 * kMiB, true}},
           {{L, 0}, {V | C, 1}, {V | C | H, 1}, {L | V | C, 2}});

TEST(MemoryPlanTest, ASmallBarWindowMeansStaging) {
  auto plan = PlanMemory(kSmallBar, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->staging);
  EXPECT_EQ(plan->mode,
            "staging (the host-visible device-local heap is 256 MiB of "
            "8192 MiB)");
  EXPECT_EQ(plan->buffer_type, 0);  // device-local, not host-visible
  EXPECT_EQ(plan->host_type, 2);    // cached system memory for downloads
  // staging=0 maps the window.
  auto direct = PlanMemory(kSmallBar, kAll, StagingMode::kOff);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_FALSE(direct->staging);
  EXPECT_EQ(direct->buffer_type, 3);
  // A storage buffer that may not use the window's type: no device-local
  // type it may use is host-visible.
  auto no_window = PlanMemory(kSmallBar, 0b0111, StagingMode::kAuto);
  ASSERT_TRUE(no_window.ok()) << no_window.status();
  EXPECT_TRUE(no_window->staging);
  EXPECT_EQ(no_window->mode,
            "staging (no device-local memory type is host-visible)");
  EXPECT_EQ(no_window->buffer_type, 0);
}

// AMD's drivers also list device-coherent, uncached types (usable only
// with VK_AMD_device_coherent_memory's feature): never chosen.
TEST(MemoryPlanTest, DeviceCoherentAndProtectedTypesAreNeverChosen) {
  constexpr VkMemoryPropertyFlags kAmd =
      VK_MEMORY_PROPERTY_DEVICE_COHERENT_BIT_AMD |
      VK_MEMORY_PROPERTY_DEVICE_UNCACHED_BIT_AMD;
  const auto mp = Memory({{8192 * kMiB, true}, {16384 * kMiB, false}},
                         {{L | kAmd, 0},
                          {V | C | H | kAmd, 1},
                          {L, 0},
                          {L | V | C | kAmd, 0},
                          {V | C | H, 1},
                          {L | VK_MEMORY_PROPERTY_PROTECTED_BIT, 0}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->staging);
  EXPECT_EQ(plan->mode,
            "staging (no device-local memory type is host-visible)");
  EXPECT_EQ(plan->buffer_type, 2);
  EXPECT_EQ(plan->host_type, 4);
}

TEST(MemoryPlanTest, ResizableBarMapsDeviceMemory) {
  const auto mp = Memory({{8192 * kMiB, true}, {16384 * kMiB, false}},
                         {{L, 0}, {V | C, 1}, {V | C | H, 1}, {L | V | C, 0}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->staging);
  EXPECT_EQ(plan->buffer_type, 3);
  EXPECT_EQ(plan->host_type, 2);
}

TEST(MemoryPlanTest, NoHostVisibleDeviceMemoryMeansStaging) {
  const auto mp =
      Memory({{4096 * kMiB, true}, {8192 * kMiB, false}}, {{L, 0}, {V | C, 1}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->staging);
  EXPECT_EQ(plan->mode,
            "staging (no device-local memory type is host-visible)");
  EXPECT_EQ(plan->buffer_type, 0);
  EXPECT_EQ(plan->host_type, 1);
}

TEST(MemoryPlanTest, NoDeviceLocalMemoryIsDirect) {
  const auto mp = Memory({{8192 * kMiB, false}}, {{V | C, 0}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_FALSE(plan->staging);
  EXPECT_EQ(plan->mode, "direct (the device has no device-local memory)");
  EXPECT_EQ(plan->buffer_type, 0);
}

TEST(MemoryPlanTest, NoHostVisibleCoherentTypeIsAnError) {
  const auto mp =
      Memory({{4096 * kMiB, true}, {8192 * kMiB, false}}, {{L, 0}, {V | H, 1}});
  auto plan = PlanMemory(mp, kAll, StagingMode::kAuto);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(), HasSubstr("host-visible coherent"));
}

}  // namespace
}  // namespace plexa::vulkan
