// The reference evaluator: runs a verified Module on host Literals with
// XLA's semantics. It is the oracle every backend plugin is checked
// against, so it favours being right over being fast; docs/evaluator.md
// lists every semantic decision (rounding, integer edge cases, rng
// algorithm, custom-call convention).
//
//   plexa::Evaluator evaluator;
//   absl::StatusOr<Literal> result = evaluator.Run(*module, {arg0, arg1});
//
// Arguments may come in any layout; the result is produced in the layout of
// the entry computation's result (entry_computation_layout if given, else
// the root's shape layout, else the default major-to-minor layout).
#ifndef PLEXA_CORE_EVAL_EVALUATOR_H_
#define PLEXA_CORE_EVAL_EVALUATOR_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"

namespace plexa {

// ---- Host feed queues ---------------------------------------------------
// A FIFO of literals feeding `infeed` and collecting `outfeed`.
// Thread-safe: replicas of RunReplicated may share one queue.
class HostFeedQueue {
 public:
  HostFeedQueue() = default;
  HostFeedQueue(const HostFeedQueue&) = delete;
  HostFeedQueue& operator=(const HostFeedQueue&) = delete;

  void Push(Literal value);
  // The oldest literal, or nullopt when the queue is empty.
  std::optional<Literal> Pop();
  int64_t size() const;
  bool empty() const { return size() == 0; }

 private:
  mutable std::mutex mu_;
  std::deque<Literal> items_;
};

// ---- Host feeds ---------------------------------------------------------
// Where infeed reads and outfeed writes, as one execution sees it. The
// evaluator, the CPU plugin and the ABI's PLX_FeedsExtension (host and SDK
// sides) all speak to this interface. Implementations must be thread-safe:
// replicas call concurrently (one replica calls in program order).
class HostFeeds {
 public:
  virtual ~HostFeeds() = default;
  // The next value for the infeed instruction named `instruction` of
  // replica `replica`: a literal of `data_shape` (any layout; a tuple for a
  // tuple data shape). Never called for an empty-tuple data shape.
  virtual absl::StatusOr<Literal> Infeed(int64_t replica,
                                         absl::string_view instruction,
                                         const Shape& data_shape) = 0;
  // The value an outfeed instruction sends.
  virtual absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                               Literal value) = 0;
};

// HostFeeds over two queues shared by every replica (either may be null:
// reaching that kind of feed is then a FailedPrecondition error). An infeed
// checks the queued literal's shape against the instruction's.
class QueueFeeds : public HostFeeds {
 public:
  QueueFeeds(HostFeedQueue* infeed, HostFeedQueue* outfeed)
      : infeed_(infeed), outfeed_(outfeed) {}
  absl::StatusOr<Literal> Infeed(int64_t replica, absl::string_view instruction,
                                 const Shape& data_shape) override;
  absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                       Literal value) override;

 private:
  HostFeedQueue* infeed_;
  HostFeedQueue* outfeed_;
};

// ---- Custom calls -------------------------------------------------------
// The C calling convention of API_VERSION_ORIGINAL (and unspecified), as
// XLA's CPU backend and the Plexa plugins use it:
//
//   extern "C" void target(void* out, const void** in);
//
// `in[i]` is operand i's buffer, `out` the result buffer, each an array in
// the default row-major layout (or, when the custom-call carries
// operand_layout_constraints, in the constrained operand layouts and the
// custom-call's result layout). A tuple-shaped result or operand is passed
// as an array of pointers to its element buffers (recursively for nested
// tuples), as XLA CPU does.
using CustomCallTarget = void (*)(void* out, const void** in);

// Maps a target name to a function; returns nullptr if it does not know the
// name. Must be thread-safe when used with RunReplicated.
using CustomCallResolver = std::function<CustomCallTarget(absl::string_view)>;

// A custom call its embedder runs instead of a C function (a plugin's typed
// call frame, for one): it gets the evaluated operands in the default
// layout and returns the result (any layout).
using CustomCallHandler = std::function<absl::StatusOr<Literal>(
    const Instruction& call, absl::Span<const Literal* const> operands)>;

// Process-wide registry. Registering a name again replaces the previous
// target. Thread-safe.
void RegisterCustomCallTarget(absl::string_view name, CustomCallTarget target);
// nullptr if `name` was never registered. Thread-safe.
CustomCallTarget FindRegisteredCustomCallTarget(absl::string_view name);
// The resolver used when EvaluatorOptions::custom_call_resolver is empty:
// the registry first, then dlsym(RTLD_DEFAULT, name) (symbols exported by
// the process and the libraries it has loaded). Thread-safe.
CustomCallTarget DefaultCustomCallResolver(absl::string_view name);

// ---- Options ------------------------------------------------------------
struct EvaluatorOptions {
  // Seed of the rng generator (docs/evaluator.md "rng"); the same seed gives
  // the same numbers. Replica r of RunReplicated uses a stream derived from
  // (rng_seed, r).
  uint64_t rng_seed = 0;

  // infeed pops from `infeed`, outfeed pushes to `outfeed` (borrowed; must
  // outlive the run). For RunReplicated, replica r uses
  // replica_infeeds[r] / replica_outfeeds[r] when those vectors are
  // non-empty (they must then have one entry per replica), else the shared
  // queue above. A program that reaches infeed/outfeed without a queue gets
  // an error.
  HostFeedQueue* infeed = nullptr;
  HostFeedQueue* outfeed = nullptr;
  std::vector<HostFeedQueue*> replica_infeeds;
  std::vector<HostFeedQueue*> replica_outfeeds;
  // When set, infeed and outfeed go here instead of the queues above
  // (borrowed; must outlive the run).
  HostFeeds* feeds = nullptr;

  // Resolves custom-call targets; empty means DefaultCustomCallResolver.
  // When set it is the only resolver consulted (call
  // DefaultCustomCallResolver from it to fall back).
  CustomCallResolver custom_call_resolver;
  // Consulted first when set: a handler for the target, or an empty
  // function to resolve a C function as above. Must be thread-safe when
  // used with RunReplicated.
  std::function<CustomCallHandler(absl::string_view target)>
      custom_call_handler;

  // No cap by default: a while loop runs until its condition is false. With
  // a value, a loop that would start iteration number
  // `max_while_iterations` + 1 fails with ResourceExhausted (for tests).
  std::optional<int64_t> max_while_iterations;

  // Every array the module's instructions produce must fit in this many
  // bytes (checked before the run: RESOURCE_EXHAUSTED naming the
  // instruction); 0 means the machine's memory (MachineMemoryBytes).
  int64_t memory_limit_bytes = 0;

  // Run VerifyModule before evaluating (recommended: the evaluator relies
  // on the verifier's invariants).
  bool verify_module = true;
};

namespace eval {
class Interpreter;
}  // namespace eval

// ---- One instruction at a time ------------------------------------------
// Evaluates single instructions on given operand values, keeping one
// interpreter's state (its rng stream, the execution counts) between calls.
// Compiled backends use it as the kernel of the operations they do not
// generate code for (the CPU plugin's "reference kernels"). Collectives see
// no other replica through it: all-reduce is the identity. Not thread-safe:
// one per thread (per replica).
class InstructionEvaluator {
 public:
  explicit InstructionEvaluator(EvaluatorOptions options,
                                int64_t replica_id = 0,
                                int64_t replica_count = 1);
  ~InstructionEvaluator();
  InstructionEvaluator(const InstructionEvaluator&) = delete;
  InstructionEvaluator& operator=(const InstructionEvaluator&) = delete;

  // `operands` (one per operand of `instr`, in any layout) must have the
  // operands' element types and dimensions. The result is in the default
  // layout. Called computations (while bodies, comparators, reducers, ...)
  // are evaluated by the interpreter.
  absl::StatusOr<Literal> Evaluate(const Instruction& instr,
                                   absl::Span<const Literal* const> operands);

 private:
  EvaluatorOptions options_;
  std::unique_ptr<eval::Interpreter> interpreter_;
};

// ---- Evaluator ----------------------------------------------------------
// Stateless apart from its options: one Evaluator may run any number of
// modules, and Run may be called from several threads at once.
class Evaluator {
 public:
  Evaluator() = default;
  explicit Evaluator(EvaluatorOptions options) : options_(std::move(options)) {}

  const EvaluatorOptions& options() const { return options_; }
  EvaluatorOptions* mutable_options() { return &options_; }

  // Runs the entry computation as replica 0 of 1 (all-reduce over one
  // replica is the identity). `args` are the entry parameters in order;
  // each must have the parameter's element type and dimensions (any
  // layout). Errors: InvalidArgument for a wrong argument count, shape or
  // type (naming the parameter number and both shapes); the first error of
  // any instruction otherwise.
  absl::StatusOr<Literal> Run(const Module& module,
                              absl::Span<const Literal> args) const;
  absl::StatusOr<Literal> Run(const Module& module,
                              std::initializer_list<Literal> args) const {
    return Run(module, absl::Span<const Literal>(args.begin(), args.size()));
  }

  // Runs `args_per_replica.size()` replicas of the entry computation, each
  // on its own thread; all-reduce meets across replicas at a rendezvous.
  // Returns one result per replica. If a replica fails, every replica
  // waiting for it is released with an error and the first error (by
  // replica number) is returned.
  absl::StatusOr<std::vector<Literal>> RunReplicated(
      const Module& module,
      absl::Span<const std::vector<Literal>> args_per_replica) const;
  // Convenience: `replica_count` replicas with the same arguments.
  absl::StatusOr<std::vector<Literal>> RunReplicated(
      const Module& module, int64_t replica_count,
      absl::Span<const Literal> args) const;

 private:
  EvaluatorOptions options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_EVAL_EVALUATOR_H_
