// send, recv, send-done, recv-done on the evaluator. Expected values by
// hand.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/eval/eval_test_util.h"
#include "core/runtime/host_feeds.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

std::vector<Literal> RunReplicas(absl::string_view hlo, int64_t replicas,
                                 std::vector<std::vector<Literal>> args) {
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return {};
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, args);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  EXPECT_EQ(static_cast<int64_t>(r->size()), replicas);
  return std::move(r).value();
}

// A ring across 4 replicas: replica i sends its operand to replica
// (i + 1) % 4, so replica i receives replica (i + 3) % 4's operand.
TEST(ChannelsTest, RingAcrossFourReplicas) {
  constexpr absl::string_view kRing = R"(HloModule ring
ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  %t = token[] after-all()
  %r = (s32[2], u32[], token[]) recv(%t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3},{3,0}}"}
  %s = (s32[2], u32[], token[]) send(%x, %t), channel_id=3, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,2},{2,3},{3,0}}"}
  %rd = (s32[2], token[]) recv-done(%r), channel_id=3
  %sd = token[] send-done(%s), channel_id=3
  ROOT %d = s32[2] get-tuple-element(%rd), index=0
})";
  std::vector<std::vector<Literal>> args;
  for (int i = 0; i < 4; ++i) {
    args.push_back(
        {L("s32[2]", absl::StrCat("{", i * 10, ", ", i * 10 + 1, "}"))});
  }
  std::vector<Literal> r = RunReplicas(kRing, 4, std::move(args));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_LITERAL(r[0], "s32[2]", "{30, 31}");
  EXPECT_LITERAL(r[1], "s32[2]", "{0, 1}");
  EXPECT_LITERAL(r[2], "s32[2]", "{10, 11}");
  EXPECT_LITERAL(r[3], "s32[2]", "{20, 21}");
}

// A replica that is no pair's target receives zeros, as collective-permute.
TEST(ChannelsTest, AReplicaThatIsNoTargetReceivesZeros) {
  constexpr absl::string_view kOneWay = R"(HloModule one_way
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  %t = token[] after-all()
  %s = (f32[3], u32[], token[]) send(%x, %t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  %r = (f32[3], u32[], token[]) recv(%t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1}}"}
  %sd = token[] send-done(%s), channel_id=1
  %rd = (f32[3], token[]) recv-done(%r), channel_id=1
  ROOT %d = f32[3] get-tuple-element(%rd), index=0
})";
  std::vector<std::vector<Literal>> args;
  args.push_back({L("f32[3]", "{1.5, -2, 3}")});
  args.push_back({L("f32[3]", "{7, 8, 9}")});
  std::vector<Literal> r = RunReplicas(kOneWay, 2, std::move(args));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_LITERAL(r[0], "f32[3]", "{0, 0, 0}");
  EXPECT_LITERAL(r[1], "f32[3]", "{1.5, -2, 3}");
}

// Without the pairs attribute the recv of the same program gets what the
// send sent, even when the text lists the recv-done before the send: the
// evaluator runs a channel's send first.
TEST(ChannelsTest, APairWithinOneReplica) {
  Literal r = RunOk(R"(HloModule pair
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2] parameter(0)
  %t = token[] after-all()
  %r = (f32[2], u32[], token[]) recv(%t), channel_id=5
  %rd = (f32[2], token[]) recv-done(%r), channel_id=5
  %d = f32[2] get-tuple-element(%rd), index=0
  %y = f32[2] multiply(%x, %x)
  %s = (f32[2], u32[], token[]) send(%y, %t), channel_id=5
  %sd = token[] send-done(%s), channel_id=5
  ROOT %sum = f32[2] add(%d, %x)
})",
                    {L("f32[2]", "{2, -3}")});
  // x*x + x = {4 + 2, 9 - 3}.
  EXPECT_LITERAL(r, "f32[2]", "{6, 6}");
}

// A send and recv in a while body: every iteration sends the counter
// times 10 and accumulates what it receives: 0 + 10 + 20 = 30.
TEST(ChannelsTest, InsideAWhileLoop) {
  Literal r = RunOk(R"(HloModule loop
%cond (s: (s32[], s32[])) -> pred[] {
  %s = (s32[], s32[]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %n = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}
%body (s: (s32[], s32[])) -> (s32[], s32[]) {
  %s = (s32[], s32[]) parameter(0)
  %i = s32[] get-tuple-element(%s), index=0
  %acc = s32[] get-tuple-element(%s), index=1
  %ten = s32[] constant(10)
  %v = s32[] multiply(%i, %ten)
  %t = token[] after-all()
  %snd = (s32[], u32[], token[]) send(%v, %t), channel_id=2
  %rcv = (s32[], u32[], token[]) recv(%t), channel_id=2
  %sd = token[] send-done(%snd), channel_id=2
  %rd = (s32[], token[]) recv-done(%rcv), channel_id=2
  %got = s32[] get-tuple-element(%rd), index=0
  %acc2 = s32[] add(%acc, %got)
  %one = s32[] constant(1)
  %i2 = s32[] add(%i, %one)
  ROOT %out = (s32[], s32[]) tuple(%i2, %acc2)
}
ENTRY %main () -> s32[] {
  %z = s32[] constant(0)
  %init = (s32[], s32[]) tuple(%z, %z)
  %w = (s32[], s32[]) while(%init), condition=%cond, body=%body
  ROOT %r = s32[] get-tuple-element(%w), index=1
})");
  EXPECT_LITERAL(r, "s32[]", "30");
}

// A recv-done whose send's data is computed from it cannot run: a
// located error, not a hang.
TEST(ChannelsTest, ASendThatNeedsItsRecvIsAnError) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule cyc
ENTRY %main () -> f32[] {
  %t = token[] after-all()
  %r = (f32[], u32[], token[]) recv(%t), channel_id=1
  %rd = (f32[], token[]) recv-done(%r), channel_id=1
  %d = f32[] get-tuple-element(%rd), index=0
  %s = (f32[], u32[], token[]) send(%d, %t), channel_id=1
  %sd = token[] send-done(%s), channel_id=1
  ROOT %o = f32[] negate(%d)
})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "recv-done"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "%rd")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no send of channel 1"))
      << r.status();
}

// XLA's SendRecvWoChannelID: accepted, but a recv without a channel pairs
// with no send: running it is a located error naming why.
TEST(ChannelsTest, ARecvWithoutChannelIdIsRefusedAtRun) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule SendRecvWoChannelID_module
ENTRY %computation () -> (f32[], token[]) {
  %token0 = token[] after-all()
  %recv = (f32[], u32[], token[]) recv(token[] %token0)
  ROOT %recv-done = (f32[], token[]) recv-done((f32[], u32[], token[]) %recv)
  %constant = f32[] constant(2.1)
  %send = (f32[], u32[], token[]) send(f32[] %constant, token[] %token0)
  %send-done = token[] send-done((f32[], u32[], token[]) %send)
})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "has no channel_id"))
      << r.status();
}

// is_host_transfer=true: send-done pushes the data to the outfeed queue,
// recv-done pops it from the infeed queue.
TEST(ChannelsTest, HostTransfersUseTheFeedQueues) {
  HostFeedQueue in, out;
  in.Push(L("s32[2]", "{4, 5}"));
  EvaluatorOptions options;
  options.infeed = &in;
  options.outfeed = &out;
  Literal r = RunOk(R"(HloModule host
ENTRY %main (x: s32[3]) -> s32[2] {
  %x = s32[3] parameter(0)
  %t = token[] after-all()
  %s = (s32[3], u32[], token[]) send(%x, %t), channel_id=1, is_host_transfer=true
  %sd = token[] send-done(%s), channel_id=1, is_host_transfer=true
  %r = (s32[2], u32[], token[]) recv(%sd), channel_id=2, is_host_transfer=true
  %rd = (s32[2], token[]) recv-done(%r), channel_id=2, is_host_transfer=true
  ROOT %d = s32[2] get-tuple-element(%rd), index=0
})",
                    {L("s32[3]", "{1, 2, 3}")}, std::move(options));
  EXPECT_LITERAL(r, "s32[2]", "{4, 5}");
  ASSERT_EQ(out.size(), 1);
  std::optional<Literal> sent = out.Pop();
  ASSERT_TRUE(sent.has_value());
  EXPECT_LITERAL(*sent, "s32[3]", "{1, 2, 3}");
  EXPECT_TRUE(in.empty());
}

}  // namespace
}  // namespace plexa::eval_test
