#include "plugins/cpu/codegen/kernel_emitter.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/literal/literal.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/codegen/llvm_util.h"

namespace plexa::cpu {
namespace {

using llvm::IRBuilder;
using llvm::Value;

// ---- What can be generated ----------------------------------------------

bool SupportedType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
    case PrimitiveType::S8:
    case PrimitiveType::S16:
    case PrimitiveType::S32:
    case PrimitiveType::S64:
    case PrimitiveType::U8:
    case PrimitiveType::U16:
    case PrimitiveType::U32:
    case PrimitiveType::U64:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
    case PrimitiveType::F32:
    case PrimitiveType::F64:
      return true;
    default:
      return false;
  }
}

bool IsHalf(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16;
}

absl::Status CheckShape(const Instruction& h, const Shape& s) {
  if (!ShapeUtil::IsDenseArray(s)) {
    return absl::UnimplementedError(
        absl::StrCat(h.name(), ": ", s.ToString(), " is not a dense array"));
  }
  if (!SupportedType(s.element_type())) {
    return absl::UnimplementedError(absl::StrCat(
        h.name(), ": element type ", primitive_util::Name(s.element_type()),
        " has no generated code"));
  }
  return absl::OkStatus();
}

bool IsShapeOp(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kReshape:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kReverse:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kIota:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice:
      return true;
    default:
      return false;
  }
}

// Elementwise ops with generated code, given the types involved.
absl::Status CheckElementwise(const Instruction& h) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType in =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  const bool fp = primitive_util::IsFloatingPointType(in);
  switch (h.opcode()) {
    case HloOpcode::kAdd:
    case HloOpcode::kSubtract:
    case HloOpcode::kMultiply:
    case HloOpcode::kDivide:
    case HloOpcode::kRemainder:
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum:
    case HloOpcode::kNegate:
    case HloOpcode::kAbs:
    case HloOpcode::kSign:
    case HloOpcode::kSelect:
    case HloOpcode::kClamp:
      return absl::OkStatus();
    case HloOpcode::kConvert:
      // f16/bf16 results are rounded once (docs/evaluator.md): from f64 to
      // bf16, or from an integer wider than float's 24-bit significand,
      // going through float would round twice.
      if (IsHalf(out) &&
          ((in == PrimitiveType::F64 && out == PrimitiveType::BF16) ||
           (primitive_util::IsIntegralType(in) &&
            primitive_util::BitWidth(in) > 16))) {
        break;
      }
      return absl::OkStatus();
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kXor:
    case HloOpcode::kNot:
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
    case HloOpcode::kPopulationCount:
    case HloOpcode::kClz:
      if (!fp) return absl::OkStatus();
      break;
    case HloOpcode::kCompare:
      return absl::OkStatus();
    case HloOpcode::kBitcastConvert:
      if (primitive_util::BitWidth(in) == primitive_util::BitWidth(out) &&
          in != PrimitiveType::PRED && out != PrimitiveType::PRED &&
          !IsHalf(in) && !IsHalf(out)) {
        return absl::OkStatus();
      }
      break;
    case HloOpcode::kExp:
    case HloOpcode::kExpm1:
    case HloOpcode::kLog:
    case HloOpcode::kLog1p:
    case HloOpcode::kSqrt:
    case HloOpcode::kRsqrt:
    case HloOpcode::kCbrt:
    case HloOpcode::kSin:
    case HloOpcode::kCos:
    case HloOpcode::kTan:
    case HloOpcode::kTanh:
    case HloOpcode::kErf:
    case HloOpcode::kLogistic:
    case HloOpcode::kFloor:
    case HloOpcode::kCeil:
    case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven:
    case HloOpcode::kIsFinite:
    case HloOpcode::kAtan2:
    case HloOpcode::kPower:
      if (fp) return absl::OkStatus();
      break;
    default:
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": no generated code for ", HloOpcodeString(h.opcode()), " on ",
      primitive_util::Name(in)));
}

absl::Status CheckScalarComputation(const Computation& c) {
  for (const Instruction* h : c.instructions()) {
    if (h->opcode() == HloOpcode::kParameter) continue;
    if (absl::Status s = CheckShape(*h, h->shape()); !s.ok()) return s;
    if (!h->shape().IsScalar()) {
      return absl::UnimplementedError(absl::StrCat(
          c.name(), ": ", h->name(), " is not a scalar operation"));
    }
    if (h->opcode() == HloOpcode::kConstant) continue;
    if (!IsElementwise(h->opcode())) {
      return absl::UnimplementedError(
          absl::StrCat(c.name(), ": ", HloOpcodeString(h->opcode()),
                       " in a reducer has no generated code"));
    }
    if (absl::Status s = CheckElementwise(*h); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckReduce(const Instruction& h) {
  if (h.operand_count() != 2 || h.shape().IsTuple()) {
    return absl::UnimplementedError(
        absl::StrCat(h.name(), ": variadic reduce has no generated code"));
  }
  return CheckScalarComputation(*h.to_apply());
}

// One instruction inside a kernel (fused or standalone).
absl::Status CheckInKernel(const Instruction& h, bool fused) {
  if (fused && h.opcode() == HloOpcode::kParameter) {
    return CheckShape(h, h.shape());
  }
  if (absl::Status s = CheckShape(h, h.shape()); !s.ok()) return s;
  for (const Instruction* op : h.operands()) {
    if (absl::Status s = CheckShape(h, op->shape()); !s.ok()) return s;
  }
  const HloOpcode op = h.opcode();
  if (op == HloOpcode::kConstant) return absl::OkStatus();
  if (op == HloOpcode::kReduce) return CheckReduce(h);
  if (op == HloOpcode::kReduceWindow) {
    if (h.operand_count() != 2 || !h.attrs().window.has_value() ||
        static_cast<int64_t>(h.attrs().window->dimensions.size()) !=
            h.operand(0)->shape().rank()) {
      return absl::UnimplementedError(absl::StrCat(
          h.name(), ": variadic reduce-window has no generated code"));
    }
    return CheckScalarComputation(*h.to_apply());
  }
  if (op == HloOpcode::kGather) {
    const auto& dn = h.attrs().gather_dimension_numbers;
    const Shape& is = h.operand(1)->shape();
    if (!dn.has_value() || !dn->operand_batching_dims.empty() ||
        !primitive_util::IsIntegralType(is.element_type()) ||
        dn->index_vector_dim > is.rank() ||
        static_cast<int64_t>(h.attrs().gather_slice_sizes.size()) !=
            h.operand(0)->shape().rank()) {
      return absl::UnimplementedError(
          absl::StrCat(h.name(), ": this gather form has no generated code"));
    }
    // The shapes must agree with the dimension numbers (else the
    // reference kernel reports the error).
    const Shape& os = h.operand(0)->shape();
    const int64_t vector = dn->index_vector_dim < is.rank()
                               ? is.dimensions(dn->index_vector_dim)
                               : 1;
    const int64_t index_batch =
        is.rank() - (dn->index_vector_dim < is.rank() ? 1 : 0);
    const int64_t out_batch =
        h.shape().rank() - static_cast<int64_t>(dn->offset_dims.size());
    const int64_t window =
        os.rank() - static_cast<int64_t>(dn->collapsed_slice_dims.size());
    bool ok = static_cast<int64_t>(dn->start_index_map.size()) == vector &&
              index_batch == out_batch && out_batch >= 0 &&
              window == static_cast<int64_t>(dn->offset_dims.size());
    for (int64_t m : dn->start_index_map) ok &= m >= 0 && m < os.rank();
    for (int64_t d : dn->offset_dims) ok &= d >= 0 && d < h.shape().rank();
    for (int64_t d : dn->collapsed_slice_dims) ok &= d >= 0 && d < os.rank();
    for (int64_t d = 0; ok && d < os.rank(); ++d) {
      ok &= h.attrs().gather_slice_sizes[d] >= 0 &&
            h.attrs().gather_slice_sizes[d] <= os.dimensions(d);
    }
    if (!ok) {
      return absl::UnimplementedError(
          absl::StrCat(h.name(), ": inconsistent gather dimension numbers"));
    }
    return absl::OkStatus();
  }
  if (op == HloOpcode::kDynamicSlice || op == HloOpcode::kDynamicUpdateSlice) {
    // Scalar start indices, one per dimension (not the old vector form).
    const int64_t first = op == HloOpcode::kDynamicSlice ? 1 : 2;
    if (h.operand_count() != first + h.operand(0)->shape().rank()) {
      return absl::UnimplementedError(absl::StrCat(
          h.name(), ": start indices as one vector have no generated code"));
    }
    for (int64_t i = first; i < h.operand_count(); ++i) {
      if (!h.operand(i)->shape().IsScalar() ||
          !primitive_util::IsIntegralType(
              h.operand(i)->shape().element_type())) {
        return absl::UnimplementedError(
            absl::StrCat(h.name(), ": start indices must be integer scalars"));
      }
    }
    return absl::OkStatus();
  }
  if (IsShapeOp(op)) return absl::OkStatus();
  if (IsElementwise(op)) return CheckElementwise(h);
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": ", HloOpcodeString(op), " has no generated code"));
}

// ---- Index arithmetic ---------------------------------------------------

std::vector<int64_t> MinorToMajor(const Shape& s) {
  const Layout l = LayoutUtil::EffectiveLayout(s);
  return std::vector<int64_t>(l.minor_to_major().begin(),
                              l.minor_to_major().end());
}

bool SameDimsAndLayout(const Shape& a, const Shape& b) {
  return a.dimensions() == b.dimensions() &&
         (a.rank() <= 1 || MinorToMajor(a) == MinorToMajor(b));
}

bool IsRowMajor(const Shape& s) {
  const std::vector<int64_t> m2m = MinorToMajor(s);
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

// A position in an array: the logical multi-index and/or the physical
// linear index in `shape` (dims + layout). Either may be missing and is
// derived on demand. `id` keys the per-element value cache.
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
  // A scalar index operand value as i64.
  Value* IndexToI64(Value* v, PrimitiveType t) {
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
  const Instruction* root_ = nullptr;
  std::vector<Value*> buffers_;  // base pointers, loaded in the entry block
  int64_t next_index_id_ = 1;
  absl::flat_hash_map<std::pair<const Instruction*, int64_t>, Value*> cache_;
  absl::flat_hash_map<const Instruction*, llvm::GlobalVariable*> constants_;
};

llvm::Type* Emitter::RegisterType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
      return b_.getInt1Ty();
    case PrimitiveType::S8:
    case PrimitiveType::U8:
      return b_.getInt8Ty();
    case PrimitiveType::S16:
    case PrimitiveType::U16:
      return b_.getInt16Ty();
    case PrimitiveType::S32:
    case PrimitiveType::U32:
      return b_.getInt32Ty();
    case PrimitiveType::S64:
    case PrimitiveType::U64:
      return b_.getInt64Ty();
    case PrimitiveType::F16:
    case PrimitiveType::BF16:  // computed in float, rounded when produced
    case PrimitiveType::F32:
      return b_.getFloatTy();
    case PrimitiveType::F64:
      return b_.getDoubleTy();
    default:
      return nullptr;  // excluded by CanEmit
  }
}

llvm::Type* Emitter::MemoryType(PrimitiveType t) {
  if (t == PrimitiveType::PRED) return b_.getInt8Ty();
  if (IsHalf(t)) return b_.getInt16Ty();
  return RegisterType(t);
}

Value* Emitter::FromMemory(Value* v, PrimitiveType t) {
  if (t == PrimitiveType::PRED) {
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (t == PrimitiveType::F16) {
    return b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
  }
  if (t == PrimitiveType::BF16) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16),
                            b_.getFloatTy());
  }
  return v;
}

Value* Emitter::ToMemory(Value* v, PrimitiveType t) {
  if (t == PrimitiveType::PRED) return b_.CreateZExt(v, b_.getInt8Ty());
  if (t == PrimitiveType::F16) {
    return b_.CreateBitCast(b_.CreateFPTrunc(v, b_.getHalfTy()),
                            b_.getInt16Ty());
  }
  if (t == PrimitiveType::BF16) {
    // Round to nearest even on the bits; NaN stays a (quiet) NaN.
    Value* bits = b_.CreateBitCast(v, b_.getInt32Ty());
    Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), b_.getInt32(1));
    Value* rounded = b_.CreateAdd(bits, b_.CreateAdd(b_.getInt32(0x7FFF), lsb));
    Value* quiet = b_.CreateOr(bits, b_.getInt32(0x400000));
    Value* r = b_.CreateSelect(b_.CreateFCmpUNO(v, v), quiet, rounded);
    return b_.CreateTrunc(b_.CreateLShr(r, 16), b_.getInt16Ty());
  }
  return v;
}

Value* Emitter::Round(Value* v, PrimitiveType t) {
  return IsHalf(t) ? FromMemory(ToMemory(v, t), t) : v;
}

const std::vector<Value*>& Emitter::Dims(Index& idx) {
  const Shape& s = *idx.shape;
  if (static_cast<int64_t>(idx.dims.size()) == s.rank()) return idx.dims;
  // Delinearize the physical linear index, most minor dimension first.
  idx.dims.assign(s.rank(), nullptr);
  Value* rest = idx.linear;
  const std::vector<int64_t> m2m = MinorToMajor(s);
  for (size_t i = 0; i < m2m.size(); ++i) {
    const int64_t d = m2m[i];
    const int64_t n = s.dimensions(d);
    if (i + 1 == m2m.size()) {
      idx.dims[d] = rest;
    } else {
      idx.dims[d] = b_.CreateURem(rest, C64(n));
      rest = b_.CreateUDiv(rest, C64(n));
    }
  }
  return idx.dims;
}

Value* Emitter::LinearIn(Index& idx, const Shape& target) {
  if (target.rank() == 0) return C64(0);
  if (idx.linear != nullptr && SameDimsAndLayout(*idx.shape, target)) {
    return idx.linear;
  }
  const std::vector<Value*>& dims = Dims(idx);
  const std::vector<int64_t> strides = IndexUtil::LayoutStrides(target);
  Value* linear = C64(0);
  for (int64_t d = 0; d < target.rank(); ++d) {
    if (target.dimensions(d) == 1) continue;
    linear = b_.CreateAdd(linear, b_.CreateMul(dims[d], C64(strides[d])));
  }
  return linear;
}

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

absl::StatusOr<KernelShape> Emitter::EmitKernel(const Instruction& instr,
                                                absl::string_view name) {
  fused_ = instr.opcode() == HloOpcode::kFusion;
  root_ = fused_ ? instr.to_apply()->root_instruction() : &instr;
  const Shape& out = instr.shape();

  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_type =
      llvm::FunctionType::get(b_.getVoidTy(), {ptr, I64(), I64()}, false);
  function_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage,
                                     std::string(name), module_);
  function_->addFnAttr(llvm::Attribute::NoUnwind);
  function_->addFnAttr("target-cpu", GetHostTarget().cpu);
  function_->addFnAttr("target-features", GetHostTarget().features);
  // Full-width vectors: LLVM defaults to 256 bits on AVX-512 parts, but
  // these loops are either memory-bound or long arithmetic chains (exp,
  // tanh) that gain from 16 lanes.
  if (GetHostTarget().has_avx512) {
    function_->addFnAttr("prefer-vector-width", "512");
  }
  llvm::Argument* bufs = function_->getArg(0);
  bufs->addAttr(llvm::Attribute::NoAlias);
  Value* begin = function_->getArg(1);
  Value* end = function_->getArg(2);
  entry_block_ = llvm::BasicBlock::Create(ctx(), "entry", function_);
  b_.SetInsertPoint(entry_block_);

  const int64_t num_buffers = 1 + instr.operand_count();
  buffers_.clear();
  for (int64_t i = 0; i < num_buffers; ++i) {
    Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, bufs, i);
    auto* load = b_.CreateLoad(ptr, slot, absl::StrCat("buf", i));
    // Result and inputs never overlap (buffer assignment), which lets the
    // vectorizer skip runtime alias checks.
    load->setMetadata(llvm::LLVMContext::MD_nonnull,
                      llvm::MDNode::get(ctx(), {}));
    buffers_.push_back(load);
  }

  KernelShape ks;
  const std::vector<int64_t> m2m = MinorToMajor(out);
  // A reduce loops over its reduced elements inside each result element,
  // so every result element is a row of its own: threads split any result
  // (also a short one) and the inner reduction loop is what vectorizes.
  const bool reduce_root = root_->opcode() == HloOpcode::kReduce;
  const int64_t minor = out.rank() > 0 && !reduce_root ? m2m[0] : -1;
  const int64_t full_row = minor >= 0 ? out.dimensions(minor) : 1;
  // Long rows are cut into pieces (a divisor of the row between 1K and
  // 16K elements) so that threads can share even a single row.
  int64_t piece = full_row;
  if (full_row > 16384) {
    for (int64_t l = 16384; l >= 1024; --l) {
      if (full_row % l == 0) {
        piece = l;
        break;
      }
    }
  }
  const int64_t pieces = piece > 0 ? full_row / piece : 1;
  ks.row_length = piece;
  const int64_t elements = ShapeUtil::ElementsIn(out);
  ks.rows = full_row > 0 ? elements / full_row * pieces : 0;
  if (root_->opcode() == HloOpcode::kReduceWindow) {
    int64_t window = 1;
    for (const WindowDimension& w : root_->attrs().window->dimensions) {
      window *= w.size;
    }
    ks.cost_per_element = std::max<int64_t>(1, window);
  } else if (root_->opcode() == HloOpcode::kReduce) {
    const int64_t in = ShapeUtil::ElementsIn(root_->operand(0)->shape());
    ks.cost_per_element =
        elements > 0 ? std::max<int64_t>(1, in / elements) : 1;
  } else {
    ks.cost_per_element =
        fused_ ? std::max<int64_t>(
                     1, static_cast<int64_t>(
                            instr.to_apply()->instructions().size()) /
                            2)
               : 1;
  }
  const int64_t row_length = ks.row_length;

  absl::Status status = ForLoop(begin, end, "row", [&](Value* piece_row) {
    // The row and the piece of it this iteration writes.
    Value* row = piece_row;
    Value* col_base = C64(0);
    if (pieces > 1) {
      row = b_.CreateUDiv(piece_row, C64(pieces));
      col_base =
          b_.CreateMul(b_.CreateURem(piece_row, C64(pieces)), C64(row_length));
    }
    // The major dimensions of this row.
    std::vector<Value*> major(out.rank(), nullptr);
    Value* rest = row;
    for (size_t i = minor >= 0 ? 1 : 0; i < m2m.size(); ++i) {
      const int64_t d = m2m[i];
      if (i + 1 == m2m.size()) {
        major[d] = rest;
      } else {
        major[d] = b_.CreateURem(rest, C64(out.dimensions(d)));
        rest = b_.CreateUDiv(rest, C64(out.dimensions(d)));
      }
    }
    Value* row_base = b_.CreateAdd(b_.CreateMul(row, C64(full_row)), col_base);
    return ForLoop(C64(0), C64(row_length), "col", [&](Value* j) {
      std::vector<Value*> dims = major;
      if (minor >= 0) dims[minor] = b_.CreateAdd(col_base, j);
      Value* linear = b_.CreateAdd(row_base, j);
      Index idx = NewIndex(&out, std::move(dims), linear);
      absl::StatusOr<Value*> v = Emit(*root_, idx);
      if (!v.ok()) return v.status();
      Value* stored = ToMemory(*v, out.element_type());
      llvm::Type* mt = MemoryType(out.element_type());
      Value* addr = b_.CreateInBoundsGEP(mt, buffers_[0], linear);
      b_.CreateStore(stored, addr);
      cache_.clear();
      return absl::OkStatus();
    });
  });
  if (!status.ok()) return status;
  b_.CreateRetVoid();
  return ks;
}

absl::Status Emitter::EmitComparator(const Computation& c,
                                     absl::string_view name) {
  llvm::Type* ptr = b_.getPtrTy();
  auto* fn_type = llvm::FunctionType::get(b_.getInt8Ty(), {ptr}, false);
  function_ = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage,
                                     std::string(name), module_);
  function_->addFnAttr(llvm::Attribute::NoUnwind);
  function_->addFnAttr("target-cpu", GetHostTarget().cpu);
  function_->addFnAttr("target-features", GetHostTarget().features);
  entry_block_ = llvm::BasicBlock::Create(ctx(), "entry", function_);
  b_.SetInsertPoint(entry_block_);
  std::vector<Value*> args;
  for (const Instruction* p : c.parameter_instructions()) {
    const PrimitiveType t = p->shape().element_type();
    Value* slot = b_.CreateConstInBoundsGEP1_64(ptr, function_->getArg(0),
                                                p->parameter_number());
    Value* addr = b_.CreateLoad(ptr, slot);
    args.push_back(FromMemory(b_.CreateLoad(MemoryType(t), addr), t));
  }
  absl::StatusOr<Value*> r = EmitScalarComputation(c, args);
  if (!r.ok()) return r.status();
  b_.CreateRet(b_.CreateZExt(*r, b_.getInt8Ty()));
  return absl::OkStatus();
}

absl::StatusOr<Value*> Emitter::Emit(const Instruction& h, Index& idx) {
  const auto key = std::make_pair(&h, idx.id);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  absl::StatusOr<Value*> v = EmitUncached(h, idx);
  if (v.ok()) cache_[key] = *v;
  return v;
}

absl::StatusOr<Value*> Emitter::EmitOperand(const Instruction& h, int64_t i,
                                            Index& idx) {
  if (!fused_) return EmitLoad(1 + i, h.operand(i)->shape(), idx);
  return Emit(*h.operand(i), idx);
}

absl::StatusOr<Value*> Emitter::EmitLoad(int64_t buffer, const Shape& shape,
                                         Index& idx) {
  llvm::Type* mt = MemoryType(shape.element_type());
  Value* addr =
      b_.CreateInBoundsGEP(mt, buffers_[buffer], LinearIn(idx, shape));
  return FromMemory(b_.CreateLoad(mt, addr), shape.element_type());
}

absl::StatusOr<Value*> Emitter::EmitConstant(const Instruction& h, Index& idx) {
  const Literal& lit = h.literal();
  const Shape& s = h.shape();
  const PrimitiveType t = s.element_type();
  if (ShapeUtil::ElementsIn(s) == 1) {
    // Scalars (and one-element arrays) become immediates.
    Literal dense = lit;
    const uint8_t* p = dense.data().data();
    switch (t) {
      case PrimitiveType::PRED:
        return b_.getInt1(*p != 0);
      case PrimitiveType::F32: {
        float v;
        std::memcpy(&v, p, 4);
        return llvm::ConstantFP::get(b_.getFloatTy(), v);
      }
      case PrimitiveType::F64: {
        double v;
        std::memcpy(&v, p, 8);
        return llvm::ConstantFP::get(b_.getDoubleTy(), v);
      }
      case PrimitiveType::F16:
      case PrimitiveType::BF16: {
        uint16_t bits;
        std::memcpy(&bits, p, 2);
        return FromMemory(b_.getInt16(bits), t);
      }
      default: {
        uint64_t v = 0;
        std::memcpy(&v, p, primitive_util::ByteWidth(t));
        return llvm::ConstantInt::get(RegisterType(t), v);
      }
    }
  }
  llvm::GlobalVariable*& global = constants_[&h];
  if (global == nullptr) {
    // The literal's bytes in its own layout (the kernel indexes with it).
    const std::string& bytes_src = std::string(
        reinterpret_cast<const char*>(lit.data().data()), lit.data().size());
    llvm::Constant* init = llvm::ConstantDataArray::getRaw(
        bytes_src, ShapeUtil::ElementsIn(s), MemoryType(t));
    global = new llvm::GlobalVariable(*module_, init->getType(), true,
                                      llvm::GlobalValue::PrivateLinkage, init,
                                      absl::StrCat(h.name(), ".const"));
    global->setAlignment(llvm::Align(64));
  }
  llvm::Type* mt = MemoryType(t);
  Value* addr = b_.CreateInBoundsGEP(mt, global, LinearIn(idx, lit.shape()));
  return FromMemory(b_.CreateLoad(mt, addr), t);
}

absl::StatusOr<Value*> Emitter::EmitUncached(const Instruction& h, Index& idx) {
  const Shape& s = h.shape();
  switch (h.opcode()) {
    case HloOpcode::kParameter:
      return EmitLoad(1 + h.parameter_number(), s, idx);
    case HloOpcode::kConstant:
      return EmitConstant(h, idx);
    case HloOpcode::kReduce:
      return EmitReduce(h, idx);
    case HloOpcode::kReduceWindow:
      return EmitReduceWindow(h, idx);
    case HloOpcode::kGather:
      return EmitGather(h, idx);
    case HloOpcode::kCopy: {
      Index in = NewIndex(&h.operand(0)->shape(), Dims(idx), nullptr);
      if (SameDimsAndLayout(s, h.operand(0)->shape())) in.linear = idx.linear;
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kBroadcast: {
      const Shape& os = h.operand(0)->shape();
      std::vector<Value*> dims;
      if (os.rank() > 0) {
        const std::vector<Value*>& out = Dims(idx);
        for (int64_t k = 0; k < os.rank(); ++k) {
          dims.push_back(out[h.dimensions(k)]);
        }
      }
      Index in = NewIndex(&os, std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kReshape: {
      const Shape& os = h.operand(0)->shape();
      // Row-major linear positions agree between the two shapes.
      Value* row_major = nullptr;
      if (idx.linear != nullptr && IsRowMajor(s)) {
        row_major = idx.linear;
      } else {
        Shape rm = s;
        LayoutUtil::SetToDefaultLayout(&rm);
        row_major = LinearIn(idx, rm);
      }
      Shape os_rm = os;
      LayoutUtil::SetToDefaultLayout(&os_rm);
      Index in_rm = NewIndex(&os_rm, {}, row_major);
      if (os.rank() == 0) in_rm.dims.clear();
      Index in = NewIndex(&os, {}, nullptr);
      if (IsRowMajor(os)) {
        in.linear = row_major;
      } else {
        in.dims = Dims(in_rm);
      }
      if (os.rank() == 0) in.linear = C64(0);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kTranspose: {
      const std::vector<Value*>& out = Dims(idx);
      const Shape& os = h.operand(0)->shape();
      std::vector<Value*> dims(os.rank());
      for (int64_t i = 0; i < s.rank(); ++i) dims[h.dimensions(i)] = out[i];
      Index in = NewIndex(&os, std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kSlice: {
      const std::vector<Value*>& out = Dims(idx);
      std::vector<Value*> dims(s.rank());
      for (int64_t d = 0; d < s.rank(); ++d) {
        const SliceDimension& sd = h.attrs().slice[d];
        dims[d] =
            b_.CreateAdd(C64(sd.start), b_.CreateMul(out[d], C64(sd.stride)));
      }
      Index in = NewIndex(&h.operand(0)->shape(), std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kReverse: {
      std::vector<Value*> dims = Dims(idx);
      for (int64_t d : h.dimensions()) {
        dims[d] = b_.CreateSub(C64(s.dimensions(d) - 1), dims[d]);
      }
      Index in = NewIndex(&h.operand(0)->shape(), std::move(dims), nullptr);
      return EmitOperand(h, 0, in);
    }
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kDynamicUpdateSlice: {
      // Start indices are scalars (operands 1.. for dynamic-slice, 2.. for
      // dynamic-update-slice), clamped so the slice fits (XLA).
      const bool update = h.opcode() == HloOpcode::kDynamicUpdateSlice;
      const Shape& os = h.operand(0)->shape();
      const Shape& window = update ? h.operand(1)->shape() : s;
      const int64_t first = update ? 2 : 1;
      std::vector<Value*> starts(os.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        const Shape& is = h.operand(first + d)->shape();
        Index scalar = NewIndex(&is, {}, C64(0));
        absl::StatusOr<Value*> v = EmitOperand(h, first + d, scalar);
        if (!v.ok()) return v;
        Value* start = primitive_util::IsSignedIntegralType(is.element_type())
                           ? b_.CreateSExt(*v, I64())
                           : b_.CreateZExt(*v, I64());
        const int64_t hi = os.dimensions(d) - window.dimensions(d);
        start = b_.CreateSelect(b_.CreateICmpSLT(start, C64(0)), C64(0), start);
        starts[d] =
            b_.CreateSelect(b_.CreateICmpSGT(start, C64(hi)), C64(hi), start);
      }
      const std::vector<Value*>& out = Dims(idx);
      if (!update) {
        std::vector<Value*> dims(os.rank());
        for (int64_t d = 0; d < os.rank(); ++d) {
          dims[d] = b_.CreateAdd(out[d], starts[d]);
        }
        Index in = NewIndex(&os, std::move(dims), nullptr);
        return EmitOperand(h, 0, in);
      }
      // Inside the window: the update's element; else the operand's.
      Value* inside = b_.getTrue();
      std::vector<Value*> udims(window.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        Value* rel = b_.CreateSub(out[d], starts[d]);
        const int64_t n = window.dimensions(d);
        inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, C64(0)));
        inside = b_.CreateAnd(inside, b_.CreateICmpSLT(rel, C64(n)));
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(rel, C64(0)), C64(0), rel);
        udims[d] = b_.CreateSelect(b_.CreateICmpSGE(lo, C64(n)),
                                   C64(std::max<int64_t>(n - 1, 0)), lo);
      }
      Index base = NewIndex(&os, out, nullptr);
      if (SameDimsAndLayout(os, *idx.shape)) base.linear = idx.linear;
      absl::StatusOr<Value*> orig = EmitOperand(h, 0, base);
      if (!orig.ok()) return orig;
      if (ShapeUtil::ElementsIn(window) == 0) return *orig;
      Index uidx = NewIndex(&window, std::move(udims), nullptr);
      absl::StatusOr<Value*> upd = EmitOperand(h, 1, uidx);
      if (!upd.ok()) return upd;
      return b_.CreateSelect(inside, *upd, *orig);
    }
    case HloOpcode::kIota: {
      const std::vector<Value*>& out = Dims(idx);
      Value* i = out[h.attrs().iota_dimension];
      const PrimitiveType t = s.element_type();
      if (primitive_util::IsFloatingPointType(t)) {
        // Through double: exact for any index an array can have, then
        // rounded once to the type.
        Value* d = b_.CreateSIToFP(i, b_.getDoubleTy());
        if (t == PrimitiveType::F64) return d;
        if (t == PrimitiveType::F16) {
          return b_.CreateFPExt(b_.CreateFPTrunc(d, b_.getHalfTy()),
                                b_.getFloatTy());
        }
        if (t == PrimitiveType::BF16)
          return Round(b_.CreateSIToFP(i, b_.getFloatTy()), t);
        return b_.CreateFPTrunc(d, b_.getFloatTy());
      }
      return b_.CreateTrunc(i, RegisterType(t));
    }
    case HloOpcode::kPad: {
      const Shape& os = h.operand(0)->shape();
      Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
      absl::StatusOr<Value*> pad_value = EmitOperand(h, 1, scalar);
      if (!pad_value.ok()) return pad_value;
      if (ShapeUtil::ElementsIn(os) == 0) return *pad_value;
      const std::vector<Value*>& out = Dims(idx);
      Value* inside = b_.getTrue();
      std::vector<Value*> dims(os.rank());
      for (int64_t d = 0; d < os.rank(); ++d) {
        const PaddingDimension& pd = h.attrs().padding_config->dimensions[d];
        Value* rel = b_.CreateSub(out[d], C64(pd.edge_padding_low));
        Value* q = rel;
        if (pd.interior_padding > 0) {
          Value* step = C64(pd.interior_padding + 1);
          // rel may be negative: only a non-negative multiple is inside.
          Value* nonneg = b_.CreateICmpSGE(rel, C64(0));
          Value* safe = b_.CreateSelect(nonneg, rel, C64(0));
          inside = b_.CreateAnd(inside, nonneg);
          inside = b_.CreateAnd(
              inside, b_.CreateICmpEQ(b_.CreateURem(safe, step), C64(0)));
          q = b_.CreateUDiv(safe, step);
        } else {
          inside = b_.CreateAnd(inside, b_.CreateICmpSGE(rel, C64(0)));
        }
        inside =
            b_.CreateAnd(inside, b_.CreateICmpSLT(q, C64(os.dimensions(d))));
        // Clamped so that the load is always in bounds.
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(q, C64(0)), C64(0), q);
        dims[d] = b_.CreateSelect(b_.CreateICmpSGE(lo, C64(os.dimensions(d))),
                                  C64(os.dimensions(d) - 1), lo);
      }
      Index in = NewIndex(&os, std::move(dims), nullptr);
      absl::StatusOr<Value*> v = EmitOperand(h, 0, in);
      if (!v.ok()) return v;
      return b_.CreateSelect(inside, *v, *pad_value);
    }
    case HloOpcode::kConcatenate: {
      const int64_t cd = h.dimensions(0);
      const std::vector<Value*>& out = Dims(idx);
      Value* result = nullptr;
      int64_t offset = 0;
      // Every operand is read at a clamped index and the right one
      // selected: branch-free, so the loop still vectorizes.
      for (int64_t i = 0; i < h.operand_count(); ++i) {
        const Shape& os = h.operand(i)->shape();
        const int64_t n = os.dimensions(cd);
        if (n == 0) continue;
        std::vector<Value*> dims = out;
        Value* rel = b_.CreateSub(out[cd], C64(offset));
        Value* lo = b_.CreateSelect(b_.CreateICmpSLT(rel, C64(0)), C64(0), rel);
        dims[cd] =
            b_.CreateSelect(b_.CreateICmpSGE(lo, C64(n)), C64(n - 1), lo);
        Index in = NewIndex(&os, std::move(dims), nullptr);
        absl::StatusOr<Value*> v = EmitOperand(h, i, in);
        if (!v.ok()) return v;
        if (result == nullptr) {
          result = *v;
        } else {
          result = b_.CreateSelect(b_.CreateICmpSGE(out[cd], C64(offset)), *v,
                                   result);
        }
        offset += n;
      }
      if (result == nullptr) {
        // Every operand is empty along the dimension, so the result has no
        // elements and this code never runs.
        return llvm::Constant::getNullValue(RegisterType(s.element_type()));
      }
      return result;
    }
    default:
      break;
  }
  // Elementwise: operands at the same index (a scalar operand of select
  // or clamp at the scalar index).
  std::vector<Value*> ops;
  for (int64_t i = 0; i < h.operand_count(); ++i) {
    const Shape& os = h.operand(i)->shape();
    absl::StatusOr<Value*> v;
    if (os.rank() == 0 && s.rank() > 0) {
      Index scalar = NewIndex(&os, {}, C64(0));
      v = EmitOperand(h, i, scalar);
    } else {
      Index in = idx;
      in.shape = &os;
      if (!SameDimsAndLayout(os, *idx.shape)) {
        Dims(idx);
        in = NewIndex(&os, idx.dims, nullptr);
      }
      // Same id: the same element of an equal-shaped value.
      v = EmitOperand(h, i, in.id == idx.id ? idx : in);
    }
    if (!v.ok()) return v;
    ops.push_back(*v);
  }
  return EmitElementwise(h, ops);
}

absl::StatusOr<Value*> Emitter::EmitReduce(const Instruction& h, Index& idx) {
  const Shape& in_shape = h.operand(0)->shape();
  const PrimitiveType t = h.shape().element_type();
  Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
  absl::StatusOr<Value*> init = EmitOperand(h, 1, scalar);
  if (!init.ok()) return init;

  // The accumulator lives in an alloca in the entry block; mem2reg turns
  // it into a phi the vectorizer recognizes as a reduction.
  llvm::IRBuilder<> entry(entry_block_, entry_block_->begin());
  llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(t));
  b_.CreateStore(*init, acc);

  std::vector<bool> reduced(in_shape.rank(), false);
  for (int64_t d : h.dimensions()) reduced[d] = true;
  const std::vector<Value*> out_dims =
      h.shape().rank() > 0 ? Dims(idx) : std::vector<Value*>{};
  std::vector<Value*> in_dims(in_shape.rank(), nullptr);
  for (int64_t d = 0, o = 0; d < in_shape.rank(); ++d) {
    if (!reduced[d]) in_dims[d] = out_dims[o++];
  }
  // Reduced dimensions looped major to minor (the innermost loop walks
  // memory contiguously when the most-minor dimension is reduced).
  std::vector<int64_t> order;
  const std::vector<int64_t> m2m = MinorToMajor(in_shape);
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (reduced[*it]) order.push_back(*it);
  }

  // Floating-point sums and products may be reassociated here.
  llvm::FastMathFlags saved = b_.getFastMathFlags();
  std::function<absl::Status(size_t)> loop = [&](size_t level) -> absl::Status {
    if (level == order.size()) {
      Index in = NewIndex(&in_shape, in_dims, nullptr);
      absl::StatusOr<Value*> v = EmitOperand(h, 0, in);
      if (!v.ok()) return v.status();
      Value* a = b_.CreateLoad(RegisterType(t), acc);
      llvm::FastMathFlags fmf;
      fmf.setAllowReassoc();
      b_.setFastMathFlags(fmf);
      absl::StatusOr<Value*> r = EmitScalarComputation(*h.to_apply(), {a, *v});
      b_.setFastMathFlags(saved);
      if (!r.ok()) return r.status();
      b_.CreateStore(*r, acc);
      return absl::OkStatus();
    }
    const int64_t d = order[level];
    return ForLoop(C64(0), C64(in_shape.dimensions(d)), "red",
                   [&](Value* i) -> absl::Status {
                     in_dims[d] = i;
                     return loop(level + 1);
                   });
  };
  // Values cached inside the reduction loops do not dominate what follows.
  auto saved_cache = cache_;
  if (absl::Status s = loop(0); !s.ok()) return s;
  cache_ = std::move(saved_cache);
  return b_.CreateLoad(RegisterType(t), acc);
}

absl::StatusOr<Value*> Emitter::EmitReduceWindow(const Instruction& h,
                                                 Index& idx) {
  const Shape& in_shape = h.operand(0)->shape();
  const PrimitiveType t = h.shape().element_type();
  const std::vector<WindowDimension>& win = h.attrs().window->dimensions;
  Index scalar = NewIndex(&h.operand(1)->shape(), {}, C64(0));
  absl::StatusOr<Value*> init = EmitOperand(h, 1, scalar);
  if (!init.ok()) return init;
  llvm::IRBuilder<> entry(entry_block_, entry_block_->begin());
  llvm::AllocaInst* acc = entry.CreateAlloca(RegisterType(t));
  b_.CreateStore(*init, acc);
  const std::vector<Value*> out = Dims(idx);
  const int64_t rank = in_shape.rank();
  std::vector<Value*> in_dims(rank, nullptr);
  std::vector<Value*> valid(rank, nullptr);
  std::function<absl::Status(int64_t)> loop = [&](int64_t d) -> absl::Status {
    if (d == rank) {
      Value* ok = b_.getTrue();
      for (Value* v : valid) ok = b_.CreateAnd(ok, v);
      Index in = NewIndex(&in_shape, in_dims, nullptr);
      absl::StatusOr<Value*> x = EmitOperand(h, 0, in);
      if (!x.ok()) return x.status();
      Value* a = b_.CreateLoad(RegisterType(t), acc);
      absl::StatusOr<Value*> r = EmitScalarComputation(*h.to_apply(), {a, *x});
      if (!r.ok()) return r.status();
      // Window positions outside the (padded, dilated) input add nothing.
      b_.CreateStore(b_.CreateSelect(ok, *r, a), acc);
      return absl::OkStatus();
    }
    const WindowDimension& w = win[d];
    return ForLoop(C64(0), C64(w.size), "win", [&](Value* k) -> absl::Status {
      // Position in the dilated, padded input.
      Value* pos = b_.CreateAdd(
          b_.CreateSub(b_.CreateMul(out[d], C64(w.stride)), C64(w.padding_low)),
          b_.CreateMul(k, C64(w.window_dilation)));
      Value* ok = b_.CreateICmpSGE(pos, C64(0));
      Value* safe = b_.CreateSelect(ok, pos, C64(0));
      Value* in = safe;
      if (w.base_dilation > 1) {
        ok = b_.CreateAnd(
            ok,
            b_.CreateICmpEQ(b_.CreateURem(safe, C64(w.base_dilation)), C64(0)));
        in = b_.CreateUDiv(safe, C64(w.base_dilation));
      }
      ok = b_.CreateAnd(ok, b_.CreateICmpSLT(in, C64(in_shape.dimensions(d))));
      valid[d] = ok;
      in_dims[d] =
          Clamp64(in, 0, std::max<int64_t>(in_shape.dimensions(d) - 1, 0));
      return loop(d + 1);
    });
  };
  auto saved_cache = cache_;
  if (ShapeUtil::ElementsIn(in_shape) > 0) {
    if (absl::Status st = loop(0); !st.ok()) return st;
  }
  cache_ = std::move(saved_cache);
  return b_.CreateLoad(RegisterType(t), acc);
}

absl::StatusOr<Value*> Emitter::EmitGather(const Instruction& h, Index& idx) {
  const GatherDimensionNumbers& dn = *h.attrs().gather_dimension_numbers;
  const Shape& os = h.operand(0)->shape();
  const Shape& is = h.operand(1)->shape();
  const absl::Span<const int64_t> sizes = h.attrs().gather_slice_sizes;
  const std::vector<Value*> out = Dims(idx);
  auto contains = [](const std::vector<int64_t>& v, int64_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // Output batch dimensions, in order, index the indices array's
  // dimensions other than index_vector_dim.
  std::vector<Value*> batch;
  for (int64_t d = 0; d < h.shape().rank(); ++d) {
    if (!contains(dn.offset_dims, d)) batch.push_back(out[d]);
  }
  std::vector<Value*> start(os.rank(), C64(0));
  for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
    std::vector<Value*> dims;
    size_t b = 0;
    for (int64_t d = 0; d < is.rank(); ++d) {
      dims.push_back(d == dn.index_vector_dim ? C64(static_cast<int64_t>(k))
                                              : batch[b++]);
    }
    Index ii = NewIndex(&is, std::move(dims), nullptr);
    if (is.rank() == 0) ii.linear = C64(0);
    absl::StatusOr<Value*> v = EmitOperand(h, 1, ii);
    if (!v.ok()) return v;
    const int64_t m = dn.start_index_map[k];
    start[m] = Clamp64(IndexToI64(*v, is.element_type()), 0,
                       os.dimensions(m) - sizes[m]);
  }
  std::vector<int64_t> offset_dims(dn.offset_dims.begin(),
                                   dn.offset_dims.end());
  std::sort(offset_dims.begin(), offset_dims.end());
  std::vector<Value*> in_dims(os.rank());
  size_t o = 0;
  for (int64_t d = 0; d < os.rank(); ++d) {
    Value* offset = C64(0);
    if (!contains(dn.collapsed_slice_dims, d)) offset = out[offset_dims[o++]];
    in_dims[d] = b_.CreateAdd(start[d], offset);
  }
  Index in = NewIndex(&os, std::move(in_dims), nullptr);
  return EmitOperand(h, 0, in);
}

absl::StatusOr<Value*> Emitter::EmitScalarComputation(
    const Computation& c, std::vector<Value*> args) {
  absl::flat_hash_map<const Instruction*, Value*> values;
  for (const Instruction* h : c.MakeInstructionPostOrder()) {
    if (h->opcode() == HloOpcode::kParameter) {
      values[h] = args[h->parameter_number()];
      continue;
    }
    if (h->opcode() == HloOpcode::kConstant) {
      Index scalar = NewIndex(&h->shape(), {}, C64(0));
      absl::StatusOr<Value*> v = EmitConstant(*h, scalar);
      if (!v.ok()) return v;
      values[h] = *v;
      continue;
    }
    std::vector<Value*> ops;
    for (const Instruction* op : h->operands()) ops.push_back(values[op]);
    absl::StatusOr<Value*> v = EmitElementwise(*h, ops);
    if (!v.ok()) return v;
    values[h] = *v;
  }
  return values[c.root_instruction()];
}

// ---- Elementwise arithmetic ------------------------------------------------

Value* Emitter::Intrinsic(llvm::Intrinsic::ID id, std::vector<Value*> args) {
  llvm::Function* f =
      llvm::Intrinsic::getDeclaration(module_, id, {args[0]->getType()});
  return b_.CreateCall(f, args);
}

Value* Emitter::CallLibm(absl::string_view f32_name, absl::string_view f64_name,
                         PrimitiveType t, std::vector<Value*> args) {
  llvm::Type* ty = RegisterType(t);
  std::vector<llvm::Type*> params(args.size(), ty);
  const absl::string_view name = ty->isFloatTy() ? f32_name : f64_name;
  llvm::FunctionCallee f =
      module_->getOrInsertFunction(llvm::StringRef(name.data(), name.size()),
                                   llvm::FunctionType::get(ty, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
  }
  return b_.CreateCall(f, args);
}

Value* Emitter::EmitConvert(Value* v, PrimitiveType from, PrimitiveType to) {
  if (from == to) return v;
  llvm::Type* ty = RegisterType(to);
  const bool from_fp = primitive_util::IsFloatingPointType(from);
  const bool to_fp = primitive_util::IsFloatingPointType(to);
  if (to == PrimitiveType::PRED) {
    if (from_fp) {
      return b_.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0));
    }
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (from == PrimitiveType::PRED) {
    return to_fp ? b_.CreateUIToFP(v, ty) : b_.CreateZExt(v, ty);  // 0 or 1
  }
  if (from_fp && to_fp) {
    // f16/bf16 live in float registers: rounding to them is Round();
    // f64 -> f16 rounds once through LLVM's half type.
    if (IsHalf(to)) {
      if (from == PrimitiveType::F64 && to == PrimitiveType::F16) {
        return b_.CreateFPExt(b_.CreateFPTrunc(v, b_.getHalfTy()), ty);
      }
      if (v->getType() != ty) v = b_.CreateFPTrunc(v, ty);
      return Round(v, to);
    }
    if (v->getType() == ty) return v;
    return v->getType()->getPrimitiveSizeInBits() < ty->getPrimitiveSizeInBits()
               ? b_.CreateFPExt(v, ty)
               : b_.CreateFPTrunc(v, ty);
  }
  if (from_fp) {
    // Saturating, NaN -> 0 (llvm.fpto[su]i.sat).
    const auto id = primitive_util::IsSignedIntegralType(to)
                        ? llvm::Intrinsic::fptosi_sat
                        : llvm::Intrinsic::fptoui_sat;
    llvm::Function* f =
        llvm::Intrinsic::getDeclaration(module_, id, {ty, v->getType()});
    return b_.CreateCall(f, {v});
  }
  if (to_fp) {
    Value* r = primitive_util::IsSignedIntegralType(from)
                   ? b_.CreateSIToFP(v, ty)
                   : b_.CreateUIToFP(v, ty);
    return Round(r, to);  // exact in float for the ≤ 16-bit integers allowed
  }
  return b_.CreateIntCast(v, ty, primitive_util::IsSignedIntegralType(from));
}

Value* Emitter::EmitMaxMin(Value* a, Value* b, PrimitiveType t, bool is_max) {
  if (t == PrimitiveType::PRED) {
    return is_max ? b_.CreateOr(a, b) : b_.CreateAnd(a, b);
  }
  if (primitive_util::IsFloatingPointType(t) &&
      b_.getFastMathFlags().allowReassoc()) {
    // Inside a reduction (reassociation allowed): IEEE maximum/minimum,
    // NaN-propagating, which LLVM vectorizes as a reduction. It differs
    // from the form below only in the sign of a zero result of max(-0, +0),
    // an order-dependent choice anyway once the reduction is reordered.
    return Intrinsic(
        is_max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, {a, b});
  }
  if (primitive_util::IsFloatingPointType(t)) {
    // std::max(a, b) = a < b ? b : a; std::min(a, b) = b < a ? b : a; a
    // NaN on either side is the result (lhs first).
    Value* pick_b = is_max ? b_.CreateFCmpOLT(a, b) : b_.CreateFCmpOLT(b, a);
    Value* r = b_.CreateSelect(pick_b, b, a);
    r = b_.CreateSelect(b_.CreateFCmpUNO(b, b), b, r);
    return b_.CreateSelect(b_.CreateFCmpUNO(a, a), a, r);
  }
  const bool is_signed = primitive_util::IsSignedIntegralType(t);
  Value* pick_b =
      is_max ? (is_signed ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b))
             : (is_signed ? b_.CreateICmpSLT(b, a) : b_.CreateICmpULT(b, a));
  return b_.CreateSelect(pick_b, b, a);
}

Value* Emitter::EmitDivRem(Value* a, Value* b, PrimitiveType t, bool is_div) {
  if (primitive_util::IsFloatingPointType(t)) {
    return is_div ? b_.CreateFDiv(a, b) : b_.CreateFRem(a, b);
  }
  llvm::Type* ty = a->getType();
  Value* zero = llvm::ConstantInt::get(ty, 0);
  Value* one = llvm::ConstantInt::get(ty, 1);
  Value* all_ones = llvm::ConstantInt::get(ty, -1, true);
  Value* by_zero = b_.CreateICmpEQ(b, zero);
  if (primitive_util::IsSignedIntegralType(t)) {
    const unsigned bits = ty->getIntegerBitWidth();
    Value* int_min =
        llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(bits));
    Value* overflow =
        b_.CreateAnd(b_.CreateICmpEQ(a, int_min), b_.CreateICmpEQ(b, all_ones));
    Value* safe_b = b_.CreateSelect(b_.CreateOr(by_zero, overflow), one, b);
    if (is_div) {
      // x / 0 = -1; INT_MIN / -1 = INT_MIN (XLA).
      Value* q = b_.CreateSDiv(a, safe_b);
      q = b_.CreateSelect(overflow, int_min, q);
      return b_.CreateSelect(by_zero, all_ones, q);
    }
    // x % 0 = x; INT_MIN % -1 = 0.
    Value* r = b_.CreateSRem(a, safe_b);
    r = b_.CreateSelect(overflow, zero, r);
    return b_.CreateSelect(by_zero, a, r);
  }
  Value* safe_b = b_.CreateSelect(by_zero, one, b);
  if (is_div) {
    return b_.CreateSelect(by_zero, all_ones, b_.CreateUDiv(a, safe_b));
  }
  return b_.CreateSelect(by_zero, a, b_.CreateURem(a, safe_b));
}

Value* Emitter::EmitShift(Value* a, Value* b, PrimitiveType t, HloOpcode op) {
  (void)t;
  llvm::Type* ty = a->getType();
  const unsigned bits = ty->getIntegerBitWidth();
  Value* too_far =
      b_.CreateICmpUGE(b, llvm::ConstantInt::get(ty, bits));  // unsigned read
  Value* safe = b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0), b);
  switch (op) {
    case HloOpcode::kShiftLeft:
      return b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0),
                             b_.CreateShl(a, safe));
    case HloOpcode::kShiftRightLogical:
      return b_.CreateSelect(too_far, llvm::ConstantInt::get(ty, 0),
                             b_.CreateLShr(a, safe));
    default:
      return b_.CreateSelect(
          too_far, b_.CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1)),
          b_.CreateAShr(a, safe));
  }
}

Value* Emitter::EmitCompare(Value* a, Value* b, PrimitiveType t,
                            ComparisonDirection dir) {
  if (primitive_util::IsFloatingPointType(t)) {
    switch (dir) {
      case ComparisonDirection::kEq:
        return b_.CreateFCmpOEQ(a, b);
      case ComparisonDirection::kNe:
        return b_.CreateFCmpUNE(a, b);
      case ComparisonDirection::kGe:
        return b_.CreateFCmpOGE(a, b);
      case ComparisonDirection::kGt:
        return b_.CreateFCmpOGT(a, b);
      case ComparisonDirection::kLe:
        return b_.CreateFCmpOLE(a, b);
      case ComparisonDirection::kLt:
        return b_.CreateFCmpOLT(a, b);
    }
  }
  const bool s = primitive_util::IsSignedIntegralType(t);
  switch (dir) {
    case ComparisonDirection::kEq:
      return b_.CreateICmpEQ(a, b);
    case ComparisonDirection::kNe:
      return b_.CreateICmpNE(a, b);
    case ComparisonDirection::kGe:
      return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
    case ComparisonDirection::kGt:
      return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
    case ComparisonDirection::kLe:
      return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
    case ComparisonDirection::kLt:
      return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
  }
  return nullptr;
}

// exp for f32: Cody–Waite range reduction x = n·ln2 + r, a degree-6
// polynomial for e^r, and 2^n applied in two steps (so that results in the
// subnormal range and up to FLT_MAX are reachable). Branch-free, so loops
// over it vectorize. Within 2 ulp of the correctly rounded value for
// normal results.
Value* Emitter::ExpF32(Value* x) {
  llvm::Type* f = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
  Value* xc = Intrinsic(llvm::Intrinsic::minnum, {x, c(88.72283935546875)});
  xc = Intrinsic(llvm::Intrinsic::maxnum, {xc, c(-104.0)});
  Value* n = Intrinsic(llvm::Intrinsic::roundeven,
                       {b_.CreateFMul(xc, c(1.44269504088896341))});
  Value* r = b_.CreateFSub(xc, b_.CreateFMul(n, c(0.693359375)));
  r = b_.CreateFSub(r, b_.CreateFMul(n, c(-2.12194440e-4)));
  Value* p = c(1.9875691500e-4);
  for (double k : {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
                   1.6666665459e-1, 5.0000001201e-1}) {
    p = b_.CreateFAdd(b_.CreateFMul(p, r), c(k));
  }
  Value* y = b_.CreateFAdd(
      b_.CreateFAdd(b_.CreateFMul(b_.CreateFMul(p, r), r), r), c(1.0));
  Value* ni = b_.CreateFPToSI(n, i32);
  Value* n1 = b_.CreateAShr(ni, 1);
  Value* n2 = b_.CreateSub(ni, n1);
  auto pow2 = [&](Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, b_.getInt32(127)), 23),
                            f);
  };
  y = b_.CreateFMul(b_.CreateFMul(y, pow2(n1)), pow2(n2));
  y = b_.CreateSelect(b_.CreateFCmpOGT(x, c(88.72283935546875)),
                      c(std::numeric_limits<float>::infinity()), y);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, y);
}

// tanh for f32: a 13/6 odd rational approximation on [-7.9, 7.9] (beyond
// that tanh rounds to ±1), x itself below 4e-4. Branch-free.
Value* Emitter::TanhF32(Value* x) {
  llvm::Type* f = b_.getFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(f, v); };
  const double kClamp = 7.90531110763549805;
  Value* xc = Intrinsic(llvm::Intrinsic::minnum, {x, c(kClamp)});
  xc = Intrinsic(llvm::Intrinsic::maxnum, {xc, c(-kClamp)});
  Value* x2 = b_.CreateFMul(xc, xc);
  Value* p = c(-2.76076847742355e-16);
  for (double k :
       {2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
        1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03}) {
    p = b_.CreateFAdd(b_.CreateFMul(p, x2), c(k));
  }
  p = b_.CreateFMul(p, xc);
  Value* q = c(1.19825839466702e-06);
  for (double k :
       {1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03}) {
    q = b_.CreateFAdd(b_.CreateFMul(q, x2), c(k));
  }
  Value* r = b_.CreateFDiv(p, q);
  Value* tiny =
      b_.CreateFCmpOLT(Intrinsic(llvm::Intrinsic::fabs, {x}), c(0.0004));
  r = b_.CreateSelect(tiny, x, r);
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
}

Value* Emitter::EmitUnaryFloat(HloOpcode op, Value* x, PrimitiveType t) {
  const bool f32 = x->getType()->isFloatTy();
  llvm::Type* ty = x->getType();
  auto one = llvm::ConstantFP::get(ty, 1.0);
  switch (op) {
    case HloOpcode::kExp:
      return f32 ? ExpF32(x) : CallLibm("expf", "exp", t, {x});
    case HloOpcode::kTanh:
      return f32 ? TanhF32(x) : CallLibm("tanhf", "tanh", t, {x});
    case HloOpcode::kLogistic: {
      Value* e = f32 ? ExpF32(b_.CreateFNeg(x))
                     : CallLibm("expf", "exp", t, {b_.CreateFNeg(x)});
      return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
    }
    case HloOpcode::kExpm1:
      return CallLibm("expm1f", "expm1", t, {x});
    case HloOpcode::kLog:
      return CallLibm("logf", "log", t, {x});
    case HloOpcode::kLog1p:
      return CallLibm("log1pf", "log1p", t, {x});
    case HloOpcode::kSqrt:
      return Intrinsic(llvm::Intrinsic::sqrt, {x});
    case HloOpcode::kRsqrt:
      return b_.CreateFDiv(one, Intrinsic(llvm::Intrinsic::sqrt, {x}));
    case HloOpcode::kCbrt:
      return CallLibm("cbrtf", "cbrt", t, {x});
    case HloOpcode::kSin:
      return CallLibm("sinf", "sin", t, {x});
    case HloOpcode::kCos:
      return CallLibm("cosf", "cos", t, {x});
    case HloOpcode::kTan:
      return CallLibm("tanf", "tan", t, {x});
    case HloOpcode::kErf:
      return CallLibm("erff", "erf", t, {x});
    case HloOpcode::kFloor:
      return Intrinsic(llvm::Intrinsic::floor, {x});
    case HloOpcode::kCeil:
      return Intrinsic(llvm::Intrinsic::ceil, {x});
    case HloOpcode::kRoundNearestAfz:
      return Intrinsic(llvm::Intrinsic::round, {x});
    case HloOpcode::kRoundNearestEven:
      return Intrinsic(llvm::Intrinsic::roundeven, {x});
    case HloOpcode::kIsFinite:
      return b_.CreateFCmpONE(Intrinsic(llvm::Intrinsic::fabs, {x}),
                              llvm::ConstantFP::getInfinity(ty));
    default:
      return nullptr;
  }
}

absl::StatusOr<Value*> Emitter::EmitElementwise(const Instruction& h,
                                                absl::Span<Value* const> ops) {
  absl::StatusOr<Value*> v = EmitElementwiseUnrounded(h, ops);
  if (!v.ok()) return v;
  // f16/bf16: every operation rounds its float result (docs/evaluator.md).
  return Round(*v, h.shape().element_type());
}

absl::StatusOr<Value*> Emitter::EmitElementwiseUnrounded(
    const Instruction& h, absl::Span<Value* const> ops) {
  const PrimitiveType out = h.shape().element_type();
  const PrimitiveType t =
      h.operand_count() > 0 ? h.operand(0)->shape().element_type() : out;
  const bool fp = primitive_util::IsFloatingPointType(t);
  const bool pred = t == PrimitiveType::PRED;
  switch (h.opcode()) {
    case HloOpcode::kAdd:
      if (pred) return b_.CreateOr(ops[0], ops[1]);
      return fp ? b_.CreateFAdd(ops[0], ops[1]) : b_.CreateAdd(ops[0], ops[1]);
    case HloOpcode::kSubtract:
      if (pred) return b_.CreateXor(ops[0], ops[1]);
      return fp ? b_.CreateFSub(ops[0], ops[1]) : b_.CreateSub(ops[0], ops[1]);
    case HloOpcode::kMultiply:
      if (pred) return b_.CreateAnd(ops[0], ops[1]);
      return fp ? b_.CreateFMul(ops[0], ops[1]) : b_.CreateMul(ops[0], ops[1]);
    case HloOpcode::kDivide:
      if (pred) break;
      return EmitDivRem(ops[0], ops[1], t, true);
    case HloOpcode::kRemainder:
      if (pred) break;
      return EmitDivRem(ops[0], ops[1], t, false);
    case HloOpcode::kMaximum:
      return EmitMaxMin(ops[0], ops[1], t, true);
    case HloOpcode::kMinimum:
      return EmitMaxMin(ops[0], ops[1], t, false);
    case HloOpcode::kAnd:
      return b_.CreateAnd(ops[0], ops[1]);
    case HloOpcode::kOr:
      return b_.CreateOr(ops[0], ops[1]);
    case HloOpcode::kXor:
      return b_.CreateXor(ops[0], ops[1]);
    case HloOpcode::kNot:
      return b_.CreateNot(ops[0]);
    case HloOpcode::kNegate:
      if (pred) return ops[0];
      return fp ? b_.CreateFNeg(ops[0]) : b_.CreateNeg(ops[0]);
    case HloOpcode::kAbs:
      if (fp) return Intrinsic(llvm::Intrinsic::fabs, {ops[0]});
      if (pred || primitive_util::IsUnsignedIntegralType(t)) return ops[0];
      return b_.CreateCall(
          llvm::Intrinsic::getDeclaration(module_, llvm::Intrinsic::abs,
                                          {ops[0]->getType()}),
          {ops[0], b_.getFalse()});
    case HloOpcode::kSign: {
      Value* x = ops[0];
      llvm::Type* ty = x->getType();
      if (fp) {
        Value* one = llvm::ConstantFP::get(ty, 1.0);
        Value* zero = llvm::ConstantFP::get(ty, 0.0);
        Value* r = b_.CreateSelect(b_.CreateFCmpOGT(x, zero), one, x);
        return b_.CreateSelect(b_.CreateFCmpOLT(x, zero),
                               llvm::ConstantFP::get(ty, -1.0), r);
      }
      if (pred) return x;
      Value* zero = llvm::ConstantInt::get(ty, 0);
      if (primitive_util::IsUnsignedIntegralType(t)) {
        return b_.CreateZExt(b_.CreateICmpNE(x, zero), ty);
      }
      return b_.CreateSub(b_.CreateZExt(b_.CreateICmpSGT(x, zero), ty),
                          b_.CreateZExt(b_.CreateICmpSLT(x, zero), ty));
    }
    case HloOpcode::kShiftLeft:
    case HloOpcode::kShiftRightArithmetic:
    case HloOpcode::kShiftRightLogical:
      return EmitShift(ops[0], ops[1], t, h.opcode());
    case HloOpcode::kPopulationCount:
      return Intrinsic(llvm::Intrinsic::ctpop, {ops[0]});
    case HloOpcode::kClz:
      return b_.CreateCall(
          llvm::Intrinsic::getDeclaration(module_, llvm::Intrinsic::ctlz,
                                          {ops[0]->getType()}),
          {ops[0], b_.getFalse()});
    case HloOpcode::kCompare:
      if (fp && h.attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
        // IEEE totalOrder: compare the bits as signed integers after
        // flipping every bit but the sign of negative values
        // (-NaN < -inf < ... < -0 < +0 < ... < inf < +NaN).
        auto key = [&](Value* v) {
          const unsigned bits = v->getType()->getPrimitiveSizeInBits();
          llvm::Type* it = b_.getIntNTy(bits);
          Value* i = b_.CreateBitCast(v, it);
          Value* mask = b_.CreateLShr(b_.CreateAShr(i, bits - 1), 1);
          return b_.CreateXor(i, mask);
        };
        return EmitCompare(key(ops[0]), key(ops[1]), PrimitiveType::S64,
                           h.attrs().comparison_direction);
      }
      return EmitCompare(ops[0], ops[1], t, h.attrs().comparison_direction);
    case HloOpcode::kSelect:
      return b_.CreateSelect(ops[0], ops[1], ops[2]);
    case HloOpcode::kClamp: {
      // clamp(lo, x, hi) = min(max(x, lo), hi); a NaN in lo, x or hi (in
      // that order) is the result.
      const PrimitiveType vt = h.operand(1)->shape().element_type();
      Value* r =
          EmitMaxMin(EmitMaxMin(ops[1], ops[0], vt, true), ops[2], vt, false);
      if (primitive_util::IsFloatingPointType(vt)) {
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[2], ops[2]), ops[2], r);
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[1], ops[1]), ops[1], r);
        r = b_.CreateSelect(b_.CreateFCmpUNO(ops[0], ops[0]), ops[0], r);
      }
      return r;
    }
    case HloOpcode::kConvert:
      return EmitConvert(ops[0], t, out);
    case HloOpcode::kBitcastConvert:
      return b_.CreateBitCast(ops[0], RegisterType(out));
    case HloOpcode::kAtan2:
      return CallLibm("atan2f", "atan2", t, {ops[0], ops[1]});
    case HloOpcode::kPower: {
      // 1^y = 1 and x^0 = 1 for every x, y (NaN included), else pow.
      llvm::Type* ty = ops[0]->getType();
      Value* one = llvm::ConstantFP::get(ty, 1.0);
      Value* special =
          b_.CreateOr(b_.CreateFCmpOEQ(ops[0], one),
                      b_.CreateFCmpOEQ(ops[1], llvm::ConstantFP::get(ty, 0.0)));
      return b_.CreateSelect(special, one,
                             CallLibm("powf", "pow", t, {ops[0], ops[1]}));
    }
    default:
      if (fp) {
        if (Value* v = EmitUnaryFloat(h.opcode(), ops[0], t)) return v;
      }
      break;
  }
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": no generated code for ", HloOpcodeString(h.opcode())));
}

}  // namespace

// ---- KernelModule -----------------------------------------------------------

// One LLVM module (with its own context) per shard; kernels go round-robin
// to the shards, which compile on threads of their own.
struct Shard {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<IRBuilder<>> builder;
  int64_t kernels = 0;
};

struct KernelModule::Impl {
  std::string name;
  std::vector<std::unique_ptr<Shard>> shards;
  int64_t kernels = 0;
  Shard& Next() {
    Shard& sh = *shards[kernels % shards.size()];
    return sh;
  }
};

KernelModule::KernelModule(absl::string_view module_name, int shards)
    : impl_(std::make_unique<Impl>()) {
  InitializeLlvmOnce();
  impl_->name = std::string(module_name);
  for (int i = 0; i < std::max(shards, 1); ++i) {
    auto sh = std::make_unique<Shard>();
    sh->module = std::make_unique<llvm::Module>(
        absl::StrCat(module_name, ".", i), sh->context);
    sh->module->setTargetTriple(GetHostTarget().triple);
    sh->builder = std::make_unique<IRBuilder<>>(sh->context);
    impl_->shards.push_back(std::move(sh));
  }
}

KernelModule::~KernelModule() = default;

absl::Status KernelModule::CanEmit(const Instruction& instr) {
  if (instr.opcode() == HloOpcode::kFusion) {
    const FusionKind kind = instr.attrs().fusion_kind;
    if (kind != FusionKind::kLoop && kind != FusionKind::kInput) {
      return absl::UnimplementedError(
          absl::StrCat(instr.name(), ": only loop and input fusions"));
    }
    if (absl::Status s = CheckShape(instr, instr.shape()); !s.ok()) return s;
    const Computation& c = *instr.to_apply();
    for (const Instruction* h : c.instructions()) {
      if (h->opcode() == HloOpcode::kReduce && h != c.root_instruction()) {
        return absl::UnimplementedError(absl::StrCat(
            instr.name(), ": a reduce that is not the fusion root"));
      }
      if (absl::Status s = CheckInKernel(*h, /*fused=*/true); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }
  if (instr.opcode() == HloOpcode::kConstant ||
      instr.opcode() == HloOpcode::kParameter) {
    return absl::UnimplementedError(
        absl::StrCat(instr.name(), ": not a kernel"));
  }
  return CheckInKernel(instr, /*fused=*/false);
}

absl::StatusOr<KernelShape> KernelModule::AddKernel(const Instruction& instr,
                                                    absl::string_view name) {
  if (absl::Status s = CanEmit(instr); !s.ok()) return s;
  Shard& sh = impl_->Next();
  Emitter emitter(sh.module.get(), sh.builder.get());
  absl::StatusOr<KernelShape> shape = emitter.EmitKernel(instr, name);
  if (shape.ok()) {
    ++impl_->kernels;
    ++sh.kernels;
  } else if (llvm::Function* f = sh.module->getFunction(
                 llvm::StringRef(name.data(), name.size()))) {
    f->eraseFromParent();  // the module stays valid for the other kernels
  }
  return shape;
}

int64_t KernelModule::kernel_count() const { return impl_->kernels; }

absl::Status KernelModule::CanEmitComparator(const Computation& comparator) {
  for (const Instruction* p : comparator.parameter_instructions()) {
    if (!p->shape().IsScalar() || !SupportedType(p->shape().element_type())) {
      return absl::UnimplementedError(absl::StrCat(
          comparator.name(), ": parameter ", p->name(), " is ",
          p->shape().ToString(), " (scalars of a supported type only)"));
    }
  }
  if (comparator.root_instruction()->shape().element_type() !=
          PrimitiveType::PRED ||
      !comparator.root_instruction()->shape().IsScalar()) {
    return absl::UnimplementedError(
        absl::StrCat(comparator.name(), ": a comparator returns pred[]"));
  }
  return CheckScalarComputation(comparator);
}

absl::Status KernelModule::AddComparator(const Computation& comparator,
                                         absl::string_view name) {
  if (absl::Status s = CanEmitComparator(comparator); !s.ok()) return s;
  Shard& sh = impl_->Next();
  Emitter emitter(sh.module.get(), sh.builder.get());
  absl::Status s = emitter.EmitComparator(comparator, name);
  if (s.ok()) {
    ++impl_->kernels;
    ++sh.kernels;
  }
  return s;
}

namespace {

// Optimizes and compiles one shard to an ELF object.
absl::StatusOr<std::string> CompileShard(llvm::Module& m,
                                         std::string* ir_dump) {
  std::string verify_errors;
  llvm::raw_string_ostream verify_os(verify_errors);
  if (llvm::verifyModule(m, &verify_os)) {
    return absl::InternalError(
        absl::StrCat("generated LLVM IR is invalid: ", verify_os.str()));
  }
  const HostTarget& host = GetHostTarget();
  std::string error;
  const llvm::Target* target =
      llvm::TargetRegistry::lookupTarget(host.triple, error);
  if (target == nullptr) {
    return absl::InternalError(
        absl::StrCat("no LLVM target for ", host.triple, ": ", error));
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      host.triple, host.cpu, host.features, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (tm == nullptr) {
    return absl::InternalError("cannot create an LLVM target machine");
  }
  m.setDataLayout(tm->createDataLayout());

  // LLVM's O2 pipeline for the host with loop and SLP vectorization and
  // interleaving (several vector accumulators in reductions); no unrolling
  // (compile time; the loops gain nothing from it).
  {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    pto.LoopUnrolling = false;
    pto.LoopInterleaving = true;
    llvm::PassBuilder pb(tm.get(), pto);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm =
        pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
    mpm.run(m, mam);
  }
  if (ir_dump != nullptr) {
    ir_dump->clear();
    llvm::raw_string_ostream os(*ir_dump);
    m.print(os, nullptr);
  }
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    return absl::InternalError("LLVM cannot emit an object file for the host");
  }
  codegen.run(m);
  return std::string(object.begin(), object.end());
}

}  // namespace

absl::StatusOr<std::vector<std::string>> KernelModule::Compile(
    std::string* ir_dump) {
  std::vector<Shard*> work;
  for (auto& sh : impl_->shards) {
    if (sh->kernels > 0) work.push_back(sh.get());
  }
  std::vector<absl::StatusOr<std::string>> objects(
      work.size(), absl::InternalError("not compiled"));
  std::vector<std::string> dumps(work.size());
  auto compile = [&](size_t i) {
    objects[i] = CompileShard(*work[i]->module,
                              ir_dump != nullptr ? &dumps[i] : nullptr);
  };
  // Each shard has its own LLVMContext, so they compile concurrently.
  std::vector<std::thread> threads;
  for (size_t i = 1; i < work.size(); ++i) threads.emplace_back(compile, i);
  if (!work.empty()) compile(0);
  for (std::thread& t : threads) t.join();
  std::vector<std::string> out;
  for (auto& o : objects) {
    if (!o.ok()) return o.status();
    out.push_back(std::move(*o));
  }
  if (ir_dump != nullptr) {
    ir_dump->clear();
    for (const std::string& d : dumps) *ir_dump += d;
  }
  return out;
}

}  // namespace plexa::cpu
