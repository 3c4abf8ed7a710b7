#include "plugins/common/run_devices.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"

namespace plexa::backend {

absl::Status RunOnDevices(
    const DeviceGrid& grid,
    const std::function<absl::Status(int64_t device, ReplicaHub* hub)>& run) {
  const int64_t devices = grid.size();
  if (devices == 1) return run(0, nullptr);
  ReplicaHub hub(devices);
  std::vector<absl::Status> status(devices);
  std::vector<std::thread> threads;
  threads.reserve(devices);
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      status[d] = run(d, &hub);
      // Members still waiting for this device in a collective are released
      // (ABORTED) rather than left hanging.
      hub.MarkDone(d, !status[d].ok());
    });
  }
  for (std::thread& t : threads) t.join();
  // A device's own error before the ABORTED errors of those it released.
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < devices; ++d) {
      if (status[d].ok() || (pass == 0 && absl::IsAborted(status[d]))) {
        continue;
      }
      return absl::Status(status[d].code(), absl::StrCat(grid.Name(d), ": ",
                                                         status[d].message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace plexa::backend
