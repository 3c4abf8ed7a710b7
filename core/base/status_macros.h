// The status macros every library of Plexa uses (one definition for the
// tree): early returns for absl::Status and absl::StatusOr.
//
//   PLEXA_RETURN_IF_ERROR(Verify(module));
//   PLEXA_ASSIGN_OR_RETURN(Literal value, Evaluate(instruction));
#ifndef PLEXA_CORE_BASE_STATUS_MACROS_H_
#define PLEXA_CORE_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define PLEXA_STATUS_CONCAT_INNER(a, b) a##b
#define PLEXA_STATUS_CONCAT(a, b) PLEXA_STATUS_CONCAT_INNER(a, b)

// Returns the status of `expr` from the enclosing function unless it is OK.
#define PLEXA_RETURN_IF_ERROR(expr)              \
  do {                                           \
    ::absl::Status plexa_status_macro_ = (expr); \
    if (!plexa_status_macro_.ok()) {             \
      return plexa_status_macro_;                \
    }                                            \
  } while (false)

// `lhs = value of expr` (a StatusOr), or returns its error status. `lhs`
// may declare a variable; the macro is a statement, not an expression.
#define PLEXA_ASSIGN_OR_RETURN(lhs, expr)                                     \
  PLEXA_ASSIGN_OR_RETURN_IMPL(PLEXA_STATUS_CONCAT(plexa_statusor_, __LINE__), \
                              lhs, expr)
#define PLEXA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

#endif  // PLEXA_CORE_BASE_STATUS_MACROS_H_
