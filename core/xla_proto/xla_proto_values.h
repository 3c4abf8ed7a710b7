// Internal to core/xla_proto: XLA proto values (shapes, literals,
// instruction attributes) as Plexa values. Errors name the proto field;
// the caller adds the instruction.
#ifndef PLEXA_CORE_XLA_PROTO_XLA_PROTO_VALUES_H_
#define PLEXA_CORE_XLA_PROTO_XLA_PROTO_VALUES_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/attributes.h"
#include "core/ir/instruction.h"
#include "core/ir/opcode.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"
#include "xla_proto/xla_hlo.pb.h"

namespace plexa::xla_proto {

// `field` names the proto field in messages ("shape", "literal.shape").
absl::StatusOr<Shape> ShapeFromProto(const xla_pb::ShapeProto& proto,
                                     absl::string_view field);
absl::StatusOr<Literal> LiteralFromProto(const xla_pb::LiteralProto& proto,
                                         absl::string_view field);
// The attributes `op` interprets, from the instruction's fields.
absl::StatusOr<InstructionAttrs> AttrsFromProto(
    HloOpcode op, const xla_pb::HloInstructionProto& proto);

// The other way (the exporter): what the functions above read back.
void ShapeToProto(const Shape& shape, xla_pb::ShapeProto* proto);
void LiteralToProto(const Literal& literal, xla_pb::LiteralProto* proto);
// Every attribute of `inst` that the proto has a field for (not: operands,
// called computations, ids, name, shape).
void AttrsToProto(const Instruction& inst, xla_pb::HloInstructionProto* proto);

}  // namespace plexa::xla_proto

#endif  // PLEXA_CORE_XLA_PROTO_XLA_PROTO_VALUES_H_
