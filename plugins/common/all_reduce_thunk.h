// all-reduce and reduce-scatter across the replicas of one execution
// (CollectiveThunk: the rendezvous of core/runtime, keyed and grouped as in
// the evaluator), with a reducer matched to add, multiply, maximum, minimum,
// and, or (reducer.h) and applied with reduction_ops.h, on host memory: f32,
// f64, integers and pred.
#ifndef PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "core/ir/opcode.h"
#include "core/shape/shape.h"
#include "plugins/common/collective_thunk.h"

namespace plexa::backend {

// dst[j] = src[0][j] op src[1][j] op ... for j < n, folded in order; `op`
// one of add, multiply, maximum, minimum, and, or (and/or: integers and
// pred only).
void ReduceBuffers(HloOpcode op, PrimitiveType type, int64_t n,
                   const std::vector<const void*>& src, void* dst);

class AllReduceThunk : public CollectiveThunk {
 public:
  // inputs: the operands' leaves; outputs: the result's leaves. `groups`
  // are the replica groups (empty: every replica). `name` (the
  // instruction's) keys the meetings at the hub.
  AllReduceThunk(std::string name, HloOpcode reducer, std::vector<Shape> shapes,
                 std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        reducer_(reducer),
        shapes_(std::move(shapes)) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  HloOpcode reducer_;
  std::vector<Shape> shapes_;
};

// reduce-scatter along `dimension` of row-major operands: the all-reduce's
// result cut into group-size pieces along it, the member at position i of
// the group keeping piece i. `shapes` are the operands' leaves.
class ReduceScatterThunk : public CollectiveThunk {
 public:
  ReduceScatterThunk(std::string name, HloOpcode reducer,
                     std::vector<Shape> shapes, int64_t dimension,
                     std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        reducer_(reducer),
        shapes_(std::move(shapes)),
        dimension_(dimension) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;

  HloOpcode reducer_;
  std::vector<Shape> shapes_;
  int64_t dimension_;
};

// collective-reduce (XLA's, ncclReduce): the all-reduce's fold lands on
// each group's root only: rank 0, or with `dynamic_root` the rank the last
// input (an s32 vector, one per data leaf) names. The other members keep
// their own operand (XLA leaves them unspecified; the evaluator's choice).
class CollectiveReduceThunk : public CollectiveThunk {
 public:
  // inputs: the data leaves (`shapes`), then the roots when dynamic;
  // outputs: one leaf per data leaf.
  CollectiveReduceThunk(std::string name, HloOpcode reducer,
                        std::vector<Shape> shapes, bool dynamic_root,
                        std::vector<std::vector<int64_t>> groups)
      : CollectiveThunk(std::move(name), std::move(groups)),
        reducer_(reducer),
        shapes_(std::move(shapes)),
        dynamic_root_(dynamic_root) {}

 private:
  void Compute(Frame& f, const std::vector<std::vector<const void*>>& peers,
               int64_t me) const override;
  absl::Status Check(const std::vector<std::vector<const void*>>& peers,
                     int64_t me) const override;
  int64_t Root(const std::vector<std::vector<const void*>>& peers, int64_t me,
               size_t i) const;

  HloOpcode reducer_;
  std::vector<Shape> shapes_;
  bool dynamic_root_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_ALL_REDUCE_THUNK_H_
