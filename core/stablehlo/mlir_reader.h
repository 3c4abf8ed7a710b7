// Reader for the MLIR text JAX prints (`jax.jit(f).lower(...).as_text()`):
// `module @name attributes {...} { func.func ... }`, the generic form of
// operations (`"stablehlo.add"(%a, %b) <{...}> ({...}) {...} : (...) -> ...`)
// and the custom (pretty) forms StableHLO and chlo print, read into the
// syntax tree of mlir_ast.h. Locations (`loc(...)`, `#loc` alias lines) and
// `//` comments are skipped.
//
// The pretty forms are read by one permissive grammar rather than one
// grammar per op: after the op name come operands, `key = value` items,
// bare keywords, `[..]` suffixes, `{...}` dictionaries and `(...)` groups
// until the `:` of the type, then labelled regions (`cond {..} do {..}`,
// `reducer(%a: t, %b: t) {..}`). The op table reads what each op needs
// from what was collected.
//
// Errors are InvalidArgument statuses whose message starts with "LINE:COL: "
// (1-based). The reader never aborts on malformed text.
#ifndef PLEXA_CORE_STABLEHLO_MLIR_READER_H_
#define PLEXA_CORE_STABLEHLO_MLIR_READER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/stablehlo/mlir_ast.h"

namespace plexa::stablehlo {

absl::StatusOr<MModule> ReadMlirModule(absl::string_view text);

// One type ("tensor<2x3xf32>", "tuple<tensor<f32>, !stablehlo.token>",
// "f32") as a Plexa shape.
absl::StatusOr<Shape> ReadMlirType(absl::string_view text);

}  // namespace plexa::stablehlo

#endif  // PLEXA_CORE_STABLEHLO_MLIR_READER_H_
