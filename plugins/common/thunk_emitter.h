// The backend-independent half of turning a computation into thunks.
//
// ThunkEmitter::Compile numbers a computation's slots (parameter leaves
// first), walks its instructions in post order and emits thunks for them:
//   - get-tuple-element, tuple, optimization-barrier, parameters and
//     constants cost nothing: they name slots;
//   - while, conditional and call become control-flow thunks over their
//     computations, compiled once each (control_flow_thunks.h);
//   - all-reduce and reduce-scatter become an AllReduceThunk /
//     ReduceScatterThunk when their reducer matches (reducer.h), else the
//     evaluator runs them on one replica; all-gather an AllGatherThunk,
//     collective-permute a CollectivePermuteThunk, collective-broadcast a
//     CollectiveBroadcastThunk, all-to-all an AllToAllThunk
//     (collective_thunk.h: replicas in process read each other's buffers);
//   - infeed and outfeed run through the evaluator (reference_thunk.h);
//   - everything else is the backend's: EmitBackendInstruction, which adds
//     its own thunks or falls back to EmitReference.
// Then dynamic-update-slices and scatters whose operand is dead update it in
// place (MakeUpdatesInPlace), results are made distinct temporaries, and
// temporaries share one arena after their last use (buffer_assignment.h).
#ifndef PLEXA_PLUGINS_COMMON_THUNK_EMITTER_H_
#define PLEXA_PLUGINS_COMMON_THUNK_EMITTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/ir/collective_groups.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

struct ProgramStats {
  int64_t kernels = 0;              // generated (compiled) kernels
  int64_t runtime_thunks = 0;       // dot, convolution, all-reduce, ...
  int64_t reference_thunks = 0;     // operations run by the evaluator
  int64_t conv_epilogues = 0;       // loop fusions run inside a convolution
  int64_t in_place_updates = 0;     // dynamic-update-slices, scatters
  int64_t peak_temp_bytes = 0;      // sum over computations of arena sizes
  int64_t unshared_temp_bytes = 0;  // without buffer reuse
  double compile_ms = 0;            // codegen + backend compiler
  std::vector<std::string> reference_ops;  // "gather", ...
};

class ThunkEmitter {
 public:
  // `grid`: the replicas and partitions the program runs on (collectives
  // compute their groups of devices from it). `stats` must outlive the
  // emitter.
  ThunkEmitter(const DeviceGrid& grid, ProgramStats* stats)
      : stats_(stats), grid_(grid) {}
  virtual ~ThunkEmitter() = default;

  // Compiles `c` (once; later calls return the same computation).
  absl::StatusOr<CompiledComputation*> Compile(const Computation& c,
                                               bool is_entry);
  std::vector<std::unique_ptr<CompiledComputation>> TakeComputations() {
    return std::move(computations_);
  }
  // The constants' storage; constant slots point into it.
  std::vector<std::unique_ptr<Literal>>& constants() { return constants_; }

 protected:
  // Emits the thunks of `h`, an instruction the toolkit leaves to the
  // backend (see the file comment), and records its leaves (leaves_[&h]).
  virtual absl::Status EmitBackendInstruction(CompiledComputation& cc,
                                              const Instruction& h) = 0;

  int NewSlot(CompiledComputation& cc, const Shape& shape, SlotKind kind);
  std::vector<int> NewLeaves(CompiledComputation& cc, const Shape& shape);
  void Add(CompiledComputation& cc, std::unique_ptr<Thunk> t) {
    cc.thunks.push_back(std::move(t));
  }
  // A runtime thunk for `h`: it reads h's operands' leaves and writes new
  // leaves for h's result.
  void AddRuntimeThunk(CompiledComputation& cc, const Instruction& h,
                       std::unique_ptr<Thunk> t);
  std::vector<int> OperandLeaves(const Instruction& h);
  // `h` runs on the reference evaluator (ReferenceThunk).
  void EmitReference(CompiledComputation& cc, const Instruction& h);

  const DeviceGrid& grid() const { return grid_; }

  // The slots of every value's leaves.
  absl::flat_hash_map<const Instruction*, std::vector<int>> leaves_;
  ProgramStats* stats_;

 private:
  absl::Status EmitInstruction(CompiledComputation& cc, const Instruction& h);
  absl::Status EmitConstant(CompiledComputation& cc, const Instruction& h);
  // The groups of devices that meet at collective `h` (XLA's, from
  // core/ir/collective_groups.h), every device that runs in one of them.
  absl::StatusOr<std::vector<std::vector<int64_t>>> DeviceGroupsOf(
      const Instruction& h) const;
  // A collective's thunk: it reads h's operands' leaves and writes new
  // leaves for what h computes (CollectiveResultShape); a -start's leaves
  // also name its operands' (and contexts).
  void AddCollectiveThunk(CompiledComputation& cc, const Instruction& h,
                          std::unique_ptr<Thunk> t);
  absl::Status EmitOnOneReplica(
      CompiledComputation& cc, const Instruction& h,
      const std::vector<std::vector<int64_t>>& groups);
  absl::Status EmitAllReduce(CompiledComputation& cc, const Instruction& h);
  absl::Status EmitAllGatherOrReduceScatter(CompiledComputation& cc,
                                            const Instruction& h);
  absl::Status EmitCollectivePermute(CompiledComputation& cc,
                                     const Instruction& h);
  absl::Status EmitCollectiveBroadcast(CompiledComputation& cc,
                                       const Instruction& h);
  absl::Status EmitAllToAll(CompiledComputation& cc, const Instruction& h);
  absl::Status EmitCollectiveReduce(CompiledComputation& cc,
                                    const Instruction& h);
  absl::Status EmitRaggedAllToAll(CompiledComputation& cc,
                                  const Instruction& h);
  // fft, topk: native thunks on row-major buffers (the evaluator's kernels);
  // other layouts take the evaluator.
  absl::Status EmitFftOrTopK(CompiledComputation& cc, const Instruction& h);
  // Lets each dynamic-update-slice or scatter of `c` whose operand buffer
  // nothing reads afterwards write into that buffer (see the definition).
  void MakeUpdatesInPlace(CompiledComputation& cc, const Computation& c,
                          bool parameters_writable);
  // True when `c` is called only as the body of while loops: its
  // parameters are then the loop state, which the body may overwrite.
  bool OnlyAWhileBody(const Computation& c);
  absl::Status AssignBuffersFor(CompiledComputation& cc);

  DeviceGrid grid_;
  std::vector<std::unique_ptr<CompiledComputation>> computations_;
  absl::flat_hash_map<const Computation*, CompiledComputation*> compiled_;
  std::vector<std::unique_ptr<Literal>> constants_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_THUNK_EMITTER_H_
