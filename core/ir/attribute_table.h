// The one table of instruction attributes: for each opcode, the `name=value`
// attributes it interprets, in the order XLA prints them, and for each
// attribute the InstructionAttrs field it lives in.
//
// The text parser (which names an opcode accepts, which are required), the
// printer (which to write, in what order, which to leave out when they hold
// their default) and the plexa-module writer and reader (which fields exist)
// all read it. Adding an existing attribute to an opcode is one line in
// that opcode's list (attribute_table.cc); a new attribute is an AttrId, a
// VisitAttr case and a FieldOf case (and an AttrField with its proto codec
// when it is a new field); only a new kind of value needs a codec per
// format. The compiler asks for each: the text codecs are closed sets of
// types, and the switches here and in the proto have no default.
#ifndef PLEXA_CORE_IR_ATTRIBUTE_TABLE_H_
#define PLEXA_CORE_IR_ATTRIBUTE_TABLE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/ir/opcode.h"

namespace plexa {

// Every `name=value` attribute some opcode interprets. A name that two
// opcodes keep in different fields has one id per field (cholesky's `lower`
// and triangular-solve's; gather's and scatter's index_vector_dim).
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
  kLhsRaggedDims,
  kRhsGroupDims,
  kSparsity,
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
  kSourceTargetPairs,
  kIsHostTransfer,
  kInfeedConfig,
  kOutfeedConfig,
  kOutfeedShape,
  kFusionKind,
  kLeftSide,
  kLower,
  kUnitDiagonal,
  kTransposeA,
  kCholeskyLower,
  kFftType,
  kFftLength,
  kK,
  kLargest,
  kDelta,
  kAsyncExecutionThread,
  kCrossProgramPrefetchIndex,
  kNumCarries,
  kIsReverse,
  kShuffleMode,
  kShifts,
  kShuffleIndices,  // mode=permute's indices=
  kMultiShifts,     // mode=multi_rotate's multi_shifts=
  kHasDynamicRoot,
  // Called computations: they name computations, held in
  // Instruction::called_computations() rather than InstructionAttrs, so the
  // value accessors below do not reach them. The printer writes them after
  // every value attribute.
  kToApply,
  kCondition,
  kBody,
  kSelect,
  kScatter,
  kTrueComputation,
  kFalseComputation,
  kCalls,
  kBranchComputations,  // a list: {%a, %b}
  kCalledComputations,  // a list: {%a, %b}
};

// When the printer writes a value attribute.
enum class AttrPrint : uint8_t {
  // Whenever it is present: the field exists, or the optional structure
  // holding it (dot_dimension_numbers for lhs_contracting_dims, ...) does.
  kAlways,
  // Left out when HoldsDefault() (XLA leaves out is_stable=false, ...).
  kUnlessDefault,
};

struct AttrSpec {
  absl::string_view name;  // the text spelling
  AttrId id;
  bool required;  // the parser refuses the instruction without it
  AttrPrint print;
};

// The attributes `op` interprets, in XLA's print order (value attributes,
// then called computations). Empty for opcodes without any.
// backend_config (every opcode), a parameter's number and a constant's
// literal (written inside the parentheses) are not `name=value` attributes
// of one opcode and are not listed.
absl::Span<const AttrSpec> AttributesOf(HloOpcode op);

// The spec of `name` for `op`, or null if `op` does not interpret it (the
// parser then keeps it verbatim).
const AttrSpec* FindAttribute(HloOpcode op, absl::string_view name);

bool IsCalledComputation(AttrId id);
// branch_computations and called_computations: a braced list of names.
bool IsCalledComputationList(AttrId id);

// ------------------------------------------------------------ fields

// The fields of InstructionAttrs, as the plexa-module format stores them:
// field for field, whatever the opcode (module.proto's
// InstructionAttrsProto), so that a module a pass built with values the
// text cannot carry still reaches a plugin intact. AllAttrFields() lists
// every one; the writer and reader walk it.
enum class AttrField {
  kDimensions,
  kIotaDimension,
  kParameterNumber,
  kTupleIndex,
  kLiteral,
  kWindow,
  kConvolutionDimensionNumbers,
  kFeatureGroupCount,
  kBatchGroupCount,
  kDotDimensionNumbers,
  kLhsRaggedDimensions,
  kRhsGroupDimensions,
  kDotSparsity,
  kPaddingConfig,
  kSlice,
  kDynamicSliceSizes,
  kGatherDimensionNumbers,
  kGatherSliceSizes,
  kScatterDimensionNumbers,
  kIndicesAreSorted,
  kUniqueIndices,
  kComparisonDirection,
  kComparisonType,
  kEpsilon,
  kFeatureIndex,
  kExponentBits,
  kMantissaBits,
  kDistribution,
  kRngAlgorithm,
  kIsStable,
  kCustomCallTarget,
  kBackendConfig,
  kApiVersion,
  kOperandShapesWithLayout,  // has_layout_constraints too
  kCustomCallHasSideEffect,
  kReplicaGroups,
  kChannelId,
  kUseGlobalDeviceIds,
  kConstrainLayout,
  kSourceTargetPairs,
  kIsHostTransfer,
  kInfeedConfig,
  kOutfeedConfig,
  kOutfeedShape,
  kFusionKind,
  kTriangularSolveOptions,
  kCholeskyLower,
  kFftType,
  kFftLength,
  kK,
  kLargest,
  kRngDelta,
  kAsyncExecutionThread,
  kCrossProgramPrefetchIndex,
  kNumCarries,
  kIsReverse,
  kShuffleMode,
  kShuffleShifts,
  kShuffleIndices,
  kShuffleMultiShifts,
  kHasDynamicRoot,
  kOpaque,
};

absl::Span<const AttrField> AllAttrFields();

// The field a value attribute reads and writes; nullopt for called
// computations.
std::optional<AttrField> FieldOf(AttrId id);

// ------------------------------------------------------------ values

// What VisitAttr hands over for a called computation: there is no value.
struct CalledComputationAttr {};

namespace attr_internal {

// Writing reaches into an optional structure by creating it; reading an
// absent one yields null.
template <typename T>
T* Group(std::optional<T>& g) {
  if (!g) g.emplace();
  return &*g;
}
template <typename T>
const T* Group(const std::optional<T>& g) {
  return g ? &*g : nullptr;
}
// G is the structure, const when reading.
template <typename G, typename C, typename M>
auto Member(G* g, M C::*m) -> decltype(&(g->*m)) {
  return g == nullptr ? nullptr : &(g->*m);
}
inline std::vector<Shape>* LayoutConstraints(InstructionAttrs& a) {
  a.has_layout_constraints = true;
  return &a.operand_shapes_with_layout;
}
inline const std::vector<Shape>* LayoutConstraints(const InstructionAttrs& a) {
  return a.has_layout_constraints ? &a.operand_shapes_with_layout : nullptr;
}
// A typed literal attribute: reading an unset one yields null.
inline std::shared_ptr<const Literal>* LiteralAttr(
    std::shared_ptr<const Literal>& l) {
  return &l;
}
inline const std::shared_ptr<const Literal>* LiteralAttr(
    const std::shared_ptr<const Literal>& l) {
  return l != nullptr ? &l : nullptr;
}

}  // namespace attr_internal

// Calls f with a pointer to the value of attribute `id` in `a` and returns
// what f returns (f must return one type for every kind of value).
// `Attrs` is InstructionAttrs (writing: an optional structure holding the
// value is created, so the pointer is never null) or const
// InstructionAttrs (reading: the pointer is null when the value is absent).
// A called computation passes a null `const CalledComputationAttr*`.
template <typename Attrs, typename F>
decltype(auto) VisitAttr(Attrs& a, AttrId id, F&& f) {
  using attr_internal::Group;
  using attr_internal::Member;
  switch (id) {
    case AttrId::kDimensions:
      return f(&a.dimensions);
    case AttrId::kIotaDimension:
      return f(&a.iota_dimension);
    case AttrId::kIndex:
      return f(&a.tuple_index);
    case AttrId::kWindow:
      return f(Group(a.window));
    case AttrId::kDimLabels:
      return f(Group(a.convolution_dimension_numbers));
    case AttrId::kFeatureGroupCount:
      return f(&a.feature_group_count);
    case AttrId::kBatchGroupCount:
      return f(&a.batch_group_count);
    case AttrId::kLhsBatchDims:
      return f(Member(Group(a.dot_dimension_numbers),
                      &DotDimensionNumbers::lhs_batch_dimensions));
    case AttrId::kRhsBatchDims:
      return f(Member(Group(a.dot_dimension_numbers),
                      &DotDimensionNumbers::rhs_batch_dimensions));
    case AttrId::kLhsContractingDims:
      return f(Member(Group(a.dot_dimension_numbers),
                      &DotDimensionNumbers::lhs_contracting_dimensions));
    case AttrId::kRhsContractingDims:
      return f(Member(Group(a.dot_dimension_numbers),
                      &DotDimensionNumbers::rhs_contracting_dimensions));
    case AttrId::kLhsRaggedDims:
      return f(&a.lhs_ragged_dimensions);
    case AttrId::kRhsGroupDims:
      return f(&a.rhs_group_dimensions);
    case AttrId::kSparsity:
      return f(&a.dot_sparsity);
    case AttrId::kPadding:
      return f(Group(a.padding_config));
    case AttrId::kSlice:
      return f(&a.slice);
    case AttrId::kDynamicSliceSizes:
      return f(&a.dynamic_slice_sizes);
    case AttrId::kOffsetDims:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::offset_dims));
    case AttrId::kCollapsedSliceDims:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::collapsed_slice_dims));
    case AttrId::kStartIndexMap:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::start_index_map));
    case AttrId::kGatherIndexVectorDim:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::index_vector_dim));
    case AttrId::kOperandBatchingDims:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::operand_batching_dims));
    case AttrId::kStartIndicesBatchingDims:
      return f(Member(Group(a.gather_dimension_numbers),
                      &GatherDimensionNumbers::start_indices_batching_dims));
    case AttrId::kSliceSizes:
      return f(&a.gather_slice_sizes);
    case AttrId::kUpdateWindowDims:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::update_window_dims));
    case AttrId::kInsertedWindowDims:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::inserted_window_dims));
    case AttrId::kScatterDimsToOperandDims:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::scatter_dims_to_operand_dims));
    case AttrId::kScatterIndexVectorDim:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::index_vector_dim));
    case AttrId::kInputBatchingDims:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::input_batching_dims));
    case AttrId::kScatterIndicesBatchingDims:
      return f(Member(Group(a.scatter_dimension_numbers),
                      &ScatterDimensionNumbers::scatter_indices_batching_dims));
    case AttrId::kIndicesAreSorted:
      return f(&a.indices_are_sorted);
    case AttrId::kUniqueIndices:
      return f(&a.unique_indices);
    case AttrId::kDirection:
      return f(&a.comparison_direction);
    case AttrId::kComparisonType:
      return f(&a.comparison_type);
    case AttrId::kEpsilon:
      return f(&a.epsilon);
    case AttrId::kFeatureIndex:
      return f(&a.feature_index);
    case AttrId::kExponentBits:
      return f(&a.exponent_bits);
    case AttrId::kMantissaBits:
      return f(&a.mantissa_bits);
    case AttrId::kDistribution:
      return f(&a.distribution);
    case AttrId::kRngAlgorithm:
      return f(&a.rng_algorithm);
    case AttrId::kIsStable:
      return f(&a.is_stable);
    case AttrId::kCustomCallTarget:
      return f(&a.custom_call_target);
    case AttrId::kApiVersion:
      return f(&a.api_version);
    case AttrId::kOperandLayoutConstraints:
      return f(attr_internal::LayoutConstraints(a));
    case AttrId::kCustomCallHasSideEffect:
      return f(&a.custom_call_has_side_effect);
    case AttrId::kReplicaGroups:
      return f(&a.replica_groups);
    case AttrId::kChannelId:
      return f(Group(a.channel_id));
    case AttrId::kUseGlobalDeviceIds:
      return f(&a.use_global_device_ids);
    case AttrId::kConstrainLayout:
      return f(&a.constrain_layout);
    case AttrId::kSourceTargetPairs:
      return f(&a.source_target_pairs);
    case AttrId::kIsHostTransfer:
      return f(&a.is_host_transfer);
    case AttrId::kInfeedConfig:
      return f(&a.infeed_config);
    case AttrId::kOutfeedConfig:
      return f(&a.outfeed_config);
    case AttrId::kOutfeedShape:
      return f(Group(a.outfeed_shape));
    case AttrId::kFusionKind:
      return f(&a.fusion_kind);
    case AttrId::kLeftSide:
      return f(&a.triangular_solve_options.left_side);
    case AttrId::kLower:
      return f(&a.triangular_solve_options.lower);
    case AttrId::kUnitDiagonal:
      return f(&a.triangular_solve_options.unit_diagonal);
    case AttrId::kTransposeA:
      return f(&a.triangular_solve_options.transpose_a);
    case AttrId::kCholeskyLower:
      return f(&a.cholesky_lower);
    case AttrId::kFftType:
      return f(&a.fft_type);
    case AttrId::kFftLength:
      return f(&a.fft_length);
    case AttrId::kK:
      return f(&a.k);
    case AttrId::kLargest:
      return f(&a.largest);
    case AttrId::kDelta:
      return f(&a.rng_delta);
    case AttrId::kAsyncExecutionThread:
      return f(&a.async_execution_thread);
    case AttrId::kCrossProgramPrefetchIndex:
      return f(Group(a.cross_program_prefetch_index));
    case AttrId::kNumCarries:
      return f(Group(a.num_carries));
    case AttrId::kIsReverse:
      return f(&a.is_reverse);
    case AttrId::kShuffleMode:
      return f(&a.shuffle_mode);
    case AttrId::kShifts:
      return f(&a.shuffle_shifts);
    case AttrId::kShuffleIndices:
      return f(attr_internal::LiteralAttr(a.shuffle_indices));
    case AttrId::kMultiShifts:
      return f(attr_internal::LiteralAttr(a.shuffle_multi_shifts));
    case AttrId::kHasDynamicRoot:
      return f(&a.has_dynamic_root);
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
  return f(static_cast<const CalledComputationAttr*>(nullptr));
}

// True if attribute `id` of `a` is absent or holds the value a
// default-constructed InstructionAttrs holds there (a value inside an
// absent optional structure: that structure's member default, so an empty
// window is a default window). Called computations: true.
bool HoldsDefault(const InstructionAttrs& a, AttrId id);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_ATTRIBUTE_TABLE_H_
