// The CPU plugin through the C ABI: what the conformance suite does not
// cover — the compile cache, executable serialization, buffer reuse, the
// thread count, large kernels split across threads, GEMM layouts (the buffer
// assignment has its own test in plugins/common). Expected values are
// hand-computed or come from a naive loop written here.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/abi/host_run_util.h"

namespace plexa::cpu {
namespace {

using ::testing::HasSubstr;

// ---- Through the ABI -------------------------------------------------------

class CpuPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plugin = host::Plugin::Load(PLEXA_CPU_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
  }
  std::unique_ptr<host::Client> NewClient(
      std::vector<host::Plugin::Option> options = {}) {
    auto client = plugin_->CreateClient(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }
  static absl::StatusOr<std::vector<Literal>> Run(
      host::Client& client, host::Executable& exe,
      const std::vector<Literal>& args) {
    return abi_test::RunOnce(client, exe, args);
  }
  std::shared_ptr<host::Plugin> plugin_;
};

constexpr char kAffine[] = R"(HloModule affine
ENTRY main {
  x = f32[4] parameter(0)
  two = f32[] constant(2)
  one = f32[] constant(1)
  b2 = f32[4] broadcast(two), dimensions={}
  b1 = f32[4] broadcast(one), dimensions={}
  m = f32[4] multiply(x, b2)
  ROOT a = f32[4] add(m, b1)
}
)";

TEST_F(CpuPluginTest, CompilingTheSameModuleTwiceHitsTheCache) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto first = client->Compile(kAffine, "hlo-text");
  auto second = client->Compile(kAffine, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_THAT(err, HasSubstr("compile cache hit (1 so far)"));
  // Both executables run (they share the compiled program).
  Literal x = Literal::CreateR1<float>({1, 2, 3, 4});
  for (auto* exe : {first->get(), second->get()}) {
    auto out = Run(*client, *exe, {x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], Literal::CreateR1<float>({3, 5, 7, 9}));
  }
}

TEST_F(CpuPluginTest, SerializedExecutableRunsAfterDeserialization) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kAffine, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto bytes = (*exe)->Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // The object code travels with it: an ELF object inside.
  EXPECT_NE(bytes->find("\x7f"
                        "ELF"),
            std::string::npos);

  auto other = NewClient();  // another client: no cache to fall back on
  ASSERT_NE(other, nullptr);
  auto loaded = other->DeserializeExecutable(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto out =
      Run(*other, **loaded, {Literal::CreateR1<float>({0, -1, 0.5f, 10})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({1, -1, 2, 21}));
}

TEST_F(CpuPluginTest, CorruptSerializedExecutablesAreErrors) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto bad = client->DeserializeExecutable("not an executable");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("bad magic"));

  auto exe = client->Compile(kAffine, "hlo-text");
  ASSERT_TRUE(exe.ok());
  auto bytes = (*exe)->Serialize();
  ASSERT_TRUE(bytes.ok());
  auto truncated = client->DeserializeExecutable(
      absl::string_view(*bytes).substr(0, bytes->size() / 2));
  ASSERT_FALSE(truncated.ok());
  EXPECT_THAT(truncated.status().message(), HasSubstr("truncated or corrupt"));
}

// Four sorts in a chain (sort runs as a reference kernel, so nothing
// fuses): the third result reuses the first one's bytes.
constexpr char kSortChain[] = R"(HloModule sorts
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}
ENTRY main {
  x = f32[1024] parameter(0)
  s1 = f32[1024] sort(x), dimensions={0}, to_apply=lt
  s2 = f32[1024] sort(s1), dimensions={0}, to_apply=gt
  s3 = f32[1024] sort(s2), dimensions={0}, to_apply=lt
  ROOT s4 = f32[1024] sort(s3), dimensions={0}, to_apply=gt
}
)";

TEST_F(CpuPluginTest, TemporariesShareMemoryAfterTheirLastUse) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(kSortChain, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  // s1, s2, s3 are temporaries of 4096 bytes (s4 is written straight into
  // the result buffer); s3 takes s1's place.
  EXPECT_THAT(err, HasSubstr("peak temporary memory 8192 bytes (12288 "
                             "without reuse)"));
  std::vector<float> v(1024);
  for (int i = 0; i < 1024; ++i) v[i] = static_cast<float>((i * 37) % 1024);
  auto out = Run(*client, **exe, {Literal::CreateR1<float>(v)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> expected(1024);
  for (int i = 0; i < 1024; ++i) expected[i] = static_cast<float>(1023 - i);
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>(expected));
}

// A fused kernel over 1M elements split across threads gives the same
// bytes as one thread, and the values a hand formula gives.
TEST_F(CpuPluginTest, LargeKernelsSplitAcrossThreadsAgree) {
  constexpr char kProgram[] = R"(HloModule big
ENTRY main {
  x = f32[1024,1024] parameter(0)
  i = f32[1024,1024] iota(), iota_dimension=1
  m = f32[1024,1024] multiply(x, i)
  three = f32[] constant(3)
  b = f32[1024,1024] broadcast(three), dimensions={}
  ROOT s = f32[1024,1024] subtract(m, b)
}
)";
  std::vector<float> x(1024 * 1024);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k % 7);
  Literal in = Literal::CreateR1<float>(x);
  auto reshaped = in.Reshape({1024, 1024});
  ASSERT_TRUE(reshaped.ok());
  std::vector<Literal> results;
  for (int64_t threads : {1, 2}) {
    auto client = NewClient({{"num_threads", PLX_Value_INT64, "", threads}});
    ASSERT_NE(client, nullptr);
    auto exe = client->Compile(kProgram, "hlo-text");
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto out = Run(*client, **exe, {*reshaped});
    ASSERT_TRUE(out.ok()) << out.status();
    results.push_back(std::move((*out)[0]));
  }
  EXPECT_EQ(results[0], results[1]);
  for (int64_t r : {0, 1, 517, 1023}) {
    for (int64_t c : {0, 1, 600, 1023}) {
      const float want = static_cast<float>((r * 1024 + c) % 7) * c - 3;
      EXPECT_EQ(results[1].Get<float>({r, c}), want) << r << "," << c;
    }
  }
}

TEST_F(CpuPluginTest, SumOfAMillionOnesIsExact) {
  constexpr char kProgram[] = R"(HloModule sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY main {
  x = f32[1048576] parameter(0)
  z = f32[] constant(0)
  ROOT s = f32[] reduce(x, z), dimensions={0}, to_apply=add
}
)";
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kProgram, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = Run(*client, **exe,
                 {Literal::CreateR1<float>(std::vector<float>(1 << 20, 1.0f))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR0<float>(1048576.0f));
}

// dot through the packed GEMM with operands in both layouts, against a
// naive loop; integer-valued inputs keep every sum exact.
TEST_F(CpuPluginTest, DotMatchesANaiveLoopInEveryOperandLayout) {
  constexpr int64_t M = 37, K = 70, N = 45;
  std::vector<float> a(M * K), b(K * N);
  for (int64_t i = 0; i < M * K; ++i) a[i] = static_cast<float>(i % 5) - 2;
  for (int64_t i = 0; i < K * N; ++i) b[i] = static_cast<float>(i % 3) - 1;
  std::vector<float> want(M * N, 0);
  for (int64_t i = 0; i < M; ++i) {
    for (int64_t j = 0; j < N; ++j) {
      for (int64_t p = 0; p < K; ++p)
        want[i * N + j] += a[i * K + p] * b[p * N + j];
    }
  }
  auto la = Literal::CreateR1<float>(a).Reshape({M, K});
  auto lb = Literal::CreateR1<float>(b).Reshape({K, N});
  auto lw = Literal::CreateR1<float>(want).Reshape({M, N});
  ASSERT_TRUE(la.ok() && lb.ok() && lw.ok());
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  for (const char* lhs_layout : {"{1,0}", "{0,1}"}) {
    for (const char* rhs_layout : {"{1,0}", "{0,1}"}) {
      for (const char* out_layout : {"{1,0}", "{0,1}"}) {
        const std::string program = absl::StrCat(
            "HloModule dot\nENTRY main {\n  a = f32[37,70]", lhs_layout,
            " parameter(0)\n  b = f32[70,45]", rhs_layout,
            " parameter(1)\n  ROOT d = f32[37,45]", out_layout,
            " dot(a, b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}\n}\n");
        auto exe = client->Compile(program, "hlo-text");
        ASSERT_TRUE(exe.ok()) << exe.status();
        auto out = Run(*client, **exe, {*la, *lb});
        ASSERT_TRUE(out.ok()) << out.status();
        auto row_major = (*out)[0].Relayout(Layout({1, 0}));
        ASSERT_TRUE(row_major.ok());
        EXPECT_EQ(*row_major, *lw) << lhs_layout << rhs_layout << out_layout;
      }
    }
  }
}

TEST_F(CpuPluginTest, BadClientOptionsAreErrors) {
  auto zero = plugin_->CreateClient({{"num_threads", PLX_Value_INT64, "", 0}});
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.status().message(), HasSubstr("num_threads"));
  auto unknown =
      plugin_->CreateClient({{"frobnicate", PLX_Value_INT64, "", 1}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("frobnicate"));
}

// A scan: a while loop writes row i of its carried f32[8,4] with
// dynamic-update-slice. The update happens in place on the loop state (the
// report counts it) and the values are r[i][j] = 10 i + j.
constexpr char kScan[] = R"(HloModule scan
cond {
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[8,4] get-tuple-element(s), index=1
  fi = f32[] convert(i)
  ten = f32[] constant(10)
  base = f32[] multiply(fi, ten)
  b = f32[1,4] broadcast(base), dimensions={}
  io = f32[1,4] iota(), iota_dimension=1
  row = f32[1,4] add(b, io)
  zero = s32[] constant(0)
  acc2 = f32[8,4] dynamic-update-slice(acc, row, i, zero)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[8,4]) tuple(i2, acc2)
}
ENTRY main {
  z = s32[] constant(0)
  init = f32[8,4] parameter(0)
  s0 = (s32[], f32[8,4]) tuple(z, init)
  w = (s32[], f32[8,4]) while(s0), condition=cond, body=body
  ROOT r = f32[8,4] get-tuple-element(w), index=1
}
)";

TEST_F(CpuPluginTest, AScanUpdatesItsCarriedArrayInPlace) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(kScan, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("(1 updating in place)"));
  std::vector<float> init(32, -1.0f);
  Literal in = Literal::CreateR1<float>(init);
  auto reshaped = Literal(ShapeUtil::MakeShape(PrimitiveType::F32, {8, 4}));
  std::memcpy(reshaped.mutable_data().data(), in.data().data(), 128);
  for (int run = 0; run < 2; ++run) {  // the state starts from init again
    auto out = Run(*client, **exe, {reshaped});
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t i = 0; i < 8; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        EXPECT_EQ((*out)[0].Get<float>({i, j}), 10.0f * i + j) << i << "," << j;
      }
    }
    // The caller's argument is untouched.
    EXPECT_EQ(reshaped.Get<float>({3, 2}), -1.0f);
  }
}

// The operand is read after the update (it is also a result): no update in
// place, and both values are right. With the start index 5 clamped to 3.
TEST_F(CpuPluginTest, AnOperandReadLaterIsNotUpdatedInPlace) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(R"(HloModule keep
ENTRY main {
  x = f32[4] parameter(0)
  two = f32[] constant(2)
  b = f32[4] broadcast(two), dimensions={}
  y = f32[4] multiply(x, b)
  u = f32[1] constant({100})
  i = s32[] constant(5)
  d = f32[4] dynamic-update-slice(y, u, i)
  ROOT t = (f32[4], f32[4]) tuple(d, y)
}
)",
                             "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("(0 updating in place)"));
  auto out = Run(*client, **exe, {Literal::CreateR1<float>({1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({2, 4, 6, 100}));
  EXPECT_EQ((*out)[1], Literal::CreateR1<float>({2, 4, 6, 8}));
}

// A scatter-add into a temporary nothing reads afterwards updates it in
// place: y = 2x = {2, 4, 6, 8, 10, 12}; index 0 gets 10 + 30, index 2 gets
// 20.
TEST_F(CpuPluginTest, AScatterIntoADeadTemporaryUpdatesItInPlace) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(R"(HloModule scatter_in_place
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[6] parameter(0)
  two = f32[] constant(2)
  b = f32[6] broadcast(two), dimensions={}
  y = f32[6] multiply(x, b)
  idx = s32[3,1] constant({{0}, {2}, {0}})
  upd = f32[3] constant({10, 20, 30})
  ROOT s = f32[6] scatter(y, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)",
                             "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("(1 updating in place)"));
  auto out =
      Run(*client, **exe, {Literal::CreateR1<float>({1, 2, 3, 4, 5, 6})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({42, 4, 26, 8, 10, 12}));
}

// An update laid out column-major ({0,1}) into a row-major operand, at
// (1, 1) (s64 indices): element-wise copies along the update's
// minor dimension.
TEST_F(CpuPluginTest, AnUpdateInAnotherLayoutLandsInItsWindow) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(R"(HloModule layouts
ENTRY main {
  x = f32[4,5]{1,0} parameter(0)
  u = f32[2,3]{0,1} parameter(1)
  r = s64[] constant(1)
  c = s64[] constant(1)
  ROOT d = f32[4,5]{1,0} dynamic-update-slice(x, u, r, c)
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {4, 5}));
  Literal u(ShapeUtil::MakeShape(PrimitiveType::F32, {2, 3}));
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) x.Set<float>({i, j}, 0.0f);
  }
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) u.Set<float>({i, j}, 1 + 10.0f * i + j);
  }
  auto out = Run(*client, **exe, {x, u});
  ASSERT_TRUE(out.ok()) << out.status();
  // Rows 1..2, columns 1..3 hold u; the rest stays 0.
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const bool inside = i >= 1 && i <= 2 && j >= 1 && j <= 3;
      EXPECT_EQ((*out)[0].Get<float>({i, j}),
                inside ? 1 + 10.0f * (i - 1) + (j - 1) : 0.0f)
          << i << "," << j;
    }
  }
}

// Feeds themselves are tested on both plugins in tests/abi/feeds_test.cc;
// here: the CPU plugin compiles them to runtime thunks it reports.
// rng-get-and-update-state keeps its state in the executable: each
// execution reads the next one. XLA's first state 0x7012395 = 117515157,
// then + 5 per execution (by hand).
TEST_F(CpuPluginTest, RngStateCarriesOverBetweenExecutions) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(R"(HloModule rng_state
ENTRY main {
  ROOT s = u64[2] rng-get-and-update-state(), delta=5
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  for (uint64_t expected : {117515157ull, 117515162ull, 117515167ull}) {
    auto out = Run(*client, **exe, {});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    EXPECT_EQ((*out)[0], Literal::CreateR1<uint64_t>({expected, 0}))
        << (*out)[0].ToString();
  }
  // A second executable of the same module (the compile cache hands it the
  // same program) has its own state: it starts again.
  auto again = client->Compile(R"(HloModule rng_state
ENTRY main {
  ROOT s = u64[2] rng-get-and-update-state(), delta=5
}
)",
                               "hlo-text");
  ASSERT_TRUE(again.ok()) << again.status();
  auto out = Run(*client, **again, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<uint64_t>({117515157ull, 0}))
      << (*out)[0].ToString();
  // And the first goes on where it stopped.
  out = Run(*client, **exe, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<uint64_t>({117515172ull, 0}))
      << (*out)[0].ToString();
}

TEST_F(CpuPluginTest, FeedsCompileToRuntimeThunks) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(R"(HloModule feed
ENTRY main {
  t = token[] after-all()
  feed_in = (f32[2], token[]) infeed(t)
  ROOT v = f32[2] get-tuple-element(feed_in), index=0
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = (*exe)->Execute({{}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(out.status().message(), HasSubstr("feed_in"));
}

// An all-reduce whose replica groups name a replica that does not run is
// an error naming it (the evaluator's rule), not a reduction over the
// replicas that happen to run. Both the matched reducer (a runtime thunk)
// and an unmatched one (the evaluator on one replica) are checked.
TEST_F(CpuPluginTest, AnAllReduceNamingAMissingReplicaIsAnError) {
  auto program = [](const char* reducer) {
    return absl::StrCat(R"(HloModule groups
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] )",
                        reducer, R"(
}
ENTRY main {
  x = f32[4] parameter(0)
  ROOT ar = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
}
)");
  };
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  for (const char* reducer : {"add(a, b)", "subtract(a, b)"}) {
    auto exe = client->Compile(program(reducer), "hlo-text");
    ASSERT_FALSE(exe.ok()) << reducer;
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(exe.status().message(),
                HasSubstr("instruction 'ar' (all-reduce): replica_groups"));
    EXPECT_THAT(exe.status().message(),
                HasSubstr("replica 1 but 1 replica(s) run"));
  }
  // With two replicas the same module compiles.
  host::CompileOptions two;
  two.num_replicas = 2;
  auto two_client = NewClient({{"num_devices", PLX_Value_INT64, "", 2}});
  ASSERT_NE(two_client, nullptr);
  auto exe = two_client->Compile(program("add(a, b)"), "hlo-text", two);
  EXPECT_TRUE(exe.ok()) << exe.status();
}

}  // namespace
}  // namespace plexa::cpu

namespace plexa::cpu {
namespace {

// A convolution followed by a per-feature affine map and relu: the loop
// fusion runs inside the convolution (an epilogue on each finished block of
// rows). Checked against the reference evaluator (the oracle of every
// plugin) in NCHW and NHWC, with one and two threads.
TEST_F(CpuPluginTest, ConvolutionEpilogueMatchesTheEvaluator) {
  for (const bool nhwc : {false, true}) {
    const std::string in = nhwc ? "f32[3,9,11,5]" : "f32[3,5,9,11]";
    const std::string w = nhwc ? "f32[3,3,5,20]" : "f32[20,5,3,3]";
    const std::string out = nhwc ? "f32[3,9,11,20]" : "f32[3,20,9,11]";
    const std::string labels = nhwc ? "b01f_01io->b01f" : "bf01_oi01->bf01";
    const std::string feature = nhwc ? "3" : "1";
    const std::string program = absl::StrCat(
        "HloModule conv_epilogue\nENTRY main {\n  x = ", in,
        " parameter(0)\n  k = ", w,
        " parameter(1)\n  s = f32[20] parameter(2)\n", "  c = ", out,
        " convolution(x, k), window={size=3x3 pad=1_1x1_1}, ",
        "dim_labels=", labels, "\n  sb = ", out, " broadcast(s), dimensions={",
        feature, "}\n  m = ", out,
        " multiply(c, sb)\n  z = f32[] constant(0)\n", "  zb = ", out,
        " broadcast(z), dimensions={}\n  ROOT r = ", out,
        " maximum(m, zb)\n}\n");
    auto module = ParseHloModule(program);
    ASSERT_TRUE(module.ok()) << module.status();
    const ProgramShape ps =
        (*module)->entry_computation()->ComputeProgramShape();
    std::vector<Literal> args;
    int seed = 1;
    for (const Shape& p : ps.parameters) {
      Literal l(p);
      const int64_t n = ShapeUtil::ElementsIn(p);
      std::vector<float> v(n);
      for (int64_t i = 0; i < n; ++i) {
        v[i] = static_cast<float>((i * 7 + seed * 13) % 17) / 8.0f - 1.0f;
      }
      std::memcpy(l.mutable_data().data(), v.data(), n * sizeof(float));
      args.push_back(std::move(l));
      ++seed;
    }
    Evaluator evaluator;
    auto want = evaluator.Run(**module, args);
    ASSERT_TRUE(want.ok()) << want.status();
    for (int64_t threads : {1, 2}) {
      auto client = NewClient({{"num_threads", PLX_Value_INT64, "", threads},
                               {"report", PLX_Value_INT64, "", 1}});
      ASSERT_NE(client, nullptr);
      ::testing::internal::CaptureStderr();
      auto exe = client->Compile(program, "hlo-text");
      const std::string err = ::testing::internal::GetCapturedStderr();
      ASSERT_TRUE(exe.ok()) << exe.status();
      EXPECT_THAT(err, HasSubstr("(1 in convolution epilogues)"));
      auto got = Run(*client, **exe, args);
      ASSERT_TRUE(got.ok()) << got.status();
      const int64_t n = ShapeUtil::ElementsIn(want->shape());
      const float* a = reinterpret_cast<const float*>(want->data().data());
      const float* b = reinterpret_cast<const float*>((*got)[0].data().data());
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_NEAR(a[i], b[i], 1e-5f * (1.0f + std::fabs(a[i])))
            << (nhwc ? "NHWC" : "NCHW") << " threads " << threads << " i " << i;
      }
    }
  }
}

}  // namespace
}  // namespace plexa::cpu

namespace plexa::cpu {
namespace {

// Zero-element results still compile (their kernels never run): an empty
// concatenation fused with arithmetic.
// A tiled operand is converted at the boundary: the add runs as a compiled
// kernel on dense copies (copies and bitcasts on the reference kernels), and
// the result is x + 1 element by element (the T(8,128) tiling pads 5 x 130
// to 8 x 256 on both sides of each bitcast, so no byte moves).
constexpr char kTiledAdd[] = R"(HloModule tiled_add
ENTRY e {
  p = f32[1,5,130]{2,1,0:T(8,128)} parameter(0)
  b = f32[5,130]{1,0:T(8,128)} bitcast(p)
  c = f32[] constant(1)
  bc = f32[5,130]{1,0:T(8,128)} broadcast(c), dimensions={}
  a = f32[5,130]{1,0:T(8,128)} add(b, bc)
  ROOT r = f32[1,5,130]{2,1,0:T(8,128)} bitcast(a)
}
)";

TEST_F(CpuPluginTest, TiledOperandsAreConvertedAtTheBoundary) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(kTiledAdd, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  // The add (a fusion with the broadcast) is the one kernel; only the
  // layout conversions and bitcasts run on reference kernels.
  EXPECT_THAT(err, HasSubstr(" 1 kernels"));
  EXPECT_THAT(err, HasSubstr("reference kernels: bitcast, copy;"));
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {1, 5, 130}));
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 130; ++j) {
      x.Set<float>({0, i, j}, static_cast<float>(i * 1000 + j));
    }
  }
  auto out = Run(*client, **exe, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t j = 0; j < 130; ++j) {
      EXPECT_EQ((*out)[0].Get<float>({0, i, j}), i * 1000.0f + j + 1.0f)
          << i << "," << j;
    }
  }
}

TEST_F(CpuPluginTest, EmptyConcatenationCompilesAndRuns) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(R"(HloModule empty
ENTRY main {
  a = f32[2,0] parameter(0)
  b = f32[2,0] parameter(1)
  c = f32[2,0] concatenate(a, b), dimensions={1}
  ROOT n = f32[2,0] negate(c)
}
)",
                             "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal e(Shape(PrimitiveType::F32, {2, 0}));
  auto out = Run(*client, **exe, {e, e});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape().dimensions(), (std::vector<int64_t>{2, 0}));
}

}  // namespace
}  // namespace plexa::cpu
