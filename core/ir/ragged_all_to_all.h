// ragged-all-to-all's updates as XLA defines them (its GPU thunk and
// RaggedAllToAllDecomposer), for the evaluator and the toolkit's thunk.
// With N group members and k = len(offsets) / N updates per peer, member s
// sends, for peer p and update j (idx = p*k + j), its input rows
// [input_offsets[idx], +send_sizes[idx]) to rows [output_offsets[idx], ...)
// of p's result: the sender's output offsets index the receiver's buffer.
// The receiver's recv_sizes[s*k + j] must equal what s sends.
#ifndef PLEXA_CORE_IR_RAGGED_ALL_TO_ALL_H_
#define PLEXA_CORE_IR_RAGGED_ALL_TO_ALL_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"

namespace plexa {

// One update a member receives: `size` rows of member `sender`'s input
// from row `from`, written at row `to` of the result.
struct RaggedUpdate {
  int64_t sender = 0;
  int64_t from = 0;
  int64_t size = 0;
  int64_t to = 0;
};

// The operands of ragged-all-to-all that hold offsets and sizes.
enum class RaggedOperand : int {
  kInputOffsets = 2,
  kSendSizes = 3,
  kOutputOffsets = 4,
  kRecvSizes = 5,
};

// The updates member `me` of a group of `members` receives, in the order
// they are applied, each checked: `offsets` (the length of each offsets
// operand) divides among the members, the receiver's recv size matches
// the send size, and the rows lie inside the sender's input
// (`input_rows(sender)`) and the receiver's `output_rows`. `value(member,
// operand, i)` reads element i of a member's offsets operand. Errors name
// the update; callers add the instruction.
absl::StatusOr<std::vector<RaggedUpdate>> RaggedUpdatesTo(
    int64_t members, int64_t offsets, int64_t me,
    const std::function<int64_t(int64_t, RaggedOperand, int64_t)>& value,
    const std::function<int64_t(int64_t)>& input_rows, int64_t output_rows);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_RAGGED_ALL_TO_ALL_H_
