// Custom-call code lives as long as a compiled program can call it, and a
// compiled program calls the library it was compiled with:
//  - the CPU plugin's compile cache hands out a program after the
//    executable that compiled it is gone: the library must still be loaded;
//  - a deserialized executable resolves its targets again and keeps their
//    library loaded;
//  - two libraries exporting the same symbol each give their own result
//    (no compile-cache hit across libraries);
//  - registering a target after a compilation is seen by the next one.
// scale_f32_4 is 2 * x in libplexa_example_custom_calls.so and 3 * x in
// libplexa_abi_other_custom_calls.so.
#include <dlfcn.h>

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

constexpr char kScale[] = R"(HloModule scale

ENTRY main {
  x = f32[4] parameter(0)
  ROOT y = f32[4] custom-call(x), custom_call_target="scale_f32_4"
}
)";

// True when `path` is loaded in this process (RTLD_NOLOAD opens nothing).
bool IsLoaded(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

absl::StatusOr<Literal> RunScale(Client& client, Executable& exe) {
  auto x = client.BufferFromLiteral(Literal::CreateR1<float>({1, 2, 3, 4}));
  if (!x.ok()) return x.status();
  auto out = exe.Execute({{x->get()}});
  if (!out.ok()) return out.status();
  return (*out)[0][0]->ToLiteral();
}

CompileOptions WithLibrary(const char* path) {
  CompileOptions options;
  options.custom_call_libraries = {path};
  return options;
}

const Literal& Doubled() {
  static const Literal* const kDoubled =
      new Literal(Literal::CreateR1<float>({2, 4, 6, 8}));
  return *kDoubled;
}

const Literal& Tripled() {
  static const Literal* const kTripled =
      new Literal(Literal::CreateR1<float>({3, 6, 9, 12}));
  return *kTripled;
}

// Every plugin that runs custom calls from libraries.
class CustomCallLifetimeTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    auto client = plugin_->CreateClient();
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }
  std::shared_ptr<Plugin> plugin_;
  std::unique_ptr<Client> client_;
};

TEST_P(CustomCallLifetimeTest, TwoLibrariesExportingOneSymbolGiveTheirOwn) {
  auto two = client_->Compile(kScale, "hlo-text",
                              WithLibrary(PLEXA_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(two.ok()) << two.status();
  auto three = client_->Compile(kScale, "hlo-text",
                                WithLibrary(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(three.ok()) << three.status();
  auto a = RunScale(*client_, **two);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, Doubled());
  auto b = RunScale(*client_, **three);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*b, Tripled());
}

TEST_P(CustomCallLifetimeTest, AnExecutableKeepsItsLibraryLoaded) {
  auto exe = client_->Compile(kScale, "hlo-text",
                              WithLibrary(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(IsLoaded(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  auto out = RunScale(*client_, **exe);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Tripled());
}

TEST_P(CustomCallLifetimeTest, ARegistrationAfterACompilationIsSeen) {
  auto from_library = client_->Compile(kScale, "hlo-text",
                                       WithLibrary(PLEXA_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(from_library.ok()) << from_library.status();
  // The registry is searched before the libraries: the same module with
  // the same options now calls the registered target.
  static void (*const kQuadruple)(void*, void**) = [](void* out, void** in) {
    const float* x = static_cast<const float*>(in[0]);
    float* y = static_cast<float*>(out);
    for (int i = 0; i < 4; ++i) y[i] = 4 * x[i];
  };
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("scale_f32_4",
                                       reinterpret_cast<void*>(kQuadruple), 0)
                  .ok());
  auto from_registry = client_->Compile(kScale, "hlo-text",
                                        WithLibrary(PLEXA_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(from_registry.ok()) << from_registry.status();
  auto out = RunScale(*client_, **from_registry);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Literal::CreateR1<float>({4, 8, 12, 16}));
  auto before = RunScale(*client_, **from_library);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(*before, Doubled());
}

PLEXA_INSTANTIATE_ON_PLUGINS(CustomCallLifetimeTest);

#ifdef PLEXA_CPU_PLUGIN

// The CPU plugin's compile cache and executable serialization.
class CpuCustomCallLifetimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(PLEXA_CPU_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
  }
  std::unique_ptr<Client> NewClient(std::vector<Plugin::Option> options = {}) {
    auto client = plugin_->CreateClient(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }
  std::shared_ptr<Plugin> plugin_;
};

TEST_F(CpuCustomCallLifetimeTest, ACacheHitAfterTheFirstExecutableIsGoneRuns) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  const CompileOptions options = WithLibrary(PLEXA_OTHER_CUSTOM_CALL_LIBRARY);
  {
    auto first = client->Compile(kScale, "hlo-text", options);
    ASSERT_TRUE(first.ok()) << first.status();
    auto out = RunScale(*client, **first);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, Tripled());
  }
  // The executable is gone; the cached program still calls the library.
  EXPECT_TRUE(IsLoaded(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  ::testing::internal::CaptureStderr();
  auto second = client->Compile(kScale, "hlo-text", options);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(err, HasSubstr("compile cache hit"));
  auto out = RunScale(*client, **second);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Tripled());
}

TEST_F(CpuCustomCallLifetimeTest, ADeserializedExecutableKeepsItsLibrary) {
  std::string bytes;
  {
    auto client = NewClient();
    ASSERT_NE(client, nullptr);
    auto exe = client->Compile(kScale, "hlo-text",
                               WithLibrary(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto serialized = (*exe)->Serialize();
    ASSERT_TRUE(serialized.ok()) << serialized.status();
    bytes = std::move(*serialized);
  }
  // Executable, client and cache are gone: so is the library.
  EXPECT_FALSE(IsLoaded(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto loaded = client->DeserializeExecutable(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(IsLoaded(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  auto out = RunScale(*client, **loaded);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Tripled());
}

#endif  // PLEXA_CPU_PLUGIN

}  // namespace
}  // namespace plexa::host
