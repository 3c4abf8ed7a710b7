// StableHLO import: the MLIR text JAX prints (`jax.jit(f).lower(...)
// .as_text()`, pretty or generic form, stablehlo/chlo/func dialects) as a
// Plexa Module, the same IR the HLO parser produces. docs/stablehlo.md
// lists the supported operations, what each becomes and what is refused.
//
// Errors never abort: InvalidArgument (malformed text, type errors) or
// Unimplemented (a valid op or type Plexa cannot represent), with messages
// that start with "LINE:COL: " (1-based, in the MLIR text) and name the op.
#ifndef PLEXA_CORE_STABLEHLO_STABLEHLO_PARSER_H_
#define PLEXA_CORE_STABLEHLO_STABLEHLO_PARSER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"

namespace plexa {

// Parses and verifies. The entry computation is @main, else the only
// public function.
absl::StatusOr<std::unique_ptr<Module>> ParseStableHloModule(
    absl::string_view text);

// The HLO text the importer writes before Plexa's HLO parser reads it (for
// debugging the importer; `plexa convert` prints the parsed module).
absl::StatusOr<std::string> StableHloToHloText(absl::string_view text);

// True if `text` reads as MLIR rather than HLO text: after comments and
// blank lines it starts with `module`, `func.func`, `#loc` or their generic
// spellings `"builtin.module"`, `"func.func"`.
bool LooksLikeStableHlo(absl::string_view text);

}  // namespace plexa

#endif  // PLEXA_CORE_STABLEHLO_STABLEHLO_PARSER_H_
