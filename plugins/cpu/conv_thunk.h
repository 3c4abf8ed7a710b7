// convolution on the CPU kernels (runtime/conv.h): f32 and f64 dense
// arrays, any dimension numbers, window, dilation, groups; an f32
// convolution may carry a loop-fusion epilogue that runs on each block of
// rows as soon as the convolution has written it.
#ifndef PLEXA_PLUGINS_CPU_CONV_THUNK_H_
#define PLEXA_PLUGINS_CPU_CONV_THUNK_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/ir/instruction.h"
#include "core/shape/shape.h"
#include "plugins/cpu/cpu_thunk.h"
#include "plugins/cpu/kernel_thunk.h"
#include "plugins/cpu/runtime/conv.h"

namespace plexa::cpu {

// convolution of T (float or double) on runtime/conv.h's kernels.
// inputs: lhs, rhs (then the epilogue's operands); outputs: the result
// (then the epilogue's).
template <typename T>
class ConvThunk : public Thunk {
 public:
  explicit ConvThunk(ConvDims dims) : dims_(std::move(dims)) {}

  // The loop fusion that consumes the convolution elementwise runs on each
  // block of output rows as soon as the convolution has written it, while
  // it is in cache. `row_strides[d]` is the kernel-row stride of output
  // dimension d (0 for the most-minor one), `pieces` the kernel rows per
  // most-minor line.
  void SetEpilogue(std::unique_ptr<KernelThunk> kernel, Shape out,
                   int64_t batch_dim, int64_t spatial0_dim);

  absl::Status Run(Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kConvolution;
  }

 private:
  ConvDims dims_;
  std::unique_ptr<KernelThunk> epilogue_;
  Shape out_;
  int64_t batch_dim_ = -1, spatial0_dim_ = -1, pieces_ = 1;
  std::vector<int64_t> row_strides_;
  std::vector<int64_t> others_;
};

// The runtime description of the convolution `h`, or nullopt when it is not
// one the kernels run (other types, sparse layouts: the reference kernel).
std::optional<ConvDims> MakeConvDims(const Instruction& h);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CONV_THUNK_H_
