// all-reduce across the replicas of one execution (ReplicaHub: the
// rendezvous of core/runtime, keyed and grouped as in the evaluator), with a
// reducer matched to add, multiply, maximum, minimum, and, or
// (reducer.h) and applied with reduction_ops.h, on host memory: f32, f64,
// integers and pred.
#ifndef PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/opcode.h"
#include "core/shape/shape.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

class AllReduceThunk : public Thunk {
 public:
  // inputs: the operands' leaves; outputs: the result's leaves. `groups`
  // are the replica groups (empty: every replica). `name` (the
  // instruction's) keys the meetings at the hub.
  AllReduceThunk(std::string name, HloOpcode reducer, std::vector<Shape> shapes,
                 std::vector<std::vector<int64_t>> groups)
      : name_(std::move(name)),
        reducer_(reducer),
        shapes_(std::move(shapes)),
        groups_(std::move(groups)) {}

  absl::Status Run(Frame& f) const override;

 private:
  template <typename T>
  static T Apply(HloOpcode op, T a, T b);
  template <typename T>
  void ReduceTyped(int64_t n, const std::vector<const void*>& src,
                   void* dst) const;
  void Reduce(const Shape& s, const std::vector<const void*>& src,
              void* dst) const;

  std::string name_;
  HloOpcode reducer_;
  std::vector<Shape> shapes_;
  std::vector<std::vector<int64_t>> groups_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_
