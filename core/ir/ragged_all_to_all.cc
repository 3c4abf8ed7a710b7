#include "core/ir/ragged_all_to_all.h"

#include "absl/strings/str_cat.h"

namespace plexa {

absl::StatusOr<std::vector<RaggedUpdate>> RaggedUpdatesTo(
    int64_t members, int64_t offsets, int64_t me,
    const std::function<int64_t(int64_t, RaggedOperand, int64_t)>& value,
    const std::function<int64_t(int64_t)>& input_rows, int64_t output_rows) {
  if (members <= 0 || offsets % members != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        offsets, " offsets do not divide among ", members, " group member(s)"));
  }
  const int64_t k = offsets / members;
  std::vector<RaggedUpdate> updates;
  for (int64_t s = 0; s < members; ++s) {
    for (int64_t j = 0; j < k; ++j) {
      const int64_t idx = me * k + j;
      RaggedUpdate u;
      u.sender = s;
      u.from = value(s, RaggedOperand::kInputOffsets, idx);
      u.size = value(s, RaggedOperand::kSendSizes, idx);
      u.to = value(s, RaggedOperand::kOutputOffsets, idx);
      const int64_t expected = value(me, RaggedOperand::kRecvSizes, s * k + j);
      if (expected != u.size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "recv_sizes[", s * k + j, "] is ", expected, " but group member ",
            s, " sends ", u.size, " row(s) (its send_sizes[", idx, "])"));
      }
      const int64_t in_rows = input_rows(s);
      if (u.from < 0 || u.size < 0 || u.to < 0 || u.from + u.size > in_rows ||
          u.to + u.size > output_rows) {
        return absl::InvalidArgumentError(
            absl::StrCat("update ", idx, " of group member ", s, ": rows [",
                         u.from, ", ", u.from + u.size, ") of its ", in_rows,
                         " input rows to rows [", u.to, ", ", u.to + u.size,
                         ") of ", output_rows, " output rows is out of range"));
      }
      updates.push_back(u);
    }
  }
  return updates;
}

}  // namespace plexa
