// collective-broadcast across the replicas of one execution
// (CollectiveThunk): every member of a replica group copies the operand of
// the group's first member.
#ifndef PLEXA_PLUGINS_COMMON_COLLECTIVE_BROADCAST_THUNK_H_
#define PLEXA_PLUGINS_COMMON_COLLECTIVE_BROADCAST_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

class CollectiveBroadcastThunk : public CollectiveThunk {
 public:
  // inputs: the operand's one leaf; outputs: the result's (`bytes` each).
  CollectiveBroadcastThunk(std::string name,
                           std::vector<std::vector<int64_t>> groups,
                           int64_t bytes)
      : CollectiveThunk(std::move(name), std::move(groups)), bytes_(bytes) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  int64_t bytes_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_COLLECTIVE_BROADCAST_THUNK_H_
