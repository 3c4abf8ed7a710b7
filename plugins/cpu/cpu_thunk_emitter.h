// The CPU plugin's half of instruction -> thunks (the toolkit's
// ThunkEmitter does the rest: slots, control flow, all-reduce, feeds,
// in-place updates, buffer assignment):
//   - dot: GemmThunk; convolution: ConvThunk (an f32 one may take the loop
//     fusion that consumes it as an epilogue);
//   - dynamic-update-slice, scatter, select-and-scatter, sort: host
//     kernels (sort with a JIT-compiled comparator);
//   - custom-call: CustomCallThunk, resolved now;
//   - fusions, elementwise, shape and reduce instructions: JIT-compiled
//     LLVM loop kernels (codegen/kernel_emitter.h);
//   - the rest: the evaluator (ReferenceThunk).
// A CpuExtension (cpu_extension.h) is asked first and may claim any
// instruction with a thunk of its own.
#ifndef PLEXA_PLUGINS_CPU_CPU_THUNK_EMITTER_H_
#define PLEXA_PLUGINS_CPU_CPU_THUNK_EMITTER_H_

#include <cstdint>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "plugins/common/thunk_emitter.h"
#include "plugins/cpu/codegen/kernel_emitter.h"
#include "plugins/cpu/conv_thunk.h"
#include "plugins/cpu/cpu_extension.h"
#include "plugins/cpu/kernel_thunk.h"
#include "plugins/cpu/sort_thunk.h"

namespace plexa::cpu {

class CpuThunkEmitter : public backend::ThunkEmitter {
 public:
  // `kernels` collects the loop kernels and comparators to compile;
  // `resolver` resolves custom-call targets; `extension` (may be null) is
  // asked first for every instruction. All must outlive the emitter.
  // `platform` is what typed custom calls see as their frame's platform.
  CpuThunkEmitter(const DeviceGrid& grid,
                  const sdk::CustomCallResolver& custom_calls,
                  KernelModule* kernels, backend::ProgramStats* stats,
                  CpuExtension* extension = nullptr,
                  std::string platform = "cpu")
      : ThunkEmitter(grid, stats),
        custom_calls_(custom_calls),
        kernels_(kernels),
        extension_(extension),
        platform_(std::move(platform)) {}

  // The thunks whose functions come from the compiled kernels.
  std::vector<KernelThunk*>& kernel_thunks() { return kernel_thunks_; }
  std::vector<SortThunk*>& sort_thunks() { return sort_thunks_; }

 protected:
  absl::Status EmitBackendInstruction(CompiledComputation& cc,
                                      const Instruction& h) override;

 private:
  absl::Status EmitCustomCall(CompiledComputation& cc, const Instruction& h);
  absl::Status EmitSort(CompiledComputation& cc, const Instruction& h);
  void EmitConv(CompiledComputation& cc, const Instruction& h, ConvDims dims);
  // A loop kernel for `h`, or the reference kernel when the emitter turns
  // it down.
  absl::Status EmitKernel(CompiledComputation& cc, const Instruction& h);
  absl::StatusOr<bool> FuseIntoConvolution(CompiledComputation& cc,
                                           const Instruction& h);

  const sdk::CustomCallResolver& custom_calls_;
  KernelModule* kernels_;
  CpuExtension* extension_;
  std::string platform_;
  absl::flat_hash_map<const Instruction*, ConvThunk<float>*> f32_convs_;
  std::vector<KernelThunk*> kernel_thunks_;
  std::vector<SortThunk*> sort_thunks_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_THUNK_EMITTER_H_
