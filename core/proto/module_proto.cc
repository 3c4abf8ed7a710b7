// Module <-> plexa.proto.ModuleProto (core/proto/module.proto).
//
// Writing is a walk over the module that assigns dense ids (computations
// and instructions in module order). Reading never trusts the bytes: every
// enum number, id, name, count and size is checked before it is used, and
// nothing is allocated from a size the input claims without that size
// being backed by the input's own bytes (a literal's buffer must be as big
// as its shape says, a parameter number must be below the computation's
// parameter count). Structural problems the verifier finds (cycles, shape
// mismatches, bad signatures) are left to VerifyModule, which runs last;
// nothing before it walks the operand or call graph.
#include "core/proto/module_proto.h"

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
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/verifier/verifier.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

namespace pb = ::plexa::proto;

// Literal bytes travel as Literal::data() holds them; the schema says
// little-endian, which is the host order on every platform Plexa builds
// for. A big-endian port would swap element bytes here.
static_assert(std::endian::native == std::endian::little,
              "the plexa-module format stores literal data little-endian");

// Tuples nested deeper than this (in shapes and literals) are refused on
// both sides, as the text parser does; it also keeps every message well
// inside protobuf's own parse depth limit (100).
constexpr int kMaxNestingDepth = 64;

template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

// ------------------------------------------------------------ enum tables
//
// One table per enumeration, read in both directions, so the in-memory
// enum can be reordered without changing the wire numbers.

template <typename Core, typename Wire>
struct EnumEntry {
  Core core;
  Wire wire;
};

template <typename Core, typename Wire, size_t N>
std::optional<Core> FromWire(const EnumEntry<Core, Wire> (&table)[N],
                             int wire) {
  for (const auto& e : table) {
    if (static_cast<int>(e.wire) == wire) return e.core;
  }
  return std::nullopt;
}

template <typename Core, typename Wire, size_t N>
std::optional<Wire> ToWire(const EnumEntry<Core, Wire> (&table)[N], Core core) {
  for (const auto& e : table) {
    if (e.core == core) return e.wire;
  }
  return std::nullopt;
}

constexpr EnumEntry<PrimitiveType, pb::ElementType> kElementTypes[] = {
    {PrimitiveType::PRED, pb::ELEMENT_TYPE_PRED},
    {PrimitiveType::S8, pb::ELEMENT_TYPE_S8},
    {PrimitiveType::S16, pb::ELEMENT_TYPE_S16},
    {PrimitiveType::S32, pb::ELEMENT_TYPE_S32},
    {PrimitiveType::S64, pb::ELEMENT_TYPE_S64},
    {PrimitiveType::U8, pb::ELEMENT_TYPE_U8},
    {PrimitiveType::U16, pb::ELEMENT_TYPE_U16},
    {PrimitiveType::U32, pb::ELEMENT_TYPE_U32},
    {PrimitiveType::U64, pb::ELEMENT_TYPE_U64},
    {PrimitiveType::F16, pb::ELEMENT_TYPE_F16},
    {PrimitiveType::BF16, pb::ELEMENT_TYPE_BF16},
    {PrimitiveType::F32, pb::ELEMENT_TYPE_F32},
    {PrimitiveType::F64, pb::ELEMENT_TYPE_F64},
    {PrimitiveType::C64, pb::ELEMENT_TYPE_C64},
    {PrimitiveType::C128, pb::ELEMENT_TYPE_C128},
    {PrimitiveType::TUPLE, pb::ELEMENT_TYPE_TUPLE},
    {PrimitiveType::TOKEN, pb::ELEMENT_TYPE_TOKEN},
};

constexpr EnumEntry<PaddingValue, pb::PaddingValue> kPaddingValues[] = {
    {PaddingValue::kZero, pb::PADDING_VALUE_ZERO},
    {PaddingValue::kLowest, pb::PADDING_VALUE_LOWEST},
    {PaddingValue::kHighest, pb::PADDING_VALUE_HIGHEST},
    {PaddingValue::kUnknown, pb::PADDING_VALUE_UNKNOWN},
};

constexpr EnumEntry<ComparisonDirection, pb::ComparisonDirection>
    kComparisonDirections[] = {
        {ComparisonDirection::kEq, pb::COMPARISON_DIRECTION_EQ},
        {ComparisonDirection::kNe, pb::COMPARISON_DIRECTION_NE},
        {ComparisonDirection::kGe, pb::COMPARISON_DIRECTION_GE},
        {ComparisonDirection::kGt, pb::COMPARISON_DIRECTION_GT},
        {ComparisonDirection::kLe, pb::COMPARISON_DIRECTION_LE},
        {ComparisonDirection::kLt, pb::COMPARISON_DIRECTION_LT},
};

constexpr EnumEntry<ComparisonType, pb::ComparisonType> kComparisonTypes[] = {
    {ComparisonType::kDefault, pb::COMPARISON_TYPE_DEFAULT},
    {ComparisonType::kFloat, pb::COMPARISON_TYPE_FLOAT},
    {ComparisonType::kFloatTotalOrder, pb::COMPARISON_TYPE_FLOAT_TOTAL_ORDER},
    {ComparisonType::kSigned, pb::COMPARISON_TYPE_SIGNED},
    {ComparisonType::kUnsigned, pb::COMPARISON_TYPE_UNSIGNED},
};

constexpr EnumEntry<RandomDistribution, pb::RandomDistribution>
    kDistributions[] = {
        {RandomDistribution::kUniform, pb::RANDOM_DISTRIBUTION_UNIFORM},
        {RandomDistribution::kNormal, pb::RANDOM_DISTRIBUTION_NORMAL},
};

constexpr EnumEntry<RandomAlgorithm, pb::RandomAlgorithm> kAlgorithms[] = {
    {RandomAlgorithm::kDefault, pb::RANDOM_ALGORITHM_DEFAULT},
    {RandomAlgorithm::kThreeFry, pb::RANDOM_ALGORITHM_THREE_FRY},
    {RandomAlgorithm::kPhilox, pb::RANDOM_ALGORITHM_PHILOX},
};

constexpr EnumEntry<FusionKind, pb::FusionKind> kFusionKinds[] = {
    {FusionKind::kLoop, pb::FUSION_KIND_LOOP},
    {FusionKind::kInput, pb::FUSION_KIND_INPUT},
    {FusionKind::kOutput, pb::FUSION_KIND_OUTPUT},
    {FusionKind::kCustom, pb::FUSION_KIND_CUSTOM},
};

constexpr EnumEntry<CustomCallApiVersion, pb::CustomCallApiVersion>
    kApiVersions[] = {
        {CustomCallApiVersion::kUnspecified,
         pb::CUSTOM_CALL_API_VERSION_UNSPECIFIED},
        {CustomCallApiVersion::kOriginal, pb::CUSTOM_CALL_API_VERSION_ORIGINAL},
        {CustomCallApiVersion::kStatusReturning,
         pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING},
        {CustomCallApiVersion::kStatusReturningUnified,
         pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING_UNIFIED},
        {CustomCallApiVersion::kTypedFfi,
         pb::CUSTOM_CALL_API_VERSION_TYPED_FFI},
};

constexpr EnumEntry<TriangularSolveTranspose, pb::TriangularSolveTranspose>
    kTransposes[] = {
        {TriangularSolveTranspose::kNoTranspose,
         pb::TRIANGULAR_SOLVE_NO_TRANSPOSE},
        {TriangularSolveTranspose::kTranspose, pb::TRIANGULAR_SOLVE_TRANSPOSE},
        {TriangularSolveTranspose::kAdjoint, pb::TRIANGULAR_SOLVE_ADJOINT},
};

// Writes `core` through `table` into *out, or fails naming the field (an
// in-memory value outside its enumeration).
template <typename Core, typename Wire, size_t N, typename Setter>
absl::Status WriteEnum(const EnumEntry<Core, Wire> (&table)[N], Core core,
                       absl::string_view field, absl::string_view where,
                       Setter set) {
  std::optional<Wire> wire = ToWire(table, core);
  if (!wire) {
    return Invalid(where, ": cannot serialize ", field, " ",
                   static_cast<int>(core), ": not a known value");
  }
  set(*wire);
  return absl::OkStatus();
}

template <typename Core, typename Wire, size_t N>
absl::StatusOr<Core> ReadEnum(const EnumEntry<Core, Wire> (&table)[N], int wire,
                              absl::string_view field,
                              absl::string_view where) {
  std::optional<Core> core = FromWire(table, wire);
  if (!core) {
    return Invalid(where, ": unknown ", field, " ", wire,
                   " (written by a newer Plexa, or corrupted)");
  }
  return *core;
}

template <typename T>
std::vector<int64_t> ToVector(const T& repeated) {
  return std::vector<int64_t>(repeated.begin(), repeated.end());
}

template <typename C, typename R>
void AppendAll(const C& values, R* repeated) {
  for (int64_t v : values) repeated->Add(v);
}

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

absl::Status AttrsToProto(const InstructionAttrs& a,
                          pb::InstructionAttrsProto* p,
                          absl::string_view where) {
  AppendAll(a.dimensions, p->mutable_dimensions());
  p->set_iota_dimension(a.iota_dimension);
  p->set_parameter_number(a.parameter_number);
  p->set_tuple_index(a.tuple_index);

  if (a.literal != nullptr) {
    PLEXA_RETURN_IF_ERROR(
        LiteralToProto(*a.literal, p->mutable_literal(), where));
  }

  if (a.window) {
    pb::WindowProto* w = p->mutable_window();
    for (const WindowDimension& d : a.window->dimensions) {
      pb::WindowDimensionProto* wd = w->add_dimensions();
      if (d.size != 1) wd->set_size(d.size);
      if (d.stride != 1) wd->set_stride(d.stride);
      wd->set_padding_low(d.padding_low);
      wd->set_padding_high(d.padding_high);
      if (d.window_dilation != 1) wd->set_window_dilation(d.window_dilation);
      if (d.base_dilation != 1) wd->set_base_dilation(d.base_dilation);
      wd->set_window_reversal(d.window_reversal);
    }
  }
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
    cp->set_kernel_input_feature_dimension(c.kernel_input_feature_dimension);
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
  if (a.feature_group_count != 1) {
    p->set_feature_group_count(a.feature_group_count);
  }
  if (a.batch_group_count != 1) p->set_batch_group_count(a.batch_group_count);

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

  if (a.padding_config) {
    pb::PaddingConfigProto* pc = p->mutable_padding_config();
    for (const PaddingDimension& d : a.padding_config->dimensions) {
      pb::PaddingDimensionProto* dp = pc->add_dimensions();
      dp->set_edge_padding_low(d.edge_padding_low);
      dp->set_edge_padding_high(d.edge_padding_high);
      dp->set_interior_padding(d.interior_padding);
    }
  }

  for (const SliceDimension& s : a.slice) {
    pb::SliceDimensionProto* sp = p->add_slice();
    sp->set_start(s.start);
    sp->set_limit(s.limit);
    if (s.stride != 1) sp->set_stride(s.stride);
  }

  AppendAll(a.dynamic_slice_sizes, p->mutable_dynamic_slice_sizes());

  if (a.gather_dimension_numbers) {
    const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
    pb::GatherDimensionNumbersProto* gp = p->mutable_gather_dimension_numbers();
    AppendAll(g.offset_dims, gp->mutable_offset_dims());
    AppendAll(g.collapsed_slice_dims, gp->mutable_collapsed_slice_dims());
    AppendAll(g.start_index_map, gp->mutable_start_index_map());
    gp->set_index_vector_dim(g.index_vector_dim);
    AppendAll(g.operand_batching_dims, gp->mutable_operand_batching_dims());
    AppendAll(g.start_indices_batching_dims,
              gp->mutable_start_indices_batching_dims());
  }
  AppendAll(a.gather_slice_sizes, p->mutable_gather_slice_sizes());
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
  p->set_indices_are_sorted(a.indices_are_sorted);
  p->set_unique_indices(a.unique_indices);

  PLEXA_RETURN_IF_ERROR(WriteEnum(
      kComparisonDirections, a.comparison_direction, "comparison_direction",
      where,
      [&](pb::ComparisonDirection v) { p->set_comparison_direction(v); }));
  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kComparisonTypes, a.comparison_type, "comparison_type", where,
                [&](pb::ComparisonType v) { p->set_comparison_type(v); }));

  p->set_epsilon(a.epsilon);
  p->set_feature_index(a.feature_index);
  p->set_exponent_bits(a.exponent_bits);
  p->set_mantissa_bits(a.mantissa_bits);

  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kDistributions, a.distribution, "distribution", where,
                [&](pb::RandomDistribution v) { p->set_distribution(v); }));
  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kAlgorithms, a.rng_algorithm, "rng_algorithm", where,
                [&](pb::RandomAlgorithm v) { p->set_rng_algorithm(v); }));
  p->set_is_stable(a.is_stable);

  p->set_custom_call_target(a.custom_call_target);
  p->set_backend_config(a.backend_config);
  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kApiVersions, a.api_version, "api_version", where,
                [&](pb::CustomCallApiVersion v) { p->set_api_version(v); }));
  p->set_has_layout_constraints(a.has_layout_constraints);
  for (const Shape& s : a.operand_shapes_with_layout) {
    PLEXA_RETURN_IF_ERROR(
        ShapeToProto(s, p->add_operand_shapes_with_layout(), where));
  }
  p->set_custom_call_has_side_effect(a.custom_call_has_side_effect);

  for (const std::vector<int64_t>& group : a.replica_groups) {
    AppendAll(group, p->add_replica_groups()->mutable_replica_ids());
  }
  if (a.channel_id) p->set_channel_id(*a.channel_id);
  p->set_use_global_device_ids(a.use_global_device_ids);
  p->set_constrain_layout(a.constrain_layout);

  p->set_infeed_config(a.infeed_config);
  p->set_outfeed_config(a.outfeed_config);
  if (a.outfeed_shape) {
    PLEXA_RETURN_IF_ERROR(
        ShapeToProto(*a.outfeed_shape, p->mutable_outfeed_shape(), where));
  }

  PLEXA_RETURN_IF_ERROR(
      WriteEnum(kFusionKinds, a.fusion_kind, "fusion_kind", where,
                [&](pb::FusionKind v) { p->set_fusion_kind(v); }));

  const TriangularSolveOptions& t = a.triangular_solve_options;
  if (t != TriangularSolveOptions()) {
    pb::TriangularSolveOptionsProto* tp = p->mutable_triangular_solve_options();
    tp->set_left_side(t.left_side);
    tp->set_lower(t.lower);
    tp->set_unit_diagonal(t.unit_diagonal);
    PLEXA_RETURN_IF_ERROR(WriteEnum(
        kTransposes, t.transpose_a, "triangular_solve transpose_a", where,
        [&](pb::TriangularSolveTranspose v) { tp->set_transpose_a(v); }));
  }
  p->set_cholesky_lower(a.cholesky_lower);

  for (const auto& [name, value] : a.opaque) {
    pb::OpaqueAttributeProto* o = p->add_opaque();
    o->set_name(name);
    o->set_value(value);
  }
  return absl::OkStatus();
}

std::string Where(const Computation& c, const Instruction& inst) {
  return absl::StrCat("computation '", c.name(), "', instruction '",
                      inst.name(), "' (", HloOpcodeString(inst.opcode()), ")");
}

}  // namespace

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

absl::StatusOr<InstructionAttrs> AttrsFromProto(
    const pb::InstructionAttrsProto& p, absl::string_view where) {
  InstructionAttrs a;
  a.dimensions = ToVector(p.dimensions());
  a.iota_dimension = p.iota_dimension();
  a.parameter_number = p.parameter_number();
  a.tuple_index = p.tuple_index();

  if (p.has_literal()) {
    PLEXA_ASSIGN_OR_RETURN(Literal literal,
                           LiteralFromProto(p.literal(), where));
    a.literal = std::make_shared<const Literal>(std::move(literal));
  }

  if (p.has_window()) {
    Window w;
    for (const pb::WindowDimensionProto& d : p.window().dimensions()) {
      WindowDimension wd;
      wd.size = d.has_size() ? d.size() : 1;
      wd.stride = d.has_stride() ? d.stride() : 1;
      wd.padding_low = d.padding_low();
      wd.padding_high = d.padding_high();
      wd.window_dilation = d.has_window_dilation() ? d.window_dilation() : 1;
      wd.base_dilation = d.has_base_dilation() ? d.base_dilation() : 1;
      wd.window_reversal = d.window_reversal();
      w.dimensions.push_back(wd);
    }
    a.window = std::move(w);
  }
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
    c.output_feature_dimension =
        cp.has_output_feature_dimension() ? cp.output_feature_dimension() : 1;
    c.output_spatial_dimensions = ToVector(cp.output_spatial_dimensions());
    a.convolution_dimension_numbers = std::move(c);
  }
  a.feature_group_count =
      p.has_feature_group_count() ? p.feature_group_count() : 1;
  a.batch_group_count = p.has_batch_group_count() ? p.batch_group_count() : 1;

  if (p.has_dot_dimension_numbers()) {
    const pb::DotDimensionNumbersProto& dp = p.dot_dimension_numbers();
    DotDimensionNumbers d;
    d.lhs_batch_dimensions = ToVector(dp.lhs_batch_dimensions());
    d.rhs_batch_dimensions = ToVector(dp.rhs_batch_dimensions());
    d.lhs_contracting_dimensions = ToVector(dp.lhs_contracting_dimensions());
    d.rhs_contracting_dimensions = ToVector(dp.rhs_contracting_dimensions());
    a.dot_dimension_numbers = std::move(d);
  }

  if (p.has_padding_config()) {
    PaddingConfig pc;
    for (const pb::PaddingDimensionProto& d : p.padding_config().dimensions()) {
      pc.dimensions.push_back(PaddingDimension{
          d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
    }
    a.padding_config = std::move(pc);
  }

  for (const pb::SliceDimensionProto& s : p.slice()) {
    a.slice.push_back(
        SliceDimension{s.start(), s.limit(), s.has_stride() ? s.stride() : 1});
  }

  a.dynamic_slice_sizes = ToVector(p.dynamic_slice_sizes());

  if (p.has_gather_dimension_numbers()) {
    const pb::GatherDimensionNumbersProto& gp = p.gather_dimension_numbers();
    GatherDimensionNumbers g;
    g.offset_dims = ToVector(gp.offset_dims());
    g.collapsed_slice_dims = ToVector(gp.collapsed_slice_dims());
    g.start_index_map = ToVector(gp.start_index_map());
    g.index_vector_dim = gp.index_vector_dim();
    g.operand_batching_dims = ToVector(gp.operand_batching_dims());
    g.start_indices_batching_dims = ToVector(gp.start_indices_batching_dims());
    a.gather_dimension_numbers = std::move(g);
  }
  a.gather_slice_sizes = ToVector(p.gather_slice_sizes());
  if (p.has_scatter_dimension_numbers()) {
    const pb::ScatterDimensionNumbersProto& sp = p.scatter_dimension_numbers();
    ScatterDimensionNumbers s;
    s.update_window_dims = ToVector(sp.update_window_dims());
    s.inserted_window_dims = ToVector(sp.inserted_window_dims());
    s.scatter_dims_to_operand_dims =
        ToVector(sp.scatter_dims_to_operand_dims());
    s.index_vector_dim = sp.index_vector_dim();
    s.input_batching_dims = ToVector(sp.input_batching_dims());
    s.scatter_indices_batching_dims =
        ToVector(sp.scatter_indices_batching_dims());
    a.scatter_dimension_numbers = std::move(s);
  }
  a.indices_are_sorted = p.indices_are_sorted();
  a.unique_indices = p.unique_indices();

  PLEXA_ASSIGN_OR_RETURN(
      a.comparison_direction,
      ReadEnum(kComparisonDirections, p.comparison_direction(),
               "comparison_direction", where));
  PLEXA_ASSIGN_OR_RETURN(a.comparison_type,
                         ReadEnum(kComparisonTypes, p.comparison_type(),
                                  "comparison_type", where));

  a.epsilon = p.epsilon();
  a.feature_index = p.feature_index();
  a.exponent_bits = p.exponent_bits();
  a.mantissa_bits = p.mantissa_bits();

  PLEXA_ASSIGN_OR_RETURN(
      a.distribution,
      ReadEnum(kDistributions, p.distribution(), "distribution", where));
  PLEXA_ASSIGN_OR_RETURN(
      a.rng_algorithm,
      ReadEnum(kAlgorithms, p.rng_algorithm(), "rng_algorithm", where));
  a.is_stable = p.is_stable();

  a.custom_call_target = p.custom_call_target();
  a.backend_config = p.backend_config();
  PLEXA_ASSIGN_OR_RETURN(a.api_version,
                         ReadEnum(kApiVersions, p.api_version(),
                                  "custom-call api_version", where));
  a.has_layout_constraints = p.has_layout_constraints();
  for (const pb::ShapeProto& s : p.operand_shapes_with_layout()) {
    PLEXA_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(s, where));
    a.operand_shapes_with_layout.push_back(std::move(shape));
  }
  a.custom_call_has_side_effect = p.custom_call_has_side_effect();

  for (const pb::ReplicaGroupProto& g : p.replica_groups()) {
    a.replica_groups.push_back(ToVector(g.replica_ids()));
  }
  if (p.has_channel_id()) a.channel_id = p.channel_id();
  a.use_global_device_ids = p.use_global_device_ids();
  a.constrain_layout = p.constrain_layout();

  a.infeed_config = p.infeed_config();
  a.outfeed_config = p.outfeed_config();
  if (p.has_outfeed_shape()) {
    PLEXA_ASSIGN_OR_RETURN(a.outfeed_shape,
                           ShapeFromProto(p.outfeed_shape(), where));
  }

  PLEXA_ASSIGN_OR_RETURN(a.fusion_kind, ReadEnum(kFusionKinds, p.fusion_kind(),
                                                 "fusion_kind", where));

  const pb::TriangularSolveOptionsProto& tp = p.triangular_solve_options();
  a.triangular_solve_options.left_side = tp.left_side();
  a.triangular_solve_options.lower = tp.lower();
  a.triangular_solve_options.unit_diagonal = tp.unit_diagonal();
  PLEXA_ASSIGN_OR_RETURN(a.triangular_solve_options.transpose_a,
                         ReadEnum(kTransposes, tp.transpose_a(),
                                  "triangular_solve transpose_a", where));
  a.cholesky_lower = p.cholesky_lower();

  for (const pb::OpaqueAttributeProto& o : p.opaque()) {
    a.opaque.emplace_back(o.name(), o.value());
  }
  return a;
}

// "computation 'main', instruction 'add.1' (#3)": the name may be empty or
// a duplicate, so the position is given too.
std::string WhereProto(const pb::ComputationProto& c, int index,
                       const pb::InstructionProto& inst) {
  return absl::StrCat("computation '", c.name(), "', instruction '",
                      inst.name(), "' (#", index, ", ", inst.opcode(), ")");
}

}  // namespace

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
