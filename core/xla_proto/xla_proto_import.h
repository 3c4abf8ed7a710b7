// Import of XLA's binary HLO protos: HloModuleProto (XLA's serialized
// module), HloProto (what `--xla_dump_hlo_as_proto` writes as *.hlo.pb: a
// module and its buffer assignment) and HloSnapshot (a module with the
// arguments it ran on). The schema is core/xla_proto/xla_hlo.proto (XLA's
// field numbers); docs/xla_proto.md says what is read and how.
//
// The decoded module is built as Plexa IR, written as HLO text with Plexa's
// printer and read back with Plexa's HLO parser, then verified: the parser
// and the verifier are the one judge of what an instruction may be.
// Errors never abort: InvalidArgument (malformed proto, inconsistent
// module) or Unimplemented (an opcode or type Plexa does not have), with a
// message that names the computation and the instruction (name and id) and
// the proto field at fault.
#ifndef PLEXA_CORE_XLA_PROTO_XLA_PROTO_IMPORT_H_
#define PLEXA_CORE_XLA_PROTO_XLA_PROTO_IMPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

namespace plexa {

struct XlaProtoImport {
  std::unique_ptr<Module> module;
  // An HloSnapshot's arguments (in parameter order); empty otherwise.
  std::vector<Literal> arguments;
  // "HloModuleProto", "HloProto" or "HloSnapshot": what the bytes were.
  std::string kind;
};

// Reads the serialized bytes of any of the three messages (tried as
// HloSnapshot, HloProto, then HloModuleProto; the first that decodes to a
// module with computations wins).
absl::StatusOr<XlaProtoImport> ImportXlaProto(absl::string_view bytes);

// The module alone (parsed and verified).
absl::StatusOr<std::unique_ptr<Module>> ParseXlaHloProto(
    absl::string_view bytes);

// The HLO text the importer writes before Plexa's HLO parser reads it.
absl::StatusOr<std::string> XlaHloProtoToHloText(absl::string_view bytes);

// True if `data` is binary rather than text: a control character other
// than tab, newline and carriage return in its first 4 KiB (a serialized
// proto has them in its tags and lengths; HLO and MLIR text do not).
bool LooksLikeBinaryProto(absl::string_view data);

}  // namespace plexa

#endif  // PLEXA_CORE_XLA_PROTO_XLA_PROTO_IMPORT_H_
