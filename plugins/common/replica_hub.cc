#include "plugins/common/replica_hub.h"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace plexa::backend {

struct ReplicaHub::Impl {
  int64_t n;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::vector<const void*>> slots;
  int64_t arrived = 0;
  int64_t left = 0;
  int64_t generation = 0;
  absl::Status cancelled;
};

ReplicaHub::ReplicaHub(int64_t replica_count)
    : impl_(std::make_unique<Impl>()) {
  impl_->n = replica_count;
  impl_->slots.resize(replica_count);
}
ReplicaHub::~ReplicaHub() = default;

absl::StatusOr<std::vector<std::vector<const void*>>> ReplicaHub::Arrive(
    int64_t replica, std::vector<const void*> leaves) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  // Wait for the previous exchange to be fully left.
  m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.left == 0; });
  if (!m.cancelled.ok()) return m.cancelled;
  m.slots[replica] = std::move(leaves);
  const int64_t gen = m.generation;
  if (++m.arrived == m.n) {
    m.arrived = 0;
    m.left = m.n;
    ++m.generation;
    m.cv.notify_all();
  } else {
    m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.generation != gen; });
    if (!m.cancelled.ok()) return m.cancelled;
  }
  return m.slots;
}

absl::Status ReplicaHub::Leave() {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.mu);
  if (--m.left == 0) m.cv.notify_all();
  // Nobody may reuse the inputs until every replica has read them.
  m.cv.wait(lock, [&] { return !m.cancelled.ok() || m.left == 0; });
  return m.cancelled;
}

void ReplicaHub::Cancel(const absl::Status& status) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->cancelled.ok()) impl_->cancelled = status;
  impl_->cv.notify_all();
}

}  // namespace plexa::backend
