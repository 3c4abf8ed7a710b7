// convolution: general padding (negative included), lhs (base) and rhs
// (window) dilation, strides, window reversal, any dim_labels,
// feature_group_count and batch_group_count.
//
// For every output element (b, o, spatial...):
//   G = feature_group_count, B = batch_group_count,
//   C = input features, O = output features (kernel), N = input batch,
//   feature group   g  = o / (O / G): input features g*(C/G) .. +C/G
//   batch group     bg = o / (O / B): input batch bg*(N/B) + b
//   result = sum over kernel spatial positions k (row-major), then over the
//            input features iz of the group, of
//            lhs[batch, g*(C/G)+iz, pos(k)] * rhs[o, iz, k']
//   where, per spatial dimension, the position in the padded, base-dilated
//   input is  out*stride - pad_low + k*rhs_dilation; it contributes only if
//   it falls on a real element (a multiple of lhs_dilation inside the
//   input), and k' = size-1-k when the window dimension is reversed.
// This is StableHLO's definition (feature groups split the input features
// and the kernel's output features; batch groups split the input batch and
// the kernel's output features; results are concatenated along the output
// feature dimension). Operands are converted to the result type first and
// accumulated as dot does (float for f16/bf16, wrapping for integers).
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

struct ConvGeometry {
  int64_t spatial = 0;
  int64_t in_batch = 0, in_features = 0, out_features = 0;
  int64_t feature_groups = 1, batch_groups = 1;
  int64_t in_features_per_group = 0;
  int64_t out_features_per_fgroup = 0, out_features_per_bgroup = 0;
  int64_t batch_per_group = 0;
  std::vector<int64_t> lhs_strides, rhs_strides;
  std::vector<int64_t> kernel_sizes;
};

template <typename T>
void Convolve(const Instruction& instr, const ConvGeometry& g,
              const Literal& lhs, const Literal& rhs, Literal& out) {
  using A = AccumulatorT<T>;
  const ConvolutionDimensionNumbers& dn =
      *instr.attrs().convolution_dimension_numbers;
  const Window& window = *instr.attrs().window;
  const Shape& ls = lhs.shape();
  const T* l = DataOf<T>(lhs);
  const T* r = DataOf<T>(rhs);
  T* o = MutableDataOf<T>(out);
  std::vector<int64_t> lhs_pos(g.spatial);
  int64_t linear = 0;
  ForEachIndexRowMajor(
      instr.shape().dimensions(), [&](absl::Span<const int64_t> oidx) {
        const int64_t b = oidx[dn.output_batch_dimension];
        const int64_t of = oidx[dn.output_feature_dimension];
        const int64_t fgroup = of / g.out_features_per_fgroup;
        const int64_t bgroup = of / g.out_features_per_bgroup;
        const int64_t in_b = bgroup * g.batch_per_group + b;
        const int64_t lhs_base = in_b * g.lhs_strides[dn.input_batch_dimension];
        const int64_t rhs_base =
            of * g.rhs_strides[dn.kernel_output_feature_dimension];
        const int64_t lhs_fstride = g.lhs_strides[dn.input_feature_dimension];
        const int64_t rhs_fstride =
            g.rhs_strides[dn.kernel_input_feature_dimension];
        const int64_t first_feature = fgroup * g.in_features_per_group;
        A acc = A(0);
        ForEachIndexRowMajor(g.kernel_sizes, [&](absl::Span<const int64_t> k) {
          int64_t lhs_off = lhs_base;
          int64_t rhs_off = rhs_base;
          for (int64_t s = 0; s < g.spatial; ++s) {
            const WindowDimension& wd = window.dimensions[s];
            const int64_t dilated =
                oidx[dn.output_spatial_dimensions[s]] * wd.stride -
                wd.padding_low + k[s] * wd.window_dilation;
            if (dilated < 0 || dilated % wd.base_dilation != 0) return;
            const int64_t pos = dilated / wd.base_dilation;
            const int64_t in_dim = dn.input_spatial_dimensions[s];
            if (pos >= ls.dimensions(in_dim)) return;
            lhs_off += pos * g.lhs_strides[in_dim];
            const int64_t kk = wd.window_reversal ? wd.size - 1 - k[s] : k[s];
            rhs_off += kk * g.rhs_strides[dn.kernel_spatial_dimensions[s]];
          }
          for (int64_t iz = 0; iz < g.in_features_per_group; ++iz) {
            MultiplyAccumulate<T>(
                acc,
                ToAccumulator(l[lhs_off + (first_feature + iz) * lhs_fstride]),
                ToAccumulator(r[rhs_off + iz * rhs_fstride]));
          }
        });
        o[linear++] = FromAccumulator<T>(acc);
      });
}

}  // namespace

absl::StatusOr<Literal> EvalConvolution(Interpreter&, const Instruction& instr,
                                        Operands ops) {
  const auto& attrs = instr.attrs();
  if (ops.size() != 2 || !attrs.convolution_dimension_numbers ||
      !ops[0]->shape().IsArray() || !ops[1]->shape().IsArray() ||
      !instr.shape().IsArray()) {
    return Invalid(instr, "expected two arrays and dim_labels");
  }
  const ConvolutionDimensionNumbers& dn = *attrs.convolution_dimension_numbers;
  // XLA prints a convolution without spatial dimensions (a matrix product,
  // dim_labels=bf_io->bf) with no window=; its parser takes the empty
  // window then, and so do we.
  static const Window kEmptyWindow;
  const Window& window = attrs.window ? *attrs.window : kEmptyWindow;
  const PrimitiveType type = instr.shape().element_type();
  PLEXA_ASSIGN_OR_RETURN(Literal lhs, ConvertLiteral(*ops[0], type));
  PLEXA_ASSIGN_OR_RETURN(Literal rhs, ConvertLiteral(*ops[1], type));
  const Shape& ls = lhs.shape();
  const Shape& rs = rhs.shape();
  const Shape& os = instr.shape();
  ConvGeometry g;
  g.spatial = static_cast<int64_t>(dn.input_spatial_dimensions.size());
  if (static_cast<int64_t>(dn.kernel_spatial_dimensions.size()) != g.spatial ||
      static_cast<int64_t>(dn.output_spatial_dimensions.size()) != g.spatial ||
      static_cast<int64_t>(window.dimensions.size()) != g.spatial ||
      ls.rank() != g.spatial + 2 || rs.rank() != g.spatial + 2 ||
      os.rank() != g.spatial + 2) {
    return Invalid(instr, "ranks do not match the dimension numbers");
  }
  auto in_range = [](int64_t d, const Shape& s) {
    return d >= 0 && d < s.rank();
  };
  for (int64_t s = 0; s < g.spatial; ++s) {
    if (!in_range(dn.input_spatial_dimensions[s], ls) ||
        !in_range(dn.kernel_spatial_dimensions[s], rs) ||
        !in_range(dn.output_spatial_dimensions[s], os)) {
      return Invalid(instr, "spatial dimension out of range");
    }
    const WindowDimension& wd = window.dimensions[s];
    if (wd.stride < 1 || wd.base_dilation < 1 || wd.window_dilation < 1 ||
        wd.size != rs.dimensions(dn.kernel_spatial_dimensions[s])) {
      return Invalid(instr, "bad window");
    }
    g.kernel_sizes.push_back(wd.size);
  }
  if (!in_range(dn.input_batch_dimension, ls) ||
      !in_range(dn.input_feature_dimension, ls) ||
      !in_range(dn.kernel_input_feature_dimension, rs) ||
      !in_range(dn.kernel_output_feature_dimension, rs) ||
      !in_range(dn.output_batch_dimension, os) ||
      !in_range(dn.output_feature_dimension, os)) {
    return Invalid(instr, "dimension number out of range");
  }
  g.in_batch = ls.dimensions(dn.input_batch_dimension);
  g.in_features = ls.dimensions(dn.input_feature_dimension);
  g.out_features = rs.dimensions(dn.kernel_output_feature_dimension);
  g.feature_groups = attrs.feature_group_count;
  g.batch_groups = attrs.batch_group_count;
  if (g.feature_groups < 1 || g.batch_groups < 1 ||
      g.in_features % g.feature_groups != 0 ||
      g.out_features % g.feature_groups != 0 ||
      g.out_features % g.batch_groups != 0 ||
      g.in_batch % g.batch_groups != 0) {
    return Invalid(instr, "group counts do not divide the dimensions");
  }
  g.in_features_per_group = g.in_features / g.feature_groups;
  if (rs.dimensions(dn.kernel_input_feature_dimension) !=
      g.in_features_per_group) {
    return Invalid(instr, "kernel input features do not match the groups");
  }
  g.out_features_per_fgroup = g.out_features / g.feature_groups;
  g.out_features_per_bgroup = g.out_features / g.batch_groups;
  g.batch_per_group = g.in_batch / g.batch_groups;
  if (os.dimensions(dn.output_feature_dimension) != g.out_features ||
      os.dimensions(dn.output_batch_dimension) != g.batch_per_group) {
    return Invalid(instr, "result batch or feature size does not match");
  }
  Literal out = MakeLiteral(os);
  if (g.out_features == 0 || ElementCount(os.dimensions()) == 0) return out;
  g.lhs_strides = RowMajorStrides(ls.dimensions());
  g.rhs_strides = RowMajorStrides(rs.dimensions());
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    Convolve<T>(instr, g, lhs, rhs, out);
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace plexa::eval
