// ABI 1.2, asynchronous execution with explicit dependencies, through the
// RAW C table: ready events of buffers, user events (PLX_Client_
// CreateUserEvent, PLX_Event_Set) gating transfers and executions,
// wait_events, error propagation, deferred frees, donation and the
// client's destruction with work in flight.
//
// Every test runs on the asynctest plugin (async_test_plugin.cc: work runs
// later on per-device worker threads, after a deliberate delay) and on
// every in-tree plugin (synchronous kernels: the SDK queues their calls
// behind pending dependencies). Pending states are made deterministic with
// user events: nothing that waits for an unset user event can be ready, on
// any plugin. Each program step is f(x) = -x on asynctest and f(x) = 2x + 1
// on the others; the expected numbers are written out by hand.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "abi_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::abi_test {
namespace {

const char kNegate[] = R"(HloModule neg
ENTRY main {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
})";

const char kTwiceXPlusOne[] = R"(HloModule axpb
ENTRY main {
  x = f32[4] parameter(0)
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  m = f32[4] multiply(x, twos)
  ROOT r = f32[4] add(m, ones)
})";

using Values = std::vector<float>;

// The table of the plugin under test, for callbacks (which get no fixture).
const PLX_Api* g_api = nullptr;

struct Case {
  std::string name;
  const char* path;
  bool is_asynctest;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> Cases() {
  std::vector<Case> cases = {{"asynctest", PLEXA_ASYNCTEST_PLUGIN, true}};
  for (const char* p : InTreePlugins())
    cases.push_back({PluginName(p), p, false});
  return cases;
}

// One client of one plugin, driven through the raw table.
class AsyncDependenciesTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    api_ = LoadRawApi(GetParam().path);
    ASSERT_NE(api_, nullptr);
    g_api = api_;
    ASSERT_TRUE(PLX_API_HAS_SLOT(api_, PLX_Client_CreateUserEvent));
    std::vector<PLX_NamedValue> options;
    AddIntOption(&options, "num_devices", 2);
    if (GetParam().is_asynctest) AddIntOption(&options, "delay_ms", 2);
    auto c = PLX_TEST_ARGS(PLX_Client_Create_Args);
    c.options = options.data();
    c.num_options = options.size();
    ASSERT_PLX_OK(api_, api_->PLX_Client_Create(&c));
    client_ = c.client;
    auto d = PLX_TEST_ARGS(PLX_Client_Devices_Args);
    d.client = client_;
    ASSERT_PLX_OK(api_, api_->PLX_Client_Devices(&d));
    ASSERT_EQ(d.num_devices, 2u);
    devices_.assign(d.devices, d.devices + d.num_devices);
    const char* program = GetParam().is_asynctest ? kNegate : kTwiceXPlusOne;
    auto p = PLX_TEST_ARGS(PLX_Client_Compile_Args);
    p.client = client_;
    p.program = program;
    p.program_size = std::strlen(program);
    p.format = "hlo-text";
    ASSERT_PLX_OK(api_, api_->PLX_Client_Compile(&p));
    exe_ = p.executable;
  }

  void TearDown() override {
    for (PLX_Event* e : events_) DestroyEvent(e);
    for (PLX_Buffer* b : buffers_) DestroyBuffer(b);
    auto x = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
    x.executable = exe_;
    EXPECT_PLX_OK(api_, api_->PLX_Executable_Destroy(&x));
    DestroyClient();
  }

  static void AddIntOption(std::vector<PLX_NamedValue>* out, const char* name,
                           int64_t value) {
    PLX_NamedValue v{};
    v.struct_size = PLX_NamedValue_STRUCT_SIZE;
    v.name = name;
    v.kind = PLX_Value_INT64;
    v.int64_value = value;
    out->push_back(v);
  }

  // One step of the program, as computed by hand.
  float Step(float x) const { return GetParam().is_asynctest ? -x : 2 * x + 1; }
  Values Steps(Values v, int n) const {
    for (int i = 0; i < n; ++i) {
      for (float& x : v) x = Step(x);
    }
    return v;
  }

  void DestroyClient() {
    if (client_ == nullptr) return;
    auto c = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
    c.client = client_;
    EXPECT_PLX_OK(api_, api_->PLX_Client_Destroy(&c));
    client_ = nullptr;
  }
  void DestroyEvent(PLX_Event* e) { abi_test::DestroyEvent(api_, e); }
  void DestroyBuffer(PLX_Buffer* b) {
    auto d = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
    d.buffer = b;
    EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&d));
  }
  // Events and buffers the fixture destroys at the end.
  PLX_Event* Keep(PLX_Event* e) {
    events_.push_back(e);
    return e;
  }
  PLX_Buffer* Keep(PLX_Buffer* b) {
    buffers_.push_back(b);
    return b;
  }
  void Forget(PLX_Buffer* b) {
    buffers_.erase(std::find(buffers_.begin(), buffers_.end(), b));
  }

  PLX_Event* UserEvent() {
    auto u = PLX_TEST_ARGS(PLX_Client_CreateUserEvent_Args);
    u.client = client_;
    EXPECT_PLX_OK(api_, api_->PLX_Client_CreateUserEvent(&u));
    return u.event;
  }
  PLX_Error* Set(PLX_Event* e, PLX_Error_Code code = PLX_Error_Code_OK,
                 const std::string& message = "") {
    auto s = PLX_TEST_ARGS(PLX_Event_Set_Args);
    s.event = e;
    s.code = code;
    s.message = message.empty() ? nullptr : message.data();
    s.message_size = message.size();
    return api_->PLX_Event_Set(&s);
  }
  bool IsReady(PLX_Event* e) { return EventIsReady(api_, e); }
  PLX_Error* Await(PLX_Event* e) { return AwaitEvent(api_, e); }
  PLX_Error* ReadyEvent(PLX_Buffer* b, PLX_Event** out) {
    auto r = PLX_TEST_ARGS(PLX_Buffer_ReadyEvent_Args);
    r.buffer = b;
    PLX_Error* e = api_->PLX_Buffer_ReadyEvent(&r);
    *out = r.event;
    return e;
  }
  // The buffer's ready event (kept by the fixture).
  PLX_Event* Ready(PLX_Buffer* b) {
    PLX_Event* e = nullptr;
    EXPECT_PLX_OK(api_, ReadyEvent(b, &e));
    return Keep(e);
  }

  // An asynchronous upload of `data` (which must outlive `done`).
  PLX_Buffer* Upload(const Values& data, std::vector<PLX_Event*> wait = {},
                     PLX_Event** done = nullptr, int device = 0) {
    static const int64_t dims[1] = {4};
    static const PLX_ArrayShape shape{
        PLX_ArrayShape_STRUCT_SIZE, PLX_Type_F32, dims, 1, nullptr, nullptr};
    PLX_Event* done_event = nullptr;
    auto u = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    u.client = client_;
    u.device = devices_[device];
    u.data = data.data();
    u.data_size = data.size() * sizeof(float);
    u.shape = &shape;
    u.done_with_host_buffer = &done_event;
    u.wait_events = wait.data();
    u.num_wait_events = wait.size();
    EXPECT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&u));
    if (done != nullptr) {
      *done = done_event;
    } else {
      Keep(done_event);
    }
    return u.buffer;
  }
  // PLX_Executable_Execute on one argument; synchronous when `completion`
  // is NULL.
  PLX_Error* RawExecute(PLX_Buffer* in, const std::vector<int64_t>& donated,
                        std::vector<PLX_Event*> wait, PLX_Event** completion,
                        PLX_Buffer** out) {
    PLX_Buffer* args[1] = {in};
    PLX_Buffer* const* arg_lists[1] = {args};
    PLX_Buffer* outs[1] = {nullptr};
    PLX_Buffer** out_lists[1] = {outs};
    auto e = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
    e.executable = exe_;
    e.num_replicas = 1;
    e.arguments = arg_lists;
    e.num_arguments = 1;
    e.donated = donated.data();
    e.num_donated = donated.size();
    e.outputs = out_lists;
    e.num_outputs = 1;
    e.completion_events = completion;
    e.wait_events = wait.data();
    e.num_wait_events = wait.size();
    PLX_Error* error = api_->PLX_Executable_Execute(&e);
    *out = outs[0];
    return error;
  }
  // An asynchronous execution.
  PLX_Error* TryExecute(PLX_Buffer* in, std::vector<PLX_Event*> wait,
                        bool donate, PLX_Buffer** out,
                        PLX_Event** done = nullptr) {
    PLX_Event* completion = nullptr;
    PLX_Error* error = RawExecute(
        in, donate ? std::vector<int64_t>{0} : std::vector<int64_t>{},
        std::move(wait), &completion, out);
    if (done != nullptr) {
      *done = completion;
    } else if (completion != nullptr) {
      Keep(completion);
    }
    return error;
  }
  PLX_Buffer* Execute(PLX_Buffer* in, std::vector<PLX_Event*> wait = {},
                      bool donate = false) {
    PLX_Buffer* out = nullptr;
    EXPECT_PLX_OK(api_, TryExecute(in, std::move(wait), donate, &out));
    return out;
  }
  PLX_Error* ToHost(PLX_Buffer* b, Values* out) {
    out->assign(4, 0.0f);
    auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
    t.buffer = b;
    t.dst = out->data();
    t.dst_size = out->size() * sizeof(float);
    return api_->PLX_Buffer_ToHost(&t);
  }
  Values Download(PLX_Buffer* b) {
    Values v;
    EXPECT_PLX_OK(api_, ToHost(b, &v));
    return v;
  }
  PLX_Error* CopyTo(PLX_Buffer* b, int device, PLX_Buffer** out,
                    std::vector<PLX_Event*> wait = {}) {
    auto c = PLX_TEST_ARGS(PLX_Buffer_CopyToDevice_Args);
    c.buffer = b;
    c.dst_device = devices_[device];
    c.wait_events = wait.data();
    c.num_wait_events = wait.size();
    PLX_Error* e = api_->PLX_Buffer_CopyToDevice(&c);
    *out = c.dst_buffer;
    return e;
  }

  const PLX_Api* api_ = nullptr;
  PLX_Client* client_ = nullptr;
  std::vector<PLX_Device*> devices_;
  PLX_Executable* exe_ = nullptr;
  std::vector<PLX_Event*> events_;
  std::vector<PLX_Buffer*> buffers_;
};

const Values kInput = {1, -2, 3, -4.5f};

TEST_P(AsyncDependenciesTest, ChainOfExecutesOnPendingBuffers) {
  PLX_Event* gate = Keep(UserEvent());
  // Nothing below can start before the gate is set: every call returns at
  // once with pending outputs, each the argument of the next.
  PLX_Buffer* x = Keep(Upload(kInput, {gate}));
  std::vector<PLX_Buffer*> chain = {x};
  for (int i = 0; i < 4; ++i) chain.push_back(Keep(Execute(chain.back())));
  for (PLX_Buffer* b : chain) EXPECT_FALSE(IsReady(Ready(b)));
  ASSERT_PLX_OK(api_, Set(gate));
  EXPECT_EQ(Download(chain.back()), Steps(kInput, 4));
  // By hand: asynctest negates four times (the input again); the others
  // compute 2x+1 four times, 16x + 15.
  EXPECT_EQ(Download(chain.back()), GetParam().is_asynctest
                                        ? Values({1, -2, 3, -4.5f})
                                        : Values({31, -17, 63, -57}));
  for (PLX_Buffer* b : chain) EXPECT_PLX_OK(api_, Await(Ready(b)));
}

TEST_P(AsyncDependenciesTest, UserEventsGateATransferAndAnExecute) {
  PLX_Event* upload_gate = Keep(UserEvent());
  PLX_Event* run_gate = Keep(UserEvent());
  PLX_Event* uploaded = nullptr;
  PLX_Buffer* x = Keep(Upload(kInput, {upload_gate}, &uploaded));
  Keep(uploaded);
  PLX_Event* done = nullptr;
  PLX_Buffer* y = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(x, {run_gate}, false, &y, &done));
  Keep(y);
  Keep(done);
  // The same gate on an execution whose argument the plugin already made
  // (the asynctest plugin then waits for the gate on its own worker).
  PLX_Buffer* w = Keep(Upload(kInput));
  ASSERT_PLX_OK(api_, Await(Ready(w)));
  PLX_Event* w_done = nullptr;
  PLX_Buffer* w_out = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(w, {run_gate}, false, &w_out, &w_done));
  Keep(w_out);
  Keep(w_done);
  EXPECT_FALSE(IsReady(uploaded));
  EXPECT_FALSE(IsReady(done));
  ASSERT_PLX_OK(api_, Set(upload_gate));
  ASSERT_PLX_OK(api_, Await(uploaded));
  EXPECT_EQ(Download(x), kInput);
  // The upload is done, the execution still waits for its own gate.
  EXPECT_FALSE(IsReady(done));
  EXPECT_FALSE(IsReady(Ready(y)));
  EXPECT_FALSE(IsReady(w_done));
  ASSERT_PLX_OK(api_, Set(run_gate));
  ASSERT_PLX_OK(api_, Await(done));
  ASSERT_PLX_OK(api_, Await(w_done));
  EXPECT_EQ(Download(w_out), Steps(kInput, 1));
  EXPECT_EQ(Download(y), Steps(kInput, 1));
  EXPECT_EQ(Download(y), GetParam().is_asynctest ? Values({-1, 2, -3, 4.5f})
                                                 : Values({3, -3, 7, -8}));
}

TEST_P(AsyncDependenciesTest, AnErrorPropagatesThroughAChain) {
  PLX_Event* gate = Keep(UserEvent());
  PLX_Buffer* x = Keep(Upload(kInput, {gate}));
  PLX_Buffer* y = Keep(Execute(x));
  PLX_Event* done = nullptr;
  PLX_Buffer* z = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(y, {}, false, &z, &done));
  Keep(z);
  Keep(done);
  PLX_Buffer* copy = nullptr;
  ASSERT_PLX_OK(api_, CopyTo(z, 1, &copy));
  Keep(copy);
  ASSERT_PLX_OK(api_, Set(gate, PLX_Error_Code_DATA_LOSS, "the sensor died"));
  // Every piece of work downstream fails with the host's error.
  for (PLX_Buffer* b : {x, y, z, copy}) {
    EXPECT_PLX_ERROR(api_, Await(Ready(b)), DATA_LOSS, "the sensor died");
  }
  EXPECT_PLX_ERROR(api_, Await(done), DATA_LOSS, "PLX_Event_Await",
                   "the sensor died");
  Values v;
  EXPECT_PLX_ERROR(api_, ToHost(z, &v), DATA_LOSS, "PLX_Buffer_ToHost",
                   "the sensor died");
  // An asynchronous download of a failed buffer: its event carries it.
  auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  PLX_Event* downloaded = nullptr;
  v.assign(4, 0);
  t.buffer = copy;
  t.dst = v.data();
  t.dst_size = 16;
  t.event = &downloaded;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&t));
  EXPECT_PLX_ERROR(api_, Await(Keep(downloaded)), DATA_LOSS, "the sensor died");
  // A synchronous execution on a failed argument returns the error.
  PLX_Buffer* out = nullptr;
  EXPECT_PLX_ERROR(api_, RawExecute(z, {}, {}, nullptr, &out), DATA_LOSS,
                   "PLX_Executable_Execute", "the sensor died");
  EXPECT_EQ(out, nullptr);
}

TEST_P(AsyncDependenciesTest,
       DeletingABufferWithAPendingConsumerDefersTheFree) {
  Values data = kInput;
  PLX_Event* uploaded = nullptr;
  PLX_Buffer* x = Upload(data, {}, &uploaded);
  ASSERT_PLX_OK(api_, Await(Keep(uploaded)));
  PLX_Event* gate = Keep(UserEvent());
  PLX_Buffer* y = Keep(Execute(x, {gate}));
  PLX_Buffer* copy = nullptr;
  ASSERT_PLX_OK(api_, CopyTo(x, 1, &copy, {gate}));
  Keep(copy);
  // The host is done with x: delete and destroy it while two consumers
  // still wait for the gate.
  auto d = PLX_TEST_ARGS(PLX_Buffer_Delete_Args);
  d.buffer = x;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Delete(&d));
  auto is = PLX_TEST_ARGS(PLX_Buffer_IsDeleted_Args);
  is.buffer = x;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_IsDeleted(&is));
  EXPECT_TRUE(is.is_deleted);
  Values v;
  EXPECT_PLX_ERROR(api_, ToHost(x, &v), FAILED_PRECONDITION, "deleted");
  DestroyBuffer(x);
  ASSERT_PLX_OK(api_, Set(gate));
  EXPECT_EQ(Download(y), Steps(kInput, 1));
  EXPECT_EQ(Download(copy), kInput);
}

TEST_P(AsyncDependenciesTest, ADeletedPendingOutputIsFreedAfterItsProducer) {
  PLX_Event* gate = Keep(UserEvent());
  PLX_Buffer* x = Keep(Upload(kInput));
  PLX_Event* done = nullptr;
  PLX_Buffer* y = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(x, {gate}, false, &y, &done));
  Keep(done);
  DestroyBuffer(y);  // the producer is still pending
  ASSERT_PLX_OK(api_, Set(gate));
  EXPECT_PLX_OK(api_, Await(done));
}

TEST_P(AsyncDependenciesTest, ADonatedBufferIsInvalidAtOnce) {
  PLX_Event* gate = Keep(UserEvent());
  PLX_Buffer* x = Keep(Upload(kInput));
  ASSERT_PLX_OK(api_, Await(Ready(x)));
  PLX_Buffer* y = Keep(Execute(x, {gate}, /*donate=*/true));
  // The execution has not even started; x is gone for the host already.
  Values v;
  EXPECT_PLX_ERROR(api_, ToHost(x, &v), FAILED_PRECONDITION,
                   "PLX_Buffer_ToHost", "donated");
  PLX_Event* e = nullptr;
  EXPECT_PLX_ERROR(api_, ReadyEvent(x, &e), FAILED_PRECONDITION,
                   "PLX_Buffer_ReadyEvent", "donated");
  EXPECT_EQ(e, nullptr);
  PLX_Buffer* again = nullptr;
  EXPECT_PLX_ERROR(api_, TryExecute(x, {}, false, &again), FAILED_PRECONDITION,
                   "PLX_Executable_Execute", "arguments[0][0]", "donated");
  EXPECT_EQ(again, nullptr);
  PLX_Buffer* copy = nullptr;
  EXPECT_PLX_ERROR(api_, CopyTo(x, 1, &copy), FAILED_PRECONDITION,
                   "PLX_Buffer_CopyToDevice", "donated");
  auto is = PLX_TEST_ARGS(PLX_Buffer_IsDeleted_Args);
  is.buffer = x;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_IsDeleted(&is));
  EXPECT_TRUE(is.is_deleted);
  ASSERT_PLX_OK(api_, Set(gate));
  EXPECT_EQ(Download(y), Steps(kInput, 1));
}

TEST_P(AsyncDependenciesTest, DonatingABufferTwiceInOneCallIsRefused) {
  // One argument only: donating index 0 twice.
  PLX_Buffer* x = Keep(Upload(kInput));
  PLX_Buffer* out = nullptr;
  EXPECT_PLX_ERROR(api_, RawExecute(x, {0, 0}, {}, nullptr, &out),
                   INVALID_ARGUMENT, "PLX_Executable_Execute", "donated twice");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(Download(x), kInput);  // still the host's
}

TEST_P(AsyncDependenciesTest, DestroyingTheClientWaitsForWorkInFlight) {
  struct Seen {
    std::atomic<int> calls{0};
    std::atomic<bool> ok{false};
  } seen;
  PLX_Event* uploaded = nullptr;
  Values data = kInput;
  PLX_Buffer* x = Upload(data, {}, &uploaded);
  PLX_Event* done = nullptr;
  PLX_Buffer* y = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(x, {}, false, &y, &done));
  auto o = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
  o.event = done;
  o.user_arg = &seen;
  o.callback = [](PLX_Error* error, void* user) {
    auto* s = static_cast<Seen*>(user);
    s->ok.store(error == nullptr);
    if (error != nullptr) {
      auto d = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
      d.error = error;
      g_api->PLX_Error_Destroy(&d);
    }
    s->calls.fetch_add(1);
  };
  ASSERT_PLX_OK(api_, api_->PLX_Event_OnReady(&o));
  // Work that waits on a user event nobody will set.
  PLX_Event* never = UserEvent();
  PLX_Event* never_done = nullptr;
  PLX_Buffer* z = nullptr;
  ASSERT_PLX_OK(api_, TryExecute(x, {never}, false, &z, &never_done));
  // Drop every handle: the work is still in flight.
  for (PLX_Event* e : {uploaded, done}) DestroyEvent(e);
  for (PLX_Buffer* b : {x, y, z}) DestroyBuffer(b);
  auto xd = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
  xd.executable = exe_;
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Destroy(&xd));
  exe_ = nullptr;
  DestroyClient();
  // The execution completed (successfully) before the client went; the
  // one waiting on the unset user event failed instead of hanging.
  EXPECT_EQ(seen.calls.load(), 1);
  EXPECT_TRUE(seen.ok.load());
  EXPECT_PLX_ERROR(api_, Await(never_done), CANCELLED, "client");
  EXPECT_PLX_ERROR(api_, Set(never), FAILED_PRECONDITION, "already set");
  DestroyEvent(never_done);
  DestroyEvent(never);
}

TEST_P(AsyncDependenciesTest, ThreadsInterleaveTransfersAndExecutes) {
  constexpr int kThreads = 4, kIterations = 12;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIterations; ++i) {
        const Values in = {float(t), float(i), float(-t * i), 0.5f};
        PLX_Event* gate = UserEvent();
        PLX_Event* uploaded = nullptr;
        PLX_Buffer* x = Upload(in, {gate}, &uploaded, i % 2);
        PLX_Buffer* y = nullptr;
        PLX_Event* done = nullptr;
        EXPECT_PLX_OK(api_, TryExecute(x, {}, false, &y, &done));
        PLX_Buffer* moved = nullptr;
        EXPECT_PLX_OK(api_, CopyTo(y, (i + 1) % 2, &moved));
        PLX_Buffer* z = nullptr;
        PLX_Event* z_done = nullptr;
        EXPECT_PLX_OK(api_, TryExecute(moved, {}, false, &z, &z_done));
        Values out(4, 0.0f);
        auto th = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
        PLX_Event* downloaded = nullptr;
        th.buffer = z;
        th.dst = out.data();
        th.dst_size = 16;
        th.event = &downloaded;
        EXPECT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&th));
        EXPECT_PLX_OK(api_, Set(gate));
        EXPECT_PLX_OK(api_, Await(downloaded));
        if (out != Steps(in, 2)) {
          failures[t] += "thread " + std::to_string(t) + " iteration " +
                         std::to_string(i) + " got a wrong result; ";
        }
        for (PLX_Event* e : {gate, uploaded, done, z_done, downloaded}) {
          DestroyEvent(e);
        }
        for (PLX_Buffer* b : {x, y, moved, z}) DestroyBuffer(b);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
}

TEST_P(AsyncDependenciesTest, OnReadyFromManyThreadsWhileTheEventIsSet) {
  PLX_Event* gate = Keep(UserEvent());
  constexpr int kThreads = 8;
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  std::atomic<bool> go{false};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < 50; ++i) {
        auto o = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
        o.event = gate;
        o.user_arg = &calls;
        o.callback = [](PLX_Error* error, void* user) {
          if (error == nullptr)
            static_cast<std::atomic<int>*>(user)->fetch_add(1);
        };
        EXPECT_PLX_OK(api_, api_->PLX_Event_OnReady(&o));
      }
    });
  }
  go.store(true);
  EXPECT_PLX_OK(api_, Set(gate));
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(calls.load(), kThreads * 50);
}

TEST_P(AsyncDependenciesTest, MisuseOfUserEventsAndWaitLists) {
  PLX_Buffer* x = Keep(Upload(kInput));
  PLX_Event* ready = Ready(x);
  EXPECT_PLX_ERROR(api_, Set(ready), INVALID_ARGUMENT, "PLX_Event_Set",
                   "not a user event");
  PLX_Event* user = Keep(UserEvent());
  EXPECT_PLX_ERROR(api_, Set(user, static_cast<PLX_Error_Code>(99)),
                   INVALID_ARGUMENT, "PLX_Event_Set", "99");
  auto s = PLX_TEST_ARGS(PLX_Event_Set_Args);
  s.event = user;
  s.message_size = 3;
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_Set(&s), INVALID_ARGUMENT,
                   "message is NULL");
  EXPECT_PLX_OK(api_, Set(user));
  EXPECT_PLX_ERROR(api_, Set(user), FAILED_PRECONDITION, "already set");
  // A wait list with a NULL array, or an event that is not live.
  auto e = PLX_TEST_ARGS(PLX_Buffer_CopyToDevice_Args);
  e.buffer = x;
  e.num_wait_events = 2;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_CopyToDevice(&e), INVALID_ARGUMENT,
                   "PLX_Buffer_CopyToDevice", "wait_events is NULL");
  PLX_Event* gone = UserEvent();
  DestroyEvent(gone);
  PLX_Event* list[2] = {user, gone};
  e.wait_events = list;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_CopyToDevice(&e), INVALID_ARGUMENT,
                   "wait_events[1]", "not a live PLX_Event");
  EXPECT_EQ(e.dst_buffer, nullptr);
  // An old caller's struct stops before the wait list: whatever lies beyond
  // its struct_size is not read.
  e.struct_size = PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0;
  e.num_wait_events = 12345;
  e.wait_events = reinterpret_cast<PLX_Event* const*>(uintptr_t{8});
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_CopyToDevice(&e));
  EXPECT_EQ(Download(Keep(e.dst_buffer)), kInput);
  // ReadyEvent of a deleted buffer.
  auto d = PLX_TEST_ARGS(PLX_Buffer_Delete_Args);
  d.buffer = x;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Delete(&d));
  PLX_Event* none = nullptr;
  EXPECT_PLX_ERROR(api_, ReadyEvent(x, &none), FAILED_PRECONDITION,
                   "PLX_Buffer_ReadyEvent", "deleted");
}

TEST_P(AsyncDependenciesTest, DestroyingAnUnsetUserEventFailsItsWaiters) {
  PLX_Event* gate = UserEvent();
  PLX_Buffer* x = Keep(Upload(kInput, {gate}));
  PLX_Buffer* y = Keep(Execute(x));
  DestroyEvent(gate);
  EXPECT_PLX_ERROR(api_, Await(Ready(y)), CANCELLED, "destroyed");
}

INSTANTIATE_TEST_SUITE_P(Plugins, AsyncDependenciesTest,
                         ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace plexa::abi_test
