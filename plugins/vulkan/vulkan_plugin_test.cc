// The Vulkan plugin through the C ABI on this machine's Vulkan device
// (lavapipe where there is no GPU): what the conformance suite does not
// cover — device selection and its errors, device attributes, more
// workgroups than one dispatch dimension allows, arrays past
// maxStorageBufferRange, concurrent executions, donation, the compile
// report. Expected values are computed here with plain loops.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/shape/primitive_type.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/vulkan/device_custom_call.h"
#include "plugins/vulkan/spirv_compiler.h"
#include "tests/abi/host_run_util.h"

namespace plexa::vulkan {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class VulkanPluginTest : public ::testing::Test {
 public:
  void SetUp() override {
    auto plugin = host::Plugin::Load(PLEXA_VULKAN_PLUGIN);
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
  // Compiles `text` on a client that prints its report, expects every
  // instruction on the device, and runs it once on `args`.
  absl::StatusOr<std::vector<Literal>> RunAllOnDevice(
      const std::string& text, const std::vector<Literal>& args,
      std::vector<host::Plugin::Option> options = {}) {
    options.push_back({"report", PLX_Value_INT64, "", 1});
    auto client = NewClient(options);
    if (client == nullptr) return absl::InternalError("no Vulkan client");
    testing::internal::CaptureStderr();
    auto exe = client->Compile(text, "hlo-text");
    const std::string report = testing::internal::GetCapturedStderr();
    if (!exe.ok()) return exe.status();
    EXPECT_THAT(report, HasSubstr(" 0 instructions on the host evaluator"))
        << report;
    return Run(*client, **exe, args);
  }
  // The device's attributes (PLX_Device_Describe), by name.
  std::map<std::string, PLX_NamedValue> Attributes(host::Client& client) {
    auto out = abi_test::DeviceAttributes(*plugin_, client);
    EXPECT_FALSE(out.empty()) << "PLX_Device_Describe failed";
    return out;
  }
  std::shared_ptr<host::Plugin> plugin_;
};

TEST_F(VulkanPluginTest, HostOpcodesMustNameOpcodes) {
  auto bad = plugin_->CreateClient(
      {{"host_opcodes", PLX_Value_STRING, "sine,no-such-op", 0}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'no-such-op'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("host_opcodes"));
  auto wrong_kind =
      plugin_->CreateClient({{"host_opcodes", PLX_Value_INT64, "", 3}});
  ASSERT_FALSE(wrong_kind.ok());
  EXPECT_THAT(wrong_kind.status().message(), HasSubstr("must be a string"));
}

TEST_F(VulkanPluginTest, AnAbsentDeviceIsAClearErrorAtClientCreation) {
  auto by_name = plugin_->CreateClient(
      {{"device", PLX_Value_STRING, "no-such-vulkan-device", 0}});
  ASSERT_FALSE(by_name.ok());
  EXPECT_THAT(by_name.status().message(), HasSubstr("no Vulkan device"));
  EXPECT_THAT(by_name.status().message(), HasSubstr("no-such-vulkan-device"));
  auto by_index =
      plugin_->CreateClient({{"device", PLX_Value_INT64, "", 4096}});
  ASSERT_FALSE(by_index.ok());
  EXPECT_THAT(by_index.status().message(), HasSubstr("no Vulkan device"));
  EXPECT_THAT(by_index.status().message(), HasSubstr("4096"));
  auto unknown = plugin_->CreateClient({{"devcie", PLX_Value_INT64, "", 0}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("devcie"));
}

TEST_F(VulkanPluginTest, DeviceZeroByIndexAndTheDeviceAttributes) {
  auto client = NewClient({{"device", PLX_Value_INT64, "", 0}});
  ASSERT_NE(client, nullptr);
  ASSERT_EQ(client->devices().size(), 1u);
  EXPECT_THAT(client->devices()[0].kind, HasSubstr("vulkan:"));
  auto a = Attributes(*client);
  ASSERT_TRUE(a.contains("name"));
  EXPECT_THAT(client->devices()[0].kind, HasSubstr(a["name"].string_value));
  // Vulkan's required minimums.
  EXPECT_GE(a["max_storage_buffer_range"].int64_value, 1 << 27);
  EXPECT_GE(a["max_workgroup_count_x"].int64_value, 65535);
  EXPECT_GE(a["max_shared_memory_bytes"].int64_value, 16384);
  EXPECT_GE(a["subgroup_size"].int64_value, 1);
  EXPECT_TRUE(a.contains("device_type"));
  EXPECT_TRUE(a.contains("shader_float64"));
}

constexpr char kAffine[] = R"(HloModule affine
ENTRY main {
  x = f32[$N] parameter(0)
  two = f32[] constant(2)
  one = f32[] constant(1)
  b2 = f32[$N] broadcast(two), dimensions={}
  b1 = f32[$N] broadcast(one), dimensions={}
  m = f32[$N] multiply(x, b2)
  ROOT a = f32[$N] add(m, b1)
}
)";

std::string Affine(int64_t n) {
  std::string s = kAffine;
  for (size_t p; (p = s.find("$N")) != std::string::npos;) {
    s.replace(p, 2, absl::StrCat(n));
  }
  return s;
}

// 2x + 1 over `n` elements of x[i] = (i % 1000) / 4 (exact in f32).
void CheckAffine(host::Client& client, int64_t n) {
  auto exe = client.Compile(Affine(n), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {n}));
  float* xs = reinterpret_cast<float*>(x.mutable_data().data());
  for (int64_t i = 0; i < n; ++i) xs[i] = static_cast<float>(i % 1000) / 4;
  auto out = VulkanPluginTest::Run(client, **exe, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  const float* ys = reinterpret_cast<const float*>((*out)[0].data().data());
  int64_t wrong = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (ys[i] != 2 * xs[i] + 1) {
      if (first < 0) first = i;
      ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << "first wrong element " << first << ": "
                      << (first >= 0 ? ys[first] : 0);
}

TEST_F(VulkanPluginTest, MoreElementsThanOneDispatchOfWorkgroupsCovers) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  // 65535 workgroups of 256 invocations, and then some: past what one
  // dispatch dimension can launch with one invocation per element.
  const int64_t n = int64_t{65535} * 256 + 77;
  ASSERT_LT(Attributes(*client)["max_workgroup_count_x"].int64_value * 64, n);
  CheckAffine(*client, n);
}

// A reduction longer than an invocation may loop on lavapipe (llvmpipe
// stops an invocation's loops after 65535 iterations, silently): the sum
// must still be whole. Values by hand: x[i] = i % 5 over 100003
// elements, an exact integer sum in f32. A sum over the leading or the
// trailing dimension is split into two balanced stages on the device
// (reduction_splitter.h: 317 parts of 316, the input padded with the
// init); one over a middle dimension is not split, so its loop is too long
// for the device and the host evaluator runs it. The plugin's steps
// (dump_program) say where each ran.
TEST_F(VulkanPluginTest, ReductionsLongerThanTheDeviceLoopLimitAreWhole) {
  char dir[] = "/tmp/plexa-vk-steps-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  auto client = NewClient({{"dump_program", PLX_Value_STRING, dir}});
  ASSERT_NE(client, nullptr);
  constexpr int64_t kN = 100003;
  const auto program = [](const std::string& name, const std::string& dims,
                          const std::string& result, int64_t reduced) {
    return absl::StrCat(
        "HloModule ", name,
        "\nadd {\n  a = f32[] parameter(0)\n  b = f32[] "
        "parameter(1)\n  ROOT c = f32[] add(a, b)\n}\nENTRY main {\n  x = f32[",
        dims, "] parameter(0)\n  z = f32[] constant(0)\n  ROOT s = f32[",
        result, "] reduce(x, z), dimensions={", reduced,
        "}, to_apply=add\n}\n");
  };
  const auto steps_of = [&](const std::string& name) {
    std::ifstream in(absl::StrCat(dir, "/", name, ".vulkan.steps.tsv"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  double want = 0;
  for (int64_t i = 0; i < kN; ++i) want += static_cast<double>(i % 5);

  // Over the leading dimension: two kernels on the device.
  auto exe =
      client->Compile(program("leading", absl::StrCat(kN), "", 0), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {kN}));
  for (int64_t i = 0; i < kN; ++i) x.Set<float>({i}, static_cast<float>(i % 5));
  auto out = Run(*client, **exe, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(static_cast<double>((*out)[0].Get<float>({})), want);
  const std::string leading = steps_of("leading");
  EXPECT_THAT(leading, Not(HasSubstr("\treference\t"))) << leading;
  EXPECT_THAT(leading, HasSubstr("\tkernel\t")) << leading;

  // Over the last dimension of [2, N] (row sums): split the same way.
  auto rows = client->Compile(program("rows", absl::StrCat("2,", kN), "2", 1),
                              "hlo-text");
  ASSERT_TRUE(rows.ok()) << rows.status();
  Literal y(ShapeUtil::MakeShape(PrimitiveType::F32, {2, kN}));
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t i = 0; i < kN; ++i) {
      y.Set<float>({r, i}, static_cast<float>(i % 5));
    }
  }
  auto sums = Run(*client, **rows, {y});
  ASSERT_TRUE(sums.ok()) << sums.status();
  EXPECT_EQ(static_cast<double>((*sums)[0].Get<float>({0})), want);
  EXPECT_EQ(static_cast<double>((*sums)[0].Get<float>({1})), want);
  EXPECT_THAT(steps_of("rows"), Not(HasSubstr("\treference\t")))
      << steps_of("rows");

  // Over the middle dimension of [2, N, 2]: not split, too long for one
  // invocation on lavapipe, so the host evaluator runs it, whole.
  auto middle = client->Compile(
      program("middle", absl::StrCat("2,", kN, ",2"), "2,2", 1), "hlo-text");
  ASSERT_TRUE(middle.ok()) << middle.status();
  Literal z(ShapeUtil::MakeShape(PrimitiveType::F32, {2, kN, 2}));
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t i = 0; i < kN; ++i) {
      for (int64_t c = 0; c < 2; ++c) {
        z.Set<float>({r, i, c}, static_cast<float>(i % 5));
      }
    }
  }
  auto middle_sums = Run(*client, **middle, {z});
  ASSERT_TRUE(middle_sums.ok()) << middle_sums.status();
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t c = 0; c < 2; ++c) {
      EXPECT_EQ(static_cast<double>((*middle_sums)[0].Get<float>({r, c})),
                want);
    }
  }
  EXPECT_THAT(steps_of("middle"), HasSubstr("\treference\t"))
      << steps_of("middle");
  for (const char* name : {"leading", "rows", "middle"}) {
    for (const char* suffix : {".vulkan.steps.tsv", ".vulkan.optimized.hlo"}) {
      std::remove(absl::StrCat(dir, "/", name, suffix).c_str());
    }
  }
  rmdir(dir);
}

// The same for a matrix product whose contracting size is past the limit:
// the tiled GEMM's k loop runs K / 8 blocks, 75,000 here (without the check
// lavapipe returns 1048563 for 1200003). x[i, k] = k % 5, y = 1.
TEST_F(VulkanPluginTest, ProductsLongerThanTheDeviceLoopLimitAreWhole) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  constexpr int64_t kM = 8, kK = 600003;
  const std::string program = absl::StrCat(
      "HloModule longdot\nENTRY main {\n  x = f32[", kM, ",", kK,
      "] parameter(0)\n  y = f32[", kK, ",", kM,
      "] parameter(1)\n  ROOT d = f32[", kM, ",", kM,
      "] dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  auto exe = client->Compile(program, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {kM, kK}));
  Literal y(ShapeUtil::MakeShape(PrimitiveType::F32, {kK, kM}));
  double want = 0;
  for (int64_t k = 0; k < kK; ++k) {
    for (int64_t i = 0; i < kM; ++i) {
      x.Set<float>({i, k}, static_cast<float>(k % 5));
      y.Set<float>({k, i}, 1.0f);
    }
    want += static_cast<double>(k % 5);
  }
  auto out = Run(*client, **exe, {x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t j = 0; j < kM; ++j) {
      EXPECT_EQ(static_cast<double>((*out)[0].Get<float>({i, j})), want)
          << i << "," << j;
    }
  }
}

// The persistent cache (cache_dir, shader_cache.h): a new client reuses
// the SPIR-V an earlier one wrote. Proved by poisoning it: the add's cached
// kernel is replaced by the subtract's, and a new client compiling the add
// then subtracts. A file that is not SPIR-V is a miss, compiled and written
// again.
TEST_F(VulkanPluginTest, TheCacheDirectoryKeepsKernelsForNewClients) {
  char dir[] = "/tmp/plexa-vk-cache-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string cache = std::string(dir) + "/cache";  // made by the client
  const auto files = [&] {
    std::set<std::string> out;
    if (DIR* d = opendir(cache.c_str())) {
      while (const dirent* e = readdir(d)) {
        if (e->d_name[0] != '.') out.insert(e->d_name);
      }
      closedir(d);
    }
    return out;
  };
  const auto binary = [](const std::string& op) {
    return absl::StrCat("HloModule ", op,
                        "\nENTRY main {\n  x = f32[4] parameter(0)\n  y = "
                        "f32[4] parameter(1)\n  ROOT r = f32[4] ",
                        op, "(x, y)\n}\n");
  };
  Literal x = Literal::CreateR1<float>({1, 2, 3, 4});
  Literal y = Literal::CreateR1<float>({10, 20, 30, 40});
  const auto run = [&](host::Client& client, const std::string& op) {
    auto exe = client.Compile(binary(op), "hlo-text");
    EXPECT_TRUE(exe.ok()) << exe.status();
    auto out = Run(client, **exe, {x, y});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? std::move((*out)[0]) : Literal();
  };
  const auto spirv_files = [&](const std::set<std::string>& all) {
    std::set<std::string> out;
    for (const std::string& f : all) {
      if (absl::StartsWith(f, "spirv-")) out.insert(f);
    }
    return out;
  };
  std::string add_file, sub_file;
  {
    auto client = NewClient({{"cache_dir", PLX_Value_STRING, cache}});
    ASSERT_NE(client, nullptr);
    EXPECT_EQ(run(*client, "add"), Literal::CreateR1<float>({11, 22, 33, 44}));
    const std::set<std::string> after_add = spirv_files(files());
    ASSERT_EQ(after_add.size(), 1u);
    add_file = *after_add.begin();
    EXPECT_EQ(run(*client, "subtract"),
              Literal::CreateR1<float>({-9, -18, -27, -36}));
    std::set<std::string> after_sub = spirv_files(files());
    ASSERT_EQ(after_sub.size(), 2u);
    after_sub.erase(add_file);
    sub_file = *after_sub.begin();
  }
  bool has_pipelines = false;
  for (const std::string& f : files()) {
    has_pipelines |= absl::StartsWith(f, "pipelines-");
  }
  EXPECT_TRUE(has_pipelines);
  const auto read = [&](const std::string& name) {
    std::ifstream in(cache + "/" + name, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream out(cache + "/" + name, std::ios::binary);
    out << bytes;
  };
  const std::string add_spirv = read(add_file);
  write(add_file, read(sub_file));
  {
    auto client = NewClient({{"cache_dir", PLX_Value_STRING, cache}});
    ASSERT_NE(client, nullptr);
    EXPECT_EQ(run(*client, "add"),
              Literal::CreateR1<float>({-9, -18, -27, -36}));
  }
  write(add_file, "not SPIR-V at all");
  {
    auto client = NewClient({{"cache_dir", PLX_Value_STRING, cache}});
    ASSERT_NE(client, nullptr);
    EXPECT_EQ(run(*client, "add"), Literal::CreateR1<float>({11, 22, 33, 44}));
  }
  EXPECT_EQ(read(add_file), add_spirv);  // written again
  // Not a directory: an error naming it when the client is made.
  const std::string not_a_dir = cache + "/" + add_file + "/sub";
  auto bad =
      plugin_->CreateClient({{"cache_dir", PLX_Value_STRING, not_a_dir}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(not_a_dir));
  for (const std::string& f : files()) std::remove((cache + "/" + f).c_str());
  rmdir(cache.c_str());
  rmdir(dir);
}

TEST_F(VulkanPluginTest, ArraysLargerThanMaxStorageBufferRange) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  const int64_t range =
      Attributes(*client)["max_storage_buffer_range"].int64_value;
  // Buffers are addressed by device address, so the descriptor range limit
  // does not apply: an array 8 MiB past it (capped at 160 MiB so the test
  // stays modest on devices with a large range).
  const int64_t bytes =
      std::min<int64_t>(range, int64_t{152} << 20) + (int64_t{8} << 20);
  CheckAffine(*client, bytes / 4);
}

TEST_F(VulkanPluginTest, ConcurrentExecutionsFromEightThreads) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(Affine(4096), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr char kReduce[] = R"(HloModule rowsum
add {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY main {
  x = s32[64,100] parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[64] reduce(x, z), dimensions={1}, to_apply=add
}
)";
  auto rowsum = client->Compile(kReduce, "hlo-text");
  ASSERT_TRUE(rowsum.ok()) << rowsum.status();
  std::vector<std::string> errors(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int iter = 0; iter < 10 && errors[t].empty(); ++iter) {
        if (t % 2 == 0) {
          std::vector<float> xs(4096);
          for (int i = 0; i < 4096; ++i)
            xs[i] = static_cast<float>(t * i + iter);
          auto out = Run(*client, **exe, {Literal::CreateR1<float>(xs)});
          if (!out.ok()) {
            errors[t] = out.status().ToString();
            break;
          }
          const float* ys =
              reinterpret_cast<const float*>((*out)[0].data().data());
          for (int i = 0; i < 4096; ++i) {
            if (ys[i] != 2 * xs[i] + 1) {
              errors[t] = absl::StrCat("affine element ", i, ": ", ys[i]);
              break;
            }
          }
        } else {
          Literal x(ShapeUtil::MakeShape(PrimitiveType::S32, {64, 100}));
          int32_t* xs = reinterpret_cast<int32_t*>(x.mutable_data().data());
          for (int i = 0; i < 6400; ++i) xs[i] = i * t - iter;
          auto out = Run(*client, **rowsum, {x});
          if (!out.ok()) {
            errors[t] = out.status().ToString();
            break;
          }
          const int32_t* ys =
              reinterpret_cast<const int32_t*>((*out)[0].data().data());
          for (int r = 0; r < 64; ++r) {
            int32_t want = 0;
            for (int c = 0; c < 100; ++c) want += xs[r * 100 + c];
            if (ys[r] != want) {
              errors[t] = absl::StrCat("row ", r, ": ", ys[r], " want ", want);
              break;
            }
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

TEST_F(VulkanPluginTest, DonatedArgumentsChainAndAreInvalidAfterwards) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(Affine(1000), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  std::vector<float> want(1000);
  for (int i = 0; i < 1000; ++i) want[i] = static_cast<float>(i % 7);
  auto first = client->BufferFromLiteral(Literal::CreateR1<float>(want));
  ASSERT_TRUE(first.ok()) << first.status();
  std::unique_ptr<host::Buffer> state = std::move(*first);
  host::Buffer* donated_once = nullptr;
  // x <- 2x + 1, five times, each run donating its input.
  for (int step = 0; step < 5; ++step) {
    auto out = (*exe)->Execute({{state.get()}}, {0});
    ASSERT_TRUE(out.ok()) << out.status();
    auto deleted = state->IsDeleted();
    ASSERT_TRUE(deleted.ok()) << deleted.status();
    EXPECT_TRUE(*deleted) << "step " << step;
    if (step == 0) {
      // A donated buffer cannot be read any more.
      donated_once = state.get();
      EXPECT_FALSE(donated_once->ToLiteral().ok());
    }
    state = std::move((*out)[0][0]);
    for (float& w : want) w = 2 * w + 1;
  }
  auto result = state->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Literal::CreateR1<float>(want));
}

TEST_F(VulkanPluginTest, TheReportCountsKernelsAndHostInstructions) {
  // reduce-precision forced onto the host evaluator (option host_opcodes):
  // it runs there in place on the device memory, between the two kernels.
  auto client =
      NewClient({{"report", PLX_Value_INT64, "", 1},
                 {"host_opcodes", PLX_Value_STRING, "reduce-precision", 0}});
  ASSERT_NE(client, nullptr);
  constexpr char kNegExpScale[] = R"(HloModule neg_sin_scale
ENTRY main {
  x = f64[5] parameter(0)
  n = f64[5] negate(x)
  e = f64[5] reduce-precision(n), exponent_bits=8, mantissa_bits=23
  ROOT s = f64[5] add(e, e)
}
)";
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(kNegExpScale, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("2 kernels on the device"));
  EXPECT_THAT(err, HasSubstr("1 instructions on the host evaluator"));
  EXPECT_THAT(err, HasSubstr("reduce-precision"));
  const double xs[] = {3, -1, 0, 2, 5};
  auto out = Run(*client, **exe, {Literal::CreateR1<double>(xs)});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ((*out)[0].Get<double>({i}),
                     2 * static_cast<double>(static_cast<float>(-xs[i])))
        << i;
  }
}

// The device sort (glsl_sort.cc): two operands sorted by the first along
// the rows, with many equal keys, so only a stable order gives the
// expected second operand; checked against std::stable_sort.
TEST_F(VulkanPluginTest, SortIsStableAndCarriesEveryOperand) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  constexpr int64_t kRows = 7, kCols = 300;
  const std::string program =
      absl::StrCat(R"(HloModule sort2
lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY main {
  k = s32[)",
                   kRows, ",", kCols, R"(] parameter(0)
  v = f32[)",
                   kRows, ",", kCols, R"(]{0,1} parameter(1)
  ROOT s = (s32[)",
                   kRows, ",", kCols, "], f32[", kRows, ",", kCols,
                   R"(]) sort(k, v), dimensions={1}, is_stable=true, to_apply=lt
}
)");
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(program, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("1 kernels on the device, 0 instructions"));
  Literal keys(ShapeUtil::MakeShape(PrimitiveType::S32, {kRows, kCols}));
  Literal vals(ShapeUtil::MakeShape(PrimitiveType::F32, {kRows, kCols}));
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) {
      keys.Set<int32_t>({r, c}, static_cast<int32_t>((c * 7 + r) % 11) - 5);
      vals.Set<float>({r, c}, static_cast<float>(r * 1000 + c));
    }
  }
  auto out = Run(*client, **exe, {keys, vals});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  for (int64_t r = 0; r < kRows; ++r) {
    std::vector<std::pair<int32_t, float>> row;
    for (int64_t c = 0; c < kCols; ++c) {
      row.push_back({keys.Get<int32_t>({r, c}), vals.Get<float>({r, c})});
    }
    std::stable_sort(row.begin(), row.end(), [](const auto& a, const auto& b) {
      return a.first < b.first;
    });
    for (int64_t c = 0; c < kCols; ++c) {
      ASSERT_EQ((*out)[0].Get<int32_t>({r, c}), row[c].first) << r << "," << c;
      ASSERT_EQ((*out)[1].Get<float>({r, c}), row[c].second) << r << "," << c;
    }
  }
}

TEST_F(VulkanPluginTest, AnInstructionNeedingAMissingFeatureNamesBoth) {
  // As on a device without shaderFloat64 / shaderInt64.
  auto client =
      NewClient({{"disable_features", PLX_Value_STRING, "float64,int64", 0}});
  ASSERT_NE(client, nullptr);
  auto f64 = client->Compile(R"(HloModule d
ENTRY main {
  x = f64[4] parameter(0)
  ROOT twice = f64[4] add(x, x)
})",
                             "hlo-text");
  ASSERT_FALSE(f64.ok());
  EXPECT_THAT(f64.status().message(), HasSubstr("twice"));
  EXPECT_THAT(f64.status().message(), HasSubstr("shaderFloat64"));
  auto s64 = client->Compile(R"(HloModule d
ENTRY main {
  x = s64[4] parameter(0)
  ROOT neg = s64[4] negate(x)
})",
                             "hlo-text");
  ASSERT_FALSE(s64.ok());
  EXPECT_THAT(s64.status().message(), HasSubstr("neg"));
  EXPECT_THAT(s64.status().message(), HasSubstr("shaderInt64"));
  // f32 still compiles and runs.
  auto f32 = client->Compile(Affine(3), "hlo-text");
  ASSERT_TRUE(f32.ok()) << f32.status();
  auto bad = plugin_->CreateClient(
      {{"disable_features", PLX_Value_STRING, "float64,quantum", 0}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("quantum"));
}

TEST_F(VulkanPluginTest, CustomCallsRunOnTheHostBetweenKernels) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  // scale_f32_4 (examples/custom_call): y = 2x, on the host, reading the
  // negate kernel's result and feeding the add kernel.
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
  auto exe = client->Compile(kProgram, "hlo-text", options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = Run(*client, **exe, {Literal::CreateR1<float>({1, -2, 3.5, 0})});
  ASSERT_TRUE(out.ok()) << out.status();
  // -2x + x = -x.
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({-1, 2, -3.5, 0}));
  auto missing = client->Compile(
      R"(HloModule cc
ENTRY main {
  x = f32[4] parameter(0)
  ROOT s = f32[4] custom-call(x), custom_call_target="no_such_target_here"
})",
      "hlo-text");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("no_such_target_here"));
}

// Device custom calls (kernel_dir, device_custom_call.h): a target with a
// kernel in the directory runs on the device between the generated
// kernels, from GLSL source or from SPIR-V; without the option the same
// program has no such target. Values by hand: 2 * (-x) + y, then + x, is
// y - x.
constexpr char kAxpyKernel[] = R"(#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer F32 {
  float v[];
};
layout(push_constant) uniform Args { F32 x; F32 y; F32 out0; uint64_t n; } args;
void main() {
  uint n = uint(args.n);
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 32) {
    args.out0.v[i] = 2.0 * args.x.v[i] + args.y.v[i];
  }
}
)";

constexpr char kAxpyProgram[] = R"(HloModule device_cc
ENTRY main {
  x = f32[1000] parameter(0)
  y = f32[1000] parameter(1)
  n = f32[1000] negate(x)
  c = f32[1000] custom-call(n, y), custom_call_target="TARGET"
  ROOT r = f32[1000] add(c, x)
}
)";

TEST_F(VulkanPluginTest, CustomCallsWithAKernelInKernelDirRunOnTheDevice) {
  char dir[] = "/tmp/plexa-vk-kernels-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream out(std::string(dir) + "/" + name, std::ios::binary);
    out << bytes;
  };
  write("axpy_glsl.comp", kAxpyKernel);
  absl::StatusOr<std::vector<uint32_t>> spirv =
      CompileGlslToSpirv(kAxpyKernel, "axpy");
  ASSERT_TRUE(spirv.ok()) << spirv.status();
  write("axpy_spirv.spv",
        std::string(reinterpret_cast<const char*>(spirv->data()),
                    spirv->size() * 4));
  EXPECT_EQ(SpirvLocalSizeX(*spirv), 32u);
  std::vector<float> xs(1000), ys(1000), want(1000);
  for (int i = 0; i < 1000; ++i) {
    xs[i] = static_cast<float>(i % 17) - 8;
    ys[i] = static_cast<float>(i % 5) * 3;
    want[i] = ys[i] - xs[i];
  }
  const Literal x = Literal::CreateR1<float>(xs);
  const Literal y = Literal::CreateR1<float>(ys);
  const auto program = [](absl::string_view target) {
    std::string p = kAxpyProgram;
    p.replace(p.find("TARGET"), 6, std::string(target));
    return p;
  };
  auto client = NewClient({{"kernel_dir", PLX_Value_STRING, dir}});
  ASSERT_NE(client, nullptr);
  for (const char* target : {"axpy_glsl", "axpy_spirv"}) {
    SCOPED_TRACE(target);
    auto exe = client->Compile(program(target), "hlo-text");
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto out = Run(*client, **exe, {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], Literal::CreateR1<float>(want));
  }
  // Without the option the target is nowhere.
  auto plain = NewClient();
  ASSERT_NE(plain, nullptr);
  auto missing = plain->Compile(program("axpy_glsl"), "hlo-text");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("axpy_glsl"));

  // A kernel that does not compile, a file that is not SPIR-V, and a tuple
  // result: errors naming the instruction, the target and the file.
  write("broken.comp", "#version 460\nvoid main() { undeclared = 1; }\n");
  write("junk.spv", "this is not a SPIR-V module");
  auto broken = client->Compile(program("broken"), "hlo-text");
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(),
              HasSubstr(std::string(dir) + "/broken.comp"));
  EXPECT_THAT(broken.status().message(), HasSubstr("undeclared"));
  auto junk = client->Compile(program("junk"), "hlo-text");
  ASSERT_FALSE(junk.ok());
  EXPECT_THAT(junk.status().message(), HasSubstr("not a SPIR-V module"));
  auto tuple = client->Compile(R"(HloModule t
ENTRY main {
  x = f32[4] parameter(0)
  ROOT c = (f32[4], f32[4]) custom-call(x), custom_call_target="axpy_glsl"
})",
                               "hlo-text");
  ASSERT_FALSE(tuple.ok());
  EXPECT_THAT(tuple.status().message(),
              HasSubstr("a device kernel's result is one dense array"));
  // The directory must exist.
  auto bad = plugin_->CreateClient(
      {{"kernel_dir", PLX_Value_STRING, std::string(dir) + "/nope"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("is not a directory"));
  for (const char* f :
       {"axpy_glsl.comp", "axpy_spirv.spv", "broken.comp", "junk.spv"}) {
    std::remove((std::string(dir) + "/" + f).c_str());
  }
  rmdir(dir);
}

// Complex arithmetic on the device (glsl_complex.cc) against the host
// evaluator (std::complex, C's Annex G): finite values of every scale,
// signed zeros, infinities and NaNs in both parts, through every complex
// operation the device has code for, all in kernels (the report names no
// host instruction). Parts must agree to 2e-5 relative (GLSL's exp, log,
// sin and cos against libm's), in kind (NaN, infinity and its sign)
// exactly.
// A c64 or c128 array of the given values.
template <typename T>
Literal ComplexLiteral(PrimitiveType type,
                       const std::vector<std::complex<T>>& values) {
  const int64_t n = static_cast<int64_t>(values.size());
  Literal out(ShapeUtil::MakeShape(type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(out.SetFromComplex({i}, std::complex<double>(values[i])).ok());
  }
  return out;
}

// HLO text on the evaluator: the reference of the device tests.
absl::StatusOr<Literal> Evaluate(const std::string& text,
                                 const std::vector<Literal>& args) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) return m.status();
  return Evaluator().Run(**m, args);
}

TEST_F(VulkanPluginTest, ComplexArithmeticOnTheDeviceMatchesTheEvaluator) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> parts = {0.0f,   -0.0f, 1.0f, -2.5f, 3e-20f, -7e18f,
                                    0.125f, 1e37f, inf,  -inf,  nan};
  std::vector<std::complex<float>> as, bs;
  for (float r : parts) {
    for (float i : parts) {
      as.push_back({r, i});
      bs.push_back({i * 0.5f + 1.0f, r - 0.75f});
    }
  }
  const int64_t n = static_cast<int64_t>(as.size());
  const std::string c = absl::StrCat("c64[", n, "]");
  const std::string f = absl::StrCat("f32[", n, "]");
  const std::string p = absl::StrCat("pred[", n, "]");
  const std::string text = absl::StrCat(
      "HloModule complex_ops\nENTRY main {\n  a = ", c,
      " parameter(0)\n  b = ", c, " parameter(1)\n  add = ", c,
      " add(a, b)\n  sub = ", c, " subtract(a, b)\n  mul = ", c,
      " multiply(a, b)\n  div = ", c, " divide(a, b)\n  neg = ", c,
      " negate(a)\n  abs = ", f, " abs(a)\n  sign = ", c,
      " sign(a)\n  sqrt = ", c, " sqrt(a)\n  rsqrt = ", c,
      " rsqrt(b)\n  exp = ", c, " exponential(a)\n  log = ", c,
      " log(a)\n  re = ", f, " real(a)\n  im = ", f, " imag(b)\n  cx = ", c,
      " complex(im, re)\n  eq = ", p,
      " compare(a, b), direction=EQ\n  ne = ", p,
      " compare(a, a), direction=NE\n  sel = ", c,
      " select(eq, a, b)\n  wide = c128[", n, "] convert(a)\n  back = ", c,
      " convert(wide)\n  from_re = ", c, " convert(re)\n  ROOT t = (", c, ", ",
      c, ", ", c, ", ", c, ", ", c, ", ", f, ", ", c, ", ", c, ", ", c, ", ", c,
      ", ", c, ", ", c, ", ", p, ", ", p, ", ", c, ", ", c, ", ", c,
      ") tuple(add, sub, mul, div, neg, abs, sign, sqrt, rsqrt, exp, log, cx, "
      "eq, ne, sel, back, from_re)\n}\n");
  const Literal a = ComplexLiteral(PrimitiveType::C64, as);
  const Literal b = ComplexLiteral(PrimitiveType::C64, bs);
  absl::StatusOr<Literal> want = Evaluate(text, {a, b});
  ASSERT_TRUE(want.ok()) << want.status();

  auto got = RunAllOnDevice(text, {a, b});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), want->tuple_element_count());
  auto same = [](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return x == y;
    return std::abs(x - y) <= 2e-5 * std::max(std::abs(x), std::abs(y)) ||
           std::abs(x - y) < 1e-37;
  };
  const char* const names[] = {"add",  "sub",  "mul",   "div",  "neg",    "abs",
                               "sign", "sqrt", "rsqrt", "exp",  "log",    "cx",
                               "eq",   "ne",   "sel",   "back", "from_re"};
  for (int64_t k = 0; k < want->tuple_element_count(); ++k) {
    const Literal& w = want->tuple_element(k);
    const Literal& g = (*got)[k];
    for (int64_t i = 0; i < n; ++i) {
      const std::complex<double> wv = w.GetAsComplex({i});
      const std::complex<double> gv = g.GetAsComplex({i});
      EXPECT_TRUE(same(wv.real(), gv.real()) && same(wv.imag(), gv.imag()))
          << names[k] << " of a = (" << as[i].real() << ", " << as[i].imag()
          << "), b = (" << bs[i].real() << ", " << bs[i].imag()
          << "): the evaluator gives (" << wv.real() << ", " << wv.imag()
          << "), the device (" << gv.real() << ", " << gv.imag() << ")";
    }
  }
}

// The complex functions on the device (c64 and c128: sin, cos, tan, sinh,
// cosh, tanh, expm1, log1p, cbrt, logistic, power, atan2) against the
// evaluator (std::complex, glibc) on every pair of parts from zeros of
// both signs, moderate and large values, infinities and NaN: non-finite
// parts must match exactly (NaN for NaN, the infinity's sign), finite
// results within 1e-4 (c64) or 1e-12 (c128) of the result's magnitude.
TEST_F(VulkanPluginTest, ComplexFunctionsOnTheDeviceMatchTheEvaluator) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (PrimitiveType type : {PrimitiveType::C64, PrimitiveType::C128}) {
    const bool wide = type == PrimitiveType::C128;
    if (wide && Attributes(*NewClient())["shader_float64"].int64_value == 0) {
      continue;  // c128 needs the device's doubles
    }
    std::vector<double> parts = {0.0,   -0.0,  1.0, -2.5, 0.3,  20.0,
                                 -60.0, 1e-20, 1e5, inf,  -inf, nan};
    parts.push_back(wide ? 400.0 : 50.0);    // past tanh's last finite step
    parts.push_back(wide ? -720.0 : -95.0);  // past exp's overflow
    std::vector<std::complex<double>> as, bs;
    for (double r : parts) {
      for (double i : parts) {
        as.push_back({r, i});
        bs.push_back({std::isfinite(i) ? i * 0.25 + 0.5 : i, r - 0.75});
      }
    }
    const int64_t n = static_cast<int64_t>(as.size());
    const std::string c = absl::StrCat(wide ? "c128[" : "c64[", n, "]");
    const char* const names[] = {"sine",
                                 "cosine",
                                 "tan",
                                 "sinh",
                                 "cosh",
                                 "tanh",
                                 "exponential-minus-one",
                                 "log-plus-one",
                                 "cbrt",
                                 "logistic"};
    std::string text =
        absl::StrCat("HloModule complex_fns\nENTRY main {\n  a = ", c,
                     " parameter(0)\n  b = ", c, " parameter(1)\n");
    std::vector<std::string> results;
    for (int k = 0; k < 10; ++k) {
      absl::StrAppend(&text, "  r", k, " = ", c, " ", names[k], "(a)\n");
      results.push_back(absl::StrCat("r", k));
    }
    absl::StrAppend(&text, "  r10 = ", c, " power(a, b)\n  r11 = ", c,
                    " atan2(a, b)\n");
    results.push_back("r10");
    results.push_back("r11");
    std::vector<std::string> shapes(results.size(), c);
    absl::StrAppend(&text, "  ROOT t = (", absl::StrJoin(shapes, ", "),
                    ") tuple(", absl::StrJoin(results, ", "), ")\n}\n");
    const Literal a = ComplexLiteral(type, as);
    const Literal b = ComplexLiteral(type, bs);
    absl::StatusOr<Literal> want = Evaluate(text, {a, b});
    ASSERT_TRUE(want.ok()) << want.status();
    auto got = RunAllOnDevice(text, {a, b});
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(static_cast<int64_t>(got->size()), want->tuple_element_count());
    const double tol = wide ? 1e-12 : 1e-4;
    auto same = [&](std::complex<double> w, std::complex<double> g) {
      const bool finite = std::isfinite(w.real()) && std::isfinite(w.imag()) &&
                          std::isfinite(g.real()) && std::isfinite(g.imag());
      if (!finite) {
        auto part = [](double x, double y) {
          if (std::isnan(x) || std::isnan(y)) {
            return std::isnan(x) && std::isnan(y);
          }
          if (std::isinf(x) || std::isinf(y)) return x == y;
          return true;  // a finite part beside a non-finite one
        };
        return part(w.real(), g.real()) && part(w.imag(), g.imag());
      }
      return std::abs(w - g) <= tol * std::abs(w) + (wide ? 1e-300 : 1e-37);
    };
    for (int64_t k = 0; k < want->tuple_element_count(); ++k) {
      int64_t wrong = 0;
      for (int64_t i = 0; i < n; ++i) {
        const std::complex<double> wv =
            want->tuple_element(k).GetAsComplex({i});
        const std::complex<double> gv = (*got)[k].GetAsComplex({i});
        if (!same(wv, gv) && wrong++ < 6) {
          ADD_FAILURE() << primitive_util::Name(type) << " "
                        << (k < 10    ? names[k]
                            : k == 10 ? "power"
                                      : "atan2")
                        << " of a = " << as[i] << ", b = " << bs[i]
                        << ": the evaluator gives " << wv << ", the device "
                        << gv;
        }
      }
      EXPECT_EQ(wrong, 0) << primitive_util::Name(type) << " result " << k;
    }
  }
}

// Executions on the client's execution thread: ten chained asynchronous
// runs (each reads the previous one's pending output) and a synchronous
// one behind them give x + 11; a run that fails on the device thread
// (an infeed with no feeds) carries its error in its completion event and
// its output's ready event, and a synchronous call of it returns the error
// and no outputs.
TEST_F(VulkanPluginTest, AsynchronousExecutionsKeepTheirOrderAndErrors) {
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto inc = client->Compile(R"(HloModule inc
ENTRY main {
  x = f32[3] parameter(0)
  one = f32[] constant(1)
  b = f32[3] broadcast(one), dimensions={}
  ROOT y = f32[3] add(x, b)
}
)",
                             "hlo-text");
  ASSERT_TRUE(inc.ok()) << inc.status();
  auto x = client->BufferFromLiteral(Literal::CreateR1<float>({1, -2, 0.5}));
  ASSERT_TRUE(x.ok()) << x.status();
  std::vector<std::unique_ptr<host::Buffer>> chain;
  std::vector<std::unique_ptr<host::Event>> done;
  host::Buffer* last = x->get();
  for (int i = 0; i < 10; ++i) {
    auto run = (*inc)->ExecuteAsync({{last}});
    ASSERT_TRUE(run.ok()) << run.status();
    last = run->outputs[0][0].get();
    chain.push_back(std::move(run->outputs[0][0]));
    done.push_back(std::move(run->completion[0]));
  }
  auto sync = (*inc)->Execute({{last}});
  ASSERT_TRUE(sync.ok()) << sync.status();
  for (auto& e : done) EXPECT_TRUE(e->IsReady());
  auto y = (*sync)[0][0]->ToLiteral();
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(*y, Literal::CreateR1<float>({12, 9, 11.5}));

  auto feed = client->Compile(R"(HloModule feed
ENTRY main {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  in = (f32[2], token[]) infeed(tok)
  v = f32[2] get-tuple-element(in), index=0
  ROOT a = f32[2] add(v, x)
}
)",
                              "hlo-text");
  ASSERT_TRUE(feed.ok()) << feed.status();
  auto two = client->BufferFromLiteral(Literal::CreateR1<float>({1, 2}));
  ASSERT_TRUE(two.ok()) << two.status();
  auto failing = (*feed)->ExecuteAsync({{two->get()}});
  ASSERT_TRUE(failing.ok()) << failing.status();
  absl::Status completion = failing->completion[0]->Await();
  EXPECT_FALSE(completion.ok());
  EXPECT_THAT(completion.message(), HasSubstr("infeed"));
  auto ready = failing->outputs[0][0]->ReadyEvent();
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_EQ((*ready)->Await(), completion);
  auto lit = failing->outputs[0][0]->ToLiteral();
  EXPECT_FALSE(lit.ok());
  auto sync_fail = (*feed)->Execute({{two->get()}});
  ASSERT_FALSE(sync_fail.ok());
  EXPECT_THAT(sync_fail.status().message(), HasSubstr("infeed"));
}

// Within 4 ulps of a reference (the ulp of the double it rounds to); NaN
// and infinities exactly.
bool WithinFourUlps(double got, double want) {
  if (std::isnan(want) || std::isnan(got)) {
    return std::isnan(want) && std::isnan(got);
  }
  if (std::isinf(want) || std::isinf(got)) return got == want;
  if (want == 0) {
    return std::abs(got) <= 4 * std::numeric_limits<double>::denorm_min();
  }
  const double ulp =
      std::nextafter(std::abs(want), std::numeric_limits<double>::infinity()) -
      std::abs(want);
  return std::abs(got - want) <= 4 * ulp;
}

// f64 exp, log, expm1, log1p, tanh and logistic run on the device (the
// prelude's double-arithmetic versions): within 4 ulps of the long-double C
// library (x86's 64-bit significand, rounded to double) over special
// values, the edges of each function's range and a sweep of magnitudes
// from 1e-300 to 800 of both signs.
TEST_F(VulkanPluginTest, F64TranscendentalsRunOnTheDeviceWithinFourUlps) {
  if (Attributes(*NewClient())["shader_float64"].int64_value == 0) {
    GTEST_SKIP() << "the device lacks shaderFloat64";
  }
  std::vector<double> xs = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::denorm_min(),
                            4.9e-320,
                            2.2250738585072014e-308,
                            std::numeric_limits<double>::max(),
                            -std::numeric_limits<double>::max(),
                            709.78,
                            709.79,
                            -745.1,
                            -745.2,
                            -708.5,
                            -40,
                            40,
                            -36.7,
                            0.34657,
                            0.34658,
                            -0.34657,
                            -0.34658,
                            21.99,
                            22.01,
                            -22.01,
                            0.7071067811865476,
                            1.4142135623730951,
                            1.4142135623730954,
                            -0.9999999999,
                            1e-17,
                            -1e-17};
  for (int k = 0; k <= 700; ++k) {
    const double v = std::pow(10.0, -300 + k * (302.9 / 700));  // to ~800
    xs.push_back(v);
    xs.push_back(-v);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  const std::string d = absl::StrCat("f64[", n, "]");
  const std::string text = absl::StrCat(
      "HloModule f64_math\nENTRY main {\n  x = ", d, " parameter(0)\n  e = ", d,
      " exponential(x)\n  l = ", d, " log(x)\n  em = ", d,
      " exponential-minus-one(x)\n  lp = ", d, " log-plus-one(x)\n  t = ", d,
      " tanh(x)\n  s = ", d, " logistic(x)\n  ROOT r = (", d, ", ", d, ", ", d,
      ", ", d, ", ", d, ", ", d, ") tuple(e, l, em, lp, t, s)\n}\n");
  auto got = RunAllOnDevice(text, {Literal::CreateR1<double>(xs)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 6u);
  using Ref = long double (*)(long double);
  const Ref refs[] = {[](long double x) { return expl(x); },
                      [](long double x) { return logl(x); },
                      [](long double x) { return expm1l(x); },
                      [](long double x) { return log1pl(x); },
                      [](long double x) { return tanhl(x); },
                      [](long double x) { return 1.0L / (1.0L + expl(-x)); }};
  const char* const names[] = {"exp",   "log",  "expm1",
                               "log1p", "tanh", "logistic"};
  for (int k = 0; k < 6; ++k) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double want = static_cast<double>(refs[k](xs[i]));
      const double g = (*got)[k].Get<double>({i});
      if (!WithinFourUlps(g, want) && wrong++ < 5) {
        ADD_FAILURE() << names[k] << "(" << std::setprecision(17) << xs[i]
                      << "): the device gives " << g << ", want " << want;
      }
    }
    EXPECT_EQ(wrong, 0) << names[k];
  }
}

// f64 sin, cos, tan, cbrt, erf, asin, acos, atan, asinh, acosh, atanh,
// sinh, cosh, atan2 and pow run on the device (glsl_f64_math.cc and the
// prelude): within 4 ulps of the long-double C library over
// special values, the edges of each method (pi/4, the switch from Cody and
// Waite's reduction to Payne and Hanek's at 1e5, erf's last table entry),
// doubles next to multiples of pi/2 up to the largest double, and sweeps
// of magnitudes.
TEST_F(VulkanPluginTest, F64TrigPowAtan2CbrtErfRunOnTheDeviceWithinFourUlps) {
  if (Attributes(*NewClient())["shader_float64"].int64_value == 0) {
    GTEST_SKIP() << "the device lacks shaderFloat64";
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double huge = std::numeric_limits<double>::max();
  std::vector<double> xs = {
      0.0, -0.0, inf, -inf, nan, tiny, -4.9e-320, 2.2250738585072014e-308,
      1e-300, 1e-17, -1e-9, 0.5, 1.0, -1.0, 2.0, 0.7853981633974483,
      0.78539816339744839, -0.7853981633974482, 1.5707963267948966,
      3.141592653589793, 4.71238898038469, 6.283185307179586, 99999.99999999999,
      100000.0, 100000.00000000001, 1e6, 1e10, 1e15, 1e22, 1e100, 1e200, 1e300,
      huge, -huge, 5.9375, 5.9374999999999991, 5.93751, 0.0625,
      0.0625000000000001, 27.0, -8.0, 1e-310,
      // 6381956970095103 2^797, the double closest
      // to a multiple of pi/2 (Kahan, McDonald).
      std::ldexp(6381956970095103.0, 797)};
  // Doubles next to k pi/2 (the nearest double and its neighbours).
  for (int k = 1; k < 40000; k = k * 3 + 1) {
    const double v = static_cast<double>(k * 1.5707963267948966192313216916L);
    xs.push_back(v);
    xs.push_back(std::nextafter(v, inf));
    xs.push_back(-std::nextafter(v, 0.0));
  }
  for (int k = 0; k <= 600; ++k) {
    const double v = std::pow(10.0, -300 + k * (608.0 / 600));
    xs.push_back(k % 2 ? v : -v);
  }
  for (int k = 0; k <= 400; ++k) xs.push_back(-7.0 + k * 0.0351);
  for (double v : {0.9999999999999999, 0.99999, 0.5000001, 1.0000000000000002,
                   1.5, 710.0, -711.5, 1e150, 1e160}) {
    xs.push_back(v);  // the inverse and hyperbolic functions' edges
    xs.push_back(-v);
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  // atan2 and pow: every pair of some special values, then sweeps.
  const std::vector<double> specials = {0.0, -0.0, inf,    -inf,  nan,
                                        1.0, -1.0, 0.5,    -0.5,  2.0,
                                        3.0, -3.0, 1e-310, 1e300, -2.5};
  std::vector<double> as, bs;
  for (double a : specials) {
    for (double b : specials) {
      as.push_back(a);
      bs.push_back(b);
    }
  }
  for (int k = 0; k <= 300; ++k) {
    // atan2 over every octant; pow over bases 1e-3..1e3 and exponents up
    // to where the result leaves the doubles.
    const double t = k * (6.283185307179586 / 300);
    as.push_back(std::sin(t) * std::pow(10.0, (k % 13) - 6));
    bs.push_back(std::cos(t) * std::pow(10.0, (k % 7) - 3));
    as.push_back(std::pow(10.0, -3 + (k % 61) * 0.1));
    bs.push_back((k % 2 ? -1 : 1) * std::pow(10.0, (k % 41) * 0.07 - 0.5));
  }
  for (double b : {1e9, -1e9, 7.1e8, 2.5e15}) {
    as.push_back(1.0000001);  // b log a near the ends of exp's range
    bs.push_back(b);
  }
  as.push_back(-2.0);
  bs.push_back(1023.0);  // an odd power of a negative base, near the top
  as.push_back(2.0);
  bs.push_back(-1074.0);  // the smallest subnormal
  as.push_back(10.0);
  bs.push_back(-323.5);  // a subnormal result
  const int64_t m = static_cast<int64_t>(as.size());
  const std::string d = absl::StrCat("f64[", n, "]");
  const std::string p = absl::StrCat("f64[", m, "]");
  using Unary = long double (*)(long double);
  const struct {
    const char* op;
    Unary ref;
  } unary[] = {{"sine", [](long double x) { return sinl(x); }},
               {"cosine", [](long double x) { return cosl(x); }},
               {"tan", [](long double x) { return tanl(x); }},
               {"cbrt", [](long double x) { return cbrtl(x); }},
               {"erf", [](long double x) { return erfl(x); }},
               {"asin", [](long double x) { return asinl(x); }},
               {"acos", [](long double x) { return acosl(x); }},
               {"atan", [](long double x) { return atanl(x); }},
               {"asinh", [](long double x) { return asinhl(x); }},
               {"acosh", [](long double x) { return acoshl(x); }},
               {"atanh", [](long double x) { return atanhl(x); }},
               {"sinh", [](long double x) { return sinhl(x); }},
               {"cosh", [](long double x) { return coshl(x); }}};
  constexpr int kUnary = sizeof(unary) / sizeof(unary[0]);
  std::string text =
      absl::StrCat("HloModule f64_math2\nENTRY main {\n  x = ", d,
                   " parameter(0)\n  a = ", p, " parameter(1)\n  b = ", p,
                   " parameter(2)\n");
  std::vector<std::string> shapes, results;
  for (int k = 0; k < kUnary; ++k) {
    absl::StrAppend(&text, "  u", k, " = ", d, " ", unary[k].op, "(x)\n");
    shapes.push_back(d);
    results.push_back(absl::StrCat("u", k));
  }
  absl::StrAppend(&text, "  y = ", p, " atan2(a, b)\n  w = ", p,
                  " power(a, b)\n  ROOT out = (", absl::StrJoin(shapes, ", "),
                  ", ", p, ", ", p, ") tuple(", absl::StrJoin(results, ", "),
                  ", y, w)\n}\n");
  auto got = RunAllOnDevice(
      text, {Literal::CreateR1<double>(xs), Literal::CreateR1<double>(as),
             Literal::CreateR1<double>(bs)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), static_cast<size_t>(kUnary + 2));
  for (int k = 0; k < kUnary; ++k) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double want = static_cast<double>(unary[k].ref(xs[i]));
      const double g = (*got)[k].Get<double>({i});
      if (!WithinFourUlps(g, want) && wrong++ < 5) {
        ADD_FAILURE() << unary[k].op << "(" << std::setprecision(17) << xs[i]
                      << "): the device gives " << g << ", want " << want;
      }
    }
    EXPECT_EQ(wrong, 0) << unary[k].op;
  }
  for (int k = 0; k < 2; ++k) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < m; ++i) {
      const double want = static_cast<double>(k == 0 ? atan2l(as[i], bs[i])
                                                     : powl(as[i], bs[i]));
      const double g = (*got)[kUnary + k].Get<double>({i});
      if (!WithinFourUlps(g, want) && wrong++ < 5) {
        ADD_FAILURE() << (k == 0 ? "atan2(" : "pow(") << std::setprecision(17)
                      << as[i] << ", " << bs[i] << "): the device gives " << g
                      << ", want " << want;
      }
    }
    EXPECT_EQ(wrong, 0) << (k == 0 ? "atan2" : "pow");
  }
}

// remainder is C's fmod, exact: on the device for f64 and for f32 (also
// on a device without doubles), against std::fmod bit for bit (the sign
// of a zero result too) on quotients far past 2^53, subnormals, and the
// special values.
TEST_F(VulkanPluginTest, RemainderIsExactForF32AndF64) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> as = {1e300,
                            1e300,
                            -7.5,
                            7.5,
                            -0.0,
                            3.0,
                            inf,
                            1.0,
                            nan,
                            1.0,
                            6.0,
                            -6.0,
                            2.2250738585072014e-308,
                            1e-310,
                            5e-324,
                            1e38,
                            -3.4e38,
                            123456.789,
                            0.0};
  std::vector<double> bs = {3.0,    1e-300, 2.0,   -2.0,   1.0, inf,    1.0,
                            0.0,    1.0,    nan,   3.0,    3.0, 3e-320, 7e-322,
                            5e-324, 0.1,    1e-30, -0.001, 5.0};
  for (int k = 0; k < 200; ++k) {
    // Quotients from 1 to 1e40, both signs.
    as.push_back((k % 2 ? -1 : 1) * std::pow(10.0, (k % 41) * 0.9) * 1.37);
    bs.push_back((k % 3 ? 1 : -1) * std::pow(10.0, -(k % 17) * 0.6) * 0.73);
  }
  const int64_t n = static_cast<int64_t>(as.size());
  auto same = [](double got, double want) {
    if (std::isnan(want)) return std::isnan(got);
    return got == want && std::signbit(got) == std::signbit(want);
  };
  if (Attributes(*NewClient())["shader_float64"].int64_value != 0) {
    const std::string d = absl::StrCat("f64[", n, "]");
    auto got = RunAllOnDevice(
        absl::StrCat("HloModule rem64\nENTRY main {\n  a = ", d,
                     " parameter(0)\n  b = ", d,
                     " parameter(1)\n  ROOT r = ", d, " remainder(a, b)\n}\n"),
        {Literal::CreateR1<double>(as), Literal::CreateR1<double>(bs)});
    ASSERT_TRUE(got.ok()) << got.status();
    for (int64_t i = 0; i < n; ++i) {
      const double want = std::fmod(as[i], bs[i]);
      EXPECT_TRUE(same((*got)[0].Get<double>({i}), want))
          << "fmod(" << std::setprecision(17) << as[i] << ", " << bs[i]
          << "): the device gives " << (*got)[0].Get<double>({i}) << ", want "
          << want;
    }
  }
  std::vector<float> af, bf;
  for (int64_t i = 0; i < n; ++i) {
    af.push_back(static_cast<float>(as[i]));
    bf.push_back(static_cast<float>(bs[i]));
  }
  af.push_back(1.5e-45f);  // float's own subnormals
  bf.push_back(1.4e-45f);
  af.push_back(3e38f);
  bf.push_back(1.1e-38f);
  const int64_t nf = static_cast<int64_t>(af.size());
  const std::string f = absl::StrCat("f32[", nf, "]");
  auto got = RunAllOnDevice(
      absl::StrCat("HloModule rem32\nENTRY main {\n  a = ", f,
                   " parameter(0)\n  b = ", f, " parameter(1)\n  ROOT r = ", f,
                   " remainder(a, b)\n}\n"),
      {Literal::CreateR1<float>(af), Literal::CreateR1<float>(bf)},
      {{"disable_features", PLX_Value_STRING, "float64", 0}});
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t i = 0; i < nf; ++i) {
    const float want = std::fmod(af[i], bf[i]);
    EXPECT_TRUE(same((*got)[0].Get<float>({i}), want))
        << "fmodf(" << std::setprecision(9) << af[i] << ", " << bf[i]
        << "): the device gives " << (*got)[0].Get<float>({i}) << ", want "
        << want;
  }
}

// The 8- and 4-bit float types on the device (glsl_small_float.cc), every
// one of them, against the evaluator (core/literal/float8.cc, itself
// checked against ml_dtypes' rules and the conformance suite's independent
// encoder): each of the 256 encodings decoded to f32 (NaN signs included,
// through a bitcast to u32), and 1,000 f32 values around each type's range
// (ties, the largest finite value and past it, subnormals, zeros of both
// signs, infinities, NaNs of both signs) encoded, compared as bits; s4 and
// u2 wrap and saturate as the evaluator does. All on the device.
TEST_F(VulkanPluginTest, SmallFloatsAndSubByteIntegersMatchTheEvaluator) {
  const PrimitiveType types[] = {
      PrimitiveType::F8E5M2,        PrimitiveType::F8E4M3FN,
      PrimitiveType::F8E4M3B11FNUZ, PrimitiveType::F8E5M2FNUZ,
      PrimitiveType::F8E4M3FNUZ,    PrimitiveType::F8E4M3,
      PrimitiveType::F8E3M4,        PrimitiveType::F4E2M1FN,
      PrimitiveType::F8E8M0FNU};
  std::vector<uint8_t> codes(256);
  for (int i = 0; i < 256; ++i) codes[i] = static_cast<uint8_t>(i);
  std::vector<float> values = {0.0f,
                               -0.0f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               -std::numeric_limits<float>::quiet_NaN(),
                               1e-45f,
                               1e-38f,
                               3e38f,
                               -3e38f};
  for (int k = 0; k < 990; ++k) {
    // Magnitudes 2^-140 .. 2^130, dense, both signs, and halfway points.
    const float v = std::ldexp(1.0f + (k % 37) / 32.0f, (k % 271) - 140);
    values.push_back(k % 2 ? -v : v);
  }
  for (PrimitiveType t : types) {
    const std::string name(primitive_util::Name(t));
    // f4e2m1fn bitcasts to u4: its 16 encodings, through u8 -> u4.
    const bool f4 = t == PrimitiveType::F4E2M1FN;
    const std::vector<uint8_t> encodings(codes.begin(),
                                         codes.begin() + (f4 ? 16 : 256));
    const std::string bits = f4 ? "u4" : "u8";
    const std::string ne = absl::StrCat("[", encodings.size(), "]");
    const std::string nv = absl::StrCat("[", values.size(), "]");
    const std::string text = absl::StrCat(
        "HloModule small\nENTRY main {\n  c8 = u8", ne,
        " parameter(0)\n  v = f32", nv, " parameter(1)\n  c = ", bits, ne,
        " convert(c8)\n  f = ", name, ne, " bitcast-convert(c)\n  d = f32", ne,
        " convert(f)\n  db = u32", ne, " bitcast-convert(d)\n  e = ", name, nv,
        " convert(v)\n  eb = ", bits, nv, " bitcast-convert(e)\n  eb8 = u8", nv,
        " convert(eb)\n  ROOT t = (u32", ne, ", u8", nv,
        ") tuple(db, eb8)\n}\n");
    const std::vector<Literal> args = {Literal::CreateR1<uint8_t>(encodings),
                                       Literal::CreateR1<float>(values)};
    absl::StatusOr<Literal> want = Evaluate(text, args);
    ASSERT_TRUE(want.ok()) << name << ": " << want.status();
    auto got = RunAllOnDevice(text, args);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status();
    int64_t wrong = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(encodings.size()); ++i) {
      const uint32_t w = want->tuple_element(0).Get<uint32_t>({i});
      const uint32_t g = (*got)[0].Get<uint32_t>({i});
      // A NaN's sign: the evaluator decodes every NaN encoding to +NaN,
      // the device keeps the encoding's sign (see glsl_small_float.cc).
      const bool both_nan =
          (w & 0x7fffffffu) > 0x7f800000u && (g & 0x7fffffffu) > 0x7f800000u;
      if (w != g && !both_nan && wrong++ < 5) {
        ADD_FAILURE() << name << " encoding " << i << " decodes to 0x"
                      << std::hex << g << " on the device, 0x" << w
                      << " on the evaluator" << std::dec;
      }
    }
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); ++i) {
      const int w = want->tuple_element(1).Get<uint8_t>({i});
      const int g = (*got)[1].Get<uint8_t>({i});
      if (w != g && wrong++ < 10) {
        ADD_FAILURE() << name << "(" << std::setprecision(9) << values[i]
                      << ") encodes to " << g << " on the device, " << w
                      << " on the evaluator";
      }
    }
    EXPECT_EQ(wrong, 0) << name;
  }
  // s4 and u2: convert from f32 saturates, from s32 wraps, arithmetic wraps.
  std::vector<float> fs;
  std::vector<int32_t> is;
  for (int k = -40; k <= 40; ++k) {
    fs.push_back(k * 0.37f);
    is.push_back(k * 3);
  }
  const std::string n = absl::StrCat("[", fs.size(), "]");
  const std::string program = absl::StrCat(
      "HloModule subbyte\nENTRY main {\n  f = f32", n,
      " parameter(0)\n  i = s32", n, " parameter(1)\n  a = s4", n,
      " convert(f)\n  b = s4", n, " convert(i)\n  s = s4", n,
      " add(a, b)\n  m = s4", n, " multiply(b, b)\n  u = u2", n,
      " convert(i)\n  v = u2", n, " add(u, u)\n  cs = s32", n,
      " convert(s)\n  cm = s32", n, " convert(m)\n  ca = s32", n,
      " convert(a)\n  cv = u32", n, " convert(v)\n  ROOT t = (s32", n, ", s32",
      n, ", s32", n, ", u32", n, ") tuple(cs, cm, ca, cv)\n}\n");
  const std::vector<Literal> args = {Literal::CreateR1<float>(fs),
                                     Literal::CreateR1<int32_t>(is)};
  absl::StatusOr<Literal> want = Evaluate(program, args);
  ASSERT_TRUE(want.ok()) << want.status() << "\n" << program;
  auto got = RunAllOnDevice(program, args);
  ASSERT_TRUE(got.ok()) << got.status();
  for (int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ((*got)[k], want->tuple_element(k)) << "result " << k;
  }
}

// stochastic-convert on the device against the evaluator, for the four
// float operand types (random bits of their width) and four signed result
// types: values with every kind of fraction, integers, halves, ties of the
// random threshold, past the result's range, infinities and NaN.
TEST_F(VulkanPluginTest, StochasticConvertMatchesTheEvaluator) {
  std::vector<double> xs = {0.0,  -0.0,  0.5,   -0.5,   2.25, -2.75, 7.0,
                            1e30, -1e30, 127.9, -128.9, 3e9,  -3e9,  1e19};
  xs.push_back(std::numeric_limits<double>::infinity());
  xs.push_back(-std::numeric_limits<double>::infinity());
  xs.push_back(std::numeric_limits<double>::quiet_NaN());
  for (int k = 0; k < 83; ++k) xs.push_back((k - 41) * 1.37 + k * 0.001);
  const int64_t n = static_cast<int64_t>(xs.size());
  std::vector<uint64_t> rs;
  for (int64_t i = 0; i < n; ++i) {
    // Spread over each width: the high bits vary most.
    rs.push_back(0x9E3779B97F4A7C15ull * static_cast<uint64_t>(i + 1));
  }
  // The random operand has the float operand's width (the verifier's rule).
  const std::pair<const char*, const char*> operands[] = {
      {"f16", "u16"}, {"bf16", "u16"}, {"f32", "u32"}, {"f64", "u64"}};
  const char* const results[] = {"s8", "s16", "s32", "s64"};
  for (const auto& [ft, rt] : operands) {
    {
      for (const char* st : results) {
        const std::string d = absl::StrCat("[", n, "]");
        const std::string text = absl::StrCat(
            "HloModule sc\nENTRY main {\n  x64 = f64", d,
            " parameter(0)\n  r64 = u64", d, " parameter(1)\n  x = ", ft, d,
            " convert(x64)\n  r = ", rt, d, " convert(r64)\n  ROOT s = ", st, d,
            " stochastic-convert(x, r)\n}\n");
        const std::vector<Literal> args = {Literal::CreateR1<double>(xs),
                                           Literal::CreateR1<uint64_t>(rs)};
        absl::StatusOr<Literal> want = Evaluate(text, args);
        ASSERT_TRUE(want.ok()) << want.status();
        auto got = RunAllOnDevice(text, args);
        ASSERT_TRUE(got.ok()) << got.status();
        EXPECT_EQ((*got)[0], *want) << ft << " -> " << st << " with " << rt;
      }
    }
  }
}

// shuffle in each mode as an index map on the device, against the
// evaluator: rotate, permute (indices broadcast over a size-1 dimension),
// multi_rotate (per-row shifts, negative and past n); a permute index out
// of range runs on the host, whose evaluator reports it.
TEST_F(VulkanPluginTest, ShufflesRunOnTheDeviceAsTheEvaluatorDoes) {
  std::vector<float> xs(12);
  for (int i = 0; i < 12; ++i) xs[i] = static_cast<float>(i * 10 + 1);
  const Literal x = Literal::CreateR2<float>({{xs[0], xs[1], xs[2], xs[3]},
                                              {xs[4], xs[5], xs[6], xs[7]},
                                              {xs[8], xs[9], xs[10], xs[11]}});
  const std::string programs[] = {
      "s = f32[3,4] shuffle(x), dimensions={1}, mode=rotate, shifts={-5}",
      "s = f32[3,4] shuffle(x), dimensions={0,1}, mode=permute, "
      "indices=s32[3,1,2]{2,1,0} { { {2, 3} }, { {0, 0} }, { {1, 2} } }",
      "s = f32[3,4] shuffle(x), dimensions={1}, mode=multi_rotate, "
      "multi_shifts=s32[3,1]{1,0} { {1}, {-2}, {7} }"};
  for (const std::string& body : programs) {
    const std::string text = absl::StrCat(
        "HloModule shuffle\nENTRY main {\n  x = f32[3,4] parameter(0)\n  ROOT ",
        body, "\n}\n");
    absl::StatusOr<Literal> want = Evaluate(text, {x});
    ASSERT_TRUE(want.ok()) << want.status() << "\n" << text;
    auto got = RunAllOnDevice(text, {x});
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << text;
    EXPECT_EQ((*got)[0], *want) << text;
  }
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(
      "HloModule bad\nENTRY main {\n  x = f32[3,4] parameter(0)\n  ROOT s = "
      "f32[3,4] shuffle(x), dimensions={1}, mode=permute, "
      "indices=s32[1,1]{1,0} { {4} }\n}\n",
      "hlo-text");
  if (exe.ok()) {
    auto out = Run(*client, **exe, {x});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(), HasSubstr("out of range"));
  } else {
    EXPECT_THAT(exe.status().message(), HasSubstr("out of range"));
  }
}

// A literal of `shape` filled by `value(k)` for its k-th element in
// row-major order (complex types take value(2k) + i value(2k + 1)).
template <typename Fn>
Literal Filled(const std::string& shape_text, Fn value) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  Literal out(*shape);
  int64_t k = 0;
  const bool complex = primitive_util::IsComplexType(shape->element_type());
  ShapeUtil::ForEachIndex(*shape, [&](absl::Span<const int64_t> index) {
    absl::Status st =
        complex ? out.SetFromComplex(index, {value(2 * k), value(2 * k + 1)})
                : out.SetFromDouble(index, value(k));
    EXPECT_TRUE(st.ok()) << st;
    ++k;
  });
  return out;
}

// Every element of `got` within tol * (the largest magnitude in `want`) of
// `want`'s, NaN where it has NaN.
void ExpectNear(const Literal& got, const Literal& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.shape().dimensions(), want.shape().dimensions()) << what;
  double scale = 0;
  ShapeUtil::ForEachIndex(want.shape(), [&](absl::Span<const int64_t> i) {
    const double m = std::abs(want.GetAsComplex(i));
    if (std::isfinite(m)) scale = std::max(scale, m);
  });
  int64_t wrong = 0;
  ShapeUtil::ForEachIndex(want.shape(), [&](absl::Span<const int64_t> i) {
    const std::complex<double> w = want.GetAsComplex(i);
    const std::complex<double> g = got.GetAsComplex(i);
    const bool w_nan = std::isnan(w.real()) || std::isnan(w.imag());
    const bool g_nan = std::isnan(g.real()) || std::isnan(g.imag());
    const bool finite = std::isfinite(w.real()) && std::isfinite(w.imag());
    const bool ok = w_nan     ? g_nan
                    : !finite ? g == w
                              : !g_nan && std::abs(g - w) <= tol * scale;
    if (!ok && wrong++ < 5) {
      ADD_FAILURE() << what << " at {" << absl::StrJoin(i, ",")
                    << "}: the device gives " << g << ", the evaluator " << w;
    }
  });
}

// triangular-solve in every form (sides, triangles, unit diagonals,
// transposes, adjoints; real and complex, a column-major b) and cholesky
// (lower and upper, real and complex, a batch with a matrix that is not
// positive definite: NaN everywhere in it only) on the device, against the
// evaluator. n = 100 > 64 rows, so each invocation of cholesky's workgroup
// takes several rows of a column.
TEST_F(VulkanPluginTest, TriangularSolveAndCholeskyRunOnTheDevice) {
  auto noise = [](int64_t k) {
    return static_cast<double>((k * 7919 + 13) % 201 - 100) / 100.0;
  };
  constexpr int n = 70;
  // a: well-conditioned in both triangles (a diagonal of 2..3).
  // (parts: 2 for complex types, whose two parts share an element)
  auto a_value = [&](int64_t k, int parts) {
    const int64_t e = k / parts;
    const int64_t i = (e / n) % n, j = e % n;
    return i == j && k % parts == 0 ? 2.0 + std::abs(noise(k)) : noise(k) / n;
  };
  struct Form {
    std::string type;
    bool left, lower, unit;
    std::string transpose;
    std::string b_layout;
  };
  std::vector<Form> forms;
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (const char* tr : {"NO_TRANSPOSE", "TRANSPOSE"}) {
        forms.push_back({"f32", left, lower, lower != left, tr, ""});
      }
    }
  }
  forms.push_back({"f32", true, true, false, "NO_TRANSPOSE", "{1,2,0}"});
  forms.push_back({"f64", false, true, false, "TRANSPOSE", ""});
  forms.push_back({"c64", true, false, false, "ADJOINT", ""});
  forms.push_back({"c64", false, true, true, "ADJOINT", "{1,2,0}"});
  forms.push_back({"c128", true, true, false, "TRANSPOSE", ""});
  for (const Form& f : forms) {
    const std::string as = absl::StrCat(f.type, "[2,", n, ",", n, "]");
    const std::string bs =
        f.left ? absl::StrCat(f.type, "[2,", n, ",3]", f.b_layout)
               : absl::StrCat(f.type, "[2,3,", n, "]", f.b_layout);
    const std::string text = absl::StrCat(
        "HloModule tri\nENTRY main {\n  a = ", as, " parameter(0)\n  b = ", bs,
        " parameter(1)\n  ROOT x = ", bs,
        " triangular-solve(a, b), left_side=", f.left ? "true" : "false",
        ", lower=", f.lower ? "true" : "false",
        ", unit_diagonal=", f.unit ? "true" : "false",
        ", transpose_a=", f.transpose, "\n}\n");
    const std::vector<Literal> args = {
        Filled(as,
               [&](int64_t k) { return a_value(k, f.type[0] == 'c' ? 2 : 1); }),
        Filled(bs, [&](int64_t k) { return noise(k + 5); })};
    absl::StatusOr<Literal> want = Evaluate(text, args);
    ASSERT_TRUE(want.ok()) << want.status() << "\n" << text;
    auto got = RunAllOnDevice(text, args);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << text;
    const bool f32 = f.type == "f32" || f.type == "c64";
    ExpectNear((*got)[0], *want, f32 ? 1e-5 : 1e-13, text);
  }

  // Cholesky: A = M M^H + m I, Hermitian positive definite; matrix 1 of
  // each batch gets a negative diagonal element late (not positive
  // definite).
  constexpr int m = 100;
  for (const char* type : {"f32", "f64", "c64"}) {
    for (bool lower : {true, false}) {
      const bool complex = std::string(type) == "c64";
      std::vector<std::complex<double>> mat(3 * m * m);
      for (int b = 0; b < 3; ++b) {
        for (int i = 0; i < m; ++i) {
          for (int j = 0; j < m; ++j) {
            std::complex<double> v = 0;
            for (int p = 0; p < 8; ++p) {
              const std::complex<double> x(noise(b * 977 + i * 8 + p),
                                           complex ? noise(i * 3 + p) : 0);
              const std::complex<double> y(noise(b * 977 + j * 8 + p),
                                           complex ? noise(j * 3 + p) : 0);
              v += x * std::conj(y);
            }
            if (i == j) v += m * 0.01;
            mat[(b * m + i) * m + j] = v;
          }
        }
      }
      mat[(1 * m + 90) * m + 90] = -1.0;
      const std::string shape = absl::StrCat(type, "[3,", m, ",", m, "]");
      const std::string text = absl::StrCat(
          "HloModule chol\nENTRY main {\n  a = ", shape,
          " parameter(0)\n  ROOT l = ", shape,
          " cholesky(a), lower=", lower ? "true" : "false", "\n}\n");
      const std::vector<Literal> args = {Filled(shape, [&](int64_t k) {
        const std::complex<double> v = mat[complex ? k / 2 : k];
        return complex && k % 2 == 1 ? v.imag() : v.real();
      })};
      absl::StatusOr<Literal> want = Evaluate(text, args);
      ASSERT_TRUE(want.ok()) << want.status();
      auto got = RunAllOnDevice(text, args);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << text;
      EXPECT_TRUE(std::isnan((*got)[0].GetAsDouble({1, 0, 0})));
      EXPECT_TRUE(std::isnan((*got)[0].GetAsDouble({1, m - 1, 0})));
      EXPECT_FALSE(std::isnan((*got)[0].GetAsDouble({2, m - 1, 0})));
      ExpectNear((*got)[0], *want, std::string(type) == "f64" ? 1e-13 : 2e-5,
                 text);
    }
  }
}

// ragged-dot in its three modes (sizes per batch row with a negative one
// and a sum past the ragged dimension, two contracting dimensions with
// per-row sizes, integers, the batch mode) and scaled-dot (8-bit floats
// with f8e8m0fnu block scales; f32 with a bf16 scale, its blocks in a
// free dimension too, times bf16 with a scalar scale, which is none) on the
// device. Every value is a small dyadic number, so each sum is exact and any
// order agrees with the evaluator bit for bit.
TEST_F(VulkanPluginTest, RaggedAndScaledDotsRunOnTheDevice) {
  auto small = [](int64_t k) {
    return static_cast<double>((k * 37 + 11) % 15 - 7) / 4.0;
  };
  struct Case {
    std::string name, params, root;
    std::vector<Literal> args;
  };
  std::vector<Case> cases;
  cases.push_back(
      {"noncontracting",
       "p0 = f32[2,11,5] parameter(0)\n  p1 = f32[4,2,5,3] parameter(1)\n"
       "  p2 = s32[2,4] parameter(2)\n",
       "f32[2,11,3] ragged-dot(p0, p1, p2), lhs_batch_dims={0}, "
       "lhs_contracting_dims={2}, rhs_batch_dims={1}, "
       "rhs_contracting_dims={2}, "
       "lhs_ragged_dims={1}, rhs_group_dims={0}",
       {}});
  cases.back().args.push_back(Filled("f32[2,11,5]", small));
  cases.back().args.push_back(Filled("f32[4,2,5,3]", small));
  cases.back().args.push_back(
      Literal::CreateR2<int32_t>({{3, -2, 6, 4}, {0, 5, 5, 9}}));
  cases.push_back(
      {"contracting",
       "p0 = f32[3,4,13] parameter(0)\n  p1 = f32[4,13,2] parameter(1)\n"
       "  p2 = s64[4,5] parameter(2)\n",
       "f32[5,3,2] ragged-dot(p0, p1, p2), lhs_contracting_dims={1,2}, "
       "rhs_contracting_dims={0,1}, lhs_ragged_dims={2}",
       {}});
  cases.back().args.push_back(Filled("f32[3,4,13]", small));
  cases.back().args.push_back(Filled("f32[4,13,2]", small));
  cases.back().args.push_back(Literal::CreateR2<int64_t>(
      {{2, 3, -1, 4, 9}, {13, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {5, -3, 6, 2, 1}}));
  cases.push_back(
      {"integers",
       "p0 = s8[3,7,4] parameter(0)\n  p1 = s8[2,4,5] parameter(1)\n"
       "  p2 = s32[3,2] parameter(2)\n",
       "s32[3,7,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={2}, "
       "rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}",
       {}});
  cases.back().args.push_back(
      Filled("s8[3,7,4]", [](int64_t k) { return (k * 53) % 255 - 127.0; }));
  cases.back().args.push_back(
      Filled("s8[2,4,5]", [](int64_t k) { return (k * 31) % 255 - 127.0; }));
  cases.back().args.push_back(
      Literal::CreateR2<int32_t>({{3, 4}, {7, 0}, {1, 2}}));
  cases.push_back(
      {"batch",
       "p0 = f32[2,3,4] parameter(0)\n  p1 = f32[2,4,5] parameter(1)\n"
       "  p2 = s32[2] parameter(2)\n",
       "f32[2,3,5] ragged-dot(p0, p1, p2), lhs_batch_dims={0}, "
       "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
       "rhs_contracting_dims={1}, "
       "lhs_ragged_dims={0}",
       {}});
  cases.back().args.push_back(Filled("f32[2,3,4]", small));
  cases.back().args.push_back(Filled("f32[2,4,5]", small));
  cases.back().args.push_back(Literal::CreateR1<int32_t>({1, 0}));
  cases.push_back(
      {"mx",
       "q0 = f32[4,64] parameter(0)\n  q1 = f32[3,64] parameter(1)\n"
       "  q2 = f32[4,2] parameter(2)\n  q3 = f32[3,2] parameter(3)\n"
       "  p0 = f8e4m3fn[4,64] convert(q0)\n  p1 = f8e5m2[3,64] convert(q1)\n"
       "  p2 = f8e8m0fnu[4,2] convert(q2)\n  p3 = f8e8m0fnu[3,2] convert(q3)\n",
       "f32[4,3] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={1}",
       {}});
  cases.back().args.push_back(Filled("f32[4,64]", small));
  cases.back().args.push_back(Filled("f32[3,64]", small));
  cases.back().args.push_back(
      Filled("f32[4,2]", [](int64_t k) { return std::ldexp(1.0, k % 5 - 2); }));
  cases.back().args.push_back(
      Filled("f32[3,2]", [](int64_t k) { return std::ldexp(1.0, 1 - k % 3); }));
  cases.push_back(
      {"mixed",
       "p0 = f32[6,4] parameter(0)\n  p1 = bf16[4,3] parameter(1)\n"
       "  p2 = bf16[3,2] parameter(2)\n  p3 = bf16[] parameter(3)\n",
       "f32[6,3] scaled-dot(p0, p1, p2, p3), lhs_contracting_dims={1}, "
       "rhs_contracting_dims={0}",
       {}});
  cases.back().args.push_back(Filled("f32[6,4]", small));
  cases.back().args.push_back(Filled("bf16[4,3]", small));
  cases.back().args.push_back(Filled("bf16[3,2]", small));
  cases.back().args.push_back(Filled("bf16[]", [](int64_t) { return 3.0; }));
  for (const Case& c : cases) {
    const std::string text =
        absl::StrCat("HloModule ", c.name, "\nENTRY main {\n  ", c.params,
                     "  ROOT r = ", c.root, "\n}\n");
    absl::StatusOr<Literal> want = Evaluate(text, c.args);
    ASSERT_TRUE(want.ok()) << want.status() << "\n" << text;
    auto got = RunAllOnDevice(text, c.args);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << text;
    EXPECT_EQ((*got)[0], *want) << text;
  }
}

// f32 log1p and expm1 where 1 + x and exp(x) are near 1 (where a loose
// device log, or a compiler folding (1 + x) - 1 to x, would show): within
// 4 float ulps of the C library in double, rounded to float.
TEST_F(VulkanPluginTest, F32Log1pAndExpm1NearZeroWithinFourUlps) {
  std::vector<float> xs = {0.0f,   -0.0f,   1e-30f,  -1e-30f, 1e-8f,   -1e-8f,
                           1e-4f,  -1e-4f,  9.9e-4f, 1.1e-3f, 1.5e-3f, -1.5e-3f,
                           0.01f,  -0.01f,  0.1f,    -0.1f,   0.29f,   -0.29f,
                           0.293f, -0.293f, 0.41f,   0.415f,  0.5f,    -0.5f,
                           0.9f,   2.0f,    -0.9f,   10.0f,   -10.0f};
  for (int k = 0; k <= 200; ++k) {
    const float v = static_cast<float>(std::pow(10.0, -7 + k * 7.0 / 200));
    xs.push_back(v);
    xs.push_back(-std::min(v, 0.999f));
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  const std::string f = absl::StrCat("f32[", n, "]");
  const std::string text =
      absl::StrCat("HloModule f32_near0\nENTRY main {\n  x = ", f,
                   " parameter(0)\n  lp = ", f, " log-plus-one(x)\n  em = ", f,
                   " exponential-minus-one(x)\n  ROOT r = (", f, ", ", f,
                   ") tuple(lp, em)\n}\n");
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(text, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto got = Run(*client, **exe, {Literal::CreateR1<float>(xs)});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  const char* const names[] = {"log1p", "expm1"};
  for (int k = 0; k < 2; ++k) {
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      const float want =
          static_cast<float>(k == 0 ? std::log1p(static_cast<double>(xs[i]))
                                    : std::expm1(static_cast<double>(xs[i])));
      const float g = (*got)[k].Get<float>({i});
      const float ulp =
          want == 0 ? std::numeric_limits<float>::denorm_min()
                    : std::nextafter(std::abs(want),
                                     std::numeric_limits<float>::infinity()) -
                          std::abs(want);
      const bool ok =
          std::isnan(want) ? std::isnan(g) : std::abs(g - want) <= 4 * ulp;
      if (!ok && wrong++ < 5) {
        ADD_FAILURE() << names[k] << "(" << std::setprecision(9) << xs[i]
                      << "): the device gives " << g << ", want " << want;
      }
    }
    EXPECT_EQ(wrong, 0) << names[k];
  }
}

// sin, cos and tan of large arguments (the prelude's exact argument
// reduction): against the host evaluator (libm), to 2e-5 relative. GLSL's
// own sin on lavapipe gave 1 for sin(7e18) (the right value is -0.452).
TEST_F(VulkanPluginTest, SinCosTanOfLargeArgumentsMatchTheEvaluator) {
  const std::vector<float> xs = {
      0.5f,      -0.7f,   0.8f,     -2.0f, 3.14159265f, 100.0f, -1e4f,
      123456.7f, 1e7f,    -3.3e9f,  7e18f, -7e18f,      1e30f,  3.4e38f,
      -2.5e38f,  6.0e15f, 1.0e-30f, -0.0f, 4.2e22f,     9.9e35f};
  const int64_t n = static_cast<int64_t>(xs.size());
  const std::string f = absl::StrCat("f32[", n, "]");
  const std::string text = absl::StrCat(
      "HloModule trig\nENTRY main {\n  x = ", f, " parameter(0)\n  s = ", f,
      " sine(x)\n  c = ", f, " cosine(x)\n  t = ", f, " tan(x)\n  ROOT r = (",
      f, ", ", f, ", ", f, ") tuple(s, c, t)\n}\n");
  const Literal x = Literal::CreateR1<float>(xs);
  absl::StatusOr<Literal> want = Evaluate(text, {x});
  ASSERT_TRUE(want.ok()) << want.status();
  auto client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(text, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto got = Run(*client, **exe, {x});
  ASSERT_TRUE(got.ok()) << got.status();
  const char* const names[] = {"sin", "cos", "tan"};
  for (int k = 0; k < 3; ++k) {
    for (int64_t i = 0; i < n; ++i) {
      const double w = want->tuple_element(k).Get<float>({i});
      const double g = (*got)[k].Get<float>({i});
      EXPECT_LE(std::abs(w - g), 2e-5 * std::max(std::abs(w), 1e-30) + 1e-37)
          << names[k] << "(" << xs[i] << "): the evaluator gives " << w
          << ", the device " << g;
    }
  }
}

TEST_F(VulkanPluginTest, ValidationRunsUnderTheKhronosLayerOrSaysWhyNot) {
  auto client = plugin_->CreateClient({{"validation", PLX_Value_INT64, "", 1}});
  if (!client.ok()) {
    // Only acceptable reason: the layer is not installed.
    EXPECT_THAT(client.status().message(),
                HasSubstr("vulkan-validationlayers"));
    return;
  }
  // A fused kernel over 100000 elements, validated.
  CheckAffine(**client, 100000);
}

// The tiled GEMM (glsl_gemm.cc) on sizes that are not multiples of its
// 64x64 tiles and 16-deep k steps, batched, with a transposed (column-major)
// right operand; expected values from a double-precision loop.
// Both GEMM kernels: the subgroup one (lavapipe has subgroups of 8 with
// broadcast) and the shared-memory one other devices get
// (disable_features=subgroups).
class VulkanGemmTest : public VulkanPluginTest,
                       public ::testing::WithParamInterface<const char*> {};

TEST_P(VulkanGemmTest, TiledMatrixProductsMatchAPlainLoop) {
  std::vector<host::Plugin::Option> options = {
      {"report", PLX_Value_INT64, "", 1}};
  if (std::string(GetParam()) == "shared_memory") {
    options.push_back({"disable_features", PLX_Value_STRING, "subgroups", 0});
  }
  auto client = NewClient(options);
  ASSERT_NE(client, nullptr);
  constexpr int64_t kB = 3, kM = 100, kK = 37, kN = 130;
  const std::string program = absl::StrCat(
      "HloModule bmm\nENTRY main {\n  a = f32[", kB, ",", kM, ",", kK,
      "] parameter(0)\n  b = f32[", kB, ",", kK, ",", kN,
      "]{1,2,0} parameter(1)\n  ROOT d = f32[", kB, ",", kM, ",", kN,
      "] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
      "lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}\n");
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(program, "hlo-text");
  const std::string report = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(report, HasSubstr("1 kernels on the device"));
  Literal a(ShapeUtil::MakeShape(PrimitiveType::F32, {kB, kM, kK}));
  Literal b(ShapeUtil::MakeShape(PrimitiveType::F32, {kB, kK, kN}));
  for (int64_t x = 0; x < kB; ++x) {
    for (int64_t i = 0; i < kM; ++i) {
      for (int64_t k = 0; k < kK; ++k) {
        a.Set<float>(
            {x, i, k},
            static_cast<float>((x + 2 * i + 3 * k) % 17) / 8.0f - 1.0f);
      }
    }
    for (int64_t k = 0; k < kK; ++k) {
      for (int64_t j = 0; j < kN; ++j) {
        b.Set<float>({x, k, j},
                     static_cast<float>((5 * x + k + 7 * j) % 13) / 4.0f);
      }
    }
  }
  auto out = Run(*client, **exe, {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  int64_t wrong = 0;
  for (int64_t x = 0; x < kB; ++x) {
    for (int64_t i = 0; i < kM; ++i) {
      for (int64_t j = 0; j < kN; ++j) {
        double want = 0;
        for (int64_t k = 0; k < kK; ++k) {
          want += static_cast<double>(a.Get<float>({x, i, k})) *
                  b.Get<float>({x, k, j});
        }
        const float got = (*out)[0].Get<float>({x, i, j});
        if (std::abs(got - want) > 1e-4 * (1 + std::abs(want))) {
          if (wrong++ < 5) {
            ADD_FAILURE() << "[" << x << "," << i << "," << j << "] = " << got
                          << ", want " << want;
          }
        }
      }
    }
  }
  EXPECT_EQ(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(Kernels, VulkanGemmTest,
                         ::testing::Values("subgroups", "shared_memory"));

// The device scatter (glsl_loops.cc): rows of updates added into a matrix
// at row indices that repeat (combined in update order) or fall outside
// (skipped whole); expected values from a loop over the updates.
TEST_F(VulkanPluginTest, ScatterCombinesRepeatsAndSkipsOutOfBoundsWindows) {
  auto client = NewClient({{"report", PLX_Value_INT64, "", 1}});
  ASSERT_NE(client, nullptr);
  constexpr char kProgram[] = R"(HloModule scatter_rows
sub {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] subtract(b, a)
}
ENTRY main {
  x = s32[6,5] parameter(0)
  i = s32[8] parameter(1)
  u = s32[8,5] parameter(2)
  ROOT r = s32[6,5] scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sub
}
)";
  ::testing::internal::CaptureStderr();
  auto exe = client->Compile(kProgram, "hlo-text");
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_THAT(err, HasSubstr("1 kernels on the device, 0 instructions"));
  Literal x(ShapeUtil::MakeShape(PrimitiveType::S32, {6, 5}));
  Literal u(ShapeUtil::MakeShape(PrimitiveType::S32, {8, 5}));
  const std::vector<int32_t> rows = {2, 0, 2, -1, 5, 6, 2, 0};
  for (int64_t r = 0; r < 6; ++r) {
    for (int64_t c = 0; c < 5; ++c) x.Set<int32_t>({r, c}, 100 * r + c);
  }
  for (int64_t k = 0; k < 8; ++k) {
    for (int64_t c = 0; c < 5; ++c) u.Set<int32_t>({k, c}, 7 * k + c + 1);
  }
  auto out = Run(*client, **exe, {x, Literal::CreateR1<int32_t>(rows), u});
  ASSERT_TRUE(out.ok()) << out.status();
  // update - current: repeats give different results in another order.
  Literal want = x;
  for (int64_t k = 0; k < 8; ++k) {
    if (rows[k] < 0 || rows[k] >= 6) continue;
    for (int64_t c = 0; c < 5; ++c) {
      want.Set<int32_t>({rows[k], c}, u.Get<int32_t>({k, c}) -
                                          want.Get<int32_t>({rows[k], c}));
    }
  }
  EXPECT_EQ((*out)[0], want);
}

}  // namespace
}  // namespace plexa::vulkan
