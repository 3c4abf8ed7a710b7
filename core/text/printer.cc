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
//                 1. the opcode's typed attributes (the attribute table's
//                    order, XLA's: core/ir/attribute_table.h)
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
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/attribute_table.h"
#include "core/ir/sparse_dot.h"
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

// One writer per kind of value; the attribute table says which attributes
// an opcode has and in what order. A kind with no writer here does not
// compile.
template <typename T>
std::string AttributeValueToString(const T& v) {
  if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
    return Braced(v);
  } else if constexpr (std::is_same_v<T, int64_t> ||
                       std::is_same_v<T, int32_t>) {
    return StrCat(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, float>) {
    return FloatToString(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Quoted(v);
  } else if constexpr (std::is_same_v<T, Window>) {
    return WindowToString(v);
  } else if constexpr (std::is_same_v<T, ConvolutionDimensionNumbers>) {
    return DimLabels(v);
  } else if constexpr (std::is_same_v<T, PaddingConfig>) {
    return PaddingToString(v);
  } else if constexpr (std::is_same_v<T, std::vector<SliceDimension>>) {
    return SliceToString(v);
  } else if constexpr (std::is_same_v<T, std::vector<std::vector<int64_t>>>) {
    std::vector<std::string> groups;
    for (const auto& g : v) groups.push_back(Braced(g));
    return StrCat("{", StrJoin(groups, ","), "}");
  } else if constexpr (std::is_same_v<
                           T, std::vector<std::pair<int64_t, int64_t>>>) {
    std::vector<std::string> pairs;
    for (const auto& [source, target] : v) {
      pairs.push_back(StrCat("{", source, ",", target, "}"));
    }
    return StrCat("{", StrJoin(pairs, ","), "}");
  } else if constexpr (std::is_same_v<T, std::vector<SparsityDescriptor>>) {
    return sparse_dot::SparsityToString(v);
  } else if constexpr (std::is_same_v<T, Shape>) {
    return v.ToString();
  } else if constexpr (std::is_same_v<T, std::vector<Shape>>) {
    std::vector<std::string> shapes;
    for (const Shape& s : v) shapes.push_back(s.ToString(true));
    return StrCat("{", StrJoin(shapes, ", "), "}");
  } else if constexpr (std::is_same_v<T, ComparisonDirection>) {
    return std::string(ComparisonDirectionString(v));
  } else if constexpr (std::is_same_v<T, ComparisonType>) {
    return std::string(ComparisonTypeString(v));
  } else if constexpr (std::is_same_v<T, RandomDistribution>) {
    return std::string(RandomDistributionString(v));
  } else if constexpr (std::is_same_v<T, RandomAlgorithm>) {
    return std::string(RandomAlgorithmString(v));
  } else if constexpr (std::is_same_v<T, CustomCallApiVersion>) {
    return std::string(CustomCallApiVersionString(v));
  } else if constexpr (std::is_same_v<T, FusionKind>) {
    return std::string(FusionKindString(v));
  } else if constexpr (std::is_same_v<T, TriangularSolveTranspose>) {
    return std::string(TriangularSolveTransposeString(v));
  } else if constexpr (std::is_same_v<T, FftType>) {
    return std::string(FftTypeString(v));
  } else if constexpr (std::is_same_v<T, ShuffleMode>) {
    return std::string(ShuffleModeString(v));
  } else if constexpr (std::is_same_v<T, std::shared_ptr<const Literal>>) {
    // A typed literal, as XLA prints one: s32[4]{0} {3, 1, 0, 2}.
    if (v == nullptr) return "";
    return StrCat(v->shape().ToString(/*print_layout=*/true), " ",
                  v->ToStringWithoutShape());
  } else {
    static_assert(sizeof(T) == 0, "a kind of attribute value with no writer");
  }
}

// 1. The opcode's value attributes, in the table's (XLA's) order.
void AppendTypedAttributes(const Instruction& inst,
                           std::vector<std::string>* out) {
  const InstructionAttrs& a = inst.attrs();
  for (const AttrSpec& spec : AttributesOf(inst.opcode())) {
    if (spec.print == AttrPrint::kUnlessDefault && HoldsDefault(a, spec.id)) {
      continue;
    }
    VisitAttr(a, spec.id, [&](const auto* value) {
      using T = std::remove_cvref_t<decltype(*value)>;
      if constexpr (!std::is_same_v<T, CalledComputationAttr>) {
        if (value != nullptr) {
          out->push_back(
              StrCat(spec.name, "=", AttributeValueToString(*value)));
        }
      }
    });
  }
}

// 2. Called computations by role: the table's names in its order, one
// computation each, or its list attribute (branch_computations,
// called_computations) when the count does not match.
void AppendCalledComputations(const Instruction& inst, const PrintOptions& o,
                              std::vector<std::string>* out) {
  const std::vector<Computation*>& called = inst.called_computations();
  if (called.empty()) return;
  auto list = [&] {
    std::vector<std::string> names;
    for (const Computation* c : called) names.push_back(ComputationName(c, o));
    return StrCat("{", StrJoin(names, ", "), "}");
  };
  std::vector<absl::string_view> roles;
  absl::string_view list_role;
  for (const AttrSpec& spec : AttributesOf(inst.opcode())) {
    if (!IsCalledComputation(spec.id)) continue;
    if (IsCalledComputationList(spec.id)) {
      list_role = spec.name;
    } else {
      roles.push_back(spec.name);
    }
  }
  bool by_role = !roles.empty() && roles.size() == called.size();
  // true_computation/false_computation is the form of a predicate
  // conditional only; one on an index with two branches lists them.
  if (inst.opcode() == HloOpcode::kConditional) {
    by_role = by_role && inst.operand_count() > 0 &&
              inst.operand(0)->shape().element_type() == PrimitiveType::PRED;
  }
  if (by_role) {
    for (size_t i = 0; i < roles.size(); ++i) {
      out->push_back(StrCat(roles[i], "=", ComputationName(called[i], o)));
    }
    return;
  }
  if (!list_role.empty()) {
    out->push_back(StrCat(list_role, "=", list()));
    return;
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
