// Builder core: handles, sticky errors, Build/BuildModule, sub-builders,
// parameters and constants, MakePadding.
#include <cmath>
#include <limits>

#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BuilderCoreTest, AxpyModule) {
  Builder b("axpy");
  Op a = b.Parameter(0, F32({}), "a");
  Op x = b.Parameter(1, F32({4}), "x");
  Op y = b.Parameter(2, F32({4}), "y");
  Op r = b.Add(b.Mul(a, x), y);
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, F32({4}));
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, r));
  EXPECT_EQ(m->name(), "axpy");
  ASSERT_EQ(m->computation_count(), 1);
  const Computation& entry = *m->entry_computation();
  EXPECT_EQ(entry.num_parameters(), 3);
  EXPECT_EQ(entry.root_instruction()->opcode(), HloOpcode::kAdd);
  // The scalar a is broadcast explicitly (seed 003: scalar with array).
  EXPECT_THAT(
      Summaries(entry),
      ElementsAre("parameter f32[]", "parameter f32[4]", "parameter f32[4]",
                  "broadcast f32[4] {}", "multiply f32[4]", "add f32[4]"));
}

TEST(BuilderCoreTest, StickyErrorKeepsTheFirst) {
  Builder b("sticky");
  Op m = b.Parameter(0, F32({2, 3}), "m");
  Op v = b.Parameter(1, F32({3}), "v");
  Op bad = b.Add(m, v);  // different ranks, no broadcast_dimensions
  EXPECT_FALSE(bad.valid());
  EXPECT_FALSE(b.ok());
  const absl::Status first = b.first_error();
  EXPECT_EQ(first.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(first.message()), HasSubstr("Add: "));
  EXPECT_THAT(std::string(first.message()), HasSubstr("f32[2,3]"));
  EXPECT_THAT(std::string(first.message()), HasSubstr("f32[3]"));
  // Later operations do nothing and keep the first error, even valid ones.
  Op also_bad = b.Sub(b.Parameter(2, S32({7}), "z"), m);
  EXPECT_FALSE(also_bad.valid());
  Op fine = b.Neg(m);
  EXPECT_FALSE(fine.valid());
  EXPECT_EQ(b.first_error(), first);
  absl::StatusOr<std::unique_ptr<Module>> mod = b.BuildModule(m);
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.status(), first);
  EXPECT_TRUE(absl::StartsWith(first.message(), "Add: ")) << first;
}

TEST(BuilderCoreTest, OperatorsForwardToTheBuilder) {
  Builder b("ops");
  Op x = b.Parameter(0, F32({2}), "x");
  Op y = b.Parameter(1, F32({2}), "y");
  // One operator per statement: the evaluation order of operands is
  // unspecified and decides the instruction order.
  Op sum = x + y;
  Op difference = x - y;
  Op product = sum * difference;
  Op r = -(product / y);
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*m->entry_computation()),
              ElementsAre("parameter f32[2]", "parameter f32[2]", "add f32[2]",
                          "subtract f32[2]", "multiply f32[2]", "divide f32[2]",
                          "negate f32[2]"));
  EXPECT_FALSE((Op() + Op()).valid());
}

TEST(BuilderCoreTest, DefaultOpIsRejected) {
  Builder b("default_op");
  Op x = b.Parameter(0, F32({2}), "x");
  b.Add(x, Op());
  ExpectBuildError(b, "Add", {"invalid (default-constructed) Op"});
}

TEST(BuilderCoreTest, OpOfAnotherBuilderIsRejected) {
  Builder a("a");
  Builder b("b");
  Op xa = a.Parameter(0, F32({2}), "x");
  Op xb = b.Parameter(0, F32({2}), "x");
  b.Add(xb, xa);
  ExpectBuildError(b, "Add", {"another builder", "\"b\""});
  EXPECT_TRUE(a.ok());
}

TEST(BuilderCoreTest, DuplicateAndNegativeParameters) {
  Builder b("dup");
  b.Parameter(0, F32({2}), "x");
  b.Parameter(0, F32({3}), "y");
  ExpectBuildError(b, "Parameter", {"parameter 0 is already defined"});
  Builder c("neg");
  c.Parameter(-1, F32({2}), "x");
  ExpectBuildError(c, "Parameter", {"must be in [0, 1048576)", "-1"});
  Builder h("huge");
  h.Parameter(int64_t{1} << 40, F32({2}), "x");
  ExpectBuildError(h, "Parameter", {"1099511627776"});
}

TEST(BuilderCoreTest, InvalidParameterShape) {
  Builder b("bad_shape");
  b.Parameter(0, F32({2, -3}), "x");
  ExpectBuildError(b, "Parameter", {});
}

TEST(BuilderCoreTest, NamesBecomeHloIdentifiers) {
  Builder b("my module/v2");
  EXPECT_EQ(b.name(), "my_module_v2");
  std::unique_ptr<Builder> sub = b.CreateSubBuilder("1st reducer");
  EXPECT_EQ(sub->name(), "_1st_reducer");
  Op x = b.Parameter(0, F32({2}), "input #1");
  Op y = b.Parameter(1, F32({2}), "input #1");  // made unique by the IR
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, b.Add(x, y)));
  EXPECT_EQ(m->name(), "my_module_v2");
  EXPECT_THAT(EntryLines(*m),
              ElementsAre("%input__1 = f32[2] parameter(0)",
                          "%input__1.0 = f32[2] parameter(1)",
                          "ROOT %add.0 = f32[2] add(%input__1, %input__1.0)"));
}

TEST(BuilderCoreTest, ParameterGapFailsBuild) {
  Builder b("gap");
  Op x = b.Parameter(1, F32({2}), "x");
  absl::StatusOr<std::unique_ptr<Module>> m = b.BuildModule(x);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("parameter 0 is missing"));
}

TEST(BuilderCoreTest, ParameterKeepsItsLayout) {
  Builder b("layout");
  const Shape with_layout =
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3}, {0, 1});
  Op x = b.Parameter(0, with_layout, "x");
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(x));
  EXPECT_EQ(s, with_layout);
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, b.Neg(x)));
  EXPECT_THAT(Text(*m), HasSubstr("f32[2,3]{0,1}"));
}

TEST(BuilderCoreTest, BuildTwiceAndUseAfterBuild) {
  Builder b("twice");
  Op x = b.Parameter(0, F32({2}), "x");
  ASSERT_OK_AND_ASSIGN(auto m, b.BuildModule(x));
  absl::StatusOr<std::unique_ptr<Module>> again = b.BuildModule(x);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  Op after = b.Neg(x);
  EXPECT_FALSE(after.valid());
  EXPECT_EQ(b.first_error().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(b.first_error().message()),
              HasSubstr("Neg: builder \"twice\" was already built"));
}

TEST(BuilderCoreTest, BuildWithoutRootUsesTheLastOperation) {
  Builder b("last");
  Op x = b.Parameter(0, F32({2}), "x");
  b.Exp(x);
  ASSERT_OK_AND_ASSIGN(auto m, b.BuildModule());
  EXPECT_EQ(m->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kExp);
  Builder empty("empty");
  EXPECT_FALSE(empty.BuildModule().ok());
}

TEST(BuilderCoreTest, SubComputationsAreAttachedCalleesFirst) {
  Builder b("sum");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  // Built but never called: not part of the module.
  Computation* unused =
      ScalarComputation(b, "unused", PrimitiveType::F32, HloOpcode::kMultiply);
  ASSERT_NE(unused, nullptr);
  Op x = b.Parameter(0, F32({4}), "x");
  Op r = b.Reduce(x, b.ConstantR0<float>(0.0f), add, {0});
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, r));
  std::vector<Computation*> cs = m->computations();
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0]->name(), "add");
  EXPECT_EQ(cs[1], m->entry_computation());
  EXPECT_EQ(m->entry_computation()->root_instruction()->to_apply(), add);
  // Building again from the family is refused once the module exists.
  std::unique_ptr<Builder> late = b.CreateSubBuilder("late");
  Op p = late->Parameter(0, F32({}), "p");
  absl::StatusOr<Computation*> c = late->Build(p);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(BuilderCoreTest, NestedSubBuildersShareThePool) {
  // while (i < 10) { i = i + reduce(v) }, the reducer built by a
  // sub-builder of the body's sub-builder.
  Builder b("nested");
  const Shape state = Tup({S32({}), S32({3})});
  std::unique_ptr<Builder> body = b.CreateSubBuilder("body");
  Computation* add =
      ScalarComputation(*body, "add", PrimitiveType::S32, HloOpcode::kAdd);
  Op s = body->Parameter(0, state, "s");
  Op i = body->GetTupleElement(s, 0);
  Op v = body->GetTupleElement(s, 1);
  Op sum = body->Reduce(v, body->ConstantR0<int32_t>(0), add, {0});
  ASSERT_OK_AND_ASSIGN(Computation * body_c,
                       body->Build(body->Tuple({body->Add(i, sum), v})));
  std::unique_ptr<Builder> cond = b.CreateSubBuilder("cond");
  Op cs = cond->Parameter(0, state, "s");
  ASSERT_OK_AND_ASSIGN(Computation * cond_c,
                       cond->Build(cond->Lt(cond->GetTupleElement(cs, 0),
                                            cond->ConstantR0<int32_t>(10))));
  Op w = b.While(cond_c, body_c, b.Parameter(0, state, "init"));
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, w));
  std::vector<std::string> names;
  for (const Computation* c : m->computations()) names.push_back(c->name());
  EXPECT_THAT(names, ElementsAre("cond", "add", "body", "nested"));
  EXPECT_EQ(m->entry_computation()->name(), "nested");
}

TEST(BuilderCoreTest, ComputationOfAnotherFamilyIsRejected) {
  Builder other("other");
  Computation* add =
      ScalarComputation(other, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Builder b("main");
  Op x = b.Parameter(0, F32({4}), "x");
  b.Reduce(x, b.ConstantR0<float>(0.0f), add, {0});
  ExpectBuildError(b, "Reduce", {"not built by a builder of this family"});
  Builder c("null");
  Op y = c.Parameter(0, F32({4}), "y");
  c.Reduce(y, c.ConstantR0<float>(0.0f), nullptr, {0});
  ExpectBuildError(c, "Reduce", {"computation is null"});
}

TEST(BuilderCoreTest, BuildModuleOnSubBuilderFails) {
  Builder b("top");
  std::unique_ptr<Builder> sub = b.CreateSubBuilder("sub");
  Op x = sub->Parameter(0, F32({}), "x");
  absl::StatusOr<std::unique_ptr<Module>> m = sub->BuildModule(x);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("sub-builder"));
}

TEST(BuilderCoreTest, Constants) {
  Builder b("constants");
  Op r0 = b.ConstantR0<float>(2.5f);
  Op r1 = b.ConstantR1<int32_t>({1, 2, 3});
  Op r2 = b.ConstantR2<float>({{1, 2, 3}, {4, 5, 6}});
  Op h = b.ConstantScalar(PrimitiveType::F16, 1.5);
  Op p = b.ConstantR0<bool>(true);
  Op z = b.Zero(PrimitiveType::U8);
  Op one = b.One(PrimitiveType::F64);
  ASSERT_OK_AND_ASSIGN(Shape s0, b.GetShape(r0));
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(r1));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(r2));
  ASSERT_OK_AND_ASSIGN(Shape sh, b.GetShape(h));
  EXPECT_EQ(s0, F32({}));
  EXPECT_EQ(s1, S32({3}));
  EXPECT_EQ(s2, F32({2, 3}));
  EXPECT_EQ(sh, S(PrimitiveType::F16, {}));
  Op t = b.Tuple({r0, r1, r2, h, p, z, one});
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, t));
  const std::vector<Instruction*> insts =
      m->entry_computation()->instructions();
  ASSERT_GE(insts.size(), 3u);
  EXPECT_EQ(insts[1]->literal().GetAsInt64({2}), 3);
  EXPECT_EQ(insts[2]->literal().GetAsDouble({1, 0}), 4.0);
  EXPECT_EQ(insts[3]->literal().GetAsDouble({}), 1.5);
  const std::string text = Text(*m);
  EXPECT_THAT(text, HasSubstr("constant(2.5)"));
  EXPECT_THAT(text, HasSubstr("constant({1, 2, 3})"));
  EXPECT_THAT(text, HasSubstr("constant(true)"));
}

TEST(BuilderCoreTest, ConstantScalarOfNonArrayTypeFails) {
  Builder b("bad_constant");
  b.ConstantScalar(PrimitiveType::TUPLE, 1.0);
  ExpectBuildError(b, "ConstantScalar", {"array element type"});
}

TEST(BuilderCoreTest, Iota) {
  Builder b("iota");
  Op i = b.Iota(S32({2, 3}), 1);
  Op j = b.Iota(PrimitiveType::F32, 5);
  ASSERT_OK_AND_ASSIGN(Shape si, b.GetShape(i));
  ASSERT_OK_AND_ASSIGN(Shape sj, b.GetShape(j));
  EXPECT_EQ(si, S32({2, 3}));
  EXPECT_EQ(sj, F32({5}));
  ASSERT_OK_AND_ASSIGN(auto m, BuildChecked(b, b.Tuple({i, j})));
  EXPECT_THAT(Text(*m), HasSubstr("iota_dimension=1"));
  Builder bad("bad_iota");
  bad.Iota(S32({2, 3}), 2);
  ExpectBuildError(bad, "Iota", {"s32[2,3]"});
}

TEST(BuilderCoreTest, MakePaddingSameAndValid) {
  // kSame: out = ceil(in / stride), total = max(0, (out-1)*stride + w - in),
  // low = total / 2 (hand-computed).
  ASSERT_OK_AND_ASSIGN(auto p, MakePadding({5, 5, 5, 4, 1}, {3, 2, 3, 3, 4},
                                           {1, 1, 2, 2, 1}, Padding::kSame));
  using P = std::pair<int64_t, int64_t>;
  EXPECT_THAT(p, ElementsAre(P(1, 1), P(0, 1), P(1, 1), P(0, 1), P(1, 2)));
  ASSERT_OK_AND_ASSIGN(auto v,
                       MakePadding({5, 7}, {3, 2}, {1, 3}, Padding::kValid));
  EXPECT_THAT(v, ElementsAre(P(0, 0), P(0, 0)));
  EXPECT_FALSE(MakePadding({5}, {3}, {0}, Padding::kSame).ok());
  EXPECT_FALSE(MakePadding({5, 5}, {3}, {1}, Padding::kSame).ok());
}

TEST(BuilderCoreTest, DefaultConvDimensionNumbers) {
  ConvolutionDimensionNumbers d = MakeDefaultConvDimensionNumbers(2);
  EXPECT_EQ(d.input_batch_dimension, 0);
  EXPECT_EQ(d.input_feature_dimension, 1);
  EXPECT_EQ(d.kernel_output_feature_dimension, 0);
  EXPECT_EQ(d.kernel_input_feature_dimension, 1);
  EXPECT_THAT(d.input_spatial_dimensions, ElementsAre(2, 3));
  EXPECT_THAT(d.kernel_spatial_dimensions, ElementsAre(2, 3));
  EXPECT_THAT(d.output_spatial_dimensions, ElementsAre(2, 3));
}

}  // namespace
}  // namespace plexa::builder_test
