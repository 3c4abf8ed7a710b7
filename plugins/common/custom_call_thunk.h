// custom-call: the target's C function called on the slots' memory, in the
// original convention (api_version 0: void(void* out, const void** in),
// tuples as arrays of leaf pointers) or the typed one (api_version 1: a
// PLX_CallFrame). The thunk holds the library the target was resolved
// from, so the code stays loaded as long as the program can call it. It
// runs on host memory: a backend whose memory the host cannot address
// copies around it.
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
  CustomCallThunk(sdk::CustomCallTarget target, std::string name,
                  std::vector<int> operand_leaf_counts, bool tuple_result,
                  std::string backend_config)
      : target_(std::move(target)),
        name_(std::move(name)),
        operand_leaf_counts_(std::move(operand_leaf_counts)),
        tuple_result_(tuple_result),
        backend_config_(std::move(backend_config)) {}
  absl::Status Run(Frame& f) const override;

 private:
  // api_version 1: a PLX_CallFrame with one buffer per array leaf of the
  // operands (tuples flattened, tokens left out) and of the result, each
  // row-major with its element type and dimensions, and the instruction's
  // backend_config. A non-zero return fails the execution with the
  // target's message.
  absl::Status RunTyped(Frame& f) const;

  sdk::CustomCallTarget target_;  // holds the library it came from
  std::string name_;
  std::vector<int> operand_leaf_counts_;  // -1: an array operand
  bool tuple_result_;
  std::string backend_config_;
};

// The thunk for custom-call `h`, its target resolved now (an unresolved
// one is an error naming it; `plugin` names the plugin in messages). Its
// inputs and outputs are for the caller to set (AddRuntimeThunk does).
absl::StatusOr<std::unique_ptr<CustomCallThunk>> MakeCustomCallThunk(
    const Instruction& h, const sdk::CustomCallResolver& resolver,
    absl::string_view plugin);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_CUSTOM_CALL_THUNK_H_
