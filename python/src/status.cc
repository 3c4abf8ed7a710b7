#include "status.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace py = pybind11;

namespace plexa::python {
namespace {

// {code name: exception class}, set once by plexa/__init__.py. Leaked on
// purpose: the translator may run while the interpreter shuts down.
py::dict* error_classes = nullptr;

}  // namespace

std::string StatusCodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return "OK";
    case absl::StatusCode::kCancelled:
      return "CANCELLED";
    case absl::StatusCode::kUnknown:
      return "UNKNOWN";
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case absl::StatusCode::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case absl::StatusCode::kNotFound:
      return "NOT_FOUND";
    case absl::StatusCode::kAlreadyExists:
      return "ALREADY_EXISTS";
    case absl::StatusCode::kPermissionDenied:
      return "PERMISSION_DENIED";
    case absl::StatusCode::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case absl::StatusCode::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case absl::StatusCode::kAborted:
      return "ABORTED";
    case absl::StatusCode::kOutOfRange:
      return "OUT_OF_RANGE";
    case absl::StatusCode::kUnimplemented:
      return "UNIMPLEMENTED";
    case absl::StatusCode::kInternal:
      return "INTERNAL";
    case absl::StatusCode::kUnavailable:
      return "UNAVAILABLE";
    case absl::StatusCode::kDataLoss:
      return "DATA_LOSS";
    case absl::StatusCode::kUnauthenticated:
      return "UNAUTHENTICATED";
    default:
      return absl::StrCat("CODE_", static_cast<int>(code));
  }
}

void RegisterStatus(py::module_& m) {
  m.def(
      "_set_error_classes",
      [](py::dict classes) {
        if (error_classes == nullptr) error_classes = new py::dict();
        error_classes->clear();
        for (auto item : classes) (*error_classes)[item.first] = item.second;
      },
      "Internal: the exception class for each status code name.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const std::string code = StatusCodeName(e.status().code());
      const std::string message(e.status().message());
      py::object cls;
      if (error_classes != nullptr) {
        if (error_classes->contains(code)) {
          cls = (*error_classes)[py::str(code)];
        } else if (error_classes->contains("UNKNOWN")) {
          cls = (*error_classes)[py::str("UNKNOWN")];
        }
      }
      if (!cls) {
        PyErr_SetString(PyExc_RuntimeError,
                        absl::StrCat(code, ": ", message).c_str());
        return;
      }
      py::object error = cls(message, code);
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });
}

}  // namespace plexa::python
