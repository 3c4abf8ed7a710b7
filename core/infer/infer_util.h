// Helpers shared by the shape-inference files (not part of the contract).
#ifndef PLEXA_CORE_INFER_INFER_UTIL_H_
#define PLEXA_CORE_INFER_INFER_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/base/status_macros.h"
#include "core/ir/attributes.h"
#include "core/shape/shape.h"

namespace plexa::shape_inference::internal {

// Returns from the enclosing function if `expr` is not OK.

// InvalidArgument with the pieces concatenated.
template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// The HLO spelling of a shape (layout included when the shape has one).
inline std::string Str(const Shape& s) { return s.ToString(); }
std::string Str(absl::Span<const Shape* const> shapes);
std::string Str(const ProgramShape& p);
inline std::string Str(absl::Span<const int64_t> v) {
  return absl::StrCat("{", absl::StrJoin(v, ","), "}");
}
inline absl::string_view TypeName(PrimitiveType t) {
  return primitive_util::Name(t);
}

// "Expected array argument for <what>, but got <shape>."
absl::Status ExpectArray(const Shape& shape, absl::string_view what);
// Like ExpectArray, but allows tuples of arrays recursively (no tokens).
absl::Status ExpectArrayOrTupleOfArrays(const Shape& shape,
                                        absl::string_view what);

// An array shape without a layout. `dynamic` may be empty (all static).
Shape MakeArray(PrimitiveType type, absl::Span<const int64_t> dims,
                absl::Span<const bool> dynamic = {});
// `shape` with its layout (recursively) removed.
Shape NoLayout(Shape shape);
// `shape` (an array) with a new element type and no layout.
Shape WithType(const Shape& shape, PrimitiveType type);

// Same dimensions (sizes only; dynamism ignored); both arrays.
bool SameDims(const Shape& a, const Shape& b);
// Same element type and dimensions, layout and dynamism ignored,
// recursively for tuples (XLA's ShapeUtil::Compatible).
bool Compatible(const Shape& a, const Shape& b);
// Same element type, dimensions and dynamism, layout ignored (tuples
// recursively). What the verifier requires of declared vs inferred.
bool EqualIgnoringLayout(const Shape& a, const Shape& b);

int64_t ElementCount(const Shape& array);  // product of dimensions

bool IsFloating(PrimitiveType t);
bool IsComplex(PrimitiveType t);
bool IsIntegral(PrimitiveType t);
// Signed integers and floating point (XLA's ElementIsSigned).
bool IsSigned(PrimitiveType t);

// The dimension list is a permutation of [0, rank).
bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank);
bool AllUnique(absl::Span<const int64_t> dims);
bool IsSortedStrictly(absl::Span<const int64_t> dims);
bool Contains(absl::Span<const int64_t> dims, int64_t d);

// Checks that `reducer` has the signature a reduction over `inputs` values
// needs: 2*inputs scalar parameters (accumulators then inputs), result a
// scalar (inputs == 1) or an `inputs`-tuple of scalars; accumulator i, its
// init value and element type i agree. `op` names the operation in errors.
absl::Status VerifyReducerShape(absl::string_view op,
                                const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const PrimitiveType> input_types,
                                int64_t inputs);

// all-reduce, reduce-scatter: `to_apply` combines two scalars of each
// operand's element type into one.
absl::Status VerifyBinaryReducer(absl::string_view op,
                                 absl::Span<const Shape* const> operands,
                                 const ProgramShape& to_apply);

std::string WindowString(const Window& window);
std::string DotDimsString(const DotDimensionNumbers& d);
// dot's (and ragged-dot's) checks of its dimension numbers against the
// operands (range, uniqueness, equal element types, pairwise sizes), errors
// prefixed with `what`; and its result type (the operand type, or the
// preferred type; PRIMITIVE_TYPE_INVALID: none). In infer/linalg.cc.
absl::Status CheckDotDimensions(absl::string_view what, const Shape& lhs,
                                const Shape& rhs,
                                const DotDimensionNumbers& dnums);
absl::StatusOr<PrimitiveType> DotResultType(absl::string_view what,
                                            PrimitiveType operand_type,
                                            PrimitiveType preferred);
// Appends dot's result dimensions to `out`: the batch dimensions, then
// lhs's free dimensions, then rhs's (leaving out `rhs_excluded` too:
// ragged-dot's group dimensions). Dynamic dimensions stay dynamic.
void AppendDotResultDimensions(const Shape& lhs, const Shape& rhs,
                               const DotDimensionNumbers& dnums,
                               absl::Span<const int64_t> rhs_excluded,
                               Shape* out);
std::string ConvDimsString(const ConvolutionDimensionNumbers& d);
std::string PaddingString(const PaddingConfig& p);

}  // namespace plexa::shape_inference::internal

#endif  // PLEXA_CORE_INFER_INFER_UTIL_H_
