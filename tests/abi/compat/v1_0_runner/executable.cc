// The v1.0 runner plugin (runner.h says what it is): custom calls,
// compilation, execution and serialization of executables.
#include <dlfcn.h>

#include <cstring>
#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/eval/evaluator.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"
#include "tests/abi/compat/v1_0_runner/runner.h"

PLX_Executable::~PLX_Executable() {
  magic = 0;
  if (client != nullptr) --client->live_executables;
}

namespace plexa::v1_0_runner {

// ------------------------------------------------------- custom calls

std::mutex registry_mu;
absl::flat_hash_map<std::string, Target>& Registry() {
  static auto* registry = new absl::flat_hash_map<std::string, Target>();
  return *registry;
}

PLX_Error* CustomCallRegister(PLX_CustomCall_Register_Args* args) {
  return Guard("PLX_CustomCall_Register", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_CustomCall_Register_Args);
    if (args->name == nullptr || args->name[0] == '\0' ||
        args->function == nullptr) {
      return absl::InvalidArgumentError("name or function is NULL or empty");
    }
    const std::string platform = args->platform ? args->platform : "(null)";
    if (platform != kPlatform && platform != "*") {
      return absl::InvalidArgumentError(absl::StrCat(
          "platform '", platform, "' is neither '", kPlatform, "' nor '*'"));
    }
    if (args->api_version != 0 && args->api_version != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "api_version ", args->api_version, " is neither 0 nor 1"));
    }
    std::lock_guard<std::mutex> lock(registry_mu);
    Registry()[args->name] = Target{args->function, args->api_version};
    return absl::OkStatus();
  });
}

// Finds `name`: the registry, then `libraries` in order, then the process.
absl::StatusOr<Target> ResolveTarget(
    const Instruction& call, const std::vector<std::string>& library_names,
    const std::vector<void*>& libraries) {
  const std::string& name = call.attrs().custom_call_target;
  std::optional<Target> found;
  {
    std::lock_guard<std::mutex> lock(registry_mu);
    auto it = Registry().find(name);
    if (it != Registry().end()) found = it->second;
  }
  for (size_t i = 0; !found && i < libraries.size(); ++i) {
    if (void* f = dlsym(libraries[i], name.c_str())) found = Target{f, 0};
  }
  if (!found) {
    if (void* f = dlsym(RTLD_DEFAULT, name.c_str())) found = Target{f, 0};
  }
  if (!found) {
    std::vector<std::string> places = {"the registry"};
    for (const std::string& l : library_names) places.push_back(l);
    places.push_back("the process (dlsym)");
    return absl::NotFoundError(absl::StrCat(
        "custom-call ", call.name(), ": target \"", name,
        "\" is not found; searched ", absl::StrJoin(places, ", ")));
  }
  if (call.attrs().api_version == plexa::CustomCallApiVersion::kTypedFfi &&
      found->api_version != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom-call ", call.name(),
                     " says API_VERSION_TYPED_FFI but target \"", name,
                     "\" has api_version 0"));
  }
  return *found;
}

PLX_CallFrameBuffer FrameBuffer(Literal& l) {
  PLX_CallFrameBuffer b{};
  b.struct_size = PLX_CallFrameBuffer_STRUCT_SIZE;
  b.data = l.mutable_data().data();
  b.element_type = static_cast<PLX_Type>(l.shape().element_type());
  b.dims = l.shape().dimensions().data();
  b.num_dims = l.shape().dimensions().size();
  return b;
}

// Calls a typed (api_version 1) target with a call frame over the
// operands' and the result's array leaves, row-major.
absl::StatusOr<Literal> CallTyped(void* function, const Instruction& call,
                                  absl::Span<const Literal* const> operands) {
  std::vector<Literal> args, results;
  for (const Literal* op : operands) {
    for (Literal& leaf : plexa::FlattenArrayLeaves(*op)) {
      args.push_back(std::move(leaf));
    }
  }
  for (Shape s : ShapeUtil::ArrayLeafShapes(call.shape())) {
    LayoutUtil::SetToDefaultLayout(&s);
    results.emplace_back(s);
  }
  std::vector<PLX_CallFrameBuffer> arg_frames, result_frames;
  for (Literal& a : args) arg_frames.push_back(FrameBuffer(a));
  for (Literal& r : results) result_frames.push_back(FrameBuffer(r));
  PLX_CallFrame frame{};
  frame.struct_size = PLX_CallFrame_STRUCT_SIZE;
  frame.args = arg_frames.data();
  frame.num_args = arg_frames.size();
  frame.results = result_frames.data();
  frame.num_results = result_frames.size();
  frame.backend_config = call.attrs().backend_config.data();
  frame.backend_config_size = call.attrs().backend_config.size();
  PLX_CustomCall_Typed* fn;
  std::memcpy(&fn, &function, sizeof(fn));
  if (fn(&frame) != 0) {
    return absl::InternalError(absl::StrCat(
        "custom-call ", call.name(), " failed: ",
        frame.error_message ? frame.error_message : "(no message)"));
  }
  return plexa::AssembleFromArrayLeaves(call.shape(), std::move(results));
}

// ------------------------------------------------------------- compile

// Reads PLX_CompileOptions (NULL: the defaults).
absl::StatusOr<ProgramOptions> ReadCompileOptions(const PLX_Client& client,
                                                  const PLX_CompileOptions* o) {
  ProgramOptions out;
  if (o == nullptr) return out;
  V1_0_RETURN_IF_ERROR(CheckArgs(o, PLX_CompileOptions_STRUCT_SIZE));
  if (o->num_options > 0) {
    const char* name =
        o->options && o->options[0].name ? o->options[0].name : "(null)";
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown compile option '", name, "' (the v1.0 runner has none)"));
  }
  out.num_replicas = o->num_replicas == 0 ? 1 : o->num_replicas;
  V1_0_RETURN_IF_ERROR(CheckReplicaCount(client, out.num_replicas));
  if (o->device_assignment != nullptr) {
    out.device_assignment.assign(o->device_assignment,
                                 o->device_assignment + out.num_replicas);
  }
  if (o->num_custom_call_libraries > 0 && o->custom_call_libraries == nullptr) {
    return absl::InvalidArgumentError("custom_call_libraries is NULL");
  }
  for (size_t i = 0; i < o->num_custom_call_libraries; ++i) {
    if (o->custom_call_libraries[i] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("custom_call_libraries[", i, "] is NULL"));
    }
    out.custom_call_libraries.push_back(o->custom_call_libraries[i]);
  }
  return out;
}

// What ABI 1.0 cannot carry: tuple or token parameters, token results and
// infeed/outfeed (ABI 1.1 added them: the host feeds extension).
absl::Status CheckProgramIsV1_0(const Module& module) {
  for (plexa::Computation* c : module.computations()) {
    for (Instruction* inst : c->instructions()) {
      if (inst->opcode() == plexa::HloOpcode::kInfeed ||
          inst->opcode() == plexa::HloOpcode::kOutfeed) {
        return absl::UnimplementedError(
            absl::StrCat(inst->name(),
                         ": infeed and outfeed need host feeds, which came "
                         "with ABI 1.1; this plugin speaks ABI 1.0"));
      }
    }
  }
  const plexa::ProgramShape program =
      module.entry_computation()->ComputeProgramShape();
  for (size_t i = 0; i < program.parameters.size(); ++i) {
    if (!program.parameters[i].IsArray()) {
      return absl::UnimplementedError(absl::StrCat(
          "parameter ", i, " is ", program.parameters[i].ToString(),
          "; ABI 1.0 passes array parameters only (tuple and token "
          "parameters came with ABI 1.1)"));
    }
  }
  std::function<bool(const Shape&)> has_token = [&](const Shape& s) {
    if (s.IsToken()) return true;
    for (const Shape& e : s.tuple_shapes()) {
      if (has_token(e)) return true;
    }
    return false;
  };
  if (has_token(program.result)) {
    return absl::UnimplementedError(
        absl::StrCat("the result ", program.result.ToString(),
                     " holds a token; token results came with ABI 1.1"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<PLX_Executable>> CompileProgram(
    PLX_Client* client, std::string program, ProgramOptions options) {
  V1_0_RETURN_IF_ERROR(CheckReplicaCount(*client, options.num_replicas));
  auto exe = std::make_unique<PLX_Executable>();
  for (int64_t r = 0; r < options.num_replicas; ++r) {
    const int64_t id =
        options.device_assignment.empty() ? r : options.device_assignment[r];
    if (id < 0 || id >= static_cast<int64_t>(client->devices.size())) {
      return absl::InvalidArgumentError(
          absl::StrCat("device_assignment[", r, "] = ", id, " is no device"));
    }
    exe->replica_devices.push_back(client->devices[id]);
  }
  absl::StatusOr<std::unique_ptr<Module>> module =
      plexa::ParseHloModule(program);
  if (!module.ok()) {
    return absl::InvalidArgumentError(module.status().message());
  }
  V1_0_RETURN_IF_ERROR(plexa::VerifyModule(**module));
  V1_0_RETURN_IF_ERROR(CheckProgramIsV1_0(**module));
  const plexa::ProgramShape signature =
      (*module)->entry_computation()->ComputeProgramShape();

  auto libraries = std::make_shared<Libraries>();
  std::vector<void*> handles;
  for (const std::string& path : options.custom_call_libraries) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = dlerror();
      return absl::NotFoundError(
          absl::StrCat("custom-call library '", path,
                       "' does not load: ", why ? why : "dlopen failed"));
    }
    libraries->Add(h);
    handles.push_back(h);
  }
  auto targets = std::make_shared<absl::flat_hash_map<std::string, Target>>();
  for (plexa::Computation* c : (*module)->computations()) {
    for (Instruction* inst : c->instructions()) {
      if (inst->opcode() != plexa::HloOpcode::kCustomCall) continue;
      absl::StatusOr<Target> t =
          ResolveTarget(*inst, options.custom_call_libraries, handles);
      if (!t.ok()) return t.status();
      (*targets)[inst->attrs().custom_call_target] = *t;
    }
  }

  for (Shape p : signature.parameters) {
    LayoutUtil::SetToDefaultLayoutIfEmpty(&p);
    exe->parameters.push_back(p);
  }
  for (Shape leaf : ShapeUtil::ArrayLeafShapes(signature.result)) {
    LayoutUtil::SetToDefaultLayoutIfEmpty(&leaf);
    exe->outputs.push_back(leaf);
  }
  for (const Shape& s : exe->parameters) {
    exe->parameter_array.push_back(exe->parameter_views.emplace_back(s).view);
  }
  for (const Shape& s : exe->outputs) {
    exe->output_array.push_back(exe->output_views.emplace_back(s).view);
  }
  exe->client = client;
  ++client->live_executables;
  exe->program = std::move(program);
  exe->options = std::move(options);
  exe->module = std::move(*module);
  exe->targets = std::move(targets);
  exe->libraries = std::move(libraries);
  return exe;
}

PLX_Error* ClientCompile(PLX_Client_Compile_Args* args) {
  return Guard("PLX_Client_Compile", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_Compile_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    if (args->program == nullptr && args->program_size > 0) {
      return absl::InvalidArgumentError("program is NULL");
    }
    const std::string format = args->format ? args->format : "(null)";
    if (format != kFormat) {
      return absl::InvalidArgumentError(absl::StrCat(
          "format '", format, "' is not one of this plugin's: ", kFormat));
    }
    absl::StatusOr<ProgramOptions> options =
        ReadCompileOptions(*args->client, args->options);
    if (!options.ok()) return options.status();
    absl::StatusOr<std::unique_ptr<PLX_Executable>> exe = CompileProgram(
        args->client,
        std::string(args->program ? args->program : "", args->program_size),
        std::move(*options));
    if (!exe.ok()) return exe.status();
    args->executable = exe->release();
    return absl::OkStatus();
  });
}

// ------------------------------------------------------- executables

PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args) {
  return Guard("PLX_Executable_Destroy", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Executable_Destroy_Args);
    if (args->executable == nullptr) return absl::OkStatus();
    V1_0_RETURN_IF_ERROR(
        CheckHandle(args->executable, kExecutableMagic, "executable"));
    delete args->executable;
    return absl::OkStatus();
  });
}

PLX_Error* ExecutableSignature(PLX_Executable_Signature_Args* args) {
  return Guard("PLX_Executable_Signature", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Executable_Signature_Args);
    V1_0_RETURN_IF_ERROR(
        CheckHandle(args->executable, kExecutableMagic, "executable"));
    const PLX_Executable& e = *args->executable;
    args->parameters = e.parameter_array.data();
    args->num_parameters = e.parameter_array.size();
    args->outputs = e.output_array.data();
    args->num_outputs = e.output_array.size();
    args->num_replicas = e.options.num_replicas;
    return absl::OkStatus();
  });
}

// The arguments of every replica, checked and read.
absl::StatusOr<std::vector<std::vector<Literal>>> ReadArguments(
    const PLX_Executable& e, const PLX_Executable_Execute_Args& args) {
  std::vector<std::vector<Literal>> inputs(args.num_replicas);
  for (size_t r = 0; r < args.num_replicas; ++r) {
    if (!e.parameters.empty() && args.arguments[r] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("arguments[", r, "] is NULL"));
    }
    for (size_t i = 0; i < e.parameters.size(); ++i) {
      const PLX_Buffer* b = args.arguments[r][i];
      const std::string what = absl::StrCat("arguments[", r, "][", i, "]");
      V1_0_RETURN_IF_ERROR(CheckHandle(b, kBufferMagic, what.c_str()));
      if (b->client != e.client || b->device != e.replica_devices[r]) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, " is not on replica ", r, "'s device (device ",
            e.replica_devices[r]->id, " of the executable's client)"));
      }
      if (!Shape::Equal().IgnoreLayout()(b->shape, e.parameters[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " is ", b->shape.ToString(), ", parameter ", i,
                         " is ", e.parameters[i].ToString()));
      }
      absl::StatusOr<Literal> value = b->Read();
      if (!value.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(what, ": ", value.status().message()));
      }
      inputs[r].push_back(std::move(*value));
    }
  }
  return inputs;
}

plexa::EvaluatorOptions EvaluatorOptionsFor(const PLX_Executable& e) {
  plexa::EvaluatorOptions options;
  options.verify_module = false;  // verified at compile time
  auto targets = e.targets;
  options.custom_call_resolver = [targets](absl::string_view name) {
    auto it = targets->find(name);
    CustomCallTarget fn = nullptr;
    if (it != targets->end() && it->second.api_version == 0) {
      std::memcpy(&fn, &it->second.function, sizeof(fn));
    }
    return fn;
  };
  options.custom_call_handler =
      [targets](absl::string_view name) -> CustomCallHandler {
    auto it = targets->find(name);
    if (it == targets->end() || it->second.api_version != 1) return nullptr;
    void* function = it->second.function;
    return [function](const Instruction& call,
                      absl::Span<const Literal* const> operands) {
      return CallTyped(function, call, operands);
    };
  };
  return options;
}

PLX_Error* ExecutableExecute(PLX_Executable_Execute_Args* args) {
  return Guard("PLX_Executable_Execute", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Executable_Execute_Args);
    V1_0_RETURN_IF_ERROR(
        CheckHandle(args->executable, kExecutableMagic, "executable"));
    const PLX_Executable& e = *args->executable;
    if (args->num_replicas != e.replica_devices.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the executable was compiled for ", e.replica_devices.size(),
          " replica(s), num_replicas is ", args->num_replicas));
    }
    if (args->num_arguments != e.parameters.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the program takes ", e.parameters.size(),
                       " argument(s), num_arguments is ", args->num_arguments));
    }
    if (args->num_outputs < e.outputs.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the program has ", e.outputs.size(),
                       " output(s), room for ", args->num_outputs));
    }
    if ((!e.parameters.empty() && args->arguments == nullptr) ||
        args->outputs == nullptr) {
      return absl::InvalidArgumentError("arguments or outputs is NULL");
    }
    for (size_t r = 0; r < args->num_replicas; ++r) {
      if (args->outputs[r] == nullptr && !e.outputs.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("outputs[", r, "] is NULL"));
      }
    }
    for (size_t d = 0; d < args->num_donated; ++d) {
      if (args->donated == nullptr || args->donated[d] < 0 ||
          static_cast<size_t>(args->donated[d]) >= e.parameters.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "donated[", d, "] is not an argument index (the program takes ",
            e.parameters.size(), ")"));
      }
    }
    absl::StatusOr<std::vector<std::vector<Literal>>> inputs =
        ReadArguments(e, *args);
    if (!inputs.ok()) return inputs.status();

    plexa::Evaluator evaluator(EvaluatorOptionsFor(e));
    std::vector<Literal> results;
    if (args->num_replicas == 1) {
      absl::StatusOr<Literal> r = evaluator.Run(*e.module, (*inputs)[0]);
      if (!r.ok()) return r.status();
      results.push_back(std::move(*r));
    } else {
      auto r = evaluator.RunReplicated(*e.module, *inputs);
      if (!r.ok()) return r.status();
      results = std::move(*r);
    }
    // Every output in the signature's layout.
    std::vector<std::vector<Literal>> leaves(results.size());
    for (size_t r = 0; r < results.size(); ++r) {
      leaves[r] = plexa::FlattenArrayLeaves(std::move(results[r]));
      for (size_t i = 0; i < leaves[r].size(); ++i) {
        if (!(LayoutUtil::EffectiveLayout(leaves[r][i].shape()) ==
              e.outputs[i].layout())) {
          absl::StatusOr<Literal> moved =
              leaves[r][i].Relayout(e.outputs[i].layout());
          if (!moved.ok()) return moved.status();
          leaves[r][i] = std::move(*moved);
        }
      }
    }
    for (size_t r = 0; r < results.size(); ++r) {
      for (size_t i = 0; i < leaves[r].size(); ++i) {
        args->outputs[r][i] = new PLX_Buffer(e.client, e.replica_devices[r],
                                             std::move(leaves[r][i]));
      }
      // Donation (1.0): the donated arguments are consumed by the
      // execution, deleted when it completes (now: it is synchronous).
      for (size_t d = 0; d < args->num_donated; ++d) {
        args->arguments[r][args->donated[d]]->Delete();
      }
      if (args->completion_events != nullptr) {
        args->completion_events[r] = ReadyEvent();
      }
    }
    return absl::OkStatus();
  });
}

// Serialized executable: a header line, the compile options, the program.
constexpr char kSerializedMagic[] = "plexa-v1_0-runner-executable 1";

PLX_Error* ExecutableSerialize(PLX_Executable_Serialize_Args* args) {
  return Guard("PLX_Executable_Serialize", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Executable_Serialize_Args);
    V1_0_RETURN_IF_ERROR(
        CheckHandle(args->executable, kExecutableMagic, "executable"));
    const PLX_Executable& e = *args->executable;
    std::vector<int64_t> devices;
    for (PLX_Device* d : e.replica_devices) devices.push_back(d->id);
    for (const std::string& l : e.options.custom_call_libraries) {
      if (l.find('\n') != std::string::npos) {
        return absl::UnimplementedError(
            absl::StrCat("library path '", l, "' holds a newline"));
      }
    }
    auto* bytes = new std::string(absl::StrCat(
        kSerializedMagic, "\n", absl::StrJoin(devices, ","), "\n",
        e.options.custom_call_libraries.size(), "\n",
        absl::StrJoin(e.options.custom_call_libraries, "\n"),
        e.options.custom_call_libraries.empty() ? "" : "\n", e.program));
    args->bytes = bytes->data();
    args->bytes_size = bytes->size();
    args->bytes_owner = bytes;
    args->bytes_deleter = [](void* owner) {
      delete static_cast<std::string*>(owner);
    };
    return absl::OkStatus();
  });
}

// The inverse of ExecutableSerialize; the program is compiled again (its
// custom-call targets resolved again).
absl::StatusOr<std::pair<ProgramOptions, std::string>> ParseSerialized(
    absl::string_view bytes) {
  auto bad = [](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not an executable serialized by this plugin (", why, ")"));
  };
  auto next_line = [&bytes](absl::string_view* line) {
    const size_t nl = bytes.find('\n');
    if (nl == absl::string_view::npos) return false;
    *line = bytes.substr(0, nl);
    bytes.remove_prefix(nl + 1);
    return true;
  };
  absl::string_view line;
  if (!next_line(&line) || line != kSerializedMagic) return bad("header");
  ProgramOptions options;
  if (!next_line(&line)) return bad("devices");
  for (absl::string_view id : absl::StrSplit(line, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(id, &v)) return bad("device id");
    options.device_assignment.push_back(v);
  }
  options.num_replicas = static_cast<int64_t>(options.device_assignment.size());
  size_t num_libraries;
  if (!next_line(&line) || !absl::SimpleAtoi(line, &num_libraries)) {
    return bad("library count");
  }
  for (size_t i = 0; i < num_libraries; ++i) {
    if (!next_line(&line)) return bad("library");
    options.custom_call_libraries.emplace_back(line);
  }
  return std::make_pair(std::move(options), std::string(bytes));
}

PLX_Error* ClientDeserializeExecutable(
    PLX_Client_DeserializeExecutable_Args* args) {
  return Guard("PLX_Client_DeserializeExecutable", [&]() -> absl::Status {
    V1_0_CHECK_ARGS(PLX_Client_DeserializeExecutable_Args);
    V1_0_RETURN_IF_ERROR(CheckHandle(args->client, kClientMagic, "client"));
    if (args->bytes == nullptr && args->bytes_size > 0) {
      return absl::InvalidArgumentError("bytes is NULL");
    }
    auto parsed = ParseSerialized(
        absl::string_view(args->bytes ? args->bytes : "", args->bytes_size));
    if (!parsed.ok()) return parsed.status();
    absl::StatusOr<std::unique_ptr<PLX_Executable>> exe = CompileProgram(
        args->client, std::move(parsed->second), std::move(parsed->first));
    if (!exe.ok()) return exe.status();
    args->executable = exe->release();
    return absl::OkStatus();
  });
}

}  // namespace plexa::v1_0_runner
