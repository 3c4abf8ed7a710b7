// What the kernel emitter can generate: element types, shapes, and the
// instructions (alone or inside a fusion) it has code for.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/ir/window_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/codegen/emitter_internal.h"

namespace plexa::cpu::emitter_internal {

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

namespace {

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
    case HloOpcode::kMulhi:
      // Generated for the byte-sized integer types (s4/u4/s2/u2 live in a
      // byte: the reference kernel runs them).
      if (!fp && in != PrimitiveType::PRED &&
          !primitive_util::IsSubByteType(in)) {
        return absl::OkStatus();
      }
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
    case HloOpcode::kAcos:
    case HloOpcode::kAcosh:
    case HloOpcode::kAsin:
    case HloOpcode::kAsinh:
    case HloOpcode::kAtan:
    case HloOpcode::kAtanh:
    case HloOpcode::kCosh:
    case HloOpcode::kSinh:
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

}  // namespace

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

namespace {

absl::Status CheckReduce(const Instruction& h) {
  if (h.operand_count() != 2 || h.shape().IsTuple()) {
    return absl::UnimplementedError(
        absl::StrCat(h.name(), ": variadic reduce has no generated code"));
  }
  return CheckScalarComputation(*h.to_apply());
}

// One instruction inside a kernel (fused or standalone).
}  // namespace

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
        static_cast<int64_t>(WindowOf(h).dimensions.size()) !=
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
  if (op == HloOpcode::kShuffle) {
    // rotate is an index map; permute and multi_rotate read literals.
    if (h.attrs().shuffle_mode == ShuffleMode::kRotate) {
      return absl::OkStatus();
    }
    return absl::UnimplementedError(absl::StrCat(
        h.name(), ": shuffle mode=", ShuffleModeString(h.attrs().shuffle_mode),
        " has no generated code"));
  }
  if (IsElementwise(op)) return CheckElementwise(h);
  return absl::UnimplementedError(absl::StrCat(
      h.name(), ": ", HloOpcodeString(op), " has no generated code"));
}

}  // namespace plexa::cpu::emitter_internal
