#include "tools/graph/dot_graph.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/opcode.h"
#include "core/literal/literal.h"
#include "core/shape/shape_util.h"

extern char** environ;

namespace plexa::graph {
namespace {

// What a node is drawn as: its fill colour, by the kind of work.
struct Category {
  const char* name;
  const char* fill;
};
constexpr Category kParameter{"parameter", "#cfe2f3"};
constexpr Category kConstant{"constant", "#eeeeee"};
constexpr Category kCompute{"dot, convolution, fft, linear algebra", "#f9cb9c"};
constexpr Category kMovement{"data movement", "#d9ead3"};
constexpr Category kControl{"control flow, calls, async", "#d9d2e9"};
constexpr Category kCollective{"collectives, channels", "#b6d7a8"};
constexpr Category kCustomCall{"custom call", "#f4cccc"};
constexpr Category kTuple{"tuple, get-tuple-element", "#ffffff"};
constexpr Category kElementwise{"elementwise, reductions, other", "#fff2cc"};

// Colours by step class (DotOptions::steps), in legend order.
constexpr Category kStepClasses[] = {
    {"kernel", "#ffe599"},       {"gemm", "#f6b26b"},
    {"convolution", "#e69138"},  {"library", "#b4a7d6"},
    {"runtime", "#9fc5e8"},      {"collective", "#b6d7a8"},
    {"control-flow", "#d9d2e9"}, {"custom-call", "#f4cccc"},
    {"reference", "#e06666"},    {"copy", "#eeeeee"},
};
constexpr Category kNoStep{"no step (a name for a buffer, or inside a kernel)",
                           "#ffffff"};

Category StepCategory(absl::string_view step_class) {
  for (const Category& c : kStepClasses) {
    if (step_class == c.name) return c;
  }
  return {"other steps", "#cccccc"};
}

bool IsOneOf(absl::string_view op, std::initializer_list<const char*> ops) {
  for (const char* o : ops) {
    if (op == o) return true;
  }
  return false;
}

Category CategoryOf(const Instruction& h) {
  const absl::string_view op = HloOpcodeString(h.opcode());
  if (op == "parameter") return kParameter;
  if (IsOneOf(op, {"constant", "iota", "rng-get-and-update-state"})) {
    return kConstant;
  }
  if (IsOneOf(op, {"dot", "convolution", "fft", "cholesky", "triangular-solve",
                   "ragged-dot", "scaled-dot", "topk"})) {
    return kCompute;
  }
  if (IsOneOf(op, {"transpose", "copy", "reshape", "bitcast", "broadcast",
                   "slice", "concatenate", "pad", "gather", "scatter",
                   "dynamic-slice", "dynamic-update-slice", "reverse",
                   "copy-start", "copy-done", "dynamic-reshape"})) {
    return kMovement;
  }
  if (IsOneOf(op, {"while", "conditional", "call", "async-start",
                   "async-update", "async-done", "add-dependency", "after-all",
                   "optimization-barrier", "domain"})) {
    return kControl;
  }
  if (absl::StartsWith(op, "all-") || absl::StartsWith(op, "collective-") ||
      absl::StartsWith(op, "reduce-scatter") ||
      absl::StartsWith(op, "ragged-all-to-all") ||
      IsOneOf(op, {"send", "recv", "send-done", "recv-done", "infeed",
                   "outfeed", "replica-id", "partition-id"})) {
    return kCollective;
  }
  if (op == "custom-call") return kCustomCall;
  if (IsOneOf(op, {"tuple", "get-tuple-element"})) return kTuple;
  return kElementwise;
}

// DOT string contents: quotes and backslashes escaped, newlines as \n.
std::string Escape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Computations applied element by element or as comparators (reduce's
// to_apply, sort's comparator, ...): named in their caller's label.
bool AppliesToApply(const Instruction& h) {
  const absl::string_view op = HloOpcodeString(h.opcode());
  return IsOneOf(
      op, {"reduce", "reduce-window", "map", "sort", "scatter",
           "select-and-scatter", "all-reduce", "all-reduce-start",
           "reduce-scatter", "reduce-scatter-start", "topk", "custom-call"});
}

class DotWriter {
 public:
  DotWriter(const Module& module, const DotOptions& options)
      : module_(module), options_(options) {}

  std::string Write() {
    ClassifyComputations();
    out_ += "digraph \"" + Escape(module_.name()) + "\" {\n";
    out_ +=
        "  compound=true; rankdir=TB; newrank=true;\n"
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
        "fontsize=10];\n"
        "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
    std::string title = "HloModule " + module_.name();
    if (!options_.subtitle.empty()) title += "\n" + options_.subtitle;
    out_ += "  label=\"" + Escape(title) +
            "\"; labelloc=t; fontname=\"Helvetica\";\n";
    // The entry first, then the others in post order (callees first).
    std::vector<const Computation*> order;
    if (module_.entry_computation() != nullptr) {
      order.push_back(module_.entry_computation());
    }
    for (const Computation* c : module_.MakeComputationPostOrder()) {
      if (c != module_.entry_computation()) order.push_back(c);
    }
    for (const Computation* c : order) {
      if (inlined_.count(c)) continue;
      WriteComputationCluster(*c);
    }
    out_ += edges_;
    WriteLegend();
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  // Fusion bodies are drawn inside their fusions; applied computations are
  // named, not drawn.
  void ClassifyComputations() {
    for (const Computation* c : module_.computations()) {
      for (const Instruction* h : c->instructions()) {
        if (h->opcode() == HloOpcode::kFusion) {
          for (const Computation* called : h->called_computations()) {
            inlined_.insert(called);
          }
        } else if (AppliesToApply(*h)) {
          for (const Computation* called : h->called_computations()) {
            inlined_.insert(called);
          }
        }
      }
    }
  }

  // The node of `h` drawn in `context` (the fusion it sits in, or null).
  const std::string& NodeId(const Instruction* context, const Instruction* h) {
    auto [it, inserted] = ids_.try_emplace({context, h}, "");
    if (inserted) it->second = absl::StrCat("n", ids_.size());
    return it->second;
  }

  // Where the value of `h` comes out: a fusion's value leaves its body's
  // root.
  std::string OutNode(const Instruction* context, const Instruction* h) {
    if (h->opcode() == HloOpcode::kFusion &&
        !h->called_computations().empty()) {
      const Computation* body = h->called_computations()[0];
      return OutNode(h, body->root_instruction());
    }
    return NodeId(context, h);
  }

  std::string Label(const Instruction& h) {
    std::string label =
        h.name() + "\n" + std::string(HloOpcodeString(h.opcode()));
    const absl::string_view op = HloOpcodeString(h.opcode());
    if (op == "parameter") {
      absl::StrAppend(&label, "(", h.parameter_number(), ")");
    } else if (op == "get-tuple-element") {
      absl::StrAppend(&label, " index=", h.tuple_index());
    } else if (op == "constant" && h.attrs().literal != nullptr &&
               h.shape().IsArray() && ShapeUtil::ElementsIn(h.shape()) <= 8) {
      std::string value = h.literal().ToStringWithoutShape();
      if (value.size() > 40) value = value.substr(0, 37) + "...";
      absl::StrAppend(&label, " ", value);
    } else if (op == "custom-call") {
      absl::StrAppend(&label, "\n\"", h.attrs().custom_call_target, "\"");
    }
    if (AppliesToApply(h) && !h.called_computations().empty()) {
      absl::StrAppend(&label,
                      "\nto_apply=", h.called_computations()[0]->name());
    }
    absl::StrAppend(&label, "\n", h.shape().ToString(/*print_layout=*/true));
    return label;
  }

  // The step class of `h`, when the graph is drawn by steps and `h` is one.
  const std::string* StepOf(const Instruction& h) const {
    if (options_.steps.empty() || h.parent() == nullptr) return nullptr;
    auto it = options_.steps.find({h.parent()->name(), h.name()});
    return it == options_.steps.end() ? nullptr : &it->second;
  }

  Category NodeCategory(const Instruction& h) const {
    if (options_.steps.empty()) return CategoryOf(h);
    const std::string* step = StepOf(h);
    return step == nullptr ? kNoStep : StepCategory(*step);
  }

  void WriteNode(const Instruction* context, const Instruction& h, bool is_root,
                 const std::string& indent) {
    const Category category = NodeCategory(h);
    used_categories_.insert(category.name);
    out_ += indent + NodeId(context, &h) + " [label=\"" + Escape(Label(h)) +
            "\", fillcolor=\"" + category.fill + "\"";
    if (is_root) out_ += ", peripheries=2";
    out_ += "];\n";
  }

  void WriteEdge(const std::string& from, const std::string& to,
                 const std::string& attributes) {
    edges_ += "  " + from + " -> " + to + " [" + attributes + "];\n";
  }

  // The instructions of `c` drawn in `context`, with their edges; fusions
  // become nested clusters.
  void WriteInstructions(const Computation& c, const Instruction* context,
                         const std::string& indent) {
    for (const Instruction* h : c.MakeInstructionPostOrder()) {
      if (h->opcode() == HloOpcode::kFusion &&
          !h->called_computations().empty()) {
        WriteFusion(*h, context, indent);
      } else {
        WriteNode(context, *h, h == c.root_instruction(), indent);
      }
      // Operand edges; a fusion's operands feed its body's parameters.
      for (int64_t i = 0; i < h->operand_count(); ++i) {
        const Instruction* operand = h->operand(i);
        std::string to;
        if (h->opcode() == HloOpcode::kFusion &&
            !h->called_computations().empty()) {
          const Computation* body = h->called_computations()[0];
          if (i >= body->num_parameters()) continue;
          to = NodeId(h, body->parameter_instruction(i));
        } else {
          to = NodeId(context, h);
        }
        WriteEdge(OutNode(context, operand), to,
                  "label=\"" +
                      Escape(operand->shape().ToString(/*print_layout=*/true)) +
                      "\"");
      }
      for (const Instruction* pred : h->control_predecessors()) {
        WriteEdge(OutNode(context, pred), OutNode(context, h),
                  "style=dotted, color=\"#cc0000\", label=\"control\"");
      }
      // Called computations drawn as clusters of their own.
      if (h->opcode() != HloOpcode::kFusion) {
        for (const Computation* called : h->called_computations()) {
          if (inlined_.count(called) || called->root_instruction() == nullptr) {
            continue;
          }
          WriteEdge(OutNode(context, h),
                    OutNode(nullptr, called->root_instruction()),
                    "style=dashed, color=\"#674ea7\", lhead=\"" +
                        ClusterName(*called) + "\", label=\"calls\"");
        }
      }
    }
  }

  void WriteFusion(const Instruction& fusion, const Instruction* context,
                   const std::string& indent) {
    const Computation* body = fusion.called_computations()[0];
    out_ += indent + "subgraph \"cluster_fusion_" + NodeId(context, &fusion) +
            "\" {\n";
    std::string fill = "#fdf6e3";
    std::string step_line;
    if (const std::string* step = StepOf(fusion)) {
      const Category category = StepCategory(*step);
      used_categories_.insert(category.name);
      fill = category.fill;
      step_line = "\nstep: " + *step;
    }
    out_ +=
        indent + "  label=\"" +
        Escape(absl::StrCat(fusion.name(), "\nfusion (",
                            FusionKindString(fusion.attrs().fusion_kind), ")\n",
                            fusion.shape().ToString(true), step_line)) +
        "\"; style=\"filled,rounded\"; fillcolor=\"" + fill +
        "\"; color=\"#b45f06\";\n";
    WriteInstructions(*body, &fusion, indent + "  ");
    out_ += indent + "}\n";
  }

  static std::string ClusterName(const Computation& c) {
    return "cluster_" + c.name();
  }

  void WriteComputationCluster(const Computation& c) {
    out_ += "  subgraph \"" + Escape(ClusterName(c)) + "\" {\n";
    std::string label = c.name();
    if (&c == module_.entry_computation()) label = "ENTRY " + label;
    out_ += "    label=\"" + Escape(label) +
            "\"; style=rounded; color=\"#999999\";\n";
    WriteInstructions(c, nullptr, "    ");
    out_ += "  }\n";
  }

  void WriteLegend() {
    out_ +=
        "  subgraph cluster_legend {\n"
        "    label=\"legend\"; style=dashed; color=\"#bbbbbb\";\n";
    std::vector<Category> legend;
    if (options_.steps.empty()) {
      legend = {kParameter,  kConstant,   kCompute, kMovement,   kControl,
                kCollective, kCustomCall, kTuple,   kElementwise};
    } else {
      legend.assign(std::begin(kStepClasses), std::end(kStepClasses));
      legend.push_back(StepCategory(""));
      legend.push_back(kNoStep);
    }
    int i = 0;
    for (const Category& category : legend) {
      if (!used_categories_.count(category.name)) continue;
      out_ += absl::StrCat("    legend", i++, " [label=\"", category.name,
                           "\", fillcolor=\"", category.fill, "\"];\n");
    }
    out_ += "  }\n";
  }

  const Module& module_;
  const DotOptions& options_;
  std::set<const Computation*> inlined_;
  std::map<std::pair<const Instruction*, const Instruction*>, std::string> ids_;
  std::set<std::string> used_categories_;
  std::string out_;
  std::string edges_;
};

}  // namespace

absl::StatusOr<StepClasses> ParseSteps(absl::string_view text) {
  StepClasses out;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 4 || fields[0].empty() || fields[1].empty() ||
        fields[2].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "steps line ", line_number,
          ": expected computation, instruction, class and kind separated by "
          "tabs, got '",
          line, "'"));
    }
    if (fields[1] == "-") continue;  // a step of no instruction (a copy)
    out.try_emplace({std::string(fields[0]), std::string(fields[1])},
                    std::string(fields[2]));
  }
  return out;
}

std::string ModuleToDot(const Module& module, const DotOptions& options) {
  return DotWriter(module, options).Write();
}

absl::Status WriteGraph(absl::string_view dot, const std::string& path) {
  const size_t dot_pos = path.rfind('.');
  const std::string ext =
      dot_pos == std::string::npos ? "" : path.substr(dot_pos + 1);
  if (ext == "dot" || ext == "gv") {
    std::ofstream out(path, std::ios::binary);
    out.write(dot.data(), static_cast<std::streamsize>(dot.size()));
    out.close();
    if (!out) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write '", path, "'"));
    }
    return absl::OkStatus();
  }
  if (ext != "svg" && ext != "png" && ext != "pdf") {
    return absl::InvalidArgumentError(
        absl::StrCat("'", path,
                     "': the picture's format comes from its extension: "
                     ".svg, .png, .pdf, or .dot/.gv for the graph itself"));
  }
  // Graphviz reads the graph from a file beside nothing of ours.
  char tmp[] = "/tmp/plexa-graph-XXXXXX";
  const int fd = mkstemp(tmp);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat(
        "cannot make a temporary file for Graphviz: ", std::strerror(errno)));
  }
  const std::string input = tmp;
  size_t written = 0;
  while (written < dot.size()) {
    const ssize_t n = ::write(fd, dot.data() + written, dot.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  ::close(fd);
  if (written != dot.size()) {
    std::remove(input.c_str());
    return absl::InternalError("cannot write the graph for Graphviz");
  }
  const std::string format = "-T" + ext;
  std::vector<std::string> argv_strings = {"dot", format, input, "-o", path};
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ);
  if (spawned != 0) {
    std::remove(input.c_str());
    if (spawned == ENOENT) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot draw '", path,
          "': Graphviz's `dot` is not installed (apt install graphviz), or "
          "write the graph itself with a .dot extension"));
    }
    return absl::InternalError(absl::StrCat("cannot start Graphviz's `dot`: ",
                                            std::strerror(spawned)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::remove(input.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat("Graphviz's `dot ", format,
                                            "` failed writing '", path, "'"));
  }
  return absl::OkStatus();
}

}  // namespace plexa::graph
