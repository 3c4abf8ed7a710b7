// The Python objects over the host library (abi/host): Plugin, Client,
// Device, Buffer, Executable, Transfer. Every blocking call (compile,
// upload, execute, download, await) releases the GIL, so that custom-call
// targets written in Python (ctypes callbacks, which take the GIL) can run
// on a plugin's threads and other Python threads keep going.
#ifndef PLEXA_PYTHON_SRC_RUNTIME_H_
#define PLEXA_PYTHON_SRC_RUNTIME_H_

#include <pybind11/pybind11.h>

namespace plexa::python {

// Registers Plugin, Client, Device, Buffer, Executable and Transfer.
void RegisterRuntime(pybind11::module_& m);

}  // namespace plexa::python

#endif  // PLEXA_PYTHON_SRC_RUNTIME_H_
