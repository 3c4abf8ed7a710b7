// dot with general dimension numbers.
//
// Operands of another element type than the result are first converted to
// the result type (convert semantics), as XLA's evaluator does. Each result
// element is sum_k lhs[.., k] * rhs[k, ..] accumulated from 0 in increasing
// k (the contracting dimensions in the order listed, row-major), in the
// accumulator type: float for f16/bf16 (rounded once at the end), the
// element type otherwise; integers wrap.
//
// Result dimensions: batch dimensions, then lhs free dimensions, then rhs
// free dimensions, each in increasing dimension order.
//
// A structured-sparse operand (sparsity=L.1@2:4, core/ir/sparse_dot.h) is
// first decompressed: each stored value goes to the logical position its
// metadata names within its group, the rest of the group is zero. Metadata
// whose positions do not increase within a group, or reach m, is an error
// naming the element (no hardware defines it).
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/eval_internal.h"
#include "core/infer/shape_inference.h"
#include "core/ir/sparse_dot.h"
#include "core/shape/index_util.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Batched matrix product: lhs [B, M, K], rhs [B, K, N] -> out [B, M, N].
template <typename T>
void BatchMatMul(const T* lhs, const T* rhs, T* out, int64_t batch, int64_t m,
                 int64_t k, int64_t n) {
  using A = AccumulatorT<T>;
  // Not std::vector: vector<bool> has no bool& elements.
  std::unique_ptr<A[]> acc = std::make_unique<A[]>(n);
  for (int64_t b = 0; b < batch; ++b) {
    const T* l = lhs + b * m * k;
    const T* r = rhs + b * k * n;
    T* o = out + b * m * n;
    for (int64_t i = 0; i < m; ++i) {
      std::fill_n(acc.get(), n, A(0));
      for (int64_t p = 0; p < k; ++p) {
        const A a = ToAccumulator(l[i * k + p]);
        const T* row = r + p * n;
        for (int64_t j = 0; j < n; ++j) {
          MultiplyAccumulate<T>(acc[j], a, ToAccumulator(row[j]));
        }
      }
      for (int64_t j = 0; j < n; ++j) o[i * n + j] = FromAccumulator<T>(acc[j]);
    }
  }
}

// The logical (dense) values of a stored sparse operand.
absl::StatusOr<Literal> Decompress(const Instruction& instr,
                                   const Literal& stored, const Literal& meta,
                                   const SparsityDescriptor& d) {
  const Shape& ss = stored.shape();
  const int64_t per = sparse_dot::PositionsPerElement(d.m);
  if (per == 0) {
    return absl::UnimplementedError(absl::StrCat(
        "evaluator: ", InstrName(instr), ": ", d.n, ":", d.m,
        " sparsity packs ", sparse_dot::IndexBits(d.m),
        "-bit positions, which do not divide a u16 metadata element"));
  }
  if (!ss.IsArray() || !meta.shape().IsArray() || d.n <= 0 || d.m <= d.n ||
      d.dimension < 0 || d.dimension >= ss.rank() ||
      ss.dimensions(d.dimension) % d.n != 0 ||
      meta.shape().element_type() != sparse_dot::kMetadataType ||
      meta.shape().dimensions() !=
          sparse_dot::MetadataShape(ss, d).dimensions()) {
    return Invalid(instr, "sparse operand and metadata do not match");
  }
  const int64_t bits = sparse_dot::IndexBits(d.m);
  const int64_t width = primitive_util::ByteWidth(ss.element_type());
  Literal dense(sparse_dot::LogicalShape(ss, d));
  absl::Status status;
  std::vector<int64_t> at;
  auto position = [&](absl::Span<const int64_t> index, int64_t s) {
    at.assign(index.begin(), index.end());
    at[d.dimension] = s / per;
    const uint16_t word = meta.Get<uint16_t>(at);
    return (word >> (bits * (s % per))) & ((int64_t{1} << bits) - 1);
  };
  ForEachIndexRowMajor(ss.dimensions(), [&](absl::Span<const int64_t> index) {
    if (!status.ok()) return;
    const int64_t s = index[d.dimension];
    const int64_t p = position(index, s);
    const int64_t prev = s % d.n == 0 ? -1 : position(index, s - 1);
    if (p >= d.m || p <= prev) {
      at.assign(index.begin(), index.end());
      status = Invalid(
          instr, absl::StrCat("the sparse metadata places stored value {",
                              absl::StrJoin(at, ","), "} of operand ", d.index,
                              " at position ", p, " of its group of ", d.m,
                              p >= d.m ? " (out of range)"
                                       : absl::StrCat(" (not after the previous"
                                                      " value's ",
                                                      prev, ")")));
      return;
    }
    at.assign(index.begin(), index.end());
    at[d.dimension] = s / d.n * d.m + p;
    const int64_t to =
        IndexUtil::MultidimensionalIndexToLinearIndex(dense.shape(), at);
    const int64_t from =
        IndexUtil::MultidimensionalIndexToLinearIndex(ss, index);
    std::copy_n(stored.data().data() + from * width, width,
                dense.mutable_data().data() + to * width);
  });
  PLEXA_RETURN_IF_ERROR(status);
  return dense;
}

absl::StatusOr<Literal> DenseDot(const Instruction& instr, Operands ops) {
  if (ops.size() != 2 || !instr.attrs().dot_dimension_numbers ||
      !ops[0]->shape().IsArray() || !ops[1]->shape().IsArray() ||
      !instr.shape().IsArray()) {
    return Invalid(instr, "expected two arrays and dimension numbers");
  }
  const DotDimensionNumbers& dn = *instr.attrs().dot_dimension_numbers;
  const PrimitiveType type = instr.shape().element_type();
  PLEXA_ASSIGN_OR_RETURN(Literal lhs, ConvertLiteral(*ops[0], type));
  PLEXA_ASSIGN_OR_RETURN(Literal rhs, ConvertLiteral(*ops[1], type));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  if (dn.lhs_batch_dimensions.size() != dn.rhs_batch_dimensions.size() ||
      dn.lhs_contracting_dimensions.size() !=
          dn.rhs_contracting_dimensions.size()) {
    return Invalid(instr, "dimension numbers do not pair up");
  }
  auto check = [&](absl::Span<const int64_t> dims, const Shape& s) {
    for (int64_t d : dims) {
      if (d < 0 || d >= s.rank()) return false;
    }
    return true;
  };
  if (!check(dn.lhs_batch_dimensions, ls) ||
      !check(dn.lhs_contracting_dimensions, ls) ||
      !check(dn.rhs_batch_dimensions, rs) ||
      !check(dn.rhs_contracting_dimensions, rs)) {
    return Invalid(instr, "dimension number out of range");
  }
  std::vector<int64_t> lhs_order(dn.lhs_batch_dimensions.begin(),
                                 dn.lhs_batch_dimensions.end());
  std::vector<int64_t> rhs_order(dn.rhs_batch_dimensions.begin(),
                                 dn.rhs_batch_dimensions.end());
  int64_t batch = 1, m = 1, k = 1, n = 1;
  for (size_t i = 0; i < dn.lhs_batch_dimensions.size(); ++i) {
    const int64_t size = ls.dimensions(dn.lhs_batch_dimensions[i]);
    if (size != rs.dimensions(dn.rhs_batch_dimensions[i])) {
      return Invalid(instr, "batch dimension sizes differ");
    }
    batch *= size;
  }
  for (int64_t d = 0; d < ls.rank(); ++d) {
    if (!Contains(dn.lhs_batch_dimensions, d) &&
        !Contains(dn.lhs_contracting_dimensions, d)) {
      lhs_order.push_back(d);
      m *= ls.dimensions(d);
    }
  }
  for (size_t i = 0; i < dn.lhs_contracting_dimensions.size(); ++i) {
    const int64_t size = ls.dimensions(dn.lhs_contracting_dimensions[i]);
    if (size != rs.dimensions(dn.rhs_contracting_dimensions[i])) {
      return Invalid(instr, "contracting dimension sizes differ");
    }
    lhs_order.push_back(dn.lhs_contracting_dimensions[i]);
    rhs_order.push_back(dn.rhs_contracting_dimensions[i]);
    k *= size;
  }
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (!Contains(dn.rhs_batch_dimensions, d) &&
        !Contains(dn.rhs_contracting_dimensions, d)) {
      rhs_order.push_back(d);
      n *= rs.dimensions(d);
    }
  }
  if (static_cast<int64_t>(lhs_order.size()) != ls.rank() ||
      static_cast<int64_t>(rhs_order.size()) != rs.rank() ||
      ElementCount(instr.shape().dimensions()) != batch * m * n) {
    return Invalid(instr, "dimension numbers do not match the shapes");
  }
  const Literal lhs_t = TransposeLiteral(lhs, lhs_order);  // [B, M, K]
  const Literal rhs_t = TransposeLiteral(rhs, rhs_order);  // [B, K, N]
  Literal out = MakeLiteral(instr.shape());
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    BatchMatMul<T>(DataOf<T>(lhs_t), DataOf<T>(rhs_t), MutableDataOf<T>(out),
                   batch, m, k, n);
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvalDot(Interpreter&, const Instruction& instr,
                                Operands ops) {
  const std::vector<SparsityDescriptor>& sparsity = instr.attrs().dot_sparsity;
  if (!sparsity.empty()) {
    if (ops.size() != 2 + sparsity.size()) {
      return Invalid(instr,
                     "expected lhs, rhs and one metadata operand per "
                     "sparsity descriptor");
    }
    Literal dense[2];
    const Literal* decompressed[2] = {ops[0], ops[1]};
    for (size_t i = 0; i < sparsity.size(); ++i) {
      const SparsityDescriptor& d = sparsity[i];
      if (d.index != 0 && d.index != 1) {
        return Invalid(instr, "a sparsity descriptor names no operand");
      }
      PLEXA_ASSIGN_OR_RETURN(dense[d.index],
                             Decompress(instr, *ops[d.index], *ops[2 + i], d));
      decompressed[d.index] = &dense[d.index];
    }
    return DenseDot(instr, decompressed);
  }
  return DenseDot(instr, ops);
}

}  // namespace plexa::eval

namespace plexa::eval {

namespace {

// operand * scale, the scale repeated over blocks of operand / scale
// elements in each dimension, in the target type (one rounding of the
// exact product). A scalar scale is none: the operand as it is.
absl::StatusOr<Literal> Dequantize(const Instruction& instr,
                                   const Literal& operand,
                                   const Literal& scale) {
  const Shape& os = operand.shape();
  const Shape& ss = scale.shape();
  if (ss.rank() == 0) return Literal(operand);
  const PrimitiveType t = shape_inference::ScaledDotProductType(
      os.element_type(), ss.element_type());
  if (!primitive_util::IsFloatingPointType(t)) {
    return Invalid(
        instr, absl::StrCat("scaled-dot of ", os.ToString(), " by ",
                            ss.ToString(), " needs floating-point operands"));
  }
  if (ss.rank() != os.rank()) {
    return Invalid(instr, "a scale must have its operand's rank");
  }
  std::vector<int64_t> block(os.rank());
  for (int64_t i = 0; i < os.rank(); ++i) {
    if (ss.dimensions(i) == 0 || os.dimensions(i) % ss.dimensions(i) != 0) {
      return Invalid(instr, "a scale dimension must divide its operand's");
    }
    block[i] = os.dimensions(i) / ss.dimensions(i);
  }
  // Both in the target type first (XLA converts, then multiplies).
  PLEXA_ASSIGN_OR_RETURN(Literal a, ConvertLiteral(operand, t));
  PLEXA_ASSIGN_OR_RETURN(Literal s, ConvertLiteral(scale, t));
  Literal product = MakeLiteral(Shape(PrimitiveType::F64, os.dimensions()));
  double* out = MutableDataOf<double>(product);
  std::vector<int64_t> q(os.rank());
  int64_t i = 0;
  ForEachIndexRowMajor(os.dimensions(), [&](absl::Span<const int64_t> index) {
    for (int64_t d = 0; d < os.rank(); ++d) q[d] = index[d] / block[d];
    out[i++] = a.GetAsDouble(index) * s.GetAsDouble(q);
  });
  return ConvertLiteral(product, t);
}

}  // namespace

absl::StatusOr<Literal> EvalScaledDot(Interpreter& interp,
                                      const Instruction& instr, Operands ops) {
  // XLA's ScaledDotRewriter: each operand times its scale, then the dot.
  if (ops.size() != 4) return Invalid(instr, "expected four operands");
  PLEXA_ASSIGN_OR_RETURN(Literal lhs, Dequantize(instr, *ops[0], *ops[2]));
  PLEXA_ASSIGN_OR_RETURN(Literal rhs, Dequantize(instr, *ops[1], *ops[3]));
  const Literal* const dequantized[] = {&lhs, &rhs};
  return EvalDot(interp, instr, dequantized);
}

}  // namespace plexa::eval
