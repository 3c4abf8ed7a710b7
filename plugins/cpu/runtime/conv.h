// Convolution with XLA's ConvGeneralDilated semantics for f32 and f64:
// general (also negative) padding, window strides, lhs (base) and rhs
// (window) dilation, window reversal, feature_group_count and
// batch_group_count, any layout (the caller gives every logical dimension's
// element stride).
//
// For output element (b, o, y...) with G = feature_group_count,
// B = batch_group_count, C = in_features, O = out_features, N = batch:
//   feature group g  = o / (O / G): input features g*(C/G) .. +C/G
//   batch group   bg = o / (O / B): input batch bg*(N/B) + b
//   out = sum over kernel positions k and group input features c of
//         lhs[batch, g*(C/G) + c, pos] * rhs[c, o, k']
//   pos_i = y_i * stride_i - padding_low_i + k_i * rhs_dilation_i in the
//   base-dilated input; it contributes when it is a multiple of
//   lhs_dilation_i inside the input; k'_i = size_i-1-k_i if reversed.
//
// Fast path (f32 on AVX-512, one group, no lhs dilation, 1 or 2 spatial
// dimensions): implicit im2col. The weights are packed once into 64-feature
// blocks; threads take units of a few output rows, copy the zero-padded
// input rows a unit reads into a per-thread [y][x][feature] buffer, and an
// AVX-512 micro-kernel computes 6 output positions x 64 features straight
// from it. Everything else takes the general path below.
//
// Winograd path (f32 on AVX-512, 3x3 window, unit strides, no dilation,
// one group, 2 spatial dimensions, non-negative padding), where it pays:
// >= 16 input and output features, >= 128 2x2 output blocks over the
// batch, <= 256 x 256 features. F(2x2, 3x3) computes each 2x2 block of
// outputs from a 4x4 block of inputs with 16 instead of 36 multiplications
// per input/output feature pair (winograd.cc). Its rounding differs from
// the direct sum's by a few ulps of the terms' magnitude (~1e-6 relative
// to the output's scale for data of similar magnitude).
//
// General path: per group, the output positions are cut into tiles; a
// tile's input patches are packed into a per-thread scratch matrix (im2col,
// ~1 MiB, at most 64 MiB) and multiplied with the group's weights by the
// packed Gemm. Threads take whole tiles when there are enough of them, else
// each tile is parallelized inside. 1x1 kernels with unit strides and no
// padding multiply the input in place.
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_CONV_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_CONV_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

struct ConvDims {
  int num_spatial = 0;  // >= 0
  // lhs batch, lhs feature, rhs output feature sizes.
  int64_t batch = 0, in_features = 0, out_features = 0;
  // Spatial sizes of lhs, rhs (window) and the output.
  std::vector<int64_t> in_spatial, kernel_spatial, out_spatial;
  // Element strides: lhs (batch, feature, spatial[i]); rhs (input feature,
  // output feature, spatial[i]) where the rhs input feature dimension has
  // size in_features / feature_group_count; out (batch, feature, spatial[i])
  // where the output batch is batch / batch_group_count.
  int64_t lhs_batch_stride = 0, lhs_feature_stride = 0;
  std::vector<int64_t> lhs_spatial_strides;
  int64_t rhs_in_stride = 0, rhs_out_stride = 0;
  std::vector<int64_t> rhs_spatial_strides;
  int64_t out_batch_stride = 0, out_feature_stride = 0;
  std::vector<int64_t> out_spatial_strides;
  // Per spatial dimension. Padding may be negative.
  std::vector<int64_t> window_strides, padding_low, padding_high, lhs_dilation,
      rhs_dilation;
  std::vector<bool> window_reversal;  // empty = no reversal
  int64_t feature_group_count = 1, batch_group_count = 1;

  // Optional epilogue hook: called with (output batch b, y0, y1) once the
  // output rows y in [y0, y1) of spatial dimension 0 of batch element b are
  // completely written (every feature, every other spatial position); for
  // fewer than 2 spatial dimensions, with (b, 0, 1) once batch element b is
  // complete. The calls cover the output exactly once, may come from
  // several threads at once (disjoint ranges) and are made while the rows
  // are still in cache when the fast path computes them.
  std::function<void(int64_t b, int64_t y0, int64_t y1)> on_rows_done;
};

// out_spatial must equal the size implied by the other fields:
//   padded = (in - 1) * lhs_dilation + 1 + padding_low + padding_high
//            (in == 0: padding_low + padding_high)
//   window = (kernel - 1) * rhs_dilation + 1  (kernel == 0: 0)
//   out    = padded < window ? 0 : (padded - window) / stride + 1
// Invalid dimensions are an InvalidArgument error naming the problem; a
// failed scratch allocation is ResourceExhausted. pool may be null.
// Thread-safe.
absl::Status Conv(const ConvDims& d, const float* lhs, const float* rhs,
                  float* out, ThreadPool* pool);
absl::Status Conv(const ConvDims& d, const double* lhs, const double* rhs,
                  double* out, ThreadPool* pool);

// The output spatial size of one dimension per the formula above (0 when the
// window does not fit). Arguments are not validated.
int64_t ConvOutputSize(int64_t in, int64_t kernel, int64_t stride,
                       int64_t padding_low, int64_t padding_high,
                       int64_t lhs_dilation, int64_t rhs_dilation);

// True when an f32 Conv(d) would run on the Winograd path (AVX-512
// kernels, a shape it supports and where it pays). Plugins built on the CPU
// plugin (onednn) use it to leave such convolutions here.
bool ConvTakesWinograd(const ConvDims& d);

namespace internal {
// Turns the f32 fast paths (implicit im2col and Winograd) off (false) or back
// on (true, the default), so tests can cover the general path. Not meant to
// be called during a Conv.
void EnableConvFastPathForTesting(bool enabled);
// Turns only the Winograd path off (false: shapes it would take go to the
// implicit im2col fast path, if that is on) or back on (true, the default),
// so tests can compare the two. Not meant to be called during a Conv.
void EnableConvWinogradForTesting(bool enabled);
// Makes the Winograd path (when enabled) take every shape it supports, also
// those too small for it to pay (true), or only those where it pays (false,
// the default), so tests can cover small and odd shapes on it. Not meant to
// be called during a Conv.
void ForceConvWinogradForTesting(bool forced);
}  // namespace internal

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_CONV_H_
