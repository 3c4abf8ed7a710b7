#include "core/passes/topk_custom_call_rewriter.h"

#include <string>

#include "core/passes/default_pipeline.h"
#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;
using pass_test::Parse;

// What jax.lax.top_k leaves in HLO: k comes from the result's shape,
// largest first. The topk takes the call's name (made unique while the call
// still exists, hence ".0").
TEST(TopKCustomCallRewriterTest, BatchedAndVectorCallsBecomeTopK) {
  TopKCustomCallRewriter rewriter;
  ExpectRewrite(rewriter, R"(
    HloModule m

    ENTRY %main (x: f32[4,16], y: f32[7]) -> ((f32[4,2], s32[4,2]), (f32[3], s32[3])) {
      %x = f32[4,16] parameter(0)
      %t = (f32[4,2], s32[4,2]) custom-call(%x), custom_call_target="TopK"
      %y = f32[7] parameter(1)
      %u = (f32[3], s32[3]) custom-call(%y), custom_call_target="TopK"
      ROOT %r = ((f32[4,2], s32[4,2]), (f32[3], s32[3])) tuple(%t, %u)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[4,16], y: f32[7]) -> ((f32[4,2], s32[4,2]), (f32[3], s32[3])) {
      %x = f32[4,16] parameter(0)
      %y = f32[7] parameter(1)
      %t.0 = (f32[4,2], s32[4,2]) topk(%x), k=2, largest=true
      %u.0 = (f32[3], s32[3]) topk(%y), k=3, largest=true
      ROOT %r = ((f32[4,2], s32[4,2]), (f32[3], s32[3])) tuple(%t.0, %u.0)
    }
  )");
}

TEST(TopKCustomCallRewriterTest, OtherTargetsStay) {
  TopKCustomCallRewriter rewriter;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[4,16]) -> (f32[4,2], s32[4,2]) {
      %x = f32[4,16] parameter(0)
      ROOT %t = (f32[4,2], s32[4,2]) custom-call(%x), custom_call_target="topk"
    }
  )";
  ExpectRewrite(rewriter, text, text, /*changed=*/false);
}

// Shapes that are not XLA's TopK's: an error naming the call and shapes.
TEST(TopKCustomCallRewriterTest, MalformedCallsAreLocatedErrors) {
  auto error = [](const char* body) {
    std::unique_ptr<Module> m = Parse(pass_test::Dedent(body));
    if (m == nullptr) return std::string("<parse failed>");
    TopKCustomCallRewriter rewriter;
    absl::StatusOr<bool> r = rewriter.Run(*m);
    return r.ok() ? std::string("<ok>") : std::string(r.status().message());
  };
  const std::string wrong_index_type = error(R"(
    HloModule m
    ENTRY %main (x: f32[4,16]) -> (f32[4,2], s64[4,2]) {
      %x = f32[4,16] parameter(0)
      ROOT %t = (f32[4,2], s64[4,2]) custom-call(%x), custom_call_target="TopK"
    })");
  EXPECT_NE(wrong_index_type.find("custom-call %t"), std::string::npos)
      << wrong_index_type;
  EXPECT_NE(wrong_index_type.find("(f32[4,2], s32[4,2])"), std::string::npos)
      << wrong_index_type;
  const std::string rank3 = error(R"(
    HloModule m
    ENTRY %main (x: f32[2,4,16]) -> (f32[2,4,2], s32[2,4,2]) {
      %x = f32[2,4,16] parameter(0)
      ROOT %t = (f32[2,4,2], s32[2,4,2]) custom-call(%x), custom_call_target="TopK"
    })");
  EXPECT_NE(rank3.find("[n] or [batch, n]"), std::string::npos) << rank3;
  const std::string too_many = error(R"(
    HloModule m
    ENTRY %main (x: f32[4]) -> (f32[5], s32[5]) {
      %x = f32[4] parameter(0)
      ROOT %t = (f32[5], s32[5]) custom-call(%x), custom_call_target="TopK"
    })");
  EXPECT_NE(too_many.find("k=5"), std::string::npos) << too_many;
}

// The default pipeline runs it, so `plexa run` accepts the call.
TEST(TopKCustomCallRewriterTest, InTheDefaultPipeline) {
  std::unique_ptr<Module> m = Parse(pass_test::Dedent(R"(
    HloModule m
    ENTRY %main (x: f32[3,8]) -> (f32[3,3], s32[3,3]) {
      %x = f32[3,8] parameter(0)
      ROOT %t = (f32[3,3], s32[3,3]) custom-call(%x), custom_call_target="TopK"
    })"));
  ASSERT_NE(m, nullptr);
  PipelineOptions options;
  options.fusion = false;
  ASSERT_TRUE(RunDefaultPipeline(m.get(), options).ok());
  EXPECT_EQ(m->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kTopK);
  EXPECT_EQ(m->entry_computation()->root_instruction()->attrs().k, 3);
}

}  // namespace
}  // namespace plexa
