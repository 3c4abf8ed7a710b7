// Helpers of the core/stablehlo tests. Test-only header.
#ifndef PLEXA_CORE_STABLEHLO_STABLEHLO_TEST_UTIL_H_
#define PLEXA_CORE_STABLEHLO_STABLEHLO_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/stablehlo/stablehlo_parser.h"
#include "core/text/hlo_printer.h"

namespace plexa::stablehlo_testing {

// A module whose @main has `args` ("%a: tensor<2xf32>, ...") and returns
// `results` ("tensor<2xf32>"), with `body` (ops and the return).
inline std::string Main(absl::string_view args, absl::string_view results,
                        absl::string_view body) {
  return absl::StrCat("module @m {\n  func.func public @main(", args, ") -> (",
                      results, ") {\n", body, "\n  }\n}\n");
}

// The instruction lines of the computation named `name` (the entry when
// empty) without operand shapes, one per line, the ROOT marker kept.
inline std::string PrintComp(const Module& module,
                             absl::string_view name = "") {
  PrintOptions options;
  options.print_operand_shapes = false;
  const Computation* c = name.empty() ? module.entry_computation()
                                      : module.GetComputationWithName(name);
  if (c == nullptr) return "<no computation>";
  std::string text = PrintComputation(*c, options);
  // Drop the header and closing brace.
  size_t first = text.find('\n');
  size_t last = text.rfind('}');
  if (first == std::string::npos || last == std::string::npos || last < first) {
    return text;
  }
  return text.substr(first + 1, last - first - 1);
}

// Imports and prints the entry; the error message on failure.
inline std::string ImportEntry(const std::string& mlir) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseStableHloModule(mlir);
  if (!m.ok()) return absl::StrCat("ERROR: ", m.status().ToString());
  return PrintComp(**m);
}

}  // namespace plexa::stablehlo_testing

#endif  // PLEXA_CORE_STABLEHLO_STABLEHLO_TEST_UTIL_H_
