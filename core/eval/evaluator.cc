// The Evaluator API and the interpreter loop: computations are evaluated in
// post order (operands before users; every instruction, reachable from the
// root or not, as XLA's evaluator does), each value freed after its last
// use.
#include "core/eval/evaluator.h"

#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/ir/memory_limit.h"
#include "core/ir/post_order.h"
#include "core/verifier/verifier.h"

namespace plexa {

namespace eval {
namespace {

// The queue replica `replica` uses: its own when per-replica queues are
// given, else the shared one.
HostFeedQueue* ReplicaQueue(const std::vector<HostFeedQueue*>& per_replica,
                            HostFeedQueue* shared, int64_t replica) {
  if (per_replica.empty()) return shared;
  return replica < static_cast<int64_t>(per_replica.size())
             ? per_replica[replica]
             : nullptr;
}

// The computation's post order where a recv-done of a channel also waits
// for the send of that channel in the computation: the send hands its data
// over when it runs (channels.cc). When that cannot be (the send's data is
// computed from the recv-done), the plain post order: the recv-done then
// reports that no send ran before it.
std::vector<const Instruction*> PostOrderWithChannels(
    const Computation& computation) {
  absl::flat_hash_map<int64_t, Instruction*> sends;
  for (Instruction* instr : computation.instructions()) {
    if (instr->opcode() == HloOpcode::kSend &&
        instr->attrs().channel_id.has_value() &&
        !instr->attrs().is_host_transfer) {
      sends.emplace(*instr->attrs().channel_id, instr);
    }
  }
  std::vector<Instruction*> order =
      sends.empty()
          ? computation.MakeInstructionPostOrder()
          : PostOrderWithExtraPredecessor(
                computation, [&](const Instruction* node) -> Instruction* {
                  if (node->opcode() != HloOpcode::kRecvDone ||
                      !node->attrs().channel_id.has_value()) {
                    return nullptr;
                  }
                  auto it = sends.find(*node->attrs().channel_id);
                  return it != sends.end() ? it->second : nullptr;
                });
  // A cycle through a channel edge leaves an operand after its user.
  absl::flat_hash_map<const Instruction*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  auto after = [&](const Instruction* dep, size_t i) {
    auto it = position.find(dep);
    return it != position.end() && it->second > i;
  };
  bool valid = true;
  for (size_t i = 0; i < order.size() && valid; ++i) {
    for (const Instruction* op : order[i]->operands()) {
      valid = valid && !after(op, i);
    }
    for (const Instruction* p : order[i]->control_predecessors()) {
      valid = valid && !after(p, i);
    }
  }
  if (!valid) order = computation.MakeInstructionPostOrder();
  return std::vector<const Instruction*>(order.begin(), order.end());
}

}  // namespace

// ---- Interpreter ------------------------------------------------------------

struct Interpreter::Plan {
  std::vector<const Instruction*> order;
  // For each position in `order`, the positions of its operands.
  std::vector<absl::InlinedVector<int32_t, 4>> operands;
  // Number of operand references to each position.
  std::vector<int32_t> uses;
  int32_t root = -1;
};

Interpreter::Interpreter(const EvaluatorOptions& options,
                         const DeviceGrid& grid, int64_t device,
                         CollectiveHub* hub)
    : options_(options),
      grid_(grid),
      device_(device),
      hub_(hub),
      // Device d draws from its own stream (docs/evaluator.md "rng").
      rng_(options.rng_seed ^
           (static_cast<uint64_t>(device) * 0xD1B54A32D192ED03ull)),
      queue_feeds_(
          ReplicaQueue(options.replica_infeeds, options.infeed, device),
          ReplicaQueue(options.replica_outfeeds, options.outfeed, device)) {}

Interpreter::~Interpreter() = default;

absl::StatusOr<const Interpreter::Plan*> Interpreter::GetPlan(
    const Computation& computation) {
  auto it = plans_.find(&computation);
  if (it != plans_.end()) return it->second.get();
  auto plan = std::make_unique<Plan>();
  plan->order = PostOrderWithChannels(computation);
  absl::flat_hash_map<const Instruction*, int32_t> position;
  for (size_t i = 0; i < plan->order.size(); ++i) {
    position[plan->order[i]] = static_cast<int32_t>(i);
  }
  plan->uses.assign(plan->order.size(), 0);
  plan->operands.resize(plan->order.size());
  for (size_t i = 0; i < plan->order.size(); ++i) {
    for (const Instruction* operand : plan->order[i]->operands()) {
      auto pos = position.find(operand);
      if (pos == position.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "computation ", computation.name(), ": operand of ",
            InstrName(*plan->order[i]), " is not in the computation"));
      }
      plan->operands[i].push_back(pos->second);
      ++plan->uses[pos->second];
    }
  }
  const Instruction* root = computation.root_instruction();
  auto root_pos = position.find(root);
  if (root == nullptr || root_pos == position.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(), " has no root"));
  }
  plan->root = root_pos->second;
  const Plan* result = plan.get();
  plans_[&computation] = std::move(plan);
  return result;
}

absl::StatusOr<ScalarFn*> Interpreter::GetScalarFn(
    const Computation& computation) {
  auto it = scalar_fns_.find(&computation);
  if (it != scalar_fns_.end()) return it->second.get();
  PLEXA_ASSIGN_OR_RETURN(std::unique_ptr<ScalarFn> fn,
                         ScalarFn::Create(computation, this));
  ScalarFn* result = fn.get();
  scalar_fns_[&computation] = std::move(fn);
  return result;
}

absl::StatusOr<Literal> Interpreter::Evaluate(
    const Computation& computation, absl::Span<const Literal* const> args) {
  if (static_cast<int64_t>(args.size()) != computation.num_parameters()) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(), " takes ",
                     computation.num_parameters(), " parameters; called with ",
                     args.size()));
  }
  PLEXA_ASSIGN_OR_RETURN(const Plan* plan, GetPlan(computation));
  const size_t n = plan->order.size();
  std::vector<Literal> values(n);
  std::vector<const Literal*> refs(n, nullptr);
  std::vector<int32_t> uses = plan->uses;
  absl::InlinedVector<const Literal*, 8> operands;
  for (size_t pos = 0; pos < n; ++pos) {
    const Instruction& instr = *plan->order[pos];
    if (instr.opcode() == HloOpcode::kParameter) {
      const int64_t p = instr.parameter_number();
      if (p < 0 || p >= static_cast<int64_t>(args.size())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "computation ", computation.name(), ": bad parameter number ", p));
      }
      PLEXA_RETURN_IF_ERROR(CheckResultShape(instr, *args[p]));
      refs[pos] = args[p];
      continue;
    }
    operands.clear();
    for (int32_t o : plan->operands[pos]) operands.push_back(refs[o]);
    absl::StatusOr<Literal> value = EvaluateInstruction(instr, operands, args);
    if (!value.ok()) return value.status();
    WrapSubByteIntegers(&*value);
    PLEXA_RETURN_IF_ERROR(CheckResultShape(instr, *value));
    values[pos] = std::move(value).value();
    refs[pos] = &values[pos];
    for (int32_t o : plan->operands[pos]) {
      if (--uses[o] == 0 && o != plan->root) values[o] = Literal();
    }
  }
  if (plan->order[plan->root]->opcode() == HloOpcode::kParameter) {
    return Literal(*refs[plan->root]);
  }
  return std::move(values[plan->root]);
}

absl::StatusOr<Literal> Interpreter::EvaluateInstruction(
    const Instruction& instr, absl::Span<const Literal* const> ops,
    absl::Span<const Literal* const> args) {
  (void)args;
  const HloOpcode op = instr.opcode();
  if (IsKernelOpcode(op)) return EvalElementwise(*this, instr, ops);
  switch (op) {
    case HloOpcode::kConstant:
      if (instr.attrs().literal == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(InstrName(instr), " has no literal"));
      }
      return ToDefaultLayout(instr.literal());
    case HloOpcode::kMap:
      return EvalMap(*this, instr, ops);
    case HloOpcode::kBroadcast:
      return EvalBroadcast(*this, instr, ops);
    case HloOpcode::kReshape:
      return EvalReshape(*this, instr, ops);
    case HloOpcode::kTranspose:
      return EvalTranspose(*this, instr, ops);
    case HloOpcode::kReverse:
      return EvalReverse(*this, instr, ops);
    case HloOpcode::kConcatenate:
      return EvalConcatenate(*this, instr, ops);
    case HloOpcode::kSlice:
      return EvalSlice(*this, instr, ops);
    case HloOpcode::kPad:
      return EvalPad(*this, instr, ops);
    case HloOpcode::kDynamicSlice:
      return EvalDynamicSlice(*this, instr, ops);
    case HloOpcode::kDynamicUpdateSlice:
      return EvalDynamicUpdateSlice(*this, instr, ops);
    case HloOpcode::kIota:
      return EvalIota(*this, instr, ops);
    case HloOpcode::kBitcast:
      return EvalBitcast(*this, instr, ops);
    case HloOpcode::kGetDimensionSize:
      return EvalGetDimensionSize(*this, instr, ops);
    case HloOpcode::kTuple:
      return EvalTuple(*this, instr, ops);
    case HloOpcode::kGetTupleElement:
      return EvalGetTupleElement(*this, instr, ops);
    case HloOpcode::kOptimizationBarrier:
      // Identity on its (usually tuple) operand.
      return Literal(*ops[0]);
    case HloOpcode::kGather:
      return EvalGather(*this, instr, ops);
    case HloOpcode::kScatter:
      return EvalScatter(*this, instr, ops);
    case HloOpcode::kReduce:
      return EvalReduce(*this, instr, ops);
    case HloOpcode::kReduceWindow:
      return EvalReduceWindow(*this, instr, ops);
    case HloOpcode::kSelectAndScatter:
      return EvalSelectAndScatter(*this, instr, ops);
    case HloOpcode::kSort:
      return EvalSort(*this, instr, ops);
    case HloOpcode::kDot:
      return EvalDot(*this, instr, ops);
    case HloOpcode::kRaggedDot:
      return EvalRaggedDot(*this, instr, ops);
    case HloOpcode::kScaledDot:
      return EvalScaledDot(*this, instr, ops);
    case HloOpcode::kScan:
      return EvalScan(*this, instr, ops);
    case HloOpcode::kShuffle:
      return EvalShuffle(*this, instr, ops);
    case HloOpcode::kCollectiveReduce:
      return EvalCollectiveReduce(*this, instr, ops);
    case HloOpcode::kRaggedAllToAll:
      return EvalRaggedAllToAll(*this, instr, ops);
    case HloOpcode::kConvolution:
      return EvalConvolution(*this, instr, ops);
    case HloOpcode::kTriangularSolve:
      return EvalTriangularSolve(*this, instr, ops);
    case HloOpcode::kCholesky:
      return EvalCholesky(*this, instr, ops);
    case HloOpcode::kFft:
      return EvalFft(*this, instr, ops);
    case HloOpcode::kTopK:
      return EvalTopK(*this, instr, ops);
    case HloOpcode::kStochasticConvert:
      return EvalStochasticConvert(*this, instr, ops);
    case HloOpcode::kBatchNormTraining:
      return EvalBatchNormTraining(*this, instr, ops);
    case HloOpcode::kBatchNormInference:
      return EvalBatchNormInference(*this, instr, ops);
    case HloOpcode::kBatchNormGrad:
      return EvalBatchNormGrad(*this, instr, ops);
    case HloOpcode::kWhile:
      return EvalWhile(*this, instr, ops);
    case HloOpcode::kConditional:
      return EvalConditional(*this, instr, ops);
    case HloOpcode::kCall:
    case HloOpcode::kFusion:
      return EvalCall(*this, instr, ops);
    case HloOpcode::kAllReduce:
      return EvalAllReduce(*this, instr, ops);
    case HloOpcode::kAllGather:
      return EvalAllGather(*this, instr, ops);
    case HloOpcode::kReduceScatter:
      return EvalReduceScatter(*this, instr, ops);
    case HloOpcode::kCollectivePermute:
      return EvalCollectivePermute(*this, instr, ops);
    case HloOpcode::kCollectiveBroadcast:
      return EvalCollectiveBroadcast(*this, instr, ops);
    case HloOpcode::kAllToAll:
      return EvalAllToAll(*this, instr, ops);
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectivePermuteStart:
      return EvalAsyncStart(*this, instr, ops);
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kCollectivePermuteDone:
      return EvalAsyncDone(*this, instr, ops);
    case HloOpcode::kAsyncStart:
      return EvalAsyncWrapperStart(*this, instr, ops);
    case HloOpcode::kAsyncUpdate:
      return EvalAsyncWrapperUpdate(*this, instr, ops);
    case HloOpcode::kAsyncDone:
      return EvalAsyncWrapperDone(*this, instr, ops);
    case HloOpcode::kCopyStart:
      return EvalCopyStart(*this, instr, ops);
    case HloOpcode::kCopyDone:
      return EvalCopyDone(*this, instr, ops);
    case HloOpcode::kAddDependency:
    case HloOpcode::kDomain:
      return EvalForwardOperand(*this, instr, ops);
    case HloOpcode::kRngGetAndUpdateState:
      return EvalRngGetAndUpdateState(*this, instr, ops);
    case HloOpcode::kReplicaId:
      return EvalReplicaId(*this, instr, ops);
    case HloOpcode::kPartitionId:
      return EvalPartitionId(*this, instr, ops);
    case HloOpcode::kInfeed:
      return EvalInfeed(*this, instr, ops);
    case HloOpcode::kOutfeed:
      return EvalOutfeed(*this, instr, ops);
    case HloOpcode::kAfterAll:
      return EvalAfterAll(*this, instr, ops);
    case HloOpcode::kSend:
      return EvalSend(*this, instr, ops);
    case HloOpcode::kRecv:
      return EvalRecv(*this, instr, ops);
    case HloOpcode::kSendDone:
      return EvalSendDone(*this, instr, ops);
    case HloOpcode::kRecvDone:
      return EvalRecvDone(*this, instr, ops);
    case HloOpcode::kCustomCall:
      return EvalCustomCall(*this, instr, ops);
    case HloOpcode::kRng:
      return EvalRng(*this, instr, ops);
    case HloOpcode::kRngBitGenerator:
      return EvalRngBitGenerator(*this, instr, ops);
    case HloOpcode::kSetDimensionSize:
    case HloOpcode::kDynamicReshape:
      // Values are held at their bounds; the run-time sizes these set are
      // carried by the dynamic-padder lowering, which runs first.
      return absl::FailedPreconditionError(absl::StrCat(
          InstrName(instr),
          " sets a run-time size: lower the program with LowerDynamicShapes "
          "(core/passes/dynamic_padder.h) before evaluating it; plexa run "
          "does"));
    case HloOpcode::kParameter:
      break;
    default:
      break;
  }
  return absl::UnimplementedError(
      absl::StrCat("evaluator: no implementation for ", InstrName(instr)));
}

namespace {

// Element types and dimensions equal, layouts ignored, recursively.
bool ArgumentFits(const Shape& expected, const Shape& actual) {
  if (expected.IsTuple() || actual.IsTuple()) {
    if (!expected.IsTuple() || !actual.IsTuple() ||
        expected.tuple_shapes_size() != actual.tuple_shapes_size()) {
      return false;
    }
    for (int64_t i = 0; i < expected.tuple_shapes_size(); ++i) {
      if (!ArgumentFits(expected.tuple_shapes(i), actual.tuple_shapes(i))) {
        return false;
      }
    }
    return true;
  }
  if (expected.IsToken() || actual.IsToken()) {
    return expected.IsToken() && actual.IsToken();
  }
  return expected.element_type() == actual.element_type() &&
         ShapeUtil::SameDimensions(expected, actual);
}

// Checks the module and the arguments; returns the arguments in the default
// layout.
absl::StatusOr<std::vector<Literal>> PrepareArguments(
    const Module& module, absl::Span<const Literal> args, int64_t replica,
    int64_t replica_count) {
  const Computation* entry = module.entry_computation();
  if (entry == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("module ", module.name(), " has no entry computation"));
  }
  const std::string who =
      replica_count > 1 ? absl::StrCat("replica ", replica, ": ") : "";
  if (static_cast<int64_t>(args.size()) != entry->num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        who, "entry computation ", entry->name(), " of module ", module.name(),
        " takes ", entry->num_parameters(), " arguments; got ", args.size()));
  }
  std::vector<Literal> prepared;
  prepared.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const Instruction* param = entry->parameter_instruction(i);
    if (param == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "entry computation ", entry->name(), " has no parameter ", i));
    }
    if (!ArgumentFits(param->shape(), args[i].shape())) {
      return absl::InvalidArgumentError(
          absl::StrCat(who, "parameter ", i, " (", param->name(), ") expects ",
                       param->shape().ToString(false), " but the argument is ",
                       args[i].shape().ToString(false)));
    }
    PLEXA_ASSIGN_OR_RETURN(Literal dense, ToDefaultLayout(args[i]));
    NormalizePred(&dense);
    prepared.push_back(std::move(dense));
  }
  return prepared;
}

// The layout the result is returned in.
Shape ResultShape(const Module& module) {
  if (module.entry_computation_layout().has_value()) {
    return module.entry_computation_layout()->result;
  }
  return module.entry_computation()->root_instruction()->shape();
}

absl::Status CheckOptions(const EvaluatorOptions& options,
                          int64_t replica_count) {
  if (!options.replica_infeeds.empty() &&
      static_cast<int64_t>(options.replica_infeeds.size()) != replica_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_infeeds has ", options.replica_infeeds.size(),
                     " entries for ", replica_count, " replicas"));
  }
  if (!options.replica_outfeeds.empty() &&
      static_cast<int64_t>(options.replica_outfeeds.size()) != replica_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_outfeeds has ", options.replica_outfeeds.size(),
                     " entries for ", replica_count, " replicas"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> RunOneDevice(const EvaluatorOptions& options,
                                     const Module& module,
                                     std::vector<Literal> args,
                                     const DeviceGrid& grid, int64_t device,
                                     CollectiveHub* hub) {
  Interpreter interpreter(options, grid, device, hub);
  std::vector<const Literal*> ptrs;
  ptrs.reserve(args.size());
  for (const Literal& a : args) ptrs.push_back(&a);
  PLEXA_ASSIGN_OR_RETURN(
      Literal result, interpreter.Evaluate(*module.entry_computation(), ptrs));
  return ToLayoutOf(result, ResultShape(module));
}

// Before a run: the verifier's invariants (when asked for) and the memory
// limit (every buffer the run allocates is sized by an instruction).
absl::Status CheckModule(const EvaluatorOptions& options,
                         const Module& module) {
  if (options.verify_module) {
    absl::Status verified = VerifyModule(module);
    if (!verified.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("module ", module.name(),
                       " failed verification: ", verified.message()));
    }
  }
  return CheckModuleFitsLimit(module, options.memory_limit_bytes > 0
                                          ? options.memory_limit_bytes
                                          : MachineMemoryBytes());
}

}  // namespace
}  // namespace eval

absl::StatusOr<Literal> Evaluator::Run(const Module& module,
                                       absl::Span<const Literal> args) const {
  PLEXA_RETURN_IF_ERROR(eval::CheckModule(options_, module));
  PLEXA_RETURN_IF_ERROR(eval::CheckOptions(options_, 1));
  PLEXA_ASSIGN_OR_RETURN(std::vector<Literal> prepared,
                         eval::PrepareArguments(module, args, 0, 1));
  return eval::RunOneDevice(options_, module, std::move(prepared), DeviceGrid{},
                            0, nullptr);
}

absl::StatusOr<std::vector<Literal>> Evaluator::RunReplicated(
    const Module& module,
    absl::Span<const std::vector<Literal>> args_per_device) const {
  const int64_t devices = static_cast<int64_t>(args_per_device.size());
  const int64_t partitions = options_.num_partitions;
  if (partitions < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("num_partitions must be >= 1; got ", partitions));
  }
  if (devices < 1 || devices % partitions != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("RunReplicated needs argument lists for every replica of ",
                     partitions, " partition(s); got ", devices));
  }
  const DeviceGrid grid{devices / partitions, partitions};
  PLEXA_RETURN_IF_ERROR(eval::CheckModule(options_, module));
  PLEXA_RETURN_IF_ERROR(eval::CheckOptions(options_, devices));
  std::vector<std::vector<Literal>> prepared(devices);
  for (int64_t d = 0; d < devices; ++d) {
    PLEXA_ASSIGN_OR_RETURN(
        prepared[d],
        eval::PrepareArguments(module, args_per_device[d], d, devices));
  }
  eval::CollectiveHub hub(devices);
  std::vector<absl::StatusOr<Literal>> results(
      devices, absl::StatusOr<Literal>(absl::UnknownError("not run")));
  std::vector<std::thread> threads;
  threads.reserve(devices);
  for (int64_t d = 0; d < devices; ++d) {
    threads.emplace_back([&, d] {
      results[d] = eval::RunOneDevice(options_, module, std::move(prepared[d]),
                                      grid, d, &hub);
      hub.MarkDone(d, !results[d].ok());
    });
  }
  for (std::thread& t : threads) t.join();
  // Prefer a device's own error over the Aborted errors of devices that
  // were released because of it.
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < devices; ++d) {
      if (results[d].ok()) continue;
      if (pass == 0 && absl::IsAborted(results[d].status())) continue;
      return absl::Status(
          results[d].status().code(),
          absl::StrCat(grid.Name(d), ": ", results[d].status().message()));
    }
  }
  std::vector<Literal> out;
  out.reserve(devices);
  for (auto& d : results) out.push_back(std::move(d).value());
  return out;
}

absl::StatusOr<std::vector<Literal>> Evaluator::RunReplicated(
    const Module& module, int64_t replica_count,
    absl::Span<const Literal> args) const {
  if (replica_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("replica_count must be >= 1; got ", replica_count));
  }
  std::vector<std::vector<Literal>> per_replica(
      replica_count, std::vector<Literal>(args.begin(), args.end()));
  return RunReplicated(module, per_replica);
}

InstructionEvaluator::InstructionEvaluator(EvaluatorOptions options,
                                           int64_t device,
                                           const DeviceGrid& grid)
    : options_(std::move(options)),
      interpreter_(std::make_unique<eval::Interpreter>(options_, grid, device,
                                                       /*hub=*/nullptr)) {}

InstructionEvaluator::~InstructionEvaluator() = default;

absl::StatusOr<Literal> InstructionEvaluator::Evaluate(
    const Instruction& instr, absl::Span<const Literal* const> operands) {
  if (static_cast<int64_t>(operands.size()) != instr.operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat(
        instr.name(), ": ", operands.size(), " operand values for ",
        instr.operand_count(), " operands"));
  }
  // The handlers take operands in the default layout.
  std::vector<Literal> relaid;
  std::vector<const Literal*> ops;
  relaid.reserve(operands.size());
  for (const Literal* op : operands) {
    absl::StatusOr<Literal> d = eval::ToDefaultLayout(*op);
    if (!d.ok()) return d.status();
    relaid.push_back(std::move(*d));
  }
  for (const Literal& l : relaid) ops.push_back(&l);
  absl::StatusOr<Literal> value =
      interpreter_->EvaluateInstruction(instr, ops, {});
  if (value.ok()) eval::WrapSubByteIntegers(&*value);
  return value;
}

}  // namespace plexa
