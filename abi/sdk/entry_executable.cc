// The C entry points for compiling, executables (signature, execute with
// host feeds, serialization) and custom-call registration.
#include <algorithm>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "abi/sdk/entry_util.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/ir/memory_limit.h"
#include "core/proto/module_proto.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"

namespace plexa::sdk::internal {

// ------------------------------------------------------------------ Compile

absl::StatusOr<CompileOptions> ReadCompileOptions(const PLX_CompileOptions* o,
                                                  const char* fn) {
  CompileOptions out;
  if (o == nullptr) return out;
  // Grown in 1.3 (num_partitions): an older caller's struct is fine.
  if (o->struct_size < PLX_CompileOptions_STRUCT_SIZE_1_0 ||
      o->struct_size > kMaxStructSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": options->struct_size is ", o->struct_size,
        ", expected at least ", PLX_CompileOptions_STRUCT_SIZE_1_0));
  }
  out.num_replicas = o->num_replicas == 0 ? 1 : o->num_replicas;
  if (out.num_replicas < 0 || out.num_replicas > 4096) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": num_replicas ", o->num_replicas, " out of range"));
  }
  if (o->struct_size >= PLX_CompileOptions_STRUCT_SIZE) {
    out.num_partitions = o->num_partitions == 0 ? 1 : o->num_partitions;
    if (out.num_partitions < 0 ||
        out.num_partitions * out.num_replicas > 4096) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": num_partitions ", o->num_partitions, " out of range (",
          out.num_replicas, " replica(s) x partitions must be at most 4096)"));
    }
  }
  if (o->device_assignment != nullptr) {
    out.device_assignment.assign(
        o->device_assignment,
        o->device_assignment + out.num_replicas * out.num_partitions);
  }
  out.optimization_level = o->optimization_level;
  if (o->num_custom_call_libraries > 0 && o->custom_call_libraries == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": custom_call_libraries is NULL"));
  }
  for (size_t i = 0; i < o->num_custom_call_libraries; ++i) {
    if (o->custom_call_libraries[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": custom_call_libraries[", i, "] is NULL"));
    }
    out.custom_call_libraries.emplace_back(o->custom_call_libraries[i]);
  }
  auto opts = ReadOptions(o->options, o->num_options, fn);
  if (!opts.ok()) return opts.status();
  out.options = std::move(*opts);
  return out;
}

// A plugin's signature must be flat (array leaves only): a tuple or token
// shape cannot be described by a PLX_ArrayShape.
absl::Status CheckFlatSignature(const Executable& exe, const char* fn) {
  for (const auto* list : {&exe.parameter_shapes(), &exe.output_shapes()}) {
    for (const Shape& s : *list) {
      if (!s.IsArray()) {
        return absl::InternalError(absl::StrCat(
            fn, ": the plugin's executable lists a ",
            list == &exe.parameter_shapes() ? "parameter" : "output",
            " of shape ", s.ToString(),
            "; signatures hold array leaves only "
            "(ShapeUtil::ArrayLeafShapes)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<PLX_Executable*> WrapExecutable(
    PLX_Client* client, std::unique_ptr<Executable> exe,
    std::shared_ptr<CustomCallResolver> resolver,
    std::vector<int64_t> device_assignment) {
  auto h = std::make_unique<PLX_Executable>();
  if (device_assignment.empty()) {
    auto ids = client->impl->DefaultDeviceAssignment(exe->num_replicas() *
                                                     exe->num_partitions());
    if (ids.ok()) device_assignment = std::move(*ids);
  }
  auto devices = AssignedDevices(*client->impl, device_assignment);
  if (devices.ok()) h->replica_devices = std::move(*devices);
  for (const Shape& s : exe->parameter_shapes()) {
    PLEXA_RETURN_IF_ERROR(h->parameter_storage.emplace_back().Set(s));
  }
  for (const Shape& s : exe->output_shapes()) {
    PLEXA_RETURN_IF_ERROR(h->output_storage.emplace_back().Set(s));
  }
  for (auto& s : h->parameter_storage) h->parameters.push_back(s.view);
  for (auto& s : h->output_storage) h->outputs.push_back(s.view);
  h->program_shape = exe->program_shape();
  h->impl = std::move(exe);
  h->client = client;
  h->resolver = std::move(resolver);
  client->live_executables.fetch_add(1);
  RegisterHandle(h.get(), HandleKind::kExecutable);
  return h.release();
}

PLX_Error* ClientCompile(PLX_Client_Compile_Args* args) {
  constexpr const char* fn = "PLX_Client_Compile";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_Compile_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    if (args->program == nullptr || args->format == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": program and format must not be NULL"));
    }
    const std::string format = args->format;
    bool accepted = false;
    for (const std::string& f : g_info->formats) accepted |= f == format;
    if (!accepted) {
      std::string list;
      for (const std::string& f : g_info->formats) {
        absl::StrAppend(&list, list.empty() ? "" : ", ", f);
      }
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": plugin '", g_info->name, "' does not accept format '", format,
          "' (accepts: ", list, ")"));
    }
    auto options = ReadCompileOptions(args->options, fn);
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<Module>> module;
    if (format == "hlo-text") {
      module =
          ParseHloModule(absl::string_view(args->program, args->program_size));
    } else if (format == kModuleFormatName) {
      // DeserializeModule verifies what it returns.
      module = DeserializeModule(
          absl::string_view(args->program, args->program_size));
    } else {
      return absl::UnimplementedError(
          absl::StrCat(fn, ": no decoder for format '", format, "'"));
    }
    if (!module.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("program: ", module.status().message()));
    }
    if (format != kModuleFormatName) {
      PLEXA_RETURN_IF_ERROR(VerifyModule(**module));
    }
    PLEXA_RETURN_IF_ERROR(
        CheckModuleFitsLimit(**module, args->client->memory_limit_bytes));
    auto resolver = CustomCallResolver::Create(options->custom_call_libraries);
    if (!resolver.ok()) return resolver.status();
    if (options->device_assignment.empty()) {
      auto ids = args->client->impl->DefaultDeviceAssignment(
          options->num_replicas * options->num_partitions);
      if (!ids.ok()) return ids.status();
      options->device_assignment = std::move(*ids);
    }
    auto exe =
        args->client->impl->Compile(std::move(*module), *options, **resolver);
    if (!exe.ok()) return exe.status();
    if ((*exe)->num_partitions() != options->num_partitions) {
      // A plugin that knows nothing of partitions compiled the program for
      // one: running it per partition would give part of the answer.
      return absl::UnimplementedError(
          absl::StrCat(fn, ": the plugin compiled the program for ",
                       (*exe)->num_partitions(), " partition(s), not the ",
                       options->num_partitions,
                       " asked for (it does not run SPMD partitions)"));
    }
    PLEXA_RETURN_IF_ERROR(CheckFlatSignature(**exe, fn));
    PLEXA_ASSIGN_OR_RETURN(
        args->executable,
        WrapExecutable(args->client, std::move(*exe), std::move(*resolver),
                       options->device_assignment));
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args) {
  return Guard("PLX_Executable_Destroy", [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Destroy_Args, "PLX_Executable_Destroy");
    if (args->executable == nullptr) return absl::OkStatus();
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      "PLX_Executable_Destroy", "executable"));
    UnregisterHandle(args->executable);
    args->executable->client->live_executables.fetch_sub(1);
    delete args->executable;
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableSignature(PLX_Executable_Signature_Args* args) {
  constexpr const char* fn = "PLX_Executable_Signature";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.1: a 1.0 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Executable_Signature_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    PLX_Executable* e = args->executable;
    args->parameters = e->parameters.data();
    args->num_parameters = e->parameters.size();
    args->outputs = e->outputs.data();
    args->num_outputs = e->outputs.size();
    args->num_replicas = e->impl->num_replicas();
    // A 1.0 caller's struct ends before program_shape, a 1.1/1.2 caller's
    // before num_partitions: not written then.
    if (args->struct_size >= PLX_Executable_Signature_Args_STRUCT_SIZE_1_1) {
      args->program_shape =
          e->program_shape.empty() ? nullptr : e->program_shape.c_str();
    }
    if (args->struct_size >= PLX_Executable_Signature_Args_STRUCT_SIZE) {
      args->num_partitions = e->impl->num_partitions();
    }
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableStatistics(PLX_Executable_Statistics_Args* args) {
  constexpr const char* fn = "PLX_Executable_Statistics";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Statistics_Args, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    PLX_Executable* e = args->executable;
    absl::StatusOr<sdk::ExecutableStatistics> stats = e->impl->Statistics();
    if (!stats.ok()) {
      return absl::Status(stats.status().code(),
                          absl::StrCat(fn, ": ", stats.status().message()));
    }
    {
      // The string lives in the handle, as long as the executable.
      std::lock_guard<std::mutex> lock(e->statistics_mu);
      if (e->fingerprint.empty()) e->fingerprint = stats->fingerprint;
      args->fingerprint =
          e->fingerprint.empty() ? nullptr : e->fingerprint.c_str();
    }
    args->flops = stats->flops;
    args->transcendentals = stats->transcendentals;
    args->bytes_accessed = stats->bytes_accessed;
    args->argument_bytes = stats->argument_bytes;
    args->output_bytes = stats->output_bytes;
    args->temp_bytes = stats->temp_bytes;
    args->generated_code_bytes = stats->generated_code_bytes;
    return absl::OkStatus();
  });
}

// HostFeeds over a PLX_FeedsExtension: the plugin's side of the host's
// feed callbacks. Each call lays the value out as the ABI says (array leaves,
// depth first, default row-major layout) and converts a failure code and
// message into a status.
class AbiFeeds : public HostFeeds {
 public:
  explicit AbiFeeds(const PLX_FeedsExtension& ext)
      : user_data_(ext.user_data), infeed_(ext.infeed), outfeed_(ext.outfeed) {}

  absl::StatusOr<Literal> Infeed(int64_t replica, absl::string_view instruction,
                                 const Shape& data_shape) override {
    if (infeed_ == nullptr) {
      return absl::FailedPreconditionError(
          "the host's PLX_FeedsExtension has no infeed callback");
    }
    Shape shape = data_shape;
    LayoutUtil::SetToDefaultLayout(&shape);
    Literal value(shape);
    std::vector<Literal*> leaves;
    CollectLeaves(&value, &leaves);
    PLEXA_RETURN_IF_ERROR(Call(infeed_, replica, instruction, shape, leaves));
    return value;
  }

  absl::Status Outfeed(int64_t replica, absl::string_view instruction,
                       Literal value) override {
    if (outfeed_ == nullptr) {
      return absl::FailedPreconditionError(
          "the host's PLX_FeedsExtension has no outfeed callback");
    }
    Shape shape = value.shape();
    LayoutUtil::SetToDefaultLayout(&shape);
    std::vector<Literal*> leaves;
    CollectLeaves(&value, &leaves);
    for (Literal* leaf : leaves) {
      Shape want = leaf->shape();
      LayoutUtil::SetToDefaultLayout(&want);
      if (!(LayoutUtil::EffectiveLayout(leaf->shape()) == want.layout())) {
        absl::StatusOr<Literal> moved = leaf->Relayout(want.layout());
        if (!moved.ok()) return moved.status();
        *leaf = std::move(*moved);
      }
    }
    return Call(outfeed_, replica, instruction, shape, leaves);
  }

 private:
  static void CollectLeaves(Literal* value, std::vector<Literal*>* out) {
    if (value->shape().IsTuple()) {
      for (int64_t i = 0; i < value->tuple_element_count(); ++i) {
        CollectLeaves(value->mutable_tuple_element(i), out);
      }
    } else if (value->shape().IsArray()) {
      out->push_back(value);
    }
  }

  absl::Status Call(PLX_Feed_Callback* fn, int64_t replica,
                    absl::string_view instruction, const Shape& shape,
                    const std::vector<Literal*>& leaves) {
    std::vector<ArrayShapeStorage> storage(leaves.size());
    std::vector<PLX_ArrayShape> views;
    std::vector<void*> data;
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (primitive_util::IsSubByteType(leaves[i]->shape().element_type())) {
        // Feed leaves are handed over in place, a byte an element: the
        // packed form the ABI defines would need a copy each way.
        return absl::UnimplementedError(absl::StrCat(
            "host feeds of instruction '", instruction, "': leaf ", i, " is ",
            leaves[i]->shape().ToString(),
            "; packed sub-byte values do not travel through feeds"));
      }
      PLEXA_RETURN_IF_ERROR(storage[i].Set(leaves[i]->shape()));
      storage[i].view.minor_to_major = nullptr;  // row-major by contract
      views.push_back(storage[i].view);
      data.push_back(leaves[i]->mutable_data().data());
    }
    const std::string name(instruction);
    const std::string shape_text = shape.ToString(true);
    PLX_FeedArgs args{};
    args.struct_size = PLX_FeedArgs_STRUCT_SIZE;
    args.replica = replica;
    args.instruction = name.c_str();
    args.shape = shape_text.c_str();
    args.leaves = views.data();
    args.num_leaves = views.size();
    args.data = data.data();
    const int32_t code = fn(user_data_, &args);
    if (code == PLX_Error_Code_OK) return absl::OkStatus();
    const absl::StatusCode status_code =
        code > 0 && code <= PLX_Error_Code_UNAUTHENTICATED
            ? static_cast<absl::StatusCode>(code)
            : absl::StatusCode::kUnknown;
    return absl::Status(
        status_code,
        absl::StrCat("the host's ", fn == infeed_ ? "infeed" : "outfeed",
                     " callback failed: ",
                     args.error_message != nullptr ? args.error_message
                                                   : "(no message)"));
  }

  void* user_data_;
  PLX_Feed_Callback* infeed_;
  PLX_Feed_Callback* outfeed_;
};

// Profiler over a PLX_ProfilerExtension: the plugin's side of the host's
// profile callback.
class AbiProfiler : public Profiler {
 public:
  explicit AbiProfiler(const PLX_ProfilerExtension& ext)
      : user_data_(ext.user_data), callback_(ext.callback) {}
  void Record(const ProfileEvent& e) override {
    // The strings must be NUL-terminated for C: copies (a profiled run
    // pays for them; an unprofiled one never gets here).
    const std::string name(e.name), kind(e.kind);
    PLX_ProfileEvent event{};
    event.struct_size = PLX_ProfileEvent_STRUCT_SIZE;
    event.name = name.c_str();
    event.kind = kind.c_str();
    event.replica = e.replica;
    event.thread_id = e.thread_id;
    event.begin_ns = e.begin_ns;
    event.end_ns = e.end_ns;
    callback_(user_data_, &event);
  }

 private:
  void* user_data_;
  PLX_Profile_Callback* callback_;
};

// Reads the extensions of an Execute call that this SDK knows; unknown
// types are skipped, as the ABI says.
absl::Status ReadExecuteExtensions(PLX_Extension* chain, const char* fn,
                                   ExecuteOptions* options) {
  int hops = 0;
  for (PLX_Extension* e = chain; e != nullptr; e = e->next) {
    if (++hops > 256) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": the extension chain has more than 256 links (a cycle?)"));
    }
    if (e->type == PLX_ExtensionType_PROFILER) {
      if (e->struct_size < PLX_ProfilerExtension_STRUCT_SIZE ||
          e->struct_size > kMaxStructSize) {
        return absl::InvalidArgumentError(absl::StrCat(
            fn, ": PLX_ProfilerExtension struct_size is ", e->struct_size,
            ", expected at least ", PLX_ProfilerExtension_STRUCT_SIZE));
      }
      const auto& ext = *reinterpret_cast<const PLX_ProfilerExtension*>(e);
      if (ext.callback == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": PLX_ProfilerExtension.callback is NULL"));
      }
      if (options->profiler != nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": two PLX_ProfilerExtension in one call"));
      }
      options->profiler = std::make_shared<AbiProfiler>(ext);
      continue;
    }
    if (e->type != PLX_ExtensionType_FEEDS) continue;
    if (e->struct_size < PLX_FeedsExtension_STRUCT_SIZE ||
        e->struct_size > kMaxStructSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": PLX_FeedsExtension struct_size is ", e->struct_size,
          ", expected at least ", PLX_FeedsExtension_STRUCT_SIZE));
    }
    if (options->feeds != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": two PLX_FeedsExtension in one call"));
    }
    options->feeds = std::make_shared<AbiFeeds>(
        *reinterpret_cast<const PLX_FeedsExtension*>(e));
  }
  return absl::OkStatus();
}

// What one Execute call needs once it runs: the executable, its options,
// and per replica the argument slots and the output slots the host got.
struct ExecutionPlan {
  std::shared_ptr<Executable> exe;
  ExecuteOptions options;
  std::vector<std::vector<std::shared_ptr<BufferSlot>>> args;
  std::vector<std::vector<std::shared_ptr<BufferSlot>>> outputs;  // queued
  std::vector<std::shared_ptr<Event>> completion;                 // queued
};

// Runs a queued execution (every dependency ready, `waited` their first
// error) and completes its output slots and completion events.
void RunQueuedExecution(ExecutionPlan& plan, absl::Status waited) {
  const auto fail = [&plan](const absl::Status& s) {
    for (auto& replica : plan.outputs) {
      for (auto& slot : replica) slot->Fulfil(s);
    }
    for (auto& e : plan.completion) e->Set(s);
  };
  if (!waited.ok()) return fail(waited);
  std::vector<std::vector<Buffer*>> per_replica(plan.args.size());
  for (size_t r = 0; r < plan.args.size(); ++r) {
    for (const auto& slot : plan.args[r])
      per_replica[r].push_back(slot->impl());
  }
  auto result = plan.exe->ExecuteWithOptions(per_replica, plan.options);
  if (!result.ok()) return fail(result.status());
  if (result->outputs.size() != plan.outputs.size()) {
    return fail(absl::InternalError(
        absl::StrCat("the plugin returned outputs for ", result->outputs.size(),
                     " replicas, expected ", plan.outputs.size())));
  }
  for (size_t r = 0; r < plan.outputs.size(); ++r) {
    for (size_t i = 0; i < plan.outputs[r].size(); ++i) {
      plan.outputs[r][i]->Fulfil(std::move(result->outputs[r][i]));
    }
    if (result->completion.empty()) {
      plan.completion[r]->Set(absl::OkStatus());
    } else {
      Forward(result->completion[r], plan.completion[r]);
    }
  }
}

// Checks the donated indices: in range, none twice, and no donated buffer
// passed a second time in its replica.
absl::Status CheckDonated(const PLX_Executable_Execute_Args* args,
                          size_t num_params,
                          const std::vector<std::vector<PLX_Buffer*>>& handles,
                          const char* fn) {
  if (args->num_donated > 0 && args->donated == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": num_donated is ", args->num_donated, " but donated is NULL"));
  }
  for (size_t d = 0; d < args->num_donated; ++d) {
    const int64_t index = args->donated[d];
    if (index < 0 || static_cast<size_t>(index) >= num_params) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": donated argument index ", index,
                       " out of range (", num_params, " arguments)"));
    }
    for (size_t e = 0; e < d; ++e) {
      if (args->donated[e] == index) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": argument ", index, " is donated twice"));
      }
    }
    for (size_t r = 0; r < handles.size(); ++r) {
      for (size_t i = 0; i < handles[r].size(); ++i) {
        if (i != static_cast<size_t>(index) &&
            handles[r][i] == handles[r][index]) {
          return absl::InvalidArgumentError(
              absl::StrCat(fn, ": arguments[", r, "][", index,
                           "] is donated and also passed as argument ", i));
        }
      }
    }
  }
  return absl::OkStatus();
}

PLX_Error* ExecutableExecute(PLX_Executable_Execute_Args* args) {
  constexpr const char* fn = "PLX_Executable_Execute";
  return Guard(fn, [&]() -> absl::Status {
    // Grown in 1.2: a 1.0/1.1 caller's smaller struct is fine.
    PLX_CHECK_ARGS_SIZE(PLX_Executable_Execute_Args_STRUCT_SIZE_1_0, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    PLX_Executable* e = args->executable;
    std::shared_ptr<Executable> exe = e->impl;
    // Every device of the execution: replicas x partitions (1.3).
    const size_t replicas =
        static_cast<size_t>(exe->num_replicas() * exe->num_partitions());
    if (args->num_replicas != replicas) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": executable was compiled for ", exe->num_replicas(),
          " replica(s)",
          exe->num_partitions() > 1
              ? absl::StrCat(" x ", exe->num_partitions(), " partition(s)")
              : std::string(),
          ", num_replicas is ", args->num_replicas));
    }
    const auto& params = exe->parameter_shapes();
    const auto& output_shapes = exe->output_shapes();
    if (args->num_arguments != params.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": the program takes ", params.size(),
                       " argument(s), num_arguments is ", args->num_arguments));
    }
    if (args->num_outputs < output_shapes.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": the program has ", output_shapes.size(),
          " output(s), the outputs arrays have room for ", args->num_outputs));
    }
    if ((params.size() > 0 && args->arguments == nullptr) ||
        args->outputs == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": arguments or outputs is NULL"));
    }
    ExecutionPlan plan;
    plan.exe = exe;
    plan.args.resize(replicas);
    std::vector<std::vector<PLX_Buffer*>> handles(replicas);
    for (size_t r = 0; r < replicas; ++r) {
      if (args->outputs[r] == nullptr && !output_shapes.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": outputs[", r, "] is NULL"));
      }
      if (params.empty()) continue;
      if (args->arguments[r] == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(fn, ": arguments[", r, "] is NULL"));
      }
      for (size_t i = 0; i < params.size(); ++i) {
        PLX_Buffer* b = args->arguments[r][i];
        const std::string what = absl::StrCat("arguments[", r, "][", i, "]");
        PLEXA_RETURN_IF_ERROR(
            CheckHandle(b, HandleKind::kBuffer, fn, what.c_str()));
        if (b->client != e->client) {
          return absl::InvalidArgumentError(
              absl::StrCat(fn, ": ", what, " belongs to another client"));
        }
        PLEXA_RETURN_IF_ERROR(
            b->slot->CheckUsable(absl::StrCat(fn, ": ", what)));
        if (!Shape::Equal().IgnoreLayout()(b->slot->shape(), params[i])) {
          return absl::InvalidArgumentError(absl::StrCat(
              fn, ": ", what, " has shape ", b->slot->shape().ToString(),
              " but parameter ", i, " is ", params[i].ToString()));
        }
        handles[r].push_back(b);
        plan.args[r].push_back(b->slot);
      }
    }
    PLEXA_RETURN_IF_ERROR(CheckDonated(args, params.size(), handles, fn));
    PLEXA_ASSIGN_OR_RETURN(EventList waits, ReadWaitEvents(args, fn));
    PLEXA_RETURN_IF_ERROR(
        ReadExecuteExtensions(args->extension_start, fn, &plan.options));
    plan.options.call_frames = e->client->call_frames;
    EventList deps = waits;
    bool all_made = true;  // every argument's plugin buffer exists
    for (const auto& replica : plan.args) {
      for (const auto& slot : replica) {
        deps.push_back(slot->ready());
        all_made &= slot->impl() != nullptr;
      }
    }
    const bool synchronous = args->completion_events == nullptr;
    plan.options.synchronous = synchronous;
    if (synchronous) PLEXA_RETURN_IF_ERROR(AwaitAll(deps));
    // Where the work runs: now, by the plugin that orders it itself, or
    // queued until its dependencies are ready.
    const bool ready = AllReady(deps);
    const absl::Status waited = ready ? FirstError(deps) : absl::OkStatus();
    const bool plugin_orders =
        !ready && exe->AcceptsPendingArguments() && all_made;
    std::vector<std::vector<std::shared_ptr<BufferSlot>>> outputs(replicas);
    std::vector<std::shared_ptr<Event>> completion(replicas);
    if (ready && !waited.ok()) {
      // A dependency already failed: so do the outputs, at once.
      for (size_t r = 0; r < replicas; ++r) {
        Device* dev =
            r < e->replica_devices.size() ? e->replica_devices[r] : nullptr;
        for (const Shape& s : output_shapes) {
          outputs[r].push_back(BufferSlot::Failed(s, dev, waited));
        }
        completion[r] = Event::Ready(waited);
      }
    } else if (ready || plugin_orders) {
      if (exe->AcceptsPendingArguments()) {
        plan.options.wait_events = waits;
        for (size_t d = 0; d < args->num_donated; ++d) {
          plan.options.donated.push_back(args->donated[d]);
        }
      }
      std::vector<std::vector<Buffer*>> per_replica(replicas);
      for (size_t r = 0; r < replicas; ++r) {
        for (const auto& slot : plan.args[r]) {
          per_replica[r].push_back(slot->impl());
        }
      }
      auto result = exe->ExecuteWithOptions(per_replica, plan.options);
      if (!result.ok()) return result.status();
      if (result->outputs.size() != replicas) {
        return absl::InternalError(absl::StrCat(
            fn, ": plugin returned outputs for ", result->outputs.size(),
            " replicas, expected ", replicas));
      }
      for (size_t r = 0; r < replicas; ++r) {
        for (auto& b : result->outputs[r]) {
          outputs[r].push_back(BufferSlot::Wrap(std::move(b)));
        }
        completion[r] =
            result->completion.empty() ? Event::Ready() : result->completion[r];
      }
    } else {
      // Queued: the outputs exist now and are produced later.
      plan.outputs.resize(replicas);
      for (size_t r = 0; r < replicas; ++r) {
        Device* dev =
            r < e->replica_devices.size() ? e->replica_devices[r] : nullptr;
        if (dev == nullptr && !plan.args[r].empty()) {
          dev = plan.args[r][0]->device();
        }
        for (const Shape& s : output_shapes) {
          outputs[r].push_back(BufferSlot::Pending(s, dev));
        }
        completion[r] = Event::Create();
      }
      plan.outputs = outputs;
      plan.completion = completion;
      auto shared_plan = std::make_shared<ExecutionPlan>(std::move(plan));
      e->client->queue->RunAfter(deps, [shared_plan](absl::Status s) {
        RunQueuedExecution(*shared_plan, s);
      });
      plan.args = shared_plan->args;
    }
    // A synchronous call waits here; when the execution failed (a plugin
    // that completes it later reports its error by the completion event)
    // the call returns the error and hands out no outputs.
    absl::Status sync_status;
    if (synchronous) {
      for (size_t r = 0; r < replicas && sync_status.ok(); ++r) {
        sync_status = completion[r]->Await();
      }
    }
    // The arguments stay alive (a Delete is deferred) until every replica
    // is done with them; donated ones are invalid for the host from now on
    // and freed when the execution is done.
    const std::shared_ptr<Event> all_done = JoinEvents(completion);
    for (size_t r = 0; r < replicas; ++r) {
      for (const auto& slot : plan.args[r]) {
        if (!all_done->IsReady()) {
          slot->BeginUse();
          slot->EndUseWhenReady(all_done);
        }
      }
      for (size_t d = 0; d < args->num_donated; ++d) {
        const auto& donated = plan.args[r][args->donated[d]];
        donated->MarkDonated();
        donated->Delete();
      }
      if (!sync_status.ok()) continue;
      for (size_t i = 0; i < outputs[r].size(); ++i) {
        // Output shapes were checked when the executable was wrapped.
        PLEXA_ASSIGN_OR_RETURN(args->outputs[r][i],
                               WrapBuffer(e->client, outputs[r][i]));
      }
    }
    if (!synchronous) {
      for (size_t r = 0; r < replicas; ++r) {
        args->completion_events[r] = WrapEvent(completion[r]);
      }
    }
    return sync_status;
  });
}

PLX_Error* ExecutableSerialize(PLX_Executable_Serialize_Args* args) {
  constexpr const char* fn = "PLX_Executable_Serialize";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Executable_Serialize_Args, fn);
    PLEXA_RETURN_IF_ERROR(CheckHandle(args->executable, HandleKind::kExecutable,
                                      fn, "executable"));
    auto bytes = args->executable->impl->Serialize();
    if (!bytes.ok()) return bytes.status();
    auto* owned = new std::string(std::move(*bytes));
    args->bytes = owned->data();
    args->bytes_size = owned->size();
    args->bytes_owner = owned;
    args->bytes_deleter = [](void* p) { delete static_cast<std::string*>(p); };
    return absl::OkStatus();
  });
}

PLX_Error* ClientDeserializeExecutable(
    PLX_Client_DeserializeExecutable_Args* args) {
  constexpr const char* fn = "PLX_Client_DeserializeExecutable";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_Client_DeserializeExecutable_Args, fn);
    PLEXA_RETURN_IF_ERROR(
        CheckHandle(args->client, HandleKind::kClient, fn, "client"));
    if (args->bytes == nullptr && args->bytes_size > 0) {
      return absl::InvalidArgumentError(absl::StrCat(fn, ": bytes is NULL"));
    }
    auto exe = args->client->impl->Deserialize(
        absl::string_view(args->bytes, args->bytes_size));
    if (!exe.ok()) return exe.status();
    PLEXA_RETURN_IF_ERROR(CheckFlatSignature(**exe, fn));
    PLEXA_ASSIGN_OR_RETURN(
        args->executable,
        WrapExecutable(args->client, std::move(*exe), nullptr, {}));
    return absl::OkStatus();
  });
}

PLX_Error* CustomCallRegister(PLX_CustomCall_Register_Args* args) {
  constexpr const char* fn = "PLX_CustomCall_Register";
  return Guard(fn, [&]() -> absl::Status {
    PLX_CHECK_ARGS(PLX_CustomCall_Register_Args, fn);
    if (args->name == nullptr || args->name[0] == '\0' ||
        args->function == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": name and function must be given"));
    }
    if (args->api_version != 0 && args->api_version != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": api_version ", args->api_version,
          " is not supported (0: void(void*, void**); 1: typed call frame)"));
    }
    const std::string platform = args->platform ? args->platform : "*";
    const std::vector<std::string>& also = g_info->custom_call_platforms;
    if (platform != "*" && platform != g_info->platform &&
        std::find(also.begin(), also.end(), platform) == also.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": target '", args->name, "' is for platform '", platform,
          "' but this plugin's platform is '", g_info->platform, "'",
          also.empty() ? ""
                       : absl::StrCat(" (it also runs targets for '",
                                      absl::StrJoin(also, "', '"), "')")));
    }
    CustomCallRegistry::Global().Register(args->name, args->function,
                                          args->api_version);
    return absl::OkStatus();
  });
}

}  // namespace plexa::sdk::internal
