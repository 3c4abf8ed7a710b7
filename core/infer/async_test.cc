#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

ProgramShape Wrapped(std::vector<Shape> params, Shape result) {
  ProgramShape p;
  p.parameters = std::move(params);
  p.result = std::move(result);
  return p;
}

TEST(AsyncWrapperTest, StartUpdateDoneShapes) {
  const Shape x = S("f32[4]");
  const Shape y = S("s32[2,3]");
  const ProgramShape w = Wrapped({x, y}, S("f32[4]"));
  EXPECT_SHAPE(InferAsyncStartShape({&x, &y}, w, nullptr),
               "((f32[4], s32[2,3]), f32[4])");
  // The context elements come from the declared shape.
  const Shape declared = S("((f32[4], s32[2,3]), f32[4], s32[], u32[])");
  EXPECT_SHAPE(InferAsyncStartShape({&x, &y}, w, &declared),
               "((f32[4], s32[2,3]), f32[4], s32[], u32[])");
  const Shape wrong_result = S("((f32[4], s32[2,3]), s32[4], s32[])");
  EXPECT_INVALID(InferAsyncStartShape({&x, &y}, w, &wrong_result),
                 "async-start", "element 1", "f32[4]", "wrapped result");
  const Shape not_tuple = S("f32[4]");
  EXPECT_INVALID(InferAsyncStartShape({&x, &y}, w, &not_tuple), "async-start",
                 "must be a tuple");
  EXPECT_INVALID(InferAsyncStartShape({&x}, w, nullptr), "takes 2 parameter",
                 "1 operand");
  EXPECT_INVALID(InferAsyncStartShape({&y, &y}, w, nullptr), "operand 0",
                 "s32[2,3]", "parameter 0 f32[4]");
  EXPECT_SHAPE(InferAsyncUpdateShape(declared),
               "((f32[4], s32[2,3]), f32[4], s32[], u32[])");
  EXPECT_SHAPE(InferAsyncWrapperDoneShape(declared), "f32[4]");
  EXPECT_INVALID(InferAsyncWrapperDoneShape(x), "async-done", "tuple",
                 "f32[4]");
  EXPECT_INVALID(InferAsyncUpdateShape(x), "async-update", "tuple");
}

TEST(CopyStartTest, XlaShapes) {
  const Shape x = S("bf16[2,3]");
  EXPECT_SHAPE(InferCopyStartShape(x, nullptr),
               "(bf16[2,3], bf16[2,3], u32[])");
  const Shape bad = S("(bf16[2,3], bf16[2,3], s32[])");
  EXPECT_INVALID(InferCopyStartShape(x, &bad), "copy-start",
                 "(bf16[2,3], bf16[2,3], u32[])");
  const Shape token = S("token[]");
  EXPECT_INVALID(InferCopyStartShape(token, nullptr), "token");
  EXPECT_SHAPE(InferCopyDoneShape(S("(bf16[2,3], bf16[2,3], u32[])")),
               "bf16[2,3]");
  EXPECT_INVALID(InferCopyDoneShape(S("(bf16[2,3], f32[2,3], u32[])")),
                 "copy-done");
}

TEST(OrderingOpsTest, AddDependencyAndRngState) {
  EXPECT_SHAPE(InferAddDependencyShape(S("(f32[2], s32[])"), S("token[]")),
               "(f32[2], s32[])");
  EXPECT_INVALID(InferAddDependencyShape(S("f32[2]"), S("f32[2]")),
                 "add-dependency", "token");
  EXPECT_SHAPE(InferRngGetAndUpdateStateShape(), "u64[2]");
}

}  // namespace
}  // namespace plexa::shape_inference
