// Comparing a backend's result with a case's expectation.
#ifndef PLEXA_TOOLS_CONFORMANCE_COMPARE_H_
#define PLEXA_TOOLS_CONFORMANCE_COMPARE_H_

#include <string>

#include "core/literal/literal.h"
#include "tools/conformance/case_file.h"

namespace plexa {

// Empty if `actual` matches `expected`: same shape ignoring layout (tuples
// element by element, tokens match tokens) and every element equal within
// `tol` (NaN matches NaN, an infinity only the same infinity, -0 matches +0
// unless tol.bits). Otherwise a description of the mismatch: the first
// differing element with its index, both values and the number of
// differing elements.
std::string CompareLiterals(const Literal& expected, const Literal& actual,
                            const Tolerance& tol);

// Empty if `actual` has the check's shape (ignoring layout) and satisfies
// it; otherwise what failed.
std::string CheckLiteral(const ValueCheck& check, const Literal& actual);

}  // namespace plexa

#endif  // PLEXA_TOOLS_CONFORMANCE_COMPARE_H_
