// reduce, reduce-window, select-and-scatter and sort.
#include <string>

#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

constexpr char kAddS32[] = R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
)";

// Seed 004's 3-D example: dims 4x2x3, the values 1..6 copied over dim 0.
constexpr char k3D[] =
    "{ { {1, 2, 3}, {4, 5, 6} }, { {1, 2, 3}, {4, 5, 6} }, "
    "{ {1, 2, 3}, {4, 5, 6} }, { {1, 2, 3}, {4, 5, 6} } }";

std::string Reduce3D(absl::string_view out_shape, absl::string_view dims) {
  return std::string("HloModule m\n") + kAddS32 +
         "ENTRY e {\n  v = s32[4,2,3] constant(" + k3D +
         ")\n  z = s32[] constant(0)\n  ROOT r = " + std::string(out_shape) +
         " reduce(v, z), dimensions={" + std::string(dims) +
         "}, to_apply=add\n}";
}

TEST(ReduceTest, SeedThreeDimensionalExamples) {
  // Seed 004: reducing dimension 0 -> | 4 8 12 | 16 20 24 |.
  EXPECT_LITERAL(RunOk(Reduce3D("s32[2,3]", "0")), "s32[2,3]",
                 "{ {4, 8, 12}, {16, 20, 24} }");
  // Reducing dimension 2 -> | 6 15 | x4.
  EXPECT_LITERAL(RunOk(Reduce3D("s32[4,2]", "2")), "s32[4,2]",
                 "{ {6, 15}, {6, 15}, {6, 15}, {6, 15} }");
  // Dimensions 0 and 1 -> | 20 28 36 |; all dimensions -> 84.
  EXPECT_LITERAL(RunOk(Reduce3D("s32[3]", "0,1")), "s32[3]", "{20, 28, 36}");
  EXPECT_LITERAL(RunOk(Reduce3D("s32[]", "0,1,2")), "s32[]", "84");
}

TEST(ReduceTest, TwoDimensional) {
  // {{1,2,3},{4,5,6}}: over dimension 0 -> {5,7,9}; over 1 -> {6,15}.
  const std::string prog = std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  z = s32[] constant(0)
  r0 = s32[3] reduce(a, z), dimensions={0}, to_apply=add
  r1 = s32[2] reduce(a, z), dimensions={1}, to_apply=add
  ROOT t = (s32[3], s32[2]) tuple(r0, r1)
})";
  Literal r = RunOk(prog);
  EXPECT_LITERAL(r.tuple_element(0), "s32[3]", "{5, 7, 9}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2]", "{6, 15}");
}

TEST(ReduceTest, OrderIsRowMajorFromInit) {
  // f(acc, x) = acc*10 + x is not associative, so it shows the order:
  // init 0, elements 1 2 3 4 in row-major order -> 1234.
  EXPECT_LITERAL(RunOk(R"(HloModule m
f {
  acc = s32[] parameter(0)
  x = s32[] parameter(1)
  ten = s32[] constant(10)
  t = s32[] multiply(acc, ten)
  ROOT r = s32[] add(t, x)
}
ENTRY e {
  a = s32[2,2] constant({ {1, 2}, {3, 4} })
  z = s32[] constant(0)
  ROOT r = s32[] reduce(a, z), dimensions={1,0}, to_apply=f
})"),
                 "s32[]", "1234");
}

TEST(ReduceTest, HalfRoundsAtEveryStep) {
  // Each reducer application returns f16: 0 + 2048 = 2048,
  // 2048 + 1 = 2049 -> tie -> 2048, again 2048 (a float accumulator would
  // give 2050).
  EXPECT_LITERAL(RunOk(R"(HloModule m
add {
  x = f16[] parameter(0)
  y = f16[] parameter(1)
  ROOT r = f16[] add(x, y)
}
ENTRY e {
  a = f16[3] constant({2048, 1, 1})
  z = f16[] constant(0)
  ROOT r = f16[] reduce(a, z), dimensions={0}, to_apply=add
})"),
                 "f16[]", "2048");
}

TEST(ReduceTest, VariadicArgmax) {
  // (value, index) pairs; ties keep the smaller index. Values {3, 7, 7, 1}
  // -> (7, 1).
  Literal r = RunOk(R"(HloModule m
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY e {
  vals = f32[4] constant({3, 7, 7, 1})
  idx = s32[4] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[], s32[]) reduce(vals, idx, ninf, zero), dimensions={0}, to_apply=argmax
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[]", "7");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "1");
}

TEST(ReduceTest, EmptyReductionGivesInit) {
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[0,2] parameter(0)
  z = s32[] constant(5)
  ROOT r = s32[2] reduce(a, z), dimensions={0}, to_apply=add
})",
                       {L("s32[0,2]", "{}")}),
                 "s32[2]", "{5, 5}");
}

TEST(ReduceTest, LargeSum) {
  // Sum of 0..(2^20 - 1) = 2^20 (2^20 - 1) / 2 = 549755289600, in s64.
  EXPECT_LITERAL(RunOk(R"(HloModule m
add {
  x = s64[] parameter(0)
  y = s64[] parameter(1)
  ROOT r = s64[] add(x, y)
}
ENTRY e {
  i = s64[1048576] iota(), iota_dimension=0
  z = s64[] constant(0)
  ROOT r = s64[] reduce(i, z), dimensions={0}, to_apply=add
})"),
                 "s64[]", "549755289600");
}

// ---- reduce-window ------------------------------------------------------

TEST(ReduceWindowTest, SeedMaxPool2x3) {
  // Seed 004's example shape: 4x6 input, 2x3 windows, 2x3 strides, max,
  // valid padding. Input rows 1..6, 7..12, 13..18, 19..24 -> window maxima
  // {{9, 12}, {21, 24}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
max {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] maximum(x, y)
}
ENTRY e {
  a = f32[4,6] constant({ {1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, {13, 14, 15, 16, 17, 18}, {19, 20, 21, 22, 23, 24} })
  ninf = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(a, ninf), window={size=2x3 stride=2x3}, to_apply=max
})"),
                 "f32[2,2]", "{ {9, 12}, {21, 24} }");
}

TEST(ReduceWindowTest, PaddingAndStride) {
  // {1..5} padded 1_1 -> {p,1,2,3,4,5,p}; windows of 3 at stride 2:
  // p+1+2 = 3, 2+3+4 = 9, 4+5+p = 9 (padding is never fed to the reducer).
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[5] constant({1, 2, 3, 4, 5})
  z = s32[] constant(0)
  ROOT r = s32[3] reduce-window(a, z), window={size=3 stride=2 pad=1_1}, to_apply=add
})"),
                 "s32[3]", "{3, 9, 9}");
  // With init 100 the padding position simply contributes nothing:
  // {p,1} -> 100 + 1, {1,2} -> 100 + 3.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[2] constant({1, 2})
  z = s32[] constant(100)
  ROOT r = s32[2] reduce-window(a, z), window={size=2 pad=1_0}, to_apply=add
})"),
                 "s32[2]", "{101, 103}");
}

TEST(ReduceWindowTest, BaseAndWindowDilation) {
  // lhs_dilate=2: {1,2,3} -> {1,_,2,_,3}; windows of 2: 1, 2, 2, 3.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  z = s32[] constant(0)
  ROOT r = s32[4] reduce-window(a, z), window={size=2 lhs_dilate=2}, to_apply=add
})"),
                 "s32[4]", "{1, 2, 2, 3}");
  // rhs_dilate=2: taps i and i+2 of {1..5}: 1+3, 2+4, 3+5.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAddS32 + R"(
ENTRY e {
  a = s32[5] constant({1, 2, 3, 4, 5})
  z = s32[] constant(0)
  ROOT r = s32[3] reduce-window(a, z), window={size=2 rhs_dilate=2}, to_apply=add
})"),
                 "s32[3]", "{4, 6, 8}");
}

TEST(ReduceWindowTest, Variadic) {
  // Sum and max over windows of 2: {1,5,2} -> sums {6, 7}, maxima {5, 5}.
  Literal r = RunOk(R"(HloModule m
summax {
  as = s32[] parameter(0)
  am = s32[] parameter(1)
  bs = s32[] parameter(2)
  bm = s32[] parameter(3)
  s = s32[] add(as, bs)
  m = s32[] maximum(am, bm)
  ROOT t = (s32[], s32[]) tuple(s, m)
}
ENTRY e {
  a = s32[3] constant({1, 5, 2})
  z = s32[] constant(0)
  lo = s32[] constant(-2147483648)
  ROOT r = (s32[2], s32[2]) reduce-window(a, a, z, lo), window={size=2}, to_apply=summax
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[2]", "{6, 7}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2]", "{5, 5}");
}

// ---- select-and-scatter -----------------------------------------------------

constexpr char kSelectScatter[] = R"(
ge {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=GE
}
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
)";

TEST(SelectAndScatterTest, NonOverlappingWindows) {
  // Windows {1,9}, {3,4}, {8,2} select 9 (index 1), 4 (3), 8 (4);
  // source {10, 20, 30} lands there; the rest is init 0.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kSelectScatter + R"(
ENTRY e {
  o = s32[6] constant({1, 9, 3, 4, 8, 2})
  s = s32[3] constant({10, 20, 30})
  z = s32[] constant(0)
  ROOT r = s32[6] select-and-scatter(o, s, z), window={size=2 stride=2}, select=ge, scatter=add
})"),
                 "s32[6]", "{0, 10, 0, 20, 30, 0}");
}

TEST(SelectAndScatterTest, OverlappingWindowsAccumulate) {
  // Seed 004: an element chosen by several windows receives the scatter of
  // all their sources. {1,2,9,3,4}, windows of 3 at stride 1 all pick 9
  // (index 2): 1 + 2 + 3 = 6.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kSelectScatter + R"(
ENTRY e {
  o = s32[5] constant({1, 2, 9, 3, 4})
  s = s32[3] constant({1, 2, 3})
  z = s32[] constant(0)
  ROOT r = s32[5] select-and-scatter(o, s, z), window={size=3 stride=1}, select=ge, scatter=add
})"),
                 "s32[5]", "{0, 0, 6, 0, 0}");
}

TEST(SelectAndScatterTest, TiesKeepFirstAndPaddingIsNeverSelected) {
  // GE keeps the earlier of equal elements: {5,5} picks index 0. With
  // padding 1_0 the first window is {p, 5}: only index 0 is real.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kSelectScatter + R"(
ENTRY e {
  o = s32[2] constant({5, 5})
  s = s32[2] constant({7, 11})
  z = s32[] constant(1)
  ROOT r = s32[2] select-and-scatter(o, s, z), window={size=2 pad=1_0}, select=ge, scatter=add
})"),
                 "s32[2]", "{19, 1}");
}

// ---- sort
// ---------------------------------------------------------------------

constexpr char kLtF32[] = R"(
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
)";

TEST(SortTest, Ascending) {
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kLtF32 + R"(
ENTRY e {
  a = f32[5] constant({3, 1, 2, -1, 0})
  ROOT r = f32[5] sort(a), dimensions={0}, to_apply=lt
})"),
                 "f32[5]", "{-1, 0, 1, 2, 3}");
}

TEST(SortTest, TotalOrderPutsNaNLast) {
  // -inf < -0 < 0 < 1 < nan under TOTALORDER.
  EXPECT_LITERAL(RunOk(R"(HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT, type=TOTALORDER
}
ENTRY e {
  a = f32[5] constant({nan, 1, -inf, 0, -0})
  ROOT r = f32[5] sort(a), dimensions={0}, to_apply=lt, is_stable=true
})"),
                 "f32[5]", "{-inf, -0, 0, 1, nan}");
}

TEST(SortTest, SeveralOperandsAlongEachDimension) {
  // Keys sort the values along: keys {3,1,2} values {30,10,20}.
  Literal r = RunOk(R"(HloModule m
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = s32[3] constant({3, 1, 2})
  v = f32[3] constant({30, 10, 20})
  ROOT r = (s32[3], f32[3]) sort(k, v), dimensions={0}, to_apply=lt
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[3]", "{1, 2, 3}");
  EXPECT_LITERAL(r.tuple_element(1), "f32[3]", "{10, 20, 30}");
  // 2-D: along dimension 1 each row is sorted; along 0 each column.
  const std::string lt = R"(
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
)";
  EXPECT_LITERAL(RunOk("HloModule m\n" + lt + R"(
ENTRY e {
  a = s32[2,3] constant({ {3, 1, 2}, {9, 8, 7} })
  ROOT r = s32[2,3] sort(a), dimensions={1}, to_apply=lt
})"),
                 "s32[2,3]", "{ {1, 2, 3}, {7, 8, 9} }");
  EXPECT_LITERAL(RunOk("HloModule m\n" + lt + R"(
ENTRY e {
  a = s32[2,2] constant({ {3, 8}, {1, 9} })
  ROOT r = s32[2,2] sort(a), dimensions={0}, to_apply=lt
})"),
                 "s32[2,2]", "{ {1, 8}, {3, 9} }");
}

TEST(SortTest, StableKeepsOrderOfEqualKeys) {
  // Keys {1,0,1,0} with payload {0,1,2,3}: stable -> keys {0,0,1,1},
  // payload {1,3,0,2}.
  Literal r = RunOk(R"(HloModule m
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  k = s32[4] constant({1, 0, 1, 0})
  v = s32[4] iota(), iota_dimension=0
  ROOT r = (s32[4], s32[4]) sort(k, v), dimensions={0}, to_apply=lt, is_stable=true
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[4]", "{0, 0, 1, 1}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[4]", "{1, 3, 0, 2}");
}

TEST(SortTest, InconsistentComparatorDoesNotCrash) {
  // A comparator that always says "less" is no strict weak order; the
  // result is some permutation of the input (the merge sort takes the
  // right element whenever it is "less"): its sum stays 0+1+...+99 = 4950.
  Literal r = RunOk(R"(HloModule m
always {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT t = pred[] constant(true)
}
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
ENTRY e {
  a = s32[100] iota(), iota_dimension=0
  s = s32[100] sort(a), dimensions={0}, to_apply=always
  z = s32[] constant(0)
  ROOT r = s32[] reduce(s, z), dimensions={0}, to_apply=add
})");
  EXPECT_LITERAL(r, "s32[]", "4950");
}

TEST(ReduceTest, ReducerThroughTheInterpreterAgrees) {
  // The same argmax as VariadicArgmax, but the reducer calls another
  // computation, so it cannot be compiled to the scalar fast path and runs
  // through the interpreter: still (7, 1).
  Literal r = RunOk(R"(HloModule m
argmax_inner {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(av, bv), direction=GT
  eq = pred[] compare(av, bv), direction=EQ
  lt = pred[] compare(ai, bi), direction=LT
  tie = pred[] and(eq, lt)
  keep = pred[] or(gt, tie)
  v = f32[] select(keep, av, bv)
  i = s32[] select(keep, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
argmax {
  av = f32[] parameter(0)
  ai = s32[] parameter(1)
  bv = f32[] parameter(2)
  bi = s32[] parameter(3)
  ROOT c = (f32[], s32[]) call(av, ai, bv, bi), to_apply=argmax_inner
}
ENTRY e {
  vals = f32[4] constant({3, 7, 7, 1})
  idx = s32[4] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[], s32[]) reduce(vals, idx, ninf, zero), dimensions={0}, to_apply=argmax
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[]", "7");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "1");
}

}  // namespace
}  // namespace plexa::eval_test
