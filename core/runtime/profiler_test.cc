// The profile recorder and its Chrome trace; expected text written by hand.
#include "core/runtime/profiler.h"

#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::HasSubstr;

TEST(ProfilerTest, RecordingProfilerCopiesTheStrings) {
  RecordingProfiler p;
  {
    std::string name = "fusion.3", kind = "fusion";
    ProfileEvent e;
    e.name = name;
    e.kind = kind;
    e.replica = 1;
    e.thread_id = 42;
    e.begin_ns = 1000;
    e.end_ns = 2500;
    p.Record(e);
    name = "overwritten";
  }
  ASSERT_EQ(p.events().size(), 1u);
  EXPECT_EQ(p.events()[0].name, "fusion.3");
  EXPECT_EQ(p.events()[0].kind, "fusion");
  EXPECT_EQ(p.events()[0].replica, 1);
  EXPECT_EQ(p.events()[0].end_ns - p.events()[0].begin_ns, 1500);
}

TEST(ProfilerTest, ChromeTraceHasOneCompleteEventPerStep) {
  std::vector<RecordingProfiler::Event> events = {
      {"dot.1", "dot", 0, 7, 5000, 7500},
      {"a \"quoted\"\nname", "fusion", 1, 8, 4000, 4250},
  };
  const std::string json = ChromeTraceJson(events, "plexa run m");
  // Times in microseconds from the earliest begin (4000 ns).
  EXPECT_THAT(json, HasSubstr("{\"name\":\"dot.1\",\"cat\":\"dot\",\"ph\":"
                              "\"X\",\"pid\":1,\"tid\":7,\"ts\":1.000,"
                              "\"dur\":2.500,\"args\":{\"replica\":0}}"));
  EXPECT_THAT(json, HasSubstr("\"name\":\"a \\\"quoted\\\"\\nname\""));
  EXPECT_THAT(json, HasSubstr("\"ts\":0.000,\"dur\":0.250"));
  EXPECT_THAT(json, HasSubstr("\"args\":{\"name\":\"plexa run m\"}"));
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 3), "]}\n");
}

TEST(ProfilerTest, MonotonicClockAndThreadIds) {
  const int64_t a = MonotonicNanos();
  const int64_t b = MonotonicNanos();
  EXPECT_LE(a, b);
  uint64_t other = 0;
  std::thread t([&] { other = CurrentThreadId(); });
  t.join();
  EXPECT_NE(CurrentThreadId(), 0u);
  EXPECT_NE(other, CurrentThreadId());
}

}  // namespace
}  // namespace plexa
