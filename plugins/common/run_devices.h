// Runs one execution on every device of a grid (replicas × partitions):
// each device on its own thread, meeting at one hub for collectives; one
// device runs inline without a hub. The CPU and Vulkan plugins' executables
// use it, so they fail alike.
#ifndef PLEXA_PLUGINS_COMMON_RUN_DEVICES_H_
#define PLEXA_PLUGINS_COMMON_RUN_DEVICES_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "core/ir/collective_groups.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

// `run(device, hub)` for every device of `grid` (hub null for a single
// device). A device that fails releases the devices waiting for it at the
// hub (they fail ABORTED); the error returned is the first device's own
// error, prefixed with its name ("replica 1, partition 0: ...").
absl::Status RunOnDevices(
    const DeviceGrid& grid,
    const std::function<absl::Status(int64_t device, ReplicaHub* hub)>& run);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_RUN_DEVICES_H_
