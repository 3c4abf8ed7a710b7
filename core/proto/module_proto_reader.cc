// plexa.proto.ModuleProto -> Module. Reading never trusts the bytes: every
// enum number, id, name, count and size is checked before it is used, and
// nothing is allocated from a size the input claims without that size
// being backed by the input's own bytes (a literal's buffer must be as big
// as its shape says, a parameter number must be below the computation's
// parameter count). Structural problems the verifier finds (cycles, shape
// mismatches, bad signatures) are left to VerifyModule, which runs last;
// nothing before it walks the operand or call graph.
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

using namespace proto_internal;  // NOLINT: the shared tables and helpers

// ------------------------------------------------------------ reading

namespace {

absl::StatusOr<Layout> LayoutFromProto(const pb::LayoutProto& p,
                                       absl::string_view where) {
  Layout layout(ToVector(p.minor_to_major()));
  for (const pb::TileProto& t : p.tiles()) {
    layout.add_tile(Tile(ToVector(t.dimensions())));
  }
  layout.set_memory_space(p.memory_space());
  layout.set_padded_dimensions(ToVector(p.padded_dimensions()));
  PLEXA_ASSIGN_OR_RETURN(
      PaddingValue pv,
      ReadEnum(kPaddingValues, p.padding_value(), "padding_value", where));
  layout.set_padding_value(pv);
  layout.set_tail_padding_alignment_in_elements(
      p.has_tail_padding_alignment_in_elements()
          ? p.tail_padding_alignment_in_elements()
          : 1);
  layout.set_element_size_in_bits(p.element_size_in_bits());
  return layout;
}

// A shape, checked as ShapeUtil::ValidateShape checks (known element type,
// non-negative dimensions, a layout that fits, a size that fits in int64)
// plus what only the wire form can get wrong (dimensions on a tuple, a
// layout on a tuple or token, a dynamic flag per dimension).
absl::StatusOr<Shape> ShapeFromProto(const pb::ShapeProto& p,
                                     absl::string_view where, int depth = 0) {
  if (depth > kMaxNestingDepth) {
    return Invalid(where, ": shape nested deeper than ", kMaxNestingDepth,
                   " tuples");
  }
  PLEXA_ASSIGN_OR_RETURN(
      PrimitiveType type,
      ReadEnum(kElementTypes, p.element_type(), "element type", where));
  if (type == PrimitiveType::TUPLE) {
    if (p.dimensions_size() != 0 || p.is_dynamic_dimension_size() != 0 ||
        p.has_layout()) {
      return Invalid(where,
                     ": a tuple shape has dimensions, dynamic flags or a "
                     "layout");
    }
    std::vector<Shape> elements;
    elements.reserve(p.tuple_shapes_size());
    for (const pb::ShapeProto& t : p.tuple_shapes()) {
      PLEXA_ASSIGN_OR_RETURN(Shape s, ShapeFromProto(t, where, depth + 1));
      elements.push_back(std::move(s));
    }
    return Shape(std::move(elements));
  }
  if (p.tuple_shapes_size() != 0) {
    return Invalid(where, ": a ", primitive_util::Name(type),
                   " shape has tuple elements");
  }
  if (type == PrimitiveType::TOKEN &&
      (p.dimensions_size() != 0 || p.is_dynamic_dimension_size() != 0 ||
       p.has_layout())) {
    return Invalid(where, ": a token shape has dimensions or a layout");
  }
  Shape shape(type, ToVector(p.dimensions()));
  if (p.is_dynamic_dimension_size() != 0) {
    if (p.is_dynamic_dimension_size() != p.dimensions_size()) {
      return Invalid(where, ": ", p.is_dynamic_dimension_size(),
                     " dynamic-dimension flags for ", p.dimensions_size(),
                     " dimensions");
    }
    for (int i = 0; i < p.dimensions_size(); ++i) {
      shape.set_dynamic_dimension(i, p.is_dynamic_dimension(i));
    }
  }
  if (p.has_layout()) {
    PLEXA_ASSIGN_OR_RETURN(Layout layout, LayoutFromProto(p.layout(), where));
    shape.set_layout(std::move(layout));
  }
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) {
    return Invalid(where, ": invalid shape ", shape.ToString(), ": ",
                   valid.message());
  }
  return shape;
}

absl::StatusOr<ProgramShape> ProgramShapeFromProto(
    const pb::ProgramShapeProto& p, absl::string_view where) {
  ProgramShape ps;
  for (const pb::ShapeProto& s : p.parameters()) {
    PLEXA_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(s, where));
    ps.parameters.push_back(std::move(shape));
  }
  for (const std::string& n : p.parameter_names()) {
    ps.parameter_names.push_back(n);
  }
  if (!p.has_result()) return Invalid(where, ": no result shape");
  PLEXA_ASSIGN_OR_RETURN(ps.result, ShapeFromProto(p.result(), where));
  return ps;
}

absl::StatusOr<Literal> LiteralFromProto(const pb::LiteralProto& p,
                                         absl::string_view where,
                                         int depth = 0) {
  if (depth > kMaxNestingDepth) {
    return Invalid(where, ": literal nested deeper than ", kMaxNestingDepth,
                   " tuples");
  }
  if (!p.has_shape()) return Invalid(where, ": a literal without a shape");
  PLEXA_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(p.shape(), where));
  if (shape.IsTuple()) {
    if (!p.data().empty()) {
      return Invalid(where, ": tuple literal ", shape.ToString(),
                     " carries array data");
    }
    if (p.tuple_elements_size() != shape.tuple_shapes_size()) {
      return Invalid(where, ": tuple literal ", shape.ToString(), " has ",
                     p.tuple_elements_size(), " elements");
    }
    std::vector<Literal> elements;
    elements.reserve(p.tuple_elements_size());
    for (int i = 0; i < p.tuple_elements_size(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(
          Literal e, LiteralFromProto(p.tuple_elements(i), where, depth + 1));
      Shape want = shape.tuple_shapes(i);
      LayoutUtil::SetToDefaultLayoutIfEmpty(&want);
      if (e.shape() != want) {
        return Invalid(where, ": element ", i, " of tuple literal ",
                       shape.ToString(), " has shape ", e.shape().ToString());
      }
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (p.tuple_elements_size() != 0) {
    return Invalid(where, ": ", shape.ToString(),
                   " literal has tuple elements");
  }
  if (shape.IsToken()) {
    if (!p.data().empty()) {
      return Invalid(where, ": token literal carries data");
    }
    return Literal(shape);
  }
  // An array: exactly the bytes the layout's buffer takes. The size is
  // checked before anything is allocated.
  LayoutUtil::SetToDefaultLayoutIfEmpty(&shape);
  const int64_t slots = IndexUtil::BufferElementCount(shape);
  const int64_t width = primitive_util::ByteWidth(shape.element_type());
  int64_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(slots, width, &bytes);
  if (overflow || static_cast<uint64_t>(bytes) != p.data().size()) {
    return Invalid(
        where, ": literal ", shape.ToString(), " needs ",
        overflow ? std::string("more than 2^63") : absl::StrCat(bytes),
        " bytes of data, the module holds ", p.data().size());
  }
  if (shape.element_type() == PrimitiveType::PRED) {
    // A bool holds 0 or 1; any other byte would be undefined behaviour on
    // the first read.
    for (size_t i = 0; i < p.data().size(); ++i) {
      const uint8_t b = static_cast<uint8_t>(p.data()[i]);
      if (b > 1) {
        return Invalid(where, ": pred literal ", shape.ToString(),
                       " holds byte ", static_cast<int>(b), " at offset ", i,
                       " (only 0 and 1 are booleans)");
      }
    }
  }
  if (primitive_util::IsSubByteType(shape.element_type())) {
    // One element per byte: the value in the low bits, sign-extended for
    // s4/s2 (as the core holds them); other bytes are not values.
    const PrimitiveType t = shape.element_type();
    const int bits = static_cast<int>(primitive_util::BitWidth(t));
    for (size_t i = 0; i < p.data().size(); ++i) {
      const uint8_t b = static_cast<uint8_t>(p.data()[i]);
      const uint8_t canonical =
          primitive_util::IsSignedIntegralType(t)
              ? static_cast<uint8_t>(
                    WrapSignedToBits(static_cast<int8_t>(b), bits))
              : static_cast<uint8_t>(WrapUnsignedToBits(b, bits));
      if (b != canonical) {
        return Invalid(where, ": ", primitive_util::Name(t), " literal ",
                       shape.ToString(), " holds byte ", static_cast<int>(b),
                       " at offset ", i, " (not a ", bits, "-bit value)");
      }
    }
  }
  Literal literal(shape);
  if (literal.shape() != shape || literal.data().size() != p.data().size()) {
    return Invalid(where, ": literal ", shape.ToString(),
                   " cannot be allocated");
  }
  if (!p.data().empty()) {
    std::memcpy(literal.mutable_data().data(), p.data().data(),
                p.data().size());
  }
  return literal;
}

// One field of InstructionAttrs into *a; which fields exist is the
// attribute table's (AllAttrFields()). No default: a field added there and
// not here does not compile.
absl::Status FieldFromProto(const pb::InstructionAttrsProto& p, AttrField field,
                            InstructionAttrs* a, absl::string_view where) {
  switch (field) {
    case AttrField::kDimensions:
      a->dimensions = ToVector(p.dimensions());
      return absl::OkStatus();
    case AttrField::kIotaDimension:
      a->iota_dimension = p.iota_dimension();
      return absl::OkStatus();
    case AttrField::kParameterNumber:
      a->parameter_number = p.parameter_number();
      return absl::OkStatus();
    case AttrField::kTupleIndex:
      a->tuple_index = p.tuple_index();
      return absl::OkStatus();
    case AttrField::kLiteral:
      if (p.has_literal()) {
        PLEXA_ASSIGN_OR_RETURN(Literal literal,
                               LiteralFromProto(p.literal(), where));
        a->literal = std::make_shared<const Literal>(std::move(literal));
      }
      return absl::OkStatus();
    case AttrField::kWindow:
      if (p.has_window()) {
        Window w;
        for (const pb::WindowDimensionProto& d : p.window().dimensions()) {
          WindowDimension wd;
          wd.size = d.has_size() ? d.size() : 1;
          wd.stride = d.has_stride() ? d.stride() : 1;
          wd.padding_low = d.padding_low();
          wd.padding_high = d.padding_high();
          wd.window_dilation =
              d.has_window_dilation() ? d.window_dilation() : 1;
          wd.base_dilation = d.has_base_dilation() ? d.base_dilation() : 1;
          wd.window_reversal = d.window_reversal();
          w.dimensions.push_back(wd);
        }
        a->window = std::move(w);
      }
      return absl::OkStatus();
    case AttrField::kConvolutionDimensionNumbers:
      if (p.has_convolution_dimension_numbers()) {
        const pb::ConvolutionDimensionNumbersProto& cp =
            p.convolution_dimension_numbers();
        ConvolutionDimensionNumbers c;
        c.input_batch_dimension = cp.input_batch_dimension();
        c.input_feature_dimension =
            cp.has_input_feature_dimension() ? cp.input_feature_dimension() : 1;
        c.input_spatial_dimensions = ToVector(cp.input_spatial_dimensions());
        c.kernel_input_feature_dimension = cp.kernel_input_feature_dimension();
        c.kernel_output_feature_dimension =
            cp.has_kernel_output_feature_dimension()
                ? cp.kernel_output_feature_dimension()
                : 1;
        c.kernel_spatial_dimensions = ToVector(cp.kernel_spatial_dimensions());
        c.output_batch_dimension = cp.output_batch_dimension();
        c.output_feature_dimension = cp.has_output_feature_dimension()
                                         ? cp.output_feature_dimension()
                                         : 1;
        c.output_spatial_dimensions = ToVector(cp.output_spatial_dimensions());
        a->convolution_dimension_numbers = std::move(c);
      }
      return absl::OkStatus();
    case AttrField::kFeatureGroupCount:
      a->feature_group_count =
          p.has_feature_group_count() ? p.feature_group_count() : 1;
      return absl::OkStatus();
    case AttrField::kBatchGroupCount:
      a->batch_group_count =
          p.has_batch_group_count() ? p.batch_group_count() : 1;
      return absl::OkStatus();
    case AttrField::kDotDimensionNumbers:
      if (p.has_dot_dimension_numbers()) {
        const pb::DotDimensionNumbersProto& dp = p.dot_dimension_numbers();
        DotDimensionNumbers d;
        d.lhs_batch_dimensions = ToVector(dp.lhs_batch_dimensions());
        d.rhs_batch_dimensions = ToVector(dp.rhs_batch_dimensions());
        d.lhs_contracting_dimensions =
            ToVector(dp.lhs_contracting_dimensions());
        d.rhs_contracting_dimensions =
            ToVector(dp.rhs_contracting_dimensions());
        a->dot_dimension_numbers = std::move(d);
      }
      return absl::OkStatus();
    case AttrField::kPaddingConfig:
      if (p.has_padding_config()) {
        PaddingConfig pc;
        for (const pb::PaddingDimensionProto& d :
             p.padding_config().dimensions()) {
          pc.dimensions.push_back(PaddingDimension{d.edge_padding_low(),
                                                   d.edge_padding_high(),
                                                   d.interior_padding()});
        }
        a->padding_config = std::move(pc);
      }
      return absl::OkStatus();
    case AttrField::kSlice:
      for (const pb::SliceDimensionProto& s : p.slice()) {
        a->slice.push_back(SliceDimension{s.start(), s.limit(),
                                          s.has_stride() ? s.stride() : 1});
      }
      return absl::OkStatus();
    case AttrField::kLhsRaggedDimensions:
      a->lhs_ragged_dimensions = ToVector(p.lhs_ragged_dimensions());
      return absl::OkStatus();
    case AttrField::kRhsGroupDimensions:
      a->rhs_group_dimensions = ToVector(p.rhs_group_dimensions());
      return absl::OkStatus();
    case AttrField::kDotSparsity:
      for (const pb::SparsityDescriptorProto& d : p.dot_sparsity()) {
        a->dot_sparsity.push_back(
            SparsityDescriptor{d.index(), d.dimension(), d.n(), d.m()});
      }
      return absl::OkStatus();
    case AttrField::kDynamicSliceSizes:
      a->dynamic_slice_sizes = ToVector(p.dynamic_slice_sizes());
      return absl::OkStatus();
    case AttrField::kGatherDimensionNumbers:
      if (p.has_gather_dimension_numbers()) {
        const pb::GatherDimensionNumbersProto& gp =
            p.gather_dimension_numbers();
        GatherDimensionNumbers g;
        g.offset_dims = ToVector(gp.offset_dims());
        g.collapsed_slice_dims = ToVector(gp.collapsed_slice_dims());
        g.start_index_map = ToVector(gp.start_index_map());
        g.index_vector_dim = gp.index_vector_dim();
        g.operand_batching_dims = ToVector(gp.operand_batching_dims());
        g.start_indices_batching_dims =
            ToVector(gp.start_indices_batching_dims());
        a->gather_dimension_numbers = std::move(g);
      }
      return absl::OkStatus();
    case AttrField::kGatherSliceSizes:
      a->gather_slice_sizes = ToVector(p.gather_slice_sizes());
      return absl::OkStatus();
    case AttrField::kScatterDimensionNumbers:
      if (p.has_scatter_dimension_numbers()) {
        const pb::ScatterDimensionNumbersProto& sp =
            p.scatter_dimension_numbers();
        ScatterDimensionNumbers s;
        s.update_window_dims = ToVector(sp.update_window_dims());
        s.inserted_window_dims = ToVector(sp.inserted_window_dims());
        s.scatter_dims_to_operand_dims =
            ToVector(sp.scatter_dims_to_operand_dims());
        s.index_vector_dim = sp.index_vector_dim();
        s.input_batching_dims = ToVector(sp.input_batching_dims());
        s.scatter_indices_batching_dims =
            ToVector(sp.scatter_indices_batching_dims());
        a->scatter_dimension_numbers = std::move(s);
      }
      return absl::OkStatus();
    case AttrField::kIndicesAreSorted:
      a->indices_are_sorted = p.indices_are_sorted();
      return absl::OkStatus();
    case AttrField::kUniqueIndices:
      a->unique_indices = p.unique_indices();
      return absl::OkStatus();
    case AttrField::kComparisonDirection: {
      PLEXA_ASSIGN_OR_RETURN(
          a->comparison_direction,
          ReadEnum(kComparisonDirections, p.comparison_direction(),
                   "comparison_direction", where));
      return absl::OkStatus();
    }
    case AttrField::kComparisonType: {
      PLEXA_ASSIGN_OR_RETURN(a->comparison_type,
                             ReadEnum(kComparisonTypes, p.comparison_type(),
                                      "comparison_type", where));
      return absl::OkStatus();
    }
    case AttrField::kEpsilon:
      a->epsilon = p.epsilon();
      return absl::OkStatus();
    case AttrField::kFeatureIndex:
      a->feature_index = p.feature_index();
      return absl::OkStatus();
    case AttrField::kExponentBits:
      a->exponent_bits = p.exponent_bits();
      return absl::OkStatus();
    case AttrField::kMantissaBits:
      a->mantissa_bits = p.mantissa_bits();
      return absl::OkStatus();
    case AttrField::kDistribution: {
      PLEXA_ASSIGN_OR_RETURN(
          a->distribution,
          ReadEnum(kDistributions, p.distribution(), "distribution", where));
      return absl::OkStatus();
    }
    case AttrField::kRngAlgorithm: {
      PLEXA_ASSIGN_OR_RETURN(
          a->rng_algorithm,
          ReadEnum(kAlgorithms, p.rng_algorithm(), "rng_algorithm", where));
      return absl::OkStatus();
    }
    case AttrField::kIsStable:
      a->is_stable = p.is_stable();
      return absl::OkStatus();
    case AttrField::kCustomCallTarget:
      a->custom_call_target = p.custom_call_target();
      return absl::OkStatus();
    case AttrField::kBackendConfig:
      a->backend_config = p.backend_config();
      return absl::OkStatus();
    case AttrField::kApiVersion: {
      PLEXA_ASSIGN_OR_RETURN(a->api_version,
                             ReadEnum(kApiVersions, p.api_version(),
                                      "custom-call api_version", where));
      return absl::OkStatus();
    }
    case AttrField::kOperandShapesWithLayout:
      a->has_layout_constraints = p.has_layout_constraints();
      for (const pb::ShapeProto& s : p.operand_shapes_with_layout()) {
        PLEXA_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(s, where));
        a->operand_shapes_with_layout.push_back(std::move(shape));
      }
      return absl::OkStatus();
    case AttrField::kCustomCallHasSideEffect:
      a->custom_call_has_side_effect = p.custom_call_has_side_effect();
      return absl::OkStatus();
    case AttrField::kReplicaGroups:
      for (const pb::ReplicaGroupProto& g : p.replica_groups()) {
        a->replica_groups.push_back(ToVector(g.replica_ids()));
      }
      return absl::OkStatus();
    case AttrField::kChannelId:
      if (p.has_channel_id()) a->channel_id = p.channel_id();
      return absl::OkStatus();
    case AttrField::kSourceTargetPairs:
      for (const pb::SourceTargetPairProto& pair : p.source_target_pairs()) {
        a->source_target_pairs.emplace_back(pair.source(), pair.target());
      }
      return absl::OkStatus();
    case AttrField::kIsHostTransfer:
      a->is_host_transfer = p.is_host_transfer();
      return absl::OkStatus();
    case AttrField::kUseGlobalDeviceIds:
      a->use_global_device_ids = p.use_global_device_ids();
      return absl::OkStatus();
    case AttrField::kConstrainLayout:
      a->constrain_layout = p.constrain_layout();
      return absl::OkStatus();
    case AttrField::kInfeedConfig:
      a->infeed_config = p.infeed_config();
      return absl::OkStatus();
    case AttrField::kOutfeedConfig:
      a->outfeed_config = p.outfeed_config();
      return absl::OkStatus();
    case AttrField::kOutfeedShape:
      if (p.has_outfeed_shape()) {
        PLEXA_ASSIGN_OR_RETURN(a->outfeed_shape,
                               ShapeFromProto(p.outfeed_shape(), where));
      }
      return absl::OkStatus();
    case AttrField::kFusionKind: {
      PLEXA_ASSIGN_OR_RETURN(
          a->fusion_kind,
          ReadEnum(kFusionKinds, p.fusion_kind(), "fusion_kind", where));
      return absl::OkStatus();
    }
    case AttrField::kTriangularSolveOptions: {
      const pb::TriangularSolveOptionsProto& tp = p.triangular_solve_options();
      TriangularSolveOptions& t = a->triangular_solve_options;
      t.left_side = tp.left_side();
      t.lower = tp.lower();
      t.unit_diagonal = tp.unit_diagonal();
      PLEXA_ASSIGN_OR_RETURN(t.transpose_a,
                             ReadEnum(kTransposes, tp.transpose_a(),
                                      "triangular_solve transpose_a", where));
      return absl::OkStatus();
    }
    case AttrField::kCholeskyLower:
      a->cholesky_lower = p.cholesky_lower();
      return absl::OkStatus();
    case AttrField::kFftType: {
      PLEXA_ASSIGN_OR_RETURN(
          a->fft_type, ReadEnum(kFftTypes, p.fft_type(), "fft_type", where));
      return absl::OkStatus();
    }
    case AttrField::kFftLength:
      a->fft_length = ToVector(p.fft_length());
      return absl::OkStatus();
    case AttrField::kK:
      a->k = p.k();
      return absl::OkStatus();
    case AttrField::kLargest:
      a->largest = p.has_largest() ? p.largest() : true;
      return absl::OkStatus();
    case AttrField::kRngDelta:
      a->rng_delta = p.rng_delta();
      return absl::OkStatus();
    case AttrField::kAsyncExecutionThread:
      a->async_execution_thread = p.async_execution_thread();
      return absl::OkStatus();
    case AttrField::kCrossProgramPrefetchIndex:
      if (p.has_cross_program_prefetch_index()) {
        a->cross_program_prefetch_index = p.cross_program_prefetch_index();
      }
      return absl::OkStatus();
    case AttrField::kNumCarries:
      if (p.has_num_carries()) a->num_carries = p.num_carries();
      return absl::OkStatus();
    case AttrField::kIsReverse:
      a->is_reverse = p.is_reverse();
      return absl::OkStatus();
    case AttrField::kShuffleMode: {
      PLEXA_ASSIGN_OR_RETURN(
          a->shuffle_mode,
          ReadEnum(kShuffleModes, p.shuffle_mode(), "shuffle_mode", where));
      return absl::OkStatus();
    }
    case AttrField::kShuffleShifts:
      a->shuffle_shifts = ToVector(p.shuffle_shifts());
      return absl::OkStatus();
    case AttrField::kShuffleIndices:
      if (p.has_shuffle_indices()) {
        PLEXA_ASSIGN_OR_RETURN(Literal literal,
                               LiteralFromProto(p.shuffle_indices(), where));
        a->shuffle_indices =
            std::make_shared<const Literal>(std::move(literal));
      }
      return absl::OkStatus();
    case AttrField::kShuffleMultiShifts:
      if (p.has_shuffle_multi_shifts()) {
        PLEXA_ASSIGN_OR_RETURN(
            Literal literal, LiteralFromProto(p.shuffle_multi_shifts(), where));
        a->shuffle_multi_shifts =
            std::make_shared<const Literal>(std::move(literal));
      }
      return absl::OkStatus();
    case AttrField::kHasDynamicRoot:
      a->has_dynamic_root = p.has_dynamic_root();
      return absl::OkStatus();
    case AttrField::kOpaque:
      for (const pb::OpaqueAttributeProto& o : p.opaque()) {
        a->opaque.emplace_back(o.name(), o.value());
      }
      return absl::OkStatus();
  }
  return Invalid(where, ": unknown attribute field ", static_cast<int>(field));
}

// "computation 'main', instruction 'add.1' (#3)": the name may be empty or
// a duplicate, so the position is given too.
std::string WhereProto(const pb::ComputationProto& c, int index,
                       const pb::InstructionProto& inst) {
  return absl::StrCat("computation '", c.name(), "', instruction '",
                      inst.name(), "' (#", index, ", ", inst.opcode(), ")");
}

}  // namespace

// Every field whatever the opcode: a field the opcode does not use keeps
// what was written (module.proto's contract is field for field).
absl::StatusOr<InstructionAttrs> proto_internal::AttrsFromProto(
    const pb::InstructionAttrsProto& p, absl::string_view where) {
  InstructionAttrs a;
  for (AttrField field : AllAttrFields()) {
    PLEXA_RETURN_IF_ERROR(FieldFromProto(p, field, &a, where));
  }
  return a;
}

absl::StatusOr<std::unique_ptr<Module>> DeserializeModule(
    absl::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Invalid("plexa-module: ", bytes.size(),
                   " bytes is over protobuf's 2 GiB limit");
  }
  pb::ModuleProto mp;
  if (!mp.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Invalid("plexa-module: the ", bytes.size(),
                   " bytes do not parse as a plexa.proto.ModuleProto "
                   "(truncated, corrupted, or not a plexa-module)");
  }
  if (mp.format_version() == 0) {
    return Invalid(
        "plexa-module: no format_version (not a plexa-module, or empty)");
  }
  if (mp.format_version() > kModuleFormatVersion) {
    return Invalid("plexa-module: format version ", mp.format_version(),
                   " is newer than this reader, which reads versions 1 to ",
                   kModuleFormatVersion,
                   "; update the plugin, or send the program as hlo-text");
  }
  const std::string module_where = absl::StrCat("module '", mp.name(), "'");
  if (!mp.has_entry_computation_id()) {
    return Invalid(module_where, " names no entry computation");
  }

  // Pass 1: computations and their instructions, without edges.
  struct Built {
    std::unique_ptr<Computation> computation;
    std::vector<Instruction*> instructions;  // in proto order
  };
  std::vector<Built> built(mp.computations_size());
  absl::flat_hash_map<int64_t, int> computation_index;
  absl::flat_hash_set<std::string> computation_names;
  // Instruction id -> (computation index, instruction).
  absl::flat_hash_map<int64_t, std::pair<int, Instruction*>> instructions;

  for (int ci = 0; ci < mp.computations_size(); ++ci) {
    const pb::ComputationProto& cp = mp.computations(ci);
    if (cp.name().empty()) {
      return Invalid(module_where, ": computation #", ci, " has no name");
    }
    if (!computation_names.insert(cp.name()).second) {
      return Invalid(module_where, ": computation name '", cp.name(),
                     "' is used more than once");
    }
    if (!computation_index.emplace(cp.id(), ci).second) {
      return Invalid(module_where, ": computation id ", cp.id(),
                     " is used by '", cp.name(), "' and '",
                     mp.computations(computation_index[cp.id()]).name(), "'");
    }
    int64_t num_parameters = 0;
    for (const pb::InstructionProto& ip : cp.instructions()) {
      if (ip.opcode() == HloOpcodeString(HloOpcode::kParameter)) {
        ++num_parameters;
      }
    }
    std::vector<bool> parameter_seen(num_parameters, false);
    absl::flat_hash_set<std::string> names;
    Built& b = built[ci];
    b.computation = std::make_unique<Computation>(cp.name());
    b.instructions.reserve(cp.instructions_size());
    for (int ii = 0; ii < cp.instructions_size(); ++ii) {
      const pb::InstructionProto& ip = cp.instructions(ii);
      const std::string where = WhereProto(cp, ii, ip);
      if (ip.name().empty()) return Invalid(where, ": no instruction name");
      if (!names.insert(ip.name()).second) {
        return Invalid(where, ": the name is used more than once in '",
                       cp.name(), "'");
      }
      std::optional<HloOpcode> opcode = StringToHloOpcode(ip.opcode());
      if (!opcode) {
        return Invalid(where, ": unknown opcode '", ip.opcode(), "'");
      }
      if (!ip.has_shape()) return Invalid(where, ": no shape");
      PLEXA_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(ip.shape(), where));
      PLEXA_ASSIGN_OR_RETURN(InstructionAttrs attrs,
                             AttrsFromProto(ip.attrs(), where));
      if (*opcode == HloOpcode::kParameter) {
        // Checked before Computation::AddInstruction sizes its parameter
        // table by this number.
        const int64_t n = attrs.parameter_number;
        if (n < 0 || n >= num_parameters) {
          return Invalid(where, ": parameter number ", n,
                         " is out of range: the computation has ",
                         num_parameters, " parameter(s)");
        }
        if (parameter_seen[n]) {
          return Invalid(where, ": parameter number ", n,
                         " is used more than once");
        }
        parameter_seen[n] = true;
      }
      std::unique_ptr<Instruction> inst =
          Instruction::Create(*opcode, std::move(shape), {}, std::move(attrs));
      inst->set_name(ip.name());
      Instruction* added = b.computation->AddInstruction(std::move(inst));
      if (!instructions.emplace(ip.id(), std::make_pair(ci, added)).second) {
        return Invalid(where, ": instruction id ", ip.id(),
                       " is used more than once in the module");
      }
      b.instructions.push_back(added);
    }
  }

  // Pass 2: operands, callees, control edges, roots, parameter lists.
  auto find_local =
      [&](int ci, int64_t id, absl::string_view role,
          absl::string_view where) -> absl::StatusOr<Instruction*> {
    auto it = instructions.find(id);
    if (it == instructions.end()) {
      return Invalid(where, ": ", role, " id ", id,
                     " names no instruction of the module");
    }
    if (it->second.first != ci) {
      return Invalid(where, ": ", role, " id ", id, " ('",
                     it->second.second->name(), "') belongs to computation '",
                     mp.computations(it->second.first).name(), "'");
    }
    return it->second.second;
  };
  for (int ci = 0; ci < mp.computations_size(); ++ci) {
    const pb::ComputationProto& cp = mp.computations(ci);
    Built& b = built[ci];
    for (int ii = 0; ii < cp.instructions_size(); ++ii) {
      const pb::InstructionProto& ip = cp.instructions(ii);
      Instruction* inst = b.instructions[ii];
      const std::string where = WhereProto(cp, ii, ip);
      for (int64_t id : ip.operand_ids()) {
        PLEXA_ASSIGN_OR_RETURN(Instruction * op,
                               find_local(ci, id, "operand", where));
        inst->AppendOperand(op);
      }
      std::vector<Computation*> called;
      called.reserve(ip.called_computation_ids_size());
      for (int64_t id : ip.called_computation_ids()) {
        auto it = computation_index.find(id);
        if (it == computation_index.end()) {
          return Invalid(where, ": called computation id ", id,
                         " names no computation of the module");
        }
        called.push_back(built[it->second].computation.get());
      }
      inst->set_called_computations(std::move(called));
      for (int64_t id : ip.control_predecessor_ids()) {
        PLEXA_ASSIGN_OR_RETURN(
            Instruction * pred,
            find_local(ci, id, "control predecessor", where));
        pred->AddControlDependencyTo(inst);
      }
    }
    const std::string where = absl::StrCat("computation '", cp.name(), "'");
    if (!cp.has_root_id()) return Invalid(where, ": no root instruction");
    PLEXA_ASSIGN_OR_RETURN(Instruction * root,
                           find_local(ci, cp.root_id(), "root", where));
    b.computation->set_root_instruction(root);
    if (cp.parameter_ids_size() != b.computation->num_parameters()) {
      return Invalid(where, ": lists ", cp.parameter_ids_size(),
                     " parameter(s) but holds ",
                     b.computation->num_parameters(),
                     " parameter instruction(s)");
    }
    for (int n = 0; n < cp.parameter_ids_size(); ++n) {
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * param,
          find_local(ci, cp.parameter_ids(n), "parameter", where));
      if (param != b.computation->parameter_instruction(n)) {
        return Invalid(where, ": parameter ", n, " is listed as '",
                       param->name(), "', which is not parameter(", n, ")");
      }
    }
  }

  auto module = std::make_unique<Module>(mp.name());
  auto entry = computation_index.find(mp.entry_computation_id());
  if (entry == computation_index.end()) {
    return Invalid(module_where, ": entry computation id ",
                   mp.entry_computation_id(),
                   " names no computation of the module");
  }
  for (int ci = 0; ci < mp.computations_size(); ++ci) {
    module->AddComputation(std::move(built[ci].computation),
                           ci == entry->second);
  }
  if (mp.has_entry_computation_layout()) {
    PLEXA_ASSIGN_OR_RETURN(
        ProgramShape layout,
        ProgramShapeFromProto(
            mp.entry_computation_layout(),
            absl::StrCat(module_where, " entry_computation_layout")));
    module->set_entry_computation_layout(std::move(layout));
  }
  for (const pb::OpaqueAttributeProto& o : mp.attributes()) {
    module->mutable_opaque_attributes()->emplace_back(o.name(), o.value());
  }

  PLEXA_RETURN_IF_ERROR(VerifyModule(*module));
  return module;
}

}  // namespace plexa
