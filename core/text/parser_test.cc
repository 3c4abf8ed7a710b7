// Parsing every opcode with each of its attributes into the IR; names,
// operands, forward references, comments and the module structure.
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/literal/literal.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// Parses `body` as the entry computation of a module; `prefix` holds other
// computations.
std::unique_ptr<Module> ParseEntry(absl::string_view body,
                                   absl::string_view prefix = "") {
  const std::string text = absl::StrCat("HloModule test\n\n", prefix,
                                        "\nENTRY %entry {\n", body, "\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

// Looks in the entry computation first, then the others.
const Instruction* Find(const Module& m, absl::string_view name) {
  if (m.entry_computation() != nullptr) {
    if (const Instruction* i =
            m.entry_computation()->GetInstructionWithName(name)) {
      return i;
    }
  }
  for (const Computation* c : m.computations()) {
    if (const Instruction* i = c->GetInstructionWithName(name)) return i;
  }
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

constexpr absl::string_view kAdd = R"(
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %x, f32[] %y)
}
)";

constexpr absl::string_view kLess = R"(
%less (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %lt = pred[] compare(f32[] %a, f32[] %b), direction=LT
}
)";

TEST(ParserTest, ModuleStructureFromXlaDump) {
  auto m = ParseEntry(R"(  %p = f32[2,3]{1,0} parameter(0)
  %c = f32[] constant(2)
  %b = f32[2,3]{1,0} broadcast(f32[] %c), dimensions={}
  ROOT %r = f32[2,3]{1,0} add(f32[2,3]{1,0} %p, f32[2,3]{1,0} %b))");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->name(), "test");
  ASSERT_EQ(m->computation_count(), 1);
  const Computation* e = m->entry_computation();
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name(), "entry");
  EXPECT_EQ(e->instruction_count(), 4);
  EXPECT_EQ(e->root_instruction()->name(), "r");
  EXPECT_EQ(e->num_parameters(), 1);
  const Instruction* r = e->root_instruction();
  EXPECT_EQ(r->opcode(), HloOpcode::kAdd);
  EXPECT_EQ(r->shape().ToString(), "f32[2,3]{1,0}");
  ASSERT_EQ(r->operand_count(), 2);
  EXPECT_EQ(r->operand(0)->name(), "p");
  EXPECT_EQ(r->operand(1)->name(), "b");
  EXPECT_EQ(Find(*m, "b")->dimensions().size(), 0u);
  // Insertion order is text order.
  std::vector<std::string> names;
  for (const Instruction* i : e->instructions()) names.push_back(i->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p", "c", "b", "r"}));
}

TEST(ParserTest, ModuleHeaderAttributes) {
  auto m = ParseHloModule(
      "HloModule jit_f, is_scheduled=true, entry_computation_layout={(f32[2,3]"
      "{1,0}, s32[])->(f32[2,3]{0,1}, token[])}, "
      "allow_spmd_sharding_propagation_to_output={true}, replica_count=2\n"
      "ENTRY %main { %p = f32[2,3]{1,0} parameter(0)\n"
      " %q = s32[] parameter(1)\n %t = token[] after-all()\n"
      " ROOT %r = (f32[2,3]{0,1}, token[]) tuple(%p, %t) }");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE((*m)->entry_computation_layout().has_value());
  const ProgramShape& ps = *(*m)->entry_computation_layout();
  ASSERT_EQ(ps.parameters.size(), 2u);
  EXPECT_EQ(ps.parameters[0].ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(ps.parameters[1].ToString(), "s32[]");
  EXPECT_EQ(ps.result.ToString(), "(f32[2,3]{0,1}, token[])");
  const auto& attrs = (*m)->opaque_attributes();
  ASSERT_EQ(attrs.size(), 3u);
  EXPECT_EQ(attrs[0],
            std::make_pair(std::string("is_scheduled"), std::string("true")));
  EXPECT_EQ(attrs[1].first, "allow_spmd_sharding_propagation_to_output");
  EXPECT_EQ(attrs[1].second, "{true}");
  EXPECT_EQ(attrs[2].second, "2");
}

TEST(ParserTest, StructuredModuleAttributesKeptVerbatim) {
  auto m = ParseHloModule(
      "HloModule SyncTensorsGraph.212, input_output_alias={ {0}: (1, {}, "
      "must-alias), {1}: (0, {}, may-alias) }, buffer_donor={ (0, {}) },\n"
      "  frontend_attributes={xla.sdy.meshes=\"{mesh = "
      "#sdy.mesh<[\\\"x\\\"=8]>}\"}\n"
      "ENTRY %e {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %t = (f32[], f32[]) tuple(%a, %b)\n}\n");
  ASSERT_TRUE(m.ok()) << m.status();
  const auto& attrs = (*m)->opaque_attributes();
  ASSERT_EQ(attrs.size(), 3u);
  EXPECT_EQ(attrs[0].first, "input_output_alias");
  EXPECT_EQ(attrs[0].second,
            "{ {0}: (1, {}, must-alias), {1}: (0, {}, may-alias) }");
  EXPECT_EQ(attrs[1].second, "{ (0, {}) }");
  EXPECT_EQ(attrs[2].second,
            "{xla.sdy.meshes=\"{mesh = #sdy.mesh<[\\\"x\\\"=8]>}\"}");
}

TEST(ParserTest, NamesWithoutPercentOperandsWithoutShapes) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY main.5 {
  Arg_0.1 = f32[2]{0} parameter(0)
  my-name_x.3 = f32[2]{0} negate(Arg_0.1)
  ROOT add.4 = f32[2]{0} add(%my-name_x.3, f32[2]{0} Arg_0.1)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  const Instruction* r = (*m)->entry_computation()->root_instruction();
  EXPECT_EQ(r->name(), "add.4");
  EXPECT_EQ(r->operand(0)->name(), "my-name_x.3");
  EXPECT_EQ(r->operand(1)->name(), "Arg_0.1");
}

TEST(ParserTest, ForwardReferencesToInstructionsAndComputations) {
  auto m = ParseHloModule(R"(HloModule m
ENTRY %main {
  %a = f32[] add(f32[] %b, f32[] %c)
  %b = f32[] parameter(0)
  ROOT %r = f32[] call(f32[] %a), to_apply=%later
  %c = f32[] constant(1)
}
%later {
  ROOT %p = f32[] parameter(0)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  const Module& mod = **m;
  EXPECT_EQ(mod.entry_computation()->name(), "main");
  const Instruction* a = Find(mod, "a");
  EXPECT_EQ(a->operand(0)->name(), "b");
  EXPECT_EQ(a->operand(1)->name(), "c");
  const Instruction* r = mod.entry_computation()->root_instruction();
  EXPECT_EQ(r->name(), "r");  // ROOT is not the last instruction here
  ASSERT_EQ(r->called_computations().size(), 1u);
  EXPECT_EQ(r->to_apply()->name(), "later");
}

TEST(ParserTest, LastComputationIsEntryAndLastInstructionIsRootByDefault) {
  auto m = ParseHloModule(R"(HloModule m
%first { ROOT %x = f32[] parameter(0) }
%second {
  %y = f32[] parameter(0)
  %z = f32[] negate(%y)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->entry_computation()->name(), "second");
  EXPECT_EQ((*m)->entry_computation()->root_instruction()->name(), "z");
}

TEST(ParserTest, ModuleWithoutHeader) {
  auto m = ParseHloModule("ENTRY main { ROOT p = f32[] parameter(0) }");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "module_main");
}

TEST(ParserTest, CommentsAnywhere) {
  auto m = ParseHloModule(R"(// leading comment
HloModule /* name */ m, /* attr */ is_scheduled=true // trailing
/* between */ ENTRY %main (p: f32[2] /* shape */) -> f32[2] { // body
  %p = f32[/*dims*/2]{0 /* layout */} parameter(/*n*/0) // param
  ROOT /* root */ %n = f32[2]{0} negate(/*op*/ f32[2]{0} %p), metadata={op_name="a" /* inside */ op_type="b"}
} // end
)");
  ASSERT_TRUE(m.ok()) << m.status();
  const Instruction* n = (*m)->entry_computation()->root_instruction();
  ASSERT_EQ(n->attrs().opaque.size(), 1u);
  // Comments inside verbatim values are dropped, whitespace collapsed.
  EXPECT_EQ(n->attrs().opaque[0].second, R"({op_name="a" op_type="b"})");
  EXPECT_EQ((*m)->opaque_attributes()[0].second, "true");
}

TEST(ParserTest, ComputationSignatureIsOptionalAndChecked) {
  auto ok = ParseHloModule(
      "HloModule m\nENTRY %e (a: f32[2], b: (s32[], f32[])) -> f32[2] {\n"
      "  %a = f32[2]{0} parameter(0)\n  %b = (s32[], f32[]) parameter(1)\n"
      "  ROOT %n = f32[2]{0} negate(%a)\n}");
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST(ParserTest, StackFrameIndexAndExecutionThreadAreDropped) {
  auto m =
      ParseHloModule(R"(HloModule m, entry_computation_layout={(f32[])->f32[]}

FileNames
1 "/tmp/a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=2 end_column=9}
StackFrames
1 {file_location_id=1 parent_frame_id=1}

%async_body {
  ROOT %q = f32[] parameter(0)
}, execution_thread="host"

ENTRY %main {
  %p = f32[] parameter(0), metadata={op_name="x" stack_frame_id=1}
  ROOT %c = f32[] call(%p), to_apply=%async_body
})");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->computation_count(), 2);
}

TEST(ParserTest, NestedOperandsOldForm) {
  auto m = ParseEntry(R"(  %x = f32[] parameter(0)
  ROOT %r = f32[] add(f32[] sqrt(f32[] %x), f32[] negate(f32[] abs(f32[] %x))))");
  ASSERT_NE(m, nullptr);
  const Instruction* r = m->entry_computation()->root_instruction();
  EXPECT_EQ(r->operand(0)->opcode(), HloOpcode::kSqrt);
  EXPECT_EQ(r->operand(0)->name(), "sqrt.anon");
  EXPECT_EQ(r->operand(1)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(r->operand(1)->operand(0)->opcode(), HloOpcode::kAbs);
  EXPECT_EQ(m->entry_computation()->instruction_count(), 5);
}

TEST(ParserTest, NestedOperandNamesAvoidWrittenNames) {
  auto m = ParseEntry(R"(  %sqrt.anon = f32[] parameter(0)
  ROOT %r = f32[] add(f32[] sqrt(f32[] %sqrt.anon), f32[] sqrt(f32[] %sqrt.anon)))");
  ASSERT_NE(m, nullptr);
  const Instruction* r = m->entry_computation()->root_instruction();
  EXPECT_EQ(r->operand(0)->name(), "sqrt.anon.1");
  EXPECT_EQ(r->operand(1)->name(), "sqrt.anon.2");
}

TEST(ParserTest, ByteOrderMarkAndCarriageReturns) {
  auto m = ParseHloModule(
      "\xEF\xBB\xBFHloModule m\r\nENTRY e {\r\n\tROOT p = f32[] "
      "parameter(0)\r\n}\r\n");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "m");
}

TEST(ParserTest, ParameterAndConstants) {
  auto m = ParseEntry(R"(  %p1 = s32[] parameter(1)
  %p0 = f32[2]{0} parameter(0)
  %f = f32[3]{0} constant({nan, -inf, 2.5})
  %b = pred[2,2]{1,0} constant({ { true, false }, { 0, 1 } })
  %u = u64[] constant(18446744073709551615)
  %s = s64[] constant(-9223372036854775808)
  %h = f16[2]{0} constant({65504, -0.5})
  %z = c128[] constant((1, -2.5))
  %e = f32[2,0,3]{2,1,0} constant({ { /*i0=0*/ }, { /*i0=1*/ } })
  %t = (f32[], (s8[2], pred[])) constant((1, ({-128, 127}, true)))
  ROOT %r = f32[] constant(3.14))");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "p1")->parameter_number(), 1);
  EXPECT_EQ(Find(*m, "p0")->parameter_number(), 0);
  EXPECT_EQ(m->entry_computation()->parameter_instruction(1)->name(), "p1");
  const Literal& f = Find(*m, "f")->literal();
  EXPECT_TRUE(std::isnan(f.GetAsDouble({0})));
  EXPECT_EQ(f.GetAsDouble({1}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(f.GetAsDouble({2}), 2.5);
  const Literal& b = Find(*m, "b")->literal();
  EXPECT_EQ(b.GetAsInt64({0, 0}), 1);
  EXPECT_EQ(b.GetAsInt64({0, 1}), 0);
  EXPECT_EQ(b.GetAsInt64({1, 0}), 0);
  EXPECT_EQ(b.GetAsInt64({1, 1}), 1);
  EXPECT_EQ(Find(*m, "u")->literal().GetAsUint64({}),
            std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Find(*m, "s")->literal().GetAsInt64({}),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Find(*m, "h")->literal().GetAsDouble({0}), 65504.0);
  EXPECT_EQ(Find(*m, "h")->literal().GetAsDouble({1}), -0.5);
  EXPECT_EQ(Find(*m, "z")->literal().GetAsComplex({}),
            std::complex<double>(1, -2.5));
  EXPECT_EQ(Find(*m, "e")->literal().element_count(), 0);
  const Literal& t = Find(*m, "t")->literal();
  ASSERT_EQ(t.tuple_element_count(), 2);
  EXPECT_EQ(t.tuple_element(0).GetAsDouble({}), 1.0);
  EXPECT_EQ(t.tuple_element(1).tuple_element(0).GetAsInt64({0}), -128);
  EXPECT_EQ(t.tuple_element(1).tuple_element(0).GetAsInt64({1}), 127);
  EXPECT_EQ(t.tuple_element(1).tuple_element(1).GetAsInt64({}), 1);
  EXPECT_FLOAT_EQ(
      static_cast<float>(
          m->entry_computation()->root_instruction()->literal().GetAsDouble(
              {})),
      3.14f);
}

TEST(ParserTest, ConstantElidedByXlaReadsAsZeros) {
  auto m = ParseEntry("  ROOT %c = f32[3,4]{1,0} constant({...})");
  ASSERT_NE(m, nullptr);
  const Literal& l = m->entry_computation()->root_instruction()->literal();
  EXPECT_EQ(l.element_count(), 12);
  EXPECT_EQ(l.GetAsDouble({2, 3}), 0.0);
}

TEST(ParserTest, ConstantLayoutIsKept) {
  auto m =
      ParseEntry("  ROOT %c = f32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })");
  ASSERT_NE(m, nullptr);
  const Instruction* c = m->entry_computation()->root_instruction();
  EXPECT_EQ(c->shape().ToString(), "f32[2,2]{0,1}");
  EXPECT_EQ(c->literal().GetAsDouble({0, 1}), 2.0);
  EXPECT_EQ(c->literal().GetAsDouble({1, 0}), 3.0);
}

TEST(ParserTest, DimensionsAttributes) {
  auto m = ParseEntry(R"(  %p = f32[2,3]{1,0} parameter(0)
  %b = f32[4,2,3]{2,1,0} broadcast(%p), dimensions={1,2}
  %t = f32[3,2]{1,0} transpose(%p), dimensions={1,0}
  %v = f32[2,3]{1,0} reverse(%p), dimensions={0}
  %c = f32[4,3]{1,0} concatenate(%p, %p), dimensions={0}
  %g = s32[] get-dimension-size(%p), dimensions={1}
  %i = s32[2,3]{1,0} iota(), iota_dimension=1
  %tu = (f32[2,3]{1,0}, s32[]) tuple(%p, %g)
  ROOT %e = s32[] get-tuple-element(%tu), index=1)",
                      "");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "b")->attrs().dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Find(*m, "t")->attrs().dimensions, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Find(*m, "v")->attrs().dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(Find(*m, "c")->attrs().dimensions, (std::vector<int64_t>{0}));
  EXPECT_EQ(Find(*m, "g")->attrs().dimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(Find(*m, "i")->attrs().iota_dimension, 1);
  EXPECT_EQ(Find(*m, "e")->tuple_index(), 1);
}

TEST(ParserTest, ReduceSortMapCall) {
  auto m = ParseEntry(R"(  %p = f32[4,5]{1,0} parameter(0)
  %z = f32[] constant(0)
  %r = f32[4]{0} reduce(%p, %z), dimensions={1}, to_apply=%add
  %s = (f32[4,5]{1,0}, f32[4,5]{1,0}) sort(%p, %p), dimensions={1}, is_stable=true, to_apply=%less4
  %m = f32[4,5]{1,0} map(%p, %p), dimensions={0,1}, to_apply=%add
  ROOT %c = f32[] call(%z, %z), to_apply=%add)",
                      absl::StrCat(kAdd, R"(
%less4 (a: f32[], b: f32[], c: f32[], d: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %c = f32[] parameter(2)
  %d = f32[] parameter(3)
  ROOT %lt = pred[] compare(%a, %b), direction=LT
}
)"));
  ASSERT_NE(m, nullptr);
  const Instruction* r = Find(*m, "r");
  EXPECT_EQ(r->attrs().dimensions, (std::vector<int64_t>{1}));
  EXPECT_EQ(r->to_apply()->name(), "add");
  const Instruction* s = Find(*m, "s");
  EXPECT_TRUE(s->attrs().is_stable);
  EXPECT_EQ(s->to_apply()->name(), "less4");
  EXPECT_EQ(Find(*m, "m")->attrs().dimensions, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Find(*m, "c")->to_apply()->name(), "add");
  EXPECT_FALSE(Find(*m, "lt")->attrs().is_stable);
}

TEST(ParserTest, ConvolutionWindowAndDimLabels) {
  auto m = ParseEntry(R"(  %x = f32[1,8,8,3]{3,2,1,0} parameter(0)
  %k = f32[3,3,3,16]{3,2,1,0} parameter(1)
  %c2 = f32[1,4,4,16]{3,2,1,0} convolution(%x, %k), window={size=3x3 stride=2x2 pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=2x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=2, batch_group_count=3
  %x1 = f32[2,3,10]{2,1,0} parameter(2)
  %k1 = f32[3,4,5]{2,1,0} parameter(3)
  %c1 = f32[2,4,8]{2,1,0} convolution(%x1, %k1), window={size=3}, dim_labels=bf0_io0->bf0
  %x3 = f32[1,2,4,4,4]{4,3,2,1,0} parameter(4)
  %k3 = f32[2,2,2,2,8]{4,3,2,1,0} parameter(5)
  ROOT %c3 = f32[1,3,3,3,8]{4,3,2,1,0} convolution(%x3, %k3), window={size=2x2x2}, dim_labels=bf012_012io->bf012)");
  ASSERT_NE(m, nullptr);
  const InstructionAttrs& a = Find(*m, "c2")->attrs();
  ASSERT_TRUE(a.window.has_value());
  ASSERT_EQ(a.window->dimensions.size(), 2u);
  const WindowDimension& d0 = a.window->dimensions[0];
  const WindowDimension& d1 = a.window->dimensions[1];
  EXPECT_EQ(d0.size, 3);
  EXPECT_EQ(d0.stride, 2);
  EXPECT_EQ(d0.padding_low, 1);
  EXPECT_EQ(d0.padding_high, 1);
  EXPECT_EQ(d1.padding_low, 0);
  EXPECT_EQ(d1.padding_high, -1);
  EXPECT_EQ(d0.base_dilation, 1);
  EXPECT_EQ(d1.base_dilation, 2);
  EXPECT_EQ(d0.window_dilation, 2);
  EXPECT_EQ(d1.window_dilation, 1);
  EXPECT_TRUE(d0.window_reversal);
  EXPECT_FALSE(d1.window_reversal);
  ASSERT_TRUE(a.convolution_dimension_numbers.has_value());
  const ConvolutionDimensionNumbers& dn = *a.convolution_dimension_numbers;
  EXPECT_EQ(dn.input_batch_dimension, 0);
  EXPECT_EQ(dn.input_feature_dimension, 3);
  EXPECT_EQ(dn.input_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dn.kernel_input_feature_dimension, 2);
  EXPECT_EQ(dn.kernel_output_feature_dimension, 3);
  EXPECT_EQ(dn.kernel_spatial_dimensions, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(dn.output_batch_dimension, 0);
  EXPECT_EQ(dn.output_feature_dimension, 3);
  EXPECT_EQ(dn.output_spatial_dimensions, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(a.feature_group_count, 2);
  EXPECT_EQ(a.batch_group_count, 3);

  const InstructionAttrs& a1 = Find(*m, "c1")->attrs();
  EXPECT_EQ(a1.window->dimensions.size(), 1u);
  EXPECT_EQ(a1.window->dimensions[0].stride, 1);
  EXPECT_EQ(a1.convolution_dimension_numbers->input_spatial_dimensions,
            (std::vector<int64_t>{2}));
  EXPECT_EQ(a1.convolution_dimension_numbers->kernel_input_feature_dimension,
            0);
  EXPECT_EQ(a1.convolution_dimension_numbers->kernel_spatial_dimensions,
            (std::vector<int64_t>{2}));
  EXPECT_EQ(a1.feature_group_count, 1);

  const ConvolutionDimensionNumbers& d3 =
      *Find(*m, "c3")->attrs().convolution_dimension_numbers;
  EXPECT_EQ(d3.input_feature_dimension, 1);
  EXPECT_EQ(d3.input_spatial_dimensions, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(d3.kernel_spatial_dimensions, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(d3.kernel_output_feature_dimension, 4);
}

TEST(ParserTest, DimLabelsWithPermutedSpatialAndUnused) {
  auto m = ParseEntry(R"(  %x = f32[1,4,4,3]{3,2,1,0} parameter(0)
  %k = f32[3,3,3,8]{3,2,1,0} parameter(1)
  ROOT %c = f32[1,4,4,8]{3,2,1,0} convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b10f_10io->b10f)");
  ASSERT_NE(m, nullptr);
  const ConvolutionDimensionNumbers& d = *m->entry_computation()
                                              ->root_instruction()
                                              ->attrs()
                                              .convolution_dimension_numbers;
  // "b10f": spatial dimension 0 is at position 2, dimension 1 at position 1.
  EXPECT_EQ(d.input_spatial_dimensions, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(d.kernel_spatial_dimensions, (std::vector<int64_t>{1, 0}));
}

TEST(ParserTest, ReduceWindowAndSelectAndScatter) {
  auto m = ParseEntry(R"(  %x = f32[4,6]{1,0} parameter(0)
  %z = f32[] constant(0)
  %rw = f32[2,3]{1,0} reduce-window(%x, %z), window={size=2x2 stride=2x2}, to_apply=%add
  ROOT %ss = f32[4,6]{1,0} select-and-scatter(%x, %rw, %z), window={size=2x2 stride=2x2}, select=%ge, scatter=%add)",
                      absl::StrCat(kAdd, R"(
%ge (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=GE
})"));
  ASSERT_NE(m, nullptr);
  const Instruction* rw = Find(*m, "rw");
  EXPECT_EQ(rw->attrs().window->dimensions[1].stride, 2);
  EXPECT_EQ(rw->to_apply()->name(), "add");
  const Instruction* ss = Find(*m, "ss");
  EXPECT_EQ(ss->select()->name(), "ge");
  EXPECT_EQ(ss->scatter()->name(), "add");
  EXPECT_EQ(ss->attrs().window->dimensions.size(), 2u);
}

TEST(ParserTest, Dot) {
  auto m = ParseEntry(R"(  %a = f32[2,3,4]{2,1,0} parameter(0)
  %b = f32[2,4,5]{2,1,0} parameter(1)
  ROOT %d = f32[2,3,5]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,default})");
  ASSERT_NE(m, nullptr);
  const InstructionAttrs& a =
      m->entry_computation()->root_instruction()->attrs();
  ASSERT_TRUE(a.dot_dimension_numbers.has_value());
  EXPECT_EQ(a.dot_dimension_numbers->lhs_batch_dimensions,
            (std::vector<int64_t>{0}));
  EXPECT_EQ(a.dot_dimension_numbers->rhs_batch_dimensions,
            (std::vector<int64_t>{0}));
  EXPECT_EQ(a.dot_dimension_numbers->lhs_contracting_dimensions,
            (std::vector<int64_t>{2}));
  EXPECT_EQ(a.dot_dimension_numbers->rhs_contracting_dimensions,
            (std::vector<int64_t>{1}));
  // Not interpreted by Plexa: kept verbatim.
  ASSERT_EQ(a.opaque.size(), 1u);
  EXPECT_EQ(a.opaque[0].first, "operand_precision");
  EXPECT_EQ(a.opaque[0].second, "{highest,default}");
}

TEST(ParserTest, PadSliceDynamicSlice) {
  auto m = ParseEntry(R"(  %x = f32[4,6]{1,0} parameter(0)
  %z = f32[] constant(0)
  %p3 = f32[8,12]{1,0} pad(%x, %z), padding=0_1_1x2_-1_1
  %p2 = f32[5,6]{1,0} pad(%x, %z), padding=1_0x0_0
  %s = f32[2,3]{1,0} slice(%x), slice={[0:4:2], [1:4]}
  %i = s32[] parameter(1)
  ROOT %ds = f32[2,3]{1,0} dynamic-slice(%x, %i, %i), dynamic_slice_sizes={2,3})");
  ASSERT_NE(m, nullptr);
  const PaddingConfig& p3 = *Find(*m, "p3")->attrs().padding_config;
  ASSERT_EQ(p3.dimensions.size(), 2u);
  EXPECT_EQ(p3.dimensions[0].edge_padding_low, 0);
  EXPECT_EQ(p3.dimensions[0].edge_padding_high, 1);
  EXPECT_EQ(p3.dimensions[0].interior_padding, 1);
  EXPECT_EQ(p3.dimensions[1].edge_padding_low, 2);
  EXPECT_EQ(p3.dimensions[1].edge_padding_high, -1);
  EXPECT_EQ(p3.dimensions[1].interior_padding, 1);
  const PaddingConfig& p2 = *Find(*m, "p2")->attrs().padding_config;
  EXPECT_EQ(p2.dimensions[0].edge_padding_low, 1);
  EXPECT_EQ(p2.dimensions[0].interior_padding, 0);
  const auto& s = Find(*m, "s")->attrs().slice;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], (SliceDimension{0, 4, 2}));
  EXPECT_EQ(s[1], (SliceDimension{1, 4, 1}));
  EXPECT_EQ(Find(*m, "ds")->attrs().dynamic_slice_sizes,
            (std::vector<int64_t>{2, 3}));
}

TEST(ParserTest, GatherAndScatter) {
  auto m = ParseEntry(R"(  %x = f32[2,5,3]{2,1,0} parameter(0)
  %idx = s32[2,4,1]{2,1,0} parameter(1)
  %g = f32[2,4,3]{2,1,0} gather(%x, %idx), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,3}, indices_are_sorted=true
  ROOT %s = f32[2,5,3]{2,1,0} scatter(%x, %idx, %g), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, indices_are_sorted=true, unique_indices=true, to_apply=%add)",
                      kAdd);
  ASSERT_NE(m, nullptr);
  const InstructionAttrs& g = Find(*m, "g")->attrs();
  ASSERT_TRUE(g.gather_dimension_numbers.has_value());
  const GatherDimensionNumbers& gd = *g.gather_dimension_numbers;
  EXPECT_EQ(gd.offset_dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(gd.collapsed_slice_dims, (std::vector<int64_t>{1}));
  EXPECT_EQ(gd.start_index_map, (std::vector<int64_t>{1}));
  EXPECT_EQ(gd.operand_batching_dims, (std::vector<int64_t>{0}));
  EXPECT_EQ(gd.start_indices_batching_dims, (std::vector<int64_t>{0}));
  EXPECT_EQ(gd.index_vector_dim, 2);
  EXPECT_EQ(g.gather_slice_sizes, (std::vector<int64_t>{1, 1, 3}));
  EXPECT_TRUE(g.indices_are_sorted);
  EXPECT_FALSE(g.unique_indices);
  const InstructionAttrs& s = Find(*m, "s")->attrs();
  ASSERT_TRUE(s.scatter_dimension_numbers.has_value());
  const ScatterDimensionNumbers& sd = *s.scatter_dimension_numbers;
  EXPECT_EQ(sd.update_window_dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(sd.inserted_window_dims, (std::vector<int64_t>{1}));
  EXPECT_EQ(sd.scatter_dims_to_operand_dims, (std::vector<int64_t>{1}));
  EXPECT_EQ(sd.input_batching_dims, (std::vector<int64_t>{0}));
  EXPECT_EQ(sd.scatter_indices_batching_dims, (std::vector<int64_t>{0}));
  EXPECT_EQ(sd.index_vector_dim, 2);
  EXPECT_TRUE(s.indices_are_sorted);
  EXPECT_TRUE(s.unique_indices);
  EXPECT_EQ(Find(*m, "s")->to_apply()->name(), "add");
}

TEST(ParserTest, CompareRngReducePrecisionBatchNorm) {
  auto m = ParseEntry(R"(  %a = f32[8]{0} parameter(0)
  %c1 = pred[8]{0} compare(%a, %a), direction=GE
  %c2 = pred[8]{0} compare(%a, %a), direction=NE, type=TOTALORDER
  %lo = f32[] constant(0)
  %r = f32[8]{0} rng(%lo, %lo), distribution=rng_normal
  %rp = f32[8]{0} reduce-precision(%a), exponent_bits=8, mantissa_bits=7
  %x = f32[2,8]{1,0} parameter(1)
  ROOT %bn = f32[2,8]{1,0} batch-norm-inference(%x, %a, %a, %a, %a), epsilon=1e-05, feature_index=1)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "c1")->attrs().comparison_direction,
            ComparisonDirection::kGe);
  EXPECT_EQ(Find(*m, "c1")->attrs().comparison_type, ComparisonType::kDefault);
  EXPECT_EQ(Find(*m, "c2")->attrs().comparison_direction,
            ComparisonDirection::kNe);
  EXPECT_EQ(Find(*m, "c2")->attrs().comparison_type,
            ComparisonType::kFloatTotalOrder);
  EXPECT_EQ(Find(*m, "r")->attrs().distribution, RandomDistribution::kNormal);
  EXPECT_EQ(Find(*m, "rp")->attrs().exponent_bits, 8);
  EXPECT_EQ(Find(*m, "rp")->attrs().mantissa_bits, 7);
  EXPECT_EQ(Find(*m, "bn")->attrs().epsilon, 1e-05f);
  EXPECT_EQ(Find(*m, "bn")->attrs().feature_index, 1);
}

TEST(ParserTest, RngBitGenerator) {
  auto m = ParseEntry(R"(  %s = u64[2]{0} parameter(0)
  %s3 = u64[3]{0} parameter(1)
  %tf = (u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(%s), algorithm=rng_three_fry
  %ph = (u64[3]{0}, u64[4]{0}) rng-bit-generator(%s3), algorithm=rng_philox
  ROOT %df = (u64[2]{0}, s32[]) rng-bit-generator(%s), algorithm=rng_default)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "tf")->opcode(), HloOpcode::kRngBitGenerator);
  EXPECT_EQ(Find(*m, "tf")->attrs().rng_algorithm, RandomAlgorithm::kThreeFry);
  EXPECT_EQ(Find(*m, "ph")->attrs().rng_algorithm, RandomAlgorithm::kPhilox);
  EXPECT_EQ(Find(*m, "df")->attrs().rng_algorithm, RandomAlgorithm::kDefault);
  EXPECT_EQ(Find(*m, "tf")->shape().ToString(), "(u64[2]{0}, u32[2,3]{1,0})");
}

TEST(ParserTest, CustomCall) {
  auto m = ParseEntry(R"(  %a = f32[4]{0} parameter(0)
  %c1 = f32[4]{0} custom-call(%a), custom_call_target="my\"target", api_version=API_VERSION_TYPED_FFI, operand_layout_constraints={f32[4]{0}}, custom_call_has_side_effect=true, backend_config={"k": {"n": "}"}}
  %c2 = f32[4]{0} custom-call(%a, %a), custom_call_target="t2", backend_config="raw \"text\"", schedule=SCHEDULE_LATEST
  %c3 = f32[] custom-call(), custom_call_target="t3", to_apply=%add
  %c4 = f32[] custom-call(), custom_call_target="t4", called_computations={%add, %add}
  %x = f32[1,4,4,3]{3,2,1,0} parameter(1)
  %k = f32[3,3,3,8]{3,2,1,0} parameter(2)
  ROOT %c5 = f32[1,4,4,8]{3,2,1,0} custom-call(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, custom_call_target="__cudnn$convForward", api_version=api_version_status_returning)",
                      kAdd);
  ASSERT_NE(m, nullptr);
  const InstructionAttrs& a1 = Find(*m, "c1")->attrs();
  EXPECT_EQ(a1.custom_call_target, "my\"target");
  EXPECT_EQ(a1.api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_TRUE(a1.has_layout_constraints);
  ASSERT_EQ(a1.operand_shapes_with_layout.size(), 1u);
  EXPECT_EQ(a1.operand_shapes_with_layout[0].ToString(), "f32[4]{0}");
  EXPECT_TRUE(a1.custom_call_has_side_effect);
  EXPECT_EQ(a1.backend_config, R"({"k": {"n": "}"}})");
  const InstructionAttrs& a2 = Find(*m, "c2")->attrs();
  EXPECT_EQ(a2.backend_config, "raw \"text\"");
  EXPECT_EQ(a2.api_version, CustomCallApiVersion::kUnspecified);
  EXPECT_FALSE(a2.has_layout_constraints);
  ASSERT_EQ(a2.opaque.size(), 1u);
  EXPECT_EQ(a2.opaque[0].first, "schedule");
  EXPECT_EQ(a2.opaque[0].second, "SCHEDULE_LATEST");
  EXPECT_EQ(Find(*m, "c3")->to_apply()->name(), "add");
  EXPECT_EQ(Find(*m, "c4")->called_computations().size(), 2u);
  const InstructionAttrs& a5 = Find(*m, "c5")->attrs();
  EXPECT_EQ(a5.window->dimensions.size(), 2u);
  EXPECT_EQ(a5.convolution_dimension_numbers->input_feature_dimension, 3);
  EXPECT_EQ(a5.api_version, CustomCallApiVersion::kStatusReturning);
}

TEST(ParserTest, AllReduceReplicaGroups) {
  auto m = ParseEntry(R"(  %a = f32[4]{0} parameter(0)
  %r1 = f32[4]{0} all-reduce(%a), replica_groups={{0,1},{2,3}}, to_apply=%add
  %r2 = f32[4]{0} all-reduce(%a), channel_id=7, replica_groups=[2,4]<=[8], use_global_device_ids=true, constrain_layout=true, to_apply=%add
  %r3 = f32[4]{0} all-reduce(%a), replica_groups=[2,4]<=[4,2]T(1,0), to_apply=%add
  ROOT %r4 = f32[4]{0} all-reduce(%a), replica_groups={}, to_apply=%add)",
                      kAdd);
  ASSERT_NE(m, nullptr);
  using Groups = std::vector<std::vector<int64_t>>;
  const InstructionAttrs& a1 = Find(*m, "r1")->attrs();
  EXPECT_EQ(a1.replica_groups, (Groups{{0, 1}, {2, 3}}));
  EXPECT_FALSE(a1.channel_id.has_value());
  const InstructionAttrs& a2 = Find(*m, "r2")->attrs();
  EXPECT_EQ(a2.replica_groups, (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(a2.channel_id, 7);
  EXPECT_TRUE(a2.use_global_device_ids);
  EXPECT_TRUE(a2.constrain_layout);
  // iota(8) as [4,2], transposed to [2,4]: rows {0,2,4,6} and {1,3,5,7}.
  EXPECT_EQ(Find(*m, "r3")->attrs().replica_groups,
            (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_TRUE(Find(*m, "r4")->attrs().replica_groups.empty());
}

TEST(ParserTest, InfeedOutfeedFusionTriangularCholesky) {
  auto m = ParseEntry(R"(  %t = token[] after-all()
  %in = (f32[2]{0}, token[]) infeed(%t), infeed_config="cfg"
  %d = f32[2]{0} get-tuple-element(%in), index=0
  %out = token[] outfeed(%d, %t), outfeed_shape=f32[2]{0}, outfeed_config="\x41"
  %f = f32[2]{0} fusion(%d, %d), kind=kOutput, calls=%fused
  %m = f32[3,3]{1,0} parameter(0)
  %ts = f32[3,3]{1,0} triangular-solve(%m, %m), transpose_a=ADJOINT
  ROOT %ch = f32[3,3]{1,0} cholesky(%m), lower=true)",
                      R"(
%fused (p: f32[2], q: f32[2]) -> f32[2] {
  %p = f32[2]{0} parameter(0)
  %q = f32[2]{0} parameter(1)
  ROOT %s = f32[2]{0} add(%p, %q)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "in")->attrs().infeed_config, "cfg");
  EXPECT_EQ(Find(*m, "out")->attrs().outfeed_config, "A");
  ASSERT_TRUE(Find(*m, "out")->attrs().outfeed_shape.has_value());
  EXPECT_EQ(Find(*m, "out")->attrs().outfeed_shape->ToString(), "f32[2]{0}");
  EXPECT_EQ(Find(*m, "f")->attrs().fusion_kind, FusionKind::kOutput);
  EXPECT_EQ(Find(*m, "f")->called_computations()[0]->name(), "fused");
  const TriangularSolveOptions& ts =
      Find(*m, "ts")->attrs().triangular_solve_options;
  EXPECT_FALSE(ts.left_side);
  EXPECT_FALSE(ts.lower);
  EXPECT_FALSE(ts.unit_diagonal);
  EXPECT_EQ(ts.transpose_a, TriangularSolveTranspose::kAdjoint);
  EXPECT_TRUE(Find(*m, "ch")->attrs().cholesky_lower);
}

TEST(ParserTest, WhileAndConditional) {
  auto m = ParseEntry(R"(  %p = pred[] parameter(0)
  %x = f32[] parameter(1)
  %w = f32[] while(%x), body=%neg, condition=%cond
  %c = f32[] conditional(%p, %x, %x), false_computation=%neg, true_computation=%id
  %i = s32[] parameter(2)
  ROOT %b = f32[] conditional(%i, %x, %x, %x), branch_computations={%id, %neg, %id})",
                      R"(
%neg (a: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  ROOT %n = f32[] negate(%a)
}
%id (b: f32[]) -> f32[] { ROOT %b = f32[] parameter(0) }
%cond (c: f32[]) -> pred[] {
  %c = f32[] parameter(0)
  ROOT %k = pred[] constant(false)
})");
  ASSERT_NE(m, nullptr);
  const Instruction* w = Find(*m, "w");
  EXPECT_EQ(w->while_condition()->name(), "cond");
  EXPECT_EQ(w->while_body()->name(), "neg");
  const Instruction* c = Find(*m, "c");
  ASSERT_EQ(c->called_computations().size(), 2u);
  EXPECT_EQ(c->called_computations()[0]->name(), "id");
  EXPECT_EQ(c->called_computations()[1]->name(), "neg");
  const Instruction* b = Find(*m, "b");
  ASSERT_EQ(b->called_computations().size(), 3u);
  EXPECT_EQ(b->called_computations()[1]->name(), "neg");
}

TEST(ParserTest, VerbatimAttributesKeptInOrder) {
  auto m = ParseEntry(
      R"(  %p = f32[2]{0} parameter(0), sharding={devices=[2]0,1}, parameter_replication={false}
  ROOT %n = f32[2]{0} negate(%p), frontend_attributes={_xla_x="1",
      _xla_y="{2}"}, statistics={visualizing_index=1,stat-1=33}, origin={{"a"}}, some_flag=TOKEN_VALUE, note="a, b", literal=s32[2]{0} {1, 2}, metadata={op_type="neg" op_name="jit(f)/neg"}, dimensions={0})");
  ASSERT_NE(m, nullptr);
  const auto& p = Find(*m, "p")->attrs().opaque;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].second, "{devices=[2]0,1}");
  EXPECT_EQ(p[1].second, "{false}");
  const auto& n = m->entry_computation()->root_instruction()->attrs().opaque;
  ASSERT_EQ(n.size(), 8u);
  EXPECT_EQ(n[0].first, "frontend_attributes");
  EXPECT_EQ(n[0].second, R"({_xla_x="1", _xla_y="{2}"})");
  EXPECT_EQ(n[1].second, "{visualizing_index=1,stat-1=33}");
  EXPECT_EQ(n[2].second, R"({{"a"}})");
  EXPECT_EQ(n[3].second, "TOKEN_VALUE");
  EXPECT_EQ(n[4].second, R"("a, b")");
  EXPECT_EQ(n[5].first, "literal");
  EXPECT_EQ(n[5].second, "s32[2]{0} {1, 2}");
  EXPECT_EQ(n[6].first, "metadata");
  // `dimensions` is not an attribute of negate: kept verbatim, not dropped.
  EXPECT_EQ(n[7].first, "dimensions");
  EXPECT_TRUE(
      m->entry_computation()->root_instruction()->attrs().dimensions.empty());
}

TEST(ParserTest, ControlPredecessors) {
  auto m = ParseEntry(R"(  %a = f32[] parameter(0)
  %b = f32[] negate(%a), control-predecessors={%c, d}
  %c = f32[] abs(%a)
  %d = f32[] exponential(%a)
  ROOT %t = (f32[], f32[], f32[]) tuple(%b, %c, %d))");
  ASSERT_NE(m, nullptr);
  const Instruction* b = Find(*m, "b");
  ASSERT_EQ(b->control_predecessors().size(), 2u);
  EXPECT_EQ(b->control_predecessors()[0]->name(), "c");
  EXPECT_EQ(b->control_predecessors()[1]->name(), "d");
  EXPECT_EQ(Find(*m, "c")->control_successors()[0], b);
}

TEST(ParserTest, BackendConfigOnAnyOpcode) {
  auto m = ParseEntry(
      R"(  ROOT %p = f32[] parameter(0), backend_config={"operation_queue_id":"0","wait_on_operation_queues":[]})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry_computation()->root_instruction()->attrs().backend_config,
            R"({"operation_queue_id":"0","wait_on_operation_queues":[]})");
}

}  // namespace
}  // namespace plexa

namespace plexa {
namespace {

// XLA infers the shape of an instruction written without one (`ROOT add =
// add(a, b)`); so does Plexa, once the module is built: operands first,
// called computations first, then the computation's declared result is
// checked against the inferred root.
TEST(ParserTest, ShapesLeftOutAreInferred) {
  std::unique_ptr<Module> m = ParseEntry(
      "  a = f32[2,3]{1,0} parameter(0)\n"
      "  b = f32[2,3]{1,0} parameter(1)\n"
      "  m = multiply(a, b)\n"
      "  z = f32[] constant(0)\n"
      "  r = reduce(m, z), dimensions={1}, to_apply=sum\n"
      "  t = tuple(r, later)\n"
      "  later = compare(a, b), direction=LT\n"
      "  g = get-tuple-element(t), index=1\n"
      "  ROOT s = select(g, a, b)",
      "sum (x: f32[], y: f32[]) -> f32[] {\n"
      "  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
      "  ROOT s = add(x, y)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "m")->shape().ToString(true), "f32[2,3]{1,0}");
  EXPECT_EQ(Find(*m, "r")->shape().ToString(true), "f32[2]{0}");
  EXPECT_EQ(Find(*m, "t")->shape().ToString(true),
            "(f32[2]{0}, pred[2,3]{1,0})");
  EXPECT_EQ(Find(*m, "g")->shape().ToString(true), "pred[2,3]{1,0}");
  EXPECT_EQ(m->entry_computation()->root_instruction()->shape().ToString(true),
            "f32[2,3]{1,0}");
  const Computation* sum = m->entry_computation()->root_instruction() != nullptr
                               ? Find(*m, "r")->called_computations()[0]
                               : nullptr;
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->root_instruction()->shape().ToString(true), "f32[]");
}

TEST(ParserTest, AnInferredRootMustMatchTheDeclaredResult) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(
      "HloModule t\n\nENTRY main (a: f32[2]) -> s32[2] {\n"
      "  a = f32[2]{0} parameter(0)\n  ROOT n = negate(a)\n}\n");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(std::string(m.status().message()),
            "3:27: expected the result shape of the root 'n' (f32[2]), found "
            "s32[2]");
}

TEST(ParserTest, AScalarsBroadcastMayLeaveOutItsDimensions) {
  std::unique_ptr<Module> m = ParseEntry(
      "  s = f32[] parameter(0)\n"
      "  ROOT c = f32[4]{0} broadcast(s)");
  ASSERT_NE(m, nullptr);
  const Instruction* c = Find(*m, "c");
  EXPECT_TRUE(c->attrs().dimensions.empty());
  EXPECT_EQ(c->shape().ToString(true), "f32[4]{0}");
}

}  // namespace
}  // namespace plexa
