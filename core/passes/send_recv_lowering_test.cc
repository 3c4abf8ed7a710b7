#include "core/passes/send_recv_lowering.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/passes/pass_test_util.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::Parse;
using pass_test::Print;
using pass_test::RunPass;

int CountOpcode(const Module& m, HloOpcode op) {
  int n = 0;
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) n += i->opcode() == op;
  }
  return n;
}

const Instruction* FindOpcode(const Module& m, HloOpcode op) {
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == op) return i;
    }
  }
  return nullptr;
}

Literal L(absl::string_view shape_text, absl::string_view values) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  if (!shape.ok()) return Literal();
  absl::StatusOr<Literal> l = ParseLiteral(values, *shape);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? std::move(l).value() : Literal();
}

// Replica i sends x to replica (i + 1) % 2: the recv-done's data becomes
// collective-permute(x) with the pairs; the module computes what the
// evaluator computes on the channel instructions (values by hand).
TEST(SendRecvLoweringTest, AcrossReplicasIsACollectivePermute) {
  std::unique_ptr<Module> m = Parse(R"(HloModule swap
ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  %t = token[] after-all()
  %r = (s32[2], u32[], token[]) recv(%t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  %s = (s32[2], u32[], token[]) send(%x, %t), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs="{{0,1},{1,0}}"}
  %rd = (s32[2], token[]) recv-done(%r), channel_id=1
  %sd = token[] send-done(%s), channel_id=1
  ROOT %d = s32[2] get-tuple-element(%rd), index=0
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::vector<Literal>> args;
  args.push_back({L("s32[2]", "{1, 2}")});
  args.push_back({L("s32[2]", "{3, 4}")});
  for (int lowered = 0; lowered < 2; ++lowered) {
    absl::StatusOr<std::vector<Literal>> r =
        Evaluator().RunReplicated(*m, args);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE((*r)[0] == L("s32[2]", "{3, 4}")) << (*r)[0].ToString();
    EXPECT_TRUE((*r)[1] == L("s32[2]", "{1, 2}")) << (*r)[1].ToString();
    if (lowered == 0) {
      SendRecvLowering pass;
      EXPECT_TRUE(RunPass(pass, *m));
    }
  }
  for (HloOpcode op : {HloOpcode::kSend, HloOpcode::kRecv, HloOpcode::kSendDone,
                       HloOpcode::kRecvDone}) {
    EXPECT_EQ(CountOpcode(*m, op), 0) << Print(*m);
  }
  const Instruction* cp = FindOpcode(*m, HloOpcode::kCollectivePermute);
  ASSERT_NE(cp, nullptr) << Print(*m);
  EXPECT_EQ(cp->operand(0)->name(), "x");
  EXPECT_EQ(cp->attrs().source_target_pairs,
            (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 0}}));
  // The channel stays: with SPMD partitions its pairs name partitions.
  EXPECT_EQ(cp->attrs().channel_id, std::optional<int64_t>(1));
}

// Within one replica the recv-done's data is the send's data itself.
TEST(SendRecvLoweringTest, WithinOneReplicaIsTheSentValue) {
  std::unique_ptr<Module> m = Parse(R"(HloModule pair
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2] parameter(0)
  %t = token[] after-all()
  %r = (f32[2], u32[], token[]) recv(%t), channel_id=5
  %rd = (f32[2], token[]) recv-done(%r), channel_id=5
  %d = f32[2] get-tuple-element(%rd), index=0
  %y = f32[2] negate(%x)
  %s = (f32[2], u32[], token[]) send(%y, %t), channel_id=5
  %sd = token[] send-done(%s), channel_id=5
  ROOT %sum = f32[2] add(%d, %x)
})");
  ASSERT_NE(m, nullptr);
  SendRecvLowering pass;
  EXPECT_TRUE(RunPass(pass, *m));
  EXPECT_EQ(CountOpcode(*m, HloOpcode::kCollectivePermute), 0);
  const Instruction* root = m->entry_computation()->root_instruction();
  // add(gte(tuple(y, after-all(t))), x)
  const Instruction* gte = root->operand(0);
  ASSERT_EQ(gte->opcode(), HloOpcode::kGetTupleElement) << Print(*m);
  ASSERT_EQ(gte->operand(0)->opcode(), HloOpcode::kTuple) << Print(*m);
  EXPECT_EQ(gte->operand(0)->operand(0)->name(), "y");
  absl::StatusOr<Literal> r = Evaluator().Run(*m, {L("f32[2]", "{1, -4}")});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(*r == L("f32[2]", "{0, 0}")) << r->ToString();
}

// Host transfers become outfeed and infeed.
TEST(SendRecvLoweringTest, HostTransfersBecomeFeeds) {
  std::unique_ptr<Module> m = Parse(R"(HloModule host
ENTRY %main (x: s32[3]) -> s32[2] {
  %x = s32[3] parameter(0)
  %t = token[] after-all()
  %s = (s32[3], u32[], token[]) send(%x, %t), channel_id=1, is_host_transfer=true
  %sd = token[] send-done(%s), channel_id=1, is_host_transfer=true
  %r = (s32[2], u32[], token[]) recv(%sd), channel_id=2, is_host_transfer=true
  %rd = (s32[2], token[]) recv-done(%r), channel_id=2, is_host_transfer=true
  ROOT %d = s32[2] get-tuple-element(%rd), index=0
})");
  ASSERT_NE(m, nullptr);
  SendRecvLowering pass;
  EXPECT_TRUE(RunPass(pass, *m));
  const Instruction* in = FindOpcode(*m, HloOpcode::kInfeed);
  const Instruction* out = FindOpcode(*m, HloOpcode::kOutfeed);
  ASSERT_NE(in, nullptr) << Print(*m);
  ASSERT_NE(out, nullptr) << Print(*m);
  EXPECT_EQ(out->operand(0)->name(), "x");
  // The infeed is ordered after the outfeed through the token.
  EXPECT_EQ(in->operand(0), out);
}

// A channel the pass cannot express is refused, naming the recv-done.
TEST(SendRecvLoweringTest, ASendComputedFromItsRecvIsRefused) {
  std::unique_ptr<Module> m = Parse(R"(HloModule cyc
ENTRY %main () -> f32[] {
  %t = token[] after-all()
  %r = (f32[], u32[], token[]) recv(%t), channel_id=1
  %rd = (f32[], token[]) recv-done(%r), channel_id=1
  %d = f32[] get-tuple-element(%rd), index=0
  %s = (f32[], u32[], token[]) send(%d, %t), channel_id=1
  %sd = token[] send-done(%s), channel_id=1
  ROOT %o = f32[] negate(%d)
})");
  ASSERT_NE(m, nullptr);
  SendRecvLowering pass;
  absl::StatusOr<bool> r = pass.Run(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "recv-done 'rd'"))
      << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(),
                                "is computed from this recv-done"))
      << r.status();
}

}  // namespace
}  // namespace plexa
