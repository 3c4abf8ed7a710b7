// The ABI 1.2 typed call frame, through the ABI on every in-tree plugin:
//  - typed attributes parsed from an API_VERSION_TYPED_FFI backend_config
//    (quoted or bare), one of every kind, checked by the target against
//    the values written in the program;
//  - a malformed dictionary is a compile error naming the instruction and
//    the offset;
//  - each buffer's layout (a column-major operand and result through
//    operand_layout_constraints, and row-major ones), with scratch memory;
//  - logging through the host's PLX_LoggerExtension and, without one, to
//    stderr; scratch requests that cannot be met are NULL and logged;
//  - a failure's error_code and message come back through the ABI;
//  - the platform the frame names, and a NULL stream (host memory);
//  - a target built against the frozen 1.1 header (a smaller frame) still
//    runs and fails as before.
// The targets are in typed_custom_calls.c and typed_custom_calls_v1_1.c.
// Expected values are computed by hand from the formulas stated there.
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "core/literal/literal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "host_run_util.h"

namespace plexa::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// Opens `path` once for the process and returns `symbol` from it.
void* TargetIn(const char* path, const char* symbol) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;
  return dlsym(handle, symbol);  // the library stays loaded
}

// What a PLX_LoggerExtension received.
struct LogSink {
  std::mutex mu;
  std::vector<std::pair<PLX_LogSeverity, std::string>> lines;
  PLX_LoggerExtension extension{};

  LogSink() {
    extension.struct_size = PLX_LoggerExtension_STRUCT_SIZE;
    extension.type = PLX_ExtensionType_LOGGER;
    extension.user_data = this;
    extension.callback = &Callback;
  }
  static void Callback(void* user_data, PLX_LogSeverity severity,
                       const char* message) {
    auto* sink = static_cast<LogSink*>(user_data);
    std::lock_guard<std::mutex> lock(sink->mu);
    sink->lines.emplace_back(severity, message);
  }
  PLX_Extension* chain() {
    return reinterpret_cast<PLX_Extension*>(&extension);
  }
};

class CallFrameTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    for (const char* name : {"plx_test_check_attributes",
                             "plx_test_transpose_2d", "plx_test_log_and_fail",
                             "plx_test_bad_scratch", "plx_test_platform"}) {
      void* fn = TargetIn(PLEXA_TYPED_CUSTOM_CALLS, name);
      ASSERT_NE(fn, nullptr) << name << ": " << dlerror();
      ASSERT_TRUE(plugin_->RegisterCustomCall(name, fn, 1).ok());
    }
    void* old = TargetIn(PLEXA_TYPED_CUSTOM_CALLS_V1_1, "plx_test_scale_v1_1");
    ASSERT_NE(old, nullptr) << dlerror();
    ASSERT_TRUE(
        plugin_->RegisterCustomCall("plx_test_scale_v1_1", old, 1).ok());
  }

  // A client logging to `sink` (null: none given, so stderr).
  std::unique_ptr<Client> NewClient(LogSink* sink = nullptr) {
    auto client =
        plugin_->CreateClient({}, sink != nullptr ? sink->chain() : nullptr);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  static absl::StatusOr<std::vector<Literal>> Run(
      Client& client, const std::string& program,
      const std::vector<Literal>& args) {
    return abi_test::CompileAndRun(client, program, args);
  }

  std::shared_ptr<Plugin> plugin_;
};

// One f32[4] -> f32[4] custom call named `name` with `config` (written as
// is after `backend_config=`) and API_VERSION_TYPED_FFI.
std::string UnaryProgram(const std::string& name, const std::string& target,
                         const std::string& config) {
  return R"(HloModule typed

ENTRY main {
  x = f32[4] parameter(0)
  ROOT )" +
         name + " = f32[4] custom-call(x), custom_call_target=\"" + target +
         "\", backend_config=" + config +
         R"(, api_version=API_VERSION_TYPED_FFI
}
)";
}

Literal Input() { return Literal::CreateR1<float>({1, 2, 3, 4}); }

// ---- Attributes ----

// The dictionary of the brief, once quoted (XLA's backend_config="...")
// and once bare (backend_config={...}).
constexpr char kEveryKindBare[] =
    R"({n = 4 : i32, eps = 1.0e-05 : f32, name = "x", dims = array<i64: 1, 2>, )"
    R"(fs = array<f32: 1.5, 2.0>, flag = true, u = 7 : ui8, idx = 3 : index})";
constexpr char kEveryKindQuoted[] =
    R"("{n = 4 : i32, eps = 1.0e-05 : f32, name = \"x\", dims = array<i64: 1, 2>, )"
    R"(fs = array<f32: 1.5, 2.0>, flag = true, u = 7 : ui8, idx = 3 : index}")";

TEST_P(CallFrameTest, EveryAttributeKindFromABareDictionary) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out =
      Run(*client,
          UnaryProgram("attrs", "plx_test_check_attributes", kEveryKindBare),
          {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  // out = 4 * in + 2 * 2.0 + 7 + 3 + 1 = 4 * in + 15.
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({19, 23, 27, 31}));
}

TEST_P(CallFrameTest, EveryAttributeKindFromAQuotedDictionary) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out =
      Run(*client,
          UnaryProgram("attrs", "plx_test_check_attributes", kEveryKindQuoted),
          {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({19, 23, 27, 31}));
}

TEST_P(CallFrameTest, AnAttributeWithAnotherValueIsSeenByTheTarget) {
  // The target's check can fail: n = 5 is not the 4 it expects.
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  std::string config = kEveryKindBare;
  config.replace(config.find("n = 4"), 5, "n = 5");
  auto out =
      Run(*client, UnaryProgram("attrs", "plx_test_check_attributes", config),
          {Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(), HasSubstr("n is not 4"));
}

TEST_P(CallFrameTest, AMalformedDictionaryIsACompileErrorNamingWhere) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  // "{n = 4 : i32, eps = }": the value of eps is missing at offset 20.
  auto exe = client->Compile(
      UnaryProgram("broken", "plx_test_log_and_fail", "{n = 4 : i32, eps = }"),
      "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(exe.status().message(), HasSubstr("custom-call broken"));
  EXPECT_THAT(exe.status().message(), HasSubstr("plx_test_log_and_fail"));
  EXPECT_THAT(exe.status().message(), HasSubstr("at offset 20"));
  // 300 does not fit ui8: the value at offset 5 of "{u = 300 : ui8}".
  exe = client->Compile(
      UnaryProgram("wide", "plx_test_log_and_fail", "\"{u = 300 : ui8}\""),
      "hlo-text");
  ASSERT_FALSE(exe.ok());
  EXPECT_THAT(exe.status().message(), HasSubstr("custom-call wide"));
  EXPECT_THAT(exe.status().message(), HasSubstr("at offset 5"));
  EXPECT_THAT(exe.status().message(), HasSubstr("fits ui8"));
}

// ---- Layouts and scratch ----

std::string TransposeProgram(bool column_major) {
  const std::string layout = column_major ? "{0,1}" : "{1,0}";
  const std::string m2m = column_major ? "0, 1" : "1, 0";
  return R"(HloModule transpose

ENTRY main {
  x = f32[2,3] parameter(0)
  t = f32[3,2])" +
         layout +
         R"( custom-call(x), custom_call_target="plx_test_transpose_2d", backend_config={arg_layout = array<i64: )" +
         m2m + ">, result_layout = array<i64: " + m2m +
         R"(>}, api_version=API_VERSION_TYPED_FFI, operand_layout_constraints={f32[2,3])" +
         layout + R"(}
  ROOT n = f32[3,2] negate(t)
}
)";
}

TEST_P(CallFrameTest, AColumnMajorOperandAndResultWithScratch) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, TransposeProgram(/*column_major=*/true),
                 {Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  ASSERT_TRUE(out.ok()) << out.status();
  // n = -transpose(x).
  EXPECT_EQ((*out)[0],
            Literal::CreateR2<float>({{-1, -4}, {-2, -5}, {-3, -6}}));
}

TEST_P(CallFrameTest, RowMajorOperandAndResult) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, TransposeProgram(/*column_major=*/false),
                 {Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0],
            Literal::CreateR2<float>({{-1, -4}, {-2, -5}, {-3, -6}}));
}

TEST_P(CallFrameTest, AWrongLayoutExpectationFails) {
  // The program says the operand is column-major; a target told to expect
  // row-major sees the difference (so the layout check can fail).
  std::string program = TransposeProgram(/*column_major=*/true);
  program.replace(program.find("arg_layout = array<i64: 0, 1>"), 29,
                  "arg_layout = array<i64: 1, 0>");
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out =
      Run(*client, program, {Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}})});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("the argument's minor_to_major is not arg_layout"));
}

// ---- Logging, scratch refusals, errors ----

TEST_P(CallFrameTest, LogsGoToTheHostsLoggerWithTheInstructionName) {
  LogSink sink;
  auto client = NewClient(&sink);
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, UnaryProgram("lg", "plx_test_log_and_fail", "{}"),
                 {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Input());
  std::lock_guard<std::mutex> lock(sink.mu);
  EXPECT_THAT(sink.lines,
              ElementsAre(Pair(PLX_LogSeverity_INFO,
                               "custom-call lg: hello from the target"),
                          Pair(PLX_LogSeverity_WARNING,
                               "custom-call lg: the result is a copy")));
}

TEST_P(CallFrameTest, WithoutALoggerLogsGoToStderr) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto out = Run(*client, UnaryProgram("lg", "plx_test_log_and_fail", "{}"),
                 {Input()});
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(err,
              HasSubstr("plexa INFO: custom-call lg: hello from the target\n"));
  EXPECT_THAT(
      err, HasSubstr("plexa WARNING: custom-call lg: the result is a copy\n"));
}

TEST_P(CallFrameTest, ScratchThatCannotBeHadIsNullAndLogged) {
  LogSink sink;
  auto client = NewClient(&sink);
  ASSERT_NE(client, nullptr);
  auto out =
      Run(*client, UnaryProgram("sc", "plx_test_bad_scratch", "{}"), {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Input());
  std::lock_guard<std::mutex> lock(sink.mu);
  ASSERT_EQ(sink.lines.size(), 2u);
  EXPECT_EQ(sink.lines[0].first, PLX_LogSeverity_ERROR);
  EXPECT_EQ(sink.lines[0].second,
            "custom-call sc: allocate_scratch: alignment 3 is not a power of "
            "two of at most 4096");
  EXPECT_EQ(sink.lines[1].first, PLX_LogSeverity_ERROR);
  // SIZE_MAX / 2 = 2^63 - 1.
  EXPECT_THAT(sink.lines[1].second,
              HasSubstr("custom-call sc: allocate_scratch: "
                        "9223372036854775807 bytes is more than"));
}

TEST_P(CallFrameTest, AFailuresCodeAndMessageComeBackThroughTheAbi) {
  LogSink sink;
  auto client = NewClient(&sink);
  ASSERT_NE(client, nullptr);
  auto out = Run(*client,
                 UnaryProgram("bad", "plx_test_log_and_fail", "{fail = true}"),
                 {Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string m(out.status().message());
  EXPECT_THAT(m, HasSubstr("custom-call bad"));
  EXPECT_THAT(m, HasSubstr("'plx_test_log_and_fail'"));
  EXPECT_THAT(m, HasSubstr("fail was requested"));
}

TEST_P(CallFrameTest, TheFrameNamesThePlatformAndHasNoStream) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  // The plugin's name, except where the target runs on the host on the
  // plugin's behalf: the Vulkan plugin hands it host pointers and says so.
  const std::string name = abi_test::PluginName(GetParam());
  const std::string platform = name == "vulkan" ? "host" : name;
  auto out = Run(*client,
                 UnaryProgram("pl", "plx_test_platform",
                              "{platform = \"" + platform + "\"}"),
                 {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Input());
  // Another platform name is noticed (NOT_FOUND, naming the real one).
  out = Run(*client,
            UnaryProgram("pl", "plx_test_platform", "{platform = \"rocm\"}"),
            {Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(out.status().message(),
              HasSubstr("unexpected platform or stream: " + platform));
}

// ---- A target built against the 1.1 header ----

std::string ScaleV11Program(const std::string& k) {
  return R"(HloModule old_frame

ENTRY main {
  x = f32[4] parameter(0)
  ROOT s = f32[4] custom-call(x), custom_call_target="plx_test_scale_v1_1", backend_config=")" +
         k + R"("
}
)";
}

TEST_P(CallFrameTest, ATargetBuiltAgainstThe1_1FrameStillRuns) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, ScaleV11Program("3"), {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({3, 6, 9, 12}));
  // Its failure has no code of its own: INTERNAL, with its message.
  out = Run(*client, ScaleV11Program("0"), {Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(out.status().message(),
              HasSubstr("plx_test_scale_v1_1: no factor"));
  EXPECT_THAT(out.status().message(), HasSubstr("custom-call s"));
}

// ---- The example of docs/abi.md (examples/custom_call/typed_scale.c) ----

TEST_P(CallFrameTest, TheDocumentedExampleScalesLogsAndFails) {
  void* fn = TargetIn(PLEXA_EXAMPLE_TYPED_SCALE, "my_scale");
  ASSERT_NE(fn, nullptr) << dlerror();
  ASSERT_TRUE(plugin_->RegisterCustomCall("my_scale", fn, 1).ok());
  LogSink sink;
  auto client = NewClient(&sink);
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, UnaryProgram("y", "my_scale", "{scale = 2.5 : f32}"),
                 {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({2.5f, 5, 7.5f, 10}));
  {
    std::lock_guard<std::mutex> lock(sink.mu);
    EXPECT_THAT(sink.lines, ElementsAre(Pair(PLX_LogSeverity_INFO,
                                             "custom-call y: scaled")));
  }
  // No scale: INVALID_ARGUMENT with its message.
  out = Run(*client, UnaryProgram("y", "my_scale", "{}"), {Input()});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(out.status().message(),
              HasSubstr("my_scale: want one f32 array and scale != 0"));
}

// A typed call in a loop body: compiled once, called each iteration.
TEST_P(CallFrameTest, ATypedCallInsideAWhileBodyRunsEachIteration) {
  void* fn = TargetIn(PLEXA_EXAMPLE_TYPED_SCALE, "my_scale");
  ASSERT_NE(fn, nullptr) << dlerror();
  ASSERT_TRUE(plugin_->RegisterCustomCall("my_scale", fn, 1).ok());
  const std::string program = R"(HloModule loop

body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[4] custom-call(x), custom_call_target="my_scale", api_version=API_VERSION_TYPED_FFI, backend_config={scale = 2.0 : f32}
  ROOT t = (s32[], f32[4]) tuple(j, y)
}

cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";
  LogSink sink;
  auto client = NewClient(&sink);
  ASSERT_NE(client, nullptr);
  auto out = Run(*client, program, {Input()});
  ASSERT_TRUE(out.ok()) << out.status();
  // Three iterations of x * 2: x * 8.
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({8, 16, 24, 32}));
  std::lock_guard<std::mutex> lock(sink.mu);
  ASSERT_EQ(sink.lines.size(), 3u);
  for (const auto& line : sink.lines) {
    EXPECT_THAT(line.second, HasSubstr(": scaled"));
  }
}

// ---- The logger extension itself ----

TEST_P(CallFrameTest, ALoggerWithoutACallbackIsRefused) {
  LogSink sink;
  sink.extension.callback = nullptr;
  auto client = plugin_->CreateClient({}, sink.chain());
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(),
              HasSubstr("PLX_LoggerExtension.callback is NULL"));
}

PLEXA_INSTANTIATE_ON_PLUGINS(CallFrameTest);

}  // namespace
}  // namespace plexa::host
