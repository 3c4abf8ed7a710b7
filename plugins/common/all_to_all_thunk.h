// all-to-all across the replicas of one execution (CollectiveThunk).
// With a split dimension: every member's row-major operand cut along it
// into group-size pieces, piece i to the i-th member, the received pieces
// concatenated along it in group order. Without (the tuple form): operand i
// to the i-th member, result j from the j-th.
#ifndef PLEXA_PLUGINS_COMMON_ALL_TO_ALL_THUNK_H_
#define PLEXA_PLUGINS_COMMON_ALL_TO_ALL_THUNK_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/shape/shape.h"
#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

class AllToAllThunk : public CollectiveThunk {
 public:
  // inputs: the operands' leaves (`shapes`, row-major); outputs: the
  // result's leaves. `split_dimension`: the array form's dimension.
  AllToAllThunk(std::string name, std::vector<Shape> shapes,
                std::optional<int64_t> split_dimension,
                std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        shapes_(std::move(shapes)),
        split_dimension_(split_dimension) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  std::vector<Shape> shapes_;
  std::optional<int64_t> split_dimension_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_ALL_TO_ALL_THUNK_H_
