// Printer for XLA's HLO text format. The output is canonical: printing a
// parsed module gives the same text for the same module, and parsing the
// printed text gives an equal module (tested on every program we have).
#ifndef PLEXA_CORE_TEXT_HLO_PRINTER_H_
#define PLEXA_CORE_TEXT_HLO_PRINTER_H_

#include <string>

#include "core/ir/module.h"

namespace plexa {

struct PrintOptions {
  // "add(f32[2] %a, f32[2] %b)" rather than "add(%a, %b)".
  bool print_operand_shapes = true;
  // Attributes kept verbatim (metadata, sharding, ...).
  bool print_opaque_attributes = true;
  // "%name" rather than "name".
  bool print_percent = true;
};

std::string PrintModule(const Module& module, const PrintOptions& options = {});
std::string PrintComputation(const Computation& computation,
                             const PrintOptions& options = {});
// One line: "%add.1 = f32[2]{0} add(f32[2]{0} %a, f32[2]{0} %b)".
std::string PrintInstruction(const Instruction& instruction,
                             const PrintOptions& options = {});

}  // namespace plexa

#endif  // PLEXA_CORE_TEXT_HLO_PRINTER_H_
