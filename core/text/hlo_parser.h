// Parser for XLA's HLO text format.
//
// Accepts modules as XLA prints them: `HloModule name, attr=...`, computations
// with `ENTRY`/`ROOT`, `%`-prefixed or bare names, operands with or without
// their shapes, nested operands, every attribute of the ops in the opcode
// table, and attributes it does not interpret (metadata, sharding,
// frontend_attributes, ...) which are kept verbatim. `//` and `/* */`
// comments are skipped.
//
// Errors never abort: they are InvalidArgument statuses whose message starts
// with "LINE:COL: " (1-based) and says what was expected and what was found.
// Names are scoped per computation, as in XLA's parser.
#ifndef PLEXA_CORE_TEXT_HLO_PARSER_H_
#define PLEXA_CORE_TEXT_HLO_PARSER_H_

#include "absl/strings/string_view.h"
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"

namespace plexa {

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(absl::string_view text);

// "f32[2,3]{1,0}", "(f32[], s32[2])", "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
absl::StatusOr<Shape> ParseShape(absl::string_view text);
// "{1,0:T(8,128)(2,1)S(1)}"
absl::StatusOr<Layout> ParseLayout(absl::string_view text);
// The literal text of a constant, without its shape ("{ {1, 2}, {3, 4} }",
// "nan", "(1, {2, 3})"), read as `shape`.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text, const Shape& shape);

}  // namespace plexa

#endif  // PLEXA_CORE_TEXT_HLO_PARSER_H_
