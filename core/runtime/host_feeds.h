// Host feeds: where infeed reads and outfeed writes. What any executor
// needs (the evaluator, the CPU plugin's thunks, the ABI's host and SDK
// sides of PLX_FeedsExtension), so it lives below the evaluator.
#ifndef PLEXA_CORE_RUNTIME_HOST_FEEDS_H_
#define PLEXA_CORE_RUNTIME_HOST_FEEDS_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/literal/literal.h"

namespace plexa {

// ---- Host feed queues ---------------------------------------------------
// A FIFO of literals feeding `infeed` and collecting `outfeed`.
// Thread-safe: replicas of RunReplicated may share one queue.
class HostFeedQueue {
 public:
  HostFeedQueue() = default;
  HostFeedQueue(const HostFeedQueue&) = delete;
  HostFeedQueue& operator=(const HostFeedQueue&) = delete;

  void Push(Literal value);
  // The oldest literal, or nullopt when the queue is empty.
  std::optional<Literal> Pop();
  int64_t size() const;
  bool empty() const { return size() == 0; }

 private:
  mutable std::mutex mu_;
  std::deque<Literal> items_;
};

// ---- Host feeds ---------------------------------------------------------
// Where infeed reads and outfeed writes, as one execution sees it. The
// evaluator, the CPU plugin and the ABI's PLX_FeedsExtension (host and SDK
// sides) all speak to this interface. Implementations must be thread-safe:
// replicas call concurrently (one replica calls in program order).
class HostFeeds {
 public:
  virtual ~HostFeeds() = default;
  // The next value for the infeed instruction named `instruction` of
  // replica `replica` (with SPMD partitions: the device index, replica *
  // partitions + partition): a literal of `data_shape` (any layout; a tuple for
  // a tuple data shape). Never called for an empty-tuple data shape.
  virtual absl::StatusOr<Literal> Infeed(int64_t replica,
                                         absl::string_view instruction,
                                         const Shape& data_shape) = 0;
  // The value an outfeed instruction sends.
  virtual absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                               Literal value) = 0;
};

// HostFeeds over two queues shared by every replica (either may be null:
// reaching that kind of feed is then a FailedPrecondition error). An infeed
// checks the queued literal's shape against the instruction's.
class QueueFeeds : public HostFeeds {
 public:
  QueueFeeds(HostFeedQueue* infeed, HostFeedQueue* outfeed)
      : infeed_(infeed), outfeed_(outfeed) {}
  absl::StatusOr<Literal> Infeed(int64_t replica, absl::string_view instruction,
                                 const Shape& data_shape) override;
  absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                       Literal value) override;

 private:
  HostFeedQueue* infeed_;
  HostFeedQueue* outfeed_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_RUNTIME_HOST_FEEDS_H_
