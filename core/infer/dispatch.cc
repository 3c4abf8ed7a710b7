// InferShape / InferInstructionShape: dispatch on the opcode table to the
// per-operation functions, checking operand counts (HloOpcodeArity), called
// computations and the attributes each operation needs.
#include <numeric>
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::ElementCount;
using internal::EqualIgnoringLayout;
using internal::Invalid;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;

namespace {

// A declared shape must be well formed before ops take their result from
// it: known element types, non-negative dimensions.
absl::Status CheckWellFormed(absl::string_view op, const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape& t : s.tuple_shapes()) {
      PLEXA_RETURN_IF_ERROR(CheckWellFormed(op, t));
    }
    return absl::OkStatus();
  }
  if (s.element_type() == PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    return Invalid(op, ": the shape has an invalid element type.");
  }
  if (s.IsToken() && s.rank() != 0) {
    return Invalid(op, ": a token has no dimensions; got ", Str(s), ".");
  }
  for (int64_t d : s.dimensions()) {
    if (d < 0) {
      return Invalid(op, ": negative dimension size in ", Str(s), ".");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferShape(HloOpcode opcode,
                                 absl::Span<const Shape* const> operands,
                                 const InstructionAttrs& attrs,
                                 absl::Span<const ProgramShape> called,
                                 const Shape* declared) {
  const absl::string_view op = HloOpcodeString(opcode);
  const int arity = HloOpcodeArity(opcode);
  if (arity != kVariadic && static_cast<int>(operands.size()) != arity) {
    return Invalid(op, " expects ", arity, " operand(s), got ", operands.size(),
                   ": ", Str(operands), ".");
  }
  for (const Shape* s : operands) {
    if (s == nullptr) return Invalid(op, ": null operand shape.");
  }
  auto need_declared = [&]() -> absl::Status {
    if (declared == nullptr) {
      return Invalid(op,
                     ": the result shape cannot be derived from the operands "
                     "and must be given.");
    }
    return CheckWellFormed(op, *declared);
  };
  auto need_called = [&](size_t n, absl::string_view roles) -> absl::Status {
    if (called.size() != n) {
      return Invalid(op, " expects ", n, " called computation(s) (", roles,
                     "), got ", called.size(), ".");
    }
    return absl::OkStatus();
  };
  auto need_min_operands = [&](size_t n) -> absl::Status {
    if (operands.size() < n) {
      return Invalid(op, " expects at least ", n, " operand(s), got ",
                     operands.size(), ": ", Str(operands), ".");
    }
    return absl::OkStatus();
  };
  auto need_one_dimension = [&]() -> absl::StatusOr<int64_t> {
    if (attrs.dimensions.size() != 1) {
      return Invalid(op, " expects exactly one entry in dimensions; got ",
                     Str(attrs.dimensions), ".");
    }
    return attrs.dimensions[0];
  };
  // Only these operations call computations.
  switch (opcode) {
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kScan:
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kSort:
    case HloOpcode::kScatter:
    case HloOpcode::kFusion:
    case HloOpcode::kCustomCall:
    case HloOpcode::kWhile:
    case HloOpcode::kSelectAndScatter:
    case HloOpcode::kConditional:
      break;
    default:
      if (!called.empty()) {
        return Invalid(op, " does not call computations, but has ",
                       called.size(), " (operands ", Str(operands), ").");
      }
  }

  if (opcode == HloOpcode::kCopy || IsElementwiseUnary(opcode)) {
    return InferUnaryOpShape(opcode, *operands[0]);
  }
  if (IsElementwiseBinary(opcode)) {
    return InferBinaryOpShape(opcode, *operands[0], *operands[1]);
  }

  switch (opcode) {
    case HloOpcode::kParameter:
      PLEXA_RETURN_IF_ERROR(need_declared());
      if (attrs.parameter_number < 0) {
        return Invalid("parameter ", Str(*declared), ": parameter number ",
                       attrs.parameter_number, " is negative.");
      }
      return NoLayout(*declared);
    case HloOpcode::kConstant: {
      if (attrs.literal == nullptr) {
        return Invalid("constant has no literal.");
      }
      const Shape& lit = attrs.literal->shape();
      if (declared != nullptr && !EqualIgnoringLayout(lit, *declared)) {
        return Invalid("constant: the literal's shape ", Str(lit),
                       " differs from the declared shape ", Str(*declared),
                       ".");
      }
      return NoLayout(lit);
    }
    case HloOpcode::kIota:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferIotaShape(*declared, attrs.iota_dimension);
    case HloOpcode::kRng:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferRngShape(*operands[0], *operands[1], attrs.distribution,
                           *declared);
    case HloOpcode::kRngBitGenerator:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferRngBitGeneratorShape(*operands[0], attrs.rng_algorithm,
                                       *declared);
    case HloOpcode::kInfeed:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferInfeedShape(*operands[0], *declared);
    case HloOpcode::kOutfeed: {
      PLEXA_ASSIGN_OR_RETURN(Shape out,
                             InferOutfeedShape(*operands[0], *operands[1]));
      if (attrs.outfeed_shape.has_value() &&
          !Compatible(*attrs.outfeed_shape, *operands[0])) {
        return Invalid("outfeed: outfeed_shape ", Str(*attrs.outfeed_shape),
                       " differs from the data operand ", Str(*operands[0]),
                       ".");
      }
      return out;
    }
    case HloOpcode::kAfterAll:
      return InferAfterAllShape(operands);
    case HloOpcode::kSend:
      return InferSendShape(*operands[0], *operands[1]);
    case HloOpcode::kRecv:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferRecvShape(*operands[0], *declared);
    case HloOpcode::kSendDone:
      return InferSendDoneShape(*operands[0]);
    case HloOpcode::kRecvDone:
      return InferRecvDoneShape(*operands[0]);
    case HloOpcode::kPartitionId:
    case HloOpcode::kReplicaId:
      return MakeArray(PrimitiveType::U32, {});
    case HloOpcode::kOptimizationBarrier:
      return NoLayout(*operands[0]);
    case HloOpcode::kCustomCall: {
      PLEXA_RETURN_IF_ERROR(need_declared());
      if (called.size() > 1) {
        return Invalid("custom-call may call at most one computation; got ",
                       called.size(), ".");
      }
      if (attrs.has_layout_constraints) {
        if (attrs.operand_shapes_with_layout.size() != operands.size()) {
          return Invalid("custom-call: operand_layout_constraints has ",
                         attrs.operand_shapes_with_layout.size(),
                         " shapes for ", operands.size(), " operands ",
                         Str(operands), ".");
        }
        for (size_t i = 0; i < operands.size(); ++i) {
          if (!Compatible(attrs.operand_shapes_with_layout[i], *operands[i])) {
            return Invalid("custom-call: operand ", i, " ", Str(*operands[i]),
                           " differs from its layout constraint ",
                           Str(attrs.operand_shapes_with_layout[i]), ".");
          }
        }
      }
      return NoLayout(*declared);
    }
    case HloOpcode::kFusion: {
      PLEXA_RETURN_IF_ERROR(need_declared());
      PLEXA_RETURN_IF_ERROR(need_called(1, "the fused computation"));
      const ProgramShape& fused = called[0];
      if (fused.parameters.size() != operands.size()) {
        return Invalid("fusion: the fused computation ", Str(fused), " takes ",
                       fused.parameters.size(),
                       " parameters but the fusion has ", operands.size(),
                       " operands ", Str(operands), ".");
      }
      for (size_t i = 0; i < operands.size(); ++i) {
        if (!Compatible(fused.parameters[i], *operands[i])) {
          return Invalid("fusion: operand ", i, " ", Str(*operands[i]),
                         " does not match parameter ", i,
                         " of the fused computation ", Str(fused), ".");
        }
      }
      if (!Compatible(fused.result, *declared)) {
        return Invalid("fusion: the fused computation returns ",
                       Str(fused.result), " but the fusion is declared ",
                       Str(*declared), ".");
      }
      return NoLayout(*declared);
    }
    case HloOpcode::kBitcast: {
      PLEXA_RETURN_IF_ERROR(need_declared());
      const Shape& in = *operands[0];
      if (!in.IsArray() || !declared->IsArray()) {
        return Invalid("bitcast needs array shapes; got ", Str(in), " -> ",
                       Str(*declared), ".");
      }
      // A bitcast reinterprets the operand's buffer: the physical sizes,
      // tile and seed-000 padding included, must agree (XLA's verifier
      // compares ShapeUtil::ByteSizeOf of both), not the element counts.
      // f32[96]{0} -> f32[6,10]{1,0:T(4,6)} is valid (8 x 12 tile slots =
      // 96 elements, 384 bytes each side).
      const int64_t in_bytes = ShapeUtil::ByteSizeOf(in);
      const int64_t out_bytes = ShapeUtil::ByteSizeOf(*declared);
      if (in_bytes != out_bytes) {
        return Invalid("bitcast from ", Str(in), " to ", Str(*declared),
                       " changes the size in bytes (", in_bytes, " vs ",
                       out_bytes, ").");
      }
      return NoLayout(*declared);
    }
    case HloOpcode::kReshape: {
      PLEXA_RETURN_IF_ERROR(need_declared());
      PLEXA_RETURN_IF_ERROR(internal::ExpectArray(*declared, "reshape"));
      PLEXA_ASSIGN_OR_RETURN(
          Shape out, InferReshapeShape(*operands[0], declared->dimensions()));
      // Which result dimensions a dynamic operand dimension lands in is
      // taken from the declared shape; a static operand gives a static
      // result.
      if (operands[0]->is_dynamic()) {
        for (int64_t i = 0; i < out.rank(); ++i) {
          out.set_dynamic_dimension(i, declared->is_dynamic_dimension(i));
        }
      }
      return out;
    }
    case HloOpcode::kBroadcast:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferBroadcastShape(*operands[0], *declared, attrs.dimensions);
    case HloOpcode::kConvert:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferConvertShape(*operands[0], declared->element_type());
    case HloOpcode::kStochasticConvert:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferStochasticConvertShape(*operands[0], *operands[1],
                                         declared->element_type());
    case HloOpcode::kBitcastConvert:
      PLEXA_RETURN_IF_ERROR(need_declared());
      return InferBitcastConvertShape(*operands[0], declared->element_type());
    case HloOpcode::kReducePrecision:
      return InferReducePrecisionShape(*operands[0], attrs.exponent_bits,
                                       attrs.mantissa_bits);
    case HloOpcode::kCompare:
      return InferCompareShape(*operands[0], *operands[1],
                               attrs.comparison_direction,
                               attrs.comparison_type);
    case HloOpcode::kClamp:
      return InferClampShape(*operands[0], *operands[1], *operands[2]);
    case HloOpcode::kSelect:
      return InferSelectShape(*operands[0], *operands[1], *operands[2]);
    case HloOpcode::kMap: {
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      PLEXA_RETURN_IF_ERROR(need_min_operands(1));
      // Written without dimensions, a map covers all dimensions.
      std::vector<int64_t> dims = attrs.dimensions;
      if (dims.empty() && operands[0]->IsArray()) {
        dims.resize(operands[0]->rank());
        std::iota(dims.begin(), dims.end(), 0);
      }
      return InferMapShape(operands, called[0], dims);
    }
    case HloOpcode::kTranspose:
      return InferTransposeShape(*operands[0], attrs.dimensions);
    case HloOpcode::kReverse:
      return InferReverseShape(*operands[0], attrs.dimensions);
    case HloOpcode::kConcatenate: {
      PLEXA_ASSIGN_OR_RETURN(int64_t dim, need_one_dimension());
      return InferConcatenateShape(operands, dim);
    }
    case HloOpcode::kSlice:
      return InferSliceShape(*operands[0], attrs.slice);
    case HloOpcode::kDynamicSlice:
      PLEXA_RETURN_IF_ERROR(need_min_operands(1));
      return InferDynamicSliceShape(*operands[0], operands.subspan(1),
                                    attrs.dynamic_slice_sizes);
    case HloOpcode::kDynamicUpdateSlice:
      PLEXA_RETURN_IF_ERROR(need_min_operands(2));
      return InferDynamicUpdateSliceShape(*operands[0], *operands[1],
                                          operands.subspan(2));
    case HloOpcode::kPad:
      if (!attrs.padding_config.has_value()) {
        return Invalid("pad(", Str(*operands[0]), ", ", Str(*operands[1]),
                       ") has no padding configuration.");
      }
      return InferPadShape(*operands[0], *operands[1], *attrs.padding_config);
    case HloOpcode::kGather:
      if (!attrs.gather_dimension_numbers.has_value()) {
        return Invalid("gather(", Str(*operands[0]), ", ", Str(*operands[1]),
                       ") has no dimension numbers.");
      }
      return InferGatherShape(*operands[0], *operands[1],
                              *attrs.gather_dimension_numbers,
                              attrs.gather_slice_sizes);
    case HloOpcode::kScatter:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      if (!attrs.scatter_dimension_numbers.has_value()) {
        return Invalid("scatter", Str(operands), " has no dimension numbers.");
      }
      return InferScatterShape(operands, called[0],
                               *attrs.scatter_dimension_numbers);
    case HloOpcode::kGetDimensionSize: {
      PLEXA_ASSIGN_OR_RETURN(int64_t dim, need_one_dimension());
      return InferGetDimensionSizeShape(*operands[0], dim);
    }
    case HloOpcode::kSetDimensionSize: {
      PLEXA_ASSIGN_OR_RETURN(int64_t dim, need_one_dimension());
      return InferSetDimensionSizeShape(*operands[0], *operands[1], dim);
    }
    case HloOpcode::kDynamicReshape:
      PLEXA_RETURN_IF_ERROR(need_declared());
      PLEXA_RETURN_IF_ERROR(need_min_operands(1));
      return InferDynamicReshapeShape(*operands[0], operands.subspan(1),
                                      *declared);
    case HloOpcode::kTuple:
      return InferTupleShape(operands);
    case HloOpcode::kGetTupleElement:
      return InferGetTupleElementShape(*operands[0], attrs.tuple_index);
    case HloOpcode::kCall:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferCallShape(operands, called[0]);
    case HloOpcode::kWhile:
      PLEXA_RETURN_IF_ERROR(need_called(2, "condition, body"));
      return InferWhileShape(called[0], called[1], *operands[0]);
    case HloOpcode::kConditional:
      PLEXA_RETURN_IF_ERROR(need_min_operands(1));
      return InferConditionalShape(*operands[0], called, operands.subspan(1));
    case HloOpcode::kReduce:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferReduceShape(operands, attrs.dimensions, called[0]);
    case HloOpcode::kReduceWindow:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferReduceWindowShape(operands, attrs.window.value_or(Window{}),
                                    called[0]);
    case HloOpcode::kSelectAndScatter:
      PLEXA_RETURN_IF_ERROR(need_called(2, "select, scatter"));
      return InferSelectAndScatterShape(*operands[0], called[0],
                                        attrs.window.value_or(Window{}),
                                        *operands[1], *operands[2], called[1]);
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferAllReduceShape(operands, called[0]);
    case HloOpcode::kAllGatherStart:
      return InferAllGatherStartShape(
          operands, attrs.replica_groups, attrs.dimensions, declared,
          attrs.channel_id.has_value() && !attrs.use_global_device_ids);
    case HloOpcode::kCollectivePermuteStart:
      return InferCollectivePermuteStartShape(operands,
                                              attrs.source_target_pairs);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
      return InferAsyncDoneShape(opcode, *operands[0]);
    case HloOpcode::kAsyncStart:
      PLEXA_RETURN_IF_ERROR(need_called(1, "calls"));
      return InferAsyncStartShape(operands, called[0], declared);
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      // calls= is optional here (it must name the start's computation:
      // the verifier's check).
      if (called.size() > 1) {
        return Invalid(op, " calls at most one computation; got ",
                       called.size(), ".");
      }
      return opcode == HloOpcode::kAsyncUpdate
                 ? InferAsyncUpdateShape(*operands[0])
                 : InferAsyncWrapperDoneShape(*operands[0]);
    case HloOpcode::kCopyStart:
      return InferCopyStartShape(*operands[0], declared);
    case HloOpcode::kCopyDone:
      return InferCopyDoneShape(*operands[0]);
    case HloOpcode::kAddDependency:
      return InferAddDependencyShape(*operands[0], *operands[1]);
    case HloOpcode::kDomain:
      return NoLayout(*operands[0]);
    case HloOpcode::kRngGetAndUpdateState:
      return InferRngGetAndUpdateStateShape();
    case HloOpcode::kAllGather:
      return InferAllGatherShape(
          operands, attrs.replica_groups, attrs.dimensions, declared,
          attrs.channel_id.has_value() && !attrs.use_global_device_ids);
    case HloOpcode::kAllToAll:
      return InferAllToAllShape(operands, attrs.replica_groups,
                                attrs.dimensions);
    case HloOpcode::kCollectiveBroadcast:
      return InferCollectiveBroadcastShape(*operands[0], attrs.replica_groups);
    case HloOpcode::kCollectivePermute:
      return InferCollectivePermuteShape(operands, attrs.source_target_pairs);
    case HloOpcode::kReduceScatter:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferReduceScatterShape(
          operands, attrs.replica_groups, attrs.dimensions, called[0], declared,
          attrs.channel_id.has_value() && !attrs.use_global_device_ids);
    case HloOpcode::kSort: {
      PLEXA_RETURN_IF_ERROR(need_called(1, "comparator"));
      PLEXA_ASSIGN_OR_RETURN(int64_t dim, need_one_dimension());
      return InferSortShape(operands, dim, called[0]);
    }
    case HloOpcode::kDot:
      // The declared element type is the preferred (result) type.
      if (!attrs.dot_sparsity.empty()) {
        return InferSparseDotShape(
            operands,
            attrs.dot_dimension_numbers.value_or(DotDimensionNumbers{}),
            attrs.dot_sparsity,
            declared != nullptr ? declared->element_type()
                                : PrimitiveType::PRIMITIVE_TYPE_INVALID);
      }
      if (operands.size() != 2) {
        return Invalid(op, " expects 2 operands (lhs, rhs), got ",
                       operands.size(),
                       "; a metadata operand needs its sparsity= "
                       "descriptor.");
      }
      return InferDotShape(
          *operands[0], *operands[1],
          attrs.dot_dimension_numbers.value_or(DotDimensionNumbers{}),
          declared != nullptr ? declared->element_type()
                              : PrimitiveType::PRIMITIVE_TYPE_INVALID);
    case HloOpcode::kScaledDot:
      // The declared element type is the preferred (result) type, as dot's.
      return InferScaledDotShape(
          *operands[0], *operands[1], *operands[2], *operands[3],
          attrs.dot_dimension_numbers.value_or(DotDimensionNumbers{}),
          declared != nullptr ? declared->element_type()
                              : PrimitiveType::PRIMITIVE_TYPE_INVALID);
    case HloOpcode::kScan:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferScanShape(operands, attrs.dimensions, attrs.num_carries,
                            called[0], declared);
    case HloOpcode::kShuffle:
      return InferShuffleShape(*operands[0], attrs);
    case HloOpcode::kRaggedAllToAll:
      return InferRaggedAllToAllShape(operands, attrs.replica_groups);
    case HloOpcode::kCollectiveReduce:
      PLEXA_RETURN_IF_ERROR(need_called(1, "to_apply"));
      return InferCollectiveReduceShape(operands, attrs.replica_groups,
                                        attrs.has_dynamic_root, called[0]);
    case HloOpcode::kRaggedDot:
      // The declared element type is the preferred (result) type, as dot's.
      return InferRaggedDotShape(
          *operands[0], *operands[1], *operands[2],
          attrs.dot_dimension_numbers.value_or(DotDimensionNumbers{}),
          attrs.lhs_ragged_dimensions, attrs.rhs_group_dimensions,
          declared != nullptr ? declared->element_type()
                              : PrimitiveType::PRIMITIVE_TYPE_INVALID);
    case HloOpcode::kConvolution:
      return InferConvolveShape(
          *operands[0], *operands[1], attrs.feature_group_count,
          attrs.batch_group_count, attrs.window.value_or(Window{}),
          attrs.convolution_dimension_numbers.value_or(
              ConvolutionDimensionNumbers{}),
          declared != nullptr ? declared->element_type()
                              : PrimitiveType::PRIMITIVE_TYPE_INVALID);
    case HloOpcode::kTriangularSolve:
      return InferTriangularSolveShape(*operands[0], *operands[1],
                                       attrs.triangular_solve_options);
    case HloOpcode::kCholesky:
      return InferCholeskyShape(*operands[0]);
    case HloOpcode::kFft:
      return InferFftShape(*operands[0], attrs.fft_type, attrs.fft_length);
    case HloOpcode::kTopK:
      return InferTopKShape(*operands[0], attrs.k);
    case HloOpcode::kBatchNormTraining:
      return InferBatchNormTrainingShape(*operands[0], *operands[1],
                                         *operands[2], attrs.feature_index);
    case HloOpcode::kBatchNormInference:
      return InferBatchNormInferenceShape(*operands[0], *operands[1],
                                          *operands[2], *operands[3],
                                          *operands[4], attrs.feature_index);
    case HloOpcode::kBatchNormGrad:
      return InferBatchNormGradShape(*operands[0], *operands[1], *operands[2],
                                     *operands[3], *operands[4],
                                     attrs.feature_index);
    default:
      return Invalid("no shape inference for opcode ", op, ".");
  }
}

absl::StatusOr<Shape> InferInstructionShape(const Instruction& instruction,
                                            bool use_declared) {
  std::vector<const Shape*> operands;
  operands.reserve(instruction.operand_count());
  for (const Instruction* operand : instruction.operands()) {
    if (operand == nullptr) {
      return Invalid(HloOpcodeString(instruction.opcode()), " ",
                     instruction.name(), " has a null operand.");
    }
    operands.push_back(&operand->shape());
  }
  std::vector<ProgramShape> called;
  for (const Computation* c : instruction.called_computations()) {
    if (c == nullptr) {
      return Invalid(HloOpcodeString(instruction.opcode()), " ",
                     instruction.name(), " calls a null computation.");
    }
    called.push_back(c->ComputeProgramShape());
  }
  return InferShape(instruction.opcode(), operands, instruction.attrs(), called,
                    use_declared ? &instruction.shape() : nullptr);
}

}  // namespace plexa::shape_inference
