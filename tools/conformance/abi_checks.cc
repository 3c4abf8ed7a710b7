#include "tools/conformance/abi_checks.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include "abi/host/replicated_run.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "tools/conformance/abi_slots.h"

namespace plexa {
namespace {

using Check = std::function<std::string(
    const host::Plugin& plugin, const std::vector<host::Plugin::Option>&)>;

template <typename Args>
Args MakeArgs(size_t size) {
  Args a;
  std::memset(&a, 0, sizeof(a));
  a.struct_size = size;
  return a;
}
#define KIT_ARGS(Type) MakeArgs<Type>(Type##_STRUCT_SIZE)

// The code and message of `error`, which is destroyed.
struct ErrorInfo {
  int code = -1;
  std::string message;
};
ErrorInfo Consume(const PLX_Api* api, PLX_Error* error) {
  ErrorInfo info;
  auto code = KIT_ARGS(PLX_Error_GetCode_Args);
  code.error = error;
  if (PLX_Error* e = api->PLX_Error_GetCode(&code); e == nullptr) {
    info.code = static_cast<int>(code.code);
  } else {
    auto d = KIT_ARGS(PLX_Error_Destroy_Args);
    d.error = e;
    api->PLX_Error_Destroy(&d);
  }
  auto msg = KIT_ARGS(PLX_Error_Message_Args);
  msg.error = error;
  api->PLX_Error_Message(&msg);
  if (msg.message != nullptr)
    info.message.assign(msg.message, msg.message_size);
  auto d = KIT_ARGS(PLX_Error_Destroy_Args);
  d.error = error;
  api->PLX_Error_Destroy(&d);
  return info;
}

// A table slot the plugin's table holds (its struct_size covers it), and
// the slot is not NULL. The slot is read only when the table covers it.
#define KIT_HAS_SLOT(api, slot)                                     \
  (offsetof(PLX_Api, slot) + sizeof(void*) <= (api)->struct_size && \
   (api)->slot != nullptr)

constexpr const char kAdd4[] =
    "HloModule add4\n\nENTRY main {\n  x = f32[4] parameter(0)\n"
    "  y = f32[4] parameter(1)\n  ROOT sum = f32[4] add(x, y)\n}\n";

// What a slot gave for bad args: nothing is wrong when it is an
// INVALID_ARGUMENT error naming the slot; otherwise a line for `bad`
// (`when_ok` when it gave no error at all).
void ExpectInvalidArgument(const PLX_Api* api, const char* slot, PLX_Error* e,
                           const char* when_ok, std::vector<std::string>* bad) {
  if (e == nullptr) {
    bad->push_back(absl::StrCat(slot, " ", when_ok));
    return;
  }
  ErrorInfo i = Consume(api, e);
  if (i.code != PLX_Error_Code_INVALID_ARGUMENT ||
      !absl::StrContains(i.message, slot)) {
    bad->push_back(absl::StrCat(slot, " gave code ", i.code, " '", i.message,
                                "' (want INVALID_ARGUMENT naming it)"));
  }
}

// Every slot given NULL args: an INVALID_ARGUMENT error naming the call.
std::string NullArgs(const host::Plugin& plugin,
                     const std::vector<host::Plugin::Option>&) {
  const PLX_Api* api = plugin.api();
  std::vector<std::string> bad;
#define KIT_NULL_ARGS(slot)                                                    \
  if (KIT_HAS_SLOT(api, slot)) {                                               \
    ExpectInvalidArgument(api, #slot, api->slot(nullptr), "returned no error", \
                          &bad);                                               \
  }
  PLX_ERROR_SLOTS(KIT_NULL_ARGS)
#undef KIT_NULL_ARGS
  // The two calls on an error return nothing; NULL must not crash them.
  api->PLX_Error_Destroy(nullptr);
  api->PLX_Error_Message(nullptr);
  return absl::StrJoin(bad, "; ");
}

// Every slot given struct_size 0 (a caller's size smaller than any
// version's): an INVALID_ARGUMENT error naming the call.
std::string ZeroStructSize(const host::Plugin& plugin,
                           const std::vector<host::Plugin::Option>&) {
  const PLX_Api* api = plugin.api();
  std::vector<std::string> bad;
  alignas(16) unsigned char storage[4096];
#define KIT_ZERO_SIZE(slot)                                                   \
  if (KIT_HAS_SLOT(api, slot)) {                                              \
    std::memset(storage, 0, sizeof(storage));                                 \
    ExpectInvalidArgument(api, #slot,                                         \
                          api->slot(reinterpret_cast<slot##_Args*>(storage)), \
                          "accepted struct_size 0", &bad);                    \
  }
  PLX_ERROR_SLOTS(KIT_ZERO_SIZE)
#undef KIT_ZERO_SIZE
  return absl::StrJoin(bad, "; ");
}

std::string Devices(const host::Plugin& plugin,
                    const std::vector<host::Plugin::Option>& options) {
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) {
    return absl::StrCat("cannot create a client: ", client.status().ToString());
  }
  const auto& devices = (*client)->devices();
  if (devices.empty()) return "the client has no devices";
  std::vector<int64_t> ids;
  for (const host::DeviceInfo& d : devices) {
    if (d.kind.empty()) return absl::StrCat("device ", d.id, " has no kind");
    for (int64_t id : ids) {
      if (id == d.id) return absl::StrCat("two devices have id ", d.id);
    }
    ids.push_back(d.id);
  }
  return "";
}

std::string BufferRoundTrip(const host::Plugin& plugin,
                            const std::vector<host::Plugin::Option>& options) {
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  auto literal = ParseLiteral("{ {1.5, -2, 3}, {4, 5.25, -6} }",
                              ShapeUtil::MakeShape(F32, {2, 3}));
  if (!literal.ok()) return literal.status().ToString();
  auto buffer = (*client)->BufferFromLiteral(*literal);
  if (!buffer.ok()) return absl::StrCat("upload: ", buffer.status().ToString());
  auto shape = (*buffer)->shape();
  if (!shape.ok()) return absl::StrCat("shape: ", shape.status().ToString());
  if (!ShapeUtil::Compatible(*shape, literal->shape())) {
    return absl::StrCat("the buffer's shape is ", shape->ToString(),
                        ", uploaded ", literal->shape().ToString());
  }
  auto back = (*buffer)->ToLiteral();
  if (!back.ok()) return absl::StrCat("download: ", back.status().ToString());
  if (!(*back == *literal)) {
    return absl::StrCat("downloaded ", back->ToString(), ", uploaded ",
                        literal->ToString());
  }
  if (absl::Status s = (*buffer)->Delete(); !s.ok()) {
    return absl::StrCat("delete: ", s.ToString());
  }
  auto deleted = (*buffer)->IsDeleted();
  if (!deleted.ok() || !*deleted) {
    return "after PLX_Buffer_Delete, PLX_Buffer_IsDeleted is not true";
  }
  auto after = (*buffer)->ToLiteral();
  if (after.ok()) return "a deleted buffer could still be read";
  return "";
}

// A destroyed buffer handle: using or destroying it again is an error,
// never a crash (docs/abi.md "Errors").
std::string StaleHandles(const host::Plugin& plugin,
                         const std::vector<host::Plugin::Option>&) {
  const PLX_Api* api = plugin.api();
  auto create = KIT_ARGS(PLX_Client_Create_Args);
  if (PLX_Error* e = api->PLX_Client_Create(&create)) {
    return "PLX_Client_Create: " + Consume(api, e).message;
  }
  PLX_Client* client = create.client;
  const float data[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  PLX_ArrayShape shape{};
  shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  shape.element_type = PLX_Type_F32;
  shape.dims = dims;
  shape.num_dims = 1;
  auto up = MakeArgs<PLX_Client_BufferFromHost_Args>(
      PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0);
  up.client = client;
  up.data = data;
  up.data_size = sizeof(data);
  up.shape = &shape;
  std::string out;
  if (PLX_Error* e = api->PLX_Client_BufferFromHost(&up)) {
    out = "PLX_Client_BufferFromHost: " + Consume(api, e).message;
  } else {
    auto destroy = KIT_ARGS(PLX_Buffer_Destroy_Args);
    destroy.buffer = up.buffer;
    if (PLX_Error* e = api->PLX_Buffer_Destroy(&destroy)) {
      out = "PLX_Buffer_Destroy: " + Consume(api, e).message;
    } else {
      auto s = KIT_ARGS(PLX_Buffer_Shape_Args);
      s.buffer = up.buffer;  // destroyed
      if (PLX_Error* e = api->PLX_Buffer_Shape(&s)) {
        Consume(api, e);
      } else {
        out = "PLX_Buffer_Shape accepted a destroyed buffer";
      }
      if (PLX_Error* e = api->PLX_Buffer_Destroy(&destroy)) {
        Consume(api, e);
      } else if (out.empty()) {
        out = "PLX_Buffer_Destroy accepted a buffer destroyed before";
      }
      auto null_destroy = KIT_ARGS(PLX_Buffer_Destroy_Args);
      if (PLX_Error* e = api->PLX_Buffer_Destroy(&null_destroy)) {
        if (out.empty()) {
          out = "PLX_Buffer_Destroy of NULL is an error: " +
                Consume(api, e).message;
        } else {
          Consume(api, e);
        }
      }
    }
  }
  auto cd = KIT_ARGS(PLX_Client_Destroy_Args);
  cd.client = client;
  if (PLX_Error* e = api->PLX_Client_Destroy(&cd)) Consume(api, e);
  return out;
}

std::string CompileError(const host::Plugin& plugin,
                         const std::vector<host::Plugin::Option>& options) {
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  const auto& formats = plugin.attributes().formats;
  if (std::find(formats.begin(), formats.end(), "hlo-text") == formats.end()) {
    return "";  // nothing this check can give it
  }
  auto exe = (*client)->Compile("HloModule broken\nENTRY {", "hlo-text");
  if (exe.ok()) return "a malformed program compiled";
  if (!absl::StrContains(exe.status().message(), "PLX_Client_Compile")) {
    return absl::StrCat("the error does not name PLX_Client_Compile: ",
                        exe.status().ToString());
  }
  return "";
}

// Eight threads executing one executable at once (docs/abi.md "Threads"),
// each with its own inputs, every result checked.
std::string ConcurrentExecute(
    const host::Plugin& plugin,
    const std::vector<host::Plugin::Option>& options) {
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  auto module = ParseHloModule(kAdd4);
  if (!module.ok()) return module.status().ToString();
  auto exe = host::CompileModule(**client, **module);
  if (!exe.ok()) {
    return absl::StrCat("compiling f32[4] add: ", exe.status().ToString());
  }
  constexpr int kThreads = 8, kRuns = 25;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns && errors[t].empty(); ++r) {
        const float base = static_cast<float>(t * 100 + r);
        Literal x = Literal::CreateR1<float>(
            std::vector<float>{base, base + 1, base + 2, 0.5f});
        Literal y = Literal::CreateR1<float>(std::vector<float>{1, 2, 3, base});
        auto bx = (*client)->BufferFromLiteral(x);
        auto by = (*client)->BufferFromLiteral(y);
        if (!bx.ok() || !by.ok()) {
          errors[t] = "upload failed";
          return;
        }
        auto out = (*exe)->Execute({{bx->get(), by->get()}});
        if (!out.ok()) {
          errors[t] = out.status().ToString();
          return;
        }
        auto result = (*out)[0][0]->ToLiteral();
        if (!result.ok()) {
          errors[t] = result.status().ToString();
          return;
        }
        Literal want = Literal::CreateR1<float>(
            std::vector<float>{base + 1, base + 3, base + 5, base + 0.5f});
        if (!(*result == want)) {
          errors[t] =
              absl::StrCat("thread ", t, " run ", r, ": got ",
                           result->ToString(), ", want ", want.ToString());
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors) {
    if (!e.empty()) return e;
  }
  return "";
}

// A check that does not apply to this plugin returns this prefix and why.
constexpr absl::string_view kSkip = "skip: ";

// The ABI version the plugin reports and the table it hands out agree.
std::string Version(const host::Plugin& plugin,
                    const std::vector<host::Plugin::Option>&) {
  const host::PluginAttributes& a = plugin.attributes();
  const size_t table = plugin.api()->struct_size;
  if (a.abi_major != PLX_API_MAJOR) {
    return absl::StrCat("reports ABI major ", a.abi_major, ", the table ",
                        PLX_API_MAJOR);
  }
  const size_t need =
      a.abi_minor >= 2 ? PLX_Api_STRUCT_SIZE_1_2 : PLX_Api_STRUCT_SIZE_1_0;
  if (table < need) {
    return absl::StrCat("reports ABI 1.", a.abi_minor, " but its table is ",
                        table, " bytes, less than that version's ", need);
  }
  if (a.abi_minor >= 2 && !(plugin.HasAsyncEvents() && plugin.HasMemories())) {
    return absl::StrCat("reports ABI 1.", a.abi_minor,
                        " but lacks 1.2's event or memory slots");
  }
  return "";
}

absl::StatusOr<std::unique_ptr<host::Executable>> CompileAdd4(
    host::Client& client) {
  PLEXA_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, ParseHloModule(kAdd4));
  return host::CompileModule(client, *module);
}

// Runs an add4 executable on {1,2,3,4} + {10,20,30,40}; "" if the result
// is {11,22,33,44}.
std::string RunAdd4(host::Client& client, host::Executable& exe) {
  auto x = client.BufferFromLiteral(
      Literal::CreateR1<float>(std::vector<float>{1, 2, 3, 4}));
  auto y = client.BufferFromLiteral(
      Literal::CreateR1<float>(std::vector<float>{10, 20, 30, 40}));
  if (!x.ok() || !y.ok()) return "upload failed";
  auto out = exe.Execute({{x->get(), y->get()}});
  if (!out.ok()) return absl::StrCat("execute: ", out.status().ToString());
  auto result = (*out)[0][0]->ToLiteral();
  if (!result.ok()) return result.status().ToString();
  const Literal want =
      Literal::CreateR1<float>(std::vector<float>{11, 22, 33, 44});
  if (!(*result == want)) {
    return absl::StrCat("got ", result->ToString(), ", want ", want.ToString());
  }
  return "";
}

std::string Serialization(const host::Plugin& plugin,
                          const std::vector<host::Plugin::Option>& options) {
  if (!plugin.HasCapability(PLX_CAPABILITY_SERIALIZE_EXECUTABLE)) {
    return std::string(kSkip) + "no PLX_CAPABILITY_SERIALIZE_EXECUTABLE";
  }
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  auto exe = CompileAdd4(**client);
  if (!exe.ok()) return absl::StrCat("compile: ", exe.status().ToString());
  auto bytes = (*exe)->Serialize();
  if (!bytes.ok())
    return absl::StrCat("serialize: ", bytes.status().ToString());
  auto back = (*client)->DeserializeExecutable(*bytes);
  if (!back.ok()) {
    return absl::StrCat("deserialize: ", back.status().ToString());
  }
  if (std::string m = RunAdd4(**client, **back); !m.empty()) {
    return "the deserialized executable: " + m;
  }
  std::string corrupt = *bytes;
  corrupt.resize(corrupt.size() / 2);
  if ((*client)->DeserializeExecutable(corrupt).ok()) {
    return "half of a serialized executable deserialized without error";
  }
  return "";
}

// ABI 1.2: an execution waits, inside the plugin, for a user event.
std::string AsyncEvents(const host::Plugin& plugin,
                        const std::vector<host::Plugin::Option>& options) {
  if (!plugin.HasAsyncEvents()) {
    return std::string(kSkip) + "no ABI 1.2 event slots";
  }
  auto client = const_cast<host::Plugin&>(plugin).CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  auto exe = CompileAdd4(**client);
  if (!exe.ok()) return absl::StrCat("compile: ", exe.status().ToString());
  const Literal xv = Literal::CreateR1<float>(std::vector<float>{1, 2, 3, 4});
  const Literal yv =
      Literal::CreateR1<float>(std::vector<float>{10, 20, 30, 40});
  auto x = (*client)->BufferFromLiteral(xv);
  auto y = (*client)->BufferFromLiteral(yv);
  if (!x.ok() || !y.ok()) return "upload failed";
  auto gate = (*client)->CreateUserEvent();
  if (!gate.ok()) return absl::StrCat("user event: ", gate.status().ToString());
  host::Event* wait[] = {gate->get()};
  auto run = (*exe)->ExecuteAsync({{x->get(), y->get()}}, {}, wait);
  if (!run.ok()) return absl::StrCat("execute: ", run.status().ToString());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (run->completion[0]->IsReady()) {
    return "the execution completed before the event it waits for was set";
  }
  if (absl::Status s = (*gate)->Set(absl::OkStatus()); !s.ok()) {
    return absl::StrCat("set: ", s.ToString());
  }
  if (absl::Status s = run->completion[0]->Await(); !s.ok()) {
    return absl::StrCat("await: ", s.ToString());
  }
  auto result = run->outputs[0][0]->ToLiteral();
  if (!result.ok()) return result.status().ToString();
  if (!(*result ==
        Literal::CreateR1<float>(std::vector<float>{11, 22, 33, 44}))) {
    return absl::StrCat("got ", result->ToString());
  }
  // An event set with an error fails the execution waiting on it.
  auto failing = (*client)->CreateUserEvent();
  if (!failing.ok()) return failing.status().ToString();
  host::Event* wait2[] = {failing->get()};
  auto run2 = (*exe)->ExecuteAsync({{x->get(), y->get()}}, {}, wait2);
  if (!run2.ok()) return absl::StrCat("execute: ", run2.status().ToString());
  (void)(*failing)->Set(absl::AbortedError("kit: upstream failed"));
  absl::Status s2 = run2->completion[0]->Await();
  if (s2.ok() || !absl::StrContains(s2.message(), "kit: upstream failed")) {
    return absl::StrCat(
        "an execution waiting on an event set with an error gave: ",
        s2.ToString());
  }
  return "";
}

extern "C" void PlexaKitNegate4(void* out, void** in) {
  const float* x = static_cast<const float*>(in[0]);
  float* y = static_cast<float*>(out);
  for (int i = 0; i < 4; ++i) y[i] = -x[i];
}

extern "C" int32_t PlexaKitTwice4(PLX_CallFrame* f) {
  if (f->num_args != 1 || f->num_results != 1) {
    f->error_message = "plexa_kit_twice4: want one argument and one result";
    return 1;
  }
  const float* x = static_cast<const float*>(f->args[0].data);
  float* y = static_cast<float*>(f->results[0].data);
  for (int i = 0; i < 4; ++i) y[i] = 2 * x[i];
  return 0;
}

std::string CustomCall(const host::Plugin& plugin,
                       const std::vector<host::Plugin::Option>& options,
                       bool typed) {
  const uint64_t bit = typed ? PLX_CAPABILITY_CUSTOM_CALL_TYPED
                             : PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL;
  if (!plugin.HasCapability(bit)) {
    return absl::StrCat(kSkip, "no PLX_CAPABILITY_CUSTOM_CALL_",
                        typed ? "TYPED" : "ORIGINAL");
  }
  host::Plugin& p = const_cast<host::Plugin&>(plugin);
  const char* target = typed ? "plexa_kit_twice4" : "plexa_kit_negate4";
  void* fn = typed ? reinterpret_cast<void*>(&PlexaKitTwice4)
                   : reinterpret_cast<void*>(&PlexaKitNegate4);
  // Host pointers: the typed frame's platform "host" (docs/abi.md).
  if (absl::Status s =
          p.RegisterCustomCall(target, fn, typed ? 1 : 0, typed ? "host" : "*");
      !s.ok()) {
    return absl::StrCat("register: ", s.ToString());
  }
  auto client = p.CreateClient(options);
  if (!client.ok()) return client.status().ToString();
  const std::string text = absl::StrCat(
      "HloModule kit_custom_call\n\nENTRY main {\n  x = f32[4] parameter(0)\n"
      "  ROOT y = f32[4] custom-call(x), custom_call_target=\"",
      target, "\"", typed ? ", api_version=API_VERSION_TYPED_FFI" : "",
      "\n}\n");
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status().ToString();
  auto exe = host::CompileModule(**client, **module);
  if (!exe.ok()) return absl::StrCat("compile: ", exe.status().ToString());
  auto x = (*client)->BufferFromLiteral(
      Literal::CreateR1<float>(std::vector<float>{1, -2, 3.5f, 0}));
  if (!x.ok()) return x.status().ToString();
  auto out = (*exe)->Execute({{x->get()}});
  if (!out.ok()) return absl::StrCat("execute: ", out.status().ToString());
  auto result = (*out)[0][0]->ToLiteral();
  if (!result.ok()) return result.status().ToString();
  const Literal want =
      Literal::CreateR1<float>(typed ? std::vector<float>{2, -4, 7, 0}
                                     : std::vector<float>{-1, 2, -3.5f, -0.0f});
  if (!(*result == want)) {
    return absl::StrCat("got ", result->ToString(), ", want ", want.ToString());
  }
  return "";
}

// Runs `check` in a child process; "" when it passed.
std::string RunIsolated(const std::string& path,
                        const std::vector<host::Plugin::Option>& options,
                        const Check& check, int timeout_seconds) {
  int fds[2];
  if (pipe(fds) != 0) return "cannot create a pipe for the check";
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return "cannot fork for the check";
  }
  if (pid == 0) {
    close(fds[0]);
    std::string message;
    auto plugin = host::Plugin::Load(path);
    if (!plugin.ok()) {
      message = plugin.status().ToString();
    } else {
      message = check(**plugin, options);
    }
    const char* p = message.data();
    size_t left = message.size();
    while (left > 0) {
      const ssize_t n = write(fds[1], p, left);
      if (n <= 0) break;
      p += n;
      left -= static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(message.empty() ? 0 : 1);
  }
  close(fds[1]);
  std::string message;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool timed_out = false;
  char buf[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(left));
    if (ready == 0) continue;
    if (ready < 0) break;
    const ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n <= 0) break;  // the child closed its end
    message.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) {
    return absl::StrCat("did not finish within ", timeout_seconds,
                        " s (killed)");
  }
  if (WIFSIGNALED(status)) {
    return absl::StrCat("the plugin crashed: signal ", WTERMSIG(status), " (",
                        strsignal(WTERMSIG(status)), ")",
                        message.empty() ? "" : ": ", message);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && message.empty()) {
    // A sanitizer turns a crash into an exit; so does a plugin that exits.
    return absl::StrCat("the plugin crashed or exited (status ",
                        WEXITSTATUS(status), ") before the check finished");
  }
  return message;
}

}  // namespace

std::vector<AbiCheckResult> RunAbiChecks(
    const std::string& path, const std::vector<host::Plugin::Option>& options,
    int timeout_seconds) {
  const std::vector<std::pair<const char*, Check>> checks = {
      {"errors/null-args", NullArgs},
      {"errors/struct-size-0", ZeroStructSize},
      {"handles/destroyed", StaleHandles},
      {"client/devices", Devices},
      {"buffers/round-trip-and-delete", BufferRoundTrip},
      {"compile/malformed-program", CompileError},
      {"execute/8-threads-one-executable", ConcurrentExecute},
      {"version/table-matches", Version},
      {"serialize/round-trip", Serialization},
      {"events/wait-and-error (1.2)", AsyncEvents},
      {"custom-call/original",
       [](const host::Plugin& p, const std::vector<host::Plugin::Option>& o) {
         return CustomCall(p, o, /*typed=*/false);
       }},
      {"custom-call/typed",
       [](const host::Plugin& p, const std::vector<host::Plugin::Option>& o) {
         return CustomCall(p, o, /*typed=*/true);
       }},
  };
  std::vector<AbiCheckResult> results;
  for (const auto& [name, check] : checks) {
    AbiCheckResult r;
    r.name = name;
    r.message = RunIsolated(path, options, check, timeout_seconds);
    if (absl::StartsWith(r.message, kSkip)) {
      r.skipped = true;
      r.message = r.message.substr(kSkip.size());
    }
    r.passed = r.message.empty();
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace plexa
