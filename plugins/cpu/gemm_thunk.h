// dot on the packed GEMM (runtime/gemm.h): f32 and f64 dense arrays whose
// batch, free and contracting dimensions each collapse into one strided
// dimension; the operands are swapped (C^T = B^T A^T) when the result is
// column-major.
#ifndef PLEXA_PLUGINS_CPU_GEMM_THUNK_H_
#define PLEXA_PLUGINS_CPU_GEMM_THUNK_H_

#include <memory>

#include "core/ir/instruction.h"
#include "plugins/cpu/cpu_thunk.h"
#include "plugins/cpu/runtime/gemm.h"

namespace plexa::cpu {

// dot as a (batched) GEMM with strided operands.
template <typename T>
class GemmThunk : public Thunk {
 public:
  explicit GemmThunk(GemmArgs<T> args) : args_(args) {}
  absl::Status Run(Frame& f) const override;
  backend::StepClass step_class() const override {
    return backend::StepClass::kGemm;
  }
  int a_operand_ = 0;  // 1 when the operands were swapped (C^T = B^T A^T)

 private:
  GemmArgs<T> args_;
};

// A GemmThunk for the dot `h` (inputs and outputs left to the caller), or
// null when `h` is not one it runs (the reference kernel takes those).
std::unique_ptr<Thunk> MakeGemmThunk(const Instruction& h);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_GEMM_THUNK_H_
