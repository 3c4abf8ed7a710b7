// Facts about XLA's channel instructions (send, recv, send-done,
// recv-done) that are not typed attributes: XLA keeps the replica pairs of
// a transfer between replicas in a frontend attribute,
//   frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2}}"}
// which Plexa keeps verbatim (InstructionAttrs::opaque) and reads here.
#ifndef PLEXA_CORE_IR_CHANNELS_H_
#define PLEXA_CORE_IR_CHANNELS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/instruction.h"

namespace plexa {

inline constexpr absl::string_view kSendRecvPairsAttribute =
    "_xla_send_recv_source_target_pairs";

using SourceTargetPairs = std::vector<std::pair<int64_t, int64_t>>;

// The entries of a frontend_attributes text ({k="v", k2={...}}), in order,
// quoted values with their escapes undone; an error when the text is not a
// braced list of key="value" (or key={...}, XLA's unquoted dictionaries).
absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
ParseFrontendAttributes(absl::string_view frontend_attributes_text);

// The value of `key` in a frontend_attributes text ({k="v", k2="v2"}), its
// escapes undone; nullopt when the key is absent; an error when the text
// is not a braced list of key="value".
absl::StatusOr<std::optional<std::string>> FrontendAttribute(
    absl::string_view frontend_attributes_text, absl::string_view key);

// "{{0,1},{1,2}}" as pairs; an error names what is wrong.
absl::StatusOr<SourceTargetPairs> ParseSourceTargetPairs(absl::string_view s);

// The instruction's _xla_send_recv_source_target_pairs; nullopt without
// one. The error names the instruction.
absl::StatusOr<std::optional<SourceTargetPairs>> SendRecvSourceTargetPairs(
    const Instruction& instruction);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_CHANNELS_H_
