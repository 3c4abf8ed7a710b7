// Completion events shared by plugin objects and PLX_Event handles.
#ifndef PLEXA_ABI_SDK_EVENT_H_
#define PLEXA_ABI_SDK_EVENT_H_

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace plexa::sdk {

// A one-shot completion with a status. Thread-safe.
class Event {
 public:
  static std::shared_ptr<Event> Create() { return std::make_shared<Event>(); }
  static std::shared_ptr<Event> Ready(absl::Status status = absl::OkStatus());

  // Marks the event ready; later calls are ignored. Runs callbacks.
  void Set(absl::Status status);
  bool IsReady() const;
  // Blocks until ready; returns the carried status.
  absl::Status Await() const;
  // Runs fn(status) when ready (now, on this thread, if already ready).
  void OnReady(std::function<void(absl::Status)> fn);

 private:
  mutable absl::Mutex mu_;
  bool ready_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  std::vector<std::function<void(absl::Status)>> callbacks_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace plexa::sdk

#endif  // PLEXA_ABI_SDK_EVENT_H_
