// LLVM IR for the CPU plugin's loop kernels.
//
// One kernel per fusion (kLoop, kInput) or per standalone elementwise,
// shape or reduce instruction: a loop nest over the result, every fused
// instruction computed in registers at the element being produced, so a
// fusion reads its inputs once and writes its result once. The innermost
// loop runs along the result's most-minor dimension, which is what LLVM's
// loop vectorizer widens (AVX-512 here, chosen for the host at run time).
//
// Kernel ABI (what the thunks call):
//
//   void kernel(void* const* buffers, int64_t begin_row, int64_t end_row);
//
//   buffers[0]      the result (a dense array in the result's layout);
//   buffers[1 + i]  operand i of the instruction (for a fusion: its
//                   parameters), each dense in its own layout.
//   Rows [begin_row, end_row) of the result are written; a row is a run
//   of `row_length` consecutive elements along the result's most-minor
//   dimension (in physical order): the whole dimension, or an equal piece
//   of a long one, so that threads can share a single long row. A reduce
//   has one result element per row. Rows are independent, so any split of
//   [0, rows) across threads gives the same bytes.
//
// Numerics follow docs/evaluator.md (the oracle) exactly for arithmetic,
// comparisons, conversions (saturating float→int, NaN → 0), integer
// division by zero and overflow, shifts, NaN-propagating maximum/minimum.
// Differences, documented in docs/cpu.md: f32 exp and tanh use vectorizable
// polynomial approximations (a few ulp), and reductions may reassociate
// floating-point sums (vector accumulators).
#ifndef PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_H_
#define PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/instruction.h"

namespace plexa::cpu {

using KernelFn = void (*)(void* const* buffers, int64_t begin_row,
                          int64_t end_row);
using ComparatorFn = uint8_t (*)(const void* const* args);

// The iteration space of a kernel: rows × row_length result elements.
struct KernelShape {
  int64_t rows = 1;
  int64_t row_length = 1;
  // Approximate work per result element (operations, including the
  // reduced elements of a reduce), used to choose the parallel split.
  int64_t cost_per_element = 1;
};

// Collects kernels into one LLVM module and compiles them together.
class KernelModule {
 public:
  // Kernels are spread over `shards` LLVM modules compiled in parallel.
  explicit KernelModule(absl::string_view module_name, int shards = 1);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  // OK when a kernel can be generated for `instr`: a kLoop or kInput
  // fusion, or a standalone elementwise, shape (broadcast, reshape,
  // transpose, slice, reverse, pad, concatenate, iota, copy) or reduce
  // instruction, over dense arrays of pred, s8–s64, u8–u64, f32 or f64.
  // Otherwise Unimplemented naming what is not supported (the plugin then
  // uses its runtime kernel for the instruction).
  static absl::Status CanEmit(const Instruction& instr);

  // Emits `void name(...)` for `instr` (CanEmit must be OK).
  absl::StatusOr<KernelShape> AddKernel(const Instruction& instr,
                                        absl::string_view name);
  int64_t kernel_count() const;

  // Comparators (sort's to_apply) as
  //   uint8_t name(const void* const* args);
  // args[p] points at the scalar value of parameter p; returns 0 or 1.
  // OK when the computation is scalar elementwise arithmetic over the
  // supported types.
  static absl::Status CanEmitComparator(const Computation& comparator);
  absl::Status AddComparator(const Computation& comparator,
                             absl::string_view name);

  // Optimizes every shard for the host CPU (LLVM's O2 pipeline with loop
  // and SLP vectorization), one thread per shard, and compiles each to an
  // ELF object. With `ir_dump`, the optimized IR is stored there too.
  absl::StatusOr<std::vector<std::string>> Compile(
      std::string* ir_dump = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CODEGEN_KERNEL_EMITTER_H_
