#include "core/xla_proto/xla_proto_values.h"

#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/infer/shape_inference.h"
#include "core/ir/channels.h"
#include "core/ir/computation.h"
#include "core/shape/shape_util.h"

namespace plexa::xla_proto {
namespace {

namespace pb = ::plexa::xla_pb;
using absl::StrCat;

absl::Status Bad(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(StrCat(field, ": ", what));
}

// XLA's PrimitiveType numbers (xla_data.proto) to Plexa's element types.
std::optional<PrimitiveType> ElementTypeOf(int v) {
  switch (v) {
    case pb::PRED:
      return PrimitiveType::PRED;
    case pb::S2:
      return PrimitiveType::S2;
    case pb::S4:
      return PrimitiveType::S4;
    case pb::S8:
      return PrimitiveType::S8;
    case pb::S16:
      return PrimitiveType::S16;
    case pb::S32:
      return PrimitiveType::S32;
    case pb::S64:
      return PrimitiveType::S64;
    case pb::U2:
      return PrimitiveType::U2;
    case pb::U4:
      return PrimitiveType::U4;
    case pb::U8:
      return PrimitiveType::U8;
    case pb::U16:
      return PrimitiveType::U16;
    case pb::U32:
      return PrimitiveType::U32;
    case pb::U64:
      return PrimitiveType::U64;
    case pb::F16:
      return PrimitiveType::F16;
    case pb::F32:
      return PrimitiveType::F32;
    case pb::BF16:
      return PrimitiveType::BF16;
    case pb::F64:
      return PrimitiveType::F64;
    case pb::F8E5M2:
      return PrimitiveType::F8E5M2;
    case pb::F8E4M3:
      return PrimitiveType::F8E4M3;
    case pb::F8E4M3FN:
      return PrimitiveType::F8E4M3FN;
    case pb::F8E4M3B11FNUZ:
      return PrimitiveType::F8E4M3B11FNUZ;
    case pb::F8E3M4:
      return PrimitiveType::F8E3M4;
    case pb::F8E5M2FNUZ:
      return PrimitiveType::F8E5M2FNUZ;
    case pb::F8E4M3FNUZ:
      return PrimitiveType::F8E4M3FNUZ;
    case pb::F4E2M1FN:
      return PrimitiveType::F4E2M1FN;
    case pb::F8E8M0FNU:
      return PrimitiveType::F8E8M0FNU;
    case pb::C64:
      return PrimitiveType::C64;
    case pb::C128:
      return PrimitiveType::C128;
    case pb::TUPLE:
      return PrimitiveType::TUPLE;
    case pb::TOKEN:
      return PrimitiveType::TOKEN;
    default:
      return std::nullopt;
  }
}

template <typename R>
std::vector<int64_t> Ints(const R& r) {
  return std::vector<int64_t>(r.begin(), r.end());
}

// Elements of `shape` (an array), or an error past 2^32 (a constant that
// large is not a program Plexa reads; the check also guards the product).
absl::StatusOr<int64_t> CheckedElements(const Shape& shape,
                                        absl::string_view field) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d != 0 && n > (int64_t{1} << 32) / d) {
      return Bad(field, StrCat("literal of ", shape.ToString(),
                               " is too large (more than 2^32 elements)"));
    }
    n *= d;
  }
  return n;
}

// The bytes a LiteralProto holds for an array of `type`, and the bytes per
// element they come in.
struct Source {
  const void* data = nullptr;
  size_t bytes = 0;
  size_t width = 0;
  const char* name = "";
};

template <typename R>
Source Repeated(const R& r, const char* name, size_t per_element = 1) {
  using T = typename R::value_type;
  return Source{r.data(), static_cast<size_t>(r.size()) * sizeof(T),
                sizeof(T) * per_element, name};
}
Source Bytes(const std::string& s, const char* name, size_t width) {
  return Source{s.data(), s.size(), width, name};
}

std::optional<Source> SourceOf(const pb::LiteralProto& p, PrimitiveType t) {
  switch (t) {
    case PrimitiveType::S8:
      return Bytes(p.s8s(), "s8s", 1);
    case PrimitiveType::U8:
      return Bytes(p.u8s(), "u8s", 1);
    case PrimitiveType::S4:
      return Bytes(p.s4s(), "s4s", 1);
    case PrimitiveType::U4:
      return Bytes(p.u4s(), "u4s", 1);
    case PrimitiveType::S2:
      return Bytes(p.s2s(), "s2s", 1);
    case PrimitiveType::U2:
      return Bytes(p.u2s(), "u2s", 1);
    case PrimitiveType::S16:
      return Bytes(p.s16s(), "s16s", 2);
    case PrimitiveType::U16:
      return Bytes(p.u16s(), "u16s", 2);
    case PrimitiveType::F16:
      return Bytes(p.f16s(), "f16s", 2);
    case PrimitiveType::BF16:
      return Bytes(p.bf16s(), "bf16s", 2);
    case PrimitiveType::S32:
      return Repeated(p.s32s(), "s32s");
    case PrimitiveType::U32:
      return Repeated(p.u32s(), "u32s");
    case PrimitiveType::S64:
      return Repeated(p.s64s(), "s64s");
    case PrimitiveType::U64:
      return Repeated(p.u64s(), "u64s");
    case PrimitiveType::F32:
      return Repeated(p.f32s(), "f32s");
    case PrimitiveType::F64:
      return Repeated(p.f64s(), "f64s");
    case PrimitiveType::C64:
      return Repeated(p.c64s(), "c64s", 2);
    case PrimitiveType::C128:
      return Repeated(p.c128s(), "c128s", 2);
    case PrimitiveType::F8E5M2:
      return Bytes(p.f8e5m2s(), "f8e5m2s", 1);
    case PrimitiveType::F8E4M3:
      return Bytes(p.f8e4m3s(), "f8e4m3s", 1);
    case PrimitiveType::F8E4M3FN:
      return Bytes(p.f8e4m3fns(), "f8e4m3fns", 1);
    case PrimitiveType::F8E4M3B11FNUZ:
      return Bytes(p.f8e4m3b11fnuzs(), "f8e4m3b11fnuzs", 1);
    case PrimitiveType::F8E3M4:
      return Bytes(p.f8e3m4s(), "f8e3m4s", 1);
    case PrimitiveType::F8E5M2FNUZ:
      return Bytes(p.f8e5m2fnuzs(), "f8e5m2fnuzs", 1);
    case PrimitiveType::F8E4M3FNUZ:
      return Bytes(p.f8e4m3fnuzs(), "f8e4m3fnuzs", 1);
    case PrimitiveType::F4E2M1FN:
      return Bytes(p.f4e2m1fns(), "f4e2m1fns", 1);
    case PrimitiveType::F8E8M0FNU:
      return Bytes(p.f8e8m0fnus(), "f8e8m0fnus", 1);
    default:
      return std::nullopt;
  }
}

// XLA's IotaReplicaGroupList: iota(G * D) reshaped to `reshape_dims`,
// transposed by `perm`, read in row-major order as G groups of D.
absl::StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaGroups(
    const pb::IotaReplicaGroupListProto& p) {
  constexpr absl::string_view kField =
      "collective_device_list.iota_replica_group_list";
  const int64_t groups = p.num_replica_groups();
  const int64_t per_group = p.num_devices_per_group();
  if (groups < 0 || per_group < 0 || groups > (1 << 20) ||
      per_group > (1 << 20) || groups * per_group > (1 << 20)) {
    return Bad(kField, StrCat("num_replica_groups ", groups,
                              " x num_devices_per_group ", per_group,
                              " is negative or too large"));
  }
  std::vector<int64_t> dims = Ints(p.iota_reshape_dims());
  if (dims.empty()) dims = {groups * per_group};
  std::vector<int64_t> perm(p.iota_transpose_perm().begin(),
                            p.iota_transpose_perm().end());
  if (perm.empty()) {
    for (size_t i = 0; i < dims.size(); ++i) perm.push_back(i);
  }
  int64_t total = 1;
  for (int64_t d : dims) {
    if (d < 0 || d > groups * per_group) {
      return Bad(kField,
                 StrCat("iota_reshape_dims {", absl::StrJoin(dims, ","),
                        "} do not hold ", groups * per_group, " devices"));
    }
    total *= d;
  }
  std::vector<bool> seen(dims.size(), false);
  bool perm_ok = perm.size() == dims.size();
  for (int64_t q : perm) {
    perm_ok =
        perm_ok && q >= 0 && q < static_cast<int64_t>(dims.size()) && !seen[q];
    if (perm_ok) seen[q] = true;
  }
  if (total != groups * per_group || !perm_ok) {
    return Bad(kField,
               StrCat("iota_reshape_dims {", absl::StrJoin(dims, ","),
                      "} with iota_transpose_perm {", absl::StrJoin(perm, ","),
                      "} do not describe ", groups, " groups of ", per_group));
  }
  // Row-major strides of the reshaped iota; walk the transposed array.
  std::vector<int64_t> stride(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    stride[i] = stride[i + 1] * dims[i + 1];
  }
  std::vector<int64_t> index(dims.size(), 0);  // in transposed order
  std::vector<std::vector<int64_t>> out(groups);
  for (int64_t k = 0; k < total; ++k) {
    int64_t v = 0;
    for (size_t i = 0; i < perm.size(); ++i) v += index[i] * stride[perm[i]];
    out[k / per_group].push_back(v);
    for (int64_t i = static_cast<int64_t>(perm.size()) - 1; i >= 0; --i) {
      if (++index[i] < dims[perm[i]]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Shape> ShapeFromProto(const pb::ShapeProto& proto,
                                     absl::string_view field) {
  std::optional<PrimitiveType> type = ElementTypeOf(proto.element_type());
  if (!type) {
    return absl::UnimplementedError(
        StrCat(field, ": element_type ", proto.element_type(),
               proto.element_type() == pb::OPAQUE_TYPE ? " (OPAQUE_TYPE)" : "",
               " is not an element type Plexa has"));
  }
  if (*type == PrimitiveType::TUPLE) {
    std::vector<Shape> elements;
    for (int i = 0; i < proto.tuple_shapes_size(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(
          Shape s, ShapeFromProto(proto.tuple_shapes(i),
                                  StrCat(field, ".tuple_shapes[", i, "]")));
      elements.push_back(std::move(s));
    }
    return Shape(std::move(elements));
  }
  if (proto.tuple_shapes_size() > 0) {
    return Bad(field, "tuple_shapes given for a shape that is not a TUPLE");
  }
  if (*type == PrimitiveType::TOKEN) return Shape(PrimitiveType::TOKEN, {});
  for (int i = 0; i < proto.dimensions_size(); ++i) {
    if (proto.dimensions(i) < 0) {
      return Bad(field, StrCat("dimensions[", i, "] is ", proto.dimensions(i)));
    }
  }
  if (proto.is_dynamic_dimension_size() != 0 &&
      proto.is_dynamic_dimension_size() != proto.dimensions_size()) {
    return Bad(field, StrCat("is_dynamic_dimension has ",
                             proto.is_dynamic_dimension_size(), " entries for ",
                             proto.dimensions_size(), " dimensions"));
  }
  Shape shape(*type, Ints(proto.dimensions()));
  // A dynamic dimension's size is its bound: Plexa's `<=N`.
  for (int i = 0; i < proto.is_dynamic_dimension_size(); ++i) {
    shape.set_dynamic_dimension(i, proto.is_dynamic_dimension(i));
  }
  if (proto.has_layout()) {
    const pb::LayoutProto& l = proto.layout();
    Layout layout(Ints(l.minor_to_major()));
    for (const pb::TileProto& t : l.tiles())
      layout.add_tile(Tile(Ints(t.dimensions())));
    layout.set_element_size_in_bits(l.element_size_in_bits());
    layout.set_memory_space(l.memory_space());
    shape.set_layout(std::move(layout));
  }
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) return Bad(field, valid.message());
  return shape;
}

absl::StatusOr<Literal> LiteralFromProto(const pb::LiteralProto& proto,
                                         absl::string_view field) {
  if (!proto.has_shape()) return Bad(field, "the literal has no shape");
  PLEXA_ASSIGN_OR_RETURN(
      Shape shape, ShapeFromProto(proto.shape(), StrCat(field, ".shape")));
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_shapes_size()) {
      return Bad(field,
                 StrCat("tuple_literals has ", proto.tuple_literals_size(),
                        " elements for the shape ", shape.ToString()));
    }
    std::vector<Literal> elements;
    for (int i = 0; i < proto.tuple_literals_size(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(
          Literal e,
          LiteralFromProto(proto.tuple_literals(i),
                           StrCat(field, ".tuple_literals[", i, "]")));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (shape.IsToken()) return Literal(shape);
  // The values are in the order of the layout's minor_to_major (XLA writes
  // a literal's buffer as it is); tiles and element sizes do not apply to
  // literal data.
  Shape dense = shape;
  if (shape.has_layout()) {
    dense.set_layout(Layout(shape.layout().minor_to_major()));
  }
  PLEXA_ASSIGN_OR_RETURN(int64_t n, CheckedElements(dense, field));
  const PrimitiveType t = shape.element_type();
  // The counts are checked before anything is allocated: the values are in
  // the file, so a shape larger than the file is refused here.
  if (t == PrimitiveType::PRED) {
    if (proto.preds_size() != n) {
      return Bad(field, StrCat("preds has ", proto.preds_size(), " values for ",
                               shape.ToString(), " (", n, " elements)"));
    }
    Literal lit(dense);
    absl::Span<uint8_t> out = lit.mutable_data();
    for (int64_t i = 0; i < n; ++i) out[i] = proto.preds(i) ? 1 : 0;
    return lit;
  }
  std::optional<Source> src = SourceOf(proto, t);
  if (!src) return Bad(field, StrCat("no values for ", shape.ToString()));
  if (src->bytes != static_cast<size_t>(n) * src->width) {
    return Bad(field,
               StrCat(src->name, " holds ", src->bytes / src->width,
                      src->bytes % src->width ? " and a part" : "",
                      " values for ", shape.ToString(), " (", n, " elements)",
                      primitive_util::IsSubByteType(t)
                          ? "; a byte per element is read (as XLA's literals "
                            "hold them), not packed values"
                          : ""));
  }
  Literal lit(dense);
  absl::Span<uint8_t> out = lit.mutable_data();
  if (out.size() != src->bytes) {
    return Bad(field, StrCat("the values of ", shape.ToString(), " take ",
                             out.size(), " bytes, not ", src->bytes));
  }
  if (src->bytes > 0) std::memcpy(out.data(), src->data, src->bytes);
  // Sub-byte integers: the value in the low bits, sign-extended (s4, s2).
  const int bits = static_cast<int>(primitive_util::BitWidth(t));
  if (primitive_util::IsSubByteType(t) && primitive_util::IsIntegralType(t)) {
    for (uint8_t& b : out) {
      const uint8_t low = b & ((1u << bits) - 1);
      const bool neg =
          primitive_util::IsSignedIntegralType(t) && (low >> (bits - 1)) != 0;
      b = neg ? static_cast<uint8_t>(low | ~((1u << bits) - 1)) : low;
    }
  }
  return lit;
}

absl::StatusOr<InstructionAttrs> AttrsFromProto(
    HloOpcode op, const pb::HloInstructionProto& p) {
  InstructionAttrs a;
  a.dimensions = Ints(p.dimensions());
  if (op == HloOpcode::kIota) {
    if (p.dimensions_size() != 1) {
      return Bad("dimensions", StrCat("iota keeps its iota_dimension as the "
                                      "one element of dimensions; got ",
                                      p.dimensions_size()));
    }
    a.iota_dimension = p.dimensions(0);
    a.dimensions.clear();
  }
  a.parameter_number = p.parameter_number();
  a.tuple_index = p.tuple_index();
  if (op == HloOpcode::kConstant) {
    if (!p.has_literal()) return Bad("literal", "a constant needs a literal");
    PLEXA_ASSIGN_OR_RETURN(Literal lit,
                           LiteralFromProto(p.literal(), "literal"));
    a.literal = std::make_shared<const Literal>(std::move(lit));
  }
  if (p.has_window()) {
    Window w;
    for (const pb::WindowDimension& d : p.window().dimensions()) {
      w.dimensions.push_back(WindowDimension{
          d.size(), d.stride(), d.padding_low(), d.padding_high(),
          d.window_dilation(), d.base_dilation(), d.window_reversal()});
    }
    a.window = std::move(w);
  }
  if (p.has_convolution_dimension_numbers()) {
    const pb::ConvolutionDimensionNumbers& c =
        p.convolution_dimension_numbers();
    ConvolutionDimensionNumbers d;
    d.input_batch_dimension = c.input_batch_dimension();
    d.input_feature_dimension = c.input_feature_dimension();
    d.input_spatial_dimensions = Ints(c.input_spatial_dimensions());
    d.kernel_input_feature_dimension = c.kernel_input_feature_dimension();
    d.kernel_output_feature_dimension = c.kernel_output_feature_dimension();
    d.kernel_spatial_dimensions = Ints(c.kernel_spatial_dimensions());
    d.output_batch_dimension = c.output_batch_dimension();
    d.output_feature_dimension = c.output_feature_dimension();
    d.output_spatial_dimensions = Ints(c.output_spatial_dimensions());
    a.convolution_dimension_numbers = std::move(d);
  }
  // 0 is proto3's "not written": XLA reads it as 1.
  a.feature_group_count =
      p.feature_group_count() == 0 ? 1 : p.feature_group_count();
  a.batch_group_count = p.batch_group_count() == 0 ? 1 : p.batch_group_count();
  auto read_dot = [](const pb::DotDimensionNumbers& d) {
    DotDimensionNumbers dn;
    dn.lhs_batch_dimensions = Ints(d.lhs_batch_dimensions());
    dn.rhs_batch_dimensions = Ints(d.rhs_batch_dimensions());
    dn.lhs_contracting_dimensions = Ints(d.lhs_contracting_dimensions());
    dn.rhs_contracting_dimensions = Ints(d.rhs_contracting_dimensions());
    return dn;
  };
  if (p.has_dot_dimension_numbers()) {
    a.dot_dimension_numbers = read_dot(p.dot_dimension_numbers());
  }
  // ragged-dot: XLA's RaggedDotDimensionNumbers (field 90) holds the dot
  // numbers and the ragged and group dimensions.
  if (op == HloOpcode::kRaggedDot && p.has_ragged_dot_dimension_numbers()) {
    const pb::RaggedDotDimensionNumbers& r = p.ragged_dot_dimension_numbers();
    a.dot_dimension_numbers = read_dot(r.dot_dimension_numbers());
    a.lhs_ragged_dimensions = Ints(r.lhs_ragged_dimensions());
    a.rhs_group_dimensions = Ints(r.rhs_group_dimensions());
  }
  if (p.has_padding_config()) {
    PaddingConfig c;
    for (const auto& d : p.padding_config().dimensions()) {
      c.dimensions.push_back(PaddingDimension{
          d.edge_padding_low(), d.edge_padding_high(), d.interior_padding()});
    }
    a.padding_config = std::move(c);
  }
  for (const auto& s : p.slice_dimensions()) {
    a.slice.push_back(SliceDimension{s.start(), s.limit(), s.stride()});
  }
  a.dynamic_slice_sizes = Ints(p.dynamic_slice_sizes());
  if (p.has_gather_dimension_numbers()) {
    const pb::GatherDimensionNumbers& g = p.gather_dimension_numbers();
    GatherDimensionNumbers d;
    d.offset_dims = Ints(g.offset_dims());
    d.collapsed_slice_dims = Ints(g.collapsed_slice_dims());
    d.start_index_map = Ints(g.start_index_map());
    d.index_vector_dim = g.index_vector_dim();
    d.operand_batching_dims = Ints(g.operand_batching_dims());
    d.start_indices_batching_dims = Ints(g.start_indices_batching_dims());
    a.gather_dimension_numbers = std::move(d);
  }
  a.gather_slice_sizes = Ints(p.gather_slice_sizes());
  if (p.has_scatter_dimension_numbers()) {
    const pb::ScatterDimensionNumbers& s = p.scatter_dimension_numbers();
    ScatterDimensionNumbers d;
    d.update_window_dims = Ints(s.update_window_dims());
    d.inserted_window_dims = Ints(s.inserted_window_dims());
    d.scatter_dims_to_operand_dims = Ints(s.scatter_dims_to_operand_dims());
    d.index_vector_dim = s.index_vector_dim();
    d.input_batching_dims = Ints(s.input_batching_dims());
    d.scatter_indices_batching_dims = Ints(s.scatter_indices_batching_dims());
    a.scatter_dimension_numbers = std::move(d);
  }
  a.indices_are_sorted = p.indices_are_sorted();
  a.unique_indices = p.unique_indices();
  if (op == HloOpcode::kCompare) {
    std::optional<ComparisonDirection> d =
        StringToComparisonDirection(p.comparison_direction());
    if (!d) {
      return Bad("comparison_direction",
                 StrCat("'", absl::CEscape(p.comparison_direction()),
                        "' is not one of EQ NE GE GT LE LT"));
    }
    a.comparison_direction = *d;
    if (!p.comparison_type().empty()) {
      std::optional<ComparisonType> t =
          StringToComparisonType(p.comparison_type());
      if (!t) {
        return Bad("comparison_type",
                   StrCat("'", absl::CEscape(p.comparison_type()),
                          "' is not one of FLOAT TOTALORDER SIGNED UNSIGNED"));
      }
      a.comparison_type = *t;
    }
  }
  a.epsilon = p.epsilon();
  a.feature_index = p.feature_index();
  a.exponent_bits = p.exponent_bits();
  a.mantissa_bits = p.mantissa_bits();
  if (op == HloOpcode::kRng) {
    if (p.distribution() == pb::RNG_UNIFORM) {
      a.distribution = RandomDistribution::kUniform;
    } else if (p.distribution() == pb::RNG_NORMAL) {
      a.distribution = RandomDistribution::kNormal;
    } else {
      return Bad("distribution",
                 StrCat(p.distribution(),
                        " is not RNG_UNIFORM (1) or RNG_NORMAL (2)"));
    }
  }
  if (op == HloOpcode::kRngBitGenerator) {
    if (p.rng_algorithm() < 0 || p.rng_algorithm() > 2) {
      return Bad("rng_algorithm", StrCat(p.rng_algorithm(),
                                         " is not RNG_DEFAULT, RNG_THREE_FRY "
                                         "or RNG_PHILOX (0..2)"));
    }
    a.rng_algorithm = static_cast<RandomAlgorithm>(p.rng_algorithm());
  }
  a.is_stable = p.is_stable();
  a.custom_call_target = p.custom_call_target();
  a.backend_config = p.backend_config();
  if (op == HloOpcode::kCustomCall) {
    if (p.custom_call_api_version() < 0 || p.custom_call_api_version() > 4) {
      return Bad("custom_call_api_version",
                 StrCat(p.custom_call_api_version(), " is not 0..4"));
    }
    a.api_version =
        static_cast<CustomCallApiVersion>(p.custom_call_api_version());
    // XLA: the operand layouts are constraints exactly when
    // constrain_layout is set.
    if (p.constrain_layout()) {
      a.has_layout_constraints = true;
      for (int i = 0; i < p.operand_shapes_with_layout_size(); ++i) {
        PLEXA_ASSIGN_OR_RETURN(
            Shape s,
            ShapeFromProto(p.operand_shapes_with_layout(i),
                           StrCat("operand_shapes_with_layout[", i, "]")));
        a.operand_shapes_with_layout.push_back(std::move(s));
      }
    }
  } else {
    a.constrain_layout = p.constrain_layout();
  }
  a.custom_call_has_side_effect = p.custom_call_has_side_effect();
  // Newer XLA writes collective_device_list; older, replica_groups.
  const auto& groups = p.has_collective_device_list()
                           ? p.collective_device_list().replica_groups()
                           : p.replica_groups();
  for (const pb::ReplicaGroup& g : groups)
    a.replica_groups.push_back(Ints(g.replica_ids()));
  if (p.has_collective_device_list() &&
      p.collective_device_list().has_iota_replica_group_list()) {
    if (!a.replica_groups.empty()) {
      return Bad("collective_device_list",
                 "both replica_groups and iota_replica_group_list are given");
    }
    PLEXA_ASSIGN_OR_RETURN(
        a.replica_groups,
        ExpandIotaGroups(p.collective_device_list().iota_replica_group_list()));
  }
  if (p.channel_id() > 0) a.channel_id = p.channel_id();
  a.is_host_transfer = p.is_host_transfer();
  a.use_global_device_ids = p.use_global_device_ids();
  for (const pb::SourceTarget& st : p.source_target_pairs()) {
    a.source_target_pairs.emplace_back(st.source(), st.target());
  }
  a.infeed_config = p.infeed_config();
  a.outfeed_config = p.outfeed_config();
  if (p.has_outfeed_shape()) {
    PLEXA_ASSIGN_OR_RETURN(Shape s,
                           ShapeFromProto(p.outfeed_shape(), "outfeed_shape"));
    a.outfeed_shape = std::move(s);
  }
  if (op == HloOpcode::kFusion) {
    std::optional<FusionKind> k = StringToFusionKind(p.fusion_kind());
    if (!k) {
      return Bad("fusion_kind",
                 StrCat("'", absl::CEscape(p.fusion_kind()),
                        "' is not kLoop, kInput, kOutput or kCustom"));
    }
    a.fusion_kind = *k;
  }
  if (op == HloOpcode::kTriangularSolve) {
    const pb::TriangularSolveOptions& o = p.triangular_solve_options();
    a.triangular_solve_options.left_side = o.left_side();
    a.triangular_solve_options.lower = o.lower();
    a.triangular_solve_options.unit_diagonal = o.unit_diagonal();
    switch (o.transpose_a()) {
      case pb::TriangularSolveOptions::NO_TRANSPOSE:
        a.triangular_solve_options.transpose_a =
            TriangularSolveTranspose::kNoTranspose;
        break;
      case pb::TriangularSolveOptions::TRANSPOSE:
        a.triangular_solve_options.transpose_a =
            TriangularSolveTranspose::kTranspose;
        break;
      case pb::TriangularSolveOptions::ADJOINT:
        a.triangular_solve_options.transpose_a =
            TriangularSolveTranspose::kAdjoint;
        break;
      default:
        return Bad("triangular_solve_options.transpose_a",
                   StrCat(o.transpose_a(),
                          " is not NO_TRANSPOSE, TRANSPOSE or ADJOINT (1..3)"));
    }
  }
  a.cholesky_lower = p.cholesky_options().lower();
  if (op == HloOpcode::kFft) {
    if (p.fft_type() < 0 || p.fft_type() > 3) {
      return Bad("fft_type", StrCat(p.fft_type(),
                                    " is not FFT, IFFT, RFFT or IRFFT (0..3)"));
    }
    a.fft_type = static_cast<FftType>(p.fft_type());
  }
  a.fft_length = Ints(p.fft_length());
  if (op == HloOpcode::kScan) {
    a.num_carries = p.num_carries();
    a.is_reverse = p.is_reverse();
    // A hint that changes no value: kept as the text keeps it.
    if (p.is_associative() != pb::TRI_STATE_UNSPECIFIED) {
      a.opaque.emplace_back(
          "is_associative",
          p.is_associative() == pb::TRI_STATE_TRUE ? "true" : "false");
    }
  }
  a.k = p.k();
  a.largest = p.largest();
  a.rng_delta = p.delta();
  a.async_execution_thread = p.async_execution_thread();
  if (p.has_cross_program_prefetch_index()) {
    a.cross_program_prefetch_index = p.cross_program_prefetch_index();
  }
  // metadata: kept verbatim as XLA prints it (op_type, op_name,
  // source_file, source_line), for `plexa check` and error messages.
  const pb::OpMetadata& md = p.metadata();
  std::vector<std::string> items;
  if (!md.op_type().empty()) {
    items.push_back(StrCat("op_type=\"", absl::CEscape(md.op_type()), "\""));
  }
  if (!md.op_name().empty()) {
    items.push_back(StrCat("op_name=\"", absl::CEscape(md.op_name()), "\""));
  }
  if (!md.source_file().empty()) {
    items.push_back(
        StrCat("source_file=\"", absl::CEscape(md.source_file()), "\""));
  }
  if (md.source_line() != 0) {
    items.push_back(StrCat("source_line=", md.source_line()));
  }
  if (!items.empty()) {
    a.opaque.emplace_back("metadata",
                          StrCat("{", absl::StrJoin(items, " "), "}"));
  }
  // operand_precision: Plexa keeps it verbatim (the operand types decide
  // the arithmetic); written only when some operand is not DEFAULT.
  bool precision = false;
  std::vector<std::string> names;
  for (int v : p.precision_config().operand_precision()) {
    precision = precision || v != pb::PrecisionConfig::DEFAULT;
    names.push_back(v == pb::PrecisionConfig::HIGH      ? "high"
                    : v == pb::PrecisionConfig::HIGHEST ? "highest"
                                                        : "default");
  }
  if (precision) {
    a.opaque.emplace_back("operand_precision",
                          StrCat("{", absl::StrJoin(names, ","), "}"));
  }
  // frontend_attributes: kept verbatim as XLA prints them, keys sorted,
  // values quoted (send/recv read their replica pairs from them).
  if (!p.frontend_attributes().map().empty()) {
    std::map<std::string, std::string> sorted(
        p.frontend_attributes().map().begin(),
        p.frontend_attributes().map().end());
    std::vector<std::string> entries;
    for (const auto& [key, value] : sorted) {
      entries.push_back(StrCat(key, "=\"", absl::CEscape(value), "\""));
    }
    a.opaque.emplace_back("frontend_attributes",
                          StrCat("{", absl::StrJoin(entries, ","), "}"));
  }
  return a;
}

}  // namespace plexa::xla_proto

namespace plexa::xla_proto {
namespace {

namespace pb = ::plexa::xla_pb;

int ProtoElementType(PrimitiveType t) {
  for (int v = 0; v < 64; ++v) {
    if (ElementTypeOf(v) == t) return v;
  }
  return pb::PRIMITIVE_TYPE_INVALID;
}

template <typename R, typename V>
void SetInts(R* r, const V& v) {
  for (int64_t x : v) r->Add(x);
}

// Raw element bytes into a repeated scalar field (complex: its parts).
template <typename T, typename R>
void CopyRepeated(absl::Span<const uint8_t> data, R* r) {
  const size_t n = data.size() / sizeof(T);
  r->Resize(static_cast<int>(n), T());
  if (n > 0) std::memcpy(r->mutable_data(), data.data(), n * sizeof(T));
}

}  // namespace

void ShapeToProto(const Shape& shape, pb::ShapeProto* proto) {
  proto->set_element_type(
      static_cast<pb::PrimitiveType>(ProtoElementType(shape.element_type())));
  if (shape.IsTuple()) {
    for (const Shape& s : shape.tuple_shapes()) {
      ShapeToProto(s, proto->add_tuple_shapes());
    }
    return;
  }
  if (!shape.IsArray()) return;
  SetInts(proto->mutable_dimensions(), shape.dimensions());
  if (shape.is_dynamic()) {
    for (bool d : shape.dynamic_dimensions())
      proto->add_is_dynamic_dimension(d);
  }
  if (shape.has_layout()) {
    pb::LayoutProto* l = proto->mutable_layout();
    SetInts(l->mutable_minor_to_major(), shape.layout().minor_to_major());
    for (const Tile& t : shape.layout().tiles()) {
      SetInts(l->add_tiles()->mutable_dimensions(), t.dimensions());
    }
    l->set_element_size_in_bits(shape.layout().element_size_in_bits());
    l->set_memory_space(shape.layout().memory_space());
  }
}

void LiteralToProto(const Literal& literal, pb::LiteralProto* proto) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    ShapeToProto(shape, proto->mutable_shape());
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      LiteralToProto(literal.tuple_element(i), proto->add_tuple_literals());
    }
    return;
  }
  if (!shape.IsArray()) {
    ShapeToProto(shape, proto->mutable_shape());
    return;
  }
  // The values in minor_to_major order, without tiles or padding.
  Literal dense = literal;
  if (shape.has_layout() && (!shape.layout().tiles().empty() ||
                             shape.layout().element_size_in_bits() != 0 ||
                             shape.layout().memory_space() != 0)) {
    absl::StatusOr<Literal> r =
        literal.Relayout(Layout(shape.layout().minor_to_major()));
    if (r.ok()) dense = *std::move(r);
  }
  ShapeToProto(dense.shape(), proto->mutable_shape());
  const PrimitiveType t = shape.element_type();
  absl::Span<const uint8_t> data = dense.data();
  if (t == PrimitiveType::PRED) {
    for (uint8_t b : data) proto->add_preds(b != 0);
    return;
  }
  const std::string bytes(reinterpret_cast<const char*>(data.data()),
                          data.size());
  switch (t) {
    case PrimitiveType::S32:
      CopyRepeated<int32_t>(data, proto->mutable_s32s());
      return;
    case PrimitiveType::U32:
      CopyRepeated<uint32_t>(data, proto->mutable_u32s());
      return;
    case PrimitiveType::S64:
      CopyRepeated<int64_t>(data, proto->mutable_s64s());
      return;
    case PrimitiveType::U64:
      CopyRepeated<uint64_t>(data, proto->mutable_u64s());
      return;
    case PrimitiveType::F32:
      CopyRepeated<float>(data, proto->mutable_f32s());
      return;
    case PrimitiveType::F64:
      CopyRepeated<double>(data, proto->mutable_f64s());
      return;
    case PrimitiveType::C64:
      CopyRepeated<float>(data, proto->mutable_c64s());
      return;
    case PrimitiveType::C128:
      CopyRepeated<double>(data, proto->mutable_c128s());
      return;
    case PrimitiveType::S8:
      proto->set_s8s(bytes);
      return;
    case PrimitiveType::U8:
      proto->set_u8s(bytes);
      return;
    case PrimitiveType::S4:
      proto->set_s4s(bytes);
      return;
    case PrimitiveType::U4:
      proto->set_u4s(bytes);
      return;
    case PrimitiveType::S2:
      proto->set_s2s(bytes);
      return;
    case PrimitiveType::U2:
      proto->set_u2s(bytes);
      return;
    case PrimitiveType::S16:
      proto->set_s16s(bytes);
      return;
    case PrimitiveType::U16:
      proto->set_u16s(bytes);
      return;
    case PrimitiveType::F16:
      proto->set_f16s(bytes);
      return;
    case PrimitiveType::BF16:
      proto->set_bf16s(bytes);
      return;
    case PrimitiveType::F8E5M2:
      proto->set_f8e5m2s(bytes);
      return;
    case PrimitiveType::F8E4M3:
      proto->set_f8e4m3s(bytes);
      return;
    case PrimitiveType::F8E4M3FN:
      proto->set_f8e4m3fns(bytes);
      return;
    case PrimitiveType::F8E4M3B11FNUZ:
      proto->set_f8e4m3b11fnuzs(bytes);
      return;
    case PrimitiveType::F8E3M4:
      proto->set_f8e3m4s(bytes);
      return;
    case PrimitiveType::F8E5M2FNUZ:
      proto->set_f8e5m2fnuzs(bytes);
      return;
    case PrimitiveType::F8E4M3FNUZ:
      proto->set_f8e4m3fnuzs(bytes);
      return;
    case PrimitiveType::F4E2M1FN:
      proto->set_f4e2m1fns(bytes);
      return;
    case PrimitiveType::F8E8M0FNU:
      proto->set_f8e8m0fnus(bytes);
      return;
    default:
      return;
  }
}

void AttrsToProto(const Instruction& inst, pb::HloInstructionProto* p) {
  const InstructionAttrs& a = inst.attrs();
  const HloOpcode op = inst.opcode();
  if (op == HloOpcode::kIota) {
    p->add_dimensions(a.iota_dimension);
  } else {
    SetInts(p->mutable_dimensions(), a.dimensions);
  }
  p->set_parameter_number(a.parameter_number);
  p->set_tuple_index(a.tuple_index);
  if (a.literal) LiteralToProto(*a.literal, p->mutable_literal());
  if (a.window) {
    pb::Window* w = p->mutable_window();
    for (const WindowDimension& d : a.window->dimensions) {
      pb::WindowDimension* o = w->add_dimensions();
      o->set_size(d.size);
      o->set_stride(d.stride);
      o->set_padding_low(d.padding_low);
      o->set_padding_high(d.padding_high);
      o->set_window_dilation(d.window_dilation);
      o->set_base_dilation(d.base_dilation);
      o->set_window_reversal(d.window_reversal);
    }
  }
  if (a.convolution_dimension_numbers) {
    const ConvolutionDimensionNumbers& d = *a.convolution_dimension_numbers;
    pb::ConvolutionDimensionNumbers* c =
        p->mutable_convolution_dimension_numbers();
    c->set_input_batch_dimension(d.input_batch_dimension);
    c->set_input_feature_dimension(d.input_feature_dimension);
    SetInts(c->mutable_input_spatial_dimensions(), d.input_spatial_dimensions);
    c->set_kernel_input_feature_dimension(d.kernel_input_feature_dimension);
    c->set_kernel_output_feature_dimension(d.kernel_output_feature_dimension);
    SetInts(c->mutable_kernel_spatial_dimensions(),
            d.kernel_spatial_dimensions);
    c->set_output_batch_dimension(d.output_batch_dimension);
    c->set_output_feature_dimension(d.output_feature_dimension);
    SetInts(c->mutable_output_spatial_dimensions(),
            d.output_spatial_dimensions);
  }
  p->set_feature_group_count(a.feature_group_count);
  p->set_batch_group_count(a.batch_group_count);
  if (a.dot_dimension_numbers) {
    const DotDimensionNumbers& d = *a.dot_dimension_numbers;
    // ragged-dot's go inside ragged_dot_dimension_numbers, as XLA's.
    pb::DotDimensionNumbers* o = op == HloOpcode::kRaggedDot
                                     ? p->mutable_ragged_dot_dimension_numbers()
                                           ->mutable_dot_dimension_numbers()
                                     : p->mutable_dot_dimension_numbers();
    SetInts(o->mutable_lhs_batch_dimensions(), d.lhs_batch_dimensions);
    SetInts(o->mutable_rhs_batch_dimensions(), d.rhs_batch_dimensions);
    SetInts(o->mutable_lhs_contracting_dimensions(),
            d.lhs_contracting_dimensions);
    SetInts(o->mutable_rhs_contracting_dimensions(),
            d.rhs_contracting_dimensions);
  }
  if (op == HloOpcode::kRaggedDot) {
    pb::RaggedDotDimensionNumbers* r =
        p->mutable_ragged_dot_dimension_numbers();
    SetInts(r->mutable_lhs_ragged_dimensions(), a.lhs_ragged_dimensions);
    SetInts(r->mutable_rhs_group_dimensions(), a.rhs_group_dimensions);
  }
  if (a.padding_config) {
    pb::PaddingConfig* c = p->mutable_padding_config();
    for (const PaddingDimension& d : a.padding_config->dimensions) {
      auto* o = c->add_dimensions();
      o->set_edge_padding_low(d.edge_padding_low);
      o->set_edge_padding_high(d.edge_padding_high);
      o->set_interior_padding(d.interior_padding);
    }
  }
  for (const SliceDimension& s : a.slice) {
    auto* o = p->add_slice_dimensions();
    o->set_start(s.start);
    o->set_limit(s.limit);
    o->set_stride(s.stride);
  }
  SetInts(p->mutable_dynamic_slice_sizes(), a.dynamic_slice_sizes);
  if (a.gather_dimension_numbers) {
    const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
    pb::GatherDimensionNumbers* o = p->mutable_gather_dimension_numbers();
    SetInts(o->mutable_offset_dims(), g.offset_dims);
    SetInts(o->mutable_collapsed_slice_dims(), g.collapsed_slice_dims);
    SetInts(o->mutable_start_index_map(), g.start_index_map);
    o->set_index_vector_dim(g.index_vector_dim);
    SetInts(o->mutable_operand_batching_dims(), g.operand_batching_dims);
    SetInts(o->mutable_start_indices_batching_dims(),
            g.start_indices_batching_dims);
  }
  SetInts(p->mutable_gather_slice_sizes(), a.gather_slice_sizes);
  if (a.scatter_dimension_numbers) {
    const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
    pb::ScatterDimensionNumbers* o = p->mutable_scatter_dimension_numbers();
    SetInts(o->mutable_update_window_dims(), s.update_window_dims);
    SetInts(o->mutable_inserted_window_dims(), s.inserted_window_dims);
    SetInts(o->mutable_scatter_dims_to_operand_dims(),
            s.scatter_dims_to_operand_dims);
    o->set_index_vector_dim(s.index_vector_dim);
    SetInts(o->mutable_input_batching_dims(), s.input_batching_dims);
    SetInts(o->mutable_scatter_indices_batching_dims(),
            s.scatter_indices_batching_dims);
  }
  p->set_indices_are_sorted(a.indices_are_sorted);
  p->set_unique_indices(a.unique_indices);
  if (op == HloOpcode::kCompare) {
    p->set_comparison_direction(
        std::string(ComparisonDirectionString(a.comparison_direction)));
    if (a.comparison_type != ComparisonType::kDefault) {
      p->set_comparison_type(
          std::string(ComparisonTypeString(a.comparison_type)));
    }
  }
  p->set_epsilon(a.epsilon);
  p->set_feature_index(a.feature_index);
  p->set_exponent_bits(a.exponent_bits);
  p->set_mantissa_bits(a.mantissa_bits);
  if (op == HloOpcode::kRng) {
    p->set_distribution(a.distribution == RandomDistribution::kNormal
                            ? pb::RNG_NORMAL
                            : pb::RNG_UNIFORM);
  }
  p->set_rng_algorithm(static_cast<pb::RandomAlgorithm>(a.rng_algorithm));
  p->set_is_stable(a.is_stable);
  p->set_custom_call_target(a.custom_call_target);
  p->set_backend_config(a.backend_config);
  p->set_custom_call_api_version(
      static_cast<pb::CustomCallApiVersion>(a.api_version));
  if (op == HloOpcode::kCustomCall) {
    p->set_constrain_layout(a.has_layout_constraints);
    for (const Shape& s : a.operand_shapes_with_layout) {
      ShapeToProto(s, p->add_operand_shapes_with_layout());
    }
  } else {
    p->set_constrain_layout(a.constrain_layout);
  }
  p->set_custom_call_has_side_effect(a.custom_call_has_side_effect);
  for (const std::vector<int64_t>& g : a.replica_groups) {
    SetInts(p->add_replica_groups()->mutable_replica_ids(), g);
  }
  if (a.channel_id) p->set_channel_id(*a.channel_id);
  p->set_is_host_transfer(a.is_host_transfer);
  for (const auto& [name, value] : a.opaque) {
    if (name != "frontend_attributes") continue;
    // Text the parser kept but cannot read as entries is left out.
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> entries =
        ParseFrontendAttributes(value);
    if (!entries.ok()) continue;
    for (const auto& [k, v] : *entries) {
      (*p->mutable_frontend_attributes()->mutable_map())[k] = v;
    }
  }
  p->set_use_global_device_ids(a.use_global_device_ids);
  for (const auto& [source, target] : a.source_target_pairs) {
    pb::SourceTarget* st = p->add_source_target_pairs();
    st->set_source(source);
    st->set_target(target);
  }
  p->set_infeed_config(a.infeed_config);
  p->set_outfeed_config(a.outfeed_config);
  if (a.outfeed_shape)
    ShapeToProto(*a.outfeed_shape, p->mutable_outfeed_shape());
  if (op == HloOpcode::kFusion) {
    p->set_fusion_kind(std::string(FusionKindString(a.fusion_kind)));
  }
  if (op == HloOpcode::kTriangularSolve) {
    pb::TriangularSolveOptions* o = p->mutable_triangular_solve_options();
    o->set_left_side(a.triangular_solve_options.left_side);
    o->set_lower(a.triangular_solve_options.lower);
    o->set_unit_diagonal(a.triangular_solve_options.unit_diagonal);
    // XLA's numbers are one more than Plexa's (0 is TRANSPOSE_INVALID).
    o->set_transpose_a(static_cast<pb::TriangularSolveOptions::Transpose>(
        static_cast<int>(a.triangular_solve_options.transpose_a) + 1));
  }
  if (a.cholesky_lower) p->mutable_cholesky_options()->set_lower(true);
  if (op == HloOpcode::kScan) {
    // XLA's field is always there: the count the text may leave out, as
    // the shapes give it.
    std::vector<const Shape*> shapes;
    for (const Instruction* o : inst.operands()) shapes.push_back(&o->shape());
    absl::StatusOr<int64_t> carries =
        inst.to_apply() == nullptr
            ? absl::StatusOr<int64_t>(a.num_carries.value_or(0))
            : shape_inference::ScanNumCarries(
                  shapes, a.dimensions, a.num_carries,
                  inst.to_apply()->ComputeProgramShape());
    p->set_num_carries(carries.ok() ? *carries : a.num_carries.value_or(0));
    p->set_is_reverse(a.is_reverse);
    for (const auto& [name, value] : a.opaque) {
      if (name == "is_associative") {
        p->set_is_associative(value == "true" ? pb::TRI_STATE_TRUE
                                              : pb::TRI_STATE_FALSE);
      }
    }
  }
  p->set_fft_type(static_cast<pb::FftType>(a.fft_type));
  SetInts(p->mutable_fft_length(), a.fft_length);
  p->set_k(a.k);
  p->set_largest(a.largest);
  p->set_delta(a.rng_delta);
  p->set_async_execution_thread(a.async_execution_thread);
  if (a.cross_program_prefetch_index) {
    p->set_cross_program_prefetch_index(
        static_cast<int32_t>(*a.cross_program_prefetch_index));
  }
}

}  // namespace plexa::xla_proto
