// Custom-call targets: the C calling convention, resolvers and the
// process-wide registry. What any executor needs to call a target (the
// evaluator, the CPU plugin, the SDK's resolver), so it lives below the
// evaluator.
#ifndef PLEXA_CORE_RUNTIME_CUSTOM_CALL_H_
#define PLEXA_CORE_RUNTIME_CUSTOM_CALL_H_

#include <functional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"

namespace plexa {

// ---- Custom calls -------------------------------------------------------
// The C calling convention of API_VERSION_ORIGINAL (and unspecified), as
// XLA's CPU backend and the Plexa plugins use it:
//
//   extern "C" void target(void* out, const void** in);
//
// `in[i]` is operand i's buffer, `out` the result buffer, each an array in
// the default row-major layout (or, when the custom-call carries
// operand_layout_constraints, in the constrained operand layouts and the
// custom-call's result layout). A tuple-shaped result or operand is passed
// as an array of pointers to its element buffers (recursively for nested
// tuples), as XLA CPU does.
using CustomCallTarget = void (*)(void* out, const void** in);

// Maps a target name to a function; returns nullptr if it does not know the
// name. Must be thread-safe when used with RunReplicated.
using CustomCallResolver = std::function<CustomCallTarget(absl::string_view)>;

// A custom call its embedder runs instead of a C function (a plugin's typed
// call frame, for one): it gets the evaluated operands in the default
// layout and returns the result (any layout).
using CustomCallHandler = std::function<absl::StatusOr<Literal>(
    const Instruction& call, absl::Span<const Literal* const> operands)>;

// Process-wide registry. Registering a name again replaces the previous
// target. Thread-safe.
void RegisterCustomCallTarget(absl::string_view name, CustomCallTarget target);
// nullptr if `name` was never registered. Thread-safe.
CustomCallTarget FindRegisteredCustomCallTarget(absl::string_view name);
// The resolver used when EvaluatorOptions::custom_call_resolver is empty:
// the registry first, then dlsym(RTLD_DEFAULT, name) (symbols exported by
// the process and the libraries it has loaded). Thread-safe.
CustomCallTarget DefaultCustomCallResolver(absl::string_view name);

}  // namespace plexa

#endif  // PLEXA_CORE_RUNTIME_CUSTOM_CALL_H_
