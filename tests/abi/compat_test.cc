// Compatibility across ABI versions, seen from the CURRENT host library
// (plexa::host::Plugin::Load). The plugins are tests/abi/compat/old_plugin.c
// built against frozen or simulated headers (see tests/abi/CMakeLists.txt):
//
//   v1.0 (frozen header)        a newer-or-equal host loads an older plugin
//   v1.4 (simulated header)     an older host loads a newer plugin: its
//                               table is bigger than the host knows
//   v2   (-DOLD_PLUGIN_MAJOR=2) another major: refused, naming both versions
//
// The other directions (an old C host loading today's reference plugin, a
// 1.4 host loading a 1.0 or 1.1 plugin) are the plexa_abi_old_host_* and
// plexa_abi_host_v1_4_* tests, which run the C hosts in compat/.
#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::HasSubstr;

void DoNothing(void*, void**) {}

TEST(CompatTest, CurrentHostLoadsPluginBuiltAgainstFrozenV1_0) {
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V1_0);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  const PluginAttributes& a = (*plugin)->attributes();
  EXPECT_EQ(a.name, "old-c");
  EXPECT_EQ(a.vendor, "Plexa tests");
  EXPECT_EQ(a.version, "frozen-1.0");
  EXPECT_EQ(a.platform, "test");
  EXPECT_EQ(a.abi_major, 1);
  EXPECT_EQ(a.abi_minor, 0);
  EXPECT_TRUE(a.formats.empty());
  EXPECT_EQ((*plugin)->api()->struct_size, PLX_Api_STRUCT_SIZE_1_0);

  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_EQ((*client)->devices().size(), 1u);
  EXPECT_EQ((*client)->devices()[0].id, 0);
  EXPECT_EQ((*client)->devices()[0].kind, "test:old");

  // The plugin's own errors (its own PLX_Error struct) reach the host with
  // their code and message.
  auto exe = (*client)->Compile("HloModule m", "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(exe.status().message(), HasSubstr("PLX_Client_Compile"));
  absl::Status reg = (*plugin)->RegisterCustomCall(
      "f", reinterpret_cast<void*>(&DoNothing), 0);
  EXPECT_EQ(reg.code(), absl::StatusCode::kUnimplemented);
  auto bad = (*plugin)->CreateClient({{"num_devices", PLX_Value_INT64, "", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'num_devices'"));
}

TEST(CompatTest, CurrentHostLoadsNewerMinorPluginWithBiggerTable) {
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V1_4);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->attributes().abi_major, 1);
  EXPECT_EQ((*plugin)->attributes().abi_minor, 4);
  EXPECT_EQ((*plugin)->attributes().version, "fixture-1.4");
  // 1.2's statistics and asynchronous-execution slots (left NULL), its
  // five memory slots, and one slot more than this host knows of: fine,
  // never called.
  EXPECT_EQ((*plugin)->api()->struct_size,
            PLX_Api_STRUCT_SIZE_1_0 + 10 * sizeof(void*));
  EXPECT_EQ((*plugin)->api()->version.minor, 4);
  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->devices().size(), 1u);
}

// A new enum value reaching an old host: the 1.4 plugin's memory has a
// kind (PLX_MemoryKind_DEVICE_SHARED = 4) this 1.2 host's enum lacks. The
// host keeps the number, names it as unknown, and the plugin's own name
// still says what it is.
TEST(CompatTest, AMemoryKindOfANewerMinorIsShownAsUnknown) {
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V1_4);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  ASSERT_TRUE((*plugin)->HasMemories());
  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  auto memories = (*client)->Memories(0);
  ASSERT_TRUE(memories.ok()) << memories.status();
  ASSERT_EQ(memories->size(), 1u);
  EXPECT_EQ((*memories)[0].kind, 4);
  EXPECT_EQ((*memories)[0].kind_name, "device_shared");
  EXPECT_EQ(MemoryKindName((*memories)[0].kind), "kind 4 (unknown to ABI 1.3)");
  EXPECT_EQ(MemoryKindName(PLX_MemoryKind_HOST_VISIBLE), "host_visible");
  auto stats = (*client)->GetMemoryStatistics((*memories)[0]);
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_EQ(stats->bytes_limit, -1);
  // The slots it fills with UNIMPLEMENTED answer so, naming the call.
  auto layout = (*client)->PreferredLayout(PrimitiveType::F32, {2, 3});
  EXPECT_EQ(layout.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(layout.status().message()),
              ::testing::HasSubstr("PLX_Client_PreferredLayout"));
}

// An older plugin has none of the memory slots: the host says so, naming
// the plugin's ABI (strided uploads to a real 1.0 plugin, gathered by the
// host: V1_0PluginTest.StridedUploadIsGatheredByTheHost).
TEST(CompatTest, AV1_0PluginHasNoMemories) {
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V1_0);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_FALSE((*plugin)->HasMemories());
  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  auto memories = (*client)->Memories(0);
  EXPECT_EQ(memories.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(memories.status().message()),
              ::testing::HasSubstr("ABI 1.0"));
}

TEST(CompatTest, OtherMajorIsRefusedNamingBothVersions) {
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V2);
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), absl::StatusCode::kFailedPrecondition);
  const std::string m(plugin.status().message());
  EXPECT_THAT(m, HasSubstr(PLEXA_OLD_PLUGIN_V2));
  EXPECT_THAT(m, HasSubstr("2."));
  EXPECT_THAT(m, HasSubstr("1."));
  EXPECT_THAT(m, HasSubstr("ABI 2.0"));
  EXPECT_THAT(
      m, HasSubstr(absl::StrCat("ABI ", PLX_API_MAJOR, ".", PLX_API_MINOR)));
}

}  // namespace
}  // namespace plexa::host
