// topk: the k largest (largest=true) or smallest elements of every row along
// the last dimension, with their s32 indices, as XLA's TopK: sorted, ties
// keep the lower index first (a stable order), floats in the total order
// -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN, so largest=true puts a
// positive NaN first and largest=false puts a negative NaN first.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/eval/fft_topk_kernels.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// A signed integer whose order is the total order of the float `v`: the
// sign-magnitude bits with the magnitude flipped for negative values.
template <typename F>
auto TotalOrderKey(F v) {
  using I = std::conditional_t<sizeof(F) == 8, int64_t, int32_t>;
  I bits;
  std::memcpy(&bits, &v, sizeof(bits));
  constexpr I kMagnitude = std::numeric_limits<I>::max();
  return bits < 0 ? static_cast<I>(bits ^ kMagnitude) : bits;
}

template <typename T>
auto SortKey(T v) {
  if constexpr (kIsNarrowFloat<T>) {
    // f16, bf16 and the f8/f4 types widen to f32 exactly, sign of zeros
    // included.
    return TotalOrderKey(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return TotalOrderKey(v);
  } else {
    return v;
  }
}

}  // namespace

absl::Status TopKRowsKernel(PrimitiveType type, int64_t rows, int64_t n,
                            int64_t k, bool largest, const void* in_v,
                            void* values_v, int32_t* indices) {
  if (rows < 0 || n < 0 || k < 0 || k > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("topk: cannot take the top ", k, " of rows of ", n));
  }
  return ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsComplex<T>) {
      return absl::UnimplementedError(
          absl::StrCat("topk: complex numbers have no order; got ",
                       primitive_util::Name(type)));
    } else {
      const T* in = static_cast<const T*>(in_v);
      T* values = static_cast<T*>(values_v);
      std::vector<int64_t> perm(n);
      for (int64_t row = 0; row < rows; ++row) {
        const T* x = in + row * n;
        std::iota(perm.begin(), perm.end(), 0);
        // stable_sort with a strict weak order (total-order keys): ties
        // keep the lower index first.
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          return largest ? SortKey(x[a]) > SortKey(x[b])
                         : SortKey(x[a]) < SortKey(x[b]);
        });
        for (int64_t j = 0; j < k; ++j) {
          values[row * k + j] = x[perm[j]];
          indices[row * k + j] = static_cast<int32_t>(perm[j]);
        }
      }
      return absl::OkStatus();
    }
  });
}

absl::StatusOr<Literal> TopKKernel(const Instruction& instr,
                                   const Literal& operand, int64_t k,
                                   bool largest) {
  const Shape& is = operand.shape();
  if (!is.IsArray() || is.rank() < 1 || k < 0 ||
      k > is.dimensions(is.rank() - 1)) {
    return Invalid(
        instr, absl::StrCat("cannot take the top ", k, " of ", is.ToString()));
  }
  const Shape& rs = instr.shape();
  const int64_t n = is.dimensions(is.rank() - 1);
  const int64_t rows = n == 0 ? 0 : ElementCount(is.dimensions()) / n;
  if (!rs.IsTuple() || rs.tuple_shapes().size() != 2 ||
      !rs.tuple_shapes()[0].IsArray() || !rs.tuple_shapes()[1].IsArray() ||
      rs.tuple_shapes()[0].element_type() != is.element_type() ||
      rs.tuple_shapes()[1].element_type() != PrimitiveType::S32 ||
      ElementCount(rs.tuple_shapes()[0].dimensions()) != rows * k ||
      ElementCount(rs.tuple_shapes()[1].dimensions()) != rows * k) {
    return Invalid(instr, absl::StrCat("the result must be (values, s32 "
                                       "indices) with k=",
                                       k, " per row; got ", rs.ToString()));
  }
  Literal values = MakeLiteral(rs.tuple_shapes()[0]);
  Literal indices = MakeLiteral(rs.tuple_shapes()[1]);
  absl::Status st = TopKRowsKernel(
      is.element_type(), rows, n, k, largest, operand.data().data(),
      values.mutable_data().data(), MutableDataOf<int32_t>(indices));
  if (!st.ok()) {
    return absl::Status(st.code(), absl::StrCat("evaluator: ", InstrName(instr),
                                                ": ", st.message()));
  }
  std::vector<Literal> parts;
  parts.push_back(std::move(values));
  parts.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(parts));
}

absl::StatusOr<Literal> EvalTopK(Interpreter&, const Instruction& instr,
                                 Operands ops) {
  if (ops.size() != 1) return Invalid(instr, "expected one operand");
  return TopKKernel(instr, *ops[0], instr.attrs().k, instr.attrs().largest);
}

}  // namespace plexa::eval
