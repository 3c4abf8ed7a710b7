// Resolving a custom-call instruction's target at compile time, with the
// checks every plugin makes: an unresolved target is an error naming the
// instruction, the target and where it was looked for; the target's
// api_version must be one the plugin calls (0 or 1) and match the program's
// (API_VERSION_TYPED_FFI needs a typed target). The returned target holds
// the library it came from (sdk::CustomCallTarget::library): keep it as
// long as the function may be called.
#ifndef PLEXA_PLUGINS_COMMON_CUSTOM_CALL_H_
#define PLEXA_PLUGINS_COMMON_CUSTOM_CALL_H_

#include "abi/sdk/custom_call.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/instruction.h"

namespace plexa::backend {

// `plugin` names the plugin in messages ("the CPU plugin").
absl::StatusOr<sdk::CustomCallTarget> ResolveCustomCallTarget(
    const Instruction& h, const sdk::CustomCallResolver& resolver,
    absl::string_view plugin);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_CUSTOM_CALL_H_
