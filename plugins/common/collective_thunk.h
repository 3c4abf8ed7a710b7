// What every collective thunk does around its own arithmetic: find this
// device's group (a device is one replica of one partition), meet the group at
// the hub (ExecContext::hub, the rendezvous of core/runtime) with the addresses
// of its input buffers, let the subclass compute its outputs from every
// member's inputs (in process, each replica reads its peers' memory), then meet
// once more so that no member overwrites or frees its inputs before the others
// have read them. The k-th run of a collective on every member meets under one
// key (the instruction's name and k), as the evaluator keys its collectives.
#ifndef PLEXA_PLUGINS_COMMON_COLLECTIVE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_COLLECTIVE_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

class CollectiveThunk : public Thunk {
 public:
  absl::Status Run(Frame& f) const final;
  StepClass step_class() const override { return StepClass::kCollective; }

 protected:
  // `groups` are the groups of devices that meet (ExecContext::device_index()
  // numbers, from CollectiveDeviceGroups; empty: every device); `key_name`
  // (the instruction's name) keys the meetings.
  CollectiveThunk(std::string key_name,
                  std::vector<std::vector<int64_t>> groups)
      : key_name_(std::move(key_name)), groups_(std::move(groups)) {}

  // Writes this replica's outputs. `peers[k][i]` is input i of the k-th
  // member of the group (in group order); `me` is this replica's position
  // in the group. A replica alone in its group gets only its own inputs.
  virtual void Compute(Frame& f,
                       const std::vector<std::vector<const void*>>& peers,
                       int64_t me) const = 0;
  // Checks what Compute would read (run-time offsets, roots) before it
  // runs; an error skips Compute, and the member still joins the group's
  // last meeting, so that the others do not wait for it.
  virtual absl::Status Check(
      const std::vector<std::vector<const void*>>& /*peers*/,
      int64_t /*me*/) const {
    return absl::OkStatus();
  }

 private:
  std::string key_name_;
  std::vector<std::vector<int64_t>> groups_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_COLLECTIVE_THUNK_H_
