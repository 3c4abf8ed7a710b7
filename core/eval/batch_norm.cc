// batch-norm-training, batch-norm-inference, batch-norm-grad.
//
// Statistics are taken per feature (the `feature_index` dimension) over all
// other dimensions, computed in double (two passes: mean, then centred
// squares) and rounded once to the element type. Variance is the biased
// (population) variance, as XLA returns (SEMANTICS.md).
//
// batch-norm-grad uses the real gradient (SEMANTICS.md "BatchNormGrad"):
// seed 004's formulas multiply by sqrt(var + eps), which is wrong. With
// x^ = (x - mean) / sqrt(var + eps) and m the element count per feature:
//   grad_offset = sum(dy)
//   grad_scale  = sum(dy * x^)
//   grad_x      = scale / sqrt(var + eps) *
//                 (dy - sum(dy)/m - x^ * sum(dy * x^)/m)
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

// Reads any real array into doubles (row-major).
absl::StatusOr<std::vector<double>> ReadDoubles(const Instruction& instr,
                                                const Literal& l) {
  std::vector<double> out(ElementCount(l.shape().dimensions()));
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(l.shape().element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsFloat<T>) {
          const T* d = DataOf<T>(l);
          for (size_t i = 0; i < out.size(); ++i) out[i] = ToDouble(d[i]);
          return absl::OkStatus();
        } else {
          return Invalid(instr,
                         absl::StrCat("needs floating-point operands; got ",
                                      l.shape().ToString()));
        }
      }));
  return out;
}

absl::StatusOr<Literal> WriteDoubles(const Shape& shape,
                                     const std::vector<double>& values) {
  if (!shape.IsArray() ||
      ElementCount(shape.dimensions()) != static_cast<int64_t>(values.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("evaluator: batch-norm result ", shape.ToString(),
                     " does not hold ", values.size(), " elements"));
  }
  Literal out = MakeLiteral(shape);
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(shape.element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        T* d = MutableDataOf<T>(out);
        for (size_t i = 0; i < values.size(); ++i) {
          d[i] = ConvertElement<T>(values[i]);
        }
        return absl::OkStatus();
      }));
  return out;
}

// Feature geometry: element i (row-major) has feature (i / stride) % count.
struct Features {
  int64_t count = 0;
  int64_t stride = 1;
  int64_t per_feature = 0;  // elements per feature
  int64_t Of(int64_t i) const { return (i / stride) % count; }
};

absl::StatusOr<Features> GetFeatures(const Instruction& instr,
                                     const Shape& operand, Operands ops,
                                     absl::Span<const int64_t> vector_ops) {
  const int64_t f = instr.attrs().feature_index;
  if (!operand.IsArray() || f < 0 || f >= operand.rank()) {
    return Invalid(instr, "bad feature_index");
  }
  Features g;
  g.count = operand.dimensions(f);
  g.stride = RowMajorStrides(operand.dimensions())[f];
  g.per_feature =
      g.count == 0 ? 0 : ElementCount(operand.dimensions()) / g.count;
  for (int64_t i : vector_ops) {
    const Shape& s = ops[i]->shape();
    if (!s.IsArray() || s.rank() != 1 || s.dimensions(0) != g.count) {
      return Invalid(instr, absl::StrCat("operand ", i, " must be [", g.count,
                                         "]; got ", s.ToString()));
    }
  }
  return g;
}

}  // namespace

absl::StatusOr<Literal> EvalBatchNormTraining(Interpreter&,
                                              const Instruction& instr,
                                              Operands ops) {
  if (ops.size() != 3 || !instr.shape().IsTuple() ||
      instr.shape().tuple_shapes_size() != 3) {
    return Invalid(instr, "expected operand, scale, offset");
  }
  const Shape& shape = ops[0]->shape();
  PLEXA_ASSIGN_OR_RETURN(Features g, GetFeatures(instr, shape, ops, {1, 2}));
  PLEXA_ASSIGN_OR_RETURN(std::vector<double> x, ReadDoubles(instr, *ops[0]));
  PLEXA_ASSIGN_OR_RETURN(std::vector<double> scale,
                         ReadDoubles(instr, *ops[1]));
  PLEXA_ASSIGN_OR_RETURN(std::vector<double> offset,
                         ReadDoubles(instr, *ops[2]));
  const double eps = instr.attrs().epsilon;
  const double m = static_cast<double>(g.per_feature);
  std::vector<double> mean(g.count, 0.0), var(g.count, 0.0);
  for (size_t i = 0; i < x.size(); ++i) mean[g.Of(i)] += x[i];
  for (double& v : mean) v /= m;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = x[i] - mean[g.Of(i)];
    var[g.Of(i)] += d * d;
  }
  for (double& v : var) v /= m;  // biased (population) variance
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = g.Of(i);
    y[i] = (x[i] - mean[c]) / std::sqrt(var[c] + eps) * scale[c] + offset[c];
  }
  std::vector<Literal> outs;
  PLEXA_ASSIGN_OR_RETURN(Literal y_lit,
                         WriteDoubles(instr.shape().tuple_shapes(0), y));
  PLEXA_ASSIGN_OR_RETURN(Literal mean_lit,
                         WriteDoubles(instr.shape().tuple_shapes(1), mean));
  PLEXA_ASSIGN_OR_RETURN(Literal var_lit,
                         WriteDoubles(instr.shape().tuple_shapes(2), var));
  outs.push_back(std::move(y_lit));
  outs.push_back(std::move(mean_lit));
  outs.push_back(std::move(var_lit));
  return Literal::MakeTuple(std::move(outs));
}

absl::StatusOr<Literal> EvalBatchNormInference(Interpreter&,
                                               const Instruction& instr,
                                               Operands ops) {
  if (ops.size() != 5) {
    return Invalid(instr, "expected operand, scale, offset, mean, variance");
  }
  PLEXA_ASSIGN_OR_RETURN(
      Features g, GetFeatures(instr, ops[0]->shape(), ops, {1, 2, 3, 4}));
  std::vector<std::vector<double>> v(5);
  for (int i = 0; i < 5; ++i) {
    PLEXA_ASSIGN_OR_RETURN(v[i], ReadDoubles(instr, *ops[i]));
  }
  const double eps = instr.attrs().epsilon;
  const std::vector<double>& x = v[0];
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = g.Of(i);
    y[i] = (x[i] - v[3][c]) / std::sqrt(v[4][c] + eps) * v[1][c] + v[2][c];
  }
  return WriteDoubles(instr.shape(), y);
}

absl::StatusOr<Literal> EvalBatchNormGrad(Interpreter&,
                                          const Instruction& instr,
                                          Operands ops) {
  if (ops.size() != 5 || !instr.shape().IsTuple() ||
      instr.shape().tuple_shapes_size() != 3) {
    return Invalid(instr,
                   "expected operand, scale, mean, variance, grad_output");
  }
  PLEXA_ASSIGN_OR_RETURN(Features g,
                         GetFeatures(instr, ops[0]->shape(), ops, {1, 2, 3}));
  if (!ShapeUtil::SameDimensions(ops[4]->shape(), ops[0]->shape())) {
    return Invalid(instr, "grad_output must have the operand's shape");
  }
  std::vector<std::vector<double>> v(5);
  for (int i = 0; i < 5; ++i) {
    PLEXA_ASSIGN_OR_RETURN(v[i], ReadDoubles(instr, *ops[i]));
  }
  const std::vector<double>& x = v[0];
  const std::vector<double>& scale = v[1];
  const std::vector<double>& mean = v[2];
  const std::vector<double>& var = v[3];
  const std::vector<double>& dy = v[4];
  const double eps = instr.attrs().epsilon;
  const double m = static_cast<double>(g.per_feature);
  std::vector<double> rstd(g.count);
  for (int64_t c = 0; c < g.count; ++c) rstd[c] = 1.0 / std::sqrt(var[c] + eps);
  std::vector<double> sum_dy(g.count, 0.0), sum_dy_xhat(g.count, 0.0);
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = g.Of(i);
    const double xhat = (x[i] - mean[c]) * rstd[c];
    sum_dy[c] += dy[i];
    sum_dy_xhat[c] += dy[i] * xhat;
  }
  std::vector<double> dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t c = g.Of(i);
    const double xhat = (x[i] - mean[c]) * rstd[c];
    dx[i] = scale[c] * rstd[c] *
            (dy[i] - sum_dy[c] / m - xhat * sum_dy_xhat[c] / m);
  }
  std::vector<Literal> outs;
  PLEXA_ASSIGN_OR_RETURN(Literal dx_lit,
                         WriteDoubles(instr.shape().tuple_shapes(0), dx));
  PLEXA_ASSIGN_OR_RETURN(
      Literal dscale_lit,
      WriteDoubles(instr.shape().tuple_shapes(1), sum_dy_xhat));
  PLEXA_ASSIGN_OR_RETURN(Literal doffset_lit,
                         WriteDoubles(instr.shape().tuple_shapes(2), sum_dy));
  outs.push_back(std::move(dx_lit));
  outs.push_back(std::move(dscale_lit));
  outs.push_back(std::move(doffset_lit));
  return Literal::MakeTuple(std::move(outs));
}

}  // namespace plexa::eval
