// Profiling an execution: what ran, where and when. An executor that is
// given a Profiler reports every step it times (the CPU plugin: every thunk,
// nested ones inside while/conditional/call too) with the instruction's
// name, a kind (its opcode) and begin/end times on the monotonic clock.
// The ABI carries it as PLX_ProfilerExtension (since 1.2); `plexa run
// --profile=FILE` writes the events as a Chrome trace (trace_writer.h).
#ifndef PLEXA_CORE_RUNTIME_PROFILER_H_
#define PLEXA_CORE_RUNTIME_PROFILER_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace plexa {

struct ProfileEvent {
  absl::string_view name;  // the instruction; valid during Record only
  absl::string_view kind;  // its opcode ("fusion", "dot", "while", ...)
  int64_t replica = 0;
  uint64_t thread_id = 0;  // the OS thread that ran the step
  int64_t begin_ns = 0;    // CLOCK_MONOTONIC nanoseconds
  int64_t end_ns = 0;
};

// Receives events, possibly from several threads at once (replicas run on
// their own threads): implementations synchronize.
class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual void Record(const ProfileEvent& event) = 0;
};

// CLOCK_MONOTONIC in nanoseconds: the time base of every ProfileEvent.
int64_t MonotonicNanos();
// The calling thread's OS id (gettid).
uint64_t CurrentThreadId();

// A Profiler that keeps every event (owning copies of the strings).
class RecordingProfiler : public Profiler {
 public:
  struct Event {
    std::string name, kind;
    int64_t replica = 0;
    uint64_t thread_id = 0;
    int64_t begin_ns = 0, end_ns = 0;
  };
  void Record(const ProfileEvent& event) override;
  std::vector<Event> events() const;

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

// The events as a Chrome trace-event JSON document (the format
// chrome://tracing and Perfetto open): one complete ("X") event per step,
// times in microseconds from the first event, one track per thread, the
// replica in args.
std::string ChromeTraceJson(const std::vector<RecordingProfiler::Event>& events,
                            absl::string_view process_name);

}  // namespace plexa

#endif  // PLEXA_CORE_RUNTIME_PROFILER_H_
