// plexa._plexa: the extension module of the `plexa` Python package
// (docs/python.md). The Python package (python/plexa) is the public face;
// this module holds what needs C++: the host library, the core's parser,
// printer, verifier and passes, and the builder.
#include <pybind11/pybind11.h>

#include "ir.h"
#include "plexa/plexa_c_api.h"
#include "runtime.h"
#include "status.h"

PYBIND11_MODULE(_plexa, m) {
  m.doc() = "Plexa's C++ core and host library (use the plexa package)";
  m.attr("ABI_VERSION") = pybind11::make_tuple(PLX_API_MAJOR, PLX_API_MINOR);
  plexa::python::RegisterStatus(m);
  plexa::python::RegisterIr(m);
  plexa::python::RegisterBuilder(m);
  plexa::python::RegisterRuntime(m);
}
