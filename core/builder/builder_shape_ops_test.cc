// Shape manipulation: broadcast, reshape, collapse, transpose, rev,
// concatenate, slices, dynamic slices, pad, gather, scatter.
#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BroadcastTest, SeedFormPrependsSizes) {
  // A scalar f32 2.0 with broadcast_sizes {2, 3} gives f32[2,3].
  Builder b("broadcast");
  Op s = b.Broadcast(b.ConstantR0<float>(2.0f), {2, 3});
  Op v = b.Broadcast(b.Parameter(0, F32({3}), "v"), {4, 2});
  ASSERT_OK_AND_ASSIGN(Shape ss, b.GetShape(s));
  ASSERT_OK_AND_ASSIGN(Shape sv, b.GetShape(v));
  EXPECT_EQ(ss, F32({2, 3}));
  EXPECT_EQ(sv, F32({4, 2, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({s, v})));
  EXPECT_THAT(
      Summaries(*mod->entry_computation()),
      ElementsAre("constant f32[]", "broadcast f32[2,3] {}", "parameter f32[3]",
                  "broadcast f32[4,2,3] {2}", "tuple (f32[2,3], f32[4,2,3])"));
  Builder bad("broadcast_negative");
  bad.Broadcast(bad.ConstantR0<float>(1.0f), {-2});
  ExpectBuildError(bad, "Broadcast", {"f32[]"});
}

TEST(BroadcastTest, InDimWithAndWithoutDegenerateDimensions) {
  Builder b("broadcast_in_dim");
  Op v = b.Parameter(0, F32({3}), "v");
  Op m = b.Parameter(1, F32({1, 3}), "m");
  Op r1 = b.BroadcastInDim(v, {2, 3}, {1});
  Op r2 = b.BroadcastInDim(m, {2, 3}, {0, 1});
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({r1, r2})));
  EXPECT_THAT(
      Summaries(*mod->entry_computation()),
      ElementsAre("parameter f32[3]", "parameter f32[1,3]",
                  "broadcast f32[2,3] {1}", "reshape f32[3]",
                  "broadcast f32[2,3] {1}", "tuple (f32[2,3], f32[2,3])"));
}

TEST(BroadcastTest, InDimErrors) {
  {
    Builder b("in_dim_size");
    b.BroadcastInDim(b.Parameter(0, F32({2}), "v"), {2, 3}, {1});
    ExpectBuildError(b, "BroadcastInDim", {"f32[2]", "{2,3}"});
  }
  {
    Builder b("in_dim_order");
    b.BroadcastInDim(b.Parameter(0, F32({3, 3}), "v"), {3, 3}, {1, 0});
    ExpectBuildError(b, "BroadcastInDim", {"strictly increasing"});
  }
  {
    Builder b("in_dim_count");
    b.BroadcastInDim(b.Parameter(0, F32({3}), "v"), {3, 3}, {0, 1});
    ExpectBuildError(b, "BroadcastInDim", {"f32[3]"});
  }
  {
    Builder b("in_dim_range");
    b.BroadcastInDim(b.Parameter(0, F32({3}), "v"), {3, 3}, {2});
    ExpectBuildError(b, "BroadcastInDim", {"out of range", "f32[3]"});
  }
}

// The seed's 4x2x3 array v.
Op SeedV(Builder& b) {
  Literal lit(F32({4, 2, 3}));
  const float values[4][2][3] = {{{10, 11, 12}, {15, 16, 17}},
                                 {{20, 21, 22}, {25, 26, 27}},
                                 {{30, 31, 32}, {35, 36, 37}},
                                 {{40, 41, 42}, {45, 46, 47}}};
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t k = 0; k < 3; ++k) {
        EXPECT_TRUE(lit.SetFromDouble({i, j, k}, values[i][j][k]).ok());
      }
    }
  }
  return b.ConstantLiteral(lit);
}

TEST(ReshapeTest, SeedExamples) {
  Builder b("reshape");
  Op v = SeedV(b);
  Op v012_24 = b.Reshape(v, {0, 1, 2}, {24});
  Op v012_83 = b.Reshape(v, {0, 1, 2}, {8, 3});
  Op v021_24 = b.Reshape(v, {1, 2, 0}, {24});
  Op v021_83 = b.Reshape(v, {1, 2, 0}, {8, 3});
  Op v021_262 = b.Reshape(v, {1, 2, 0}, {2, 6, 2});
  Op plain = b.Reshape(v, {6, 4});
  const std::vector<std::pair<Op, Shape>> expected = {
      {v012_24, F32({24})},   {v012_83, F32({8, 3})},     {v021_24, F32({24})},
      {v021_83, F32({8, 3})}, {v021_262, F32({2, 6, 2})}, {plain, F32({6, 4})}};
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(
      auto mod, BuildChecked(b, b.Tuple({v012_24, v012_83, v021_24, v021_83,
                                         v021_262, plain})));
  // In-order collapses are plain reshapes; {1,2,0} transposes first (the
  // transposed array is f32[2,3,4]).
  EXPECT_THAT(
      Summaries(*mod->entry_computation()),
      ElementsAre("constant f32[4,2,3]", "reshape f32[24]", "reshape f32[8,3]",
                  "transpose f32[2,3,4] {1,2,0}", "reshape f32[24]",
                  "transpose f32[2,3,4] {1,2,0}", "reshape f32[8,3]",
                  "transpose f32[2,3,4] {1,2,0}", "reshape f32[2,6,2]",
                  "reshape f32[6,4]", testing::StartsWith("tuple ")));
}

TEST(ReshapeTest, ScalarSpecialCases) {
  // Reshape(f32[1x1] {{5}}, {0,1}, {}) == 5; Reshape(5, {}, {1,1}).
  Builder b("reshape_scalar");
  Op to_scalar = b.Reshape(b.ConstantR2<float>({{5}}), {0, 1}, {});
  Op from_scalar = b.Reshape(b.ConstantR0<float>(5), {}, {1, 1});
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(to_scalar));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(from_scalar));
  EXPECT_EQ(s1, F32({}));
  EXPECT_EQ(s2, F32({1, 1}));
  ASSERT_OK_AND_ASSIGN(auto mod,
                       BuildChecked(b, b.Tuple({to_scalar, from_scalar})));
  EXPECT_THAT(
      Summaries(*mod->entry_computation()),
      ElementsAre("constant f32[1,1]", "reshape f32[]", "constant f32[]",
                  "reshape f32[1,1]", "tuple (f32[], f32[1,1])"));
}

TEST(ReshapeTest, Errors) {
  {
    Builder b("reshape_count");
    b.Reshape(b.Parameter(0, F32({4, 2, 3}), "v"), {5});
    ExpectBuildError(b, "Reshape", {"f32[4,2,3]"});
  }
  {
    Builder b("reshape_not_permutation");
    b.Reshape(b.Parameter(0, F32({4, 2, 3}), "v"), {0, 0, 1}, {24});
    ExpectBuildError(b, "Reshape", {"f32[4,2,3]"});
  }
}

TEST(CollapseTest, LoweredToReshape) {
  // Collapse replaces the listed dimensions by one of their product, at
  // their place (today's XLA; the seed's example labels v01/v12 are
  // swapped: collapsing {0,1} of 4x2x3 gives 8x3, {1,2} gives 4x6).
  Builder b("collapse");
  Op v = SeedV(b);
  Op v012 = b.Collapse(v, {0, 1, 2});
  Op v01 = b.Collapse(v, {0, 1});
  Op v12 = b.Collapse(v, {1, 2});
  Op none = b.Collapse(v, {1});
  EXPECT_EQ(none, v);  // nothing to collapse: the operand itself
  ASSERT_OK_AND_ASSIGN(Shape s012, b.GetShape(v012));
  ASSERT_OK_AND_ASSIGN(Shape s01, b.GetShape(v01));
  ASSERT_OK_AND_ASSIGN(Shape s12, b.GetShape(v12));
  EXPECT_EQ(s012, F32({24}));
  EXPECT_EQ(s01, F32({8, 3}));
  EXPECT_EQ(s12, F32({4, 6}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({v012, v01, v12})));
  EXPECT_THAT(
      Summaries(*mod->entry_computation()),
      ElementsAre("constant f32[4,2,3]", "reshape f32[24]", "reshape f32[8,3]",
                  "reshape f32[4,6]", "tuple (f32[24], f32[8,3], f32[4,6])"));
}

TEST(CollapseTest, Errors) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{1, 0}, std::vector<int64_t>{0, 2},
        std::vector<int64_t>{2, 3}}) {
    Builder b("collapse_bad");
    b.Collapse(b.Parameter(0, F32({4, 2, 3}), "v"), dims);
    ExpectBuildError(b, "Collapse", {"f32[4,2,3]"});
  }
}

TEST(TransposeRevTest, ShapesAndErrors) {
  Builder b("transpose");
  Op x = b.Parameter(0, F32({2, 3, 4}), "x");
  Op t = b.Transpose(x, {2, 0, 1});
  Op r = b.Rev(x, {0, 2});
  ASSERT_OK_AND_ASSIGN(Shape st, b.GetShape(t));
  ASSERT_OK_AND_ASSIGN(Shape sr, b.GetShape(r));
  EXPECT_EQ(st, F32({4, 2, 3}));
  EXPECT_EQ(sr, F32({2, 3, 4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({t, r})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("transpose(%x), dimensions={2,0,1}"));
  EXPECT_THAT(text, HasSubstr("reverse(%x), dimensions={0,2}"));
  Builder bad("transpose_bad");
  bad.Transpose(bad.Parameter(0, F32({2, 3}), "x"), {0, 0});
  ExpectBuildError(bad, "Transpose", {"f32[2,3]"});
  Builder bad_rev("rev_bad");
  bad_rev.Rev(bad_rev.Parameter(0, F32({2, 3}), "x"), {2});
  ExpectBuildError(bad_rev, "Rev", {"f32[2,3]"});
}

TEST(ConcatTest, SeedExamples) {
  Builder b("concat");
  // Concat({{2, 3}, {4, 5}, {6, 7}}, 0) >>> {2, 3, 4, 5, 6, 7}
  Op c1 =
      b.ConcatInDim({b.ConstantR1<float>({2, 3}), b.ConstantR1<float>({4, 5}),
                     b.ConstantR1<float>({6, 7})},
                    0);
  // a = 3x2, b = 1x2 concatenated on dimension 0: 4x2.
  Op c2 = b.ConcatInDim({b.ConstantR2<float>({{1, 2}, {3, 4}, {5, 6}}),
                         b.ConstantR2<float>({{7, 8}})},
                        0);
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(c1));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(c2));
  EXPECT_EQ(s1, F32({6}));
  EXPECT_EQ(s2, F32({4, 2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({c1, c2})));
  EXPECT_THAT(Text(*mod),
              HasSubstr("f32[6] concatenate(%constant.0, %constant.1, "
                        "%constant.2), dimensions={0}"));
}

TEST(ConcatTest, Errors) {
  {
    Builder b("concat_mismatch");
    b.ConcatInDim(
        {b.Parameter(0, F32({3, 2}), "a"), b.Parameter(1, F32({3, 3}), "c")},
        0);
    ExpectBuildError(b, "ConcatInDim", {"f32[3,2]", "f32[3,3]"});
  }
  {
    // Rank-0 values cannot be concatenated.
    Builder b("concat_scalars");
    b.ConcatInDim({b.ConstantR0<float>(1), b.ConstantR0<float>(2)}, 0);
    ExpectBuildError(b, "ConcatInDim", {"f32[]"});
  }
}

TEST(SliceTest, SeedExamplesAndStrides) {
  Builder b("slice");
  // Slice(a, {2}, {4}) on a 5-vector; Slice(b, {2,1}, {4,3}) on 4x3.
  Op a = b.ConstantR1<float>({0, 1, 2, 3, 4});
  Op m = b.ConstantR2<float>({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
  Op s1 = b.Slice(a, {2}, {4});
  Op s2 = b.Slice(m, {2, 1}, {4, 3});
  Op s3 = b.Slice(b.Iota(PrimitiveType::S32, 10), {0}, {10}, {3});
  Op s4 = b.SliceInDim(m, 1, 3, 1, 0);
  const std::vector<std::pair<Op, Shape>> expected = {
      {s1, F32({2})}, {s2, F32({2, 2})}, {s3, S32({4})}, {s4, F32({2, 3})}};
  for (const auto& [op, shape] : expected) {
    ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(op));
    EXPECT_EQ(s, shape);
  }
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({s1, s2, s3, s4})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("slice={[2:4]}"));
  EXPECT_THAT(text, HasSubstr("slice={[2:4], [1:3]}"));
  EXPECT_THAT(text, HasSubstr("slice={[0:10:3]}"));
  EXPECT_THAT(text, HasSubstr("slice={[1:3], [0:3]}"));
}

TEST(SliceTest, Errors) {
  {
    Builder b("slice_limit");
    b.Slice(b.Parameter(0, F32({5}), "a"), {2}, {6});
    ExpectBuildError(b, "Slice", {"f32[5]"});
  }
  {
    Builder b("slice_lengths");
    b.Slice(b.Parameter(0, F32({5, 5}), "a"), {0, 0}, {1});
    ExpectBuildError(b, "Slice", {"f32[5,5]"});
  }
  {
    Builder b("slice_in_dim");
    b.SliceInDim(b.Parameter(0, F32({5}), "a"), 0, 1, 1, 1);
    ExpectBuildError(b, "SliceInDim", {"out of range", "f32[5]"});
  }
}

TEST(DynamicSliceTest, SeedExamples) {
  Builder b("dynamic_slice");
  Op a = b.ConstantR1<float>({0, 1, 2, 3, 4});
  Op m = b.ConstantR2<float>({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}});
  // DynamicSlice(a, s={2}, {2}); DynamicSlice(b, s={2,1}, {2,2}).
  Op d1 = b.DynamicSlice(a, {b.ConstantR0<int32_t>(2)}, {2});
  Op d2 = b.DynamicSlice(
      m, {b.ConstantR0<int32_t>(2), b.ConstantR0<int32_t>(1)}, {2, 2});
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(d1));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(d2));
  EXPECT_EQ(s1, F32({2}));
  EXPECT_EQ(s2, F32({2, 2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({d1, d2})));
  EXPECT_THAT(Text(*mod),
              HasSubstr("f32[2,2] dynamic-slice(%constant.1, %constant.3, "
                        "%constant.4), dynamic_slice_sizes={2,2}"));
}

TEST(DynamicSliceTest, IndexVectorIsSplitIntoScalars) {
  Builder b("dynamic_slice_vector");
  Op m = b.Parameter(0, F32({4, 3}), "m");
  Op s = b.Parameter(1, S32({2}), "s");
  Op d = b.DynamicSliceWithIndexVector(m, s, {2, 2});
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, d));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[4,3]", "parameter s32[2]",
                          "slice s32[1]", "reshape s32[]", "slice s32[1]",
                          "reshape s32[]", "dynamic-slice f32[2,2]"));
}

TEST(DynamicSliceTest, Errors) {
  {
    Builder b("dynamic_slice_size");
    b.DynamicSlice(b.Parameter(0, F32({5}), "a"), {b.ConstantR0<int32_t>(0)},
                   {6});
    ExpectBuildError(b, "DynamicSlice", {"f32[5]"});
  }
  {
    Builder b("dynamic_slice_index_type");
    b.DynamicSlice(b.Parameter(0, F32({5}), "a"), {b.ConstantR0<float>(0)},
                   {2});
    ExpectBuildError(b, "DynamicSlice", {"f32[]"});
  }
  {
    Builder b("dynamic_slice_index_count");
    b.DynamicSlice(b.Parameter(0, F32({5, 5}), "a"), {b.ConstantR0<int32_t>(0)},
                   {2, 2});
    ExpectBuildError(b, "DynamicSlice", {"f32[5,5]"});
  }
  {
    Builder b("dynamic_slice_vector_length");
    b.DynamicSliceWithIndexVector(b.Parameter(0, F32({5, 5}), "a"),
                                  b.Parameter(1, S32({3}), "s"), {2, 2});
    ExpectBuildError(b, "DynamicSlice", {"s32[3]", "f32[5,5]"});
  }
}

TEST(DynamicUpdateSliceTest, SeedExamples) {
  Builder b("dynamic_update_slice");
  // DynamicUpdateSlice(a, u={5,6}, s={2}) and the 4x3 / 3x2 example.
  Op a = b.ConstantR1<float>({0, 1, 2, 3, 4});
  Op u = b.ConstantR1<float>({5, 6});
  Op d1 = b.DynamicUpdateSlice(a, u, {b.ConstantR0<int32_t>(2)});
  Op m = b.Parameter(0, F32({4, 3}), "m");
  Op mu = b.ConstantR2<float>({{12, 13}, {14, 15}, {16, 17}});
  Op d2 =
      b.DynamicUpdateSliceWithIndexVector(m, mu, b.ConstantR1<int32_t>({1, 1}));
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(d1));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(d2));
  EXPECT_EQ(s1, F32({5}));
  EXPECT_EQ(s2, F32({4, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({d1, d2})));
  EXPECT_THAT(Text(*mod), HasSubstr("f32[5] dynamic-update-slice(%constant.0, "
                                    "%constant.1, %constant.2)"));
  Builder bad("dus_too_big");
  bad.DynamicUpdateSlice(bad.Parameter(0, F32({2}), "a"),
                         bad.Parameter(1, F32({3}), "u"),
                         {bad.ConstantR0<int32_t>(0)});
  ExpectBuildError(bad, "DynamicUpdateSlice", {"f32[2]", "f32[3]"});
}

TEST(PadTest, EdgeInteriorAndNegative) {
  Builder b("pad");
  PaddingConfig config;
  config.dimensions = {{1, 2, 1}, {0, 0, 0}};
  Op p =
      b.Pad(b.Parameter(0, F32({2, 3}), "x"), b.ConstantR0<float>(0), config);
  PaddingConfig negative;
  negative.dimensions = {{-1, 0, 0}};
  Op n = b.Pad(b.Parameter(1, F32({5}), "y"), b.ConstantR0<float>(0), negative);
  ASSERT_OK_AND_ASSIGN(Shape sp, b.GetShape(p));
  ASSERT_OK_AND_ASSIGN(Shape sn, b.GetShape(n));
  // 1 + 2 + 2 + 1 interior = 6 rows; 5 - 1 = 4.
  EXPECT_EQ(sp, F32({6, 3}));
  EXPECT_EQ(sn, F32({4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({p, n})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("pad(%x, %constant.0), padding=1_2_1x0_0"));
  EXPECT_THAT(text, HasSubstr("padding=-1_0"));
  Builder bad("pad_value");
  PaddingConfig one;
  one.dimensions = {{0, 0, 0}};
  bad.Pad(bad.Parameter(0, F32({5}), "x"), bad.Parameter(1, F32({1}), "v"),
          one);
  ExpectBuildError(bad, "Pad", {"f32[1]"});
}

TEST(GatherScatterTest, RowGatherAndScatter) {
  // Gather rows 1 and 0... of a 3x4 operand: indices s32[2,1],
  // offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0},
  // index_vector_dim=1, slice_sizes={1,4} -> f32[2,4].
  Builder b("gather_scatter");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Op operand = b.Parameter(0, F32({3, 4}), "operand");
  Op indices = b.Parameter(1, S32({2, 1}), "indices");
  GatherDimensionNumbers g;
  g.offset_dims = {1};
  g.collapsed_slice_dims = {0};
  g.start_index_map = {0};
  g.index_vector_dim = 1;
  Op gathered = b.Gather(operand, indices, g, {1, 4});
  ASSERT_OK_AND_ASSIGN(Shape gs, b.GetShape(gathered));
  EXPECT_EQ(gs, F32({2, 4}));
  ScatterDimensionNumbers s;
  s.update_window_dims = {1};
  s.inserted_window_dims = {0};
  s.scatter_dims_to_operand_dims = {0};
  s.index_vector_dim = 1;
  Op scattered = b.Scatter(operand, indices, gathered, add, s);
  ASSERT_OK_AND_ASSIGN(Shape ss, b.GetShape(scattered));
  EXPECT_EQ(ss, F32({3, 4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, scattered));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("gather(%operand, %indices), offset_dims={1}, "
                              "collapsed_slice_dims={0}, "
                              "start_index_map={0}, index_vector_dim=1, "
                              "slice_sizes={1,4}"));
  EXPECT_THAT(text, HasSubstr("scatter(%operand, %indices, %gather.0), "
                              "update_window_dims={1}, "
                              "inserted_window_dims={0}, "
                              "scatter_dims_to_operand_dims={0}, "
                              "index_vector_dim=1, to_apply=%add"));
}

TEST(GatherScatterTest, Errors) {
  {
    Builder b("gather_bad");
    GatherDimensionNumbers g;
    g.offset_dims = {1};
    g.collapsed_slice_dims = {0};
    g.start_index_map = {0};
    g.index_vector_dim = 1;
    b.Gather(b.Parameter(0, F32({3, 4}), "o"), b.Parameter(1, S32({2, 1}), "i"),
             g, {1, 5});
    ExpectBuildError(b, "Gather", {"f32[3,4]"});
  }
  {
    Builder b("scatter_bad");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    ScatterDimensionNumbers s;
    s.update_window_dims = {1};
    s.inserted_window_dims = {0};
    s.scatter_dims_to_operand_dims = {0};
    s.index_vector_dim = 1;
    b.Scatter(b.Parameter(0, F32({3, 4}), "o"),
              b.Parameter(1, S32({2, 1}), "i"),
              b.Parameter(2, F32({2, 5}), "u"), add, s);
    ExpectBuildError(b, "Scatter", {"f32[2,5]"});
  }
  {
    Builder b("scatter_counts");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    const Op operands[] = {b.Parameter(0, F32({3}), "o")};
    b.Scatter(operands, b.Parameter(1, S32({1}), "i"), absl::Span<const Op>(),
              add, ScatterDimensionNumbers{});
    ExpectBuildError(b, "Scatter", {"1 operands and 0 updates"});
  }
}

TEST(GetDimensionSizeTest, ShapeAndError) {
  Builder b("get_dimension_size");
  Op d = b.GetDimensionSize(b.Parameter(0, F32({2, 3}), "x"), 1);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(d));
  EXPECT_EQ(s, S32({}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, d));
  EXPECT_THAT(Text(*mod),
              HasSubstr("s32[] get-dimension-size(%x), dimensions={1}"));
  Builder bad("get_dimension_size_bad");
  bad.GetDimensionSize(bad.Parameter(0, F32({2, 3}), "x"), 2);
  ExpectBuildError(bad, "GetDimensionSize", {"f32[2,3]"});
}

}  // namespace
}  // namespace plexa::builder_test
