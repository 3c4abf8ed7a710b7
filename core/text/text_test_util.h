// Test helpers for core/text: structural module equality (test-only header).
//
// Printing equality alone cannot catch a printer that drops information
// (print(parse(print(m))) would still be stable), so round-trip tests
// compare the modules themselves: computations by name, instructions by
// name with opcode, shape (layouts included), typed attributes, verbatim
// attributes, operands, called computations, control predecessors and
// roots.
#ifndef PLEXA_CORE_TEXT_TEXT_TEST_UTIL_H_
#define PLEXA_CORE_TEXT_TEXT_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

namespace plexa::text_testing {

inline std::vector<std::string> Names(
    const std::vector<Instruction*>& instructions) {
  std::vector<std::string> out;
  for (const Instruction* i : instructions) out.push_back(i->name());
  return out;
}

// Empty if equal, else a description of the first difference.
inline std::string ModuleDifference(const Module& a, const Module& b) {
  if (a.name() != b.name()) {
    return absl::StrCat("module name ", a.name(), " vs ", b.name());
  }
  const auto& la = a.entry_computation_layout();
  const auto& lb = b.entry_computation_layout();
  if (la.has_value() != lb.has_value() ||
      (la && (la->parameters != lb->parameters || la->result != lb->result))) {
    return "entry_computation_layout differs";
  }
  if (a.opaque_attributes() != b.opaque_attributes()) {
    return "module attributes differ";
  }
  if (a.computation_count() != b.computation_count()) {
    return "computation count differs";
  }
  if ((a.entry_computation() == nullptr) !=
          (b.entry_computation() == nullptr) ||
      (a.entry_computation() &&
       a.entry_computation()->name() != b.entry_computation()->name())) {
    return "entry computation differs";
  }
  for (const Computation* ca : a.computations()) {
    const Computation* cb = b.GetComputationWithName(ca->name());
    if (cb == nullptr) return absl::StrCat("no computation ", ca->name());
    if (ca->instruction_count() != cb->instruction_count()) {
      return absl::StrCat("instruction count of ", ca->name());
    }
    if ((ca->root_instruction() == nullptr) !=
            (cb->root_instruction() == nullptr) ||
        (ca->root_instruction() &&
         ca->root_instruction()->name() != cb->root_instruction()->name())) {
      return absl::StrCat("root of ", ca->name());
    }
    if (ca->num_parameters() != cb->num_parameters()) {
      return absl::StrCat("parameters of ", ca->name());
    }
    for (const Instruction* ia : ca->instructions()) {
      const Instruction* ib = cb->GetInstructionWithName(ia->name());
      const std::string where = absl::StrCat(ca->name(), "/", ia->name());
      if (ib == nullptr) return absl::StrCat("no instruction ", where);
      if (ia->opcode() != ib->opcode())
        return absl::StrCat("opcode of ", where);
      if (ia->shape() != ib->shape()) {
        return absl::StrCat("shape of ", where, ": ", ia->shape().ToString(),
                            " vs ", ib->shape().ToString());
      }
      if (!ia->SameAttributesAs(*ib)) {
        return absl::StrCat("attributes of ", where);
      }
      if (ia->attrs().opaque != ib->attrs().opaque) {
        return absl::StrCat("verbatim attributes of ", where);
      }
      std::vector<std::string> oa, ob;
      for (const Instruction* o : ia->operands()) oa.push_back(o->name());
      for (const Instruction* o : ib->operands()) ob.push_back(o->name());
      if (oa != ob) return absl::StrCat("operands of ", where);
      if (Names(ia->control_predecessors()) !=
          Names(ib->control_predecessors())) {
        return absl::StrCat("control predecessors of ", where);
      }
      std::vector<std::string> ka, kb;
      for (const Computation* c : ia->called_computations()) {
        ka.push_back(c->name());
      }
      for (const Computation* c : ib->called_computations()) {
        kb.push_back(c->name());
      }
      if (ka != kb) return absl::StrCat("called computations of ", where);
    }
  }
  return "";
}

}  // namespace plexa::text_testing

#endif  // PLEXA_CORE_TEXT_TEXT_TEST_UTIL_H_
