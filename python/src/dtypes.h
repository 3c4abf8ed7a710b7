// numpy dtypes <-> Plexa element types. numpy's bool, int8..int64,
// uint8..uint64, float16, float32, float64, complex64 and complex128 map
// one to one; bfloat16 and the 8-bit floats are ml_dtypes' types, used when
// that package is installed. Anything else (object, str, datetime,
// structured, non-native byte order) is INVALID_ARGUMENT naming the dtype.
#ifndef PLEXA_PYTHON_SRC_DTYPES_H_
#define PLEXA_PYTHON_SRC_DTYPES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape/primitive_type.h"

namespace plexa::python {

// `context` names the argument in errors ("argument 1").
absl::StatusOr<PrimitiveType> TypeFromDtype(const pybind11::dtype& dtype,
                                            absl::string_view context);
// UNIMPLEMENTED for bf16/f8 without ml_dtypes, and for types numpy has no
// dtype for (s4, tuple, token).
absl::StatusOr<pybind11::dtype> DtypeFromType(PrimitiveType type);

}  // namespace plexa::python

#endif  // PLEXA_PYTHON_SRC_DTYPES_H_
