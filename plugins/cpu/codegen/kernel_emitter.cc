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
#include "core/ir/window_util.h"
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
#include "plugins/cpu/codegen/emitter_internal.h"
#include "plugins/cpu/codegen/jit.h"
#include "plugins/cpu/codegen/llvm_util.h"

namespace plexa::cpu {
namespace emitter_internal {

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
    Value* f =
        b_.CreateFPExt(b_.CreateBitCast(v, b_.getHalfTy()), b_.getFloatTy());
    if (!exact_f16_nans_) return f;
    // fpext quiets a signaling NaN (x86's vcvtph2ps does), which totalOrder
    // comparisons would then see as the quiet NaN with its payload
    // (0x7C01 == 0x7E01): a NaN keeps its own bits instead, the sign and
    // the payload moved into float's places. Only in kernels with such a
    // comparison: it costs a third more time in an f16 add loop.
    Value* bits = b_.CreateZExt(v, b_.getInt32Ty());
    Value* nan = b_.CreateOr(
        b_.CreateShl(b_.CreateAnd(bits, b_.getInt32(0x8000)), 16),
        b_.CreateOr(b_.getInt32(0x7F800000),
                    b_.CreateShl(b_.CreateAnd(bits, b_.getInt32(0x3FF)), 13)));
    Value* is_nan = b_.CreateICmpUGT(b_.CreateAnd(v, b_.getInt16(0x7FFF)),
                                     b_.getInt16(0x7C00));
    return b_.CreateSelect(is_nan, b_.CreateBitCast(nan, b_.getFloatTy()), f);
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

// Whether `h` or a computation it calls compares f16 values by totalOrder.
bool ComparesF16TotalOrder(const Instruction& h) {
  if (h.opcode() == HloOpcode::kCompare &&
      h.attrs().comparison_type == ComparisonType::kFloatTotalOrder &&
      h.operand(0)->shape().element_type() == PrimitiveType::F16) {
    return true;
  }
  for (const Computation* c : h.called_computations()) {
    for (const Instruction* x : c->instructions()) {
      if (ComparesF16TotalOrder(*x)) return true;
    }
  }
  return false;
}

absl::StatusOr<KernelShape> Emitter::EmitKernel(const Instruction& instr,
                                                absl::string_view name) {
  exact_f16_nans_ = ComparesF16TotalOrder(instr);
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
    for (const WindowDimension& w : WindowOf(*root_).dimensions) {
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
  exact_f16_nans_ = false;
  for (const Instruction* x : c.instructions()) {
    exact_f16_nans_ |= ComparesF16TotalOrder(*x);
  }
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

}  // namespace emitter_internal

using emitter_internal::CheckInKernel;
using emitter_internal::CheckScalarComputation;
using emitter_internal::CheckShape;
using emitter_internal::Emitter;
using emitter_internal::SupportedType;
using llvm::IRBuilder;

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
