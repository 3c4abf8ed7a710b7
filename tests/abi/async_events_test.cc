// Event semantics through the RAW C table, on events that are really
// asynchronous: the asynctest plugin (async_test_plugin.cc) completes each
// execution on a plugin thread when the test writes a byte into a pipe, so
// every step below is deterministic (no sleeps decide an outcome).
//
//  - IsReady is false until the work is done, then true; it never blocks.
//  - Await blocks until ready and returns the event's error (owned by the
//    caller), every time it is asked.
//  - OnReady calls back exactly once: later, on a plugin thread, if the
//    event was pending; at once on the calling thread if it was ready. The
//    callback owns the error it gets (ASan/LSan check the ownership: a
//    leak or a double free fails the ASan build).
//  - Destroying a pending event does not cancel the work.
//  - ToHost of a buffer still being computed waits for it, and reports the
//    computation's error if it failed.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
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
}
)";

const PLX_Api* g_api = nullptr;

// What one OnReady callback saw.
struct Callback {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  std::thread::id thread;
  ErrorInfo error;

  static void Fn(PLX_Error* error, void* user) {
    auto* self = static_cast<Callback*>(user);
    // The callback owns `error`: read it and destroy it here.
    ErrorInfo info = TakeError(g_api, error);
    std::lock_guard<std::mutex> lock(self->mu);
    ++self->calls;
    self->thread = std::this_thread::get_id();
    self->error = info;
    self->cv.notify_all();
  }
  void WaitForCall() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return calls > 0; });
  }
};

class AsyncEventsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { g_api = LoadRawApi(PLEXA_ASYNCTEST_PLUGIN); }

  void SetUp() override {
    ASSERT_NE(g_api, nullptr);
    api_ = g_api;
    ASSERT_EQ(pipe(gate_), 0);
    PLX_NamedValue opt{};
    opt.struct_size = PLX_NamedValue_STRUCT_SIZE;
    opt.name = "gate_fd";
    opt.kind = PLX_Value_INT64;
    opt.int64_value = gate_[0];
    auto c = PLX_TEST_ARGS(PLX_Client_Create_Args);
    c.options = &opt;
    c.num_options = 1;
    ASSERT_PLX_OK(api_, api_->PLX_Client_Create(&c));
    client_ = c.client;
    auto p = PLX_TEST_ARGS(PLX_Client_Compile_Args);
    p.client = client_;
    p.program = kNegate;
    p.program_size = sizeof(kNegate) - 1;
    p.format = "hlo-text";
    ASSERT_PLX_OK(api_, api_->PLX_Client_Compile(&p));
    exe_ = p.executable;
    const float data[4] = {1, -2, 3, -4.5f};
    const int64_t dims[1] = {4};
    PLX_ArrayShape shape{
        PLX_ArrayShape_STRUCT_SIZE, PLX_Type_F32, dims, 1, nullptr, nullptr};
    auto u = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    u.client = client_;
    u.data = data;
    u.data_size = sizeof(data);
    u.shape = &shape;
    ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&u));
    input_ = u.buffer;
  }

  void TearDown() override {
    // Release any execution still waiting, then clean up.
    close(gate_[1]);
    for (PLX_Buffer* b : {output_, input_}) {
      auto d = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
      d.buffer = b;
      EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&d));
    }
    auto x = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
    x.executable = exe_;
    EXPECT_PLX_OK(api_, api_->PLX_Executable_Destroy(&x));
    auto c = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
    c.client = client_;
    EXPECT_PLX_OK(api_, api_->PLX_Client_Destroy(&c));
    close(gate_[0]);
  }

  // Starts an execution; it completes when Open() writes a byte.
  PLX_Event* Start() {
    PLX_Buffer* in[1] = {input_};
    PLX_Buffer* const* args[1] = {in};
    PLX_Buffer* out[1] = {nullptr};
    PLX_Buffer** outs[1] = {out};
    PLX_Event* done = nullptr;
    auto e = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
    e.executable = exe_;
    e.num_replicas = 1;
    e.arguments = args;
    e.num_arguments = 1;
    e.outputs = outs;
    e.num_outputs = 1;
    e.completion_events = &done;
    EXPECT_PLX_OK(api_, api_->PLX_Executable_Execute(&e));
    output_ = out[0];
    return done;
  }
  void Open(char c) { ASSERT_EQ(write(gate_[1], &c, 1), 1); }

  bool IsReady(PLX_Event* e) { return EventIsReady(api_, e); }
  PLX_Error* Await(PLX_Event* e) { return AwaitEvent(api_, e); }
  void OnReady(PLX_Event* e, Callback* cb) {
    auto o = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
    o.event = e;
    o.callback = Callback::Fn;
    o.user_arg = cb;
    EXPECT_PLX_OK(api_, api_->PLX_Event_OnReady(&o));
  }
  void Destroy(PLX_Event* e) { DestroyEvent(api_, e); }
  PLX_Error* ToHost(std::vector<float>* out) {
    out->assign(4, 0.0f);
    auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
    t.buffer = output_;
    t.dst = out->data();
    t.dst_size = out->size() * sizeof(float);
    return api_->PLX_Buffer_ToHost(&t);
  }

  const PLX_Api* api_ = nullptr;
  int gate_[2] = {-1, -1};
  PLX_Client* client_ = nullptr;
  PLX_Executable* exe_ = nullptr;
  PLX_Buffer* input_ = nullptr;
  PLX_Buffer* output_ = nullptr;
};

TEST_F(AsyncEventsTest, PendingThenReadyWithCallbackOnPluginThread) {
  PLX_Event* done = Start();
  ASSERT_NE(done, nullptr);
  EXPECT_FALSE(IsReady(done));  // nothing can complete before Open()
  Callback cb;
  OnReady(done, &cb);
  EXPECT_FALSE(IsReady(done));
  {
    std::lock_guard<std::mutex> lock(cb.mu);
    EXPECT_EQ(cb.calls, 0) << "called back before the event was ready";
  }
  Open('G');
  cb.WaitForCall();
  EXPECT_TRUE(IsReady(done));
  EXPECT_EQ(Await(done), nullptr);
  {
    std::lock_guard<std::mutex> lock(cb.mu);
    EXPECT_EQ(cb.calls, 1);
    EXPECT_NE(cb.thread, std::this_thread::get_id())
        << "a pending event's callback runs on a plugin thread";
    EXPECT_FALSE(cb.error.is_error);
  }
  // A second OnReady on the now-ready event: at once, on this thread.
  Callback late;
  OnReady(done, &late);
  EXPECT_EQ(late.calls, 1);
  EXPECT_EQ(late.thread, std::this_thread::get_id());
  Destroy(done);
  std::vector<float> out;
  ASSERT_PLX_OK(api_, ToHost(&out));
  EXPECT_EQ(out, (std::vector<float>{-1, 2, -3, 4.5f}));
  std::lock_guard<std::mutex> lock(cb.mu);
  EXPECT_EQ(cb.calls, 1) << "called back more than once";
}

TEST_F(AsyncEventsTest, FailedExecutionErrorReachesEveryObserver) {
  PLX_Event* done = Start();
  Callback cb;
  OnReady(done, &cb);
  Open('F');
  cb.WaitForCall();
  // The callback got (and destroyed) its own copy of the error.
  {
    std::lock_guard<std::mutex> lock(cb.mu);
    EXPECT_EQ(cb.calls, 1);
    EXPECT_TRUE(cb.error.is_error);
    EXPECT_EQ(cb.error.code, PLX_Error_Code_ABORTED);
    EXPECT_THAT(cb.error.message, ::testing::HasSubstr("gate requested"));
  }
  // Await returns the carried error, every time, each owned by the caller.
  for (int i = 0; i < 2; ++i) {
    EXPECT_PLX_ERROR(api_, Await(done), ABORTED, "PLX_Event_Await",
                     "gate requested");
  }
  EXPECT_TRUE(IsReady(done));
  // The output was never computed: reading it reports why.
  std::vector<float> out;
  EXPECT_PLX_ERROR(api_, ToHost(&out), ABORTED, "PLX_Buffer_ToHost",
                   "gate requested");
  Destroy(done);
}

TEST_F(AsyncEventsTest, DestroyingAPendingEventDoesNotCancelTheWork) {
  PLX_Event* done = Start();
  EXPECT_FALSE(IsReady(done));
  Destroy(done);
  Open('G');
  // ToHost waits for the output to be computed.
  std::vector<float> out;
  ASSERT_PLX_OK(api_, ToHost(&out));
  EXPECT_EQ(out, (std::vector<float>{-1, 2, -3, 4.5f}));
}

TEST_F(AsyncEventsTest, ToHostWaitsForAPendingBuffer) {
  PLX_Event* done = Start();
  std::atomic<bool> returned{false};
  std::vector<float> out;
  PLX_Error* error = nullptr;
  std::thread reader([&] {
    error = ToHost(&out);
    returned.store(true);
  });
  // The reader cannot finish before the gate opens; whatever it has done by
  // now, it has not returned.
  EXPECT_FALSE(returned.load());
  EXPECT_FALSE(IsReady(done));
  Open('G');
  reader.join();
  ASSERT_PLX_OK(api_, error);
  EXPECT_EQ(out, (std::vector<float>{-1, 2, -3, 4.5f}));
  EXPECT_EQ(Await(done), nullptr);
  Destroy(done);
}

TEST_F(AsyncEventsTest, ManyCallbacksEachCalledOnce) {
  PLX_Event* done = Start();
  std::vector<Callback> cbs(16);
  for (Callback& cb : cbs) OnReady(done, &cb);
  Open('G');
  for (Callback& cb : cbs) cb.WaitForCall();
  EXPECT_EQ(Await(done), nullptr);
  for (Callback& cb : cbs) {
    std::lock_guard<std::mutex> lock(cb.mu);
    EXPECT_EQ(cb.calls, 1);
    EXPECT_FALSE(cb.error.is_error);
  }
  Destroy(done);
}

}  // namespace
}  // namespace plexa::abi_test
