// The `plexa-module` program format: a Module serialized with the schema in
// core/proto/module.proto, the form in which a host hands an optimized
// module to a plugin (PLX_Client_Compile with format "plexa-module"). The
// rules of the schema (append-only fields, the format version, what a
// reader does with unknown fields and versions) are in docs/abi.md, "The
// plexa-module format".
//
// The round trip is exact: DeserializeModule(SerializeModule(m)) prints
// the same text as m and has the same computations, instructions (names,
// order, opcodes, shapes with layouts, every typed attribute, verbatim
// attributes, operands, called computations, control predecessors), roots,
// parameters, entry, entry_computation_layout and header attributes.
// Instruction unique ids are renumbered (they are not part of a module's
// meaning).
#ifndef PLEXA_CORE_PROTO_MODULE_PROTO_H_
#define PLEXA_CORE_PROTO_MODULE_PROTO_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"

namespace plexa {

// The format name in a plugin's `formats` attribute and PLX_Client_Compile.
inline constexpr char kModuleFormatName[] = "plexa-module";

// The version this build writes and the highest it reads.
inline constexpr uint32_t kModuleFormatVersion = 1;

// Serializes `module`. The module is not verified (DeserializeModule does
// that), but it must be representable: an entry computation, a root in
// every computation, no null operands, callees or constants' literals,
// operands and control predecessors in their user's computation, callees
// in the module, under 2 GiB serialized. Otherwise InvalidArgument naming
// the computation and instruction.
absl::StatusOr<std::string> SerializeModule(const Module& module);

// Decodes bytes written by SerializeModule (or any writer following the
// schema). Never crashes on malformed or hostile input: unparsable bytes,
// a missing or newer format_version, unknown opcodes or enum numbers,
// missing or unknown ids, duplicate ids or names, invalid shapes, literal
// data whose size does not match the literal's shape, cycles, a missing
// entry or root are all InvalidArgument with a message that names the
// computation and instruction (or the versions). The module is run through
// VerifyModule before it is returned; its errors are returned as they are.
absl::StatusOr<std::unique_ptr<Module>> DeserializeModule(
    absl::string_view bytes);

}  // namespace plexa

#endif  // PLEXA_CORE_PROTO_MODULE_PROTO_H_
