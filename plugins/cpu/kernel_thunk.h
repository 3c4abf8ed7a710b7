// A JIT-compiled loop kernel (codegen/kernel_emitter.h): its rows split
// across the thread pool in chunks of about 32K element-operations.
#ifndef PLEXA_PLUGINS_CPU_KERNEL_THUNK_H_
#define PLEXA_PLUGINS_CPU_KERNEL_THUNK_H_

#include <string>
#include <utility>

#include "plugins/cpu/codegen/kernel_emitter.h"
#include "plugins/cpu/cpu_thunk.h"

namespace plexa::cpu {

class KernelThunk : public Thunk {
 public:
  KernelThunk(std::string name, KernelShape shape)
      : name_(std::move(name)), shape_(shape) {}
  const std::string& name() const { return name_; }
  void set_fn(KernelFn fn) { fn_ = fn; }
  KernelFn fn() const { return fn_; }
  // The kernel's buffer array (kernel_emitter.h): results, then operands.
  void CollectBuffers(const Frame& f, void** out) const {
    size_t k = 0;
    for (int s : outputs) out[k++] = f.ptr[s];
    for (int s : inputs) out[k++] = f.ptr[s];
  }
  const KernelShape& shape() const { return shape_; }
  absl::Status Run(Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kKernel;
  }

 private:
  std::string name_;
  KernelShape shape_;
  KernelFn fn_ = nullptr;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_KERNEL_THUNK_H_
