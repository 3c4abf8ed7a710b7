// The replica rendezvous: the replicas of one execution (one thread each)
// meet here for collectives. One implementation for every executor — the
// evaluator exchanges values (literals), a compiled backend exchanges the
// addresses of its buffers — with the same semantics everywhere:
//
// A meeting is named by a key (the instruction and how many times this
// replica has run it) and a group (replica ids, in order). Every member
// contributes a value; once all have, each gets every contribution in group
// order. A member that finished or failed without joining, or a state where
// every running replica waits in a different incomplete meeting (replicas
// that took different paths), releases the waiters with ABORTED instead of
// a hang. Executors call MarkDone for every participant when it finishes
// (that is what releases a member still waiting for it). Thread-safe;
// meetings may overlap (different groups at once).
#ifndef PLEXA_CORE_RUNTIME_RENDEZVOUS_H_
#define PLEXA_CORE_RUNTIME_RENDEZVOUS_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"

namespace plexa {

template <typename T>
class Rendezvous {
 public:
  explicit Rendezvous(int64_t participants)
      : participants_(participants),
        done_(participants, false),
        failed_(participants, false) {}
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  int64_t participants() const { return participants_; }

  // Participant `me` contributes `value` to the meeting `key` of `group`
  // (which must contain `me`); blocks until every member has contributed
  // and returns the contributions in group order (copies: each member gets
  // its own). `what` names the collective in errors.
  absl::StatusOr<std::vector<T>> Exchange(
      const std::string& key, absl::Span<const int64_t> group, int64_t me,
      T value, absl::string_view what = "all-reduce");

  // Participant `me` has finished (successfully or not): members waiting
  // for it are released with ABORTED.
  void MarkDone(int64_t me, bool failed) {
    std::lock_guard<std::mutex> lock(mu_);
    done_[me] = true;
    failed_[me] = failed;
    cv_.notify_all();
  }

 private:
  struct Meeting {
    std::vector<std::optional<T>> contributions;
    int64_t arrived = 0;
    int64_t departed = 0;
  };

  const int64_t participants_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Meeting> meetings_;
  std::vector<bool> done_;
  std::vector<bool> failed_;
  // Participants waiting in meetings that are not complete yet.
  int64_t blocked_ = 0;
};

template <typename T>
absl::StatusOr<std::vector<T>> Rendezvous<T>::Exchange(
    const std::string& key, absl::Span<const int64_t> group, int64_t me,
    T value, absl::string_view what) {
  const std::string full_key =
      absl::StrCat(key, "|", absl::StrJoin(group, ","));
  int64_t position = -1;
  for (size_t i = 0; i < group.size(); ++i) {
    if (group[i] == me) position = static_cast<int64_t>(i);
  }
  if (position < 0 || me < 0 || me >= participants_) {
    return absl::InternalError(absl::StrCat(what, ": replica ", me,
                                            " is not in its group [",
                                            absl::StrJoin(group, ","), "]"));
  }
  for (int64_t member : group) {
    if (member < 0 || member >= participants_) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the group names replica ", member, " but ",
                       participants_, " replica(s) run"));
    }
  }
  const int64_t size = static_cast<int64_t>(group.size());
  std::unique_lock<std::mutex> lock(mu_);
  Meeting& meeting = meetings_[full_key];
  if (meeting.contributions.empty()) meeting.contributions.resize(size);
  if (meeting.contributions[position].has_value()) {
    return absl::InternalError(
        absl::StrCat(what, ": replica ", me, " joined ", key, " twice"));
  }
  meeting.contributions[position] = std::move(value);
  ++meeting.arrived;
  if (meeting.arrived == size) {
    blocked_ -= size - 1;
  } else {
    ++blocked_;
  }
  cv_.notify_all();
  std::optional<absl::Status> abort;
  cv_.wait(lock, [&] {
    if (meeting.arrived == size) return true;
    for (int64_t i = 0; i < size; ++i) {
      if (!meeting.contributions[i].has_value() && done_[group[i]]) {
        abort = absl::AbortedError(
            absl::StrCat(what, ": replica ", group[i],
                         failed_[group[i]] ? " failed" : " finished",
                         " without joining the collective"));
        return true;
      }
    }
    int64_t done = 0;
    for (bool d : done_) done += d;
    if (blocked_ + done == participants_) {
      abort = absl::AbortedError(
          absl::StrCat(what,
                       ": deadlock, every running replica waits in a different "
                       "collective"));
      return true;
    }
    return false;
  });
  if (abort.has_value()) {
    --blocked_;
    cv_.notify_all();
    return *abort;
  }
  std::vector<T> all;
  all.reserve(size);
  for (const auto& c : meeting.contributions) all.push_back(*c);
  if (++meeting.departed == size) meetings_.erase(full_key);
  return all;
}

}  // namespace plexa

#endif  // PLEXA_CORE_RUNTIME_RENDEZVOUS_H_
