// Thunks: the steps a backend's compiled program runs, over slots.
//
// A computation compiles to a CompiledComputation: slots (one per array
// leaf of a value: a parameter leaf, a constant, a temporary in the
// computation's arena, or an entry result leaf bound to the caller's
// buffer) and a sequence of thunks that read and write slots. A backend
// adds its own Thunk kinds (kernels, library calls); the toolkit brings
// the host control flow (control_flow_thunks.h), the evaluator fallback
// (reference_thunk.h), all-reduce (all_reduce_thunk.h) and copies, and
// runs a sequence with RunComputation (executor.h).
#ifndef PLEXA_PLUGINS_COMMON_THUNK_H_
#define PLEXA_PLUGINS_COMMON_THUNK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "abi/sdk/custom_call.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/eval/evaluator.h"
#include "core/ir/computation.h"
#include "core/runtime/profiler.h"
#include "core/runtime/rendezvous.h"
#include "core/shape/shape.h"
#include "plugins/common/aligned_memory.h"

namespace plexa::backend {

enum class SlotKind { kParameter, kConstant, kTemp, kResult };

struct Slot {
  Shape shape;  // an array (or token: 0 bytes), with a layout
  int64_t bytes = 0;
  SlotKind kind = SlotKind::kTemp;
  int64_t index = 0;                  // parameter leaf / result leaf number
  const uint8_t* constant = nullptr;  // kConstant
  int64_t offset = 0;                 // kTemp: in the arena
};

struct CompiledComputation;
class Thunk;

// What kind of step a thunk is, for people reading a program as a backend
// runs it (`plexa graph --backend`, the plugins' dump_program option): code
// the backend generated, a library or runtime routine, control flow, or
// the evaluator's fallback.
enum class StepClass {
  kKernel,       // generated code (a fused loop, a shader)
  kGemm,         // the backend's matrix-product routine
  kConvolution,  // the backend's convolution routine
  kLibrary,      // a vendor library's primitive (oneDNN)
  kRuntime,      // a native runtime routine (sort, scatter, fft, ...)
  kCollective,   // a collective across replicas
  kControlFlow,  // while, conditional, call: runs other computations
  kCustomCall,   // a user's custom-call target
  kReference,    // the reference evaluator, in place of generated code
  kCopy,         // a plain copy between slots
};
// "kernel", "gemm", "convolution", "library", "runtime", "collective",
// "control-flow", "custom-call", "reference", "copy".
const char* StepClassName(StepClass c);

// The devices (replicas × partitions) of one execution meet here for
// collectives, exchanging the addresses of their buffers (the one
// rendezvous of core/runtime).
using ReplicaHub = Rendezvous<std::vector<const void*>>;

// One execution of one replica. A backend that needs more per run (the CPU
// plugin: its thread pool) derives from it and its thunks downcast.
struct ExecContext {
  virtual ~ExecContext() = default;
  // The memory of computation `id`'s temporaries, at least `bytes`: host
  // memory kept in `arenas` unless a backend keeps temporaries where its
  // kernels can reach them (the Vulkan plugin: mapped device memory).
  virtual absl::StatusOr<uint8_t*> ArenaFor(int id, int64_t bytes);

  int64_t replica_id = 0;
  int64_t replica_count = 1;
  // The partition this run is of, of partition_count (XLA's SPMD
  // partitions; 1 for a replicated program).
  int64_t partition_id = 0;
  int64_t partition_count = 1;
  // This run's device number, replica_id * partition_count + partition_id:
  // what collectives meet by (the hub's participants), feeds and rng
  // states are kept per.
  int64_t device_index() const {
    return replica_id * partition_count + partition_id;
  }
  DeviceGrid grid() const { return DeviceGrid{replica_count, partition_count}; }
  ReplicaHub* hub = nullptr;
  HostFeeds* feeds = nullptr;  // infeed/outfeed; null: none given
  // How many times this replica has run each collective thunk: with the
  // thunk's name, the key of its next meeting at the hub.
  absl::flat_hash_map<const Thunk*, int64_t> collective_runs;
  std::unique_ptr<InstructionEvaluator> evaluator;  // created on first use
  std::vector<AlignedMemory> arenas;                // per computation id
  // When set, every thunk run (nested ones too) is reported to it.
  Profiler* profiler = nullptr;
  // The client's log and scratch limit for typed custom calls; null: the
  // defaults (stderr).
  const sdk::CallFrameContext* call_frames = nullptr;
  // rng-get-and-update-state's states, owned by the executable so that
  // they carry over from run to run and two executables sharing one cached
  // program do not share them; null: the thunks keep their own.
  RngStateTable* rng_states = nullptr;
};

struct Frame {
  const CompiledComputation* cc = nullptr;
  std::vector<uint8_t*> ptr;  // per slot
  ExecContext* ctx = nullptr;
};

class Thunk {
 public:
  virtual ~Thunk() = default;
  virtual absl::Status Run(Frame& f) const = 0;
  // True when the thunk's one output may share the memory of inputs[0]
  // (it then only updates it: dynamic-update-slice, scatter). Whether it
  // does is decided per program by ThunkEmitter::MakeUpdatesInPlace.
  virtual bool CanUpdateInPlace() const { return false; }
  // What kind of step this is (see StepClass); a native routine unless the
  // thunk says otherwise.
  virtual StepClass step_class() const { return StepClass::kRuntime; }
  // The steps it stands for (DescribeSteps): itself, or the thunks a batch
  // runs together.
  virtual void CollectSteps(std::vector<const Thunk*>* out) const {
    out->push_back(this);
  }
  std::vector<int> inputs;   // slots read
  std::vector<int> outputs;  // slots written
  // For profiles: the instruction it runs and its opcode (ThunkEmitter
  // sets them; a backend may refine `kind`, e.g. "onednn").
  std::string name;
  std::string kind;
};

struct CompiledComputation {
  const Computation* computation = nullptr;
  int id = 0;
  std::vector<Slot> slots;
  std::vector<std::unique_ptr<Thunk>> thunks;
  std::vector<int> param_leaves;
  std::vector<int> result_leaves;
  int64_t arena_bytes = 0;
  int64_t unshared_bytes = 0;
};

// The steps of a compiled program, one line per thunk in the order each
// computation runs them, tab-separated: computation, instruction (the
// thunk's name; "-" when it has none), step class (StepClassName), kind
// (what profiles call it). After a header of '#' lines. docs/graph.md
// describes the format; `plexa graph --backend` reads it.
std::string DescribeSteps(
    absl::Span<const std::unique_ptr<CompiledComputation>> computations);

// `s` with the default layout when it is an array without one.
Shape WithLayout(Shape s);
// The leaves of `shape` (tuples flattened depth-first), with layouts.
void FlattenLeafShapes(const Shape& shape, std::vector<Shape>* out);
int64_t LeafCount(const Shape& shape);
// The bytes of a slot of `s` (0 for a token).
int64_t SlotBytes(const Shape& s);

// Copies one slot into another (skipped when they share memory).
class CopyThunk : public Thunk {
 public:
  CopyThunk(int src, int dst, int64_t bytes);
  absl::Status Run(Frame& f) const override;
  StepClass step_class() const override { return StepClass::kCopy; }

 private:
  int64_t bytes_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_THUNK_H_
