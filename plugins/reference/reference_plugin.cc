// The reference plugin: the evaluator (core/eval) behind the Plexa ABI.
//
// It is the oracle other plugins are checked against and the example of a
// complete plugin. Devices are virtual (option "num_devices", default 1);
// each buffer owns device memory of its own (never the caller's), so the
// host-device copies are as real as on an accelerator. Replicas (and SPMD
// partitions) run on threads with collectives meeting across them
// (Evaluator::RunReplicated).
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "abi/sdk/plugin.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/ir/annotation_targets.h"
#include "core/passes/topk_custom_call_rewriter.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/custom_call.h"

namespace plexa::reference {
namespace {

using sdk::Buffer;
using sdk::Device;

// 64-byte aligned device memory.
class DeviceMemory {
 public:
  explicit DeviceMemory(size_t size)
      : size_(size),
        data_(static_cast<uint8_t*>(
            ::operator new[](size ? size : 1, std::align_val_t(64)))) {}
  ~DeviceMemory() { ::operator delete[](data_, std::align_val_t(64)); }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  uint8_t* data() { return data_; }
  size_t size() const { return size_; }

 private:
  size_t size_;
  uint8_t* data_;
};

// A buffer holding a literal's bytes in the buffer's own layout.
class ReferenceBuffer : public Buffer {
 public:
  ReferenceBuffer(Shape shape, Device* device)
      : Buffer(std::move(shape), device),
        memory_(std::make_unique<DeviceMemory>(
            ShapeUtil::ByteSizeOf(this->shape()))) {}

  size_t on_device_size() const override {
    return memory_ ? memory_->size() : 0;
  }
  uint8_t* data() { return memory_->data(); }

  absl::Status ToHost(void* dst, const Shape& host_shape) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!memory_) return absl::FailedPreconditionError("buffer was deleted");
    auto literal = ToLiteralLocked();
    if (!literal.ok()) return literal.status();
    if (!(LayoutUtil::EffectiveLayout(host_shape) ==
          LayoutUtil::EffectiveLayout(shape()))) {
      auto relaid = literal->Relayout(LayoutUtil::EffectiveLayout(host_shape));
      if (!relaid.ok()) return relaid.status();
      *literal = std::move(*relaid);
    }
    // memcpy's pointers must be non-null even for zero bytes: a zero-size
    // array has no storage on either side.
    if (!literal->data().empty()) {
      std::memcpy(dst, literal->data().data(), literal->data().size());
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Literal> ToLiteral() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!memory_) return absl::FailedPreconditionError("buffer was deleted");
    return ToLiteralLocked();
  }

  void Delete() override {
    std::lock_guard<std::mutex> lock(mu_);
    memory_.reset();
  }
  bool IsDeleted() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return memory_ == nullptr;
  }

 private:
  // Requires mu_ held.
  absl::StatusOr<Literal> ToLiteralLocked() const {
    Literal literal(shape());
    if (memory_->size() > 0) {
      std::memcpy(literal.mutable_data().data(), memory_->data(),
                  memory_->size());
    }
    return literal;
  }

  // std::mutex rather than absl::Mutex so ThreadSanitizer sees it (Debian's
  // absl has no TSan annotations; see abi/sdk/event.h).
  mutable std::mutex mu_;
  std::unique_ptr<DeviceMemory> memory_;  // guarded by mu_
};

absl::StatusOr<std::unique_ptr<ReferenceBuffer>> BufferFromLiteral(
    const Literal& literal, Device* device) {
  auto b = std::make_unique<ReferenceBuffer>(literal.shape(), device);
  if (!literal.data().empty()) {
    std::memcpy(b->data(), literal.data().data(), literal.data().size());
  }
  return b;
}

// The ABI's flattening (tuples to their array leaves, tokens left out),
// with the default layout where the program gives none.
std::vector<Shape> ArrayLeaves(const Shape& shape) {
  std::vector<Shape> out = ShapeUtil::ArrayLeafShapes(shape);
  for (Shape& s : out) LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  return out;
}

// The typed custom calls of a module, by instruction (compiled once).
using TypedCalls =
    absl::flat_hash_map<const Instruction*,
                        std::shared_ptr<const sdk::TypedCustomCall>>;

// Runs typed custom call `call` on `operands` (in the default layout): its
// operands' array leaves, relaid out to its operand_layout_constraints
// when it has them, and its result's leaves, in its result layout when
// constrained (else row-major), make the frame.
absl::StatusOr<Literal> RunTypedCall(const sdk::TypedCustomCall& typed,
                                     const Instruction& call,
                                     absl::Span<const Literal* const> operands,
                                     const sdk::CallFrameContext* context) {
  const bool constrained = call.attrs().has_layout_constraints;
  std::vector<Literal> args;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<Shape> wanted;
    if (constrained && i < call.attrs().operand_shapes_with_layout.size()) {
      wanted = ArrayLeaves(call.attrs().operand_shapes_with_layout[i]);
    }
    std::vector<Literal> leaves = FlattenArrayLeaves(*operands[i]);
    for (size_t k = 0; k < leaves.size(); ++k) {
      if (k < wanted.size()) {
        absl::StatusOr<Literal> moved =
            leaves[k].Relayout(LayoutUtil::EffectiveLayout(wanted[k]));
        if (!moved.ok()) return moved.status();
        leaves[k] = std::move(*moved);
      }
      args.push_back(std::move(leaves[k]));
    }
  }
  std::vector<Literal> results;
  for (Shape s : ArrayLeaves(call.shape())) {
    if (!constrained) LayoutUtil::SetToDefaultLayout(&s);
    results.emplace_back(s);
  }
  std::vector<sdk::CallFrameArray> arg_arrays, result_arrays;
  for (Literal& a : args) {
    arg_arrays.push_back({a.mutable_data().data(), &a.shape()});
  }
  for (Literal& r : results) {
    result_arrays.push_back({r.mutable_data().data(), &r.shape()});
  }
  absl::Status s =
      sdk::CallTypedCustomCall(typed, arg_arrays, result_arrays, context);
  if (!s.ok()) return s;
  return AssembleFromArrayLeaves(call.shape(), std::move(results));
}

class ReferenceExecutable : public sdk::Executable {
 public:
  ReferenceExecutable(
      std::unique_ptr<Module> module, std::vector<Device*> replica_devices,
      int64_t num_partitions,
      absl::flat_hash_map<std::string, sdk::CustomCallTarget> targets,
      TypedCalls typed_calls)
      : module_(std::move(module)),
        replica_devices_(std::move(replica_devices)),
        num_partitions_(num_partitions),
        targets_(std::move(targets)),
        typed_calls_(std::move(typed_calls)) {
    program_ = module_->entry_computation()->ComputeProgramShape();
    program_.parameter_names.clear();
    for (const Shape& p : program_.parameters) {
      std::vector<Shape> leaves = ArrayLeaves(p);
      parameter_leaf_counts_.push_back(leaves.size());
      parameters_.insert(parameters_.end(), leaves.begin(), leaves.end());
    }
    outputs_ = ArrayLeaves(program_.result);
  }

  std::string program_shape() const override { return program_.ToString(); }

  const std::vector<Shape>& parameter_shapes() const override {
    return parameters_;
  }
  const std::vector<Shape>& output_shapes() const override { return outputs_; }
  int64_t num_replicas() const override {
    return static_cast<int64_t>(replica_devices_.size()) / num_partitions_;
  }
  int64_t num_partitions() const override { return num_partitions_; }

  absl::StatusOr<sdk::ExecuteResult> ExecuteWithOptions(
      absl::Span<const std::vector<Buffer*>> args,
      const sdk::ExecuteOptions& execute_options) override {
    // The arguments are the parameters' array leaves: rebuild each
    // parameter (tuples, tokens) from its share of them.
    std::vector<std::vector<Literal>> inputs(args.size());
    for (size_t r = 0; r < args.size(); ++r) {
      size_t next = 0;
      for (size_t p = 0; p < program_.parameters.size(); ++p) {
        std::vector<Literal> leaves;
        for (size_t i = 0; i < parameter_leaf_counts_[p]; ++i) {
          auto lit =
              static_cast<ReferenceBuffer*>(args[r][next++])->ToLiteral();
          if (!lit.ok()) return lit.status();
          leaves.push_back(std::move(*lit));
        }
        absl::StatusOr<Literal> param =
            AssembleFromArrayLeaves(program_.parameters[p], std::move(leaves));
        if (!param.ok()) return param.status();
        inputs[r].push_back(std::move(*param));
      }
    }
    EvaluatorOptions options;
    options.feeds = execute_options.feeds.get();
    const auto* targets = &targets_;
    options.custom_call_resolver =
        [targets](absl::string_view name) -> CustomCallTarget {
      auto it = targets->find(name);
      return it == targets->end() || it->second.api_version != 0
                 ? nullptr
                 : reinterpret_cast<CustomCallTarget>(it->second.function);
    };
    // Typed targets (api_version 1) get a PLX_CallFrame over the operands'
    // and the result's array leaves: row-major, or in the custom call's
    // operand_layout_constraints and result layout when it has them.
    const auto* typed_calls = &typed_calls_;
    const sdk::CallFrameContext* call_frames =
        execute_options.call_frames.get();
    options.custom_call_handler =
        [targets, typed_calls,
         call_frames](absl::string_view name) -> CustomCallHandler {
      auto target = targets->find(name);
      if (target == targets->end() || target->second.api_version != 1) {
        return nullptr;
      }
      return
          [typed_calls, call_frames](const Instruction& call,
                                     absl::Span<const Literal* const> operands)
              -> absl::StatusOr<Literal> {
            auto it = typed_calls->find(&call);
            if (it == typed_calls->end()) {
              return absl::InternalError(
                  absl::StrCat("custom-call ", call.name(),
                               " was not compiled as a typed call"));
            }
            return RunTypedCall(*it->second, call, operands, call_frames);
          };
    };
    // Verified at compile time; not again per run.
    options.verify_module = false;
    // rng-get-and-update-state's states live as long as the executable.
    options.rng_states = &rng_states_;
    options.num_partitions = num_partitions_;
    Evaluator evaluator(std::move(options));
    std::vector<Literal> results;
    if (args.size() == 1) {
      auto r = evaluator.Run(*module_, inputs[0]);
      if (!r.ok()) return r.status();
      results.push_back(std::move(*r));
    } else {
      auto r = evaluator.RunReplicated(*module_, inputs);
      if (!r.ok()) return r.status();
      results = std::move(*r);
    }
    sdk::ExecuteResult out;
    out.outputs.resize(results.size());
    for (size_t r = 0; r < results.size(); ++r) {
      for (Literal& leaf : FlattenArrayLeaves(std::move(results[r]))) {
        auto b = BufferFromLiteral(leaf, replica_devices_[r]);
        if (!b.ok()) return b.status();
        out.outputs[r].push_back(std::move(*b));
      }
    }
    return out;
  }

 private:
  std::unique_ptr<Module> module_;
  std::vector<Device*> replica_devices_;  // replicas x partitions
  int64_t num_partitions_;
  absl::flat_hash_map<std::string, sdk::CustomCallTarget> targets_;
  TypedCalls typed_calls_;  // the typed custom calls of module_
  ProgramShape program_;    // the entry signature, without names
  std::vector<size_t> parameter_leaf_counts_;
  std::vector<Shape> parameters_;  // array leaves
  std::vector<Shape> outputs_;     // array leaves
  RngStateTable rng_states_;       // rng-get-and-update-state, across runs
};

class ReferenceClient : public sdk::Client {
 public:
  explicit ReferenceClient(int64_t num_devices) {
    for (int64_t i = 0; i < num_devices; ++i) {
      devices_owned_.push_back(
          std::make_unique<Device>(i, "reference:virtual", 0));
      devices_.push_back(devices_owned_.back().get());
    }
  }

  absl::Span<Device* const> devices() const override { return devices_; }

  absl::StatusOr<std::unique_ptr<Buffer>> BufferFromHost(
      const void* data, const Shape& shape, Device* device) override {
    auto b = std::make_unique<ReferenceBuffer>(shape, device);
    if (b->on_device_size() > 0) {
      std::memcpy(b->data(), data, b->on_device_size());
    }
    return b;
  }

  absl::StatusOr<std::unique_ptr<sdk::Executable>> Compile(
      std::unique_ptr<Module> module, const sdk::CompileOptions& options,
      const sdk::CustomCallResolver& resolver) override {
    absl::StatusOr<std::vector<Device*>> assigned =
        sdk::AssignedDevices(*this, options.device_assignment);
    if (!assigned.ok()) return assigned.status();
    std::vector<Device*> replica_devices = std::move(*assigned);
    // No optimization pipeline here, but XLA's well-known TopK custom call
    // becomes the topk opcode as in every other plugin's pipeline (no
    // backend registers a "TopK" target).
    absl::StatusOr<bool> rewritten = TopKCustomCallRewriter().Run(*module);
    if (!rewritten.ok()) return rewritten.status();
    // Resolve every custom-call target now (the toolkit's checks): a
    // missing one is a compile error naming it and where it was looked for.
    // The targets hold their libraries for as long as the executable lives.
    absl::flat_hash_map<std::string, sdk::CustomCallTarget> targets;
    TypedCalls typed_calls;
    for (Computation* c : module->computations()) {
      for (Instruction* inst : c->instructions()) {
        if (inst->opcode() != HloOpcode::kCustomCall) continue;
        // XLA's annotation targets (Sharding, MoveToHost, ...) have no
        // library: the evaluator runs them as identities, or this is the
        // error naming the target.
        if (IsAnnotationTarget(inst->attrs().custom_call_target)) {
          absl::Status identity = CheckAnnotationIsIdentity(
              *inst, absl::StrCat("the reference plugin: computation '",
                                  c->name(), "': "));
          if (!identity.ok()) return identity;
          continue;
        }
        auto target = backend::ResolveCustomCallTarget(*inst, resolver,
                                                       "the reference plugin");
        if (!target.ok()) return target.status();
        if (target->api_version == 1) {
          // Typed: its attributes are parsed now, once.
          auto typed =
              sdk::TypedCustomCall::Create(*inst, *target, "reference");
          if (!typed.ok()) return typed.status();
          typed_calls[inst] = std::move(*typed);
        }
        targets[inst->attrs().custom_call_target] = *std::move(target);
      }
    }
    return std::make_unique<ReferenceExecutable>(
        std::move(module), std::move(replica_devices), options.num_partitions,
        std::move(targets), std::move(typed_calls));
  }

 private:
  std::vector<std::unique_ptr<Device>> devices_owned_;
  std::vector<Device*> devices_;
};

class ReferencePlugin : public sdk::Plugin {
 public:
  sdk::PluginInfo Info() const override {
    sdk::PluginInfo info;
    info.name = "reference";
    info.vendor = "Plexa";
    info.version = "0.1.0";
    info.platform = "host";
    info.formats = {"plexa-module", "hlo-text"};
    info.capabilities = PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL |
                        PLX_CAPABILITY_CUSTOM_CALL_TYPED |
                        PLX_CAPABILITY_REPLICAS | PLX_CAPABILITY_PARTITIONS |
                        PLX_CAPABILITY_FEEDS | PLX_CAPABILITY_TUPLE_PARAMETERS;
    return info;
  }

  absl::StatusOr<std::unique_ptr<sdk::Client>> CreateClient(
      const sdk::Options& options) override {
    static constexpr const char* kKnown[] = {"num_devices"};
    if (absl::Status s = sdk::CheckKnownOptions(options, kKnown, "reference");
        !s.ok()) {
      return s;
    }
    auto n = sdk::GetIntOptionInRange(options, "num_devices", 1, 1, 1024);
    if (!n.ok()) return n.status();
    return std::make_unique<ReferenceClient>(*n);
  }
};

std::unique_ptr<sdk::Plugin> MakeReferencePlugin() {
  return std::make_unique<ReferencePlugin>();
}

}  // namespace
}  // namespace plexa::reference

PLEXA_DEFINE_PLUGIN(plexa::reference::MakeReferencePlugin)
