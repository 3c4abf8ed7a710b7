#include "core/runtime/profiler.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace plexa {

int64_t MonotonicNanos() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

uint64_t CurrentThreadId() {
  return static_cast<uint64_t>(syscall(SYS_gettid));
}

void RecordingProfiler::Record(const ProfileEvent& e) {
  Event copy{std::string(e.name), std::string(e.kind), e.replica,
             e.thread_id,         e.begin_ns,          e.end_ns};
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(copy));
}

std::vector<RecordingProfiler::Event> RecordingProfiler::events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

namespace {

// A JSON string literal.
std::string JsonString(absl::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string ChromeTraceJson(const std::vector<RecordingProfiler::Event>& events,
                            absl::string_view process_name) {
  int64_t origin = 0;
  if (!events.empty()) {
    origin = std::min_element(events.begin(), events.end(),
                              [](const auto& a, const auto& b) {
                                return a.begin_ns < b.begin_ns;
                              })
                 ->begin_ns;
  }
  std::string out = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  absl::StrAppend(&out,
                  "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
                  "\"args\":{\"name\":",
                  JsonString(process_name), "}}");
  for (const RecordingProfiler::Event& e : events) {
    absl::StrAppendFormat(
        &out,
        ",\n{\"name\":%s,\"cat\":%s,\"ph\":\"X\",\"pid\":1,\"tid\":%u,"
        "\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"replica\":%d}}",
        JsonString(e.name), JsonString(e.kind), e.thread_id,
        (e.begin_ns - origin) / 1e3,
        std::max<int64_t>(0, e.end_ns - e.begin_ns) / 1e3, e.replica);
  }
  out += "\n]}\n";
  return out;
}

}  // namespace plexa
