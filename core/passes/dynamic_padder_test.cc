// Dynamic shapes (dynamic_padder.h): each program is lowered, run on the
// evaluator with arguments at their run-time sizes, and its result cut to
// its run-time sizes. Expected values are computed by hand from XLA's
// semantics: only the first `size` elements of a dynamic dimension exist;
// the padding past them (set to 100 or 1000 here so that any leak shows)
// never reaches a result.
#include "core/passes/dynamic_padder.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/eval/eval_test_util.h"
#include "core/eval/evaluator.h"
#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using eval_test::L;
using pass_test::Parse;
using pass_test::Print;

// Lowers `hlo`, runs it on `args` and returns the result as the program
// as written gives it.
absl::StatusOr<Literal> RunDynamic(const std::string& hlo,
                                   std::vector<Literal> args,
                                   bool run_pipeline = false) {
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return absl::InvalidArgumentError("parse");
  PLEXA_ASSIGN_OR_RETURN(DynamicSignature sig, LowerDynamicShapes(m.get()));
  PLEXA_RETURN_IF_ERROR(VerifyModule(*m));
  if (HasDynamicShapes(*m)) {
    return absl::InternalError("dynamic shapes left:\n" + Print(*m));
  }
  if (run_pipeline) PLEXA_RETURN_IF_ERROR(RunDefaultPipeline(m.get()).status());
  PLEXA_ASSIGN_OR_RETURN(std::vector<Literal> padded,
                         PadDynamicArguments(sig, std::move(args)));
  PLEXA_ASSIGN_OR_RETURN(Literal r, Evaluator().Run(*m, padded));
  return SliceDynamicResult(sig, std::move(r));
}

void ExpectResult(const std::string& hlo, std::vector<Literal> args,
                  const Literal& want) {
  for (bool pipeline : {false, true}) {
    std::vector<Literal> copy = args;
    absl::StatusOr<Literal> got = RunDynamic(hlo, std::move(copy), pipeline);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << hlo;
    EXPECT_EQ(*got, want) << "pipeline " << pipeline << ": got "
                          << got->ToString() << ", want " << want.ToString();
  }
}

constexpr char kAddS32[] = R"(
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}
)";

constexpr char kAdd[] = R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
)";

std::string Program(const std::string& entry) {
  return absl::StrCat("HloModule m\n", kAdd, "\nENTRY e {\n", entry, "\n}\n");
}

TEST(DynamicPadderTest, ReduceSumsOnlyTheSize) {
  // XLA's dynamic_padder_test "DynamicDimensionReduce": the sum of the
  // first `n` elements.
  const std::string hlo = Program(R"(
  p = f32[5] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=5] set-dimension-size(p, n), dimensions={0}
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(d, zero), dimensions={0}, to_apply=add)");
  ExpectResult(hlo, {L("f32[5]", "{1, 2, 3, 100, 1000}"), L("s32[]", "3")},
               L("f32[]", "6"));
  ExpectResult(hlo, {L("f32[5]", "{1, 2, 3, 100, 1000}"), L("s32[]", "0")},
               L("f32[]", "0"));
  // A size past the bound is the bound.
  ExpectResult(hlo, {L("f32[5]", "{1, 2, 3, 4, 5}"), L("s32[]", "9")},
               L("f32[]", "15"));
}

TEST(DynamicPadderTest, GetDimensionSizeReadsTheSize) {
  ExpectResult(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] constant(2)
  d = f32[<=5] set-dimension-size(p, n), dimensions={0}
  e = f32[<=5] exponential(d)
  ROOT g = s32[] get-dimension-size(e), dimensions={0})"),
               {L("f32[5]", "{0, 0, 0, 0, 0}")}, L("s32[]", "2"));
}

TEST(DynamicPadderTest, DynamicResultIsCutToItsSize) {
  ExpectResult(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] constant(3)
  d = f32[<=5] set-dimension-size(p, n), dimensions={0}
  ROOT r = f32[<=5] add(d, d))"),
               {L("f32[5]", "{1, 2, 3, 100, 1000}")}, L("f32[3]", "{2, 4, 6}"));
}

TEST(DynamicPadderTest, DynamicParameterTakesAnyArgumentWithinItsBound) {
  const std::string hlo = Program(R"(
  p = f32[<=5] parameter(0)
  zero = f32[] constant(0)
  s = f32[] reduce(p, zero), dimensions={0}, to_apply=add
  two = f32[] constant(2)
  t = f32[<=5] broadcast(two), dimensions={}
  m = f32[<=5] multiply(p, t)
  ROOT r = (f32[], f32[<=5]) tuple(s, m))");
  ExpectResult(hlo, {L("f32[3]", "{1, 2, 3}")},
               Literal::MakeTuple({L("f32[]", "6"), L("f32[3]", "{2, 4, 6}")}));
  ExpectResult(hlo, {L("f32[0]", "{}")},
               Literal::MakeTuple({L("f32[]", "0"), L("f32[0]", "{}")}));
  std::unique_ptr<Module> m = Parse(hlo);
  absl::StatusOr<DynamicSignature> sig = LowerDynamicShapes(m.get());
  ASSERT_TRUE(sig.ok()) << sig.status();
  std::vector<Literal> too_big;
  too_big.push_back(L("f32[6]", "{1, 2, 3, 4, 5, 6}"));
  absl::StatusOr<std::vector<Literal>> bad =
      PadDynamicArguments(*sig, std::move(too_big));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("may be at most 5"), std::string::npos)
      << bad.status();
}

// XLA's DynamicPadder ExecutionTests DynamicAddWithImplicitBroadcast and
// DynamicAddWithImplicitSlice (their programs, shapes declared as there):
// an operand of size 1 is broadcast to the other's size, otherwise the
// smaller size is the result's.
std::string ImplicitProgram(const std::string& input1, int size1, int size2) {
  return absl::StrCat(R"(HloModule module
update_s32 {
  lhs = s32[] parameter(0)
  rhs = s32[] parameter(1)
  ROOT add = s32[] add(lhs, rhs)
}
ENTRY entry {
  zero = s32[] constant(0)
  one = s32[] constant(1)
  two = s32[] constant(2)
  s1 = s32[] constant()",
                      size1, R"()
  s2 = s32[] constant()",
                      size2, R"()
  )",
                      input1, R"(
  input1_dynamic = s32[<=4, 2] set-dimension-size(input1, s1), dimensions={0}
  input2 = s32[4, 2] broadcast(two), dimensions={}
  input2_dynamic = s32[<=4, 2] set-dimension-size(input2, s2), dimensions={0}
  add = s32[<=4, 2] add(input1_dynamic, input2_dynamic)
  ROOT reduce = s32[2] reduce(add, zero), dimensions={0}, to_apply=update_s32
}
)");
}

TEST(DynamicPadderTest, ElementwiseImplicitBroadcastAndSlice) {
  // Rows 1, 2, 3, 4 with size 1 plus 2s with size 3: [1,1] is broadcast,
  // (1+2)·3 = 9 in each column.
  const std::string rows = R"(iota = s32[4, 2] iota(), iota_dimension=0
  ones = s32[4, 2] broadcast(one), dimensions={}
  input1 = s32[4, 2] add(iota, ones))";
  ExpectResult(ImplicitProgram(rows, 1, 3), {}, L("s32[2]", "{9, 9}"));
  // The same with the operands' sizes the other way round: rows 1..3 plus
  // the broadcast row of 2s: 3+4+5 = 12.
  ExpectResult(ImplicitProgram(rows, 3, 1), {}, L("s32[2]", "{12, 12}"));
  // 1s with size 3 plus 2s with size 2: two rows of 3.
  const std::string ones = "input1 = s32[4, 2] broadcast(one), dimensions={}";
  ExpectResult(ImplicitProgram(ones, 3, 2), {}, L("s32[2]", "{6, 6}"));
}

TEST(DynamicPadderTest, StaticDeclarationsFollowTheSizes) {
  // As XLA's older tests write them: the shapes are declared static; the
  // sizes still apply (XLA's verifier compares shapes ignoring which
  // dimensions are dynamic).
  ExpectResult(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] constant(3)
  d = f32[5] set-dimension-size(p, n), dimensions={0}
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(d, zero), dimensions={0}, to_apply=add)"),
               {L("f32[5]", "{1, 2, 3, 100, 1000}")}, L("f32[]", "6"));
  // A reshape whose result is declared static: the dynamic dimension is
  // the one the grouping gives ([2,<=4] -> [8]: 2·3 = 6 elements).
  ExpectResult(Program(R"(
  p = f32[2,4] parameter(0)
  n = s32[] constant(3)
  d = f32[2,4] set-dimension-size(p, n), dimensions={1}
  r = f32[8] reshape(d)
  g = s32[] get-dimension-size(r), dimensions={0}
  zero = f32[] constant(0)
  s = f32[] reduce(r, zero), dimensions={0}, to_apply=add
  ROOT t = (s32[], f32[]) tuple(g, s))"),
               {L("f32[2,4]", "{{1, 2, 3, 100}, {4, 5, 6, 1000}}")},
               Literal::MakeTuple({L("s32[]", "6"), L("f32[]", "21")}));
}

TEST(DynamicPadderTest, DotContractsOnlyTheSize) {
  // [[1,2,3],[4,5,6]] · [[1,0],[0,1],[1,1]] = [[4,5],[10,11]].
  ExpectResult(Program(R"(
  a = f32[2,4] parameter(0)
  b = f32[4,2] parameter(1)
  n = s32[] constant(3)
  d = f32[2,<=4] set-dimension-size(a, n), dimensions={1}
  ROOT r = f32[2,2] dot(d, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})"),
               {L("f32[2,4]", "{{1, 2, 3, 100}, {4, 5, 6, 100}}"),
                L("f32[4,2]", "{{1, 0}, {0, 1}, {1, 1}, {1000, 1000}}")},
               L("f32[2,2]", "{{4, 5}, {10, 11}}"));
}

TEST(DynamicPadderTest, ReshapeGathersTheElementsInOrder) {
  // [3,<=4] with size 2 -> [<=12]: x00 x01 x10 x11 x20 x21.
  ExpectResult(Program(R"(
  p = f32[3,4] parameter(0)
  n = s32[] constant(2)
  d = f32[3,<=4] set-dimension-size(p, n), dimensions={1}
  ROOT r = f32[<=12] reshape(d))"),
               {L("f32[3,4]", "{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}")},
               L("f32[6]", "{0, 1, 4, 5, 8, 9}"));
  // [<=4,3] with size 2 -> [<=12]: the first six, no gather needed.
  ExpectResult(
      Program(R"(
  p = f32[4,3] parameter(0)
  n = s32[] constant(2)
  d = f32[<=4,3] set-dimension-size(p, n), dimensions={0}
  ROOT r = f32[<=12] reshape(d))"),
      {L("f32[4,3]", "{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}")},
      L("f32[6]", "{0, 1, 2, 3, 4, 5}"));
  // [<=12] with size 6 -> [<=4,3]: two rows.
  ExpectResult(Program(R"(
  p = f32[12] parameter(0)
  n = s32[] constant(6)
  d = f32[<=12] set-dimension-size(p, n), dimensions={0}
  ROOT r = f32[<=4,3] reshape(d))"),
               {L("f32[12]", "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}")},
               L("f32[2,3]", "{{0, 1, 2}, {3, 4, 5}}"));
}

TEST(DynamicPadderTest, DynamicReshape) {
  // The four elements 1..4 as 2x2 of a [<=2,<=3] bound.
  ExpectResult(Program(R"(
  p = f32[6] parameter(0)
  four = s32[] constant(4)
  two = s32[] constant(2)
  d = f32[<=6] set-dimension-size(p, four), dimensions={0}
  ROOT r = f32[<=2,<=3] dynamic-reshape(d, two, two))"),
               {L("f32[6]", "{1, 2, 3, 4, 100, 1000}")},
               L("f32[2,2]", "{{1, 2}, {3, 4}}"));
}

TEST(DynamicPadderTest, DynamicReshapeOfAMiddleDimension) {
  // XLA's DynamicReshapeTest.SingleDynamicDimension: s32[2,<=3,3] with 2
  // rows per batch holds 0..5 and 9..14; dynamic-reshape to 9 elements
  // takes the first nine of them.
  ExpectResult(R"(HloModule m
ENTRY main {
  param = s32[2,3,3] parameter(0)
  two = s32[] parameter(1)
  param_padded = s32[2,<=3,3] set-dimension-size(param, two), dimensions={1}
  nine = s32[] parameter(2)
  ROOT reshaped = s32[<=18] dynamic-reshape(param_padded, nine)
}
)",
               {L("s32[2,3,3]",
                  "{{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}, "
                  "{{9, 10, 11}, {12, 13, 14}, {15, 16, 17}}}"),
                L("s32[]", "2"), L("s32[]", "9")},
               L("s32[9]", "{0, 1, 2, 3, 4, 5, 9, 10, 11}"));
}

TEST(DynamicPadderTest, ASizeEqualToTheBoundIsStatic) {
  // As XLA's MHLO export writes it: the result is declared static, and
  // the pipeline (which cannot return a run-time size) accepts it.
  const std::string hlo = R"(HloModule m
ENTRY e {
  arg = f32[<=3,2] parameter(0)
  size = s32[] constant(3)
  ROOT r = f32[3,2] set-dimension-size(arg, size), dimensions={0}
}
)";
  std::unique_ptr<Module> m = Parse(hlo);
  ASSERT_TRUE(RunDefaultPipeline(m.get()).ok());
  absl::StatusOr<Literal> r =
      Evaluator().Run(*m, {L("f32[3,2]", "{{1, 2}, {3, 4}, {5, 6}}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, L("f32[3,2]", "{{1, 2}, {3, 4}, {5, 6}}"));
}

TEST(DynamicPadderTest, BroadcastThenReduceAlongTheDynamicDimension) {
  ExpectResult(Program(R"(
  p = f32[3] parameter(0)
  n = s32[] constant(2)
  d = f32[<=3] set-dimension-size(p, n), dimensions={0}
  b = f32[2,<=3] broadcast(d), dimensions={1}
  zero = f32[] constant(0)
  ROOT r = f32[2] reduce(b, zero), dimensions={1}, to_apply=add)"),
               {L("f32[3]", "{1, 2, 100}")}, L("f32[2]", "{3, 3}"));
}

TEST(DynamicPadderTest, SortPutsThePaddingLast) {
  ExpectResult(absl::StrCat(R"(HloModule m
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = f32[5] parameter(0)
  n = s32[] constant(3)
  d = f32[<=5] set-dimension-size(p, n), dimensions={0}
  ROOT s = f32[<=5] sort(d), dimensions={0}, to_apply=less
}
)"),
               {L("f32[5]", "{5, 1, 4, -100, -1000}")},
               L("f32[3]", "{1, 4, 5}"));
}

TEST(DynamicPadderTest, ConcatenateReverseAndPad) {
  ExpectResult(Program(R"(
  a = f32[3] parameter(0)
  b = f32[2] parameter(1)
  two = s32[] constant(2)
  one = s32[] constant(1)
  da = f32[<=3] set-dimension-size(a, two), dimensions={0}
  db = f32[<=2] set-dimension-size(b, one), dimensions={0}
  ROOT c = f32[<=5] concatenate(da, db), dimensions={0})"),
               {L("f32[3]", "{1, 2, 100}"), L("f32[2]", "{3, 1000}")},
               L("f32[3]", "{1, 2, 3}"));
  ExpectResult(Program(R"(
  a = f32[5] parameter(0)
  three = s32[] constant(3)
  d = f32[<=5] set-dimension-size(a, three), dimensions={0}
  ROOT r = f32[<=5] reverse(d), dimensions={0})"),
               {L("f32[5]", "{1, 2, 3, 100, 1000}")}, L("f32[3]", "{3, 2, 1}"));
  // pad low 1, high 1, interior 1 of [1, 2]: 0 1 0 2 0.
  ExpectResult(Program(R"(
  a = f32[3] parameter(0)
  two = s32[] constant(2)
  d = f32[<=3] set-dimension-size(a, two), dimensions={0}
  zero = f32[] constant(0)
  ROOT r = f32[<=7] pad(d, zero), padding=1_1_1)"),
               {L("f32[3]", "{1, 2, 100}")}, L("f32[5]", "{0, 1, 0, 2, 0}"));
}

TEST(DynamicPadderTest, ReduceWindowCountsWindowsOfTheSize) {
  // Windows of 2 over [1, 2, 3]: [3, 5].
  ExpectResult(Program(R"(
  a = f32[4] parameter(0)
  three = s32[] constant(3)
  d = f32[<=4] set-dimension-size(a, three), dimensions={0}
  zero = f32[] constant(0)
  ROOT r = f32[<=3] reduce-window(d, zero), window={size=2}, to_apply=add)"),
               {L("f32[4]", "{1, 2, 3, 100}")}, L("f32[2]", "{3, 5}"));
}

TEST(DynamicPadderTest, SliceKeepsTheElementsBelowTheSize) {
  // [1:4:2] of 6 elements of which 4 exist: elements 1 and 3; of which 2
  // exist: element 1 alone. One element sliced out is static.
  const std::string hlo = Program(R"(
  a = f32[6] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=6] set-dimension-size(a, n), dimensions={0}
  s = f32[<=2] slice(d), slice={[1:4:2]}
  one = f32[1] slice(d), slice={[5:6]}
  ROOT r = (f32[<=2], f32[1]) tuple(s, one))");
  ExpectResult(
      hlo, {L("f32[6]", "{0, 1, 2, 3, 100, 1000}"), L("s32[]", "4")},
      Literal::MakeTuple({L("f32[2]", "{1, 3}"), L("f32[1]", "{1000}")}));
  ExpectResult(hlo, {L("f32[6]", "{0, 1, 2, 3, 100, 1000}"), L("s32[]", "2")},
               Literal::MakeTuple({L("f32[1]", "{1}"), L("f32[1]", "{1000}")}));
}

constexpr char kLoop[] = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
cond {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(2)
  ROOT c = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[<=4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[<=4] add(x, x)
  ROOT t = (s32[], f32[<=4]) tuple(j, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=4] set-dimension-size(a, n), dimensions={0}
  zero = s32[] constant(0)
  t = (s32[], f32[<=4]) tuple(zero, d)
  w = (s32[], f32[<=4]) while(t), condition=cond, body=body
  x = f32[<=4] get-tuple-element(w), index=1
  f0 = f32[] constant(0)
  sum = f32[] reduce(x, f0), dimensions={0}, to_apply=add
  ROOT r = (f32[<=4], f32[]) tuple(x, sum)
}
)";

TEST(DynamicPadderTest, WhileLoopsCarryTheSizes) {
  // Twice doubled: 4·[1, 2, 3] and its sum 24.
  ExpectResult(
      kLoop, {L("f32[4]", "{1, 2, 3, 100}"), L("s32[]", "3")},
      Literal::MakeTuple({L("f32[3]", "{4, 8, 12}"), L("f32[]", "24")}));
}

TEST(DynamicPadderTest, ALoopBodyMaySetTheSize) {
  // The loop's shape declares the dimension dynamic; the body shrinks it by
  // one each time: [1, 2, 3, 4] -> 2 elements after 2 iterations.
  ExpectResult(R"(HloModule m
cond {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(2)
  ROOT c = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[<=4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[<=4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  n = s32[] get-dimension-size(x), dimensions={0}
  m = s32[] subtract(n, one)
  y = f32[<=4] set-dimension-size(x, m), dimensions={0}
  ROOT t = (s32[], f32[<=4]) tuple(j, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=4] set-dimension-size(a, n), dimensions={0}
  zero = s32[] constant(0)
  t = (s32[], f32[<=4]) tuple(zero, d)
  w = (s32[], f32[<=4]) while(t), condition=cond, body=body
  ROOT x = f32[<=4] get-tuple-element(w), index=1
}
)",
               {L("f32[4]", "{1, 2, 3, 4}"), L("s32[]", "4")},
               L("f32[2]", "{1, 2}"));
}

TEST(DynamicPadderTest, XlasDynamicStackPop) {
  // XLA's DynamicStackPop: the loop's shape is static but its body and
  // condition declare the stack dynamic; it pops rows of 1s while more
  // than 2 are left, so 2 rows are summed.
  ExpectResult(absl::StrCat("HloModule m\n", kAddS32, R"(body {
  param_tuple = (s32[<=4,2]) parameter(0)
  param = s32[<=4, 2] get-tuple-element(param_tuple), index=0
  one = s32[] constant(1)
  size = s32[] get-dimension-size(param), dimensions={0}
  new_size = s32[] subtract(size, one)
  output = s32[<=4, 2] set-dimension-size(param, new_size), dimensions={0}
  ROOT root = (s32[<=4, 2]) tuple(output)
}
condition {
  stack = (s32[<=4,2]) parameter(0)
  stack_buffer = s32[<=4,2] get-tuple-element(stack), index=0
  stack_size = s32[] get-dimension-size(stack_buffer), dimensions={0}
  two = s32[] constant(2)
  ROOT greater-than = pred[] compare(stack_size, two), direction=GT
}
ENTRY entry {
  one = s32[] constant(1)
  zero = s32[] constant(0)
  stack_buffer_input = s32[4, 2] broadcast(one), dimensions={}
  input_tuple = (s32[4, 2]) tuple(stack_buffer_input)
  while = (s32[4, 2]) while(input_tuple), body=body, condition=condition
  stack_buffer = s32[<=4, 2] get-tuple-element(while), index=0
  ROOT reduce = s32[2] reduce(stack_buffer, zero), dimensions={0}, to_apply=add
}
)"),
               {}, L("s32[2]", "{2, 2}"));
}

TEST(DynamicPadderTest, XlasDynamicConditionalDimension) {
  // XLA's DynamicConditionalDimension: 2 of 3 rows through the false
  // branch, which doubles them: [[2, 4], [6, 8]] summed.
  ExpectResult(absl::StrCat("HloModule m\n", kAddS32, R"(true_branch {
  true_param = (s32[<=3,2]) parameter(0)
  param = s32[<=3, 2] get-tuple-element(true_param), index=0
  add = s32[<=3,2] add(param, param)
  ROOT true_tuple = (s32[<=3,2], s32[<=3,2]) tuple(add, add)
}
false_branch {
  false_param = (s32[<=3,2]) parameter(0)
  param = s32[<=3, 2] get-tuple-element(false_param), index=0
  add = s32[<=3,2] add(param, param)
  ROOT false_tuple = (s32[<=3,2], s32[<=3,2]) tuple(add, add)
}
ENTRY entry {
  param0 = s32[3,2] parameter(0)
  size = s32[] constant(2)
  branch = pred[] constant(false)
  param_dynamic = s32[<=3, 2] set-dimension-size(param0, size), dimensions={0}
  param_tuple = (s32[<=3 ,2]) tuple(param_dynamic)
  conditional = (s32[<=3, 2], s32[<=3, 2]) conditional(branch, param_tuple, param_tuple),
    true_computation=true_branch, false_computation=false_branch
  gte0 = s32[<=3,2] get-tuple-element(conditional), index=1
  init = s32[] constant(0)
  ROOT reduce = s32[2] reduce(gte0, init), dimensions={0}, to_apply=add
}
)"),
               {L("s32[3,2]", "{{1, 2}, {3, 4}, {100, 1000}}")},
               L("s32[2]", "{8, 12}"));
}

TEST(DynamicPadderTest, ScatterSkipsThePaddingOfItsIndices) {
  // Two of four indices exist: rows 0 and 2 get their updates added; the
  // padding (indices 1 and 0, updates 70.. and 100..) is never written.
  ExpectResult(absl::StrCat("HloModule m\n", kAddS32, R"(ENTRY e {
  operand = s32[3,3] parameter(0)
  indices_p = s32[4] parameter(1)
  updates_p = s32[4,3] parameter(2)
  n = s32[] parameter(3)
  indices = s32[<=4] set-dimension-size(indices_p, n), dimensions={0}
  updates = s32[<=4,3] set-dimension-size(updates_p, n), dimensions={0}
  ROOT scatter = s32[3,3] scatter(operand, indices, updates), to_apply=add,
      update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1
}
)"),
               {L("s32[3,3]", "{{1, 1, 1}, {2, 2, 2}, {3, 3, 3}}"),
                L("s32[4]", "{0, 2, 1, 0}"),
                L("s32[4,3]",
                  "{{10, 20, 30}, {40, 50, 60}, {70, 80, 90}, "
                  "{100, 110, 120}}"),
                L("s32[]", "2")},
               L("s32[3,3]", "{{11, 21, 31}, {2, 2, 2}, {43, 53, 63}}"));
}

TEST(DynamicPadderTest, ReshapeTakesXlasInferredDimension) {
  // XLA's OutputMinorDimensionReshape: 8 of 12 elements into [2,<=3,2];
  // inferred_dimension=1 says the middle dimension holds the size (2).
  // Summed over it: [[0+2, 1+3], [4+6, 5+7]].
  ExpectResult(absl::StrCat("HloModule m\n", kAddS32, R"(ENTRY main {
  param = s32[12] parameter(0)
  const = s32[] constant(8)
  param_padded = s32[12] set-dimension-size(param, const), dimensions={0}
  reshaped = s32[2,3,2] reshape(param_padded), inferred_dimension=1
  init = s32[] constant(0)
  ROOT reduce = s32[2,2] reduce(reshaped, init), dimensions={1}, to_apply=add
}
)"),
               {L("s32[12]", "{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}")},
               L("s32[2,2]", "{{2, 4}, {10, 12}}"));
}

TEST(DynamicPadderTest, RefusesWhatItCannotLower) {
  std::unique_ptr<Module> m = Parse(Program(R"(
  a = f32[4] parameter(0)
  three = s32[] constant(3)
  d = f32[<=4] set-dimension-size(a, three), dimensions={0}
  ROOT c = f32[<=4] custom-call(d), custom_call_target="my_op")"));
  absl::StatusOr<DynamicSignature> sig = LowerDynamicShapes(m.get());
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(sig.status().message().find("'c' (custom-call) reads operand 0 "
                                        "(f32[<=4]) with a dynamic dimension"),
            std::string::npos)
      << sig.status();
}

TEST(DynamicPadderTest, ThePipelineRefusesADynamicResult) {
  // Inside a plugin the signature cannot change: a result whose size is
  // only known at run time is an error, not an array of the bound.
  std::unique_ptr<Module> m = Parse(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] parameter(1)
  ROOT d = f32[<=5] set-dimension-size(p, n), dimensions={0})"));
  absl::StatusOr<bool> r = RunDefaultPipeline(m.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("LowerDynamicShapes"), std::string::npos)
      << r.status();
  // Nor does the evaluator run set-dimension-size unlowered.
  std::unique_ptr<Module> again = Parse(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] parameter(1)
  ROOT d = f32[<=5] set-dimension-size(p, n), dimensions={0})"));
  absl::StatusOr<Literal> e = Evaluator().Run(
      *again, {L("f32[5]", "{1, 2, 3, 4, 5}"), L("s32[]", "2")});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("LowerDynamicShapes"), std::string::npos)
      << e.status();
}

TEST(DynamicPadderTest, ThePipelineLowersSizesThatStayInside) {
  std::unique_ptr<Module> m = Parse(Program(R"(
  p = f32[5] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=5] set-dimension-size(p, n), dimensions={0}
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(d, zero), dimensions={0}, to_apply=add)"));
  ASSERT_TRUE(RunDefaultPipeline(m.get()).ok());
  EXPECT_FALSE(HasDynamicShapes(*m));
  absl::StatusOr<Literal> r =
      Evaluator().Run(*m, {L("f32[5]", "{1, 2, 3, 4, 5}"), L("s32[]", "4")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, L("f32[]", "10"));
}

}  // namespace
}  // namespace plexa
