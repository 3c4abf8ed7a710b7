// The host's loader (abi/host: plexa::host::Plugin::Load): by path, by name
// through PLEXA_PLUGIN_PATH, refusals with useful messages, several plugins
// in one process, and no library left mapped after a refused load.
#include <link.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "abi/host/plugin_host.h"
#include "core/literal/literal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::HasSubstr;

// Objects the dynamic loader has mapped, by path.
std::multiset<std::string> LoadedObjects() {
  std::multiset<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        static_cast<std::multiset<std::string>*>(data)->insert(
            info->dlpi_name ? info->dlpi_name : "");
        return 0;
      },
      &out);
  return out;
}

// True if /proc/self/maps maps a file whose path contains `path`.
bool Mapped(const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  const std::string canonical =
      std::filesystem::weakly_canonical(std::filesystem::path(path)).string();
  while (std::getline(maps, line)) {
    if (line.find(canonical) != std::string::npos) return true;
  }
  return false;
}

// Runs `load` (which must fail) and checks that nothing stays loaded.
void ExpectNoLeak(const std::string& path, const std::function<void()>& load) {
  const std::multiset<std::string> before = LoadedObjects();
  load();
  EXPECT_EQ(LoadedObjects(), before) << "a refused load left objects mapped";
  EXPECT_FALSE(Mapped(path)) << path << " is still mapped";
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(LoaderTest, LoadByPath) {
  auto plugin = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  const PluginAttributes& a = (*plugin)->attributes();
  EXPECT_EQ(a.name, "reference");
  EXPECT_EQ(a.platform, "host");
  EXPECT_EQ(a.abi_major, 1);
  EXPECT_EQ(a.abi_minor, PLX_API_MINOR);
  EXPECT_THAT(a.formats, ::testing::Contains("hlo-text"));
  EXPECT_EQ((*plugin)->path(), PLEXA_REFERENCE_PLUGIN);
  EXPECT_EQ((*plugin)->api()->struct_size, PLX_Api_STRUCT_SIZE_1_2);
  EXPECT_TRUE((*plugin)->HasCapability(PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL));
}

TEST(LoaderTest, LoadByNameThroughPluginPath) {
  const std::string dir =
      std::filesystem::path(PLEXA_REFERENCE_PLUGIN).parent_path().string();
  ScopedEnv env("PLEXA_PLUGIN_PATH", "/nonexistent/plexa-a:" + dir);
  EXPECT_EQ(Plugin::SearchDirectories().front(), "/nonexistent/plexa-a");
  auto plugin = Plugin::Load("reference");
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  EXPECT_EQ((*plugin)->path(), dir + "/libplexa_plugin_reference.so");
  EXPECT_EQ((*plugin)->attributes().name, "reference");
}

TEST(LoaderTest, MissingNameListsTheDirectoriesSearched) {
  ScopedEnv env("PLEXA_PLUGIN_PATH",
                "/nonexistent/plexa-a:/nonexistent/plexa-b");
  auto plugin = Plugin::Load("nosuchbackend");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), absl::StatusCode::kNotFound);
  const std::string m(plugin.status().message());
  EXPECT_THAT(m, HasSubstr("'nosuchbackend'"));
  EXPECT_THAT(m, HasSubstr("libplexa_plugin_nosuchbackend.so"));
  for (const std::string& dir : Plugin::SearchDirectories()) {
    EXPECT_THAT(m, HasSubstr(dir));
  }
  EXPECT_THAT(m, HasSubstr("/nonexistent/plexa-a"));
  EXPECT_THAT(m, HasSubstr("/nonexistent/plexa-b"));
  EXPECT_THAT(m, HasSubstr("PLEXA_PLUGIN_PATH"));
}

TEST(LoaderTest, SharedLibraryWithoutGetApiIsRefusedAndUnloaded) {
  ExpectNoLeak(PLEXA_NOT_A_PLUGIN, [] {
    auto plugin = Plugin::Load(PLEXA_NOT_A_PLUGIN);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(plugin.status().message(), HasSubstr("PLX_GetApi"));
    EXPECT_THAT(plugin.status().message(), HasSubstr(PLEXA_NOT_A_PLUGIN));
    EXPECT_THAT(plugin.status().message(), HasSubstr("not a Plexa plugin"));
  });
}

TEST(LoaderTest, FileThatIsNotASharedLibraryIsRefused) {
  const std::string path = ::testing::TempDir() + "/libplexa_plugin_text.so";
  std::ofstream(path) << "this is not an ELF file\n";
  ExpectNoLeak(path, [&] {
    auto plugin = Plugin::Load(path);
    ASSERT_FALSE(plugin.ok());
    EXPECT_THAT(plugin.status().message(), HasSubstr(path));
  });
  std::filesystem::remove(path);
}

TEST(LoaderTest, MissingPathIsNotFound) {
  auto plugin = Plugin::Load("/nonexistent/libplexa_plugin_x.so");
  ASSERT_FALSE(plugin.ok());
  EXPECT_EQ(plugin.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(plugin.status().message(),
              HasSubstr("/nonexistent/libplexa_plugin_x.so"));
}

TEST(LoaderTest, BrokenTablesAreRefusedNamingTheProblem) {
  ExpectNoLeak(PLEXA_OLD_PLUGIN_SHORT_TABLE, [] {
    auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_SHORT_TABLE);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(plugin.status().message(),
                HasSubstr(std::to_string(PLX_Api_STRUCT_SIZE_1_0)));
    EXPECT_THAT(plugin.status().message(),
                HasSubstr(PLEXA_OLD_PLUGIN_SHORT_TABLE));
  });
  ExpectNoLeak(PLEXA_OLD_PLUGIN_EMPTY_SLOT, [] {
    auto plugin = Plugin::Load(PLEXA_OLD_PLUGIN_EMPTY_SLOT);
    ASSERT_FALSE(plugin.ok());
    EXPECT_EQ(plugin.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(plugin.status().message(), HasSubstr("PLX_Buffer_Shape"));
  });
}

TEST(LoaderTest, RefusedMajorIsUnloaded) {
  ExpectNoLeak(PLEXA_OLD_PLUGIN_V2,
               [] { EXPECT_FALSE(Plugin::Load(PLEXA_OLD_PLUGIN_V2).ok()); });
}

const char kAdd4[] = R"(HloModule add4
ENTRY main {
  x = f32[4] parameter(0)
  ROOT s = f32[4] add(x, x)
}
)";
const char kNegate4[] = R"(HloModule neg4
ENTRY main {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
)";

TEST(LoaderTest, SeveralPluginsAtOnceStayApart) {
  auto reference = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
  auto async = Plugin::Load(PLEXA_ASYNCTEST_PLUGIN);
  auto old = Plugin::Load(PLEXA_OLD_PLUGIN_V1_0);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_TRUE(async.ok()) << async.status();
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ((*reference)->attributes().name, "reference");
  EXPECT_EQ((*async)->attributes().name, "asynctest");
  EXPECT_EQ((*old)->attributes().name, "old-c");
  EXPECT_NE((*reference)->api(), (*async)->api());

  auto rc = (*reference)->CreateClient();
  auto ac = (*async)->CreateClient();
  auto oc = (*old)->CreateClient();
  ASSERT_TRUE(rc.ok()) << rc.status();
  ASSERT_TRUE(ac.ok()) << ac.status();
  ASSERT_TRUE(oc.ok()) << oc.status();
  auto rexe = (*rc)->Compile(kAdd4, "hlo-text");
  auto aexe = (*ac)->Compile(kNegate4, "hlo-text");
  ASSERT_TRUE(rexe.ok()) << rexe.status();
  ASSERT_TRUE(aexe.ok()) << aexe.status();
  const Literal x = Literal::CreateR1<float>({1, 2, 3, 4});
  auto rin = (*rc)->BufferFromLiteral(x);
  auto ain = (*ac)->BufferFromLiteral(x);
  ASSERT_TRUE(rin.ok() && ain.ok());
  auto rout = (*rexe)->Execute({{rin->get()}});
  auto aout = (*aexe)->Execute({{ain->get()}});
  ASSERT_TRUE(rout.ok()) << rout.status();
  ASSERT_TRUE(aout.ok()) << aout.status();
  EXPECT_EQ(*(*rout)[0][0]->ToLiteral(),
            Literal::CreateR1<float>({2, 4, 6, 8}));
  EXPECT_EQ(*(*aout)[0][0]->ToLiteral(),
            Literal::CreateR1<float>({-1, -2, -3, -4}));
  // Each plugin keeps its own handles: a reference buffer handed to the
  // asynctest plugin is rejected by it, not misread.
  auto cross = (*aexe)->Execute({{rin->get()}});
  ASSERT_FALSE(cross.ok());
  EXPECT_THAT(cross.status().message(), HasSubstr("not a live PLX_Buffer"));
  // The old C plugin's own error objects come back through the host.
  auto oexe = (*oc)->Compile(kAdd4, "hlo-text");
  ASSERT_FALSE(oexe.ok());
  EXPECT_EQ(oexe.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(oexe.status().message(), HasSubstr("PLX_Client_Compile"));
}

TEST(LoaderTest, SamePluginLoadedTwiceSharesOneLibrary) {
  auto a = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
  auto b = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->api(), (*b)->api());
  a->reset();  // one Plugin gone; the other still works
  auto client = (*b)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->devices().size(), 1u);
}

TEST(LoaderTest, ClientOptionsReachThePlugin) {
  auto plugin = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
  ASSERT_TRUE(plugin.ok());
  auto client =
      (*plugin)->CreateClient({{"num_devices", PLX_Value_INT64, "", 3}});
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_EQ((*client)->devices().size(), 3u);
  EXPECT_EQ((*client)->devices()[2].id, 2);
  EXPECT_EQ((*client)->devices()[0].kind, "reference:virtual");
  auto bad = (*plugin)->CreateClient({{"num_threads", PLX_Value_INT64, "", 3}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("'num_threads'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("PLX_Client_Create"));
}

}  // namespace
}  // namespace plexa::host
