// sdk::WorkQueue (abi/sdk/async_work.h): the thread on which the SDK runs
// work that waits for events, and on which the Vulkan plugin runs its
// executions in the order they were issued. Order, waiting, the error
// handed on, Idle, and Drain from outside and from the queue's own thread.
#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "abi/sdk/async_work.h"
#include "abi/sdk/event.h"
#include "gtest/gtest.h"

namespace plexa::sdk {
namespace {

TEST(WorkQueueTest, WorkWithNothingToWaitForRunsInTheOrderItCame) {
  WorkQueue queue;
  std::mutex mu;
  std::vector<int> order;
  for (int i = 0; i < 200; ++i) {
    queue.RunAfter({}, [&, i](absl::Status s) {
      EXPECT_TRUE(s.ok());
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
    });
  }
  // (Whether anything was still queued when Drain came is a race: the
  // queue's thread may have run all 200 already.)
  queue.Drain();
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[i], i);
  EXPECT_TRUE(queue.Idle());
  EXPECT_FALSE(queue.Drain());  // nothing was scheduled any more
}

TEST(WorkQueueTest, WorkWaitsForItsEventsAndGetsTheFirstError) {
  WorkQueue queue;
  auto a = Event::Create();
  auto b = Event::Create();
  std::promise<absl::Status> got;
  queue.RunAfter({a, b}, [&](absl::Status s) { got.set_value(s); });
  EXPECT_FALSE(queue.Idle());
  auto result = got.get_future();
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);
  b->Set(absl::InternalError("b failed"));
  EXPECT_EQ(result.wait_for(std::chrono::milliseconds(50)),
            std::future_status::timeout);
  a->Set(absl::OkStatus());
  const absl::Status s = result.get();
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(), "b failed");
  queue.Drain();
  EXPECT_TRUE(queue.Idle());
}

TEST(WorkQueueTest, IdleIsFalseWhileWorkRunsAndDrainWaitsForIt) {
  WorkQueue queue;
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> finished{false};
  queue.RunAfter({}, [&](absl::Status) {
    started.set_value();
    released.wait();
    finished = true;
  });
  started.get_future().wait();
  EXPECT_FALSE(queue.Idle());
  std::thread drainer([&] {
    queue.Drain();
    EXPECT_TRUE(finished);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(finished);
  release.set_value();
  drainer.join();
  EXPECT_TRUE(queue.Idle());
}

TEST(WorkQueueTest, DrainSaysWhetherWorkWasScheduledOrRunning) {
  WorkQueue queue;
  EXPECT_FALSE(queue.Drain());  // nothing ever scheduled
  std::atomic<bool> finished{false};
  // Scheduled before RunAfter returns, and running for 200 ms: Drain,
  // called right after, finds it.
  queue.RunAfter({}, [&](absl::Status) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    finished = true;
  });
  EXPECT_TRUE(queue.Drain());
  EXPECT_TRUE(finished);
  EXPECT_FALSE(queue.Drain());
}

// A run that starts another run and waits for the queue (the Vulkan
// plugin's custom call that executes a program) must not wait for itself.
TEST(WorkQueueTest, DrainOnTheQueuesOwnThreadReturnsAtOnce) {
  WorkQueue queue;
  std::promise<bool> drained;
  queue.RunAfter({}, [&](absl::Status) {
    EXPECT_FALSE(queue.Idle());  // this work itself is running
    drained.set_value(queue.Drain());
  });
  EXPECT_FALSE(drained.get_future().get());
  queue.Drain();
  EXPECT_TRUE(queue.Idle());
}

TEST(WorkQueueTest, TheDestructorRunsWhatIsLeft) {
  std::atomic<int> ran{0};
  {
    WorkQueue queue;
    for (int i = 0; i < 50; ++i)
      queue.RunAfter({}, [&](absl::Status) { ++ran; });
  }
  EXPECT_EQ(ran, 50);
}

// The work's event is set on another thread while the queue is being
// destroyed: once the work is queued the queue's thread may run it and the
// destructor return, so the setting thread must be done with the queue by
// then (it notified outside the lock before: a use after free that ASan
// and TSan report here).
TEST(WorkQueueTest, AnEventSetOnAnotherThreadAsTheQueueGoes) {
  for (int i = 0; i < 200; ++i) {
    auto event = Event::Create();
    std::atomic<bool> ran{false};
    std::thread setter;
    {
      WorkQueue queue;
      queue.RunAfter({event}, [&](absl::Status s) {
        EXPECT_TRUE(s.ok());
        ran = true;
      });
      setter = std::thread([event] { event->Set(absl::OkStatus()); });
    }
    EXPECT_TRUE(ran);
    setter.join();
  }
}

}  // namespace
}  // namespace plexa::sdk
