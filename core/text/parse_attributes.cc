// Instruction attributes: `, name=value` after the operands.
//
// Each opcode has a table of the attributes it interprets (AttrSpec below),
// parsed into the typed fields of InstructionAttrs. backend_config and
// control-predecessors are read for every opcode. Anything else (metadata,
// sharding, frontend_attributes, statistics, operand_precision, an attribute
// of an opcode that does not use it, a name Plexa has never heard of) is kept
// verbatim in InstructionAttrs::opaque and printed back unchanged.
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/text/parser_impl.h"

namespace plexa::text_internal {
namespace {

enum class AttrId {
  kDimensions,
  kIotaDimension,
  kIndex,
  kWindow,
  kDimLabels,
  kFeatureGroupCount,
  kBatchGroupCount,
  kLhsBatchDims,
  kRhsBatchDims,
  kLhsContractingDims,
  kRhsContractingDims,
  kPadding,
  kSlice,
  kDynamicSliceSizes,
  kOffsetDims,
  kCollapsedSliceDims,
  kStartIndexMap,
  kGatherIndexVectorDim,
  kOperandBatchingDims,
  kStartIndicesBatchingDims,
  kSliceSizes,
  kUpdateWindowDims,
  kInsertedWindowDims,
  kScatterDimsToOperandDims,
  kScatterIndexVectorDim,
  kInputBatchingDims,
  kScatterIndicesBatchingDims,
  kIndicesAreSorted,
  kUniqueIndices,
  kDirection,
  kComparisonType,
  kEpsilon,
  kFeatureIndex,
  kExponentBits,
  kMantissaBits,
  kDistribution,
  kRngAlgorithm,
  kIsStable,
  kCustomCallTarget,
  kApiVersion,
  kOperandLayoutConstraints,
  kCustomCallHasSideEffect,
  kReplicaGroups,
  kChannelId,
  kUseGlobalDeviceIds,
  kConstrainLayout,
  kInfeedConfig,
  kOutfeedConfig,
  kOutfeedShape,
  kFusionKind,
  kLeftSide,
  kLower,
  kUnitDiagonal,
  kTransposeA,
  kCholeskyLower,
  kToApply,
  kCondition,
  kBody,
  kSelect,
  kScatter,
  kTrueComputation,
  kFalseComputation,
  kBranchComputations,
  kCalls,
  kCalledComputations,
};

struct AttrSpec {
  absl::string_view name;
  AttrId id;
  bool required;
};

constexpr AttrSpec kDimensionsRequired[] = {
    {"dimensions", AttrId::kDimensions, true}};
constexpr AttrSpec kMapSpecs[] = {{"dimensions", AttrId::kDimensions, false},
                                  {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kReduceSpecs[] = {{"dimensions", AttrId::kDimensions, true},
                                     {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kSortSpecs[] = {{"dimensions", AttrId::kDimensions, true},
                                   {"is_stable", AttrId::kIsStable, false},
                                   {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kIotaSpecs[] = {
    {"iota_dimension", AttrId::kIotaDimension, true}};
constexpr AttrSpec kGetTupleElementSpecs[] = {{"index", AttrId::kIndex, true}};
constexpr AttrSpec kConvolutionSpecs[] = {
    {"window", AttrId::kWindow, false},
    {"dim_labels", AttrId::kDimLabels, false},
    {"feature_group_count", AttrId::kFeatureGroupCount, false},
    {"batch_group_count", AttrId::kBatchGroupCount, false}};
constexpr AttrSpec kReduceWindowSpecs[] = {
    {"window", AttrId::kWindow, false}, {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kSelectAndScatterSpecs[] = {
    {"window", AttrId::kWindow, false},
    {"select", AttrId::kSelect, true},
    {"scatter", AttrId::kScatter, true}};
constexpr AttrSpec kDotSpecs[] = {
    {"lhs_batch_dims", AttrId::kLhsBatchDims, false},
    {"rhs_batch_dims", AttrId::kRhsBatchDims, false},
    {"lhs_contracting_dims", AttrId::kLhsContractingDims, false},
    {"rhs_contracting_dims", AttrId::kRhsContractingDims, false}};
constexpr AttrSpec kPadSpecs[] = {{"padding", AttrId::kPadding, true}};
constexpr AttrSpec kSliceSpecs[] = {{"slice", AttrId::kSlice, true}};
constexpr AttrSpec kDynamicSliceSpecs[] = {
    {"dynamic_slice_sizes", AttrId::kDynamicSliceSizes, true}};
constexpr AttrSpec kGatherSpecs[] = {
    {"offset_dims", AttrId::kOffsetDims, true},
    {"collapsed_slice_dims", AttrId::kCollapsedSliceDims, true},
    {"start_index_map", AttrId::kStartIndexMap, true},
    {"index_vector_dim", AttrId::kGatherIndexVectorDim, true},
    {"operand_batching_dims", AttrId::kOperandBatchingDims, false},
    {"start_indices_batching_dims", AttrId::kStartIndicesBatchingDims, false},
    {"slice_sizes", AttrId::kSliceSizes, true},
    {"indices_are_sorted", AttrId::kIndicesAreSorted, false}};
constexpr AttrSpec kScatterSpecs[] = {
    {"update_window_dims", AttrId::kUpdateWindowDims, true},
    {"inserted_window_dims", AttrId::kInsertedWindowDims, true},
    {"scatter_dims_to_operand_dims", AttrId::kScatterDimsToOperandDims, true},
    {"index_vector_dim", AttrId::kScatterIndexVectorDim, true},
    {"input_batching_dims", AttrId::kInputBatchingDims, false},
    {"scatter_indices_batching_dims", AttrId::kScatterIndicesBatchingDims,
     false},
    {"indices_are_sorted", AttrId::kIndicesAreSorted, false},
    {"unique_indices", AttrId::kUniqueIndices, false},
    {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kCompareSpecs[] = {{"direction", AttrId::kDirection, true},
                                      {"type", AttrId::kComparisonType, false}};
constexpr AttrSpec kBatchNormSpecs[] = {
    {"epsilon", AttrId::kEpsilon, true},
    {"feature_index", AttrId::kFeatureIndex, true}};
constexpr AttrSpec kReducePrecisionSpecs[] = {
    {"exponent_bits", AttrId::kExponentBits, true},
    {"mantissa_bits", AttrId::kMantissaBits, true}};
constexpr AttrSpec kRngSpecs[] = {
    {"distribution", AttrId::kDistribution, true}};
// XLA's parser requires algorithm= on rng-bit-generator.
constexpr AttrSpec kRngBitGeneratorSpecs[] = {
    {"algorithm", AttrId::kRngAlgorithm, true}};
constexpr AttrSpec kCustomCallSpecs[] = {
    {"custom_call_target", AttrId::kCustomCallTarget, true},
    {"api_version", AttrId::kApiVersion, false},
    {"operand_layout_constraints", AttrId::kOperandLayoutConstraints, false},
    {"custom_call_has_side_effect", AttrId::kCustomCallHasSideEffect, false},
    {"to_apply", AttrId::kToApply, false},
    {"called_computations", AttrId::kCalledComputations, false},
    {"window", AttrId::kWindow, false},
    {"dim_labels", AttrId::kDimLabels, false},
    {"feature_group_count", AttrId::kFeatureGroupCount, false},
    {"batch_group_count", AttrId::kBatchGroupCount, false}};
constexpr AttrSpec kAllReduceSpecs[] = {
    {"replica_groups", AttrId::kReplicaGroups, false},
    {"channel_id", AttrId::kChannelId, false},
    {"use_global_device_ids", AttrId::kUseGlobalDeviceIds, false},
    {"constrain_layout", AttrId::kConstrainLayout, false},
    {"to_apply", AttrId::kToApply, true}};
constexpr AttrSpec kInfeedSpecs[] = {
    {"infeed_config", AttrId::kInfeedConfig, false}};
constexpr AttrSpec kOutfeedSpecs[] = {
    {"outfeed_config", AttrId::kOutfeedConfig, false},
    {"outfeed_shape", AttrId::kOutfeedShape, false}};
constexpr AttrSpec kFusionSpecs[] = {{"kind", AttrId::kFusionKind, true},
                                     {"calls", AttrId::kCalls, true}};
constexpr AttrSpec kTriangularSolveSpecs[] = {
    {"left_side", AttrId::kLeftSide, false},
    {"lower", AttrId::kLower, false},
    {"unit_diagonal", AttrId::kUnitDiagonal, false},
    {"transpose_a", AttrId::kTransposeA, false}};
constexpr AttrSpec kCholeskySpecs[] = {
    {"lower", AttrId::kCholeskyLower, false}};
constexpr AttrSpec kWhileSpecs[] = {{"condition", AttrId::kCondition, true},
                                    {"body", AttrId::kBody, true}};
constexpr AttrSpec kConditionalSpecs[] = {
    {"true_computation", AttrId::kTrueComputation, false},
    {"false_computation", AttrId::kFalseComputation, false},
    {"branch_computations", AttrId::kBranchComputations, false}};
constexpr AttrSpec kCallSpecs[] = {{"to_apply", AttrId::kToApply, true}};

absl::Span<const AttrSpec> SpecsFor(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
    case HloOpcode::kGetDimensionSize:
      return kDimensionsRequired;
    case HloOpcode::kMap:
      return kMapSpecs;
    case HloOpcode::kReduce:
      return kReduceSpecs;
    case HloOpcode::kSort:
      return kSortSpecs;
    case HloOpcode::kIota:
      return kIotaSpecs;
    case HloOpcode::kGetTupleElement:
      return kGetTupleElementSpecs;
    case HloOpcode::kConvolution:
      return kConvolutionSpecs;
    case HloOpcode::kReduceWindow:
      return kReduceWindowSpecs;
    case HloOpcode::kSelectAndScatter:
      return kSelectAndScatterSpecs;
    case HloOpcode::kDot:
      return kDotSpecs;
    case HloOpcode::kPad:
      return kPadSpecs;
    case HloOpcode::kSlice:
      return kSliceSpecs;
    case HloOpcode::kDynamicSlice:
      return kDynamicSliceSpecs;
    case HloOpcode::kGather:
      return kGatherSpecs;
    case HloOpcode::kScatter:
      return kScatterSpecs;
    case HloOpcode::kCompare:
      return kCompareSpecs;
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
      return kBatchNormSpecs;
    case HloOpcode::kReducePrecision:
      return kReducePrecisionSpecs;
    case HloOpcode::kRng:
      return kRngSpecs;
    case HloOpcode::kRngBitGenerator:
      return kRngBitGeneratorSpecs;
    case HloOpcode::kCustomCall:
      return kCustomCallSpecs;
    case HloOpcode::kAllReduce:
      return kAllReduceSpecs;
    case HloOpcode::kInfeed:
      return kInfeedSpecs;
    case HloOpcode::kOutfeed:
      return kOutfeedSpecs;
    case HloOpcode::kFusion:
      return kFusionSpecs;
    case HloOpcode::kTriangularSolve:
      return kTriangularSolveSpecs;
    case HloOpcode::kCholesky:
      return kCholeskySpecs;
    case HloOpcode::kWhile:
      return kWhileSpecs;
    case HloOpcode::kConditional:
      return kConditionalSpecs;
    case HloOpcode::kCall:
      return kCallSpecs;
    default:
      return {};
  }
}

const AttrSpec* FindSpec(HloOpcode op, absl::string_view name) {
  for (const AttrSpec& spec : SpecsFor(op)) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string Quoted(absl::string_view s) { return absl::StrCat("'", s, "'"); }

template <typename E>
absl::StatusOr<E> ParseEnumValue(Parser* p, absl::string_view what,
                                 std::optional<E> (*from)(absl::string_view),
                                 bool upper, bool lower) {
  const Token& t = p->lexer().Peek();
  if (t.kind != TokKind::kIdent) return p->ErrorHere(what);
  std::string s = t.str;
  if (upper) absl::AsciiStrToUpper(&s);
  if (lower) absl::AsciiStrToLower(&s);
  std::optional<E> e = from(s);
  if (!e) return p->ErrorHere(what);
  p->lexer().Take();
  return *e;
}

}  // namespace

absl::Status Parser::ParseInstructionAttribute(
    InstrRecord* rec, CalledSlots* slots,
    absl::flat_hash_set<std::string>* seen) {
  const Token& t = lexer_.Peek();
  if (t.kind != TokKind::kIdent) return ErrorHere("an attribute name");
  const std::string name = t.str;
  const size_t loc = t.begin;
  lexer_.Take();
  PLEXA_RETURN_IF_ERROR(Expect(
      TokKind::kEqual, absl::StrCat("'=' after attribute ", Quoted(name))));
  if (!seen->insert(name).second) {
    return ErrorAt(loc, "each attribute at most once",
                   absl::StrCat("a second ", Quoted(name)));
  }
  InstructionAttrs& a = rec->attrs;
  if (name == "backend_config") {
    PLEXA_ASSIGN_OR_RETURN(a.backend_config, ParseBackendConfigValue(this));
    return absl::OkStatus();
  }
  if (name == "control-predecessors") {
    PLEXA_ASSIGN_OR_RETURN(std::vector<NameRef> preds,
                           ParseNameList(this, "control-predecessors"));
    for (NameRef& r : preds) {
      rec->control_predecessors.push_back(
          OperandRef{std::move(r.name), r.loc, -1});
    }
    return absl::OkStatus();
  }
  const AttrSpec* spec = FindSpec(rec->opcode, name);
  if (spec == nullptr) {
    PLEXA_ASSIGN_OR_RETURN(std::string value, ParseOpaqueValue(name));
    a.opaque.emplace_back(name, std::move(value));
    return absl::OkStatus();
  }

  auto ints = [&](std::vector<int64_t>* out) -> absl::Status {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseBracedInt64List(Quoted(name)));
    return absl::OkStatus();
  };
  auto int64 = [&](int64_t* out) -> absl::Status {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseInt64("an integer"));
    return absl::OkStatus();
  };
  auto int32 = [&](int32_t* out) -> absl::Status {
    const size_t vloc = lexer_.Peek().begin;
    PLEXA_ASSIGN_OR_RETURN(int64_t v, ParseInt64("an integer"));
    if (v < std::numeric_limits<int32_t>::min() ||
        v > std::numeric_limits<int32_t>::max()) {
      return ErrorAt(vloc, "an integer in the range of s32", absl::StrCat(v));
    }
    *out = static_cast<int32_t>(v);
    return absl::OkStatus();
  };
  auto boolean = [&](bool* out) -> absl::Status {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseBool("true or false"));
    return absl::OkStatus();
  };
  auto comp = [&](std::optional<NameRef>* out) -> absl::Status {
    PLEXA_ASSIGN_OR_RETURN(*out, ParseNameRef("a computation name"));
    return absl::OkStatus();
  };
  auto dot = [&]() -> DotDimensionNumbers& {
    if (!a.dot_dimension_numbers) a.dot_dimension_numbers.emplace();
    return *a.dot_dimension_numbers;
  };
  auto gather = [&]() -> GatherDimensionNumbers& {
    if (!a.gather_dimension_numbers) a.gather_dimension_numbers.emplace();
    return *a.gather_dimension_numbers;
  };
  auto scatter = [&]() -> ScatterDimensionNumbers& {
    if (!a.scatter_dimension_numbers) a.scatter_dimension_numbers.emplace();
    return *a.scatter_dimension_numbers;
  };

  switch (spec->id) {
    case AttrId::kDimensions:
      return ints(&a.dimensions);
    case AttrId::kIotaDimension:
      return int64(&a.iota_dimension);
    case AttrId::kIndex:
      return int64(&a.tuple_index);
    case AttrId::kWindow: {
      PLEXA_ASSIGN_OR_RETURN(a.window, ParseWindowValue(this));
      return absl::OkStatus();
    }
    case AttrId::kDimLabels: {
      PLEXA_ASSIGN_OR_RETURN(a.convolution_dimension_numbers,
                             ParseDimLabelsValue(this));
      return absl::OkStatus();
    }
    case AttrId::kFeatureGroupCount:
      return int64(&a.feature_group_count);
    case AttrId::kBatchGroupCount:
      return int64(&a.batch_group_count);
    case AttrId::kLhsBatchDims:
      return ints(&dot().lhs_batch_dimensions);
    case AttrId::kRhsBatchDims:
      return ints(&dot().rhs_batch_dimensions);
    case AttrId::kLhsContractingDims:
      return ints(&dot().lhs_contracting_dimensions);
    case AttrId::kRhsContractingDims:
      return ints(&dot().rhs_contracting_dimensions);
    case AttrId::kPadding: {
      PLEXA_ASSIGN_OR_RETURN(a.padding_config, ParsePaddingValue(this));
      return absl::OkStatus();
    }
    case AttrId::kSlice: {
      PLEXA_ASSIGN_OR_RETURN(a.slice, ParseSliceValue(this));
      return absl::OkStatus();
    }
    case AttrId::kDynamicSliceSizes:
      return ints(&a.dynamic_slice_sizes);
    case AttrId::kOffsetDims:
      return ints(&gather().offset_dims);
    case AttrId::kCollapsedSliceDims:
      return ints(&gather().collapsed_slice_dims);
    case AttrId::kStartIndexMap:
      return ints(&gather().start_index_map);
    case AttrId::kGatherIndexVectorDim:
      return int64(&gather().index_vector_dim);
    case AttrId::kOperandBatchingDims:
      return ints(&gather().operand_batching_dims);
    case AttrId::kStartIndicesBatchingDims:
      return ints(&gather().start_indices_batching_dims);
    case AttrId::kSliceSizes:
      return ints(&a.gather_slice_sizes);
    case AttrId::kUpdateWindowDims:
      return ints(&scatter().update_window_dims);
    case AttrId::kInsertedWindowDims:
      return ints(&scatter().inserted_window_dims);
    case AttrId::kScatterDimsToOperandDims:
      return ints(&scatter().scatter_dims_to_operand_dims);
    case AttrId::kScatterIndexVectorDim:
      return int64(&scatter().index_vector_dim);
    case AttrId::kInputBatchingDims:
      return ints(&scatter().input_batching_dims);
    case AttrId::kScatterIndicesBatchingDims:
      return ints(&scatter().scatter_indices_batching_dims);
    case AttrId::kIndicesAreSorted:
      return boolean(&a.indices_are_sorted);
    case AttrId::kUniqueIndices:
      return boolean(&a.unique_indices);
    case AttrId::kDirection: {
      PLEXA_ASSIGN_OR_RETURN(
          a.comparison_direction,
          ParseEnumValue<ComparisonDirection>(
              this, "a comparison direction (EQ, NE, GE, GT, LE, LT)",
              &StringToComparisonDirection, /*upper=*/false, /*lower=*/false));
      return absl::OkStatus();
    }
    case AttrId::kComparisonType: {
      PLEXA_ASSIGN_OR_RETURN(
          a.comparison_type,
          ParseEnumValue<ComparisonType>(
              this, "a comparison type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)",
              &StringToComparisonType, /*upper=*/false, /*lower=*/false));
      return absl::OkStatus();
    }
    case AttrId::kEpsilon: {
      PLEXA_ASSIGN_OR_RETURN(a.epsilon, ParseFloat32Value(this, "a number"));
      return absl::OkStatus();
    }
    case AttrId::kFeatureIndex:
      return int64(&a.feature_index);
    case AttrId::kExponentBits:
      return int32(&a.exponent_bits);
    case AttrId::kMantissaBits:
      return int32(&a.mantissa_bits);
    case AttrId::kDistribution: {
      PLEXA_ASSIGN_OR_RETURN(
          a.distribution,
          ParseEnumValue<RandomDistribution>(
              this, "a distribution (rng_uniform, rng_normal)",
              &StringToRandomDistribution, /*upper=*/false, /*lower=*/true));
      return absl::OkStatus();
    }
    case AttrId::kRngAlgorithm: {
      PLEXA_ASSIGN_OR_RETURN(
          a.rng_algorithm,
          ParseEnumValue<RandomAlgorithm>(
              this, "an rng algorithm (rng_default, rng_three_fry, rng_philox)",
              &StringToRandomAlgorithm, /*upper=*/false, /*lower=*/true));
      return absl::OkStatus();
    }
    case AttrId::kIsStable:
      return boolean(&a.is_stable);
    case AttrId::kCustomCallTarget: {
      PLEXA_ASSIGN_OR_RETURN(a.custom_call_target,
                             ParseString("a quoted custom-call target"));
      return absl::OkStatus();
    }
    case AttrId::kApiVersion: {
      PLEXA_ASSIGN_OR_RETURN(
          a.api_version,
          ParseEnumValue<CustomCallApiVersion>(
              this, "an API version such as API_VERSION_STATUS_RETURNING",
              &StringToCustomCallApiVersion, /*upper=*/true, /*lower=*/false));
      return absl::OkStatus();
    }
    case AttrId::kOperandLayoutConstraints: {
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kLbrace, "'{' starting operand_layout_constraints"));
      a.has_layout_constraints = true;
      if (TakeIf(TokKind::kRbrace)) return absl::OkStatus();
      while (true) {
        PLEXA_ASSIGN_OR_RETURN(Shape s, ParseShape());
        a.operand_shapes_with_layout.push_back(std::move(s));
        if (TakeIf(TokKind::kComma)) continue;
        return Expect(TokKind::kRbrace,
                      "',' or '}' in operand_layout_constraints");
      }
    }
    case AttrId::kCustomCallHasSideEffect:
      return boolean(&a.custom_call_has_side_effect);
    case AttrId::kReplicaGroups: {
      PLEXA_ASSIGN_OR_RETURN(a.replica_groups, ParseReplicaGroupsValue(this));
      return absl::OkStatus();
    }
    case AttrId::kChannelId: {
      PLEXA_ASSIGN_OR_RETURN(a.channel_id, ParseInt64("an integer"));
      return absl::OkStatus();
    }
    case AttrId::kUseGlobalDeviceIds:
      return boolean(&a.use_global_device_ids);
    case AttrId::kConstrainLayout:
      return boolean(&a.constrain_layout);
    case AttrId::kInfeedConfig: {
      PLEXA_ASSIGN_OR_RETURN(a.infeed_config,
                             ParseString("a quoted infeed_config"));
      return absl::OkStatus();
    }
    case AttrId::kOutfeedConfig: {
      PLEXA_ASSIGN_OR_RETURN(a.outfeed_config,
                             ParseString("a quoted outfeed_config"));
      return absl::OkStatus();
    }
    case AttrId::kOutfeedShape: {
      PLEXA_ASSIGN_OR_RETURN(a.outfeed_shape, ParseShape());
      return absl::OkStatus();
    }
    case AttrId::kFusionKind: {
      PLEXA_ASSIGN_OR_RETURN(
          a.fusion_kind,
          ParseEnumValue<FusionKind>(
              this, "a fusion kind (kLoop, kInput, kOutput, kCustom)",
              &StringToFusionKind, /*upper=*/false, /*lower=*/false));
      return absl::OkStatus();
    }
    case AttrId::kLeftSide:
      return boolean(&a.triangular_solve_options.left_side);
    case AttrId::kLower:
      return boolean(&a.triangular_solve_options.lower);
    case AttrId::kUnitDiagonal:
      return boolean(&a.triangular_solve_options.unit_diagonal);
    case AttrId::kTransposeA: {
      PLEXA_ASSIGN_OR_RETURN(
          a.triangular_solve_options.transpose_a,
          ParseEnumValue<TriangularSolveTranspose>(
              this, "NO_TRANSPOSE, TRANSPOSE or ADJOINT",
              &StringToTriangularSolveTranspose, /*upper=*/true,
              /*lower=*/false));
      return absl::OkStatus();
    }
    case AttrId::kCholeskyLower:
      return boolean(&a.cholesky_lower);
    case AttrId::kToApply:
      return comp(&slots->to_apply);
    case AttrId::kCondition:
      return comp(&slots->condition);
    case AttrId::kBody:
      return comp(&slots->body);
    case AttrId::kSelect:
      return comp(&slots->select);
    case AttrId::kScatter:
      return comp(&slots->scatter);
    case AttrId::kTrueComputation:
      return comp(&slots->true_computation);
    case AttrId::kFalseComputation:
      return comp(&slots->false_computation);
    case AttrId::kCalls:
      return comp(&slots->calls);
    case AttrId::kBranchComputations: {
      PLEXA_ASSIGN_OR_RETURN(slots->branch_computations,
                             ParseNameList(this, "branch_computations"));
      return absl::OkStatus();
    }
    case AttrId::kCalledComputations: {
      PLEXA_ASSIGN_OR_RETURN(slots->called_computations,
                             ParseNameList(this, "called_computations"));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

absl::Status Parser::FinishAttributes(
    InstrRecord* rec, const CalledSlots& slots,
    const absl::flat_hash_set<std::string>& seen) {
  const absl::string_view op = HloOpcodeString(rec->opcode);
  for (const AttrSpec& spec : SpecsFor(rec->opcode)) {
    if (spec.required && !seen.contains(spec.name)) {
      return ErrorAt(rec->opcode_loc,
                     absl::StrCat("attribute ", Quoted(spec.name), " for ", op),
                     "none");
    }
  }
  auto push = [&](const std::optional<NameRef>& r) {
    if (r) rec->called.push_back(*r);
  };
  switch (rec->opcode) {
    case HloOpcode::kWhile:
      push(slots.condition);
      push(slots.body);
      break;
    case HloOpcode::kSelectAndScatter:
      push(slots.select);
      push(slots.scatter);
      break;
    case HloOpcode::kConditional: {
      const bool pred_form = slots.true_computation || slots.false_computation;
      if (pred_form && slots.branch_computations) {
        return ErrorAt(rec->opcode_loc,
                       "either branch_computations or true_computation/"
                       "false_computation for conditional",
                       "both");
      }
      if (pred_form) {
        if (!slots.true_computation || !slots.false_computation) {
          return ErrorAt(rec->opcode_loc,
                         "both true_computation and false_computation for "
                         "conditional",
                         "only one");
        }
        push(slots.true_computation);
        push(slots.false_computation);
      } else if (slots.branch_computations &&
                 !slots.branch_computations->empty()) {
        rec->called = *slots.branch_computations;
      } else {
        return ErrorAt(rec->opcode_loc,
                       "attribute 'branch_computations' (or true_computation "
                       "and false_computation) for conditional",
                       "none");
      }
      break;
    }
    case HloOpcode::kCustomCall:
      if (slots.to_apply && slots.called_computations) {
        return ErrorAt(rec->opcode_loc,
                       "either to_apply or called_computations for "
                       "custom-call",
                       "both");
      }
      push(slots.to_apply);
      if (slots.called_computations) rec->called = *slots.called_computations;
      break;
    case HloOpcode::kFusion:
      push(slots.calls);
      break;
    default:
      push(slots.to_apply);
      break;
  }
  return absl::OkStatus();
}

}  // namespace plexa::text_internal
