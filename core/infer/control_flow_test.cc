#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::S;

// Seed 004: t = tuple(v: f32[10], s: s32) has shape (f32[10], s32[]) and
// get-tuple-element(t, 1) is s32[].
TEST(TupleTest, SeedExample) {
  const Shape v = S("f32[10]");
  const Shape s = S("s32[]");
  EXPECT_SHAPE(InferTupleShape({&v, &s}), "(f32[10], s32[])");
  EXPECT_SHAPE(InferGetTupleElementShape(S("(f32[10], s32[])"), 1), "s32[]");
  EXPECT_SHAPE(InferGetTupleElementShape(S("(f32[10], s32[])"), 0), "f32[10]");
}

TEST(TupleTest, NestedEmptyAndErrors) {
  const Shape t = S("(f32[], token[])");
  const Shape a = S("s8[2]");
  EXPECT_SHAPE(InferTupleShape({&t, &a}), "((f32[], token[]), s8[2])");
  EXPECT_SHAPE(InferTupleShape({}), "()");
  EXPECT_INVALID(InferGetTupleElementShape(S("(f32[10], s32[])"), 2),
                 "(f32[10], s32[])", "out of bounds");
  EXPECT_INVALID(InferGetTupleElementShape(S("(f32[10], s32[])"), -1),
                 "(f32[10], s32[])");
  EXPECT_INVALID(InferGetTupleElementShape(S("f32[10]"), 0), "f32[10]",
                 "non-tuple");
}

TEST(TupleTest, LayoutsAreDropped) {
  Shape v = S("f32[2,3]");
  v.set_layout(Layout({0, 1}));
  absl::StatusOr<Shape> r = InferTupleShape({&v});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->ToString(), "(f32[2,3])");
}

TEST(CallTest, Signature) {
  const Shape a = S("f32[2]");
  const Shape b = S("s32[]");
  EXPECT_SHAPE(InferCallShape({&a, &b}, PS({"f32[2]", "s32[]"}, "(f32[2])")),
               "(f32[2])");
  // Seed 004: a computation may take no arguments.
  EXPECT_SHAPE(InferCallShape({}, PS({}, "f32[]")), "f32[]");
  EXPECT_INVALID(InferCallShape({&a}, PS({"f32[2]", "s32[]"}, "f32[2]")),
                 "f32[2]", "s32[]", "call");
  EXPECT_INVALID(InferCallShape({&a, &a}, PS({"f32[2]", "s32[]"}, "f32[2]")),
                 "argument 1", "f32[2]", "s32[]");
}

// Seed 004's while: the state is (s32 iteration, f32[10] accumulator).
TEST(WhileTest, SeedLoopState) {
  const char* state = "(s32[], f32[10])";
  EXPECT_SHAPE(
      InferWhileShape(PS({state}, "pred[]"), PS({state}, state), S(state)),
      "(s32[], f32[10])");
}

TEST(WhileTest, Errors) {
  const char* state = "(s32[], f32[10])";
  EXPECT_INVALID(
      InferWhileShape(PS({state}, "s32[]"), PS({state}, state), S(state)),
      "pred[]", "s32[]");
  EXPECT_INVALID(InferWhileShape(PS({state}, "pred[]"),
                                 PS({state}, "(s32[], f32[9])"), S(state)),
                 "(s32[], f32[9])", "same shape");
  EXPECT_INVALID(InferWhileShape(PS({state}, "pred[]"), PS({state}, state),
                                 S("(s32[], f32[11])")),
                 "(s32[], f32[11])");
  EXPECT_INVALID(
      InferWhileShape(PS({"s32[]"}, "pred[]"), PS({state}, state), S(state)),
      "same shape");
  EXPECT_INVALID(InferWhileShape(PS({state, state}, "pred[]"),
                                 PS({state}, state), S(state)),
                 "1 parameter");
  EXPECT_INVALID(
      InferWhileShape(PS({state}, "pred[]"), PS({}, state), S(state)),
      "1 parameter");
}

TEST(ConditionalTest, PredAndIndexForms) {
  const Shape x = S("f32[2]");
  const Shape y = S("s32[]");
  EXPECT_SHAPE(
      InferConditionalShape(S("pred[]"),
                            {PS({"f32[2]"}, "f32[3]"), PS({"s32[]"}, "f32[3]")},
                            {&x, &y}),
      "f32[3]");
  EXPECT_SHAPE(InferConditionalShape(
                   S("s32[]"),
                   {PS({"f32[2]"}, "(f32[])"), PS({"f32[2]"}, "(f32[])"),
                    PS({"s32[]"}, "(f32[])")},
                   {&x, &x, &y}),
               "(f32[])");
  // One branch with an index is allowed; dynamism is merged.
  EXPECT_SHAPE(
      InferConditionalShape(S("s32[]"), {PS({"f32[2]"}, "f32[<=4]")}, {&x}),
      "f32[<=4]");
}

TEST(ConditionalTest, Errors) {
  const Shape x = S("f32[2]");
  EXPECT_INVALID(
      InferConditionalShape(
          S("f32[]"), {PS({"f32[2]"}, "f32[3]"), PS({"f32[2]"}, "f32[3]")},
          {&x, &x}),
      "f32[]", "pred[] or s32[]");
  EXPECT_INVALID(
      InferConditionalShape(S("s32[2]"), {PS({"f32[2]"}, "f32[3]")}, {&x}),
      "s32[2]");
  EXPECT_INVALID(
      InferConditionalShape(S("pred[]"),
                            {PS({"f32[2]"}, "f32[3]"), PS({"f32[2]"}, "f32[3]"),
                             PS({"f32[2]"}, "f32[3]")},
                            {&x, &x, &x}),
      "exactly 2");
  EXPECT_INVALID(
      InferConditionalShape(
          S("pred[]"), {PS({"f32[2]"}, "f32[3]"), PS({"f32[2]"}, "f32[4]")},
          {&x, &x}),
      "f32[3]", "f32[4]");
  EXPECT_INVALID(
      InferConditionalShape(
          S("pred[]"), {PS({"f32[2]"}, "f32[3]"), PS({"s32[2]"}, "f32[3]")},
          {&x, &x}),
      "branch operand 1", "f32[2]", "s32[2]");
  EXPECT_INVALID(InferConditionalShape(S("s32[]"), {}, {}), "at least one");
  EXPECT_INVALID(
      InferConditionalShape(S("s32[]"), {PS({"f32[2]"}, "f32[3]")}, {}),
      "branch operands");
}

}  // namespace
}  // namespace plexa::shape_inference
