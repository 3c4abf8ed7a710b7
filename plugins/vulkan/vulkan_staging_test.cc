// The staging path (vk_device.h) through the C ABI: option staging=1 puts
// every buffer in device memory the host does not map (its slot addresses
// fault when touched), so uploads, downloads, constants, host steps (the
// evaluator, custom calls, all-reduce) and host control flow (while
// predicates, conditional selectors, loop state) must all go through
// staging copies to give these results. Expected values by hand or with
// plain loops. Also: how the mode is chosen, and the two memories with
// their statistics.
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "core/literal/literal.h"
#include "core/shape/shape_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/abi/host_run_util.h"

namespace plexa::vulkan {
namespace {

using ::testing::HasSubstr;

// What reduce-precision with 8 exponent and 11 mantissa bits gives for a
// double of modest size: 12 significant bits, rounded to nearest even.
double ToElevenBits(double v) {
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m 2^e, 0.5 <= |m| < 1
  return std::ldexp(std::nearbyint(std::ldexp(m, 12)), e - 12);
}

class VulkanStagingTest : public ::testing::Test {
 public:
  void SetUp() override {
    auto plugin = host::Plugin::Load(PLEXA_VULKAN_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
  }
  std::unique_ptr<host::Client> Staged(
      std::vector<host::Plugin::Option> options = {}) {
    options.push_back({"staging", PLX_Value_INT64, "", 1});
    auto client = plugin_->CreateClient(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }
  // Compiles `program` (capturing the report, when the client prints one)
  // and runs it once on `args`.
  absl::StatusOr<std::vector<Literal>> CompileAndRun(
      host::Client& client, const std::string& program,
      const std::vector<Literal>& args, std::string* report = nullptr,
      const host::CompileOptions& options = {}) {
    ::testing::internal::CaptureStderr();
    auto exe = client.Compile(program, "hlo-text", options);
    const std::string err = ::testing::internal::GetCapturedStderr();
    if (report != nullptr) *report = err;
    if (!exe.ok()) return exe.status();
    return abi_test::RunOnce(client, **exe, args);
  }
  std::map<std::string, PLX_NamedValue> Attributes(host::Client& client) {
    auto out = abi_test::DeviceAttributes(*plugin_, client);
    EXPECT_FALSE(out.empty()) << "PLX_Device_Describe failed";
    return out;
  }
  std::shared_ptr<host::Plugin> plugin_;
};

TEST_F(VulkanStagingTest, TheOptionAndTheEnvironmentChooseTheMode) {
  auto staged = Staged();
  ASSERT_NE(staged, nullptr);
  auto a = Attributes(*staged);
  EXPECT_EQ(a["staging"].int64_value, 1);
  EXPECT_THAT(std::string(a["memory_mode"].string_value),
              HasSubstr("staging (option staging=1)"));
  auto direct = plugin_->CreateClient({{"staging", PLX_Value_INT64, "", 0}});
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_EQ(Attributes(**direct)["staging"].int64_value, 0);
  // Without the option: decided by the memory types. Every memory type of
  // lavapipe is device-local and host-visible, so it maps; a GPU without
  // resizable BAR would stage.
  auto chosen = plugin_->CreateClient({});
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  auto c = Attributes(**chosen);
  const std::string mode = c["memory_mode"].string_value;
  EXPECT_TRUE(mode.rfind("direct (", 0) == 0 || mode.rfind("staging (", 0) == 0)
      << mode;
  EXPECT_EQ(c["staging"].int64_value, mode.rfind("staging", 0) == 0);
  if (std::string(c["name"].string_value).find("llvmpipe") !=
      std::string::npos) {
    EXPECT_EQ(mode, "direct (device-local memory is host-visible)");
  }

  auto bad = plugin_->CreateClient({{"staging", PLX_Value_INT64, "", 2}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("staging"));

  ASSERT_EQ(setenv("PLEXA_VULKAN_STAGING", "1", 1), 0);
  auto from_env = plugin_->CreateClient({});
  ASSERT_EQ(setenv("PLEXA_VULKAN_STAGING", "yes", 1), 0);
  auto bad_env = plugin_->CreateClient({});
  // The option wins over the environment.
  ASSERT_EQ(setenv("PLEXA_VULKAN_STAGING", "1", 1), 0);
  auto option_wins =
      plugin_->CreateClient({{"staging", PLX_Value_INT64, "", 0}});
  ASSERT_EQ(unsetenv("PLEXA_VULKAN_STAGING"), 0);
  ASSERT_TRUE(from_env.ok()) << from_env.status();
  EXPECT_EQ(Attributes(**from_env)["staging"].int64_value, 1);
  ASSERT_FALSE(bad_env.ok());
  EXPECT_THAT(bad_env.status().message(), HasSubstr("PLEXA_VULKAN_STAGING"));
  ASSERT_TRUE(option_wins.ok()) << option_wins.status();
  EXPECT_EQ(Attributes(**option_wins)["staging"].int64_value, 0);
}

// Uploads and downloads larger than the 8 MiB staging buffer (in chunks),
// around a kernel, the host evaluator (reduce-precision, forced there with
// the host_opcodes option) and another kernel.
TEST_F(VulkanStagingTest, LargeArraysThroughKernelsAndTheHostEvaluator) {
  auto client =
      Staged({{"report", PLX_Value_INT64, "", 1},
              {"host_opcodes", PLX_Value_STRING, "reduce-precision", 0}});
  ASSERT_NE(client, nullptr);
  constexpr int64_t kN = (int64_t{1} << 20) + 12345;  // 8.1 MiB of f64
  const std::string program = absl::StrCat(
      "HloModule big\nENTRY main {\n  x = f64[", kN,
      "] parameter(0)\n  n = f64[", kN, "] negate(x)\n  e = f64[", kN,
      "] reduce-precision(n), exponent_bits=8, mantissa_bits=11\n  ROOT s = "
      "f64[",
      kN, "] add(e, e)\n}\n");
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F64, {kN}));
  for (int64_t i = 0; i < kN; ++i) {
    x.Set<double>({i}, static_cast<double>(i % 1000) / 100.0 - 5.0);
  }
  std::string report;
  auto out = CompileAndRun(*client, program, {x}, &report);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(report, HasSubstr("2 kernels on the device"));
  EXPECT_THAT(report, HasSubstr("1 instructions on the host evaluator"));
  EXPECT_THAT(report, HasSubstr("memory staging (option staging=1), 1 host "
                                "steps through staging copies"));
  int64_t wrong = 0;
  for (int64_t i = 0; i < kN; ++i) {
    const double want = 2 * ToElevenBits(-x.Get<double>({i}));
    if ((*out)[0].Get<double>({i}) != want && wrong++ < 5) {
      ADD_FAILURE() << i << ": " << (*out)[0].Get<double>({i}) << ", want "
                    << want;
    }
  }
  EXPECT_EQ(wrong, 0);
}

// A while loop on the host: its predicate is a kernel's result read back
// through the staging buffer, its state copied on the device, and the body
// adds a constant array (uploaded at compile time): x + 3 * [1, 2, 3, 4].
TEST_F(VulkanStagingTest, WhileLoopsReadTheirPredicateFromTheDevice) {
  auto client = Staged();
  ASSERT_NE(client, nullptr);
  constexpr char kProgram[] = R"(HloModule loop
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  c = f32[4] constant({1, 2, 3, 4})
  v1 = f32[4] add(v, c)
  ROOT t = (s32[], f32[4]) tuple(i1, v1)
}
ENTRY main {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, x)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT v = f32[4] get-tuple-element(w), index=1
}
)";
  auto out = CompileAndRun(*client, kProgram,
                           {Literal::CreateR1<float>({10, -1, 0.5, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({13, 5, 9.5, 14}));
}

// A conditional's branch index read from the device: 0 negates, 1 (and
// any index out of range: the last branch) doubles.
TEST_F(VulkanStagingTest, ConditionalsReadTheirSelectorFromTheDevice) {
  auto client = Staged();
  ASSERT_NE(client, nullptr);
  constexpr char kProgram[] = R"(HloModule branches
neg {
  p = f32[3] parameter(0)
  ROOT n = f32[3] negate(p)
}
dbl {
  p = f32[3] parameter(0)
  ROOT d = f32[3] add(p, p)
}
ENTRY main {
  x = f32[3] parameter(0)
  k = s32[] parameter(1)
  one = s32[] constant(1)
  k1 = s32[] subtract(k, one)
  ROOT c = f32[3] conditional(k1, x, x), branch_computations={neg, dbl}
}
)";
  const Literal x = Literal::CreateR1<float>({1.5, -2, 4});
  for (int32_t k : {1, 2, 8}) {
    auto out = CompileAndRun(*client, kProgram, {x, Literal::CreateR0(k)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], k == 1 ? Literal::CreateR1<float>({-1.5, 2, -4})
                                : Literal::CreateR1<float>({3, -4, 8}))
        << k;
  }
}

// A custom call (examples/custom_call: y = 2x) between two kernels runs on
// host copies of its operand and result.
TEST_F(VulkanStagingTest, CustomCallsRunOnHostCopies) {
  auto client = Staged();
  ASSERT_NE(client, nullptr);
  constexpr char kProgram[] = R"(HloModule cc
ENTRY main {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  s = f32[4] custom-call(n), custom_call_target="scale_f32_4"
  ROOT a = f32[4] add(s, x)
}
)";
  host::CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  auto out = CompileAndRun(*client, kProgram,
                           {Literal::CreateR1<float>({1, -2, 3.5, 0})}, nullptr,
                           options);
  ASSERT_TRUE(out.ok()) << out.status();
  // -2x + x = -x.
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({-1, 2, -3.5, 0}));
}

// All-reduce across two replicas (threads of one process reading each
// other's host copies): each replica negates its input on the device,
// then the sum of both.
TEST_F(VulkanStagingTest, AllReduceAcrossReplicasOnHostCopies) {
  auto client = Staged({{"num_devices", PLX_Value_INT64, "", 2}});
  ASSERT_NE(client, nullptr);
  constexpr char kProgram[] = R"(HloModule ar
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  r = f32[4] all-reduce(n), to_apply=sum, replica_groups={}
  ROOT m = f32[4] multiply(r, x)
}
)";
  host::CompileOptions options;
  options.num_replicas = 2;
  auto exe = client->Compile(kProgram, "hlo-text", options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto x0 =
      client->BufferFromLiteral(Literal::CreateR1<float>({1, 2, 3, 4}), 0);
  auto x1 =
      client->BufferFromLiteral(Literal::CreateR1<float>({10, 20, 30, -40}), 1);
  ASSERT_TRUE(x0.ok() && x1.ok());
  auto out = (*exe)->Execute({{x0->get()}, {x1->get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  // r = -(x0 + x1) = [-11, -22, -33, 36]; m = r * x_replica.
  EXPECT_EQ((*out)[0][0]->ToLiteral().value(),
            Literal::CreateR1<float>({-11, -44, -99, 144}));
  EXPECT_EQ((*out)[1][0]->ToLiteral().value(),
            Literal::CreateR1<float>({-110, -440, -990, -1440}));
}

// Both memories are listed with their heaps' sizes as limits; a buffer
// placed on the host-visible one is counted there, and kernels read it in
// place (by its device address) under staging too.
TEST_F(VulkanStagingTest, TwoMemoriesWithTheirOwnStatistics) {
  auto client = Staged();
  ASSERT_NE(client, nullptr);
  auto memories = client->Memories(0);
  ASSERT_TRUE(memories.ok()) << memories.status();
  ASSERT_EQ(memories->size(), 2u);
  const host::MemoryInfo& device = (*memories)[0];
  const host::MemoryInfo& pinned = (*memories)[1];
  EXPECT_EQ(device.kind, PLX_MemoryKind_DEVICE);
  EXPECT_EQ(device.kind_name, "device");
  EXPECT_EQ(pinned.kind, PLX_MemoryKind_HOST_VISIBLE);
  EXPECT_EQ(pinned.kind_name, "pinned_host");
  auto device_before = client->GetMemoryStatistics(device);
  auto pinned_before = client->GetMemoryStatistics(pinned);
  ASSERT_TRUE(device_before.ok() && pinned_before.ok());
  EXPECT_GT(device_before->bytes_limit, 0);
  EXPECT_GT(pinned_before->bytes_limit, 0);

  host::UploadOptions on_pinned;
  on_pinned.memory = pinned.handle;
  std::vector<float> x(256);
  for (int i = 0; i < 256; ++i) x[i] = static_cast<float>(i) - 100.5f;
  auto b = client->BufferFromHostData(
      x.data(), x.size() * 4, ShapeUtil::MakeShape(PrimitiveType::F32, {256}),
      {}, on_pinned);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->GetPlacement()->memory, pinned.handle);
  EXPECT_EQ(client->GetMemoryStatistics(pinned)->bytes_in_use,
            pinned_before->bytes_in_use + 1024);
  EXPECT_EQ(client->GetMemoryStatistics(device)->bytes_in_use,
            device_before->bytes_in_use);

  auto exe = client->Compile(R"(HloModule twice
ENTRY main {
  x = f32[256] parameter(0)
  ROOT a = f32[256] add(x, x)
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = (*exe)->Execute({{b->get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  // The result is on the device's memory, counted there.
  EXPECT_EQ(client->GetMemoryStatistics(device)->bytes_in_use,
            device_before->bytes_in_use + 1024);
  auto y = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(y.ok()) << y.status();
  for (int i = 0; i < 256; ++i) {
    EXPECT_EQ(y->Get<float>({i}), 2 * x[i]) << i;
  }
  out->clear();
  b->reset();
  EXPECT_EQ(client->GetMemoryStatistics(pinned)->bytes_in_use,
            pinned_before->bytes_in_use);
  EXPECT_EQ(client->GetMemoryStatistics(device)->bytes_in_use,
            device_before->bytes_in_use);
}

// Eight threads running one program at once, each with its own arguments:
// every host step's copies and every staged transfer are per run.
TEST_F(VulkanStagingTest, ConcurrentRunsKeepTheirHostCopiesApart) {
  auto client =
      Staged({{"host_opcodes", PLX_Value_STRING, "reduce-precision", 0}});
  ASSERT_NE(client, nullptr);
  // reduce-precision on the host evaluator (host_opcodes) between two
  // kernels.
  auto exe = client->Compile(R"(HloModule h
ENTRY main {
  x = f64[1000] parameter(0)
  n = f64[1000] negate(x)
  e = f64[1000] reduce-precision(n), exponent_bits=8, mantissa_bits=11
  ROOT s = f64[1000] add(e, x)
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<std::thread> threads;
  std::vector<int64_t> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) {
        Literal x(ShapeUtil::MakeShape(PrimitiveType::F64, {1000}));
        for (int64_t i = 0; i < 1000; ++i) {
          x.Set<double>(
              {i}, static_cast<double>((i * 7 + t * 13 + rep) % 50) / 10.0);
        }
        auto in = client->BufferFromLiteral(x);
        if (!in.ok()) {
          ++wrong[t];
          continue;
        }
        auto out = (*exe)->Execute({{in->get()}});
        if (!out.ok()) {
          ++wrong[t];
          continue;
        }
        auto y = (*out)[0][0]->ToLiteral();
        if (!y.ok()) {
          ++wrong[t];
          continue;
        }
        for (int64_t i = 0; i < 1000; ++i) {
          const double xi = x.Get<double>({i});
          if (y->Get<double>({i}) != ToElevenBits(-xi) + xi) ++wrong[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// ABI 1.2's asynchronous slots in staging mode: uploads, executions and
// downloads issued back to back without waiting, the buffers' handles
// deleted while their transfers are in flight, a download relaid into the
// host's layout on the device's completion thread; the events carry the
// results. y = x0 * x1 + x0 with x0[i] = i % 97 - 48, x1[i] = i % 31 / 4.
TEST_F(VulkanStagingTest, AsynchronousTransfersChainWithoutWaiting) {
  auto client = Staged();
  ASSERT_NE(client, nullptr);
  constexpr int64_t kN = (int64_t{3} << 20) + 7;  // 12 MiB of f32
  const std::string n = absl::StrCat(kN);
  auto exe = client->Compile(
      absl::StrCat("HloModule fma\nENTRY main {\n  a = f32[", n,
                   "] parameter(0)\n  b = f32[", n,
                   "] parameter(1)\n  m = f32[", n,
                   "] multiply(a, b)\n  ROOT y = f32[", n, "] add(m, a)\n}\n"),
      "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr int kRounds = 4;
  std::vector<Literal> x0, x1, y(kRounds);
  std::vector<std::unique_ptr<host::Event>> events;
  for (int r = 0; r < kRounds; ++r) {
    x0.emplace_back(ShapeUtil::MakeShape(PrimitiveType::F32, {kN}));
    x1.emplace_back(ShapeUtil::MakeShape(PrimitiveType::F32, {kN}));
    for (int64_t i = 0; i < kN; ++i) {
      x0[r].Set<float>({i}, static_cast<float>((i + r) % 97 - 48));
      x1[r].Set<float>({i}, static_cast<float>((i * (r + 1)) % 31) / 4);
    }
  }
  for (int r = 0; r < kRounds; ++r) {
    auto a = client->BufferFromLiteralAsync(x0[r]);
    auto b = client->BufferFromLiteralAsync(x1[r]);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    auto run = (*exe)->ExecuteAsync({{a->buffer.get(), b->buffer.get()}});
    ASSERT_TRUE(run.ok()) << run.status();
    auto down = run->outputs[0][0]->ToLiteralAsync(&y[r]);
    ASSERT_TRUE(down.ok()) << down.status();
    // The handles go now; the buffers live until the work is done.
    ASSERT_TRUE(a->buffer->Delete().ok());
    events.push_back(std::move(a->done_with_host));
    events.push_back(std::move(b->done_with_host));
    events.push_back(std::move(run->completion[0]));
    events.push_back(*std::move(down));
  }
  for (auto& e : events) ASSERT_TRUE(e->Await().ok()) << e->Await();
  for (int r = 0; r < kRounds; ++r) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < kN; ++i) {
      const float a = x0[r].Get<float>({i}), b = x1[r].Get<float>({i});
      if (y[r].Get<float>({i}) != a * b + a && wrong++ < 3) {
        ADD_FAILURE() << r << "," << i << ": " << y[r].Get<float>({i});
      }
    }
    EXPECT_EQ(wrong, 0) << "round " << r;
  }
  // A column-major upload read back row-major: relaid on the completion
  // thread. x[i][j] = 10 i + j.
  Literal cm(
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::S32, {3, 4}, {0, 1}));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) cm.Set<int32_t>({i, j}, 10 * i + j);
  }
  auto up = client->BufferFromLiteralAsync(cm);
  ASSERT_TRUE(up.ok()) << up.status();
  auto shape = up->buffer->shape();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(), "s32[3,4]{0,1}");
  Literal back;
  auto got = up->buffer->ToLiteralAsync(&back);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE((*got)->Await().ok());
  EXPECT_EQ(back.shape().ToString(), "s32[3,4]{1,0}");
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(back.Get<int32_t>({i, j}), 10 * i + j) << i << "," << j;
    }
  }
}

// A client destroyed as soon as the host has its last event, with the
// buffers' handles gone while their work was in flight: the plugin's
// execution and completion threads may still be running the callbacks of
// that work (which free the SDK's buffers of this client), and
// PLX_Client_Destroy waits for them (sdk::Client::Quiesce). Under ASan a
// use of the destroyed client's memories would fail this test; a release
// build crashed in 2 of 3 runs of bench/vulkan_async_bench before.
TEST_F(VulkanStagingTest, AClientGoesRightAfterItsLastEvent) {
  for (int round = 0; round < 12; ++round) {
    auto client = Staged();
    ASSERT_NE(client, nullptr);
    auto exe = client->Compile(R"(HloModule twice
ENTRY main {
  x = f32[65536] parameter(0)
  ROOT y = f32[65536] add(x, x)
}
)",
                               "hlo-text");
    ASSERT_TRUE(exe.ok()) << exe.status();
    Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {65536}));
    for (int64_t i = 0; i < 65536; ++i) {
      x.Set<float>({i}, static_cast<float>(i % 101 + round));
    }
    Literal y;
    std::unique_ptr<host::Event> last;
    {
      auto up = client->BufferFromLiteralAsync(x);
      ASSERT_TRUE(up.ok()) << up.status();
      auto run = (*exe)->ExecuteAsync({{up->buffer.get()}});
      ASSERT_TRUE(run.ok()) << run.status();
      auto run2 = (*exe)->ExecuteAsync({{run->outputs[0][0].get()}});
      ASSERT_TRUE(run2.ok()) << run2.status();
      auto down = run2->outputs[0][0]->ToLiteralAsync(&y);
      ASSERT_TRUE(down.ok()) << down.status();
      last = *std::move(down);
    }
    exe->reset();
    ASSERT_TRUE(last->Await().ok());
    last.reset();
    client.reset();
    for (int64_t i = 0; i < 65536; i += 997) {
      ASSERT_EQ(y.Get<float>({i}), 4 * x.Get<float>({i})) << i;
    }
  }
}

}  // namespace
}  // namespace plexa::vulkan
