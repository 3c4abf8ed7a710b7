// Asynchronous execution with explicit dependencies (ABI 1.2), the SDK's
// part: what every SDK plugin gets without writing it.
//
//  - BufferSlot: the SDK's side of one PLX_Buffer. It holds the plugin's
//    Buffer (or, for the output of work queued behind pending dependencies,
//    nothing yet), the buffer's ready event, and the count of pending work
//    that reads it, so that a Delete or Destroy frees the memory only when
//    the producer and every consumer are done. It also knows whether the
//    buffer was donated to an execution (any later use is an error).
//  - WorkQueue: one per client. A call whose dependencies (wait events,
//    the ready events of the buffers it reads) are pending is queued here
//    and runs on the queue's thread once they are all ready, so that the
//    host thread never waits for them. Calls whose dependencies are ready
//    run at once, on the caller's thread, exactly as in ABI 1.1.
#ifndef PLEXA_ABI_SDK_ASYNC_WORK_H_
#define PLEXA_ABI_SDK_ASYNC_WORK_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "abi/sdk/event.h"
#include "abi/sdk/plugin.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/shape/shape.h"

namespace plexa::sdk {

using EventList = std::vector<std::shared_ptr<Event>>;

// True when every event is ready.
bool AllReady(absl::Span<const std::shared_ptr<Event>> events);
// The first error among the events that are ready; OK if none.
absl::Status FirstError(absl::Span<const std::shared_ptr<Event>> events);
// Sets `to` with `from`'s status when `from` is ready.
void Forward(const std::shared_ptr<Event>& from, std::shared_ptr<Event> to);
// An event that becomes ready when every one of `events` is, carrying the
// first error among them (by position).
std::shared_ptr<Event> JoinEvents(const EventList& events);

class BufferSlot : public std::enable_shared_from_this<BufferSlot> {
 public:
  // A buffer the plugin made (its ready event is the buffer's).
  static std::shared_ptr<BufferSlot> Wrap(std::unique_ptr<Buffer> impl);
  // A buffer whose contents will come from queued work: Fulfil gives it.
  // `memory`: one of device's; null: its default memory.
  static std::shared_ptr<BufferSlot> Pending(Shape shape, Device* device,
                                             Memory* memory = nullptr);
  // A buffer whose producer failed before it started (ready with `error`).
  static std::shared_ptr<BufferSlot> Failed(Shape shape, Device* device,
                                            absl::Status error);

  BufferSlot(Shape shape, Device* device, std::shared_ptr<Event> ready,
             Memory* memory = nullptr)
      : shape_(std::move(shape)),
        device_(device),
        memory_(memory != nullptr ? memory : device->default_memory()),
        ready_(std::move(ready)) {}
  // Whatever memory the plugin's buffer still holds is no longer counted.
  ~BufferSlot();

  const Shape& shape() const { return shape_; }
  Device* device() const { return device_; }
  Memory* memory() const { return memory_; }
  const std::shared_ptr<Event>& ready() const { return ready_; }
  // The plugin's buffer; null while queued work has not produced it, or
  // when that work failed. Once the ready event is ready it no longer
  // changes.
  Buffer* impl() const;

  // Completes a Pending slot with the buffer the queued work made (the
  // ready event then follows that buffer's) or with the work's error.
  void Fulfil(absl::StatusOr<std::unique_ptr<Buffer>> buffer);

  // A consumer that runs later (queued, or on a plugin thread) is pending
  // from BeginUse to EndUse; Delete waits for it.
  void BeginUse();
  void EndUse();
  // EndUse once `done` is ready.
  void EndUseWhenReady(const std::shared_ptr<Event>& done);

  // The host's PLX_Buffer_Delete: deleted from now on (IsDeleted); the
  // plugin's memory is freed once no producer or consumer is pending.
  void Delete();
  bool IsDeleted() const;
  // Donated to an execution: invalid for the host from now on.
  void MarkDonated();
  bool donated() const;
  // OK if the host may still use the contents; else FAILED_PRECONDITION
  // naming `what` and why ("deleted", "donated").
  absl::Status CheckUsable(absl::string_view what) const;

 private:
  void MaybeFree();
  // Counts the plugin's buffer in its memory (ABI 1.2 statistics) from
  // when the slot gets it until it is freed or donated.
  void Account(Buffer* impl);  // called with mu_ held
  void Unaccount();            // called with mu_ held

  const Shape shape_;
  Device* const device_;
  Memory* const memory_;
  const std::shared_ptr<Event> ready_;
  mutable std::mutex mu_;
  std::unique_ptr<Buffer> impl_;    // guarded by mu_
  int64_t uses_ = 0;                // guarded by mu_
  bool delete_requested_ = false;   // guarded by mu_
  bool donated_ = false;            // guarded by mu_
  bool freed_ = false;              // guarded by mu_
  bool free_scheduled_ = false;     // guarded by mu_
  Memory* accounted_in_ = nullptr;  // guarded by mu_
  int64_t accounted_bytes_ = 0;     // guarded by mu_
};

class WorkQueue {
 public:
  WorkQueue() = default;
  ~WorkQueue();  // Drain(), then the thread goes
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Runs work(status) on the queue's thread once every event in `after`
  // is ready; status is the first error among them, or OK. The work must
  // not block on other queued work. Work with no events to wait for runs
  // in the order it was handed over.
  void RunAfter(const EventList& after, std::function<void(absl::Status)> work);
  // Nothing scheduled or running.
  bool Idle();
  // Returns when nothing is scheduled or running any more, and whether
  // anything was. On the queue's own thread it returns false at once (the
  // work running there would wait for itself).
  bool Drain();

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> runnable_;  // guarded by mu_
  int64_t scheduled_ = 0;                       // guarded by mu_
  bool stopping_ = false;                       // guarded by mu_
  std::thread thread_;                          // started on first use
};

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_ASYNC_WORK_H_
