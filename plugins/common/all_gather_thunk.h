// all-gather across the replicas of one execution (CollectiveThunk): every
// member's operand concatenated, in group order, along one dimension of
// row-major buffers.
#ifndef PLEXA_PLUGINS_COMMON_ALL_GATHER_THUNK_H_
#define PLEXA_PLUGINS_COMMON_ALL_GATHER_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/shape/shape.h"
#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

class AllGatherThunk : public CollectiveThunk {
 public:
  // inputs: the operands' leaves (`shapes`, row-major); outputs: the
  // result's leaves.
  AllGatherThunk(std::string name, std::vector<Shape> shapes, int64_t dimension,
                 std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        shapes_(std::move(shapes)),
        dimension_(dimension) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  std::vector<Shape> shapes_;
  int64_t dimension_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_ALL_GATHER_THUNK_H_
