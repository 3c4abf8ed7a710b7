// Completion events shared by plugin objects and PLX_Event handles.
#ifndef PLEXA_ABI_SDK_EVENT_H_
#define PLEXA_ABI_SDK_EVENT_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"

namespace plexa::sdk {

// A one-shot completion with a status. Thread-safe.
//
// The SDK synchronizes with std::mutex, not absl::Mutex: Debian's absl is not
// built with ThreadSanitizer annotations, so TSan cannot see absl::Mutex and
// reports every access it protects as a race (the TSan build runs
// tests/abi/concurrency_test.cc); std::mutex goes through pthread, which TSan
// intercepts.
class Event {
 public:
  static std::shared_ptr<Event> Create() { return std::make_shared<Event>(); }
  static std::shared_ptr<Event> Ready(absl::Status status = absl::OkStatus());

  // Marks the event ready; later calls are ignored. Runs callbacks.
  void Set(absl::Status status) { TrySet(std::move(status)); }
  // The same; false (and nothing changes) if the event was already ready.
  bool TrySet(absl::Status status);
  bool IsReady() const;
  // Blocks until ready; returns the carried status.
  absl::Status Await() const;
  // Runs fn(status) when ready (now, on this thread, if already ready;
  // otherwise on the thread that sets it). Safe from any thread.
  void OnReady(std::function<void(absl::Status)> fn);
  // The carried status; OK while not ready.
  absl::Status status() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable ready_cv_;
  // Guarded by mu_.
  bool ready_ = false;
  absl::Status status_;
  std::vector<std::function<void(absl::Status)>> callbacks_;
};

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_EVENT_H_
