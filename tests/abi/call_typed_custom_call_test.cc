// sdk::CallTypedCustomCall on its own (abi/sdk/custom_call.h), for what the
// in-tree host-memory plugins cannot show through the ABI: a device frame
// (a stream, as the vulkan plugin passes) and its scratch, a tiled layout's
// text, the scratch limit, error codes out of range, an unknown severity,
// and the API called with a frame that is not the running call's.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::sdk {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The log of a CallFrameContext, by severity and line.
struct Lines {
  std::vector<std::pair<int, std::string>> lines;
  static void Callback(void* user_data, PLX_LogSeverity severity,
                       const char* message) {
    static_cast<Lines*>(user_data)->lines.emplace_back(severity, message);
  }
};

// What the targets below saw or got; they run on the test's thread.
struct Seen {
  std::string platform;
  void* stream = nullptr;
  std::string arg_layout;  // copied: the frame's text lives during the call
  std::vector<int64_t> arg_minor_to_major;
  void* scratch[3] = {nullptr, nullptr, nullptr};
  int32_t error_code = 0;
  PLX_CallFrame* frame = nullptr;  // the frame of the last call
  const PLX_CallFrameApi* api = nullptr;
};
Seen g_seen;

int32_t Observe(PLX_CallFrame* f) {
  g_seen.platform = f->platform;
  g_seen.stream = f->stream;
  g_seen.arg_layout =
      f->arg_shapes[0].layout != nullptr ? f->arg_shapes[0].layout : "NULL";
  g_seen.arg_minor_to_major.assign(
      f->arg_shapes[0].minor_to_major,
      f->arg_shapes[0].minor_to_major + f->arg_shapes[0].num_dims);
  g_seen.scratch[0] = f->api->allocate_scratch(f, 64, 128);
  g_seen.scratch[1] = f->api->allocate_scratch(f, 60, 8);
  g_seen.scratch[2] = f->api->allocate_scratch(f, 100, 8);
  f->api->log(f, static_cast<PLX_LogSeverity>(9), "odd severity");
  g_seen.frame = f;
  g_seen.api = f->api;
  return 0;
}

int32_t FailWithCode(PLX_CallFrame* f) {
  f->error_code = g_seen.error_code;
  f->error_message = "it went wrong";
  return 7;
}

// A TypedCustomCall for the root of `hlo` calling `fn`.
std::shared_ptr<const TypedCustomCall> MakeCall(const std::string& hlo,
                                                void* fn,
                                                const std::string& platform) {
  auto module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return nullptr;
  CustomCallTarget target;
  target.function = fn;
  target.api_version = 1;
  auto call = TypedCustomCall::Create(
      *(*module)->entry_computation()->root_instruction(), target, platform);
  EXPECT_TRUE(call.ok()) << call.status();
  return call.ok() ? *call : nullptr;
}

constexpr char kProgram[] = R"(HloModule m

ENTRY main {
  x = f32[4,4]{1,0:T(2,2)} parameter(0)
  ROOT c = f32[4,4] custom-call(x), custom_call_target="observe"
}
)";

TEST(CallTypedCustomCallTest, ADeviceFrameGetsItsPluginsScratch) {
  auto call = MakeCall(kProgram, reinterpret_cast<void*>(&Observe), "vulkan");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->attributes->attributes().size(), 0u);  // not the typed FFI
  absl::StatusOr<Shape> in = ParseShape("f32[4,4]{1,0:T(2,2)}");
  absl::StatusOr<Shape> out = ParseShape("f32[4,4]");
  ASSERT_TRUE(in.ok() && out.ok());
  // Device addresses are opaque to the SDK: any values do.
  CallFrameArray arg{reinterpret_cast<void*>(0x1000), &*in};
  CallFrameArray result{reinterpret_cast<void*>(0x2000), &*out};
  Lines log;
  CallFrameContext context(&Lines::Callback, &log, /*scratch_limit_bytes=*/150);
  int command_buffer = 0;
  alignas(128) static uint8_t device_memory[128];
  std::vector<std::pair<size_t, size_t>> asked;
  DeviceScratch scratch = [&](size_t bytes, size_t alignment,
                              std::string* why) -> void* {
    asked.emplace_back(bytes, alignment);
    if (asked.size() > 1) {
      *why = "the pool is empty";
      return nullptr;
    }
    return device_memory;
  };
  ASSERT_TRUE(CallTypedCustomCall(*call, {arg}, {result}, &context,
                                  &command_buffer, &scratch)
                  .ok());
  EXPECT_EQ(g_seen.platform, "vulkan");
  EXPECT_EQ(g_seen.stream, &command_buffer);
  EXPECT_EQ(g_seen.arg_layout, "{1,0:T(2,2)}");
  EXPECT_THAT(g_seen.arg_minor_to_major, ElementsAre(1, 0));
  // 64 bytes from the plugin; 60 more are within the limit of 150 but the
  // pool says no (nothing taken); 100 more would pass it: 150 - 64 = 86
  // are left.
  EXPECT_EQ(g_seen.scratch[0], device_memory);
  EXPECT_EQ(g_seen.scratch[1], nullptr);
  EXPECT_EQ(g_seen.scratch[2], nullptr);
  EXPECT_THAT(asked,
              ElementsAre(std::make_pair(64, 128), std::make_pair(60, 8)));
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[0].second,
            "custom-call c: allocate_scratch: 60 bytes of device memory: the "
            "pool is empty");
  EXPECT_EQ(log.lines[1].second,
            "custom-call c: allocate_scratch: 100 bytes is more than the 86 "
            "left of this call's scratch limit (150 bytes: the client's "
            "memory limit)");
  EXPECT_EQ(log.lines[2].first, PLX_LogSeverity_ERROR);
  EXPECT_EQ(log.lines[2].second,
            "custom-call c: (log severity 9 is not a PLX_LogSeverity; logged "
            "as ERROR) odd severity");
}

TEST(CallTypedCustomCallTest, ADeviceFrameWithoutDeviceScratchGetsNone) {
  auto call = MakeCall(kProgram, reinterpret_cast<void*>(&Observe), "vulkan");
  ASSERT_NE(call, nullptr);
  absl::StatusOr<Shape> shape = ParseShape("f32[4,4]");
  ASSERT_TRUE(shape.ok());
  CallFrameArray arg{reinterpret_cast<void*>(0x1000), &*shape};
  Lines log;
  CallFrameContext context(&Lines::Callback, &log, 1 << 20);
  int command_buffer = 0;
  ASSERT_TRUE(
      CallTypedCustomCall(*call, {arg}, {arg}, &context, &command_buffer).ok());
  EXPECT_EQ(g_seen.scratch[0], nullptr);
  EXPECT_EQ(g_seen.arg_layout, "NULL");  // a plain dimension order
  ASSERT_GE(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0].second,
            "custom-call c: allocate_scratch: vulkan passes device buffers "
            "and gives no device scratch memory");
}

TEST(CallTypedCustomCallTest, TheApiRefusesAFrameThatIsNotRunning) {
  auto call = MakeCall(kProgram, reinterpret_cast<void*>(&Observe), "cpu");
  ASSERT_NE(call, nullptr);
  absl::StatusOr<Shape> shape = ParseShape("f32[4,4]");
  ASSERT_TRUE(shape.ok());
  std::vector<float> in(16), out(16);
  Lines log;
  CallFrameContext context(&Lines::Callback, &log, 1 << 20);
  ASSERT_TRUE(CallTypedCustomCall(*call, {{in.data(), &*shape}},
                                  {{out.data(), &*shape}}, &context)
                  .ok());
  // Host scratch: aligned as asked, while the call ran.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g_seen.scratch[0]) % 128, 0u);
  EXPECT_NE(g_seen.scratch[1], nullptr);
  // After the call its frame is gone: the API says so on stderr and gives
  // nothing (no crash, nothing in the client's log). The frame pointer is
  // only compared, never read.
  const size_t before = log.lines.size();
  ::testing::internal::CaptureStderr();
  g_seen.api->log(g_seen.frame, PLX_LogSeverity_INFO, "too late");
  void* late = g_seen.api->allocate_scratch(nullptr, 8, 8);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(late, nullptr);
  EXPECT_THAT(err, HasSubstr("PLX_CallFrameApi.log: frame "));
  EXPECT_THAT(err, HasSubstr("PLX_CallFrameApi.allocate_scratch: frame 0 is "
                             "not the frame of a custom call running on this "
                             "thread"));
  EXPECT_EQ(log.lines.size(), before);
}

TEST(CallTypedCustomCallTest, ErrorCodesOutOfRangeAreInternal) {
  auto call = MakeCall(kProgram, reinterpret_cast<void*>(&FailWithCode), "cpu");
  ASSERT_NE(call, nullptr);
  absl::StatusOr<Shape> shape = ParseShape("f32[4,4]");
  ASSERT_TRUE(shape.ok());
  std::vector<float> in(16), out(16);
  const std::pair<int32_t, absl::StatusCode> cases[] = {
      {PLX_Error_Code_NOT_FOUND, absl::StatusCode::kNotFound},
      {PLX_Error_Code_UNAUTHENTICATED, absl::StatusCode::kUnauthenticated},
      {0, absl::StatusCode::kInternal},
      {17, absl::StatusCode::kInternal},
      {-3, absl::StatusCode::kInternal},
  };
  for (const auto& [code, want] : cases) {
    g_seen.error_code = code;
    absl::Status s = CallTypedCustomCall(*call, {{in.data(), &*shape}},
                                         {{out.data(), &*shape}}, nullptr);
    EXPECT_EQ(s.code(), want) << code;
    EXPECT_EQ(s.message(),
              "custom-call c (target 'observe' on cpu) returned 7: it went "
              "wrong");
  }
}

}  // namespace
}  // namespace plexa::sdk
