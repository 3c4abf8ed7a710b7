// Printer for XLA's HLO text format. Canonical: one spelling per module.
//
// Module:       HloModule name, entry_computation_layout={...}, <opaque...>
//               then each computation, callees before callers, the entry
//               last, separated by blank lines.
// Computation:  [ENTRY ]%name (p: f32[2]) -> f32[2] {   (shapes without
//               layouts, as XLA) then one instruction per line, in insertion
//               order when that defines every value before its use, else in
//               post order.
// Instruction:  [ROOT ]%name = SHAPE opcode(SHAPE %operand, ...), then the
//               attributes in a fixed order:
//                 1. the opcode's typed attributes (XLA's order, below)
//                 2. called computations (to_apply=, condition=, body=, ...)
//                 3. verbatim attributes other than those in 4 and 6
//                 4. sharding, frontend_attributes, statistics (verbatim)
//                 5. control-predecessors={...}
//                 6. origin, metadata (verbatim)
//                 7. backend_config
//               Verbatim attributes keep their relative order of appearance.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/literal/literal.h"
#include "core/text/hlo_printer.h"

namespace plexa {
namespace {

using absl::StrAppend;
using absl::StrCat;
using absl::StrJoin;

std::string NameOf(absl::string_view name, const PrintOptions& o) {
  return o.print_percent ? StrCat("%", name) : std::string(name);
}

std::string Braced(absl::Span<const int64_t> v) {
  return StrCat("{", StrJoin(v, ","), "}");
}

std::string Quoted(absl::string_view s) {
  return StrCat("\"", absl::CEscape(s), "\"");
}

// True if `s` is one balanced {...} group (strings skipped), which XLA
// prints unquoted for backend_config.
bool IsJsonDict(absl::string_view s) {
  if (s.empty() || s[0] != '{') return false;
  int64_t depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      ++i;
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\') ++i;
        ++i;
      }
      if (i >= s.size()) return false;
      continue;
    }
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) return i + 1 == s.size();
  }
  return false;
}

// Shortest decimal spelling that reads back as the same float.
std::string FloatToString(float f) {
  if (std::isnan(f)) return std::signbit(f) ? "-nan" : "nan";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  char buf[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, static_cast<double>(f));
    float back = 0;
    if (absl::SimpleAtof(buf, &back) && back == f) break;
  }
  return buf;
}

std::string WindowToString(const Window& w) {
  auto field = [&](absl::string_view name, auto value_of) {
    std::vector<std::string> parts;
    for (const WindowDimension& d : w.dimensions) parts.push_back(value_of(d));
    return StrCat(name, "=", StrJoin(parts, "x"));
  };
  auto any = [&](auto pred) {
    return std::any_of(w.dimensions.begin(), w.dimensions.end(), pred);
  };
  std::vector<std::string> fields;
  fields.push_back(
      field("size", [](const WindowDimension& d) { return StrCat(d.size); }));
  if (any([](const WindowDimension& d) { return d.stride != 1; })) {
    fields.push_back(field(
        "stride", [](const WindowDimension& d) { return StrCat(d.stride); }));
  }
  if (any([](const WindowDimension& d) {
        return d.padding_low != 0 || d.padding_high != 0;
      })) {
    fields.push_back(field("pad", [](const WindowDimension& d) {
      return StrCat(d.padding_low, "_", d.padding_high);
    }));
  }
  if (any([](const WindowDimension& d) { return d.base_dilation != 1; })) {
    fields.push_back(field("lhs_dilate", [](const WindowDimension& d) {
      return StrCat(d.base_dilation);
    }));
  }
  if (any([](const WindowDimension& d) { return d.window_dilation != 1; })) {
    fields.push_back(field("rhs_dilate", [](const WindowDimension& d) {
      return StrCat(d.window_dilation);
    }));
  }
  if (any([](const WindowDimension& d) { return d.window_reversal; })) {
    fields.push_back(field("rhs_reversal", [](const WindowDimension& d) {
      return std::string(d.window_reversal ? "1" : "0");
    }));
  }
  return StrCat("{", StrJoin(fields, " "), "}");
}

// One operand's labels: `a` and `b` at their positions, spatial dimension i
// as the digit i, '?' elsewhere (XLA's ConvolutionDimensionNumbersToString).
std::string Labels(int64_t a, char ca, int64_t b, char cb,
                   absl::Span<const int64_t> spatial) {
  constexpr int64_t kMaxLen = 4096;  // guards malformed programmatic input
  int64_t len = 0;
  auto grow = [&](int64_t pos) {
    if (pos >= 0 && pos < kMaxLen) len = std::max(len, pos + 1);
  };
  grow(a);
  grow(b);
  for (int64_t s : spatial) grow(s);
  std::vector<std::string> parts(static_cast<size_t>(len), "?");
  auto set = [&](int64_t pos, std::string v) {
    if (pos >= 0 && pos < len) parts[static_cast<size_t>(pos)] = std::move(v);
  };
  set(a, std::string(1, ca));
  set(b, std::string(1, cb));
  for (size_t i = 0; i < spatial.size(); ++i) set(spatial[i], StrCat(i));
  return StrJoin(parts, "");
}

std::string DimLabels(const ConvolutionDimensionNumbers& d) {
  return StrCat(
      Labels(d.input_batch_dimension, 'b', d.input_feature_dimension, 'f',
             d.input_spatial_dimensions),
      "_",
      Labels(d.kernel_input_feature_dimension, 'i',
             d.kernel_output_feature_dimension, 'o',
             d.kernel_spatial_dimensions),
      "->",
      Labels(d.output_batch_dimension, 'b', d.output_feature_dimension, 'f',
             d.output_spatial_dimensions));
}

std::string PaddingToString(const PaddingConfig& p) {
  const bool interior = std::any_of(
      p.dimensions.begin(), p.dimensions.end(),
      [](const PaddingDimension& d) { return d.interior_padding != 0; });
  std::vector<std::string> parts;
  for (const PaddingDimension& d : p.dimensions) {
    parts.push_back(interior
                        ? StrCat(d.edge_padding_low, "_", d.edge_padding_high,
                                 "_", d.interior_padding)
                        : StrCat(d.edge_padding_low, "_", d.edge_padding_high));
  }
  return StrJoin(parts, "x");
}

std::string SliceToString(const std::vector<SliceDimension>& slice) {
  const bool strides =
      std::any_of(slice.begin(), slice.end(),
                  [](const SliceDimension& d) { return d.stride != 1; });
  std::vector<std::string> parts;
  for (const SliceDimension& d : slice) {
    parts.push_back(strides
                        ? StrCat("[", d.start, ":", d.limit, ":", d.stride, "]")
                        : StrCat("[", d.start, ":", d.limit, "]"));
  }
  return StrCat("{", StrJoin(parts, ", "), "}");
}

std::string ComputationName(const Computation* c, const PrintOptions& o) {
  return c == nullptr ? "<null>" : NameOf(c->name(), o);
}

// 1. The opcode's own attributes, in XLA's order.
void AppendTypedAttributes(const Instruction& inst,
                           std::vector<std::string>* out) {
  const InstructionAttrs& a = inst.attrs();
  auto window = [&] {
    if (a.window && !a.window->dimensions.empty()) {
      out->push_back(StrCat("window=", WindowToString(*a.window)));
    }
  };
  auto conv = [&] {
    window();
    if (a.convolution_dimension_numbers) {
      out->push_back(
          StrCat("dim_labels=", DimLabels(*a.convolution_dimension_numbers)));
    }
    if (a.feature_group_count != 1) {
      out->push_back(StrCat("feature_group_count=", a.feature_group_count));
    }
    if (a.batch_group_count != 1) {
      out->push_back(StrCat("batch_group_count=", a.batch_group_count));
    }
  };
  switch (inst.opcode()) {
    case HloOpcode::kBroadcast:
    case HloOpcode::kTranspose:
    case HloOpcode::kReverse:
    case HloOpcode::kConcatenate:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kGetDimensionSize:
      out->push_back(StrCat("dimensions=", Braced(a.dimensions)));
      break;
    case HloOpcode::kSort:
      out->push_back(StrCat("dimensions=", Braced(a.dimensions)));
      if (a.is_stable) out->push_back("is_stable=true");
      break;
    case HloOpcode::kIota:
      out->push_back(StrCat("iota_dimension=", a.iota_dimension));
      break;
    case HloOpcode::kGetTupleElement:
      out->push_back(StrCat("index=", a.tuple_index));
      break;
    case HloOpcode::kConvolution:
      conv();
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      window();
      break;
    case HloOpcode::kDot:
      if (a.dot_dimension_numbers) {
        const DotDimensionNumbers& d = *a.dot_dimension_numbers;
        if (!d.lhs_batch_dimensions.empty()) {
          out->push_back(
              StrCat("lhs_batch_dims=", Braced(d.lhs_batch_dimensions)));
        }
        out->push_back(StrCat("lhs_contracting_dims=",
                              Braced(d.lhs_contracting_dimensions)));
        if (!d.rhs_batch_dimensions.empty()) {
          out->push_back(
              StrCat("rhs_batch_dims=", Braced(d.rhs_batch_dimensions)));
        }
        out->push_back(StrCat("rhs_contracting_dims=",
                              Braced(d.rhs_contracting_dimensions)));
      }
      break;
    case HloOpcode::kPad:
      if (a.padding_config) {
        out->push_back(StrCat("padding=", PaddingToString(*a.padding_config)));
      }
      break;
    case HloOpcode::kSlice:
      out->push_back(StrCat("slice=", SliceToString(a.slice)));
      break;
    case HloOpcode::kDynamicSlice:
      out->push_back(
          StrCat("dynamic_slice_sizes=", Braced(a.dynamic_slice_sizes)));
      break;
    case HloOpcode::kGather:
      if (a.gather_dimension_numbers) {
        const GatherDimensionNumbers& g = *a.gather_dimension_numbers;
        out->push_back(StrCat("offset_dims=", Braced(g.offset_dims)));
        out->push_back(
            StrCat("collapsed_slice_dims=", Braced(g.collapsed_slice_dims)));
        out->push_back(StrCat("start_index_map=", Braced(g.start_index_map)));
        if (!g.operand_batching_dims.empty()) {
          out->push_back(StrCat("operand_batching_dims=",
                                Braced(g.operand_batching_dims)));
        }
        if (!g.start_indices_batching_dims.empty()) {
          out->push_back(StrCat("start_indices_batching_dims=",
                                Braced(g.start_indices_batching_dims)));
        }
        out->push_back(StrCat("index_vector_dim=", g.index_vector_dim));
      }
      out->push_back(StrCat("slice_sizes=", Braced(a.gather_slice_sizes)));
      if (a.indices_are_sorted) out->push_back("indices_are_sorted=true");
      break;
    case HloOpcode::kScatter:
      if (a.scatter_dimension_numbers) {
        const ScatterDimensionNumbers& s = *a.scatter_dimension_numbers;
        out->push_back(
            StrCat("update_window_dims=", Braced(s.update_window_dims)));
        out->push_back(
            StrCat("inserted_window_dims=", Braced(s.inserted_window_dims)));
        out->push_back(StrCat("scatter_dims_to_operand_dims=",
                              Braced(s.scatter_dims_to_operand_dims)));
        if (!s.input_batching_dims.empty()) {
          out->push_back(
              StrCat("input_batching_dims=", Braced(s.input_batching_dims)));
        }
        if (!s.scatter_indices_batching_dims.empty()) {
          out->push_back(StrCat("scatter_indices_batching_dims=",
                                Braced(s.scatter_indices_batching_dims)));
        }
        out->push_back(StrCat("index_vector_dim=", s.index_vector_dim));
      }
      if (a.indices_are_sorted) out->push_back("indices_are_sorted=true");
      if (a.unique_indices) out->push_back("unique_indices=true");
      break;
    case HloOpcode::kCompare:
      out->push_back(StrCat("direction=",
                            ComparisonDirectionString(a.comparison_direction)));
      if (a.comparison_type != ComparisonType::kDefault) {
        out->push_back(
            StrCat("type=", ComparisonTypeString(a.comparison_type)));
      }
      break;
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
      out->push_back(StrCat("epsilon=", FloatToString(a.epsilon)));
      out->push_back(StrCat("feature_index=", a.feature_index));
      break;
    case HloOpcode::kReducePrecision:
      out->push_back(StrCat("exponent_bits=", a.exponent_bits));
      out->push_back(StrCat("mantissa_bits=", a.mantissa_bits));
      break;
    case HloOpcode::kRng:
      out->push_back(
          StrCat("distribution=", RandomDistributionString(a.distribution)));
      break;
    case HloOpcode::kRngBitGenerator:
      // XLA prints the algorithm always, rng_default included.
      out->push_back(
          StrCat("algorithm=", RandomAlgorithmString(a.rng_algorithm)));
      break;
    case HloOpcode::kCustomCall:
      conv();
      out->push_back(
          StrCat("custom_call_target=", Quoted(a.custom_call_target)));
      if (a.has_layout_constraints) {
        std::vector<std::string> shapes;
        for (const Shape& s : a.operand_shapes_with_layout) {
          shapes.push_back(s.ToString(true));
        }
        out->push_back(
            StrCat("operand_layout_constraints={", StrJoin(shapes, ", "), "}"));
      }
      if (a.custom_call_has_side_effect) {
        out->push_back("custom_call_has_side_effect=true");
      }
      if (a.api_version != CustomCallApiVersion::kUnspecified) {
        out->push_back(
            StrCat("api_version=", CustomCallApiVersionString(a.api_version)));
      }
      break;
    case HloOpcode::kAllReduce: {
      if (a.channel_id) out->push_back(StrCat("channel_id=", *a.channel_id));
      std::vector<std::string> groups;
      for (const auto& g : a.replica_groups) groups.push_back(Braced(g));
      out->push_back(StrCat("replica_groups={", StrJoin(groups, ","), "}"));
      if (a.constrain_layout) out->push_back("constrain_layout=true");
      if (a.use_global_device_ids) out->push_back("use_global_device_ids=true");
      break;
    }
    case HloOpcode::kInfeed:
      if (!a.infeed_config.empty()) {
        out->push_back(StrCat("infeed_config=", Quoted(a.infeed_config)));
      }
      break;
    case HloOpcode::kOutfeed:
      if (a.outfeed_shape) {
        out->push_back(StrCat("outfeed_shape=", a.outfeed_shape->ToString()));
      }
      if (!a.outfeed_config.empty()) {
        out->push_back(StrCat("outfeed_config=", Quoted(a.outfeed_config)));
      }
      break;
    case HloOpcode::kFusion:
      out->push_back(StrCat("kind=", FusionKindString(a.fusion_kind)));
      break;
    case HloOpcode::kTriangularSolve: {
      const TriangularSolveOptions& t = a.triangular_solve_options;
      if (t.left_side) out->push_back("left_side=true");
      if (t.lower) out->push_back("lower=true");
      if (t.unit_diagonal) out->push_back("unit_diagonal=true");
      out->push_back(StrCat("transpose_a=",
                            TriangularSolveTransposeString(t.transpose_a)));
      break;
    }
    case HloOpcode::kCholesky:
      if (a.cholesky_lower) out->push_back("lower=true");
      break;
    default:
      break;
  }
}

// 2. Called computations by role.
void AppendCalledComputations(const Instruction& inst, const PrintOptions& o,
                              std::vector<std::string>* out) {
  const std::vector<Computation*>& called = inst.called_computations();
  if (called.empty()) return;
  auto list = [&] {
    std::vector<std::string> names;
    for (const Computation* c : called) names.push_back(ComputationName(c, o));
    return StrCat("{", StrJoin(names, ", "), "}");
  };
  switch (inst.opcode()) {
    case HloOpcode::kWhile:
      if (called.size() == 2) {
        out->push_back(StrCat("condition=", ComputationName(called[0], o)));
        out->push_back(StrCat("body=", ComputationName(called[1], o)));
        return;
      }
      break;
    case HloOpcode::kSelectAndScatter:
      if (called.size() == 2) {
        out->push_back(StrCat("select=", ComputationName(called[0], o)));
        out->push_back(StrCat("scatter=", ComputationName(called[1], o)));
        return;
      }
      break;
    case HloOpcode::kConditional:
      if (called.size() == 2 && inst.operand_count() > 0 &&
          inst.operand(0)->shape().element_type() == PrimitiveType::PRED) {
        out->push_back(
            StrCat("true_computation=", ComputationName(called[0], o)));
        out->push_back(
            StrCat("false_computation=", ComputationName(called[1], o)));
      } else {
        out->push_back(StrCat("branch_computations=", list()));
      }
      return;
    case HloOpcode::kCustomCall:
      if (called.size() == 1) {
        out->push_back(StrCat("to_apply=", ComputationName(called[0], o)));
      } else {
        out->push_back(StrCat("called_computations=", list()));
      }
      return;
    case HloOpcode::kFusion:
      if (called.size() == 1) {
        out->push_back(StrCat("calls=", ComputationName(called[0], o)));
        return;
      }
      break;
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kAllReduce:
    case HloOpcode::kScatter:
    case HloOpcode::kSort:
      if (called.size() == 1) {
        out->push_back(StrCat("to_apply=", ComputationName(called[0], o)));
        return;
      }
      break;
    default:
      break;
  }
  // Not a form the parser reads back for this opcode: printed so nothing is
  // hidden (a malformed module).
  out->push_back(StrCat("calls=", list()));
}

constexpr absl::string_view kBeforeControl[] = {
    "sharding", "frontend_attributes", "statistics"};
constexpr absl::string_view kAfterControl[] = {"origin", "metadata"};

bool IsGroup(absl::string_view name, absl::Span<const absl::string_view> g) {
  return std::find(g.begin(), g.end(), name) != g.end();
}

std::string InstructionLine(const Instruction& inst, const PrintOptions& o) {
  std::string out =
      StrCat(NameOf(inst.name(), o), " = ", inst.shape().ToString(), " ",
             HloOpcodeString(inst.opcode()), "(");
  const InstructionAttrs& a = inst.attrs();
  if (inst.opcode() == HloOpcode::kParameter) {
    StrAppend(&out, a.parameter_number);
  } else if (inst.opcode() == HloOpcode::kConstant) {
    if (a.literal) out += a.literal->ToStringWithoutShape();
  } else {
    std::vector<std::string> operands;
    for (const Instruction* op : inst.operands()) {
      operands.push_back(
          o.print_operand_shapes
              ? StrCat(op->shape().ToString(), " ", NameOf(op->name(), o))
              : NameOf(op->name(), o));
    }
    out += StrJoin(operands, ", ");
  }
  out += ")";

  std::vector<std::string> attrs;
  AppendTypedAttributes(inst, &attrs);
  AppendCalledComputations(inst, o, &attrs);
  auto opaque = [&](auto select) {
    if (!o.print_opaque_attributes) return;
    for (const auto& [name, value] : a.opaque) {
      if (select(name)) attrs.push_back(StrCat(name, "=", value));
    }
  };
  opaque([](absl::string_view n) {
    return !IsGroup(n, kBeforeControl) && !IsGroup(n, kAfterControl);
  });
  opaque([](absl::string_view n) { return IsGroup(n, kBeforeControl); });
  if (!inst.control_predecessors().empty()) {
    std::vector<std::string> names;
    for (const Instruction* p : inst.control_predecessors()) {
      names.push_back(NameOf(p->name(), o));
    }
    attrs.push_back(
        StrCat("control-predecessors={", StrJoin(names, ", "), "}"));
  }
  opaque([](absl::string_view n) { return IsGroup(n, kAfterControl); });
  if (!a.backend_config.empty()) {
    attrs.push_back(StrCat("backend_config=", IsJsonDict(a.backend_config)
                                                  ? a.backend_config
                                                  : Quoted(a.backend_config)));
  }
  for (const std::string& attr : attrs) StrAppend(&out, ", ", attr);
  return out;
}

// Insertion order if it defines every value before its use, else post
// order.
std::vector<Instruction*> PrintOrder(const Computation& c) {
  std::vector<Instruction*> order = c.instructions();
  absl::flat_hash_map<const Instruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  auto defined_before = [&](const Instruction* dep, size_t i) {
    auto it = position.find(dep);
    return it == position.end() || it->second < i;
  };
  for (size_t i = 0; i < order.size(); ++i) {
    for (const Instruction* op : order[i]->operands()) {
      if (!defined_before(op, i)) return c.MakeInstructionPostOrder();
    }
    for (const Instruction* p : order[i]->control_predecessors()) {
      if (!defined_before(p, i)) return c.MakeInstructionPostOrder();
    }
  }
  return order;
}

std::string ComputationText(const Computation& c, const PrintOptions& o) {
  std::string out;
  if (c.IsEntryComputation()) out += "ENTRY ";
  out += NameOf(c.name(), o);
  if (const Instruction* root = c.root_instruction()) {
    std::vector<std::string> params;
    for (const Instruction* p : c.parameter_instructions()) {
      if (p != nullptr) {
        params.push_back(StrCat(p->name(), ": ", p->shape().ToString(false)));
      }
    }
    StrAppend(&out, " (", StrJoin(params, ", "), ") -> ",
              root->shape().ToString(false));
  }
  out += " {\n";
  for (const Instruction* inst : PrintOrder(c)) {
    StrAppend(&out, "  ", inst == c.root_instruction() ? "ROOT " : "",
              InstructionLine(*inst, o), "\n");
  }
  out += "}";
  return out;
}

}  // namespace

std::string PrintInstruction(const Instruction& instruction,
                             const PrintOptions& options) {
  return InstructionLine(instruction, options);
}

std::string PrintComputation(const Computation& computation,
                             const PrintOptions& options) {
  return ComputationText(computation, options) + "\n";
}

std::string PrintModule(const Module& module, const PrintOptions& options) {
  std::string out = StrCat("HloModule ", module.name());
  if (const auto& layout = module.entry_computation_layout()) {
    std::vector<std::string> params;
    for (const Shape& p : layout->parameters) params.push_back(p.ToString());
    StrAppend(&out, ", entry_computation_layout={(", StrJoin(params, ", "),
              ")->", layout->result.ToString(), "}");
  }
  for (const auto& [name, value] : module.opaque_attributes()) {
    StrAppend(&out, ", ", name, "=", value);
  }
  out += "\n";
  for (const Computation* c : module.MakeComputationPostOrder()) {
    StrAppend(&out, "\n", ComputationText(*c, options), "\n");
  }
  return out;
}

}  // namespace plexa
