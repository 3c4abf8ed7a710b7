#include "abi/sdk/async_work.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace plexa::sdk {

bool AllReady(absl::Span<const std::shared_ptr<Event>> events) {
  for (const auto& e : events) {
    if (!e->IsReady()) return false;
  }
  return true;
}

absl::Status FirstError(absl::Span<const std::shared_ptr<Event>> events) {
  for (const auto& e : events) {
    if (!e->IsReady()) continue;
    absl::Status s = e->status();
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

void Forward(const std::shared_ptr<Event>& from, std::shared_ptr<Event> to) {
  from->OnReady(
      [to = std::move(to)](absl::Status s) { to->Set(std::move(s)); });
}

std::shared_ptr<Event> JoinEvents(const EventList& events) {
  if (events.empty()) return Event::Ready();
  if (events.size() == 1) return events[0];
  struct State {
    std::mutex mu;
    size_t left;
    std::vector<absl::Status> statuses;
  };
  auto state = std::make_shared<State>();
  state->left = events.size();
  state->statuses.resize(events.size());
  auto joined = Event::Create();
  for (size_t i = 0; i < events.size(); ++i) {
    events[i]->OnReady([state, joined, i](absl::Status s) {
      absl::Status first;
      {
        std::lock_guard<std::mutex> lock(state->mu);
        state->statuses[i] = std::move(s);
        if (--state->left != 0) return;
        for (const absl::Status& st : state->statuses) {
          if (!st.ok()) {
            first = st;
            break;
          }
        }
      }
      joined->Set(std::move(first));
    });
  }
  return joined;
}

// ---------------------------------------------------------------- BufferSlot

std::shared_ptr<BufferSlot> BufferSlot::Wrap(std::unique_ptr<Buffer> impl) {
  auto slot = std::make_shared<BufferSlot>(impl->shape(), impl->device(),
                                           impl->ready_event(), impl->memory());
  std::lock_guard<std::mutex> lock(slot->mu_);
  slot->Account(impl.get());
  slot->impl_ = std::move(impl);
  return slot;
}

BufferSlot::~BufferSlot() {
  std::lock_guard<std::mutex> lock(mu_);
  Unaccount();
}

void BufferSlot::Account(Buffer* impl) {
  accounted_in_ = impl->memory();
  accounted_bytes_ = static_cast<int64_t>(impl->on_device_size());
  accounted_in_->RecordAllocation(accounted_bytes_);
}

void BufferSlot::Unaccount() {
  if (accounted_in_ == nullptr) return;
  accounted_in_->RecordFree(accounted_bytes_);
  accounted_in_ = nullptr;
}

std::shared_ptr<BufferSlot> BufferSlot::Pending(Shape shape, Device* device,
                                                Memory* memory) {
  return std::make_shared<BufferSlot>(std::move(shape), device, Event::Create(),
                                      memory);
}

std::shared_ptr<BufferSlot> BufferSlot::Failed(Shape shape, Device* device,
                                               absl::Status error) {
  return std::make_shared<BufferSlot>(std::move(shape), device,
                                      Event::Ready(std::move(error)));
}

Buffer* BufferSlot::impl() const {
  std::lock_guard<std::mutex> lock(mu_);
  return impl_.get();
}

void BufferSlot::Fulfil(absl::StatusOr<std::unique_ptr<Buffer>> buffer) {
  if (!buffer.ok()) {
    ready_->Set(buffer.status());
    return;
  }
  std::shared_ptr<Event> produced = (*buffer)->ready_event();
  {
    std::lock_guard<std::mutex> lock(mu_);
    Account(buffer->get());
    impl_ = std::move(*buffer);
  }
  Forward(produced, ready_);
}

void BufferSlot::BeginUse() {
  std::lock_guard<std::mutex> lock(mu_);
  ++uses_;
}

void BufferSlot::EndUse() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --uses_;
  }
  MaybeFree();
}

void BufferSlot::EndUseWhenReady(const std::shared_ptr<Event>& done) {
  done->OnReady([self = shared_from_this()](absl::Status) { self->EndUse(); });
}

void BufferSlot::Delete() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    delete_requested_ = true;
  }
  MaybeFree();
}

void BufferSlot::MaybeFree() {
  Buffer* to_free = nullptr;
  bool wait_for_producer = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!delete_requested_ || freed_ || uses_ > 0) return;
    if (!ready_->IsReady()) {
      // A pending producer: free when it is done (once).
      if (free_scheduled_) return;
      free_scheduled_ = true;
      wait_for_producer = true;
    } else {
      freed_ = true;
      to_free = impl_.get();
      Unaccount();
    }
  }
  if (wait_for_producer) {
    ready_->OnReady(
        [self = shared_from_this()](absl::Status) { self->MaybeFree(); });
    return;
  }
  if (to_free != nullptr) to_free->Delete();
}

bool BufferSlot::IsDeleted() const {
  std::lock_guard<std::mutex> lock(mu_);
  return delete_requested_ || donated_ ||
         (impl_ != nullptr && impl_->IsDeleted());
}

void BufferSlot::MarkDonated() {
  std::lock_guard<std::mutex> lock(mu_);
  donated_ = true;
  // Its memory now belongs to the execution (and to the output that
  // reuses it, which is counted in its own right).
  Unaccount();
}

bool BufferSlot::donated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return donated_;
}

absl::Status BufferSlot::CheckUsable(absl::string_view what) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (donated_) {
    return absl::FailedPreconditionError(absl::StrCat(
        what,
        " was donated to an execution: a donated buffer is invalid from the "
        "moment PLX_Executable_Execute is called"));
  }
  if (delete_requested_ || (impl_ != nullptr && impl_->IsDeleted())) {
    return absl::FailedPreconditionError(absl::StrCat(what, " was deleted"));
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------- WorkQueue

WorkQueue::~WorkQueue() {
  Drain();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WorkQueue::RunAfter(const EventList& after,
                         std::function<void(absl::Status)> work) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++scheduled_;
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  JoinEvents(after)->OnReady(
      [this, work = std::move(work)](absl::Status s) mutable {
        // Notified under the lock: once the work is queued, the queue's
        // thread may run it and a Drain in the destructor return, so this
        // thread (an event's, say the device's completion thread) must not
        // touch the queue after letting go of mu_.
        std::lock_guard<std::mutex> lock(mu_);
        runnable_.push_back(
            [work = std::move(work), s = std::move(s)] { work(s); });
        cv_.notify_all();
      });
}

bool WorkQueue::Idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return scheduled_ == 0;
}

bool WorkQueue::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  if (thread_.get_id() == std::this_thread::get_id()) return false;
  const bool busy = scheduled_ > 0;
  cv_.wait(lock, [this] { return scheduled_ == 0; });
  return busy;
}

void WorkQueue::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !runnable_.empty(); });
    if (runnable_.empty()) return;  // stopping, nothing left
    std::function<void()> work = std::move(runnable_.front());
    runnable_.pop_front();
    lock.unlock();
    work();
    work = nullptr;  // what it captured goes before it counts as done
    lock.lock();
    --scheduled_;
    cv_.notify_all();
  }
}

}  // namespace plexa::sdk
