// VulkanDevice's submission timeline (vk_device.h): asynchronous uploads
// and downloads in staging mode complete on the device's completion thread
// once the timeline semaphore reaches their value, in submission order,
// with the device memory kept alive by the transfer; the device can be
// destroyed with transfers in flight, including by the last reference
// that a completion holds. Data are byte patterns checked byte for byte.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan {
namespace {

// A completion the test waits for.
struct Waiter {
  std::mutex mu;
  std::condition_variable cv;
  int done = 0;
  std::vector<absl::Status> statuses;
  std::vector<std::thread::id> threads;
  std::vector<int> order;
  VulkanDevice::Done Make(int id) {
    return [this, id](absl::Status s) {
      std::lock_guard<std::mutex> lock(mu);
      statuses.push_back(std::move(s));
      threads.push_back(std::this_thread::get_id());
      order.push_back(id);
      ++done;
      cv.notify_all();
    };
  }
  void Await(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done >= n; });
  }
};

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 131 + seed);
  return v;
}

class TimelineTest : public ::testing::Test {
 public:
  void SetUp() override {
    auto d = VulkanDevice::Create("", false, StagingMode::kOn);
    ASSERT_TRUE(d.ok()) << d.status();
    device_ = *std::move(d);
    ASSERT_TRUE(device_->staging());
  }
  std::shared_ptr<DeviceMemory> Alloc(size_t n) {
    auto m = device_->Allocate(n);
    EXPECT_TRUE(m.ok()) << m.status();
    return m.ok() ? std::shared_ptr<DeviceMemory>(*std::move(m)) : nullptr;
  }
  std::shared_ptr<VulkanDevice> device_;
};

TEST_F(TimelineTest, UploadsAndDownloadsCompleteOnTheCompletionThread) {
  constexpr size_t kBytes = size_t{24} << 20;  // three synchronous chunks
  const std::vector<uint8_t> in = Pattern(kBytes, 7);
  auto m = Alloc(kBytes);
  ASSERT_NE(m, nullptr);
  ASSERT_FALSE(m->mapped());
  const uint64_t before = device_->submitted();
  Waiter w;
  device_->WriteAsync(m, in.data(), w.Make(0));
  // One submission for the whole upload, whatever its size.
  EXPECT_EQ(device_->submitted(), before + 1);
  std::vector<uint8_t> out(kBytes, 0);
  // Submitted after the upload: the device runs it after the upload.
  device_->ReadAsync(m, out.data(), w.Make(1));
  EXPECT_EQ(device_->submitted(), before + 2);
  w.Await(2);
  ASSERT_TRUE(w.statuses[0].ok()) << w.statuses[0];
  ASSERT_TRUE(w.statuses[1].ok()) << w.statuses[1];
  EXPECT_EQ(w.order, (std::vector<int>{0, 1}));
  EXPECT_NE(w.threads[0], std::this_thread::get_id());
  EXPECT_EQ(w.threads[0], w.threads[1]);
  EXPECT_GE(device_->completed(), before + 2);
  EXPECT_TRUE(out == in);
  // A synchronous read sees the same bytes.
  std::vector<uint8_t> again(kBytes, 0);
  ASSERT_TRUE(device_->Read(m->data(), again.data(), kBytes).ok());
  EXPECT_TRUE(again == in);
}

TEST_F(TimelineTest, ManyTransfersInFlightCompleteInSubmissionOrder) {
  constexpr int kBuffers = 16;
  constexpr size_t kBytes = 1 << 20;
  std::vector<std::vector<uint8_t>> in, out;
  std::vector<std::shared_ptr<DeviceMemory>> mem;
  Waiter w;
  for (int i = 0; i < kBuffers; ++i) {
    in.push_back(Pattern(kBytes + i, static_cast<uint8_t>(i)));
    out.emplace_back(kBytes + i, 0);
    mem.push_back(Alloc(kBytes + i));
    ASSERT_NE(mem.back(), nullptr);
    device_->WriteAsync(mem.back(), in.back().data(), w.Make(i));
  }
  for (int i = 0; i < kBuffers; ++i) {
    device_->ReadAsync(mem[i], out[i].data(), w.Make(kBuffers + i));
  }
  // The device memory is the transfers' to keep: dropped here, freed
  // after the last one.
  mem.clear();
  w.Await(2 * kBuffers);
  for (int i = 0; i < 2 * kBuffers; ++i) {
    EXPECT_EQ(w.order[i], i);
    EXPECT_TRUE(w.statuses[i].ok()) << w.statuses[i];
  }
  for (int i = 0; i < kBuffers; ++i) EXPECT_TRUE(out[i] == in[i]) << i;
}

TEST_F(TimelineTest, TransfersFromManyThreads) {
  constexpr int kThreads = 8;
  constexpr size_t kBytes = 256 << 10;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) {
        const auto in = Pattern(kBytes, static_cast<uint8_t>(t * 4 + round));
        std::vector<uint8_t> out(kBytes, 0);
        auto m = device_->Allocate(kBytes);
        if (!m.ok()) {
          ++failures;
          return;
        }
        std::shared_ptr<DeviceMemory> shared = *std::move(m);
        Waiter w;
        device_->WriteAsync(shared, in.data(), w.Make(0));
        device_->ReadAsync(shared, out.data(), w.Make(1));
        w.Await(2);
        if (!w.statuses[0].ok() || !w.statuses[1].ok() || out != in) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(TimelineTest, MappedMemoryCompletesAtOnceOnTheCallingThread) {
  auto m = device_->Allocate(4096, MemoryPlace::kHostVisible);
  ASSERT_TRUE(m.ok()) << m.status();
  std::shared_ptr<DeviceMemory> shared = *std::move(m);
  ASSERT_TRUE(shared->mapped());
  const auto in = Pattern(4096, 3);
  const uint64_t before = device_->submitted();
  Waiter w;
  device_->WriteAsync(shared, in.data(), w.Make(0));
  ASSERT_EQ(w.done, 1);
  EXPECT_EQ(w.threads[0], std::this_thread::get_id());
  EXPECT_EQ(device_->submitted(), before);  // no device work
  std::vector<uint8_t> out(4096, 0);
  device_->ReadAsync(shared, out.data(), w.Make(1));
  ASSERT_EQ(w.done, 2);
  EXPECT_TRUE(out == in);
}

TEST_F(TimelineTest, TheDeviceGoesWithTransfersInFlight) {
  constexpr size_t kBytes = size_t{16} << 20;
  const auto in = Pattern(kBytes, 9);
  std::vector<uint8_t> out(kBytes, 0);
  Waiter w;
  {
    auto m = Alloc(kBytes);
    ASSERT_NE(m, nullptr);
    device_->WriteAsync(m, in.data(), w.Make(0));
    device_->ReadAsync(m, out.data(), w.Make(1));
  }
  // Every completion runs, with the data, before the device is gone.
  device_.reset();
  ASSERT_EQ(w.done, 2);
  EXPECT_TRUE(w.statuses[0].ok());
  EXPECT_TRUE(w.statuses[1].ok());
  EXPECT_TRUE(out == in);
}

TEST_F(TimelineTest, ACompletionMayHoldTheLastReferenceToTheDevice) {
  constexpr size_t kBytes = size_t{32} << 20;
  const auto in = Pattern(kBytes, 11);
  std::vector<uint8_t> out(kBytes, 0);
  Waiter w;
  {
    auto m = Alloc(kBytes);
    ASSERT_NE(m, nullptr);
    device_->WriteAsync(m, in.data(), w.Make(0));
    // The download's completion keeps the device; when it is the last
    // reference, the device is destroyed on its own completion thread.
    std::weak_ptr<VulkanDevice> weak = device_;
    Waiter* waiter = &w;
    VulkanDevice::Done last = waiter->Make(1);
    device_->ReadAsync(
        m, out.data(),
        [keep = device_, last = std::move(last)](absl::Status s) mutable {
          keep.reset();
          last(std::move(s));
        });
    // Memory must go before its device: the transfers hold it now.
    m.reset();
    device_.reset();
    w.Await(2);
    // Whichever thread let it go, it is gone once both completions ran
    // (give the completion thread a moment to finish destroying it).
    for (int i = 0; i < 1000 && !weak.expired(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_TRUE(weak.expired());
  }
  EXPECT_TRUE(w.statuses[0].ok());
  EXPECT_TRUE(w.statuses[1].ok());
  EXPECT_TRUE(out == in);
}

}  // namespace
}  // namespace plexa::vulkan
