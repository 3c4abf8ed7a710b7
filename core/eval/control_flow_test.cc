// while, conditional, call and fusion, nested.
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

TEST(WhileTest, SeedExample) {
  // Seed 004: init (0, zero vector); while result(0) < 1000:
  // (iteration + 1, vector + constant vector). With a constant vector of
  // ones: (1000, {1000, ..., 1000}).
  Literal r = RunOk(R"(HloModule m
cond {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[10] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = f32[] constant(1)
  cv = f32[10] broadcast(c), dimensions={}
  v2 = f32[10] add(v, cv)
  ROOT t = (s32[], f32[10]) tuple(i2, v2)
}
ENTRY e {
  zero = s32[] constant(0)
  fz = f32[] constant(0)
  zv = f32[10] broadcast(fz), dimensions={}
  init = (s32[], f32[10]) tuple(zero, zv)
  ROOT w = (s32[], f32[10]) while(init), condition=cond, body=body
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[]", "1000");
  EXPECT_LITERAL(r.tuple_element(1), "f32[10]",
                 "{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, "
                 "1000}");
}

TEST(WhileTest, ZeroIterationsAndNesting) {
  // Outer loop 3 times, inner loop 4 times each adding 1: 12. A loop whose
  // condition is false at once returns its init.
  Literal r = RunOk(R"(HloModule m
inner_cond {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(j, four), direction=LT
}
inner_body {
  s = (s32[], s32[]) parameter(0)
  j = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  acc2 = s32[] add(acc, one)
  ROOT t = (s32[], s32[]) tuple(j2, acc2)
}
outer_cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
outer_body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, acc)
  w = (s32[], s32[]) while(init), condition=inner_cond, body=inner_body
  acc2 = s32[] get-tuple-element(w), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
never {
  s = s32[] parameter(0)
  ROOT f = pred[] constant(false)
}
never_body {
  s = s32[] parameter(0)
  ROOT n = s32[] negate(s)
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=outer_cond, body=outer_body
  total = s32[] get-tuple-element(w), index=1
  seven = s32[] constant(7)
  w0 = s32[] while(seven), condition=never, body=never_body
  ROOT t = (s32[], s32[]) tuple(total, w0)
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[]", "12");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "7");
}

TEST(WhileTest, MaxIterationsOption) {
  // An endless loop stops with ResourceExhausted once the cap is reached.
  constexpr char kForever[] = R"(HloModule m
cond {
  s = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})";
  EvaluatorOptions options;
  options.max_while_iterations = 10;
  absl::StatusOr<Literal> r = RunHlo(kForever, {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(r.status())) << r.status();
  // A loop of exactly 10 iterations is still allowed with the cap at 10.
  constexpr char kTen[] = R"(HloModule m
cond {
  s = s32[] parameter(0)
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(s, ten), direction=LT
}
body {
  s = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT n = s32[] add(s, one)
}
ENTRY e {
  z = s32[] constant(0)
  ROOT w = s32[] while(z), condition=cond, body=body
})";
  EXPECT_LITERAL(RunOk(kTen, {}, options), "s32[]", "10");
}

constexpr char kBranches[] = R"(
b0 {
  x = s32[] parameter(0)
  c = s32[] constant(100)
  ROOT r = s32[] add(x, c)
}
b1 {
  x = s32[] parameter(0)
  ROOT r = s32[] negate(x)
}
b2 {
  x = s32[] parameter(0)
  ROOT r = s32[] multiply(x, x)
}
)";

TEST(ConditionalTest, PredicateSelectsTrueOrFalseBranch) {
  // pred true -> first computation: 5 + 100; false -> second: -5.
  const std::string prog = std::string("HloModule m\n") + kBranches + R"(
ENTRY e {
  p = pred[] parameter(0)
  x = s32[] constant(5)
  ROOT r = s32[] conditional(p, x, x), true_computation=b0, false_computation=b1
})";
  EXPECT_LITERAL(RunOk(prog, {L("pred[]", "true")}), "s32[]", "105");
  EXPECT_LITERAL(RunOk(prog, {L("pred[]", "false")}), "s32[]", "-5");
}

TEST(ConditionalTest, IndexOutOfRangeRunsLastBranch) {
  // Index 0 -> 5+100, 1 -> -5, 2 -> 25; 7 and -1 are out of range -> the
  // last branch (25).
  const std::string prog = std::string("HloModule m\n") + kBranches + R"(
ENTRY e {
  i = s32[] parameter(0)
  x = s32[] constant(5)
  ROOT r = s32[] conditional(i, x, x, x), branch_computations={b0, b1, b2}
})";
  EXPECT_LITERAL(RunOk(prog, {L("s32[]", "0")}), "s32[]", "105");
  EXPECT_LITERAL(RunOk(prog, {L("s32[]", "1")}), "s32[]", "-5");
  EXPECT_LITERAL(RunOk(prog, {L("s32[]", "2")}), "s32[]", "25");
  EXPECT_LITERAL(RunOk(prog, {L("s32[]", "7")}), "s32[]", "25");
  EXPECT_LITERAL(RunOk(prog, {L("s32[]", "-1")}), "s32[]", "25");
}

TEST(CallAndFusionTest, NestedCalls) {
  // call f(a, b) = g(a) * b with g(x) = x + 1, then a fusion of the same:
  // (2 + 1) * 4 = 12; fusion (3 + 1) * 5 = 20.
  Literal r = RunOk(R"(HloModule m
g {
  x = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT r = s32[] add(x, one)
}
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ga = s32[] call(a), to_apply=g
  ROOT r = s32[] multiply(ga, b)
}
fused {
  p0 = s32[] parameter(0)
  p1 = s32[] parameter(1)
  one = s32[] constant(1)
  s = s32[] add(p0, one)
  ROOT m = s32[] multiply(s, p1)
}
ENTRY e {
  a = s32[] constant(2)
  b = s32[] constant(4)
  c = s32[] call(a, b), to_apply=f
  x = s32[] constant(3)
  y = s32[] constant(5)
  d = s32[] fusion(x, y), kind=kLoop, calls=fused
  ROOT t = (s32[], s32[]) tuple(c, d)
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[]", "12");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "20");
}

TEST(CallAndFusionTest, LoopInsideConditionalInsideLoop) {
  // Outer loop i = 0..3; each iteration adds cond(i even ? sum(0..i) : 0)
  // where sum is an inner while: i=0 -> 0, i=2 -> 0+1+2 = 3; total 3.
  Literal r = RunOk(R"(HloModule m
sum_cond {
  s = (s32[], s32[], s32[]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  ROOT le = pred[] compare(k, n), direction=LE
}
sum_body {
  s = (s32[], s32[], s32[]) parameter(0)
  k = s32[] get-tuple-element(s), index=0
  n = s32[] get-tuple-element(s), index=1
  acc = s32[] get-tuple-element(s), index=2
  one = s32[] constant(1)
  k2 = s32[] add(k, one)
  acc2 = s32[] add(acc, k)
  ROOT t = (s32[], s32[], s32[]) tuple(k2, n, acc2)
}
even_branch {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[]) tuple(zero, n, zero)
  w = (s32[], s32[], s32[]) while(init), condition=sum_cond, body=sum_body
  ROOT r = s32[] get-tuple-element(w), index=2
}
odd_branch {
  n = s32[] parameter(0)
  ROOT z = s32[] constant(0)
}
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  four = s32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  two = s32[] constant(2)
  r = s32[] remainder(i, two)
  zero = s32[] constant(0)
  even = pred[] compare(r, zero), direction=EQ
  v = s32[] conditional(even, i, i), true_computation=even_branch, false_computation=odd_branch
  acc2 = s32[] add(acc, v)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
ENTRY e {
  zero = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT total = s32[] get-tuple-element(w), index=1
})");
  EXPECT_LITERAL(r, "s32[]", "3");
}

}  // namespace
}  // namespace plexa::eval_test
