// Pictures of programs: a Module as a Graphviz graph (`plexa graph`,
// `plexa opt --pictures`).
//
// Every computation that is not drawn inside another is a cluster; the
// entry first. A fusion is a box holding its fused computation's
// instructions: the fusion's operands feed the body's parameters, and the
// body's root feeds the fusion's users. A while, conditional, call or async
// instruction points (dashed) at the clusters of the computations it calls;
// small scalar computations applied by reduce, sort, scatter and the
// collectives (`to_apply`) are named in the instruction's label instead of
// drawn. Edges carry the operand's shape with its layout; control
// dependencies are dotted. Nodes are coloured by what they are (legend in
// docs/graph.md): parameters, constants, matrix products and convolutions,
// data movement, control flow, collectives, custom calls; the root of each
// computation has a double border.
//
// Given the steps a backend runs (a plugin's dump_program files, read by
// `plexa graph --backend`), nodes are coloured by their step's class
// instead: generated kernel, GEMM, convolution, library primitive, runtime
// routine, collective, control flow, custom call, evaluator fallback, copy;
// what is no step of its own (parameters, tuples, the instructions inside a
// fused kernel) is white, and a fusion's box takes its kernel's colour.
#ifndef PLEXA_TOOLS_GRAPH_DOT_GRAPH_H_
#define PLEXA_TOOLS_GRAPH_DOT_GRAPH_H_

#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"

namespace plexa::graph {

// The class of each step ("kernel", "gemm", ...) by (computation,
// instruction) name.
using StepClasses = std::map<std::pair<std::string, std::string>, std::string>;

struct DotOptions {
  // A line under the module's name in the graph's title (the pass after
  // which it was drawn, say).
  std::string subtitle;
  // When not empty: colour by step class (see the file comment).
  StepClasses steps;
};

// Reads a steps file as the toolkit's plugins write it (one line per step:
// computation, instruction, class, kind, tab-separated; '#' lines are
// comments). An instruction with several steps takes its first one's
// class. Errors name the line.
absl::StatusOr<StepClasses> ParseSteps(absl::string_view text);

// The module in Graphviz's DOT language.
std::string ModuleToDot(const Module& module, const DotOptions& options = {});

// Writes `dot` to `path`: as DOT when the path ends in ".dot" or ".gv", else
// rendered by Graphviz's `dot` program in the format the extension names
// (".svg", ".png", ".pdf"). Errors name the path, and say when Graphviz is
// not installed.
absl::Status WriteGraph(absl::string_view dot, const std::string& path);

}  // namespace plexa::graph

#endif  // PLEXA_TOOLS_GRAPH_DOT_GRAPH_H_
