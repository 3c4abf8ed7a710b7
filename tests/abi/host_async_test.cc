// ABI 1.2 asynchronous execution from the host library (abi/host): Event,
// Client::CreateUserEvent, BufferFromLiteralAsync, CopyToDevice,
// Buffer::ReadyEvent / ToLiteralAsync and Executable::ExecuteAsync with
// wait lists; an event of one plugin gating work of another (bridged with
// a user event); and the graceful degradation on a plugin of an older
// minor (the 1.1 shim: the reference plugin without the 1.2 slots, which
// would ignore wait_events), where the host waits for a wait list itself.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "absl/status/status.h"
#include "core/literal/literal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::HasSubstr;

const char kNegate[] = R"(HloModule neg
ENTRY main {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
})";

std::vector<float> Values(const Literal& l) {
  std::vector<float> out;
  for (int64_t i = 0; i < 4; ++i) out.push_back(l.Get<float>({i}));
  return out;
}

struct Loaded {
  std::shared_ptr<Plugin> plugin;
  std::unique_ptr<Client> client;
  std::unique_ptr<Executable> negate;
};

Loaded Load(const char* path, std::vector<Plugin::Option> options = {}) {
  Loaded l;
  auto plugin = Plugin::Load(path);
  EXPECT_TRUE(plugin.ok()) << plugin.status();
  if (!plugin.ok()) return l;
  l.plugin = *plugin;
  auto client = l.plugin->CreateClient(options);
  EXPECT_TRUE(client.ok()) << client.status();
  if (!client.ok()) return l;
  l.client = std::move(*client);
  auto exe = l.client->Compile(kNegate, "hlo-text");
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (exe.ok()) l.negate = std::move(*exe);
  return l;
}

class HostAsyncTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HostAsyncTest, AChainGatedByAUserEvent) {
  std::vector<Plugin::Option> options = {
      {"num_devices", PLX_Value_INT64, "", 2}};
  if (abi_test::PluginName(GetParam()) == "asynctest") {
    options.push_back({"delay_ms", PLX_Value_INT64, "", 2});
  }
  Loaded l = Load(GetParam(), options);
  ASSERT_NE(l.negate, nullptr);
  ASSERT_TRUE(l.plugin->HasAsyncEvents());
  auto gate = l.client->CreateUserEvent();
  ASSERT_TRUE(gate.ok()) << gate.status();
  const Literal input = Literal::CreateR1<float>({1, -2, 3, -4.5f});
  Event* wait[1] = {gate->get()};
  auto upload = l.client->BufferFromLiteralAsync(input, 0, wait);
  ASSERT_TRUE(upload.ok()) << upload.status();
  // negate, copy to device 1, negate, negate: -x in the end.
  auto first = l.negate->ExecuteAsync({{upload->buffer.get()}});
  ASSERT_TRUE(first.ok()) << first.status();
  auto moved = l.client->CopyToDevice(*first->outputs[0][0], 1);
  ASSERT_TRUE(moved.ok()) << moved.status();
  auto second = l.negate->ExecuteAsync({{first->outputs[0][0].get()}});
  ASSERT_TRUE(second.ok()) << second.status();
  auto third = l.negate->ExecuteAsync({{second->outputs[0][0].get()}});
  ASSERT_TRUE(third.ok()) << third.status();
  Literal out, copied;
  auto downloaded = third->outputs[0][0]->ToLiteralAsync(&out);
  ASSERT_TRUE(downloaded.ok()) << downloaded.status();
  auto copied_done = (*moved)->ToLiteralAsync(&copied);
  ASSERT_TRUE(copied_done.ok()) << copied_done.status();
  auto ready = third->outputs[0][0]->ReadyEvent();
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_FALSE((*ready)->IsReady());
  EXPECT_FALSE((*downloaded)->IsReady());
  EXPECT_FALSE(third->completion[0]->IsReady());
  std::atomic<int> called{0};
  ASSERT_TRUE((*ready)
                  ->OnReady([&](absl::Status s) {
                    EXPECT_TRUE(s.ok()) << s;
                    called.fetch_add(1);
                  })
                  .ok());
  ASSERT_TRUE((*gate)->Set(absl::OkStatus()).ok());
  ASSERT_TRUE((*downloaded)->Await().ok());
  ASSERT_TRUE((*copied_done)->Await().ok());
  EXPECT_EQ(Values(out), (std::vector<float>{-1, 2, -3, 4.5f}));
  EXPECT_EQ(Values(copied), (std::vector<float>{-1, 2, -3, 4.5f}));
  EXPECT_TRUE(upload->done_with_host->Await().ok());
  EXPECT_TRUE((*ready)->Await().ok());
  // The callback runs on the thread that set the event, which may wake
  // the waiters before it has run it (docs/abi.md, "Events").
  for (int i = 0; i < 10000 && called.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(called.load(), 1);
}

TEST_P(HostAsyncTest, AnErrorSetOnAUserEventReachesTheResult) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.negate, nullptr);
  auto gate = l.client->CreateUserEvent();
  ASSERT_TRUE(gate.ok()) << gate.status();
  const Literal input = Literal::CreateR1<float>({1, 2, 3, 4});
  auto in = l.client->BufferFromLiteral(input);
  ASSERT_TRUE(in.ok()) << in.status();
  Event* wait[1] = {gate->get()};
  auto run = l.negate->ExecuteAsync({{in->get()}}, {}, wait);
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE((*gate)->Set(absl::DataLossError("the camera is gone")).ok());
  absl::Status s = run->completion[0]->Await();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  auto lit = run->outputs[0][0]->ToLiteral();
  ASSERT_FALSE(lit.ok());
  EXPECT_THAT(lit.status().message(), HasSubstr("the camera is gone"));
  // Setting it again is refused.
  EXPECT_EQ((*gate)->Set(absl::OkStatus()).code(),
            absl::StatusCode::kFailedPrecondition);
}

INSTANTIATE_TEST_SUITE_P(Plugins, HostAsyncTest, ::testing::ValuesIn([] {
                           std::vector<const char*> p = {
                               PLEXA_ASYNCTEST_PLUGIN};
                           for (const char* q : abi_test::InTreePlugins())
                             p.push_back(q);
                           return p;
                         }()),
                         [](const auto& info) {
                           return abi_test::PluginName(info.param);
                         });

TEST(HostAsyncCrossPluginTest, AnotherPluginsEventGatesWorkThroughABridge) {
  Loaded async = Load(PLEXA_ASYNCTEST_PLUGIN);
  Loaded ref = Load(PLEXA_REFERENCE_PLUGIN);
  ASSERT_NE(async.negate, nullptr);
  ASSERT_NE(ref.negate, nullptr);
  auto gate = async.client->CreateUserEvent();
  ASSERT_TRUE(gate.ok()) << gate.status();
  auto in =
      ref.client->BufferFromLiteral(Literal::CreateR1<float>({5, 6, 7, 8}));
  ASSERT_TRUE(in.ok()) << in.status();
  Event* wait[1] = {gate->get()};  // an asynctest event, for the reference
  auto run = ref.negate->ExecuteAsync({{in->get()}}, {}, wait);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_FALSE(run->completion[0]->IsReady());
  ASSERT_TRUE((*gate)->Set(absl::OkStatus()).ok());
  ASSERT_TRUE(run->completion[0]->Await().ok());
  auto out = run->outputs[0][0]->ToLiteral();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values(*out), (std::vector<float>{-5, -6, -7, -8}));
}

// A 1.1 plugin: the host degrades as plugin_host.h says.
TEST(HostAsyncOldMinorTest,
     TheHostWaitsForAnOlderPluginAndReadyEventsAreReady) {
  Loaded old = Load(PLEXA_V1_1_SHIM_PLUGIN);
  ASSERT_NE(old.negate, nullptr);
  EXPECT_EQ(old.plugin->attributes().abi_minor, 1);
  EXPECT_FALSE(old.plugin->HasAsyncEvents());
  auto user = old.client->CreateUserEvent();
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(user.status().message(), HasSubstr("PLX_Client_CreateUserEvent"));
  auto in =
      old.client->BufferFromLiteral(Literal::CreateR1<float>({1, 2, 3, 4}));
  ASSERT_TRUE(in.ok()) << in.status();
  auto ready = (*in)->ReadyEvent();
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_EQ((*ready)->handle(), nullptr);
  EXPECT_TRUE((*ready)->IsReady());
  EXPECT_TRUE((*ready)->Await().ok());
  // A wait list holding a pending event (of a plugin that has user
  // events): the old plugin would not read it, so the host waits for it
  // before the call.
  Loaded ref = Load(PLEXA_REFERENCE_PLUGIN);
  ASSERT_NE(ref.client, nullptr);
  auto gate = ref.client->CreateUserEvent();
  ASSERT_TRUE(gate.ok()) << gate.status();
  std::atomic<bool> set{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    set.store(true);
    ASSERT_TRUE((*gate)->Set(absl::OkStatus()).ok());
  });
  Event* wait[1] = {gate->get()};
  auto run = old.negate->ExecuteAsync({{in->get()}}, {}, wait);
  EXPECT_TRUE(set.load()) << "the call returned before its wait list was";
  setter.join();
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(run->completion[0]->Await().ok());
  auto out = run->outputs[0][0]->ToLiteral();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values(*out), (std::vector<float>{-1, -2, -3, -4}));
  // An error in the wait list is the call's error.
  auto failed = ref.client->CreateUserEvent();
  ASSERT_TRUE(failed.ok()) << failed.status();
  ASSERT_TRUE((*failed)->Set(absl::AbortedError("upstream gave up")).ok());
  Event* bad[1] = {failed->get()};
  auto refused = old.negate->ExecuteAsync({{in->get()}}, {}, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("upstream gave up"));
}

}  // namespace
}  // namespace plexa::host
