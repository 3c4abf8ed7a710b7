#include "core/runtime/host_feeds.h"

#include <utility>

namespace plexa {

// ---- HostFeedQueue ----------------------------------------------------------

void HostFeedQueue::Push(Literal value) {
  std::lock_guard<std::mutex> lock(mu_);
  items_.push_back(std::move(value));
}

std::optional<Literal> HostFeedQueue::Pop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (items_.empty()) return std::nullopt;
  Literal front = std::move(items_.front());
  items_.pop_front();
  return front;
}

int64_t HostFeedQueue::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(items_.size());
}

absl::StatusOr<Literal> QueueFeeds::Infeed(int64_t, absl::string_view,
                                           const Shape&) {
  if (infeed_ == nullptr) {
    return absl::FailedPreconditionError("no infeed queue");
  }
  std::optional<Literal> item = infeed_->Pop();
  if (!item.has_value()) {
    return absl::FailedPreconditionError("the infeed queue is empty");
  }
  return std::move(*item);
}

absl::Status QueueFeeds::Outfeed(int64_t, absl::string_view, Literal value) {
  if (outfeed_ == nullptr) {
    return absl::FailedPreconditionError("no outfeed queue");
  }
  outfeed_->Push(std::move(value));
  return absl::OkStatus();
}

}  // namespace plexa
