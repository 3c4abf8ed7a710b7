#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::Reducer;
using testing_util::S;

Window MakeWindow(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                  std::vector<std::pair<int64_t, int64_t>> padding = {},
                  std::vector<int64_t> base_dilation = {},
                  std::vector<int64_t> window_dilation = {}) {
  Window w;
  for (size_t i = 0; i < sizes.size(); ++i) {
    WindowDimension d;
    d.size = sizes[i];
    d.stride = strides[i];
    if (!padding.empty()) {
      d.padding_low = padding[i].first;
      d.padding_high = padding[i].second;
    }
    if (!base_dilation.empty()) d.base_dilation = base_dilation[i];
    if (!window_dilation.empty()) d.window_dilation = window_dilation[i];
    w.dimensions.push_back(d);
  }
  return w;
}

// ---- Reduce ----------------------------------------------------------

// Seed 004: a 2x3 array reduced along 0 or 1 gives a vector; the 4x2x3
// array reduced along 0 is 2x3, along 2 is 4x2, along 0 and 1 is [3], and
// along all dimensions a scalar.
TEST(ReduceTest, SeedExamples) {
  const Shape m = S("f32[2,3]");
  const Shape init = S("f32[]");
  EXPECT_SHAPE(InferReduceShape({&m, &init}, {0}, Reducer("f32[]")), "f32[3]");
  EXPECT_SHAPE(InferReduceShape({&m, &init}, {1}, Reducer("f32[]")), "f32[2]");
  const Shape c = S("f32[4,2,3]");
  EXPECT_SHAPE(InferReduceShape({&c, &init}, {0}, Reducer("f32[]")),
               "f32[2,3]");
  EXPECT_SHAPE(InferReduceShape({&c, &init}, {2}, Reducer("f32[]")),
               "f32[4,2]");
  EXPECT_SHAPE(InferReduceShape({&c, &init}, {0, 1}, Reducer("f32[]")),
               "f32[3]");
  EXPECT_SHAPE(InferReduceShape({&c, &init}, {2, 0, 1}, Reducer("f32[]")),
               "f32[]");
  EXPECT_SHAPE(InferReduceShape({&c, &init}, {}, Reducer("f32[]")),
               "f32[4,2,3]");
}

TEST(ReduceTest, Variadic) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("s32[2,3]");
  const Shape ia = S("f32[]");
  const Shape ib = S("s32[]");
  EXPECT_SHAPE(InferReduceShape(
                   {&a, &b, &ia, &ib}, {1},
                   PS({"f32[]", "s32[]", "f32[]", "s32[]"}, "(f32[], s32[])")),
               "(f32[2], s32[2])");
}

TEST(ReduceTest, Errors) {
  const Shape m = S("f32[2,3]");
  const Shape init = S("f32[]");
  EXPECT_INVALID(InferReduceShape({&m}, {0}, Reducer("f32[]")), "f32[2,3]",
                 "even");
  EXPECT_INVALID(InferReduceShape({&m, &init}, {2}, Reducer("f32[]")),
                 "f32[2,3]", "out-of-bounds dimension 2");
  EXPECT_INVALID(InferReduceShape({&m, &init}, {0, 0}, Reducer("f32[]")),
                 "duplicate");
  EXPECT_INVALID(InferReduceShape({&m, &init}, {0},
                                  PS({"f32[]", "f32[]", "f32[]"}, "f32[]")),
                 "must take 2 parameters");
  EXPECT_INVALID(
      InferReduceShape({&m, &init}, {0}, PS({"f32[]", "f32[]"}, "f32[2]")),
      "scalar");
  const Shape s_init = S("s32[]");
  EXPECT_INVALID(InferReduceShape({&m, &s_init}, {0}, Reducer("f32[]")),
                 "s32[]", "init value");
  EXPECT_INVALID(InferReduceShape({&m, &init}, {0}, Reducer("s32[]")), "s32[]",
                 "f32[]");
  const Shape init2 = S("f32[1]");
  EXPECT_INVALID(InferReduceShape({&m, &init2}, {0}, Reducer("f32[]")),
                 "f32[1]");
  const Shape other = S("f32[3,2]");
  EXPECT_INVALID(InferReduceShape({&m, &other, &init, &init}, {0},
                                  PS({"f32[]", "f32[]", "f32[]", "f32[]"},
                                     "(f32[], f32[])")),
                 "f32[2,3]", "f32[3,2]", "same dimensions");
  // Two inputs need a 2-tuple result.
  EXPECT_INVALID(
      InferReduceShape({&m, &m, &init, &init}, {0},
                       PS({"f32[]", "f32[]", "f32[]", "f32[]"}, "f32[]")),
      "tuple with 2 elements");
}

// ---- Reduce-window ---------------------------------------------------

// Seed 004: a 4x6 input with 2x3 windows and 2x3 strides (valid padding)
// gives 2x2.
TEST(ReduceWindowTest, SeedExample) {
  const Shape in = S("f32[4,6]");
  const Shape init = S("f32[]");
  EXPECT_SHAPE(InferReduceWindowShape({&in, &init}, MakeWindow({2, 3}, {2, 3}),
                                      Reducer("f32[]")),
               "f32[2,2]");
  // Stride 1: (4-2)/1+1 = 3 and (6-3)/1+1 = 4.
  EXPECT_SHAPE(InferReduceWindowShape({&in, &init}, MakeWindow({2, 3}, {1, 1}),
                                      Reducer("f32[]")),
               "f32[3,4]");
}

TEST(ReduceWindowTest, PaddingAndDilation) {
  const Shape init = S("f32[]");
  const Shape v4 = S("f32[4]");
  // SAME-style padding 1_1 with a 3-window: 4 outputs.
  EXPECT_SHAPE(
      InferReduceWindowShape({&v4, &init}, MakeWindow({3}, {1}, {{1, 1}}),
                             Reducer("f32[]")),
      "f32[4]");
  // Base dilation 2 makes 4 elements span 7; 2-windows: 6 positions.
  EXPECT_SHAPE(
      InferReduceWindowShape({&v4, &init}, MakeWindow({2}, {1}, {}, {2}),
                             Reducer("f32[]")),
      "f32[6]");
  // Window dilation 3 makes a 2-window span 4; over 6 elements: 3.
  const Shape v6 = S("f32[6]");
  EXPECT_SHAPE(
      InferReduceWindowShape({&v6, &init}, MakeWindow({2}, {1}, {}, {}, {3}),
                             Reducer("f32[]")),
      "f32[3]");
  // A window larger than the (padded) base gives 0 positions.
  EXPECT_SHAPE(InferReduceWindowShape({&v4, &init}, MakeWindow({5}, {1}),
                                      Reducer("f32[]")),
               "f32[0]");
  // Negative padding shrinks the base: 4-1-1 = 2, window 2 -> 1.
  EXPECT_SHAPE(
      InferReduceWindowShape({&v4, &init}, MakeWindow({2}, {1}, {{-1, -1}}),
                             Reducer("f32[]")),
      "f32[1]");
}

TEST(ReduceWindowTest, Variadic) {
  const Shape a = S("f32[4,6]");
  const Shape b = S("s32[4,6]");
  const Shape ia = S("f32[]");
  const Shape ib = S("s32[]");
  EXPECT_SHAPE(InferReduceWindowShape(
                   {&a, &b, &ia, &ib}, MakeWindow({2, 3}, {2, 3}),
                   PS({"f32[]", "s32[]", "f32[]", "s32[]"}, "(f32[], s32[])")),
               "(f32[2,2], s32[2,2])");
}

TEST(ReduceWindowTest, Errors) {
  const Shape in = S("f32[4,6]");
  const Shape init = S("f32[]");
  EXPECT_INVALID(InferReduceWindowShape({&in, &init}, MakeWindow({2}, {2}),
                                        Reducer("f32[]")),
                 "f32[4,6]", "rank");
  EXPECT_INVALID(
      InferReduceWindowShape({&in, &init}, MakeWindow({2, 3}, {0, 1}),
                             Reducer("f32[]")),
      "f32[4,6]", "stride");
  EXPECT_INVALID(
      InferReduceWindowShape({&in, &init}, MakeWindow({0, 3}, {1, 1}),
                             Reducer("f32[]")),
      "non-positive size");
  EXPECT_INVALID(InferReduceWindowShape({&in, &init},
                                        MakeWindow({2, 3}, {1, 1}, {}, {0, 1}),
                                        Reducer("f32[]")),
                 "dilation");
  EXPECT_INVALID(
      InferReduceWindowShape({&in, &init}, MakeWindow({2, 3}, {1, 1}),
                             Reducer("s32[]")),
      "s32[]");
  EXPECT_INVALID(InferReduceWindowShape({&in}, MakeWindow({2, 3}, {1, 1}),
                                        Reducer("f32[]")),
                 "even");
}

TEST(WindowOutputShapeTest, Direct) {
  EXPECT_SHAPE(
      InferWindowOutputShape(S("f32[5,<=5]"), MakeWindow({3, 3}, {2, 1}),
                             PrimitiveType::S32),
      "s32[2,<=3]");
}

// ---- Select-and-scatter --------------------------------------------------

TEST(SelectAndScatterTest, Valid) {
  EXPECT_SHAPE(InferSelectAndScatterShape(
                   S("f32[4,6]"), PS({"f32[]", "f32[]"}, "pred[]"),
                   MakeWindow({2, 3}, {2, 3}), S("f32[2,2]"), S("f32[]"),
                   Reducer("f32[]")),
               "f32[4,6]");
}

TEST(SelectAndScatterTest, Errors) {
  const ProgramShape select = PS({"f32[]", "f32[]"}, "pred[]");
  const Window w = MakeWindow({2, 3}, {2, 3});
  EXPECT_INVALID(
      InferSelectAndScatterShape(S("f32[4,6]"), select, w, S("f32[3,2]"),
                                 S("f32[]"), Reducer("f32[]")),
      "f32[3,2]", "f32[2,2]");
  EXPECT_INVALID(InferSelectAndScatterShape(
                     S("f32[4,6]"), PS({"f32[]", "f32[]"}, "f32[]"), w,
                     S("f32[2,2]"), S("f32[]"), Reducer("f32[]")),
                 "pred[]");
  EXPECT_INVALID(InferSelectAndScatterShape(
                     S("f32[4,6]"), PS({"s32[]", "s32[]"}, "pred[]"), w,
                     S("f32[2,2]"), S("f32[]"), Reducer("f32[]")),
                 "s32[]");
  EXPECT_INVALID(
      InferSelectAndScatterShape(S("f32[4,6]"), select, w, S("f32[2,2]"),
                                 S("f32[]"), PS({"f32[]"}, "f32[]")),
      "2 parameters");
  EXPECT_INVALID(
      InferSelectAndScatterShape(S("f32[4,6]"), PS({"f32[]"}, "pred[]"), w,
                                 S("f32[2,2]"), S("f32[]"), Reducer("f32[]")),
      "2 parameters");
}

// ---- All-reduce ----------------------------------------------------------

TEST(AllReduceTest, SingleAndVariadic) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("f32[7]");
  EXPECT_SHAPE(InferAllReduceShape({&a}, Reducer("f32[]")), "f32[2,3]");
  EXPECT_SHAPE(InferAllReduceShape({&a, &b}, Reducer("f32[]")),
               "(f32[2,3], f32[7])");
  const Shape s = S("s32[2]");
  EXPECT_INVALID(InferAllReduceShape({&a, &s}, Reducer("f32[]")), "s32[]",
                 "all-reduce");
  EXPECT_INVALID(InferAllReduceShape({}, Reducer("f32[]")), "at least one");
  const Shape t = S("(f32[2])");
  EXPECT_INVALID(InferAllReduceShape({&t}, Reducer("f32[]")), "(f32[2])");
}

// ---- Sort ---------------------------------------------------------------

TEST(SortTest, SingleAndMultipleOperands) {
  const Shape keys = S("f32[5,4]");
  const Shape values = S("s32[5,4]");
  EXPECT_SHAPE(InferSortShape({&keys}, 1, PS({"f32[]", "f32[]"}, "pred[]")),
               "f32[5,4]");
  EXPECT_SHAPE(
      InferSortShape({&keys, &values}, 0,
                     PS({"f32[]", "f32[]", "s32[]", "s32[]"}, "pred[]")),
      "(f32[5,4], s32[5,4])");
}

TEST(SortTest, Errors) {
  const Shape keys = S("f32[5,4]");
  const Shape values = S("s32[4,5]");
  const ProgramShape cmp = PS({"f32[]", "f32[]"}, "pred[]");
  EXPECT_INVALID(InferSortShape({&keys}, 2, cmp), "f32[5,4]", "out of range");
  EXPECT_INVALID(
      InferSortShape({&keys, &values}, 0,
                     PS({"f32[]", "f32[]", "s32[]", "s32[]"}, "pred[]")),
      "f32[5,4]", "s32[4,5]");
  EXPECT_INVALID(InferSortShape({&keys}, 0, PS({"f32[]"}, "pred[]")),
                 "2 parameters");
  EXPECT_INVALID(InferSortShape({&keys}, 0, PS({"f32[]", "f32[]"}, "f32[]")),
                 "pred[]");
  EXPECT_INVALID(InferSortShape({&keys}, 0, PS({"s32[]", "s32[]"}, "pred[]")),
                 "f32[]");
  EXPECT_INVALID(InferSortShape({}, 0, cmp), "at least one");
}

}  // namespace
}  // namespace plexa::shape_inference
