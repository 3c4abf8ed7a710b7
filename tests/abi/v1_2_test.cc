// ABI 1.2: execution profiles (PLX_ProfilerExtension), executable
// statistics (PLX_Executable_Statistics) and the element types 1.2 added,
// on every in-tree plugin. A plugin with PLX_CAPABILITY_PROFILER
// reports each step with its instruction, kind, replica, thread and
// monotonic times; one without it runs the program unprofiled. The
// extension's misuse is an error on every plugin.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/literal/literal.h"
#include "core/runtime/profiler.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A loop of three iterations around a fusable body, then a dot:
//   i = 0; x = p; while (i < 3) { x = x * 2 + 1; i += 1 }; out = dot(x, x)
constexpr char kLoop[] = R"(HloModule profiled
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  f1 = f32[] constant(1)
  ones = f32[4] broadcast(f1), dimensions={}
  doubled = f32[4] multiply(x, twos)
  next_x = f32[4] add(doubled, ones)
  ROOT t = (s32[], f32[4]) tuple(next_i, next_x)
}
ENTRY main {
  p = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  x = f32[4] get-tuple-element(loop), index=1
  ROOT d = f32[] dot(x, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}
)";

class ProfilerTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(GetParam());
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    auto client =
        plugin_->CreateClient({{"num_devices", PLX_Value_INT64, "", 2}});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  // Runs kLoop on `replicas` replicas with x = [0, 1, 2, 3] and checks the
  // answer: x becomes 8x + 7 = [7, 15, 23, 31], and the dot is
  // 49 + 225 + 529 + 961 = 1764.
  void RunLoop(int64_t replicas, Profiler* profiler) {
    CompileOptions options;
    options.num_replicas = replicas;
    auto exe = client_->Compile(kLoop, "hlo-text", options);
    ASSERT_TRUE(exe.ok()) << exe.status();
    std::vector<std::unique_ptr<Buffer>> owned;
    std::vector<std::vector<Buffer*>> args(replicas);
    for (int64_t r = 0; r < replicas; ++r) {
      auto b = client_->BufferFromLiteral(
          Literal::CreateR1<float>({0.0f, 1.0f, 2.0f, 3.0f}), r);
      ASSERT_TRUE(b.ok()) << b.status();
      args[r].push_back(b->get());
      owned.push_back(std::move(*b));
    }
    auto out = (*exe)->Execute(args, {}, nullptr, profiler);
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t r = 0; r < replicas; ++r) {
      auto lit = (*out)[r][0]->ToLiteral();
      ASSERT_TRUE(lit.ok()) << lit.status();
      EXPECT_EQ(lit->Get<float>({}), 1764.0f) << "replica " << r;
    }
  }

  std::shared_ptr<Plugin> plugin_;
  std::unique_ptr<Client> client_;
};

TEST_P(ProfilerTest, EveryStepIsReportedInsideItsLoop) {
  RecordingProfiler profiler;
  const int64_t before = MonotonicNanos();
  RunLoop(1, &profiler);
  const int64_t after = MonotonicNanos();
  const std::vector<RecordingProfiler::Event> events = profiler.events();
  if (!plugin_->HasCapability(PLX_CAPABILITY_PROFILER)) {
    EXPECT_TRUE(events.empty())
        << "no capability, yet " << events.size() << " events";
    return;
  }
  ASSERT_FALSE(events.empty());
  const RecordingProfiler::Event* loop = nullptr;
  int64_t body_steps = 0;
  for (const auto& e : events) {
    EXPECT_LE(before, e.begin_ns) << e.name;
    EXPECT_LE(e.begin_ns, e.end_ns) << e.name;
    EXPECT_LE(e.end_ns, after) << e.name;
    EXPECT_EQ(e.replica, 0) << e.name;
    EXPECT_NE(e.thread_id, 0u) << e.name;
    EXPECT_FALSE(e.kind.empty()) << e.name;
    if (e.name == "loop") loop = &e;
  }
  ASSERT_NE(loop, nullptr) << "no event for the while instruction";
  EXPECT_EQ(loop->kind, "while");
  // The body's steps ran three times, inside the loop's span.
  for (const auto& e : events) {
    if (&e == loop || e.begin_ns < loop->begin_ns || e.end_ns > loop->end_ns) {
      continue;
    }
    ++body_steps;
  }
  EXPECT_GE(body_steps, 3) << "the loop body's steps are reported too";
  const bool has_dot = std::any_of(events.begin(), events.end(),
                                   [](const auto& e) { return e.name == "d"; });
  EXPECT_TRUE(has_dot) << "the dot after the loop";
}

TEST_P(ProfilerTest, EachReplicaReportsItsOwnSteps) {
  if (!plugin_->HasCapability(PLX_CAPABILITY_PROFILER) ||
      !plugin_->HasCapability(PLX_CAPABILITY_REPLICAS)) {
    GTEST_SKIP() << "the plugin does not profile replicas";
  }
  RecordingProfiler profiler;
  RunLoop(2, &profiler);
  int64_t per_replica[2] = {0, 0};
  for (const auto& e : profiler.events()) {
    ASSERT_GE(e.replica, 0);
    ASSERT_LT(e.replica, 2);
    ++per_replica[e.replica];
  }
  EXPECT_GT(per_replica[0], 0);
  EXPECT_EQ(per_replica[0], per_replica[1]);
}

TEST_P(ProfilerTest, StatisticsDescribeTheExecutable) {
  CompileOptions options;
  auto exe = client_->Compile(kLoop, "hlo-text", options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto stats = (*exe)->GetStatistics();
  ASSERT_TRUE(stats.ok()) << stats.status();
  // f32[4] in, f32[] out: known to every plugin from the signature.
  EXPECT_EQ(stats->argument_bytes, 16);
  EXPECT_EQ(stats->output_bytes, 4);
  if (stats->fingerprint.empty()) {
    // A plugin that knows no more says so.
    EXPECT_EQ(stats->flops, -1);
    return;
  }
  EXPECT_EQ(stats->fingerprint.size(), 16u);
  EXPECT_EQ(stats->fingerprint.find_first_not_of("0123456789abcdef"),
            std::string::npos);
  // At least the dot's 2 * 4 and the body's multiply and add over 4.
  EXPECT_GE(stats->flops, 16);
  EXPECT_GE(stats->bytes_accessed, 20);
  EXPECT_GE(stats->temp_bytes, 0);
  EXPECT_GE(stats->generated_code_bytes, 0);
  // The same program compiled again (another client: no cache) has the same
  // fingerprint; another program another one.
  auto other_client = plugin_->CreateClient();
  ASSERT_TRUE(other_client.ok()) << other_client.status();
  auto again = (*other_client)->Compile(kLoop, "hlo-text", options);
  ASSERT_TRUE(again.ok()) << again.status();
  auto again_stats = (*again)->GetStatistics();
  ASSERT_TRUE(again_stats.ok()) << again_stats.status();
  EXPECT_EQ(again_stats->fingerprint, stats->fingerprint);
  std::string four_times = kLoop;
  four_times.replace(four_times.find("constant(3)"), 11, "constant(4)");
  auto different = (*other_client)->Compile(four_times, "hlo-text", options);
  ASSERT_TRUE(different.ok()) << different.status();
  auto different_stats = (*different)->GetStatistics();
  ASSERT_TRUE(different_stats.ok()) << different_stats.status();
  EXPECT_NE(different_stats->fingerprint, stats->fingerprint);
}

// ---- Through the raw C table -------------------------------------------

// A client of a plugin driven through its C table, as a C host would.
class RawSession {
 public:
  explicit RawSession(const PLX_Api* api) : api_(api) {
    auto a = PLX_TEST_ARGS(PLX_Client_Create_Args);
    error_ = Message(api_->PLX_Client_Create(&a));
    client_ = a.client;
  }
  ~RawSession() {
    auto a = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
    a.client = client_;
    if (client_ != nullptr) Message(api_->PLX_Client_Destroy(&a));
  }
  bool ok() const { return client_ != nullptr; }
  const std::string& error() const { return error_; }

  // "" on success, else "CODE: message".
  std::string Message(PLX_Error* e) {
    if (e == nullptr) return "";
    abi_test::ErrorInfo info = abi_test::TakeError(api_, e);
    return absl::StrCat(
        absl::StatusCodeToString(static_cast<absl::StatusCode>(info.code)),
        ": ", info.message);
  }

  // Uploads f32[2] (or two elements of `type`: 2 bytes for the 8-bit
  // types, `data_size` bytes (default 1, the packed size) for the packed
  // ones) and returns the error, "" if none.
  std::string UploadOfType(PLX_Type type, PLX_Buffer** out = nullptr,
                           size_t data_size = 0) {
    const int64_t dims[] = {2};
    const float data[] = {1.0f, 2.0f};
    PLX_ArrayShape shape{};
    shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
    shape.element_type = type;
    shape.dims = dims;
    shape.num_dims = 1;
    auto a = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    a.client = client_;
    a.data = data;
    a.data_size = type == PLX_Type_F32 ? sizeof(data)
                  : data_size > 0      ? data_size
                  : IsPacked(type)     ? 1
                                       : 2;
    a.shape = &shape;
    std::string error = Message(api_->PLX_Client_BufferFromHost(&a));
    if (out != nullptr) {
      *out = a.buffer;
    } else if (a.buffer != nullptr) {
      auto d = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
      d.buffer = a.buffer;
      Message(api_->PLX_Buffer_Destroy(&d));
    }
    return error;
  }

  static bool IsPacked(PLX_Type t) {
    return t == PLX_Type_S4 || t == PLX_Type_U4 || t == PLX_Type_S2 ||
           t == PLX_Type_U2 || t == PLX_Type_F4E2M1FN;
  }

  // Runs `program` (one parameter, one result of `type`[n]) on the packed
  // bytes `in`; the result's packed bytes, or the error.
  absl::StatusOr<std::vector<uint8_t>> RunPacked(const char* program,
                                                 PLX_Type type, int64_t n,
                                                 std::vector<uint8_t> in) {
    auto c = PLX_TEST_ARGS(PLX_Client_Compile_Args);
    c.client = client_;
    c.program = program;
    c.program_size = std::strlen(program);
    c.format = "hlo-text";
    if (std::string e = Message(api_->PLX_Client_Compile(&c)); !e.empty()) {
      return absl::InternalError(e);
    }
    PLX_ArrayShape shape{};
    shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
    shape.element_type = type;
    shape.dims = &n;
    shape.num_dims = 1;
    auto a = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    a.client = client_;
    a.data = in.data();
    a.data_size = in.size();
    a.shape = &shape;
    std::string error = Message(api_->PLX_Client_BufferFromHost(&a));
    PLX_Buffer* out = nullptr;
    std::vector<uint8_t> result;
    if (error.empty()) {
      PLX_Buffer* const* in_ptr = &a.buffer;
      PLX_Buffer** out_ptr = &out;
      auto x = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
      x.executable = c.executable;
      x.num_replicas = 1;
      x.arguments = &in_ptr;
      x.num_arguments = 1;
      x.outputs = &out_ptr;
      x.num_outputs = 1;
      error = Message(api_->PLX_Executable_Execute(&x));
    }
    if (error.empty()) {
      auto size = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
      size.buffer = out;
      error = Message(api_->PLX_Buffer_ToHost(&size));  // dst NULL: the size
      result.assign(size.dst_size, 0xee);
      if (error.empty()) {
        auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
        t.buffer = out;
        t.dst = result.data();
        t.dst_size = result.size();
        error = Message(api_->PLX_Buffer_ToHost(&t));
      }
    }
    for (PLX_Buffer* b : {a.buffer, out}) {
      if (b == nullptr) continue;
      auto d = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
      d.buffer = b;
      Message(api_->PLX_Buffer_Destroy(&d));
    }
    auto d = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
    d.executable = c.executable;
    Message(api_->PLX_Executable_Destroy(&d));
    if (!error.empty()) return absl::InternalError(error);
    return result;
  }

  // Compiles and runs add(x, x) on f32[2] with `chain` on the Execute call.
  std::string ExecuteAdd(PLX_Extension* chain) {
    static constexpr char kAdd[] =
        "HloModule add\nENTRY main {\n  x = f32[2] parameter(0)\n"
        "  ROOT y = f32[2] add(x, x)\n}\n";
    auto c = PLX_TEST_ARGS(PLX_Client_Compile_Args);
    c.client = client_;
    c.program = kAdd;
    c.program_size = std::strlen(kAdd);
    c.format = "hlo-text";
    if (std::string e = Message(api_->PLX_Client_Compile(&c)); !e.empty()) {
      return e;
    }
    PLX_Buffer* in = nullptr;
    std::string error = UploadOfType(PLX_Type_F32, &in);
    PLX_Buffer* out = nullptr;
    if (error.empty()) {
      PLX_Buffer* const* in_ptr = &in;
      PLX_Buffer** out_ptr = &out;
      auto x = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
      x.extension_start = chain;
      x.executable = c.executable;
      x.num_replicas = 1;
      x.arguments = &in_ptr;
      x.num_arguments = 1;
      x.outputs = &out_ptr;
      x.num_outputs = 1;
      error = Message(api_->PLX_Executable_Execute(&x));
    }
    for (PLX_Buffer* b : {in, out}) {
      if (b == nullptr) continue;
      auto d = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
      d.buffer = b;
      Message(api_->PLX_Buffer_Destroy(&d));
    }
    auto d = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
    d.executable = c.executable;
    Message(api_->PLX_Executable_Destroy(&d));
    return error;
  }

 private:
  const PLX_Api* api_;
  PLX_Client* client_ = nullptr;
  std::string error_;
};

class RawProfilerTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    api_ = abi_test::LoadRawApi(GetParam());
    ASSERT_NE(api_, nullptr);
  }
  const PLX_Api* api_ = nullptr;
};

void CountEvent(void* user_data, const PLX_ProfileEvent* event) {
  if (event != nullptr && event->struct_size >= PLX_ProfileEvent_STRUCT_SIZE) {
    ++*static_cast<int*>(user_data);
  }
}

std::string ExecuteWith(const PLX_Api* api, PLX_Extension* chain) {
  RawSession s(api);
  if (!s.ok()) return "session: " + s.error();
  return s.ExecuteAdd(chain);
}

TEST_P(RawProfilerTest, ANullCallbackIsAnError) {
  PLX_ProfilerExtension ext{};
  ext.struct_size = PLX_ProfilerExtension_STRUCT_SIZE;
  ext.type = PLX_ExtensionType_PROFILER;
  ext.callback = nullptr;
  EXPECT_THAT(ExecuteWith(api_, reinterpret_cast<PLX_Extension*>(&ext)),
              HasSubstr("PLX_ProfilerExtension.callback is NULL"));
}

TEST_P(RawProfilerTest, AShortStructIsAnError) {
  PLX_ProfilerExtension ext{};
  ext.struct_size = PLX_ProfilerExtension_STRUCT_SIZE - 1;
  ext.type = PLX_ExtensionType_PROFILER;
  int count = 0;
  ext.user_data = &count;
  ext.callback = CountEvent;
  EXPECT_THAT(ExecuteWith(api_, reinterpret_cast<PLX_Extension*>(&ext)),
              HasSubstr("PLX_ProfilerExtension struct_size"));
}

TEST_P(RawProfilerTest, AVendorExtensionIsIgnored) {
  // A type in the vendor range that this plugin does not know.
  PLX_Extension vendor{};
  vendor.struct_size = sizeof(PLX_Extension);
  vendor.type = PLX_ExtensionType_VENDOR_FIRST + 5;
  PLX_ProfilerExtension ext{};
  ext.struct_size = PLX_ProfilerExtension_STRUCT_SIZE;
  ext.type = PLX_ExtensionType_PROFILER;
  int count = 0;
  ext.user_data = &count;
  ext.callback = CountEvent;
  ext.next = &vendor;
  EXPECT_EQ(ExecuteWith(api_, reinterpret_cast<PLX_Extension*>(&ext)), "");
  PLX_Plugin_Attributes_Args attrs{};
  attrs.struct_size = PLX_Plugin_Attributes_Args_STRUCT_SIZE;
  ASSERT_EQ(api_->PLX_Plugin_Attributes(&attrs), nullptr);
  if (attrs.capabilities & PLX_CAPABILITY_PROFILER) {
    EXPECT_GT(count, 0);
  } else {
    EXPECT_EQ(count, 0);
  }
}

TEST_P(RawProfilerTest, ElementTypesOf1_2CrossTheAbi) {
  // The 8-bit types are one byte an element, as the header says; the
  // packed sub-byte types take ceil(n * bits / 8) bytes: two elements are
  // one byte, and two bytes are refused naming the packed size.
  for (int t = PLX_Type_S4; t <= PLX_Type_F8E8M0FNU; ++t) {
    RawSession s(api_);
    ASSERT_TRUE(s.ok()) << s.error();
    const PLX_Type type = static_cast<PLX_Type>(t);
    EXPECT_EQ(s.UploadOfType(type), "") << t;
    if (!RawSession::IsPacked(type)) continue;
    const std::string error = s.UploadOfType(type, nullptr, 2);
    EXPECT_THAT(error, HasSubstr("INVALID_ARGUMENT")) << error;
    EXPECT_THAT(error, HasSubstr("packs into 1")) << error;
  }
  RawSession s(api_);
  ASSERT_TRUE(s.ok()) << s.error();
  const std::string error = s.UploadOfType(static_cast<PLX_Type>(99));
  EXPECT_THAT(error, HasSubstr("invalid element type 99"));
  EXPECT_THAT(error, HasSubstr("INVALID_ARGUMENT")) << error;
}

TEST_P(RawProfilerTest, PackedSubByteBuffersRunThroughAProgram) {
  // The header's packing, by hand: element i in bits (i % per_byte) * bits
  // of byte i / per_byte, from the least significant end.
  RawSession s(api_);
  ASSERT_TRUE(s.ok()) << s.error();
  // s4 {-3, 5, 7}: nibbles 0xD, 0x5, 0x7 -> bytes 0x5D, 0x07. Negated:
  // {3, -5, -7}: 0x3, 0xB, 0x9 -> 0xB3, 0x09.
  auto s4 = s.RunPacked(
      "HloModule n\nENTRY e {\n  x = s4[3] parameter(0)\n"
      "  ROOT y = s4[3] negate(x)\n}\n",
      PLX_Type_S4, 3, {0x5D, 0x07});
  ASSERT_TRUE(s4.ok()) << s4.status();
  EXPECT_THAT(*s4, ElementsAre(0xB3, 0x09));
  // u2 {1, 2, 3, 0, 2}: bytes 0b00111001 = 0x39, 0x02. Plus one (u2
  // wraps): {2, 3, 0, 1, 3} -> 0b01001110 = 0x4E, 0x03.
  auto u2 = s.RunPacked(
      "HloModule n\nENTRY e {\n  x = u2[5] parameter(0)\n"
      "  one = u2[] constant(1)\n  b = u2[5] broadcast(one), "
      "dimensions={}\n  ROOT y = u2[5] add(x, b)\n}\n",
      PLX_Type_U2, 5, {0x39, 0x02});
  ASSERT_TRUE(u2.ok()) << u2.status();
  EXPECT_THAT(*u2, ElementsAre(0x4E, 0x03));
}

PLEXA_INSTANTIATE_ON_PLUGINS(ProfilerTest);
PLEXA_INSTANTIATE_ON_PLUGINS(RawProfilerTest);

}  // namespace
}  // namespace plexa::host
