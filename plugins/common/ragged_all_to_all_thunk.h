// ragged-all-to-all across the devices of one execution (CollectiveThunk),
// with the updates of core/ir/ragged_all_to_all.h (XLA's semantics) applied
// to the output operand's copy. Offsets are s32 or s64; a row
// is everything after dimension 0 of a row-major array.
#ifndef PLEXA_PLUGINS_COMMON_RAGGED_ALL_TO_ALL_THUNK_H_
#define PLEXA_PLUGINS_COMMON_RAGGED_ALL_TO_ALL_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/ragged_all_to_all.h"
#include "core/shape/shape.h"
#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

class RaggedAllToAllThunk : public CollectiveThunk {
 public:
  // inputs: input, output, input_offsets, send_sizes, output_offsets,
  // recv_sizes (one leaf each); outputs: the result's one leaf.
  RaggedAllToAllThunk(std::string name, Shape input, Shape output,
                      PrimitiveType offset_type, int64_t offsets,
                      std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        input_(std::move(input)),
        output_(std::move(output)),
        offset_type_(offset_type),
        offsets_(offsets) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;
  absl::Status Check(const std::vector<std::vector<const void*>>& peers,
                     int64_t me) const override;
  // The updates this member receives, checked (core/ir/ragged_all_to_all.h).
  absl::StatusOr<std::vector<RaggedUpdate>> Updates(
      const std::vector<std::vector<const void*>>& peers, int64_t me) const;
  // Element `i` of member `s`'s offsets operand `operand` (2 to 5).
  int64_t Offset(const std::vector<std::vector<const void*>>& peers, int64_t s,
                 int operand, int64_t i) const;

  Shape input_;
  Shape output_;
  PrimitiveType offset_type_;
  int64_t offsets_;  // the length of each offsets operand
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_RAGGED_ALL_TO_ALL_THUNK_H_
