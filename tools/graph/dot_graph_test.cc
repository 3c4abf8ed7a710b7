#include "tools/graph/dot_graph.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::graph {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kProgram[] = R"(
HloModule pictures

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

fused {
  p0 = f32[2,3] parameter(0)
  p1 = f32[2,3] parameter(1)
  m = f32[2,3] multiply(p0, p1)
  ROOT e = f32[2,3] exponential(m)
}

cond {
  t = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  t = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  x = f32[2,3] get-tuple-element(t), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT next = (s32[], f32[2,3]) tuple(j, x)
}

ENTRY main {
  x = f32[2,3]{0,1} parameter(0)
  y = f32[2,3] parameter(1)
  f = f32[2,3] fusion(x, y), kind=kLoop, calls=fused
  zero = f32[] constant(0)
  r = f32[2] reduce(f, zero), dimensions={1}, to_apply=add
  c0 = s32[] constant(0)
  init = (s32[], f32[2,3]) tuple(c0, f)
  w = (s32[], f32[2,3]) while(init), condition=cond, body=body
  out = f32[2,3] get-tuple-element(w), index=1
  note = f32[2] custom-call(r), custom_call_target="say \"hi\"", control-predecessors={w}
  ROOT result = (f32[2], f32[2,3]) tuple(note, out)
}
)";

std::string Dot() {
  auto module = ParseHloModule(kProgram);
  EXPECT_TRUE(module.ok()) << module.status();
  DotOptions options;
  options.subtitle = "after nothing";
  return ModuleToDot(**module, options);
}

TEST(DotGraphTest, EveryInstructionOfADrawnComputationIsANode) {
  const std::string dot = Dot();
  // Entry, while body and condition, and the fusion's body (inside its box).
  for (const char* name : {"x", "y", "zero", "r", "c0", "init", "w", "out",
                           "note", "result", "p0", "p1", "m", "e", "lt", "j"}) {
    EXPECT_THAT(dot, HasSubstr(std::string("label=\"") + name + "\\n")) << name;
  }
  EXPECT_THAT(dot, HasSubstr("HloModule pictures\\nafter nothing"));
}

TEST(DotGraphTest, ComputationsAreClustersAndTheFusionIsABoxInTheEntry) {
  const std::string dot = Dot();
  EXPECT_THAT(dot, HasSubstr("subgraph \"cluster_main\""));
  EXPECT_THAT(dot, HasSubstr("label=\"ENTRY main\""));
  EXPECT_THAT(dot, HasSubstr("subgraph \"cluster_body\""));
  EXPECT_THAT(dot, HasSubstr("subgraph \"cluster_cond\""));
  // The fused computation is drawn only inside the fusion's box, which sits
  // inside the entry's cluster (it opens before the entry's closes).
  EXPECT_THAT(dot, Not(HasSubstr("subgraph \"cluster_fused\"")));
  const size_t entry = dot.find("subgraph \"cluster_main\"");
  const size_t box = dot.find("subgraph \"cluster_fusion_");
  const size_t body = dot.find("subgraph \"cluster_body\"");
  ASSERT_NE(box, std::string::npos);
  EXPECT_LT(entry, box);
  EXPECT_LT(box, body);
  // Default layouts are not printed (as XLA's printer), others are.
  EXPECT_THAT(dot, HasSubstr("\"f\\nfusion (kLoop)\\nf32[2,3]\""));
  // The reducer is named, not drawn.
  EXPECT_THAT(dot, HasSubstr("to_apply=add"));
  EXPECT_THAT(dot, Not(HasSubstr("cluster_add")));
}

// The node id whose label starts with `name`.
std::string IdOf(const std::string& dot, const std::string& name) {
  const size_t at = dot.find("[label=\"" + name + "\\n");
  EXPECT_NE(at, std::string::npos) << name;
  const size_t start = dot.rfind('\n', at) + 1;
  std::string id = dot.substr(start, at - start);
  while (!id.empty() && (id.front() == ' ')) id.erase(0, 1);
  while (!id.empty() && (id.back() == ' ')) id.pop_back();
  return id;
}

TEST(DotGraphTest, EdgesCarryShapesAndFusionsConnectThroughTheirBodies) {
  const std::string dot = Dot();
  // x (layout {0,1}) feeds the fusion's parameter 0; its shape is on the edge.
  EXPECT_THAT(dot, HasSubstr("  " + IdOf(dot, "x") + " -> " + IdOf(dot, "p0") +
                             " [label=\"f32[2,3]{0,1}\"]"));
  EXPECT_THAT(dot, HasSubstr("  " + IdOf(dot, "y") + " -> " + IdOf(dot, "p1") +
                             " [label=\"f32[2,3]\"]"));
  // The fusion's value leaves its body's root, e, towards the reduce.
  EXPECT_THAT(dot, HasSubstr("  " + IdOf(dot, "e") + " -> " + IdOf(dot, "r") +
                             " [label=\"f32[2,3]\"]"));
  // The while calls its body and condition (dashed, to their clusters).
  EXPECT_THAT(dot, HasSubstr(IdOf(dot, "w") + " -> " + IdOf(dot, "next") +
                             " [style=dashed, color=\"#674ea7\", "
                             "lhead=\"cluster_body\""));
  EXPECT_THAT(dot, HasSubstr(IdOf(dot, "w") + " -> " + IdOf(dot, "lt") +
                             " [style=dashed, color=\"#674ea7\", "
                             "lhead=\"cluster_cond\""));
  // The control dependency is dotted.
  EXPECT_THAT(dot, HasSubstr(IdOf(dot, "w") + " -> " + IdOf(dot, "note") +
                             " [style=dotted"));
}

TEST(DotGraphTest, RootsAreDoubledAndKindsColouredWithALegend) {
  const std::string dot = Dot();
  const size_t result = dot.find("[label=\"result\\n");
  ASSERT_NE(result, std::string::npos);
  const std::string line = dot.substr(result, dot.find('\n', result) - result);
  EXPECT_THAT(line, HasSubstr("peripheries=2"));
  const size_t x = dot.find("[label=\"x\\n");
  const std::string x_line = dot.substr(x, dot.find('\n', x) - x);
  EXPECT_THAT(x_line, Not(HasSubstr("peripheries")));
  EXPECT_THAT(x_line, HasSubstr("fillcolor=\"#cfe2f3\""));  // a parameter
  EXPECT_THAT(dot, HasSubstr("subgraph cluster_legend"));
  EXPECT_THAT(dot, HasSubstr("label=\"custom call\", fillcolor=\"#f4cccc\""));
  // No matrix product here: no legend entry for one.
  EXPECT_THAT(dot, Not(HasSubstr("dot, convolution")));
}

TEST(DotGraphTest, QuotesInNamesAreEscaped) {
  const std::string dot = Dot();
  // The target `say "hi"` in the label: each quote escaped once.
  EXPECT_THAT(dot, HasSubstr("\\n\\\"say \\\"hi\\\"\\\"\\n"));
}

TEST(DotGraphTest, StepFilesAreReadLineByLine) {
  auto steps = ParseSteps(
      "# a comment\n"
      "main\tf\tkernel\tfusion\n"
      "main\t-\tcopy\t-\n"
      "body\tj\treference\tadd\n"
      "main\tf\tcopy\tcopy\n");  // a second step of f: its first class stays
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->size(), 2u);
  EXPECT_EQ(steps->at({"main", "f"}), "kernel");
  EXPECT_EQ(steps->at({"body", "j"}), "reference");

  auto bad = ParseSteps("# header\nmain\tf\tkernel\nbody\tj\treference\tadd\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("steps line 2"));
}

// The line of the node or cluster whose label starts with `label`.
std::string LineOf(const std::string& dot, const std::string& label) {
  const size_t at = dot.find("label=\"" + label + "\\n");
  EXPECT_NE(at, std::string::npos) << label;
  if (at == std::string::npos) return "";
  return dot.substr(at, dot.find('\n', at) - at);
}

TEST(DotGraphTest, StepsColourTheirInstructionsAndTheRestIsWhite) {
  auto module = ParseHloModule(kProgram);
  ASSERT_TRUE(module.ok()) << module.status();
  DotOptions options;
  options.steps = {
      {{"main", "f"}, "kernel"},        {{"main", "r"}, "reference"},
      {{"main", "w"}, "control-flow"},  {{"main", "note"}, "custom-call"},
      {{"body", "j"}, "gemm"},  // not what an add is: as told
      {{"cond", "lt"}, "no-such-class"}};
  const std::string dot = ModuleToDot(**module, options);
  // The fusion's box takes its kernel's colour and names the step.
  EXPECT_THAT(LineOf(dot, "f"), HasSubstr("step: kernel"));
  EXPECT_THAT(LineOf(dot, "f"), HasSubstr("fillcolor=\"#ffe599\""));
  EXPECT_THAT(LineOf(dot, "r"), HasSubstr("fillcolor=\"#e06666\""));
  EXPECT_THAT(LineOf(dot, "w"), HasSubstr("fillcolor=\"#d9d2e9\""));
  EXPECT_THAT(LineOf(dot, "note"), HasSubstr("fillcolor=\"#f4cccc\""));
  EXPECT_THAT(LineOf(dot, "j"), HasSubstr("fillcolor=\"#f6b26b\""));
  EXPECT_THAT(LineOf(dot, "lt"), HasSubstr("fillcolor=\"#cccccc\""));
  // No step of their own: a parameter, a tuple, the kernel's insides.
  for (const char* name : {"x", "init", "m", "e"}) {
    EXPECT_THAT(LineOf(dot, name), HasSubstr("fillcolor=\"#ffffff\"")) << name;
  }
  // The legend lists the step classes drawn, not the kinds.
  EXPECT_THAT(dot, HasSubstr("label=\"reference\", fillcolor=\"#e06666\""));
  EXPECT_THAT(dot, HasSubstr("label=\"gemm\", fillcolor=\"#f6b26b\""));
  EXPECT_THAT(dot, HasSubstr("label=\"other steps\""));
  EXPECT_THAT(dot, Not(HasSubstr("label=\"convolution\", fillcolor")));
  EXPECT_THAT(dot, Not(HasSubstr("label=\"custom call\", fillcolor")));
}

TEST(DotGraphTest, WriteGraphWritesDotAndRefusesAnUnknownFormat) {
  char dir[] = "/tmp/plexa-graph-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/g.dot";
  ASSERT_TRUE(WriteGraph("digraph g { a -> b; }\n", path).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "digraph g { a -> b; }\n");
  std::remove(path.c_str());

  absl::Status bad = WriteGraph("digraph g {}", std::string(dir) + "/g.jpeg");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("g.jpeg"));
  EXPECT_THAT(bad.message(), HasSubstr(".svg"));

  absl::Status unwritable =
      WriteGraph("digraph g {}", "/nonexistent/dir/g.dot");
  EXPECT_FALSE(unwritable.ok());
  EXPECT_THAT(unwritable.message(), HasSubstr("/nonexistent/dir/g.dot"));
  rmdir(dir);
}

}  // namespace
}  // namespace plexa::graph
