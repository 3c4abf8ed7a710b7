// The replica rendezvous: the replicas of one execution (one thread each)
// meet here for collectives such as all-reduce.
#ifndef PLEXA_PLUGINS_COMMON_REPLICA_HUB_H_
#define PLEXA_PLUGINS_COMMON_REPLICA_HUB_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace plexa::backend {

class ReplicaHub {
 public:
  explicit ReplicaHub(int64_t replica_count);
  ~ReplicaHub();
  // Every replica calls this with its leaf pointers, in the same program
  // order; returns every replica's pointers once all have arrived (index
  // = replica id). Then each replica reads what it needs and calls Leave;
  // the pointers stay valid until every replica has left. Cancel releases
  // every waiting replica with an error (a replica failed).
  absl::StatusOr<std::vector<std::vector<const void*>>> Arrive(
      int64_t replica, std::vector<const void*> leaves);
  absl::Status Leave();
  void Cancel(const absl::Status& status);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REPLICA_HUB_H_
