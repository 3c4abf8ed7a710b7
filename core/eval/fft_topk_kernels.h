// The kernels of fft and topk on dense row-major buffers, shared by the
// evaluator (core/eval/fft.cc, topk.cc) and the backend toolkit's native
// thunks (plugins/common/fft_topk_thunks.h), so every backend computes the
// same values.
#ifndef PLEXA_CORE_EVAL_FFT_TOPK_KERNELS_H_
#define PLEXA_CORE_EVAL_FFT_TOPK_KERNELS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/shape/primitive_type.h"

namespace plexa::eval {

// fft over the innermost fft_length.size() (1 to 3) dimensions of `in`
// (in_type, in_dims) into `out` (out_type, out_dims; same rank, same batch
// dimensions): FFT/IFFT c64->c64 or c128->c128, RFFT f32->c64 or
// f64->c128, IRFFT c64->f32 or c128->f64, as numpy.fft's fftn, ifftn,
// rfftn and irfftn (forward unnormalized, inverses scaled by 1/N). Per fft
// dimension fft_length elements are read (zero-padded or truncated) and the
// output's extent written (zeros past fft_length). InvalidArgument for
// inconsistent arguments, Unimplemented past 2^28 elements per transform.
// Thread-compatible: no shared state.
absl::Status FftKernel(FftType type, absl::Span<const int64_t> fft_length,
                       PrimitiveType in_type, absl::Span<const int64_t> in_dims,
                       const void* in, PrimitiveType out_type,
                       absl::Span<const int64_t> out_dims, void* out);

// topk of `rows` rows of `n` elements of `type`: the k largest (or
// smallest) of each row, sorted, into values[rows][k] and their indices
// into indices[rows][k]; ties keep the lower index first, floats in XLA's
// total order. Unimplemented for complex types (no order).
absl::Status TopKRowsKernel(PrimitiveType type, int64_t rows, int64_t n,
                            int64_t k, bool largest, const void* in,
                            void* values, int32_t* indices);

}  // namespace plexa::eval

#endif  // PLEXA_CORE_EVAL_FFT_TOPK_KERNELS_H_
