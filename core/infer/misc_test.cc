#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::S;

// Seed 004: RngUniform over F32, S32 or U32 with scalar bounds of the
// result's type; RngNormal over floats.
TEST(RngTest, Uniform) {
  EXPECT_SHAPE(InferRngShape(S("f32[]"), S("f32[]"),
                             RandomDistribution::kUniform, S("f32[2,3]")),
               "f32[2,3]");
  EXPECT_SHAPE(InferRngShape(S("s32[]"), S("s32[]"),
                             RandomDistribution::kUniform, S("s32[4]")),
               "s32[4]");
  EXPECT_SHAPE(InferRngShape(S("u32[]"), S("u32[]"),
                             RandomDistribution::kUniform, S("u32[]")),
               "u32[]");
}

TEST(RngTest, Normal) {
  EXPECT_SHAPE(InferRngShape(S("f32[]"), S("f32[]"),
                             RandomDistribution::kNormal, S("f32[5]")),
               "f32[5]");
  EXPECT_INVALID(InferRngShape(S("s32[]"), S("s32[]"),
                               RandomDistribution::kNormal, S("s32[5]")),
                 "s32[5]", "rng_normal");
}

TEST(RngTest, Errors) {
  EXPECT_INVALID(InferRngShape(S("f32[2]"), S("f32[]"),
                               RandomDistribution::kUniform, S("f32[2]")),
                 "f32[2]", "scalars");
  EXPECT_INVALID(InferRngShape(S("s32[]"), S("f32[]"),
                               RandomDistribution::kUniform, S("f32[2]")),
                 "s32[]", "element type");
  EXPECT_INVALID(InferRngShape(S("pred[]"), S("pred[]"),
                               RandomDistribution::kUniform, S("pred[2]")),
                 "pred[2]", "rng_uniform");
  EXPECT_INVALID(InferRngShape(S("f32[]"), S("f32[]"),
                               RandomDistribution::kUniform, S("(f32[2])")),
                 "(f32[2])");
}

// rng-bit-generator: XLA's (state, data) tuple; the state sizes its
// expander lowers (three_fry u64[2]; philox and default u64[2] or u64[3]).
TEST(RngBitGeneratorTest, StateSizesPerAlgorithm) {
  EXPECT_SHAPE(
      InferRngBitGeneratorShape(S("u64[2]"), RandomAlgorithm::kThreeFry,
                                S("(u64[2], u32[2,3])")),
      "(u64[2], u32[2,3])");
  EXPECT_SHAPE(InferRngBitGeneratorShape(S("u64[3]"), RandomAlgorithm::kPhilox,
                                         S("(u64[3], u64[5])")),
               "(u64[3], u64[5])");
  EXPECT_SHAPE(InferRngBitGeneratorShape(S("u64[2]"), RandomAlgorithm::kPhilox,
                                         S("(u64[2], s32[])")),
               "(u64[2], s32[])");
  EXPECT_SHAPE(InferRngBitGeneratorShape(S("u64[3]"), RandomAlgorithm::kDefault,
                                         S("(u64[3], s64[0,4])")),
               "(u64[3], s64[0,4])");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[3]"), RandomAlgorithm::kThreeFry,
                                S("(u64[3], u32[4])")),
      "rng-bit-generator(u64[3])", "rng_three_fry", "must be u64[2]");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[4]"), RandomAlgorithm::kPhilox,
                                S("(u64[4], u32[4])")),
      "u64[2] or u64[3]", "rng_philox");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[1]"), RandomAlgorithm::kDefault,
                                S("(u64[1], u32[4])")),
      "u64[2] or u64[3]");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("s64[2]"), RandomAlgorithm::kThreeFry,
                                S("(s64[2], u32[4])")),
      "s64[2]", "must be u64[2]");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[]"), RandomAlgorithm::kThreeFry,
                                S("(u64[], u32[4])")),
      "must be u64[2]");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[2]"), static_cast<RandomAlgorithm>(9),
                                S("(u64[2], u32[4])")),
      "unknown algorithm");
}

TEST(RngBitGeneratorTest, ResultShape) {
  // The result's state must be the operand's shape.
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[3]"), RandomAlgorithm::kPhilox,
                                S("(u64[2], u32[4])")),
      "differs from the operand u64[3]");
  // Not a tuple, or not a pair.
  EXPECT_INVALID(InferRngBitGeneratorShape(
                     S("u64[2]"), RandomAlgorithm::kThreeFry, S("u32[4]")),
                 "(state, data) tuple");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[2]"), RandomAlgorithm::kThreeFry,
                                S("(u64[2], u32[4], u32[4])")),
      "(state, data) tuple");
  // Bits of every 8- to 64-bit integral or floating-point type; not pred,
  // not complex, not a tuple or token.
  for (const char* ok :
       {"(u64[2], u8[3])", "(u64[2], s16[3])", "(u64[2], bf16[3])",
        "(u64[2], f32[3])", "(u64[2], f64[3])"}) {
    EXPECT_SHAPE(InferRngBitGeneratorShape(S("u64[2]"),
                                           RandomAlgorithm::kThreeFry, S(ok)),
                 ok);
  }
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[2]"), RandomAlgorithm::kThreeFry,
                                S("(u64[2], pred[3])")),
      "integral or floating-point");
  EXPECT_INVALID(
      InferRngBitGeneratorShape(S("u64[2]"), RandomAlgorithm::kThreeFry,
                                S("(u64[2], c64[3])")),
      "integral or floating-point");
  EXPECT_INVALID(InferRngBitGeneratorShape(
      S("u64[2]"), RandomAlgorithm::kThreeFry, S("(u64[2], (u32[3]))")));
}

TEST(InfeedTest, DataAndToken) {
  EXPECT_SHAPE(InferInfeedShape(S("token[]"), S("(f32[2,3], token[])")),
               "(f32[2,3], token[])");
  EXPECT_SHAPE(InferInfeedShape(S("token[]"), S("((f32[2], s32[]), token[])")),
               "((f32[2], s32[]), token[])");
  // Seed 004: an empty tuple infeed reads nothing but is allowed.
  EXPECT_SHAPE(InferInfeedShape(S("token[]"), S("((), token[])")),
               "((), token[])");
  EXPECT_INVALID(InferInfeedShape(S("f32[]"), S("(f32[2,3], token[])")),
                 "f32[]", "token");
  EXPECT_INVALID(InferInfeedShape(S("token[]"), S("f32[2,3]")), "f32[2,3]",
                 "(data, token[])");
  EXPECT_INVALID(InferInfeedShape(S("token[]"), S("(f32[2,3], f32[])")),
                 "(f32[2,3], f32[])");
  EXPECT_INVALID(InferInfeedShape(S("token[]"), S("(token[], token[])")),
                 "(token[], token[])");
}

TEST(OutfeedTest, ReturnsToken) {
  EXPECT_SHAPE(InferOutfeedShape(S("f32[2]"), S("token[]")), "token[]");
  EXPECT_SHAPE(InferOutfeedShape(S("(f32[2], s32[])"), S("token[]")),
               "token[]");
  EXPECT_INVALID(InferOutfeedShape(S("f32[2]"), S("f32[2]")), "f32[2]",
                 "token");
  EXPECT_INVALID(InferOutfeedShape(S("token[]"), S("token[]")), "token[]");
}

TEST(AfterAllTest, Tokens) {
  const Shape t = S("token[]");
  const Shape f = S("f32[]");
  EXPECT_SHAPE(InferAfterAllShape({&t, &t}), "token[]");
  EXPECT_SHAPE(InferAfterAllShape({}), "token[]");
  EXPECT_INVALID(InferAfterAllShape({&t, &f}), "f32[]", "token");
}

TEST(SendRecvTest, ShapesAsXla) {
  // send(data, token): (data, u32[], token[]); the u32[] is a context.
  EXPECT_SHAPE(InferSendShape(S("f32[2,3]"), S("token[]")),
               "(f32[2,3], u32[], token[])");
  EXPECT_INVALID(InferSendShape(S("f32[2]"), S("f32[]")), "token", "f32[]");
  EXPECT_INVALID(InferSendShape(S("(f32[2], s32[])"), S("token[]")),
                 "send sends an array");
  EXPECT_SHAPE(InferRecvShape(S("token[]"), S("(s32[4], u32[], token[])")),
               "(s32[4], u32[], token[])");
  EXPECT_INVALID(InferRecvShape(S("token[]"), S("(s32[4], token[])")),
                 "(data, u32[], token[])");
  EXPECT_INVALID(InferRecvShape(S("s32[]"), S("(s32[4], u32[], token[])")),
                 "recv expects a token");
  EXPECT_SHAPE(InferSendDoneShape(S("(f32[2], u32[], token[])")), "token[]");
  EXPECT_INVALID(InferSendDoneShape(S("(f32[2], token[])")), "send-done");
  EXPECT_SHAPE(InferRecvDoneShape(S("(f32[2], u32[], token[])")),
               "(f32[2], token[])");
  EXPECT_INVALID(InferRecvDoneShape(S("f32[2]")), "recv-done");
}

}  // namespace
}  // namespace plexa::shape_inference
