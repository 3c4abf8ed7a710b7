// Errors across the Python boundary: an absl::Status that is not OK becomes
// a Python exception of the class plexa/_errors.py maps its code to
// (plexa.PlexaError and its subclasses), carrying the code's name and the
// message. C++ code throws StatusError; the translator registered by
// RegisterStatus turns it into the Python exception.
#ifndef PLEXA_PYTHON_SRC_STATUS_H_
#define PLEXA_PYTHON_SRC_STATUS_H_

#include <pybind11/pybind11.h>

#include <exception>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plexa::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(absl::Status status)
      : status_(std::move(status)), what_(status_.ToString()) {}
  const absl::Status& status() const { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  absl::Status status_;
  std::string what_;
};

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw StatusError(value.status());
  return *std::move(value);
}

// "INVALID_ARGUMENT" for absl::StatusCode::kInvalidArgument.
std::string StatusCodeName(absl::StatusCode code);

// Registers _set_error_classes (called by plexa/__init__.py with a
// {code name: class} dict) and the exception translator.
void RegisterStatus(pybind11::module_& m);

}  // namespace plexa::python

#endif  // PLEXA_PYTHON_SRC_STATUS_H_
