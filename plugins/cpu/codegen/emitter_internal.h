// Internal to plexa_cpu_codegen: the LLVM IR emitter behind KernelModule
// (kernel_emitter.h), split along its ideas:
//   kernel_checks.cc        what can be generated (CanEmit's rules)
//   kernel_emitter.cc       types, indices, kernels and comparators, and
//                           KernelModule (sharding, compilation)
//   instruction_emitter.cc  an instruction's value at an index (shape ops,
//                           reduce, reduce-window, gather, fused computations)
//   elementwise_emitter.cc  elementwise arithmetic on register values
// Includes LLVM headers: never include it outside plugins/cpu/codegen/*.cc.
#ifndef PLEXA_PLUGINS_CPU_CODEGEN_EMITTER_INTERNAL_H_
#define PLEXA_PLUGINS_CPU_CODEGEN_EMITTER_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/shape/shape.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "plugins/cpu/codegen/kernel_emitter.h"

namespace plexa::cpu::emitter_internal {

using llvm::IRBuilder;
using llvm::Value;

// ---- What can be generated (kernel_checks.cc) -----------------------------

bool SupportedType(PrimitiveType t);
bool IsHalf(PrimitiveType t);
absl::Status CheckShape(const Instruction& h, const Shape& s);
absl::Status CheckScalarComputation(const Computation& c);
// `h` can be generated as a kernel (fused: inside a fusion's computation).
absl::Status CheckInKernel(const Instruction& h, bool fused);

// ---- Index arithmetic (kernel_emitter.cc) ---------------------------------

std::vector<int64_t> MinorToMajor(const Shape& s);
bool SameDimsAndLayout(const Shape& a, const Shape& b);
bool IsRowMajor(const Shape& s);

struct Index {
  int64_t id = 0;
  const Shape* shape = nullptr;
  std::vector<Value*> dims;  // empty until known (rank > 0)
  Value* linear = nullptr;
};

// ---- The emitter ----------------------------------------------------------

class Emitter {
 public:
  Emitter(llvm::Module* module, IRBuilder<>* b) : module_(module), b_(*b) {}

  absl::StatusOr<KernelShape> EmitKernel(const Instruction& instr,
                                         absl::string_view name);
  absl::Status EmitComparator(const Computation& c, absl::string_view name);

 private:
  llvm::LLVMContext& ctx() { return module_->getContext(); }
  llvm::Type* I64() { return b_.getInt64Ty(); }
  Value* C64(int64_t v) { return b_.getInt64(v); }

  llvm::Type* RegisterType(PrimitiveType t);
  llvm::Type* MemoryType(PrimitiveType t);
  // Register <-> memory forms (pred: i1/i8; f16, bf16: float/i16).
  Value* FromMemory(Value* v, PrimitiveType t);
  Value* ToMemory(Value* v, PrimitiveType t);
  // A float value rounded to f16/bf16 (identity for other types).
  Value* Round(Value* v, PrimitiveType t);

  Index NewIndex(const Shape* shape, std::vector<Value*> dims, Value* linear) {
    return Index{next_index_id_++, shape, std::move(dims), linear};
  }
  const std::vector<Value*>& Dims(Index& idx);
  Value* LinearIn(Index& idx, const Shape& target);

  // Value of `h` (an instruction in the kernel) at `idx` (an index of
  // h's shape).
  absl::StatusOr<Value*> Emit(const Instruction& h, Index& idx);
  absl::StatusOr<Value*> EmitUncached(const Instruction& h, Index& idx);
  // Value of operand i of h at the index `idx` (of operand i's shape).
  absl::StatusOr<Value*> EmitOperand(const Instruction& h, int64_t i,
                                     Index& idx);
  absl::StatusOr<Value*> EmitLoad(int64_t buffer, const Shape& shape,
                                  Index& idx);
  absl::StatusOr<Value*> EmitConstant(const Instruction& h, Index& idx);
  absl::StatusOr<Value*> EmitReduce(const Instruction& h, Index& idx);
  absl::StatusOr<Value*> EmitReduceWindow(const Instruction& h, Index& idx);
  absl::StatusOr<Value*> EmitGather(const Instruction& h, Index& idx);
  // A scalar index operand value as i64. A u64 index above INT64_MAX
  // saturates there (it would read as negative and clamp to 0; the
  // evaluator clamps it to the last valid start).
  Value* IndexToI64(Value* v, PrimitiveType t) {
    if (t == PrimitiveType::U64) {
      return b_.CreateSelect(b_.CreateICmpSLT(v, C64(0)),
                             C64(std::numeric_limits<int64_t>::max()), v);
    }
    return primitive_util::IsSignedIntegralType(t) ? b_.CreateSExt(v, I64())
                                                   : b_.CreateZExt(v, I64());
  }
  Value* Clamp64(Value* v, int64_t lo, int64_t hi) {
    v = b_.CreateSelect(b_.CreateICmpSLT(v, C64(lo)), C64(lo), v);
    return b_.CreateSelect(b_.CreateICmpSGT(v, C64(hi)), C64(hi), v);
  }
  absl::StatusOr<Value*> EmitScalarComputation(const Computation& c,
                                               std::vector<Value*> args);

  // Elementwise arithmetic on register values.
  absl::StatusOr<Value*> EmitElementwise(const Instruction& h,
                                         absl::Span<Value* const> ops);
  absl::StatusOr<Value*> EmitElementwiseUnrounded(const Instruction& h,
                                                  absl::Span<Value* const> ops);
  Value* EmitConvert(Value* v, PrimitiveType from, PrimitiveType to);
  Value* EmitMaxMin(Value* a, Value* b, PrimitiveType t, bool is_max);
  Value* EmitDivRem(Value* a, Value* b, PrimitiveType t, bool is_div);
  Value* EmitShift(Value* a, Value* b, PrimitiveType t, HloOpcode op);
  Value* EmitCompare(Value* a, Value* b, PrimitiveType t,
                     ComparisonDirection dir);
  Value* EmitUnaryFloat(HloOpcode op, Value* x, PrimitiveType t);
  Value* CallLibm(absl::string_view f32_name, absl::string_view f64_name,
                  PrimitiveType t, std::vector<Value*> args);
  Value* Intrinsic(llvm::Intrinsic::ID id, std::vector<Value*> args);
  Value* ExpF32(Value* x);
  Value* TanhF32(Value* x);
  Value* FloatConst(PrimitiveType t, double v) {
    return llvm::ConstantFP::get(RegisterType(t), v);
  }

  // for (i = lo; i < hi; ++i) body(i)
  template <typename Body>
  absl::Status ForLoop(Value* lo, Value* hi, absl::string_view name, Body body);

  llvm::Module* module_;
  IRBuilder<>& b_;
  llvm::Function* function_ = nullptr;
  llvm::BasicBlock* entry_block_ = nullptr;
  // Standalone kernels read operand i from buffer 1 + i; fused kernels
  // recurse into the fused computation (its parameters are the buffers).
  bool fused_ = false;
  // f16 loads keep signaling NaNs' bits (a totalOrder compare reads them).
  bool exact_f16_nans_ = false;
  const Instruction* root_ = nullptr;
  std::vector<Value*> buffers_;  // base pointers, loaded in the entry block
  int64_t next_index_id_ = 1;
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>, Value*> cache_;
  absl::flat_hash_map<const Instruction*, llvm::GlobalVariable*> constants_;
};

template <typename Body>
absl::Status Emitter::ForLoop(Value* lo, Value* hi, absl::string_view name,
                              Body body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header =
      llvm::BasicBlock::Create(ctx(), absl::StrCat(name, ".header"), function_);
  llvm::BasicBlock* body_bb =
      llvm::BasicBlock::Create(ctx(), absl::StrCat(name, ".body"), function_);
  llvm::BasicBlock* exit =
      llvm::BasicBlock::Create(ctx(), absl::StrCat(name, ".exit"), function_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(I64(), 2, absl::StrCat(name, ".i"));
  i->addIncoming(lo, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, hi), body_bb, exit);
  b_.SetInsertPoint(body_bb);
  if (absl::Status s = body(static_cast<Value*>(i)); !s.ok()) return s;
  Value* next = b_.CreateAdd(i, C64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  return absl::OkStatus();
}

}  // namespace plexa::cpu::emitter_internal

#endif  // PLEXA_PLUGINS_CPU_CODEGEN_EMITTER_INTERNAL_H_
