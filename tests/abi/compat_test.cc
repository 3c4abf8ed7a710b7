// Compatibility across ABI versions, seen from the CURRENT host library
// (plexa::host::Plugin::Load). The plugins are tests/abi/compat/old_plugin.c
// built against frozen or simulated headers (see tests/abi/CMakeLists.txt):
//
//   v1.0 (frozen header)        a newer-or-equal host loads an older plugin
//   v1.3 (simulated header)     an older host loads a newer plugin: its
//                               table is bigger than the host knows
//   v2   (-DOLD_PLUGIN_MAJOR=2) another major: refused, naming both versions
//
// The other directions (an old C host loading today's reference plugin, a
// 1.3 host loading a 1.0 or 1.1 plugin) are the plexa_abi_old_host_* and
// plexa_abi_host_v1_3_* tests, which run the C hosts in compat/.
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
  auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_V1_3);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->attributes().abi_major, 1);
  EXPECT_EQ((*plugin)->attributes().abi_minor, 3);
  EXPECT_EQ((*plugin)->attributes().version, "fixture-1.3");
  // 1.2's statistics and asynchronous-execution slots (left NULL) and one
  // slot more than this host knows of: fine, never called.
  EXPECT_EQ((*plugin)->api()->struct_size,
            PLX_Api_STRUCT_SIZE_1_0 + 5 * sizeof(void*));
  EXPECT_EQ((*plugin)->api()->version.minor, 3);
  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->devices().size(), 1u);
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
