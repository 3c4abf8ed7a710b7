// Threads (docs/abi.md "Threads"): 8 threads execute ONE executable of the
// reference plugin (and of the CPU plugin, when built) at once, each with its
// own inputs, uploading and reading back through the same client, each checking
// its own results. Meant to be run under ThreadSanitizer too (label "tsan"; see
// tests/abi/CMakeLists.txt).
//
// Inputs are small integers, so every f32 result is exact and the expected
// values are plain arithmetic: for thread t, iteration k, element i,
//   x = t * 100 + k * 7 + i,  y = (i % 5) - 2,
//   outputs: a = x * y + x,   m = x * y.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "core/literal/literal.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 20;

// f32[n] operands; the CPU plugin gets n large enough that its kernels
// split across its thread pool while 8 callers share that pool.
std::string Program(int n) {
  const std::string a = "f32[" + std::to_string(n) + "]";
  return "HloModule concurrent\n\nENTRY main {\n  x = " + a +
         " parameter(0)\n  y = " + a + " parameter(1)\n  m = " + a +
         " multiply(x, y)\n  a = " + a + " add(m, x)\n  ROOT t = (" + a + ", " +
         a + ") tuple(a, m)\n}\n";
}

class ConcurrencyTest : public ::testing::TestWithParam<const char*> {};

TEST_P(ConcurrencyTest, EightThreadsExecuteOneExecutable) {
  auto plugin = Plugin::Load(GetParam());
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  auto client = (*plugin)->CreateClient();
  ASSERT_TRUE(client.ok()) << client.status();
  const std::string name = (*plugin)->attributes().name;
  const int kSize = name == "cpu" || name == "onednn" ? 131072 : 64;
  auto exe = (*client)->Compile(Program(kSize), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Executable* executable = exe->get();
  Client* shared_client = client->get();

  std::atomic<int> failures{0};
  std::atomic<int> runs{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto fail = [&](const std::string& why) {
        if (first_error[t].empty()) first_error[t] = why;
        failures.fetch_add(1);
      };
      for (int k = 0; k < kIterations; ++k) {
        std::vector<float> x(kSize), y(kSize);
        for (int i = 0; i < kSize; ++i) {
          x[i] = static_cast<float>(t * 100 + k * 7 + i);
          y[i] = static_cast<float>(i % 5 - 2);
        }
        auto bx = shared_client->BufferFromLiteral(Literal::CreateR1<float>(x));
        auto by = shared_client->BufferFromLiteral(Literal::CreateR1<float>(y));
        if (!bx.ok() || !by.ok()) return fail("upload failed");
        auto out = executable->Execute({{bx->get(), by->get()}});
        if (!out.ok()) return fail(std::string(out.status().message()));
        if ((*out)[0].size() != 2) return fail("expected 2 outputs");
        auto a = (*out)[0][0]->ToLiteral();
        auto m = (*out)[0][1]->ToLiteral();
        if (!a.ok() || !m.ok()) return fail("download failed");
        for (int i = 0; i < kSize; ++i) {
          const float want_m = x[i] * y[i];
          const float want_a = want_m + x[i];
          if (a->Get<float>({i}) != want_a || m->Get<float>({i}) != want_m) {
            return fail("thread " + std::to_string(t) + " iteration " +
                        std::to_string(k) + " element " + std::to_string(i) +
                        " is wrong");
          }
        }
        runs.fetch_add(1);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(first_error[t].empty())
        << "thread " << t << ": " << first_error[t];
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(runs.load(), kThreads * kIterations);
}

// Replicas run on threads of their own and meet at every all-reduce: 4
// replicas, 3 all-reduces per run (the second and third depend on the
// first), 10 runs. Replica r adds r to x, so with x[i] = i:
//   s1[i] = 4i + 6,  s2[i] = 4 * s1[i],  s3[i] = max over replicas of
//   (s2[i] + r) = s2[i] + 3.
TEST_P(ConcurrencyTest, ReplicasMeetAtEveryAllReduce) {
  auto plugin = Plugin::Load(GetParam());
  ASSERT_TRUE(plugin.ok()) << plugin.status();
  auto client =
      (*plugin)->CreateClient({{"num_devices", PLX_Value_INT64, "", 4}});
  ASSERT_TRUE(client.ok()) << client.status();
  constexpr char kReplicated[] = R"(HloModule replicated
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
mx {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4096] parameter(0)
  id = u32[] replica-id()
  idf = f32[] convert(id)
  b = f32[4096] broadcast(idf), dimensions={}
  y = f32[4096] add(x, b)
  s1 = f32[4096] all-reduce(y), replica_groups={}, to_apply=sum
  s2 = f32[4096] all-reduce(s1), replica_groups={}, to_apply=sum
  z = f32[4096] add(s2, b)
  ROOT s3 = f32[4096] all-reduce(z), replica_groups={}, to_apply=mx
}
)";
  CompileOptions options;
  options.num_replicas = 4;
  auto exe = (*client)->Compile(kReplicated, "hlo-text", options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<float> x(4096);
  for (int i = 0; i < 4096; ++i) x[i] = static_cast<float>(i);
  for (int run = 0; run < 10; ++run) {
    std::vector<std::unique_ptr<Buffer>> owned;
    std::vector<std::vector<Buffer*>> args(4);
    for (int r = 0; r < 4; ++r) {
      auto b = (*client)->BufferFromLiteral(Literal::CreateR1<float>(x), r);
      ASSERT_TRUE(b.ok()) << b.status();
      args[r].push_back(b->get());
      owned.push_back(std::move(*b));
    }
    auto out = (*exe)->Execute(args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 4u);
    for (int r = 0; r < 4; ++r) {
      auto lit = (*out)[r][0]->ToLiteral();
      ASSERT_TRUE(lit.ok()) << lit.status();
      for (int i : {0, 1, 1000, 4095}) {
        const float s2 = 4.0f * (4.0f * i + 6.0f);
        ASSERT_EQ(lit->Get<float>({i}), s2 + 3.0f)
            << "run " << run << " replica " << r << " element " << i;
      }
    }
  }
}

PLEXA_INSTANTIATE_ON_PLUGINS(ConcurrencyTest);

}  // namespace
}  // namespace plexa::host
