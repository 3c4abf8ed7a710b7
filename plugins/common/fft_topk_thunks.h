// fft and topk as native thunks on row-major buffers: the evaluator's
// kernels (core/eval/fft_topk_kernels.h) called on the slots directly, with
// no literal conversion, so every plugin runs them natively and computes
// what the evaluator computes.
#ifndef PLEXA_PLUGINS_COMMON_FFT_TOPK_THUNKS_H_
#define PLEXA_PLUGINS_COMMON_FFT_TOPK_THUNKS_H_

#include <cstdint>
#include <vector>

#include "core/ir/attributes.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

// inputs: the operand's leaf; outputs: the result's. Both row-major.
class FftThunk : public Thunk {
 public:
  FftThunk(FftType type, std::vector<int64_t> fft_length, Shape operand,
           Shape result)
      : type_(type),
        fft_length_(std::move(fft_length)),
        operand_(std::move(operand)),
        result_(std::move(result)) {}
  absl::Status Run(Frame& f) const override;

 private:
  FftType type_;
  std::vector<int64_t> fft_length_;
  Shape operand_;
  Shape result_;
};

// inputs: the operand's leaf; outputs: values then s32 indices. Row-major.
class TopKThunk : public Thunk {
 public:
  TopKThunk(Shape operand, int64_t k, bool largest)
      : operand_(std::move(operand)), k_(k), largest_(largest) {}
  absl::Status Run(Frame& f) const override;

 private:
  Shape operand_;
  int64_t k_;
  bool largest_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_FFT_TOPK_THUNKS_H_
