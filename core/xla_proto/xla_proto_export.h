// Export of a Plexa module as XLA's HloModuleProto (the inverse of
// xla_proto_import.h): computations in post order (callees first, the entry
// last), instructions in post order, ids numbered from 1, every attribute
// XLA's proto has a field for. Not written: attributes Plexa keeps
// verbatim (metadata, sharding, operand_precision, ...), the module's
// entry_computation_layout and header attributes.
#ifndef PLEXA_CORE_XLA_PROTO_XLA_PROTO_EXPORT_H_
#define PLEXA_CORE_XLA_PROTO_XLA_PROTO_EXPORT_H_

#include <string>

#include "core/ir/module.h"

namespace plexa {

// The serialized HloModuleProto.
std::string SerializeXlaHloModuleProto(const Module& module);

}  // namespace plexa

#endif  // PLEXA_CORE_XLA_PROTO_XLA_PROTO_EXPORT_H_
