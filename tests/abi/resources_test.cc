// Resources across the ABI, on every in-tree plugin: the memory limit
// (client option memory_limit_bytes, default the machine's memory) turns
// programs and buffers too large to allocate into RESOURCE_EXHAUSTED errors
// naming what is too large, and the C client lives as long as any buffer or
// executable made from it (host::Client may go first).
#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "core/literal/literal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::HasSubstr;

class ResourcesTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
  }
  std::unique_ptr<Client> NewClient(std::vector<Plugin::Option> options) {
    auto client = plugin_->CreateClient(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }
  std::shared_ptr<Plugin> plugin_;
};

constexpr char kHuge[] = R"(HloModule huge
ENTRY e {
  p = f32[1000000000000] parameter(0)
  ROOT n = f32[1000000000000] negate(p)
}
)";

TEST_P(ResourcesTest, AProgramLargerThanTheMachineIsResourceExhausted) {
  auto client = NewClient({});
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kHuge, "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kResourceExhausted)
      << exe.status();
  EXPECT_THAT(exe.status().message(),
              HasSubstr("instruction 'p' (f32[1000000000000]"));
  EXPECT_THAT(exe.status().message(), HasSubstr("4000000000000 bytes"));
}

constexpr char kNegate100[] = R"(HloModule small
ENTRY e {
  p = f32[100] parameter(0)
  c = f32[25] slice(p), slice={[0:25]}
  ROOT n = f32[25] negate(c)
}
)";

TEST_P(ResourcesTest, TheClientOptionLowersTheLimit) {
  // 400 bytes for p: over a 256-byte limit; the slice alone would fit.
  auto client = NewClient({{"memory_limit_bytes", PLX_Value_INT64, "", 256}});
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kNegate100, "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(exe.status().message(), HasSubstr("instruction 'p'"));
  EXPECT_THAT(exe.status().message(), HasSubstr("limit of 256 bytes"));

  std::vector<float> values(100, 1.0f);
  auto buffer = client->BufferFromLiteral(Literal::CreateR1<float>(values));
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(buffer.status().message(), HasSubstr("f32[100]"));

  // 400 bytes is enough.
  auto roomy = NewClient({{"memory_limit_bytes", PLX_Value_INT64, "", 400}});
  ASSERT_NE(roomy, nullptr);
  EXPECT_TRUE(roomy->Compile(kNegate100, "hlo-text").ok());
}

TEST_P(ResourcesTest, ABadLimitIsRefused) {
  auto client =
      plugin_->CreateClient({{"memory_limit_bytes", PLX_Value_INT64, "", 0}});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("memory_limit_bytes"));
}

constexpr char kAddOne[] = R"(HloModule add_one
ENTRY e {
  p = f32[3] parameter(0)
  one = f32[] constant(1)
  b = f32[3] broadcast(one), dimensions={}
  ROOT a = f32[3] add(p, b)
}
)";

TEST_P(ResourcesTest, BuffersAndExecutablesOutliveTheHostClient) {
  auto client = NewClient({});
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kAddOne, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto input = client->BufferFromLiteral(Literal::CreateR1<float>({1, 2, 3}));
  ASSERT_TRUE(input.ok()) << input.status();
  // The host::Client goes first; the C client stays until the last buffer
  // and executable are gone (LeakSanitizer checks that it is freed then).
  client.reset();
  auto out = (*exe)->Execute({{input->get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  auto value = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, Literal::CreateR1<float>({2, 3, 4}));
  exe->reset();
  input->reset();
  auto again = (*out)[0][0]->ToLiteral();  // the last object still works
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, Literal::CreateR1<float>({2, 3, 4}));
}

PLEXA_INSTANTIATE_ON_PLUGINS(ResourcesTest);

}  // namespace
}  // namespace plexa::host
