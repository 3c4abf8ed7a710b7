#include "abi/sdk/event.h"

namespace plexa::sdk {

std::shared_ptr<Event> Event::Ready(absl::Status status) {
  auto e = Create();
  e->Set(std::move(status));
  return e;
}

bool Event::TrySet(absl::Status status) {
  std::vector<std::function<void(absl::Status)>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_) return false;
    ready_ = true;
    status_ = status;
    callbacks.swap(callbacks_);
  }
  ready_cv_.notify_all();
  for (auto& cb : callbacks) cb(status);
  return true;
}

absl::Status Event::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

bool Event::IsReady() const {
  std::lock_guard<std::mutex> lock(mu_);
  return ready_;
}

absl::Status Event::Await() const {
  std::unique_lock<std::mutex> lock(mu_);
  ready_cv_.wait(lock, [this] { return ready_; });
  return status_;
}

void Event::OnReady(std::function<void(absl::Status)> fn) {
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_) {
      callbacks_.push_back(std::move(fn));
      return;
    }
    status = status_;
  }
  fn(status);
}

}  // namespace plexa::sdk
