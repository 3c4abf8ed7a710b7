#include "abi/sdk/event.h"

namespace plexa::sdk {

std::shared_ptr<Event> Event::Ready(absl::Status status) {
  auto e = Create();
  e->Set(std::move(status));
  return e;
}

void Event::Set(absl::Status status) {
  std::vector<std::function<void(absl::Status)>> callbacks;
  {
    absl::MutexLock lock(&mu_);
    if (ready_) return;
    ready_ = true;
    status_ = status;
    callbacks.swap(callbacks_);
  }
  for (auto& cb : callbacks) cb(status);
}

bool Event::IsReady() const {
  absl::MutexLock lock(&mu_);
  return ready_;
}

absl::Status Event::Await() const {
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(&ready_));
  return status_;
}

void Event::OnReady(std::function<void(absl::Status)> fn) {
  absl::Status status;
  {
    absl::MutexLock lock(&mu_);
    if (!ready_) {
      callbacks_.push_back(std::move(fn));
      return;
    }
    status = status_;
  }
  fn(status);
}

}  // namespace plexa::sdk
