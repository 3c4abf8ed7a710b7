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
#include "core/ir/collective_groups.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/runtime/custom_call.h"
#include "core/runtime/host_feeds.h"
#include "core/runtime/rng_state.h"

namespace plexa {

// ---- Options ------------------------------------------------------------
struct EvaluatorOptions {
  // Seed of the rng generator (docs/evaluator.md "rng"); the same seed gives
  // the same numbers. Device d of RunReplicated uses a stream derived from
  // (rng_seed, d).
  uint64_t rng_seed = 0;

  // rng-get-and-update-state reads and advances its state here (borrowed;
  // thread-safe; must outlive the run). An executable passes the same
  // table to every run, so the state carries over from run to run. Null:
  // each Run (each InstructionEvaluator) keeps its own, starting at XLA's
  // initial state (core/runtime/rng_state.h).
  RngStateTable* rng_states = nullptr;

  // infeed pops from `infeed`, outfeed pushes to `outfeed` (borrowed; must
  // outlive the run). For RunReplicated, device d uses
  // replica_infeeds[d] / replica_outfeeds[d] when those vectors are
  // non-empty (they must then have one entry per device), else the shared
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

  // The partitions of each replica in RunReplicated (XLA's num_partitions:
  // an SPMD-partitioned program runs once per replica and partition).
  int64_t num_partitions = 1;
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
  // Evaluates as `device` of `grid` (replica-id and partition-id read it).
  explicit InstructionEvaluator(EvaluatorOptions options, int64_t device = 0,
                                const DeviceGrid& grid = DeviceGrid{});
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

  // Runs the entry computation on `args_per_device.size()` devices: every
  // replica of options().num_partitions partitions, device d being replica
  // d / num_partitions, partition d % num_partitions (DeviceGrid), each on
  // its own thread; collectives meet at a rendezvous with the groups XLA
  // gives them (core/ir/collective_groups.h). Returns one result per
  // device. If one fails, every device waiting for it is released with an
  // error and the first error (by device number) is returned.
  absl::StatusOr<std::vector<Literal>> RunReplicated(
      const Module& module,
      absl::Span<const std::vector<Literal>> args_per_device) const;
  // Convenience: `replica_count` replicas with the same arguments.
  absl::StatusOr<std::vector<Literal>> RunReplicated(
      const Module& module, int64_t replica_count,
      absl::Span<const Literal> args) const;

 private:
  EvaluatorOptions options_;
};

}  // namespace plexa

#endif  // PLEXA_CORE_EVAL_EVALUATOR_H_
