// ABI 1.1: host feeds (PLX_FeedsExtension) and flattened signatures
// (tuple and token entry parameters, token results, program_shape), on the
// reference plugin and the CPU plugin. Expected values are hand computed
// in the comments next to them.
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "absl/strings/str_cat.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::HasSubstr;

// Records every feed call; infeed answers come from `next_infeed(replica)`.
class RecordingFeeds : public HostFeeds {
 public:
  struct Call {
    int64_t replica;
    std::string instruction;
    std::string shape;  // without layout
    Literal value;
  };

  std::function<absl::StatusOr<Literal>(int64_t replica)> next_infeed;

  absl::StatusOr<Literal> Infeed(int64_t replica, absl::string_view instruction,
                                 const Shape& data_shape) override {
    std::lock_guard<std::mutex> lock(mu_);
    infeeds.push_back(
        {replica, std::string(instruction), data_shape.ToString(false), {}});
    return next_infeed(replica);
  }
  absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                       Literal value) override {
    std::lock_guard<std::mutex> lock(mu_);
    outfeeds.push_back({replica, std::string(instruction),
                        value.shape().ToString(false), std::move(value)});
    return absl::OkStatus();
  }

  std::vector<Call> infeeds, outfeeds;

 private:
  std::mutex mu_;
};

class FeedsTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    ASSERT_TRUE(plugin_->HasCapability(PLX_CAPABILITY_FEEDS));
    ASSERT_TRUE(plugin_->HasCapability(PLX_CAPABILITY_TUPLE_PARAMETERS));
    auto client =
        plugin_->CreateClient({{"num_devices", PLX_Value_INT64, "", 2}});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  std::unique_ptr<Executable> Compile(const std::string& text,
                                      int64_t replicas = 1) {
    CompileOptions options;
    options.num_replicas = replicas;
    auto exe = client_->Compile(text, "hlo-text", options);
    EXPECT_TRUE(exe.ok()) << exe.status();
    return exe.ok() ? std::move(*exe) : nullptr;
  }

  std::shared_ptr<Plugin> plugin_;
  std::unique_ptr<Client> client_;
};

// A tuple-shaped infeed and an outfeed whose operand is laid out column-major
// (outfeed_shape {0,1}): the host receives row-major values either way.
constexpr char kInfeedOutfeed[] = R"(HloModule feeds
ENTRY main {
  t0 = token[] after-all()
  my_infeed = ((f32[2,3], s32[]), token[]) infeed(t0)
  d = (f32[2,3], s32[]) get-tuple-element(my_infeed), index=0
  x = f32[2,3] get-tuple-element(d), index=0
  k = s32[] get-tuple-element(d), index=1
  t1 = token[] get-tuple-element(my_infeed), index=1
  kf = f32[] convert(k)
  b = f32[2,3] broadcast(kf), dimensions={}
  y = f32[2,3] multiply(x, b)
  my_outfeed = token[] outfeed(y, t1), outfeed_shape=f32[2,3]{0,1}
  ROOT r = f32[2,3] add(y, x)
}
)";

TEST_P(FeedsTest, TupleInfeedAndOutfeedGoThroughTheHostCallbacks) {
  auto exe = Compile(kInfeedOutfeed);
  ASSERT_NE(exe, nullptr);
  RecordingFeeds feeds;
  feeds.next_infeed = [](int64_t) -> absl::StatusOr<Literal> {
    std::vector<Literal> parts;
    parts.push_back(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}));
    parts.push_back(Literal::CreateR0<int32_t>(3));
    return Literal::MakeTuple(std::move(parts));
  };
  auto out = exe->Execute({{}}, {}, &feeds);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  ASSERT_EQ((*out)[0].size(), 1u);
  auto result = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  // y = 3x, r = y + x = 4x.
  const float want_r[2][3] = {{4, 8, 12}, {16, 20, 24}};
  const float want_y[2][3] = {{3, 6, 9}, {12, 15, 18}};
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(result->Get<float>({i, j}), want_r[i][j]) << i << "," << j;
    }
  }
  ASSERT_EQ(feeds.infeeds.size(), 1u);
  EXPECT_EQ(feeds.infeeds[0].replica, 0);
  EXPECT_EQ(feeds.infeeds[0].instruction, "my_infeed");
  EXPECT_EQ(feeds.infeeds[0].shape, "(f32[2,3], s32[])");
  ASSERT_EQ(feeds.outfeeds.size(), 1u);
  EXPECT_EQ(feeds.outfeeds[0].instruction, "my_outfeed");
  const Literal& y = feeds.outfeeds[0].value;
  ASSERT_EQ(y.shape().ToString(false), "f32[2,3]");
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      EXPECT_EQ(y.Get<float>({i, j}), want_y[i][j]) << i << "," << j;
    }
  }
  // The host got the row-major layout the ABI promises.
  EXPECT_EQ(LayoutUtil::EffectiveLayout(y.shape()),
            LayoutUtil::GetDefaultLayoutForRank(2));
}

TEST_P(FeedsTest, EachReplicaFeedsWithItsIndex) {
  auto exe = Compile(R"(HloModule replicas
ENTRY main {
  t = token[] after-all()
  in = (s32[], token[]) infeed(t)
  v = s32[] get-tuple-element(in), index=0
  ROOT r = s32[] add(v, v)
}
)",
                     /*replicas=*/2);
  ASSERT_NE(exe, nullptr);
  RecordingFeeds feeds;
  feeds.next_infeed = [](int64_t replica) -> absl::StatusOr<Literal> {
    return Literal::CreateR0<int32_t>(static_cast<int32_t>(replica * 10 + 1));
  };
  auto out = exe->Execute({{}, {}}, {}, &feeds);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  // replica r feeds 10r + 1 and returns twice that: 2 and 22.
  for (int r = 0; r < 2; ++r) {
    auto lit = (*out)[r][0]->ToLiteral();
    ASSERT_TRUE(lit.ok()) << lit.status();
    EXPECT_EQ(lit->Get<int32_t>({}), r == 0 ? 2 : 22) << "replica " << r;
  }
  ASSERT_EQ(feeds.infeeds.size(), 2u);
}

TEST_P(FeedsTest, OutfeedsInALoopArriveInProgramOrder) {
  auto exe = Compile(R"(HloModule loop
cond {
  s = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  t = token[] get-tuple-element(s), index=1
  sent = token[] outfeed(i, t), outfeed_shape=s32[]
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT s2 = (s32[], token[]) tuple(next, sent)
}
ENTRY main {
  zero = s32[] constant(0)
  t0 = token[] after-all()
  init = (s32[], token[]) tuple(zero, t0)
  w = (s32[], token[]) while(init), condition=cond, body=body
  ROOT i = s32[] get-tuple-element(w), index=0
}
)");
  ASSERT_NE(exe, nullptr);
  RecordingFeeds feeds;
  auto out = exe->Execute({{}}, {}, &feeds);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(feeds.outfeeds.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(feeds.outfeeds[k].value.Get<int32_t>({}), k);
    EXPECT_EQ(feeds.outfeeds[k].instruction, "sent");
  }
}

TEST_P(FeedsTest, ACallbackErrorFailsTheExecutionWithItsCodeAndMessage) {
  auto exe = Compile(kInfeedOutfeed);
  ASSERT_NE(exe, nullptr);
  RecordingFeeds feeds;
  feeds.next_infeed = [](int64_t) -> absl::StatusOr<Literal> {
    return absl::ResourceExhaustedError("the queue was closed");
  };
  auto out = exe->Execute({{}}, {}, &feeds);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(out.status().message(), HasSubstr("the queue was closed"));
  EXPECT_THAT(out.status().message(), HasSubstr("my_infeed"));
}

TEST_P(FeedsTest, AnInfeedOfTheWrongShapeIsAnError) {
  auto exe = Compile(kInfeedOutfeed);
  ASSERT_NE(exe, nullptr);
  RecordingFeeds feeds;
  feeds.next_infeed = [](int64_t) -> absl::StatusOr<Literal> {
    return Literal::CreateR1<float>({1, 2, 3});
  };
  auto out = exe->Execute({{}}, {}, &feeds);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("f32[3]"));
}

TEST_P(FeedsTest, WithoutFeedsAnInfeedIsAFailedPreconditionNamingIt) {
  auto exe = Compile(kInfeedOutfeed);
  ASSERT_NE(exe, nullptr);
  auto out = exe->Execute({{}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("my_infeed"));
}

// Through the raw table: a truncated extension is refused by name.
TEST_P(FeedsTest, AShortFeedsExtensionIsInvalidArgument) {
  auto exe = Compile(kInfeedOutfeed);
  ASSERT_NE(exe, nullptr);
  const PLX_Api* api = plugin_->api();
  PLX_FeedsExtension ext{};
  ext.struct_size = offsetof(PLX_FeedsExtension, infeed);  // no callbacks
  ext.type = PLX_ExtensionType_FEEDS;
  PLX_Buffer* outputs[1] = {nullptr};
  PLX_Buffer** const out_ptrs[1] = {outputs};
  PLX_Executable_Execute_Args a{};
  a.struct_size = PLX_Executable_Execute_Args_STRUCT_SIZE;
  a.extension_start = reinterpret_cast<PLX_Extension*>(&ext);
  a.executable = exe->handle();
  a.num_replicas = 1;
  a.outputs = out_ptrs;
  a.num_outputs = 1;
  absl::Status s = ConsumeError(api, api->PLX_Executable_Execute(&a));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("PLX_FeedsExtension"));
}

// An entry signature with a nested tuple parameter, a token parameter and a
// token inside the result: buffers are the array leaves only, and
// program_shape keeps the structure.
constexpr char kTupleParameters[] = R"(HloModule tuple_params
ENTRY main {
  p = (f32[2], (s32[], token[])) parameter(0)
  t = token[] parameter(1)
  a = f32[2] get-tuple-element(p), index=0
  q = (s32[], token[]) get-tuple-element(p), index=1
  s = s32[] get-tuple-element(q), index=0
  f = f32[] convert(s)
  b = f32[2] broadcast(f), dimensions={}
  r = f32[2] add(a, b)
  ROOT out = (f32[2], token[]) tuple(r, t)
}
)";

TEST_P(FeedsTest, TupleAndTokenParametersAreFlattenedToArrayLeaves) {
  auto exe = Compile(kTupleParameters);
  ASSERT_NE(exe, nullptr);
  ASSERT_EQ(exe->parameter_shapes().size(), 2u);
  EXPECT_EQ(exe->parameter_shapes()[0].ToString(false), "f32[2]");
  EXPECT_EQ(exe->parameter_shapes()[1].ToString(false), "s32[]");
  ASSERT_EQ(exe->output_shapes().size(), 1u);
  EXPECT_EQ(exe->output_shapes()[0].ToString(false), "f32[2]");
  ASSERT_TRUE(exe->program_shape().has_value());
  const ProgramShape& program = *exe->program_shape();
  ASSERT_EQ(program.parameters.size(), 2u);
  EXPECT_EQ(program.parameters[0].ToString(false),
            "(f32[2], (s32[], token[]))");
  EXPECT_EQ(program.parameters[1].ToString(false), "token[]");
  EXPECT_EQ(program.result.ToString(false), "(f32[2], token[])");

  std::vector<Literal> inner;
  inner.push_back(Literal::CreateR0<int32_t>(2));
  inner.push_back(Literal(ShapeUtil::MakeTokenShape()));
  std::vector<Literal> outer;
  outer.push_back(Literal::CreateR1<float>({1.5f, 2.5f}));
  outer.push_back(Literal::MakeTuple(std::move(inner)));
  const Literal p = Literal::MakeTuple(std::move(outer));
  const Literal t(ShapeUtil::MakeTokenShape());
  auto pb = ParameterBuffers(*client_, p);
  ASSERT_TRUE(pb.ok()) << pb.status();
  EXPECT_EQ(pb->size(), 2u);
  auto tb = ParameterBuffers(*client_, t);
  ASSERT_TRUE(tb.ok()) << tb.status();
  EXPECT_TRUE(tb->empty());
  auto out = exe->Execute({{(*pb)[0].get(), (*pb)[1].get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<Literal> leaves;
  for (auto& b : (*out)[0]) {
    auto lit = b->ToLiteral();
    ASSERT_TRUE(lit.ok()) << lit.status();
    leaves.push_back(std::move(*lit));
  }
  auto result = AssembleFromArrayLeaves(program.result, std::move(leaves));
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->tuple_element_count(), 2);
  // r = a + s = {1.5 + 2, 2.5 + 2}.
  EXPECT_EQ(result->tuple_element(0).Get<float>({0}), 3.5f);
  EXPECT_EQ(result->tuple_element(0).Get<float>({1}), 4.5f);
  EXPECT_TRUE(result->tuple_element(1).shape().IsToken());
}

TEST_P(FeedsTest, AProgramReturningOnlyATokenHasNoOutputs) {
  auto exe = Compile(R"(HloModule token_only
ENTRY main {
  ROOT t = token[] after-all()
}
)");
  ASSERT_NE(exe, nullptr);
  EXPECT_TRUE(exe->output_shapes().empty());
  auto out = exe->Execute({{}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].empty());
}

// A caller built against ABI 1.0 passes the smaller Signature struct: the
// 1.1 field after it is neither read nor written.
TEST_P(FeedsTest, A1_0SignatureCallDoesNotWriteProgramShape) {
  auto exe = Compile(kTupleParameters);
  ASSERT_NE(exe, nullptr);
  const PLX_Api* api = plugin_->api();
  PLX_Executable_Signature_Args a{};
  a.struct_size = PLX_Executable_Signature_Args_STRUCT_SIZE_1_0;
  a.executable = exe->handle();
  const char sentinel[] = "untouched";
  a.program_shape = sentinel;
  ASSERT_TRUE(ConsumeError(api, api->PLX_Executable_Signature(&a)).ok());
  EXPECT_EQ(a.num_parameters, 2u);
  EXPECT_EQ(a.program_shape, sentinel);
  a.struct_size = PLX_Executable_Signature_Args_STRUCT_SIZE;
  ASSERT_TRUE(ConsumeError(api, api->PLX_Executable_Signature(&a)).ok());
  ASSERT_NE(a.program_shape, nullptr);
  EXPECT_THAT(std::string(a.program_shape), HasSubstr("-> (f32[2]"));
}

PLEXA_INSTANTIATE_ON_PLUGINS(FeedsTest);

}  // namespace
}  // namespace plexa::host
