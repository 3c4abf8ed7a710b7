#include "core/ir/attribute_table.h"

#include <iterator>
#include <type_traits>

namespace plexa {
namespace {

constexpr AttrPrint kAlways = AttrPrint::kAlways;
constexpr AttrPrint kUnlessDefault = AttrPrint::kUnlessDefault;
constexpr bool kRequired = true;
constexpr bool kOptional = false;

// Each opcode's attributes in XLA's print order; the parser accepts them in
// any order.
constexpr AttrSpec kDimensionsOnly[] = {
    {"dimensions", AttrId::kDimensions, kRequired, kAlways}};
constexpr AttrSpec kMap[] = {
    {"dimensions", AttrId::kDimensions, kOptional, kAlways},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
constexpr AttrSpec kReduce[] = {
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
constexpr AttrSpec kSort[] = {
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"is_stable", AttrId::kIsStable, kOptional, kUnlessDefault},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
constexpr AttrSpec kIota[] = {
    {"iota_dimension", AttrId::kIotaDimension, kRequired, kAlways}};
constexpr AttrSpec kGetTupleElement[] = {
    {"index", AttrId::kIndex, kRequired, kAlways}};
constexpr AttrSpec kConvolution[] = {
    {"window", AttrId::kWindow, kOptional, kUnlessDefault},
    {"dim_labels", AttrId::kDimLabels, kOptional, kAlways},
    {"feature_group_count", AttrId::kFeatureGroupCount, kOptional,
     kUnlessDefault},
    {"batch_group_count", AttrId::kBatchGroupCount, kOptional, kUnlessDefault}};
constexpr AttrSpec kReduceWindow[] = {
    {"window", AttrId::kWindow, kOptional, kUnlessDefault},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
constexpr AttrSpec kSelectAndScatter[] = {
    {"window", AttrId::kWindow, kOptional, kUnlessDefault},
    {"select", AttrId::kSelect, kRequired, kAlways},
    {"scatter", AttrId::kScatter, kRequired, kAlways}};
constexpr AttrSpec kDot[] = {
    {"lhs_batch_dims", AttrId::kLhsBatchDims, kOptional, kUnlessDefault},
    {"lhs_contracting_dims", AttrId::kLhsContractingDims, kOptional, kAlways},
    {"rhs_batch_dims", AttrId::kRhsBatchDims, kOptional, kUnlessDefault},
    {"rhs_contracting_dims", AttrId::kRhsContractingDims, kOptional, kAlways},
    // XLA prints sparsity= after the dimension numbers, only for a sparse
    // dot (core/ir/sparse_dot.h).
    {"sparsity", AttrId::kSparsity, kOptional, kUnlessDefault}};
// XLA prints a ragged-dot's dot dimension numbers as dot's, then
// lhs_ragged_dims and rhs_group_dims, each only when it is not empty (a
// ragged contracting or batch dimension has no rhs group dimension).
// XLA's parser takes both as optional; shape inference requires one lhs
// ragged dimension.
constexpr AttrSpec kRaggedDot[] = {
    {"lhs_batch_dims", AttrId::kLhsBatchDims, kOptional, kUnlessDefault},
    {"lhs_contracting_dims", AttrId::kLhsContractingDims, kOptional, kAlways},
    {"rhs_batch_dims", AttrId::kRhsBatchDims, kOptional, kUnlessDefault},
    {"rhs_contracting_dims", AttrId::kRhsContractingDims, kOptional, kAlways},
    {"lhs_ragged_dims", AttrId::kLhsRaggedDims, kOptional, kUnlessDefault},
    {"rhs_group_dims", AttrId::kRhsGroupDims, kOptional, kUnlessDefault}};
constexpr AttrSpec kPad[] = {{"padding", AttrId::kPadding, kRequired, kAlways}};
constexpr AttrSpec kSlice[] = {{"slice", AttrId::kSlice, kRequired, kAlways}};
constexpr AttrSpec kDynamicSlice[] = {
    {"dynamic_slice_sizes", AttrId::kDynamicSliceSizes, kRequired, kAlways}};
constexpr AttrSpec kGather[] = {
    {"offset_dims", AttrId::kOffsetDims, kRequired, kAlways},
    {"collapsed_slice_dims", AttrId::kCollapsedSliceDims, kRequired, kAlways},
    {"start_index_map", AttrId::kStartIndexMap, kRequired, kAlways},
    {"operand_batching_dims", AttrId::kOperandBatchingDims, kOptional,
     kUnlessDefault},
    {"start_indices_batching_dims", AttrId::kStartIndicesBatchingDims,
     kOptional, kUnlessDefault},
    {"index_vector_dim", AttrId::kGatherIndexVectorDim, kRequired, kAlways},
    {"slice_sizes", AttrId::kSliceSizes, kRequired, kAlways},
    {"indices_are_sorted", AttrId::kIndicesAreSorted, kOptional,
     kUnlessDefault}};
constexpr AttrSpec kScatter[] = {
    {"update_window_dims", AttrId::kUpdateWindowDims, kRequired, kAlways},
    {"inserted_window_dims", AttrId::kInsertedWindowDims, kRequired, kAlways},
    {"scatter_dims_to_operand_dims", AttrId::kScatterDimsToOperandDims,
     kRequired, kAlways},
    {"input_batching_dims", AttrId::kInputBatchingDims, kOptional,
     kUnlessDefault},
    {"scatter_indices_batching_dims", AttrId::kScatterIndicesBatchingDims,
     kOptional, kUnlessDefault},
    {"index_vector_dim", AttrId::kScatterIndexVectorDim, kRequired, kAlways},
    {"indices_are_sorted", AttrId::kIndicesAreSorted, kOptional,
     kUnlessDefault},
    {"unique_indices", AttrId::kUniqueIndices, kOptional, kUnlessDefault},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
constexpr AttrSpec kCompare[] = {
    {"direction", AttrId::kDirection, kRequired, kAlways},
    // Not written when it is the element type's default (kDefault).
    {"type", AttrId::kComparisonType, kOptional, kUnlessDefault}};
constexpr AttrSpec kBatchNorm[] = {
    {"epsilon", AttrId::kEpsilon, kRequired, kAlways},
    {"feature_index", AttrId::kFeatureIndex, kRequired, kAlways}};
constexpr AttrSpec kReducePrecision[] = {
    {"exponent_bits", AttrId::kExponentBits, kRequired, kAlways},
    {"mantissa_bits", AttrId::kMantissaBits, kRequired, kAlways}};
constexpr AttrSpec kRng[] = {
    {"distribution", AttrId::kDistribution, kRequired, kAlways}};
// XLA's parser requires algorithm= on rng-bit-generator, and XLA prints it
// always, rng_default included.
constexpr AttrSpec kRngBitGenerator[] = {
    {"algorithm", AttrId::kRngAlgorithm, kRequired, kAlways}};
// The convolution attributes come first: XLA prints a convolution-like
// custom-call's window and dim_labels before its target.
constexpr AttrSpec kCustomCall[] = {
    {"window", AttrId::kWindow, kOptional, kUnlessDefault},
    {"dim_labels", AttrId::kDimLabels, kOptional, kAlways},
    {"feature_group_count", AttrId::kFeatureGroupCount, kOptional,
     kUnlessDefault},
    {"batch_group_count", AttrId::kBatchGroupCount, kOptional, kUnlessDefault},
    {"custom_call_target", AttrId::kCustomCallTarget, kRequired, kAlways},
    {"operand_layout_constraints", AttrId::kOperandLayoutConstraints, kOptional,
     kAlways},
    {"custom_call_has_side_effect", AttrId::kCustomCallHasSideEffect, kOptional,
     kUnlessDefault},
    {"api_version", AttrId::kApiVersion, kOptional, kUnlessDefault},
    {"to_apply", AttrId::kToApply, kOptional, kAlways},
    {"called_computations", AttrId::kCalledComputations, kOptional, kAlways}};
constexpr AttrSpec kAllReduce[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    // Printed even when empty: XLA writes replica_groups={}.
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways},
    {"constrain_layout", AttrId::kConstrainLayout, kOptional, kUnlessDefault},
    {"use_global_device_ids", AttrId::kUseGlobalDeviceIds, kOptional,
     kUnlessDefault},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
// XLA prints the collective attributes (channel_id, replica_groups,
// constrain_layout) first, then all-gather's dimensions before
// use_global_device_ids and reduce-scatter's after it.
constexpr AttrSpec kAllGather[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways},
    {"constrain_layout", AttrId::kConstrainLayout, kOptional, kUnlessDefault},
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"use_global_device_ids", AttrId::kUseGlobalDeviceIds, kOptional,
     kUnlessDefault}};
constexpr AttrSpec kReduceScatter[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways},
    {"constrain_layout", AttrId::kConstrainLayout, kOptional, kUnlessDefault},
    {"use_global_device_ids", AttrId::kUseGlobalDeviceIds, kOptional,
     kUnlessDefault},
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
// all-to-all: dimensions={d} (the split dimension) only in the array form.
constexpr AttrSpec kAllToAll[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways},
    {"constrain_layout", AttrId::kConstrainLayout, kOptional, kUnlessDefault},
    {"dimensions", AttrId::kDimensions, kOptional, kUnlessDefault}};
// XLA's parser requires replica_groups on collective-broadcast.
constexpr AttrSpec kCollectiveBroadcast[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kRequired, kAlways}};
// XLA: channel_id, then source_target_pairs={{0,1},{1,0}}.
constexpr AttrSpec kCollectivePermute[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"source_target_pairs", AttrId::kSourceTargetPairs, kRequired, kAlways}};
// XLA's channel instructions: channel_id (optional in XLA's parser today:
// its SendRecvWoChannelID test; such an end pairs with nothing), then
// is_host_transfer=true (printed only when true; XLA's parser reads it as
// false when left out).
// The replica pairs of a transfer across replicas are a frontend attribute
// (_xla_send_recv_source_target_pairs), kept verbatim (core/ir/channels.h).
constexpr AttrSpec kSendRecv[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"is_host_transfer", AttrId::kIsHostTransfer, kOptional, kUnlessDefault}};
constexpr AttrSpec kInfeed[] = {
    {"infeed_config", AttrId::kInfeedConfig, kOptional, kUnlessDefault}};
constexpr AttrSpec kOutfeed[] = {
    {"outfeed_shape", AttrId::kOutfeedShape, kOptional, kAlways},
    {"outfeed_config", AttrId::kOutfeedConfig, kOptional, kUnlessDefault}};
constexpr AttrSpec kFusion[] = {
    {"kind", AttrId::kFusionKind, kRequired, kAlways},
    {"calls", AttrId::kCalls, kRequired, kAlways}};
constexpr AttrSpec kTriangularSolve[] = {
    {"left_side", AttrId::kLeftSide, kOptional, kUnlessDefault},
    {"lower", AttrId::kLower, kOptional, kUnlessDefault},
    {"unit_diagonal", AttrId::kUnitDiagonal, kOptional, kUnlessDefault},
    {"transpose_a", AttrId::kTransposeA, kOptional, kAlways}};
constexpr AttrSpec kCholesky[] = {
    {"lower", AttrId::kCholeskyLower, kOptional, kUnlessDefault}};
// XLA: fft_type=RFFT, fft_length={4,8}; both required.
constexpr AttrSpec kFft[] = {
    {"fft_type", AttrId::kFftType, kRequired, kAlways},
    {"fft_length", AttrId::kFftLength, kRequired, kAlways}};
// XLA: k=2, largest=true; largest is printed always and read as true when
// left out.
constexpr AttrSpec kTopK[] = {
    {"k", AttrId::kK, kRequired, kAlways},
    {"largest", AttrId::kLargest, kOptional, kAlways}};
constexpr AttrSpec kWhile[] = {
    {"condition", AttrId::kCondition, kRequired, kAlways},
    {"body", AttrId::kBody, kRequired, kAlways}};
// Either both true_computation and false_computation or
// branch_computations: the parser checks the combination.
constexpr AttrSpec kConditional[] = {
    {"true_computation", AttrId::kTrueComputation, kOptional, kAlways},
    {"false_computation", AttrId::kFalseComputation, kOptional, kAlways},
    {"branch_computations", AttrId::kBranchComputations, kOptional, kAlways}};
constexpr AttrSpec kCall[] = {
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
// rng-get-and-update-state(), delta=N: XLA's parser requires delta.
constexpr AttrSpec kRngGetAndUpdateState[] = {
    {"delta", AttrId::kDelta, kRequired, kAlways}};
// XLA prints async-start's wrapped computation (calls=) and, when it is
// not "main", async_execution_thread. async-update and async-done find
// their computation through their operand; XLA's parser still accepts
// calls= on them (the verifier checks it names the start's computation).
constexpr AttrSpec kAsyncStart[] = {
    {"async_execution_thread", AttrId::kAsyncExecutionThread, kOptional,
     kUnlessDefault},
    {"calls", AttrId::kCalls, kRequired, kAlways}};
constexpr AttrSpec kAsyncUpdateDone[] = {
    {"async_execution_thread", AttrId::kAsyncExecutionThread, kOptional,
     kUnlessDefault},
    {"calls", AttrId::kCalls, kOptional, kAlways}};
// XLA's HloScanInstruction: dimensions={d}, num_carries=C (some of XLA's
// tests leave it out), is_reverse (printed when true), to_apply.
// is_associative=true|false is a hint that changes no value: it is kept
// verbatim (opaque) and printed back.
constexpr AttrSpec kScan[] = {
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"num_carries", AttrId::kNumCarries, kOptional, kAlways},
    {"is_reverse", AttrId::kIsReverse, kOptional, kUnlessDefault},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
// XLA's HloShuffleInstruction: dimensions, mode, then the mode's operand:
// shifts={...} (rotate), indices=<literal> (permute) or
// multi_shifts=<literal> (multi_rotate).
constexpr AttrSpec kShuffle[] = {
    {"dimensions", AttrId::kDimensions, kRequired, kAlways},
    {"mode", AttrId::kShuffleMode, kRequired, kAlways},
    {"shifts", AttrId::kShifts, kOptional, kUnlessDefault},
    {"indices", AttrId::kShuffleIndices, kOptional, kAlways},
    {"multi_shifts", AttrId::kMultiShifts, kOptional, kAlways}};
// collective-reduce: all-reduce's attributes and has_dynamic_root (XLA
// prints it always).
constexpr AttrSpec kCollectiveReduce[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways},
    {"use_global_device_ids", AttrId::kUseGlobalDeviceIds, kOptional,
     kUnlessDefault},
    {"has_dynamic_root", AttrId::kHasDynamicRoot, kOptional, kAlways},
    {"to_apply", AttrId::kToApply, kRequired, kAlways}};
// ragged-all-to-all: channel_id and replica_groups.
constexpr AttrSpec kRaggedAllToAll[] = {
    {"channel_id", AttrId::kChannelId, kOptional, kAlways},
    {"replica_groups", AttrId::kReplicaGroups, kOptional, kAlways}};
constexpr AttrSpec kCopyStart[] = {{"cross_program_prefetch_index",
                                    AttrId::kCrossProgramPrefetchIndex,
                                    kOptional, kAlways}};

constexpr AttrField kFields[] = {
    AttrField::kDimensions,
    AttrField::kIotaDimension,
    AttrField::kParameterNumber,
    AttrField::kTupleIndex,
    AttrField::kLiteral,
    AttrField::kWindow,
    AttrField::kConvolutionDimensionNumbers,
    AttrField::kFeatureGroupCount,
    AttrField::kBatchGroupCount,
    AttrField::kDotDimensionNumbers,
    AttrField::kLhsRaggedDimensions,
    AttrField::kRhsGroupDimensions,
    AttrField::kDotSparsity,
    AttrField::kPaddingConfig,
    AttrField::kSlice,
    AttrField::kDynamicSliceSizes,
    AttrField::kGatherDimensionNumbers,
    AttrField::kGatherSliceSizes,
    AttrField::kScatterDimensionNumbers,
    AttrField::kIndicesAreSorted,
    AttrField::kUniqueIndices,
    AttrField::kComparisonDirection,
    AttrField::kComparisonType,
    AttrField::kEpsilon,
    AttrField::kFeatureIndex,
    AttrField::kExponentBits,
    AttrField::kMantissaBits,
    AttrField::kDistribution,
    AttrField::kRngAlgorithm,
    AttrField::kIsStable,
    AttrField::kCustomCallTarget,
    AttrField::kBackendConfig,
    AttrField::kApiVersion,
    AttrField::kOperandShapesWithLayout,
    AttrField::kCustomCallHasSideEffect,
    AttrField::kReplicaGroups,
    AttrField::kChannelId,
    AttrField::kUseGlobalDeviceIds,
    AttrField::kConstrainLayout,
    AttrField::kSourceTargetPairs,
    AttrField::kIsHostTransfer,
    AttrField::kInfeedConfig,
    AttrField::kOutfeedConfig,
    AttrField::kOutfeedShape,
    AttrField::kFusionKind,
    AttrField::kTriangularSolveOptions,
    AttrField::kCholeskyLower,
    AttrField::kFftType,
    AttrField::kFftLength,
    AttrField::kK,
    AttrField::kLargest,
    AttrField::kRngDelta,
    AttrField::kAsyncExecutionThread,
    AttrField::kCrossProgramPrefetchIndex,
    AttrField::kNumCarries,
    AttrField::kIsReverse,
    AttrField::kShuffleMode,
    AttrField::kShuffleShifts,
    AttrField::kShuffleIndices,
    AttrField::kShuffleMultiShifts,
    AttrField::kHasDynamicRoot,
    AttrField::kOpaque,
};
// The enumerators are dense and kOpaque is the last: every one is listed.
static_assert(std::size(kFields) == static_cast<size_t>(AttrField::kOpaque) + 1,
              "AllAttrFields() must list every AttrField");

}  // namespace

absl::Span<const AttrSpec> AttributesOf(HloOpcode op) {
  switch (op) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      return kDimensionsOnly;
    case HloOpcode::kMap:
      return kMap;
    case HloOpcode::kReduce:
      return kReduce;
    case HloOpcode::kSort:
      return kSort;
    case HloOpcode::kIota:
      return kIota;
    case HloOpcode::kGetTupleElement:
      return kGetTupleElement;
    case HloOpcode::kConvolution:
      return kConvolution;
    case HloOpcode::kReduceWindow:
      return kReduceWindow;
    case HloOpcode::kSelectAndScatter:
      return kSelectAndScatter;
    case HloOpcode::kDot:
      return kDot;
    case HloOpcode::kRaggedDot:
      return kRaggedDot;
    case HloOpcode::kScaledDot:
      return kDot;
    case HloOpcode::kScan:
      return kScan;
    case HloOpcode::kShuffle:
      return kShuffle;
    case HloOpcode::kCollectiveReduce:
      return kCollectiveReduce;
    case HloOpcode::kRaggedAllToAll:
      return kRaggedAllToAll;
    case HloOpcode::kPad:
      return kPad;
    case HloOpcode::kSlice:
      return kSlice;
    case HloOpcode::kDynamicSlice:
      return kDynamicSlice;
    case HloOpcode::kGather:
      return kGather;
    case HloOpcode::kScatter:
      return kScatter;
    case HloOpcode::kCompare:
      return kCompare;
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
      return kBatchNorm;
    case HloOpcode::kReducePrecision:
      return kReducePrecision;
    case HloOpcode::kRng:
      return kRng;
    case HloOpcode::kRngBitGenerator:
      return kRngBitGenerator;
    case HloOpcode::kCustomCall:
      return kCustomCall;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
      return kAllReduce;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      return kAllGather;
    case HloOpcode::kReduceScatter:
      return kReduceScatter;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
      return kCollectivePermute;
    case HloOpcode::kAllToAll:
      return kAllToAll;
    case HloOpcode::kCollectiveBroadcast:
      return kCollectiveBroadcast;
    case HloOpcode::kSend:
    case HloOpcode::kRecv:
    case HloOpcode::kSendDone:
    case HloOpcode::kRecvDone:
      return kSendRecv;
    case HloOpcode::kInfeed:
      return kInfeed;
    case HloOpcode::kOutfeed:
      return kOutfeed;
    case HloOpcode::kFusion:
      return kFusion;
    case HloOpcode::kTriangularSolve:
      return kTriangularSolve;
    case HloOpcode::kCholesky:
      return kCholesky;
    case HloOpcode::kFft:
      return kFft;
    case HloOpcode::kTopK:
      return kTopK;
    case HloOpcode::kWhile:
      return kWhile;
    case HloOpcode::kConditional:
      return kConditional;
    case HloOpcode::kCall:
      return kCall;
    case HloOpcode::kRngGetAndUpdateState:
      return kRngGetAndUpdateState;
    case HloOpcode::kAsyncStart:
      return kAsyncStart;
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      return kAsyncUpdateDone;
    case HloOpcode::kCopyStart:
      return kCopyStart;
    default:
      return {};
  }
}

const AttrSpec* FindAttribute(HloOpcode op, absl::string_view name) {
  for (const AttrSpec& spec : AttributesOf(op)) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool IsCalledComputation(AttrId id) { return !FieldOf(id).has_value(); }

bool IsCalledComputationList(AttrId id) {
  return id == AttrId::kBranchComputations || id == AttrId::kCalledComputations;
}

absl::Span<const AttrField> AllAttrFields() { return kFields; }

std::optional<AttrField> FieldOf(AttrId id) {
  switch (id) {
    case AttrId::kDimensions:
      return AttrField::kDimensions;
    case AttrId::kIotaDimension:
      return AttrField::kIotaDimension;
    case AttrId::kIndex:
      return AttrField::kTupleIndex;
    case AttrId::kWindow:
      return AttrField::kWindow;
    case AttrId::kDimLabels:
      return AttrField::kConvolutionDimensionNumbers;
    case AttrId::kFeatureGroupCount:
      return AttrField::kFeatureGroupCount;
    case AttrId::kBatchGroupCount:
      return AttrField::kBatchGroupCount;
    case AttrId::kLhsBatchDims:
    case AttrId::kRhsBatchDims:
    case AttrId::kLhsContractingDims:
    case AttrId::kRhsContractingDims:
      return AttrField::kDotDimensionNumbers;
    case AttrId::kLhsRaggedDims:
      return AttrField::kLhsRaggedDimensions;
    case AttrId::kRhsGroupDims:
      return AttrField::kRhsGroupDimensions;
    case AttrId::kSparsity:
      return AttrField::kDotSparsity;
    case AttrId::kPadding:
      return AttrField::kPaddingConfig;
    case AttrId::kSlice:
      return AttrField::kSlice;
    case AttrId::kDynamicSliceSizes:
      return AttrField::kDynamicSliceSizes;
    case AttrId::kOffsetDims:
    case AttrId::kCollapsedSliceDims:
    case AttrId::kStartIndexMap:
    case AttrId::kGatherIndexVectorDim:
    case AttrId::kOperandBatchingDims:
    case AttrId::kStartIndicesBatchingDims:
      return AttrField::kGatherDimensionNumbers;
    case AttrId::kSliceSizes:
      return AttrField::kGatherSliceSizes;
    case AttrId::kUpdateWindowDims:
    case AttrId::kInsertedWindowDims:
    case AttrId::kScatterDimsToOperandDims:
    case AttrId::kScatterIndexVectorDim:
    case AttrId::kInputBatchingDims:
    case AttrId::kScatterIndicesBatchingDims:
      return AttrField::kScatterDimensionNumbers;
    case AttrId::kIndicesAreSorted:
      return AttrField::kIndicesAreSorted;
    case AttrId::kUniqueIndices:
      return AttrField::kUniqueIndices;
    case AttrId::kDirection:
      return AttrField::kComparisonDirection;
    case AttrId::kComparisonType:
      return AttrField::kComparisonType;
    case AttrId::kEpsilon:
      return AttrField::kEpsilon;
    case AttrId::kFeatureIndex:
      return AttrField::kFeatureIndex;
    case AttrId::kExponentBits:
      return AttrField::kExponentBits;
    case AttrId::kMantissaBits:
      return AttrField::kMantissaBits;
    case AttrId::kDistribution:
      return AttrField::kDistribution;
    case AttrId::kRngAlgorithm:
      return AttrField::kRngAlgorithm;
    case AttrId::kIsStable:
      return AttrField::kIsStable;
    case AttrId::kCustomCallTarget:
      return AttrField::kCustomCallTarget;
    case AttrId::kApiVersion:
      return AttrField::kApiVersion;
    case AttrId::kOperandLayoutConstraints:
      return AttrField::kOperandShapesWithLayout;
    case AttrId::kCustomCallHasSideEffect:
      return AttrField::kCustomCallHasSideEffect;
    case AttrId::kReplicaGroups:
      return AttrField::kReplicaGroups;
    case AttrId::kChannelId:
      return AttrField::kChannelId;
    case AttrId::kUseGlobalDeviceIds:
      return AttrField::kUseGlobalDeviceIds;
    case AttrId::kConstrainLayout:
      return AttrField::kConstrainLayout;
    case AttrId::kSourceTargetPairs:
      return AttrField::kSourceTargetPairs;
    case AttrId::kIsHostTransfer:
      return AttrField::kIsHostTransfer;
    case AttrId::kInfeedConfig:
      return AttrField::kInfeedConfig;
    case AttrId::kOutfeedConfig:
      return AttrField::kOutfeedConfig;
    case AttrId::kOutfeedShape:
      return AttrField::kOutfeedShape;
    case AttrId::kFusionKind:
      return AttrField::kFusionKind;
    case AttrId::kLeftSide:
    case AttrId::kLower:
    case AttrId::kUnitDiagonal:
    case AttrId::kTransposeA:
      return AttrField::kTriangularSolveOptions;
    case AttrId::kCholeskyLower:
      return AttrField::kCholeskyLower;
    case AttrId::kFftType:
      return AttrField::kFftType;
    case AttrId::kFftLength:
      return AttrField::kFftLength;
    case AttrId::kK:
      return AttrField::kK;
    case AttrId::kLargest:
      return AttrField::kLargest;
    case AttrId::kDelta:
      return AttrField::kRngDelta;
    case AttrId::kAsyncExecutionThread:
      return AttrField::kAsyncExecutionThread;
    case AttrId::kCrossProgramPrefetchIndex:
      return AttrField::kCrossProgramPrefetchIndex;
    case AttrId::kNumCarries:
      return AttrField::kNumCarries;
    case AttrId::kIsReverse:
      return AttrField::kIsReverse;
    case AttrId::kShuffleMode:
      return AttrField::kShuffleMode;
    case AttrId::kShifts:
      return AttrField::kShuffleShifts;
    case AttrId::kShuffleIndices:
      return AttrField::kShuffleIndices;
    case AttrId::kMultiShifts:
      return AttrField::kShuffleMultiShifts;
    case AttrId::kHasDynamicRoot:
      return AttrField::kHasDynamicRoot;
    case AttrId::kToApply:
    case AttrId::kCondition:
    case AttrId::kBody:
    case AttrId::kSelect:
    case AttrId::kScatter:
    case AttrId::kTrueComputation:
    case AttrId::kFalseComputation:
    case AttrId::kCalls:
    case AttrId::kBranchComputations:
    case AttrId::kCalledComputations:
      break;
  }
  return std::nullopt;
}

bool HoldsDefault(const InstructionAttrs& a, AttrId id) {
  static const InstructionAttrs* const kDefaults = new InstructionAttrs();
  return VisitAttr(a, id, [&](const auto* value) -> bool {
    using T = std::remove_cvref_t<decltype(*value)>;
    if constexpr (std::is_same_v<T, CalledComputationAttr>) {
      return true;
    } else {
      if (value == nullptr) return true;
      return VisitAttr(*kDefaults, id, [&](const auto* d) -> bool {
        using D = std::remove_cvref_t<decltype(*d)>;
        if constexpr (std::is_same_v<D, T>) {
          return d != nullptr ? *value == *d : *value == T{};
        } else {
          return false;  // unreachable: one id names one field
        }
      });
    }
  });
}

}  // namespace plexa
