// plexa.Module (parse, print, verify, optimize) and the builder's bindings
// (plexa._plexa.Builder, which plexa/numpy.py wraps in numpy-like arrays).
#ifndef PLEXA_PYTHON_SRC_IR_H_
#define PLEXA_PYTHON_SRC_IR_H_

#include <pybind11/pybind11.h>

#include <memory>

#include "absl/status/statusor.h"
#include "core/ir/module.h"

namespace plexa::python {

struct PyModule {
  std::unique_ptr<Module> module;
};

// A deep copy (printed and parsed again: the printer's output is canonical
// and parses to an equal module).
absl::StatusOr<std::unique_ptr<Module>> CloneModule(const Module& module);

void RegisterIr(pybind11::module_& m);
void RegisterBuilder(pybind11::module_& m);

}  // namespace plexa::python

#endif  // PLEXA_PYTHON_SRC_IR_H_
