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

TEST(DynamicPadderTest, RefusesWhatItCannotLower) {
  const std::string loop = absl::StrCat(R"(HloModule m
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
  ROOT t = (s32[], f32[<=4]) tuple(j, x)
}
ENTRY e {
  a = f32[4] parameter(0)
  three = s32[] constant(3)
  d = f32[<=4] set-dimension-size(a, three), dimensions={0}
  zero = s32[] constant(0)
  t = (s32[], f32[<=4]) tuple(zero, d)
  ROOT w = (s32[], f32[<=4]) while(t), condition=cond, body=body
}
)");
  std::unique_ptr<Module> m = Parse(loop);
  absl::StatusOr<DynamicSignature> sig = LowerDynamicShapes(m.get());
  ASSERT_FALSE(sig.ok());
  EXPECT_EQ(sig.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(sig.status().message().find("computation 'cond'"),
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
