// Custom calls through the ABI on the reference plugin:
//  - the seed's `myfunc` (examples/custom_call/myfunc.cc), registered with
//    PLX_CustomCall_Register (host: Plugin::RegisterCustomCall) and called
//    from an HLO program with custom-call(x, y), custom_call_target="myfunc";
//  - targets found with dlsym in libplexa_example_custom_calls.so, named in
//    the compile options' custom_call_libraries (an array result and a tuple
//    result);
//  - the registry is searched before the libraries;
//  - an unresolved target is NOT_FOUND at compile time, naming the target
//    and every place searched;
//  - typed targets (api_version 1) get a PLX_CallFrame;
//  - custom-call code lives as long as a compiled program can call it, and
//    a program calls the library it was compiled with: the CPU plugin's
//    compile cache hands out a program after the executable that compiled
//    it is gone, a deserialized executable resolves its targets again, two
//    libraries exporting one symbol (scale_f32_4: 2 * x in
//    libplexa_example_custom_calls.so, 3 * x in
//    libplexa_abi_other_custom_calls.so) each give their own result, and a
//    registration after a compilation is seen by the next one.
// Expected values are the seed's inputs pushed through the formulas stated
// in myfunc.h and custom_calls.c, computed by hand.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "core/literal/literal.h"
#include "examples/custom_call/myfunc.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host_run_util.h"

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

// Every plugin that runs custom calls: the reference plugin and, when
// built, the CPU plugin.
class CustomCallTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    auto client = plugin_->CreateClient();
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }
  // Compiles and runs `program` on `args`; returns the output literals.
  absl::StatusOr<std::vector<Literal>> Run(const std::string& program,
                                           const std::vector<Literal>& args,
                                           const CompileOptions& options = {}) {
    return abi_test::CompileAndRun(*client_, program, args, options);
  }

  std::shared_ptr<Plugin> plugin_;
  std::unique_ptr<Client> client_;
};

const char kSeedProgram[] = R"(HloModule seed_custom_call

ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
}
)";

TEST_P(CustomCallTest, SeedMyfuncRegisteredThroughTheAbi) {
  ASSERT_TRUE(
      plugin_->RegisterCustomCall("myfunc", reinterpret_cast<void*>(&myfunc), 0)
          .ok());
  // The seed: x = f32[2] {1,2}; y = f32[2x3] {{10,20,30},{40,50,60}}.
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1, 2}));
  args.push_back(Literal::CreateR2<float>({{10, 20, 30}, {40, 50, 60}}));
  auto out = Run(kSeedProgram, args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  // z[i][j] = x[i % 2] * y[i % 2][j] + i:
  //   i=0: 1*{10,20,30} + 0;  i=1: 2*{40,50,60} + 1;  i=2: 1*{10,20,30} + 2.
  EXPECT_EQ((*out)[0], Literal::CreateR2<float>(
                           {{10, 20, 30}, {81, 101, 121}, {12, 22, 32}}));
}

TEST_P(CustomCallTest, SeedMyfuncWithConstantOperands) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall(
                      "myfunc", reinterpret_cast<void*>(&myfunc), 0, "host")
                  .ok());
  const std::string program = R"(HloModule seed_constants

ENTRY main {
  x = f32[2] constant({1, 2})
  y = f32[2,3] constant({ { 10, 20, 30 }, { 40, 50, 60 } })
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
}
)";
  auto out = Run(program, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR2<float>(
                           {{10, 20, 30}, {81, 101, 121}, {12, 22, 32}}));
}

TEST_P(CustomCallTest, TargetsFromASharedLibraryByDlsym) {
  const std::string program = R"(HloModule library_targets

ENTRY main {
  m = f32[2,3] parameter(0)
  v = f32[4] parameter(1)
  sums = f32[2] custom-call(m), custom_call_target="row_sums_f32_2x3"
  mm = (f32[], f32[]) custom-call(v), custom_call_target="min_max_f32_4"
  lo = f32[] get-tuple-element(mm), index=0
  hi = f32[] get-tuple-element(mm), index=1
  ROOT t = (f32[2], f32[], f32[]) tuple(sums, lo, hi)
}
)";
  std::vector<Literal> args;
  args.push_back(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6.5f}}));
  args.push_back(Literal::CreateR1<float>({3, -7, 12, 0.5f}));
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  auto out = Run(program, args, options);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({6, 15.5f}));
  EXPECT_EQ((*out)[1], Literal::CreateR0<float>(-7));
  EXPECT_EQ((*out)[2], Literal::CreateR0<float>(12));
}

TEST_P(CustomCallTest, LibraryTargetWithoutTheLibraryIsNotFound) {
  const std::string program = R"(HloModule m

ENTRY main {
  v = f32[4] parameter(0)
  ROOT s = f32[4] custom-call(v), custom_call_target="scale_f32_4"
}
)";
  auto exe = client_->Compile(program, "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(exe.status().message(), HasSubstr("'scale_f32_4'"));
  // With the library it resolves: out = 2 * in.
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1, -2, 3.5f, 0}));
  auto out = Run(program, args, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({2, -4, 7, 0}));
}

void TripleF32x4(void* out, void** in) {
  const float* x = static_cast<const float*>(in[0]);
  float* y = static_cast<float*>(out);
  for (int i = 0; i < 4; ++i) y[i] = 3 * x[i];
}

TEST_P(CustomCallTest, RegistryIsSearchedBeforeTheLibraries) {
  // The library exports scale_f32_4 (x2); the registry's entry (x3) wins.
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("scale_f32_4",
                                       reinterpret_cast<void*>(&TripleF32x4), 0)
                  .ok());
  const std::string program = R"(HloModule m

ENTRY main {
  v = f32[4] parameter(0)
  ROOT s = f32[4] custom-call(v), custom_call_target="scale_f32_4"
}
)";
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  std::vector<Literal> args;
  args.push_back(Literal::CreateR1<float>({1, -2, 3.5f, 0}));
  auto out = Run(program, args, options);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({3, -6, 10.5f, 0}));
}

TEST_P(CustomCallTest, MissingTargetIsNotFoundNamingEveryPlaceSearched) {
  const std::string program = R"(HloModule m

ENTRY main {
  v = f32[4] parameter(0)
  ROOT nowhere = f32[4] custom-call(v), custom_call_target="no_such_target_anywhere"
}
)";
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  auto exe = client_->Compile(program, "hlo-text", options);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kNotFound);
  const std::string m(exe.status().message());
  EXPECT_THAT(m, HasSubstr("PLX_Client_Compile"));
  EXPECT_THAT(m, HasSubstr("nowhere"));  // the instruction
  EXPECT_THAT(m, HasSubstr("'no_such_target_anywhere'"));
  EXPECT_THAT(m, HasSubstr("registry"));
  EXPECT_THAT(m, HasSubstr(PLEXA_CUSTOM_CALL_LIBRARY));
  EXPECT_THAT(m, HasSubstr("process"));
}

// The typed convention (api_version 1): out = k * in for f32 arrays, where k
// comes from the instruction's backend_config ("3"); it checks the frame it
// gets (one argument and one result of the same dimensions, f32) and fails
// with a message otherwise or when k is 0.
int32_t TypedScale(PLX_CallFrame* frame) {
  if (frame->num_args != 1 || frame->num_results != 1 ||
      frame->args[0].element_type != PLX_Type_F32 ||
      frame->results[0].element_type != PLX_Type_F32 ||
      frame->args[0].num_dims != frame->results[0].num_dims) {
    frame->error_message = "TypedScale: expected f32 in, f32 out";
    return 1;
  }
  const std::string config(frame->backend_config, frame->backend_config_size);
  const float k = std::strtof(config.c_str(), nullptr);
  if (k == 0) {
    frame->error_message = "TypedScale: the backend_config gives no factor";
    return 2;
  }
  int64_t n = 1;
  for (size_t d = 0; d < frame->args[0].num_dims; ++d) {
    n *= frame->args[0].dims[d];
  }
  const float* in = static_cast<const float*>(frame->args[0].data);
  float* out = static_cast<float*>(frame->results[0].data);
  for (int64_t i = 0; i < n; ++i) out[i] = k * in[i];
  return 0;
}

// A typed target called without api_version=API_VERSION_TYPED_FFI gets the
// backend_config as text (with the FFI it must be an attribute dictionary:
// call_frame_test.cc).
std::string TypedProgram(const std::string& config, bool typed_ffi = false) {
  return R"(HloModule typed

ENTRY main {
  v = f32[2,2] parameter(0)
  ROOT s = f32[2,2] custom-call(v), custom_call_target="typed_scale", backend_config=")" +
         config + "\"" +
         (typed_ffi ? ", api_version=API_VERSION_TYPED_FFI" : "") + R"(
}
)";
}

TEST_P(CustomCallTest, TypedTargetsGetACallFrame) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("typed_scale",
                                       reinterpret_cast<void*>(&TypedScale), 1)
                  .ok());
  auto out =
      Run(TypedProgram("3"), {Literal::CreateR2<float>({{1, -2}, {0.5f, 4}})});
  ASSERT_TRUE(out.ok()) << out.status();
  // 3 * {{1, -2}, {0.5, 4}}.
  EXPECT_EQ((*out)[0], Literal::CreateR2<float>({{3, -6}, {1.5f, 12}}));
}

TEST_P(CustomCallTest, ATypedTargetsFailureFailsTheExecution) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("typed_scale",
                                       reinterpret_cast<void*>(&TypedScale), 1)
                  .ok());
  auto out =
      Run(TypedProgram("zero"), {Literal::CreateR2<float>({{1, 2}, {3, 4}})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("gives no factor"));
  EXPECT_THAT(out.status().message(), HasSubstr("custom-call s"));
}

TEST_P(CustomCallTest, TypedFfiProgramsNeedATypedTarget) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("typed_scale",
                                       reinterpret_cast<void*>(&TripleF32x4), 0)
                  .ok());
  auto exe =
      client_->Compile(TypedProgram("{}", /*typed_ffi=*/true), "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(exe.status().message(), HasSubstr("'typed_scale'"));
  EXPECT_THAT(exe.status().message(), HasSubstr("API_VERSION_TYPED_FFI"));
}

TEST_P(CustomCallTest, RegisterRejectsAnotherPlatform) {
  absl::Status s = plugin_->RegisterCustomCall(
      "myfunc", reinterpret_cast<void*>(&myfunc), 0, "rocm");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("'rocm'"));
}

// Every in-tree plugin runs C targets on host memory: the host platform's
// registrations are taken (the Vulkan plugin runs them on its mapped
// device memory between kernels; the others are the host).
TEST_P(CustomCallTest, RegisterTakesHostTargets) {
  EXPECT_TRUE(plugin_
                  ->RegisterCustomCall("myfunc_host",
                                       reinterpret_cast<void*>(&myfunc), 0,
                                       "host")
                  .ok());
}

// ---- Lifetime of custom-call libraries ----

TEST_P(CustomCallTest, TwoLibrariesExportingOneSymbolGiveTheirOwn) {
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

TEST_P(CustomCallTest, AnExecutableKeepsItsLibraryLoaded) {
  auto exe = client_->Compile(kScale, "hlo-text",
                              WithLibrary(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_TRUE(IsLoaded(PLEXA_OTHER_CUSTOM_CALL_LIBRARY));
  auto out = RunScale(*client_, **exe);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Tripled());
}

TEST_P(CustomCallTest, ARegistrationAfterACompilationIsSeen) {
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

PLEXA_INSTANTIATE_ON_PLUGINS(CustomCallTest);

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
