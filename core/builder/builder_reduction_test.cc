// Reduce (single and variadic), reduce-window, select-and-scatter, sort.
#include <cmath>
#include <limits>

#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ReduceTest, SeedShapes) {
  // 2x3 reduced over 0 or 1; the 4x2x3 example over 0, 2, {0,1} and all.
  Builder b("reduce");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Op m = b.Parameter(0, F32({2, 3}), "m");
  Op c = b.Parameter(1, F32({4, 2, 3}), "c");
  Op zero = b.ConstantR0<float>(0);
  const std::vector<std::pair<Op, Shape>> expected = {
      {b.Reduce(m, zero, add, {0}), F32({3})},
      {b.Reduce(m, zero, add, {1}), F32({2})},
      {b.Reduce(c, zero, add, {0}), F32({2, 3})},
      {b.Reduce(c, zero, add, {2}), F32({4, 2})},
      {b.Reduce(c, zero, add, {0, 1}), F32({3})},
      {b.ReduceAll(c, zero, add), F32({})},
  };
  std::vector<Op> all;
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
    all.push_back(op);
  }
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple(all)));
  EXPECT_THAT(Text(*mod),
              HasSubstr("f32[4,2] reduce(%c, %constant.0), dimensions={2}, "
                        "to_apply=%add"));
  EXPECT_EQ(Summaries(*mod->entry_computation())[8], "reduce f32[] {0,1,2}");
}

TEST(ReduceTest, VariadicArgmax) {
  // Reduce (value, index) pairs to the maximum value and its index.
  Builder b("argmax");
  std::unique_ptr<Builder> rb = b.CreateSubBuilder("argmax_reducer");
  Op av = rb->Parameter(0, F32({}), "av");
  Op ai = rb->Parameter(1, S32({}), "ai");
  Op bv = rb->Parameter(2, F32({}), "bv");
  Op bi = rb->Parameter(3, S32({}), "bi");
  Op take_a = rb->Ge(av, bv);
  ASSERT_OK_AND_ASSIGN(Computation * reducer,
                       rb->Build(rb->Tuple({rb->Select(take_a, av, bv),
                                            rb->Select(take_a, ai, bi)})));
  Op values = b.Parameter(0, F32({2, 5}), "values");
  Op indices = b.Iota(S32({2, 5}), 1);
  Op r = b.Reduce({values, indices},
                  {b.ConstantScalar(PrimitiveType::F32,
                                    -std::numeric_limits<double>::infinity()),
                   b.ConstantR0<int32_t>(0)},
                  reducer, {1});
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(r));
  EXPECT_EQ(s, Tup({F32({2}), S32({2})}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Text(*mod),
              HasSubstr("(f32[2], s32[2]) reduce(%values, %iota.0, "
                        "%constant.0, %constant.1), dimensions={1}, "
                        "to_apply=%argmax_reducer"));
}

TEST(ReduceTest, Errors) {
  {
    Builder b("reduce_dims");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.Reduce(b.Parameter(0, F32({2, 3}), "m"), b.ConstantR0<float>(0), add,
             {2});
    ExpectBuildError(b, "Reduce", {"f32[2,3]"});
  }
  {
    Builder b("reduce_init");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.Reduce(b.Parameter(0, F32({2, 3}), "m"), b.Parameter(1, F32({3}), "i"),
             add, {0});
    ExpectBuildError(b, "Reduce", {"f32[3]"});
  }
  {
    Builder b("reduce_reducer_type");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::S32, HloOpcode::kAdd);
    b.Reduce(b.Parameter(0, F32({2, 3}), "m"), b.ConstantR0<float>(0), add,
             {0});
    ExpectBuildError(b, "Reduce", {"s32[]"});
  }
  {
    Builder b("reduce_counts");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    const Op operands[] = {b.Parameter(0, F32({2}), "m")};
    b.Reduce(operands, absl::Span<const Op>(), add, {0});
    ExpectBuildError(b, "Reduce", {"1 operands and 0 init values"});
  }
}

TEST(ReduceWindowTest, SeedExample2x3Max) {
  // The seed's reduce_window_2x3: max over 2x3 windows with 2x3 strides of
  // a 4x6 input, valid padding -> 2x2.
  Builder b("reduce_window_2x3");
  Computation* max =
      ScalarComputation(b, "max", PrimitiveType::F32, HloOpcode::kMaximum);
  Op input = b.Parameter(0, F32({4, 6}), "input");
  Op init = b.ConstantScalar(PrimitiveType::F32,
                             -std::numeric_limits<double>::infinity());
  Op r = b.ReduceWindow(input, init, max, {2, 3}, {2, 3}, Padding::kValid);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(r));
  EXPECT_EQ(s, F32({2, 2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre("%input = f32[4,6] parameter(0)",
                          "%constant.0 = f32[] constant(-inf)",
                          "ROOT %reduce-window.0 = f32[2,2] "
                          "reduce-window(%input, %constant.0), "
                          "window={size=2x3 stride=2x3}, to_apply=%max"));
}

TEST(ReduceWindowTest, SamePaddingAndGeneralForm) {
  Builder b("reduce_window_same");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Op input = b.Parameter(0, F32({4, 6}), "input");
  Op zero = b.ConstantR0<float>(0);
  // kSame, stride 1: output 4x6; padding (0,1) for window 2, (1,1) for 3.
  Op same = b.ReduceWindow(input, zero, add, {2, 3}, {1, 1}, Padding::kSame);
  // kSame, stride 2: ceil(4/2) x ceil(6/2).
  Op strided = b.ReduceWindow(input, zero, add, {2, 3}, {2, 2}, Padding::kSame);
  // General: base dilation 2 on dim 0 (7 rows), padding (1, 0), window
  // dilation 2 on dim 1 (effective window 5): (7+1-2)/1+1 = 7, 6-5+1 = 2.
  Op general = b.ReduceWindowWithGeneralPadding(
      {input}, {zero}, add, {2, 3}, {1, 1}, {2, 1}, {1, 2}, {{1, 0}, {0, 0}});
  const std::vector<std::pair<Op, Shape>> expected = {
      {same, F32({4, 6})}, {strided, F32({2, 3})}, {general, F32({7, 2})}};
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(auto mod,
                       BuildChecked(b, b.Tuple({same, strided, general})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("window={size=2x3 pad=0_1x1_1}"));
  EXPECT_THAT(text, HasSubstr("window={size=2x3 stride=2x2 pad=0_0x0_1}"));
  EXPECT_THAT(text, HasSubstr("window={size=2x3 pad=1_0x0_0 lhs_dilate=2x1 "
                              "rhs_dilate=1x2}"));
}

TEST(ReduceWindowTest, Errors) {
  {
    Builder b("reduce_window_rank");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.ReduceWindow(b.Parameter(0, F32({4, 6}), "x"), b.ConstantR0<float>(0),
                   add, {2}, {2}, Padding::kValid);
    ExpectBuildError(b, "ReduceWindow", {"{2}", "f32[4,6]"});
  }
  {
    Builder b("reduce_window_stride");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.ReduceWindow(b.Parameter(0, F32({4, 6}), "x"), b.ConstantR0<float>(0),
                   add, {2, 2}, {0, 1}, Padding::kSame);
    ExpectBuildError(b, "ReduceWindow", {"strides"});
  }
  {
    Builder b("reduce_window_empty_window");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.ReduceWindow(b.Parameter(0, F32({4, 6}), "x"), b.ConstantR0<float>(0),
                   add, {0, 1}, {1, 1}, Padding::kValid);
    ExpectBuildError(b, "ReduceWindow", {"non-positive size", "f32[4,6]"});
  }
  {
    // A window larger than the base is not an error (as in XLA): the
    // dimension has no valid position, so it has size 0.
    Builder b("reduce_window_too_big");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    Op r =
        b.ReduceWindow(b.Parameter(0, F32({4, 6}), "x"), b.ConstantR0<float>(0),
                       add, {5, 1}, {1, 1}, Padding::kValid);
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(r));
    EXPECT_EQ(s, F32({0, 6}));
  }
}

TEST(SelectAndScatterTest, MaxPoolGradient) {
  Builder b("select_and_scatter");
  Computation* ge =
      ScalarComparator(b, "ge", PrimitiveType::F32, ComparisonDirection::kGe);
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Op operand = b.Parameter(0, F32({4, 6}), "operand");
  Op source = b.Parameter(1, F32({2, 2}), "source");
  Op zero = b.ConstantR0<float>(0);
  Op r = b.SelectAndScatter(operand, ge, {2, 3}, {2, 3}, Padding::kValid,
                            source, zero, add);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(r));
  EXPECT_EQ(s, F32({4, 6}));
  Op g = b.SelectAndScatterWithGeneralPadding(
      operand, ge, {2, 3}, {2, 3}, {{0, 0}, {0, 0}}, source, zero, add);
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({r, g})));
  EXPECT_THAT(Text(*mod),
              HasSubstr("f32[4,6] select-and-scatter(%operand, %source, "
                        "%constant.0), window={size=2x3 stride=2x3}, "
                        "select=%ge, scatter=%add"));
}

TEST(SelectAndScatterTest, Errors) {
  Builder b("select_and_scatter_bad");
  Computation* ge =
      ScalarComparator(b, "ge", PrimitiveType::F32, ComparisonDirection::kGe);
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  // The source must have the reduce-window result's shape (2x2).
  b.SelectAndScatter(b.Parameter(0, F32({4, 6}), "operand"), ge, {2, 3}, {2, 3},
                     Padding::kValid, b.Parameter(1, F32({3, 2}), "source"),
                     b.ConstantR0<float>(0), add);
  ExpectBuildError(b, "SelectAndScatter", {"f32[3,2]"});
  Builder b2("select_and_scatter_select");
  Computation* add2 =
      ScalarComputation(b2, "add", PrimitiveType::F32, HloOpcode::kAdd);
  // select must return pred.
  b2.SelectAndScatter(b2.Parameter(0, F32({4, 6}), "operand"), add2, {2, 3},
                      {2, 3}, Padding::kValid,
                      b2.Parameter(1, F32({2, 2}), "source"),
                      b2.ConstantR0<float>(0), add2);
  ExpectBuildError(b2, "SelectAndScatter", {});
}

TEST(SortTest, ComparatorMultipleOperandsAndSeedForm) {
  Builder b("sort");
  // Keys and values sorted together by the keys (params 0 and 1).
  std::unique_ptr<Builder> cb = b.CreateSubBuilder("by_key");
  Op k0 = cb->Parameter(0, F32({}), "k0");
  Op k1 = cb->Parameter(1, F32({}), "k1");
  cb->Parameter(2, S32({}), "v0");
  cb->Parameter(3, S32({}), "v1");
  ASSERT_OK_AND_ASSIGN(Computation * by_key, cb->Build(cb->Lt(k0, k1)));
  Op keys = b.Parameter(0, F32({3, 5}), "keys");
  Op values = b.Parameter(1, S32({3, 5}), "values");
  Op pair = b.Sort({keys, values}, by_key, 0, /*is_stable=*/true);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(pair));
  EXPECT_EQ(s, Tup({F32({3, 5}), S32({3, 5})}));
  // Seed form: one operand, ascending along the last dimension.
  Op sorted = b.Sort(keys);
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(sorted));
  EXPECT_EQ(s1, F32({3, 5}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({pair, sorted})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("sort(%keys, %values), dimensions={0}, "
                              "is_stable=true, to_apply=%by_key"));
  EXPECT_THAT(text, HasSubstr("f32[3,5] sort(%keys), dimensions={1}, "
                              "to_apply=%lt_f32"));
  const Computation* lt = mod->GetComputationWithName("lt_f32");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->root_instruction()->attrs().comparison_direction,
            ComparisonDirection::kLt);
}

TEST(SortTest, Errors) {
  {
    Builder b("sort_dimension");
    Computation* lt =
        ScalarComparator(b, "lt", PrimitiveType::F32, ComparisonDirection::kLt);
    Op k = b.Parameter(0, F32({3}), "k");
    b.Sort({k}, lt, 1);
    ExpectBuildError(b, "Sort", {"f32[3]"});
  }
  {
    Builder b("sort_shapes");
    Computation* lt =
        ScalarComparator(b, "lt", PrimitiveType::F32, ComparisonDirection::kLt);
    b.Sort({b.Parameter(0, F32({3}), "k"), b.Parameter(1, S32({4}), "v")}, lt);
    ExpectBuildError(b, "Sort", {"f32[3]", "s32[4]"});
  }
  {
    // The comparator takes 2N scalars.
    Builder b("sort_comparator");
    Computation* lt =
        ScalarComparator(b, "lt", PrimitiveType::F32, ComparisonDirection::kLt);
    b.Sort({b.Parameter(0, F32({3}), "k"), b.Parameter(1, F32({3}), "v")}, lt);
    ExpectBuildError(b, "Sort", {});
  }
}

}  // namespace
}  // namespace plexa::builder_test
