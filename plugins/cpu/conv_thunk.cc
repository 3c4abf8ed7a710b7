#include "plugins/cpu/conv_thunk.h"

#include <utility>

#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa::cpu {

template <typename T>
void ConvThunk<T>::SetEpilogue(std::unique_ptr<KernelThunk> kernel, Shape out,
                               int64_t batch_dim, int64_t spatial0_dim) {
  epilogue_ = std::move(kernel);
  out_ = std::move(out);
  batch_dim_ = batch_dim;
  spatial0_dim_ = spatial0_dim;
  const Layout layout = LayoutUtil::EffectiveLayout(out_);
  const int64_t minor = layout.minor_to_major(0);
  pieces_ = epilogue_->shape().row_length > 0
                ? out_.dimensions(minor) / epilogue_->shape().row_length
                : 1;
  row_strides_.assign(out_.rank(), 0);
  int64_t stride = pieces_;
  for (int64_t i = 1; i < out_.rank(); ++i) {
    const int64_t d = layout.minor_to_major(i);
    row_strides_[d] = stride;
    stride *= out_.dimensions(d);
  }
  for (int64_t d = 0; d < out_.rank(); ++d) {
    if (d != minor && d != batch_dim_ && d != spatial0_dim_) {
      others_.push_back(d);
    }
  }
}

template <typename T>
absl::Status ConvThunk<T>::Run(Frame& f) const {
  const T* lhs = reinterpret_cast<const T*>(f.ptr[inputs[0]]);
  const T* rhs = reinterpret_cast<const T*>(f.ptr[inputs[1]]);
  T* out = reinterpret_cast<T*>(f.ptr[outputs[0]]);
  if (epilogue_ == nullptr) return Conv(dims_, lhs, rhs, out, PoolOf(f));
  // The epilogue kernel's buffers: its result, then its operands.
  std::vector<void*> buffers(epilogue_->outputs.size() +
                             epilogue_->inputs.size());
  epilogue_->CollectBuffers(f, buffers.data());
  void* const* bp = buffers.data();
  const KernelFn fn = epilogue_->fn();
  ConvDims dims = dims_;
  dims.on_rows_done = [&](int64_t b, int64_t y0, int64_t y1) {
    if (spatial0_dim_ < 0) {
      y0 = 0;
      y1 = 1;
    }
    // Every combination of the other non-minor dimensions.
    std::vector<int64_t> idx(others_.size(), 0);
    while (true) {
      int64_t base = b * row_strides_[batch_dim_];
      for (size_t j = 0; j < others_.size(); ++j) {
        base += idx[j] * row_strides_[others_[j]];
      }
      for (int64_t y = y0; y < y1; ++y) {
        const int64_t r =
            base + (spatial0_dim_ >= 0 ? y * row_strides_[spatial0_dim_] : 0);
        fn(bp, r, r + pieces_);
      }
      size_t j = 0;
      for (; j < others_.size(); ++j) {
        if (++idx[j] < out_.dimensions(others_[j])) break;
        idx[j] = 0;
      }
      if (j == others_.size()) break;
    }
  };
  return Conv(dims, lhs, rhs, out, PoolOf(f));
}

template class ConvThunk<float>;
template class ConvThunk<double>;

std::optional<ConvDims> MakeConvDims(const Instruction& h) {
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape out = WithLayout(h.shape());
  if (!HasDenseFloatOperands(h) ||
      !h.attrs().convolution_dimension_numbers.has_value()) {
    return std::nullopt;
  }
  const ConvolutionDimensionNumbers& dn =
      *h.attrs().convolution_dimension_numbers;
  const std::vector<int64_t> lst = IndexUtil::LayoutStrides(ls),
                             rst = IndexUtil::LayoutStrides(rs),
                             ost = IndexUtil::LayoutStrides(out);
  ConvDims d;
  d.num_spatial = static_cast<int>(dn.input_spatial_dimensions.size());
  d.batch = ls.dimensions(dn.input_batch_dimension);
  d.in_features = ls.dimensions(dn.input_feature_dimension);
  d.out_features = rs.dimensions(dn.kernel_output_feature_dimension);
  d.lhs_batch_stride = lst[dn.input_batch_dimension];
  d.lhs_feature_stride = lst[dn.input_feature_dimension];
  d.rhs_in_stride = rst[dn.kernel_input_feature_dimension];
  d.rhs_out_stride = rst[dn.kernel_output_feature_dimension];
  d.out_batch_stride = ost[dn.output_batch_dimension];
  d.out_feature_stride = ost[dn.output_feature_dimension];
  for (int i = 0; i < d.num_spatial; ++i) {
    const int64_t li = dn.input_spatial_dimensions[i];
    const int64_t ki = dn.kernel_spatial_dimensions[i];
    const int64_t oi = dn.output_spatial_dimensions[i];
    d.in_spatial.push_back(ls.dimensions(li));
    d.kernel_spatial.push_back(rs.dimensions(ki));
    d.out_spatial.push_back(out.dimensions(oi));
    d.lhs_spatial_strides.push_back(lst[li]);
    d.rhs_spatial_strides.push_back(rst[ki]);
    d.out_spatial_strides.push_back(ost[oi]);
    WindowDimension w;
    if (h.attrs().window.has_value() &&
        i < static_cast<int>(h.attrs().window->dimensions.size())) {
      w = h.attrs().window->dimensions[i];
    }
    d.window_strides.push_back(w.stride);
    d.padding_low.push_back(w.padding_low);
    d.padding_high.push_back(w.padding_high);
    d.lhs_dilation.push_back(w.base_dilation);
    d.rhs_dilation.push_back(w.window_dilation);
    d.window_reversal.push_back(w.window_reversal);
  }
  d.feature_group_count = h.attrs().feature_group_count;
  d.batch_group_count = h.attrs().batch_group_count;
  return d;
}

}  // namespace plexa::cpu
