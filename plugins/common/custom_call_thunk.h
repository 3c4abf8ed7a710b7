// custom-call: the target's C function called on the slots' memory, in the
// original convention (api_version 0: void(void* out, const void** in),
// tuples as arrays of leaf pointers) or the typed one (api_version 1: a
// PLX_CallFrame built by sdk::CallTypedCustomCall, logging to the client's
// log). The thunk holds the library the target was resolved from, so the
// code stays loaded as long as the program can call it. It runs on host
// memory: a backend whose memory the host cannot address copies around it.
#ifndef PLEXA_PLUGINS_COMMON_CUSTOM_CALL_THUNK_H_
#define PLEXA_PLUGINS_COMMON_CUSTOM_CALL_THUNK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/status/statusor.h"
#include "core/ir/instruction.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

// void(void* out, const void** in): custom-call convention api_version 0.
using CustomCallFn = void (*)(void* out, const void** in);

class CustomCallThunk : public Thunk {
 public:
  // `typed` is set for a typed target (api_version 1), null otherwise.
  CustomCallThunk(sdk::CustomCallTarget target,
                  std::shared_ptr<const sdk::TypedCustomCall> typed,
                  std::vector<int> operand_leaf_counts, bool tuple_result)
      : target_(std::move(target)),
        typed_(std::move(typed)),
        operand_leaf_counts_(std::move(operand_leaf_counts)),
        tuple_result_(tuple_result) {}
  absl::Status Run(Frame& f) const override;
  StepClass step_class() const override { return StepClass::kCustomCall; }

 private:
  // api_version 1: a PLX_CallFrame with one buffer per array leaf of the
  // operands (tuples flattened, tokens left out) and of the result, each in
  // its slot's layout, platform and attributes from `typed_`, and the
  // execution's log (ExecContext::call_frames). A non-zero return fails the
  // execution with the target's code and message.
  absl::Status RunTyped(Frame& f) const;

  sdk::CustomCallTarget target_;  // holds the library it came from
  std::shared_ptr<const sdk::TypedCustomCall> typed_;
  std::vector<int> operand_leaf_counts_;  // -1: an array operand
  bool tuple_result_;
};

// The thunk for custom-call `h`, its target resolved now (an unresolved
// one is an error naming it; `plugin` names the plugin in messages) and a
// typed target's attributes parsed now (a malformed dictionary is an error
// naming the instruction); `platform` is what the typed frame reports. Its
// inputs and outputs are for the caller to set (AddRuntimeThunk does).
absl::StatusOr<std::unique_ptr<CustomCallThunk>> MakeCustomCallThunk(
    const Instruction& h, const sdk::CustomCallResolver& resolver,
    absl::string_view plugin, absl::string_view platform);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_CUSTOM_CALL_THUNK_H_
