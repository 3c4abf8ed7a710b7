// sort: N operands sorted together along one dimension by a comparator
// computation over 2N scalars (lhs and rhs of operand 0, then of operand 1,
// ...).
//
// The permutation is sorted with a merge sort written here rather than
// std::sort/std::stable_sort: it is stable (a valid result for is_stable and
// for not), touches only indices inside the row whatever the comparator
// answers, and so cannot crash on a comparator that is not a strict weak
// order (std::sort may read out of bounds then).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// Bottom-up merge sort of `perm` with less(a, b) -> StatusOr<bool>. Takes the
// right element only when it is strictly less than the left one, so equal
// elements keep their order.
template <typename Less>
absl::Status MergeSort(std::vector<int64_t>& perm, Less less) {
  const int64_t n = static_cast<int64_t>(perm.size());
  std::vector<int64_t> buffer(n);
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = std::min(lo + width, n);
      const int64_t hi = std::min(lo + 2 * width, n);
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        absl::StatusOr<bool> right_first = less(perm[j], perm[i]);
        if (!right_first.ok()) return right_first.status();
        buffer[k++] = *right_first ? perm[j++] : perm[i++];
      }
      while (i < mid) buffer[k++] = perm[i++];
      while (j < hi) buffer[k++] = perm[j++];
    }
    perm.swap(buffer);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Literal> EvalSort(Interpreter& interp, const Instruction& instr,
                                 Operands ops) {
  if (ops.empty() || instr.dimensions().size() != 1) {
    return Invalid(instr, "expected operands and one dimension");
  }
  const int64_t n = static_cast<int64_t>(ops.size());
  const Shape& shape = ops[0]->shape();
  for (const Literal* op : ops) {
    if (!op->shape().IsArray() ||
        !ShapeUtil::SameDimensions(op->shape(), shape)) {
      return Invalid(instr, "operands must be arrays of equal dimensions");
    }
  }
  const int64_t dim = instr.dimensions(0);
  if (dim < 0 || dim >= shape.rank()) return Invalid(instr, "bad dimension");
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * cmp, interp.GetScalarFn(*instr.to_apply()));
  {
    std::vector<PrimitiveType> params;
    for (const Literal* op : ops) {
      params.push_back(op->shape().element_type());
      params.push_back(op->shape().element_type());
    }
    PLEXA_RETURN_IF_ERROR(
        CheckScalarFnTypes(instr, *cmp, params, {PrimitiveType::PRED}));
  }
  std::vector<int64_t> widths(n);
  std::vector<Literal> results;
  for (int64_t k = 0; k < n; ++k) {
    widths[k] = primitive_util::ByteWidth(ops[k]->shape().element_type());
    results.push_back(Literal(*ops[k]));
  }
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const int64_t len = shape.dimensions(dim);
  const int64_t step = strides[dim];
  // Rows: every index with dimension `dim` fixed at 0.
  std::vector<int64_t> row_extent(shape.dimensions().begin(),
                                  shape.dimensions().end());
  row_extent[dim] = 1;
  if (len == 0) {
    if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
    return std::move(results[0]);
  }
  std::vector<int64_t> perm(len);
  std::vector<const void*> args(2 * n);
  absl::Status status;
  ForEachIndexRowMajor(row_extent, [&](absl::Span<const int64_t> idx) {
    if (!status.ok()) return;
    int64_t base = 0;
    for (size_t d = 0; d < idx.size(); ++d) base += idx[d] * strides[d];
    for (int64_t i = 0; i < len; ++i) perm[i] = i;
    auto less = [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      for (int64_t k = 0; k < n; ++k) {
        const uint8_t* data = ops[k]->data().data();
        args[2 * k] = data + (base + a * step) * widths[k];
        args[2 * k + 1] = data + (base + b * step) * widths[k];
      }
      bool result = false;
      void* out = &result;
      PLEXA_RETURN_IF_ERROR(cmp->Call(args.data(), &out));
      return result;
    };
    status = MergeSort(perm, less);
    if (!status.ok()) return;
    for (int64_t k = 0; k < n; ++k) {
      const uint8_t* src = ops[k]->data().data();
      uint8_t* dst = results[k].mutable_data().data();
      for (int64_t i = 0; i < len; ++i) {
        std::memcpy(dst + (base + i * step) * widths[k],
                    src + (base + perm[i] * step) * widths[k], widths[k]);
      }
    }
  });
  PLEXA_RETURN_IF_ERROR(status);
  if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
  return std::move(results[0]);
}

}  // namespace plexa::eval
