// Module -> plexa.proto.ModuleProto: a walk over the module that assigns
// dense ids (computations and instructions in module order).
#include <bit>
#include <climits>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/ir/attribute_table.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "core/proto/module_proto.h"
#include "core/proto/module_proto_internal.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/verifier/verifier.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

using namespace proto_internal;  // NOLINT: the shared tables and helpers

// ------------------------------------------------------------ writing

absl::Status LayoutToProto(const Layout& layout, pb::LayoutProto* p,
                           absl::string_view where) {
  AppendAll(layout.minor_to_major(), p->mutable_minor_to_major());
  for (const Tile& tile : layout.tiles()) {
    AppendAll(tile.dimensions(), p->add_tiles()->mutable_dimensions());
  }
  p->set_memory_space(layout.memory_space());
  AppendAll(layout.padded_dimensions(), p->mutable_padded_dimensions());
  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kPaddingValues, layout.padding_value(), "padding_value", where,
                [&](pb::PaddingValue v) { p->set_padding_value(v); }));
  if (layout.tail_padding_alignment_in_elements() != 1) {
    p->set_tail_padding_alignment_in_elements(
        layout.tail_padding_alignment_in_elements());
  }
  p->set_element_size_in_bits(layout.element_size_in_bits());
  return absl::OkStatus();
}

// Layouts belong to arrays: one on a tuple or token means nothing (the
// printer and Shape equality ignore it) and is not written.
absl::Status ShapeToProto(const Shape& shape, pb::ShapeProto* p,
                          absl::string_view where, int depth = 0) {
  if (depth > kMaxNestingDepth) {
    return Invalid(where, ": shape nested deeper than ", kMaxNestingDepth,
                   " tuples");
  }
  // PRIMITIVE_TYPE_INVALID (a default Shape) is written as 0, which no
  // reader accepts; any other type missing from the table is a bug here.
  if (shape.element_type() != PrimitiveType::PRIMITIVE_TYPE_INVALID) {
    PLEXA_RETURN_IF_ERROR(
        WriteEnum(kElementTypes, shape.element_type(), "element type", where,
                  [&](pb::ElementType v) { p->set_element_type(v); }));
  }
  if (shape.IsTuple()) {
    for (const Shape& t : shape.tuple_shapes()) {
      PLEXA_RETURN_IF_ERROR(
          ShapeToProto(t, p->add_tuple_shapes(), where, depth + 1));
    }
    return absl::OkStatus();
  }
  AppendAll(shape.dimensions(), p->mutable_dimensions());
  if (shape.is_dynamic()) {
    for (bool d : shape.dynamic_dimensions()) p->add_is_dynamic_dimension(d);
  }
  if (shape.has_layout() && shape.IsArray()) {
    PLEXA_RETURN_IF_ERROR(
        LayoutToProto(shape.layout(), p->mutable_layout(), where));
  }
  return absl::OkStatus();
}

absl::Status ProgramShapeToProto(const ProgramShape& ps,
                                 pb::ProgramShapeProto* p,
                                 absl::string_view where) {
  for (const Shape& s : ps.parameters) {
    PLEXA_RETURN_IF_ERROR(ShapeToProto(s, p->add_parameters(), where));
  }
  for (const std::string& n : ps.parameter_names) p->add_parameter_names(n);
  return ShapeToProto(ps.result, p->mutable_result(), where);
}

absl::Status LiteralToProto(const Literal& literal, pb::LiteralProto* p,
                            absl::string_view where, int depth = 0) {
  if (depth > kMaxNestingDepth) {
    return Invalid(where, ": literal nested deeper than ", kMaxNestingDepth,
                   " tuples");
  }
  PLEXA_RETURN_IF_ERROR(
      ShapeToProto(literal.shape(), p->mutable_shape(), where));
  if (literal.shape().IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      PLEXA_RETURN_IF_ERROR(LiteralToProto(
          literal.tuple_element(i), p->add_tuple_elements(), where, depth + 1));
    }
    return absl::OkStatus();
  }
  absl::Span<const uint8_t> data = literal.data();
  if (!data.empty()) p->set_data(data.data(), data.size());
  return absl::OkStatus();
}

// One field of InstructionAttrs; which fields exist is the attribute
// table's (AllAttrFields()). No default: a field added there and not here
// does not compile.
absl::Status FieldToProto(const InstructionAttrs& a, AttrField field,
                          pb::InstructionAttrsProto* p,
                          absl::string_view where) {
  switch (field) {
    case AttrField::kDimensions:
      AppendAll(a.dimensions, p->mutable_dimensions());
      return absl::OkStatus();
    case AttrField::kIotaDimension:
      p->set_iota_dimension(a.iota_dimension);
      return absl::OkStatus();
    case AttrField::kParameterNumber:
      p->set_parameter_number(a.parameter_number);
      return absl::OkStatus();
    case AttrField::kTupleIndex:
      p->set_tuple_index(a.tuple_index);
      return absl::OkStatus();
    case AttrField::kLiteral:
      if (a.literal == nullptr) return absl::OkStatus();
      return LiteralToProto(*a.literal, p->mutable_literal(), where);
    case AttrField::kWindow:
      if (a.window) {
        pb::WindowProto* w = p->mutable_window();
        for (const WindowDimension& d : a.window->dimensions) {
          pb::WindowDimensionProto* wd = w->add_dimensions();
          if (d.size != 1) wd->set_size(d.size);
          if (d.stride != 1) wd->set_stride(d.stride);
          wd->set_padding_low(d.padding_low);
          wd->set_padding_high(d.padding_high);
          if (d.window_dilation != 1)
            wd->set_window_dilation(d.window_dilation);
          if (d.base_dilation != 1) wd->set_base_dilation(d.base_dilation);
          wd->set_window_reversal(d.window_reversal);
        }
      }
      return absl::OkStatus();
    case AttrField::kConvolutionDimensionNumbers:
      if (a.convolution_dimension_numbers) {
        const ConvolutionDimensionNumbers& c = *a.convolution_dimension_numbers;
        pb::ConvolutionDimensionNumbersProto* cp =
            p->mutable_convolution_dimension_numbers();
        cp->set_input_batch_dimension(c.input_batch_dimension);
        if (c.input_feature_dimension != 1) {
          cp->set_input_feature_dimension(c.input_feature_dimension);
        }
        AppendAll(c.input_spatial_dimensions,
                  cp->mutable_input_spatial_dimensions());
        cp->set_kernel_input_feature_dimension(
            c.kernel_input_feature_dimension);
        if (c.kernel_output_feature_dimension != 1) {
          cp->set_kernel_output_feature_dimension(
              c.kernel_output_feature_dimension);
        }
        AppendAll(c.kernel_spatial_dimensions,
                  cp->mutable_kernel_spatial_dimensions());
        cp->set_output_batch_dimension(c.output_batch_dimension);
        if (c.output_feature_dimension != 1) {
          cp->set_output_feature_dimension(c.output_feature_dimension);
        }
        AppendAll(c.output_spatial_dimensions,
                  cp->mutable_output_spatial_dimensions());
      }
      return absl::OkStatus();
    case AttrField::kFeatureGroupCount:
      if (a.feature_group_count != 1) {
        p->set_feature_group_count(a.feature_group_count);
      }
      return absl::OkStatus();
    case AttrField::kBatchGroupCount:
      if (a.batch_group_count != 1) {
        p->set_batch_group_count(a.batch_group_count);
      }
      return absl::OkStatus();
    case AttrField::kDotDimensionNumbers:
      if (a.dot_dimension_numbers) {
        const DotDimensionNumbers& d = *a.dot_dimension_numbers;
        pb::DotDimensionNumbersProto* dp = p->mutable_dot_dimension_numbers();
        AppendAll(d.lhs_batch_dimensions, dp->mutable_lhs_batch_dimensions());
        AppendAll(d.rhs_batch_dimensions, dp->mutable_rhs_batch_dimensions());
        AppendAll(d.lhs_contracting_dimensions,
                  dp->mutable_lhs_contracting_dimensions());
        AppendAll(d.rhs_contracting_dimensions,
                  dp->mutable_rhs_contracting_dimensions());
      }
      return absl::OkStatus();
    case AttrField::kPaddingConfig:
      if (a.padding_config) {
        pb::PaddingConfigProto* pc = p->mutable_padding_config();
        for (const PaddingDimension& d : a.padding_config->dimensions) {
          pb::PaddingDimensionProto* dp = pc->add_dimensions();
          dp->set_edge_padding_low(d.edge_padding_low);
          dp->set_edge_padding_high(d.edge_padding_high);
          dp->set_interior_padding(d.interior_padding);
        }
      }
      return absl::OkStatus();
    case AttrField::kSlice:
      for (const SliceDimension& s : a.slice) {
        pb::SliceDimensionProto* sp = p->add_slice();
        sp->set_start(s.start);
        sp->set_limit(s.limit);
        if (s.stride != 1) sp->set_stride(s.stride);
      }
      return absl::OkStatus();
    case AttrField::kLhsRaggedDimensions:
      AppendAll(a.lhs_ragged_dimensions, p->mutable_lhs_ragged_dimensions());
      return absl::OkStatus();
    case AttrField::kRhsGroupDimensions:
      AppendAll(a.rhs_group_dimensions, p->mutable_rhs_group_dimensions());
      return absl::OkStatus();
    case AttrField::kDotSparsity:
      for (const SparsityDescriptor& d : a.dot_sparsity) {
        pb::SparsityDescriptorProto* dp = p->add_dot_sparsity();
        dp->set_index(d.index);
        dp->set_dimension(d.dimension);
        dp->set_n(d.n);
        dp->set_m(d.m);
      }
      return absl::OkStatus();
    case AttrField::kDynamicSliceSizes:
      AppendAll(a.dynamic_slice_sizes, p->mutable_dynamic_slice_sizes());
      return absl::OkStatus();
    case AttrField::kGatherDimensionNumbers:
      if (a.gather_dimension_numbers) {
        const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
        pb::GatherDimensionNumbersProto* gp =
            p->mutable_gather_dimension_numbers();
        AppendAll(g.offset_dims, gp->mutable_offset_dims());
        AppendAll(g.collapsed_slice_dims, gp->mutable_collapsed_slice_dims());
        AppendAll(g.start_index_map, gp->mutable_start_index_map());
        gp->set_index_vector_dim(g.index_vector_dim);
        AppendAll(g.operand_batching_dims, gp->mutable_operand_batching_dims());
        AppendAll(g.start_indices_batching_dims,
                  gp->mutable_start_indices_batching_dims());
      }
      return absl::OkStatus();
    case AttrField::kGatherSliceSizes:
      AppendAll(a.gather_slice_sizes, p->mutable_gather_slice_sizes());
      return absl::OkStatus();
    case AttrField::kScatterDimensionNumbers:
      if (a.scatter_dimension_numbers) {
        const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
        pb::ScatterDimensionNumbersProto* sp =
            p->mutable_scatter_dimension_numbers();
        AppendAll(s.update_window_dims, sp->mutable_update_window_dims());
        AppendAll(s.inserted_window_dims, sp->mutable_inserted_window_dims());
        AppendAll(s.scatter_dims_to_operand_dims,
                  sp->mutable_scatter_dims_to_operand_dims());
        sp->set_index_vector_dim(s.index_vector_dim);
        AppendAll(s.input_batching_dims, sp->mutable_input_batching_dims());
        AppendAll(s.scatter_indices_batching_dims,
                  sp->mutable_scatter_indices_batching_dims());
      }
      return absl::OkStatus();
    case AttrField::kIndicesAreSorted:
      p->set_indices_are_sorted(a.indices_are_sorted);
      return absl::OkStatus();
    case AttrField::kUniqueIndices:
      p->set_unique_indices(a.unique_indices);
      return absl::OkStatus();
    case AttrField::kComparisonDirection:
      return WriteEnum(
          kComparisonDirections, a.comparison_direction, "comparison_direction",
          where,
          [&](pb::ComparisonDirection v) { p->set_comparison_direction(v); });
    case AttrField::kComparisonType:
      return WriteEnum(
          kComparisonTypes, a.comparison_type, "comparison_type", where,
          [&](pb::ComparisonType v) { p->set_comparison_type(v); });
    case AttrField::kEpsilon:
      p->set_epsilon(a.epsilon);
      return absl::OkStatus();
    case AttrField::kFeatureIndex:
      p->set_feature_index(a.feature_index);
      return absl::OkStatus();
    case AttrField::kExponentBits:
      p->set_exponent_bits(a.exponent_bits);
      return absl::OkStatus();
    case AttrField::kMantissaBits:
      p->set_mantissa_bits(a.mantissa_bits);
      return absl::OkStatus();
    case AttrField::kDistribution:
      return WriteEnum(
          kDistributions, a.distribution, "distribution", where,
          [&](pb::RandomDistribution v) { p->set_distribution(v); });
    case AttrField::kRngAlgorithm:
      return WriteEnum(kAlgorithms, a.rng_algorithm, "rng_algorithm", where,
                       [&](pb::RandomAlgorithm v) { p->set_rng_algorithm(v); });
    case AttrField::kIsStable:
      p->set_is_stable(a.is_stable);
      return absl::OkStatus();
    case AttrField::kCustomCallTarget:
      p->set_custom_call_target(a.custom_call_target);
      return absl::OkStatus();
    case AttrField::kBackendConfig:
      p->set_backend_config(a.backend_config);
      return absl::OkStatus();
    case AttrField::kApiVersion:
      return WriteEnum(
          kApiVersions, a.api_version, "api_version", where,
          [&](pb::CustomCallApiVersion v) { p->set_api_version(v); });
    case AttrField::kOperandShapesWithLayout:
      p->set_has_layout_constraints(a.has_layout_constraints);
      for (const Shape& s : a.operand_shapes_with_layout) {
        PLEXA_RETURN_IF_ERROR(
            ShapeToProto(s, p->add_operand_shapes_with_layout(), where));
      }
      return absl::OkStatus();
    case AttrField::kCustomCallHasSideEffect:
      p->set_custom_call_has_side_effect(a.custom_call_has_side_effect);
      return absl::OkStatus();
    case AttrField::kReplicaGroups:
      for (const std::vector<int64_t>& group : a.replica_groups) {
        AppendAll(group, p->add_replica_groups()->mutable_replica_ids());
      }
      return absl::OkStatus();
    case AttrField::kChannelId:
      if (a.channel_id) p->set_channel_id(*a.channel_id);
      return absl::OkStatus();
    case AttrField::kSourceTargetPairs:
      for (const auto& [source, target] : a.source_target_pairs) {
        pb::SourceTargetPairProto* pair = p->add_source_target_pairs();
        pair->set_source(source);
        pair->set_target(target);
      }
      return absl::OkStatus();
    case AttrField::kIsHostTransfer:
      p->set_is_host_transfer(a.is_host_transfer);
      return absl::OkStatus();
    case AttrField::kUseGlobalDeviceIds:
      p->set_use_global_device_ids(a.use_global_device_ids);
      return absl::OkStatus();
    case AttrField::kConstrainLayout:
      p->set_constrain_layout(a.constrain_layout);
      return absl::OkStatus();
    case AttrField::kInfeedConfig:
      p->set_infeed_config(a.infeed_config);
      return absl::OkStatus();
    case AttrField::kOutfeedConfig:
      p->set_outfeed_config(a.outfeed_config);
      return absl::OkStatus();
    case AttrField::kOutfeedShape:
      if (!a.outfeed_shape) return absl::OkStatus();
      return ShapeToProto(*a.outfeed_shape, p->mutable_outfeed_shape(), where);
    case AttrField::kFusionKind:
      return WriteEnum(kFusionKinds, a.fusion_kind, "fusion_kind", where,
                       [&](pb::FusionKind v) { p->set_fusion_kind(v); });
    case AttrField::kTriangularSolveOptions: {
      const TriangularSolveOptions& t = a.triangular_solve_options;
      if (t == TriangularSolveOptions()) return absl::OkStatus();
      pb::TriangularSolveOptionsProto* tp =
          p->mutable_triangular_solve_options();
      tp->set_left_side(t.left_side);
      tp->set_lower(t.lower);
      tp->set_unit_diagonal(t.unit_diagonal);
      return WriteEnum(
          kTransposes, t.transpose_a, "triangular_solve transpose_a", where,
          [&](pb::TriangularSolveTranspose v) { tp->set_transpose_a(v); });
    }
    case AttrField::kCholeskyLower:
      p->set_cholesky_lower(a.cholesky_lower);
      return absl::OkStatus();
    case AttrField::kFftType:
      return WriteEnum(kFftTypes, a.fft_type, "fft_type", where,
                       [&](pb::FftType v) { p->set_fft_type(v); });
    case AttrField::kFftLength:
      for (int64_t n : a.fft_length) p->add_fft_length(n);
      return absl::OkStatus();
    case AttrField::kK:
      p->set_k(a.k);
      return absl::OkStatus();
    case AttrField::kLargest:
      // Written only when false: absent reads as XLA's default, true.
      if (!a.largest) p->set_largest(false);
      return absl::OkStatus();
    case AttrField::kRngDelta:
      p->set_rng_delta(a.rng_delta);
      return absl::OkStatus();
    case AttrField::kAsyncExecutionThread:
      p->set_async_execution_thread(a.async_execution_thread);
      return absl::OkStatus();
    case AttrField::kCrossProgramPrefetchIndex:
      if (a.cross_program_prefetch_index) {
        p->set_cross_program_prefetch_index(*a.cross_program_prefetch_index);
      }
      return absl::OkStatus();
    case AttrField::kNumCarries:
      if (a.num_carries) p->set_num_carries(*a.num_carries);
      return absl::OkStatus();
    case AttrField::kIsReverse:
      p->set_is_reverse(a.is_reverse);
      return absl::OkStatus();
    case AttrField::kShuffleMode:
      return WriteEnum(kShuffleModes, a.shuffle_mode, "shuffle_mode", where,
                       [&](pb::ShuffleMode v) { p->set_shuffle_mode(v); });
    case AttrField::kShuffleShifts:
      for (int64_t n : a.shuffle_shifts) p->add_shuffle_shifts(n);
      return absl::OkStatus();
    case AttrField::kShuffleIndices:
      if (a.shuffle_indices == nullptr) return absl::OkStatus();
      return LiteralToProto(*a.shuffle_indices, p->mutable_shuffle_indices(),
                            where);
    case AttrField::kShuffleMultiShifts:
      if (a.shuffle_multi_shifts == nullptr) return absl::OkStatus();
      return LiteralToProto(*a.shuffle_multi_shifts,
                            p->mutable_shuffle_multi_shifts(), where);
    case AttrField::kHasDynamicRoot:
      p->set_has_dynamic_root(a.has_dynamic_root);
      return absl::OkStatus();
    case AttrField::kOpaque:
      for (const auto& [name, value] : a.opaque) {
        pb::OpaqueAttributeProto* o = p->add_opaque();
        o->set_name(name);
        o->set_value(value);
      }
      return absl::OkStatus();
  }
  return Invalid(where, ": unknown attribute field ", static_cast<int>(field));
}

std::string Where(const Computation& c, const Instruction& inst) {
  return absl::StrCat("computation '", c.name(), "', instruction '",
                      inst.name(), "' (", HloOpcodeString(inst.opcode()), ")");
}

}  // namespace

// Every field whatever the opcode: the format stores InstructionAttrs field
// for field (module.proto).
absl::Status proto_internal::AttrsToProto(const InstructionAttrs& a,
                                          pb::InstructionAttrsProto* p,
                                          absl::string_view where) {
  for (AttrField field : AllAttrFields()) {
    PLEXA_RETURN_IF_ERROR(FieldToProto(a, field, p, where));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> SerializeModule(const Module& module) {
  pb::ModuleProto mp;
  mp.set_format_version(kModuleFormatVersion);
  mp.set_name(module.name());

  const std::vector<Computation*> computations = module.computations();
  absl::flat_hash_map<const Computation*, int64_t> computation_ids;
  absl::flat_hash_map<const Instruction*, int64_t> instruction_ids;
  int64_t next_instruction_id = 0;
  for (size_t i = 0; i < computations.size(); ++i) {
    if (computations[i] == nullptr) {
      return Invalid("module '", module.name(), "' holds a null computation");
    }
    computation_ids[computations[i]] = static_cast<int64_t>(i);
    for (const Instruction* inst : computations[i]->instructions()) {
      instruction_ids[inst] = next_instruction_id++;
    }
  }
  const Computation* entry = module.entry_computation();
  if (entry == nullptr || !computation_ids.contains(entry)) {
    return Invalid("module '", module.name(),
                   "' has no entry computation among its computations");
  }
  mp.set_entry_computation_id(computation_ids[entry]);
  if (module.entry_computation_layout()) {
    PLEXA_RETURN_IF_ERROR(ProgramShapeToProto(
        *module.entry_computation_layout(),
        mp.mutable_entry_computation_layout(),
        absl::StrCat("module '", module.name(), "' entry_computation_layout")));
  }
  for (const auto& [name, value] : module.opaque_attributes()) {
    pb::OpaqueAttributeProto* o = mp.add_attributes();
    o->set_name(name);
    o->set_value(value);
  }

  for (const Computation* c : computations) {
    pb::ComputationProto* cp = mp.add_computations();
    cp->set_id(computation_ids[c]);
    cp->set_name(c->name());
    for (const Instruction* inst : c->instructions()) {
      const std::string where = Where(*c, *inst);
      pb::InstructionProto* ip = cp->add_instructions();
      ip->set_id(instruction_ids[inst]);
      ip->set_name(inst->name());
      ip->set_opcode(std::string(HloOpcodeString(inst->opcode())));
      PLEXA_RETURN_IF_ERROR(
          ShapeToProto(inst->shape(), ip->mutable_shape(), where));
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        const Instruction* op = inst->operand(i);
        if (op == nullptr || op->parent() != c ||
            !instruction_ids.contains(op)) {
          return Invalid(where, ": operand ", i,
                         " is null or not an instruction of the computation");
        }
        ip->add_operand_ids(instruction_ids[op]);
      }
      for (const Computation* callee : inst->called_computations()) {
        auto it = computation_ids.find(callee);
        if (callee == nullptr || it == computation_ids.end()) {
          return Invalid(where,
                         ": calls a computation that is not in the module");
        }
        ip->add_called_computation_ids(it->second);
      }
      for (const Instruction* pred : inst->control_predecessors()) {
        if (pred == nullptr || pred->parent() != c ||
            !instruction_ids.contains(pred)) {
          return Invalid(where,
                         ": a control predecessor is null or not an "
                         "instruction of the computation");
        }
        ip->add_control_predecessor_ids(instruction_ids[pred]);
      }
      if (inst->opcode() == HloOpcode::kConstant &&
          inst->attrs().literal == nullptr) {
        return Invalid(where, ": constant without a literal");
      }
      PLEXA_RETURN_IF_ERROR(
          AttrsToProto(inst->attrs(), ip->mutable_attrs(), where));
    }
    const Instruction* root = c->root_instruction();
    if (root == nullptr || root->parent() != c ||
        !instruction_ids.contains(root)) {
      return Invalid("computation '", c->name(),
                     "' has no root instruction of its own");
    }
    cp->set_root_id(instruction_ids[root]);
    for (int64_t n = 0; n < c->num_parameters(); ++n) {
      const Instruction* param = c->parameter_instruction(n);
      if (param == nullptr || param->parent() != c ||
          !instruction_ids.contains(param)) {
        return Invalid("computation '", c->name(), "' has no parameter ", n,
                       " (parameters must be numbered 0..n-1)");
      }
      cp->add_parameter_ids(instruction_ids[param]);
    }
  }

  const size_t size = mp.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return Invalid("module '", module.name(), "' serializes to ", size,
                   " bytes, over protobuf's 2 GiB limit");
  }
  std::string out;
  if (!mp.SerializeToString(&out)) {
    return absl::InternalError(absl::StrCat(
        "module '", module.name(), "': protobuf serialization failed"));
  }
  return out;
}

}  // namespace plexa
