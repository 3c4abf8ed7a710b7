// collective-permute across the replicas of one execution
// (CollectiveThunk, every replica in one meeting): a replica named as
// target in the source-target pairs copies its source's operands, any other
// writes zeros. Several operands (XLA's combined form) move together.
#ifndef PLEXA_PLUGINS_COMMON_COLLECTIVE_PERMUTE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_COLLECTIVE_PERMUTE_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

class CollectivePermuteThunk : public CollectiveThunk {
 public:
  // inputs: one leaf per operand; outputs: the result's leaves, in the same
  // order (`bytes[i]` each).
  CollectivePermuteThunk(std::string name,
                         std::vector<std::pair<int64_t, int64_t>> pairs,
                         std::vector<int64_t> bytes)
      : CollectiveThunk(std::move(name), /*groups=*/{}),
        pairs_(std::move(pairs)),
        bytes_(std::move(bytes)) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  std::vector<std::pair<int64_t, int64_t>> pairs_;
  std::vector<int64_t> bytes_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_COLLECTIVE_PERMUTE_THUNK_H_
