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
//
// Beyond XLA's own parser: operands may name instructions defined later in
// the computation and attributes may name computations defined later in the
// module (cycles are errors); unknown attributes are kept, not rejected.
//
// Read but not kept (Plexa has no place for them): the stack-frame index
// (FileNames ... StackFrames) between the header and the computations, a
// computation's `, execution_thread="..."`, and the layout items XLA uses
// for sparse arrays and TPU memory (D(...), #(type), *(type), SC(...),
// P(shape), M(n)). A constant XLA elided as `{...}` reads as zeros (XLA's
// parser fills it with arbitrary values).
// Refused, with a located error: the opcodes docs/opcodes.md lists as
// missing (send/recv, set-dimension-size, ...), unbounded dynamic
// dimensions (`?`), and constants over 256 MiB. Instructions written
// without a shape get the inferred one (as XLA's parser does).
#ifndef PLEXA_CORE_TEXT_HLO_PARSER_H_
#define PLEXA_CORE_TEXT_HLO_PARSER_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"

namespace plexa {

absl::StatusOr<std::unique_ptr<Module>> ParseHloModule(absl::string_view text);

// "f32[2,3]{1,0}", "(f32[], s32[2])",
// "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}"
absl::StatusOr<Shape> ParseShape(absl::string_view text);
// "(f32[2]{0}, (s32[], token[])) -> f32[2]{0}": a ProgramShape printed
// without parameter names (the ABI's Signature program_shape).
absl::StatusOr<ProgramShape> ParseProgramShape(absl::string_view text);
// "{1,0:T(8,128)(2,1)S(1)}"
absl::StatusOr<Layout> ParseLayout(absl::string_view text);
// The literal text of a constant, without its shape ("{ {1, 2}, {3, 4} }",
// "nan", "(1, {2, 3})"), read as `shape`.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text,
                                     const Shape& shape);

}  // namespace plexa

#endif  // PLEXA_CORE_TEXT_HLO_PARSER_H_
