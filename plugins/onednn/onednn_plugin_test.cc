// The oneDNN plugin: which chains become primitives (the rewrite, checked on
// the optimized module) and which must not, and what they compute through
// the C ABI compared with the reference evaluator on the original module
// (random inputs from a fixed seed; the evaluator is the expected value).
// The conformance suite runs on this plugin too (conformance_backend.cc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/shape/index_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/verifier/verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/cpu/conv_thunk.h"
#include "plugins/cpu/cpu_pipeline.h"
#include "plugins/cpu/runtime/conv.h"
#include "plugins/onednn/onednn_extension.h"

namespace plexa::onednn {
namespace {

// ---- The rewrite -------------------------------------------------------

struct Rewritten {
  int fusions = 0;    // oneDNN fusions
  int fused_ops = 0;  // instructions inside them besides parameters
  std::vector<std::string> configs;
};

absl::StatusOr<Rewritten> Rewrite(absl::string_view text,
                                  bool relaxed_nan = false,
                                  bool all_convolutions = false,
                                  double min_flops = 0) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) return m.status();
  MatchOptions options;
  options.relaxed_nan = relaxed_nan;
  options.all_convolutions = all_convolutions;
  options.min_flops = min_flops;  // 0 by default: the programs are small
  absl::StatusOr<std::shared_ptr<OneDnnExtension>> ext =
      OneDnnExtension::Create(options, 1);
  if (!ext.ok()) return ext.status();
  if (absl::Status s = cpu::RunCpuPipeline(m->get(), ext->get()); !s.ok()) {
    return s;
  }
  Rewritten out;
  for (const Computation* c : (*m)->computations()) {
    for (const Instruction* i : c->instructions()) {
      if (!IsOneDnnFusion(*i)) continue;
      ++out.fusions;
      out.configs.push_back(i->attrs().backend_config);
      for (const Instruction* f : i->called_computations()[0]->instructions()) {
        if (f->opcode() != HloOpcode::kParameter &&
            f->opcode() != HloOpcode::kBroadcast &&
            f->opcode() != HloOpcode::kConstant) {
          ++out.fused_ops;
        }
      }
    }
  }
  return out;
}

constexpr char kDenseRelu[] = R"(HloModule dense
ENTRY main {
  x = f32[64,32] parameter(0)
  w = f32[32,48] parameter(1)
  b = f32[48] parameter(2)
  d = f32[64,48] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[64,48] broadcast(b), dimensions={1}
  a = f32[64,48] add(d, bb)
  z = f32[] constant(0)
  zb = f32[64,48] broadcast(z), dimensions={}
  ROOT r = f32[64,48] maximum(a, zb)
}
)";

TEST(OneDnnRewrite, DotWithBiasBecomesOneMatmulWithThePostOp) {
  absl::StatusOr<Rewritten> r = Rewrite(kDenseRelu);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
  EXPECT_THAT(r->configs, ::testing::ElementsAre("{\"onednn\":\"matmul\"}"));
  // dot and add; the maximum stays outside (oneDNN's relu drops NaNs).
  EXPECT_EQ(r->fused_ops, 2);
}

TEST(OneDnnRewrite, RelaxedNanAlsoFusesTheRelu) {
  absl::StatusOr<Rewritten> r = Rewrite(kDenseRelu, /*relaxed_nan=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
  EXPECT_EQ(r->fused_ops, 3);
}

// A module with x: f32[16,8], w: f32[8,4], y: f32[16,4] and
// d = dot(x, w), then `tail` (which must use d and y).
std::string DotThen(absl::string_view tail) {
  return absl::StrCat(R"(HloModule dot_then
ENTRY main {
  x = f32[16,8] parameter(0)
  w = f32[8,4] parameter(1)
  y = f32[16,4] parameter(2)
  d = f32[16,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)",
                      tail, "}\n");
}

// How many instructions the one oneDNN fusion of DotThen(tail) holds.
void ExpectFusedOps(absl::string_view tail, int fused_ops) {
  SCOPED_TRACE(tail);
  absl::StatusOr<Rewritten> r = Rewrite(DotThen(tail));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
  EXPECT_EQ(r->fused_ops, fused_ops);
}

TEST(OneDnnRewrite, AConsumerUsedTwiceEndsTheChain) {
  // t is used by the exponential and the negate: it is the chain's last
  // value (dot, tanh); nothing after it is fused.
  ExpectFusedOps(R"(  t = f32[16,4] tanh(d)
  e = f32[16,4] exponential(t)
  n = f32[16,4] negate(t)
  ROOT r = (f32[16,4], f32[16,4], f32[16,4]) tuple(e, n, y)
)",
                 2);
}

TEST(OneDnnRewrite, ADotUsedTwiceHasNoPostOps) {
  ExpectFusedOps(R"(  t = f32[16,4] tanh(d)
  u = f32[16,4] add(t, d)
  ROOT r = f32[16,4] add(u, y)
)",
                 1);
}

TEST(OneDnnRewrite, SubtractWithTheChainOnTheRightIsNotAPostOp) {
  ExpectFusedOps("  ROOT s = f32[16,4] subtract(y, d)\n", 1);
  // With the chain on the left it is one.
  ExpectFusedOps("  ROOT s = f32[16,4] subtract(d, y)\n", 2);
}

TEST(OneDnnRewrite, IntegerAndF64DotsStayOnTheCpuPlugin) {
  for (const char* t : {"s32", "f64"}) {
    const std::string text = absl::StrReplaceAll(R"(HloModule ints
ENTRY main {
  x = $T[16,8] parameter(0)
  w = $T[8,4] parameter(1)
  ROOT d = $T[16,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                                                 {{"$T", t}});
    absl::StatusOr<Rewritten> r = Rewrite(text);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->fusions, 0) << t;
  }
}

// conv -> batch-norm-inference (expanded by the pipeline into subtract,
// multiply and add of per-channel broadcasts) -> relu.
constexpr char kConvBnRelu[] = R"(HloModule conv_bn
ENTRY main {
  x = f32[2,8,10,10] parameter(0)
  k = f32[16,8,3,3] parameter(1)
  g = f32[16] parameter(2)
  b = f32[16] parameter(3)
  m = f32[16] parameter(4)
  v = f32[16] parameter(5)
  c = f32[2,16,10,10] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  n = f32[2,16,10,10] batch-norm-inference(c, g, b, m, v), epsilon=0.001, feature_index=1
  z = f32[] constant(0)
  zb = f32[2,16,10,10] broadcast(z), dimensions={}
  ROOT r = f32[2,16,10,10] maximum(n, zb)
}
)";

TEST(OneDnnRewrite, ConvolutionBatchNormBecomesOnePrimitive) {
  absl::StatusOr<Rewritten> r = Rewrite(kConvBnRelu);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
  EXPECT_THAT(r->configs,
              ::testing::ElementsAre("{\"onednn\":\"convolution\"}"));
  EXPECT_EQ(r->fused_ops, 4);  // convolution, subtract, multiply, add
  r = Rewrite(kConvBnRelu, /*relaxed_nan=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fused_ops, 5);  // and the relu
}

TEST(OneDnnRewrite, WinogradConvolutionsStayOnTheCpuPluginUnlessAsked) {
  // 3x3, unit stride, 16 -> 16 features, 512 2x2 tiles: the CPU plugin's
  // Winograd kernel takes it where it has AVX-512.
  const std::string text = R"(HloModule winograd
ENTRY main {
  x = f32[2,16,32,32] parameter(0)
  k = f32[16,16,3,3] parameter(1)
  ROOT c = f32[2,16,32,32] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
}
)";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  std::optional<cpu::ConvDims> dims =
      cpu::MakeConvDims(*(*m)->entry_computation()->root_instruction());
  ASSERT_TRUE(dims.has_value());
  const bool winograd = cpu::ConvTakesWinograd(*dims);
  absl::StatusOr<Rewritten> r = Rewrite(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, winograd ? 0 : 1);
  r = Rewrite(text, /*relaxed_nan=*/false, /*all_convolutions=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
}

TEST(OneDnnRewrite, SmallF32DotsStayOnTheCpuPluginButBf16OnesDoNot) {
  const double kDefault = MatchOptions().min_flops;  // 2 * 128^3
  auto dot = [](const char* type, int n) {
    return absl::StrReplaceAll(R"(HloModule d
ENTRY main {
  a = $T[$N,$N] parameter(0)
  b = $T[$N,$N] parameter(1)
  ROOT d = $T[$N,$N] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)",
                               {{"$T", type}, {"$N", absl::StrCat(n)}});
  };
  // 2 * 64^3 flops < the default; 2 * 128^3 is not.
  for (const auto& [type, n, fused] :
       std::vector<std::tuple<const char*, int, int>>{
           {"f32", 64, 0}, {"f32", 128, 1}, {"bf16", 8, 1}}) {
    absl::StatusOr<Rewritten> r = Rewrite(dot(type, n), false, false, kDefault);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->fusions, fused) << type << " " << n;
  }
}

TEST(OneDnnRewrite, DilatedInputConvolutionStaysOnTheCpuPlugin) {
  const std::string text = R"(HloModule lhs_dilated
ENTRY main {
  x = f32[1,4,5,5] parameter(0)
  k = f32[4,4,3,3] parameter(1)
  ROOT c = f32[1,4,9,9] convolution(x, k), window={size=3x3 pad=1_1x1_1 lhs_dilate=2x2}, dim_labels=bf01_oi01->bf01
}
)";
  absl::StatusOr<Rewritten> r = Rewrite(text);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 0);
}

// ---- Through the ABI, against the evaluator ----------------------------

class OneDnnPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plugin = host::Plugin::Load(PLEXA_ONEDNN_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
  }

  // Clients map everything oneDNN takes, however small (min_flops=0):
  // the tests' programs are small.
  std::unique_ptr<host::Client> NewClient(
      std::vector<host::Plugin::Option> options = {}) {
    options.push_back({"min_flops", PLX_Value_INT64, "", 0});
    auto client = plugin_->CreateClient(options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? std::move(*client) : nullptr;
  }

  // The one result of running `exe` on `args`.
  static absl::StatusOr<Literal> Execute(host::Client& client,
                                         host::Executable& exe,
                                         const std::vector<Literal>& args) {
    std::vector<std::unique_ptr<host::Buffer>> owned;
    std::vector<host::Buffer*> raw;
    for (const Literal& a : args) {
      auto b = client.BufferFromLiteral(a);
      if (!b.ok()) return b.status();
      raw.push_back(b->get());
      owned.push_back(std::move(*b));
    }
    auto out = exe.Execute({raw});
    if (!out.ok()) return out.status();
    if ((*out)[0].size() != 1) {
      return absl::InternalError("expected one result");
    }
    return (*out)[0][0]->ToLiteral();
  }

  static absl::StatusOr<Literal> Evaluate(const std::string& text,
                                          const std::vector<Literal>& args) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    if (!m.ok()) return m.status();
    Evaluator evaluator;
    return evaluator.Run(**m, args);
  }

  // Runs `text` on the plugin and on the evaluator with `args`.
  void ExpectMatchesEvaluator(const std::string& text,
                              const std::vector<Literal>& args,
                              std::vector<host::Plugin::Option> options = {},
                              double tolerance = 1e-4) {
    SCOPED_TRACE(text);
    absl::StatusOr<Literal> want = Evaluate(text, args);
    ASSERT_TRUE(want.ok()) << want.status();
    std::unique_ptr<host::Client> client = NewClient(options);
    ASSERT_NE(client, nullptr);
    auto exe = client->Compile(text, "hlo-text");
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<Literal> got = Execute(*client, **exe, args);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectNear(*want, *got, tolerance);
  }

  static void ExpectNear(const Literal& want, const Literal& got,
                         double tolerance) {
    ASSERT_EQ(want.shape().dimensions(), got.shape().dimensions());
    std::vector<int64_t> index(want.shape().rank(), 0);
    int64_t bad = 0;
    if (ShapeUtil::ElementsIn(want.shape()) == 0) return;
    do {
      const double w = want.GetAsDouble(index);
      const double g = got.GetAsDouble(index);
      const bool ok = (std::isnan(w) && std::isnan(g)) ||
                      std::abs(w - g) <= tolerance * (1 + std::abs(w));
      if (!ok && ++bad <= 5) {
        ADD_FAILURE() << "at " << absl::StrJoin(index, ",") << ": want " << w
                      << ", got " << g;
      }
    } while (IndexUtil::BumpIndices(want.shape(), absl::MakeSpan(index)));
    EXPECT_EQ(bad, 0);
  }

  std::shared_ptr<host::Plugin> plugin_;
};

Literal Random(const Shape& shape, uint32_t seed) {
  Literal lit(shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<int64_t> index(shape.rank(), 0);
  if (ShapeUtil::ElementsIn(shape) == 0) return lit;
  do {
    EXPECT_TRUE(lit.SetFromDouble(index, dist(gen)).ok());
  } while (IndexUtil::BumpIndices(shape, absl::MakeSpan(index)));
  return lit;
}

Shape ParseShapeOrDie(absl::string_view s) {
  absl::StatusOr<Shape> shape = ParseShape(s);
  EXPECT_TRUE(shape.ok()) << shape.status();
  return shape.ok() ? *shape : Shape();
}

TEST_F(OneDnnPluginTest, DenseReluMatchesTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[64,32]"), 1));
  args.push_back(Random(ParseShapeOrDie("f32[32,48]"), 2));
  args.push_back(Random(ParseShapeOrDie("f32[48]"), 3));
  ExpectMatchesEvaluator(kDenseRelu, args);
  ExpectMatchesEvaluator(kDenseRelu, args,
                         {{"relaxed_nan", PLX_Value_INT64, "", 1}});
}

TEST_F(OneDnnPluginTest, ReluOfNaNIsNaNByDefault) {
  // Row 0 of x is NaN: every element of row 0 of the dot is NaN, and HLO's
  // maximum(NaN, 0) is NaN. oneDNN's relu would give 0: by default the
  // maximum is not a post-op, so the answer is the evaluator's.
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[64,32]"), 1));
  ASSERT_TRUE(args[0].SetFromDouble({0, 0}, std::nan("")).ok());
  args.push_back(Random(ParseShapeOrDie("f32[32,48]"), 2));
  args.push_back(Random(ParseShapeOrDie("f32[48]"), 3));
  ExpectMatchesEvaluator(kDenseRelu, args);
}

std::vector<Literal> ConvBnArgs(uint32_t seed) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[2,8,10,10]"), seed));
  args.push_back(Random(ParseShapeOrDie("f32[16,8,3,3]"), seed + 1));
  args.push_back(Random(ParseShapeOrDie("f32[16]"), seed + 2));
  args.push_back(Random(ParseShapeOrDie("f32[16]"), seed + 3));
  args.push_back(Random(ParseShapeOrDie("f32[16]"), seed + 4));
  Literal var = Random(ParseShapeOrDie("f32[16]"), seed + 5);
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_TRUE(var.SetFromDouble({i}, 1.5 + var.GetAsDouble({i})).ok());
  }
  args.push_back(std::move(var));
  return args;
}

TEST_F(OneDnnPluginTest, ConvolutionBatchNormReluMatchesTheEvaluator) {
  const std::vector<Literal> args = ConvBnArgs(1);
  ExpectMatchesEvaluator(kConvBnRelu, args);
  ExpectMatchesEvaluator(kConvBnRelu, args,
                         {{"relaxed_nan", PLX_Value_INT64, "", 1}});
}

TEST_F(OneDnnPluginTest, ASerializedExecutableRunsInAnotherClient) {
  const std::vector<Literal> args = ConvBnArgs(7);
  absl::StatusOr<Literal> want = Evaluate(kConvBnRelu, args);
  ASSERT_TRUE(want.ok()) << want.status();
  std::string bytes;
  {
    std::unique_ptr<host::Client> client = NewClient();
    ASSERT_NE(client, nullptr);
    auto exe = client->Compile(kConvBnRelu, "hlo-text");
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto serialized = (*exe)->Serialize();
    ASSERT_TRUE(serialized.ok()) << serialized.status();
    bytes = std::move(*serialized);
  }
  // The oneDNN fusion is in the serialized module: the primitive is built
  // again when it is read back.
  EXPECT_THAT(bytes, ::testing::HasSubstr("{\"onednn\":\"convolution\"}"));
  std::unique_ptr<host::Client> client = NewClient();
  ASSERT_NE(client, nullptr);
  auto loaded = client->DeserializeExecutable(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<Literal> got = Execute(*client, **loaded, args);
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectNear(*want, *got, 1e-4);
  // The CPU plugin does not take it: the bytes name their plugin.
  auto cpu = host::Plugin::Load(PLEXA_CPU_PLUGIN);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  auto cpu_client = (*cpu)->CreateClient();
  ASSERT_TRUE(cpu_client.ok()) << cpu_client.status();
  auto refused = (*cpu_client)->DeserializeExecutable(bytes);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(),
              ::testing::HasSubstr("not a serialized cpu-plugin executable"));
}

TEST_F(OneDnnPluginTest, Bf16DotRunsAsABf16Matmul) {
  const std::string text = R"(HloModule bf16_dot
ENTRY main {
  x = bf16[32,64] parameter(0)
  w = bf16[64,16] parameter(1)
  ROOT d = bf16[32,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("bf16[32,64]"), 1));
  args.push_back(Random(ParseShapeOrDie("bf16[64,16]"), 2));
  ::testing::internal::CaptureStderr();
  // bf16 results: 8 bits of mantissa.
  ExpectMatchesEvaluator(text, args, {{"report", PLX_Value_INT64, "", 1}},
                         2e-2);
  const std::string report = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(report,
              ::testing::HasSubstr("(matmul 1, convolution 0, softmax 0)"));
}

TEST_F(OneDnnPluginTest, ThreadsShareOneExecutable) {
  // Each thread runs the primitive on its own inputs; the scratch comes
  // from each run's arena, so concurrent runs do not meet.
  std::unique_ptr<host::Client> client = NewClient();
  ASSERT_NE(client, nullptr);
  auto exe = client->Compile(kConvBnRelu, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  constexpr int kThreads = 4;
  std::vector<std::vector<Literal>> args;
  std::vector<Literal> want;
  for (int t = 0; t < kThreads; ++t) {
    args.push_back(ConvBnArgs(100 * (t + 1)));
    absl::StatusOr<Literal> w = Evaluate(kConvBnRelu, args.back());
    ASSERT_TRUE(w.ok()) << w.status();
    want.push_back(std::move(*w));
  }
  std::vector<absl::StatusOr<Literal>> got(kThreads, absl::UnknownError(""));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 8; ++k) {
        got[t] = Execute(*client, **exe, args[t]);
        if (!got[t].ok()) return;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(got[t].ok()) << got[t].status();
    ExpectNear(want[t], *got[t], 1e-4);
  }
}

// Two convolutions with a relu and a residual add, 16 channels (a whole
// nChw16c block, so the blocked layout has the array's size).
constexpr char kTwoConvolutions[] = R"(HloModule two_convs
ENTRY main {
  x = f32[2,16,9,9] parameter(0)
  k1 = f32[16,16,3,3] parameter(1)
  k2 = f32[16,16,3,3] parameter(2)
  z = f32[] constant(0)
  zb = f32[2,16,9,9] broadcast(z), dimensions={}
  c1 = f32[2,16,9,9] convolution(x, k1), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  r1 = f32[2,16,9,9] maximum(c1, zb)
  c2 = f32[2,16,9,9] convolution(r1, k2), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01
  a = f32[2,16,9,9] add(c2, x)
  ROOT r2 = f32[2,16,9,9] maximum(a, zb)
}
)";

TEST_F(OneDnnPluginTest, ConsecutiveConvolutionsPassTheirBlockedLayout) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[2,16,9,9]"), 1));
  args.push_back(Random(ParseShapeOrDie("f32[16,16,3,3]"), 2));
  args.push_back(Random(ParseShapeOrDie("f32[16,16,3,3]"), 3));
  std::vector<std::string> reports;
  for (int relaxed : {0, 1}) {
    ::testing::internal::CaptureStderr();
    ExpectMatchesEvaluator(kTwoConvolutions, args,
                           {{"relaxed_nan", PLX_Value_INT64, "", relaxed},
                            {"report", PLX_Value_INT64, "", 1}});
    reports.push_back(::testing::internal::GetCapturedStderr());
  }
  // Strict: the relu between them runs on the CPU plugin, on the plain
  // layout: x, both kernels, c1 out and back, c2's input, the residual
  // into c2's destination and c2 out.
  EXPECT_THAT(reports[0],
              ::testing::HasSubstr("(matmul 0, convolution 2, softmax 0)"));
  // Relaxed: c1 (with its relu) hands c2 its blocked result: two reorders
  // fewer, and the residual add and relu are c2's post-ops.
  EXPECT_THAT(reports[1], ::testing::HasSubstr("3 post-ops fused"));
  auto reorders = [](const std::string& report) {
    const size_t at = report.find(" reorders per execution");
    const size_t start = report.rfind(' ', at - 1) + 1;
    return std::stoi(report.substr(start, at - start));
  };
  EXPECT_EQ(reorders(reports[0]) - 2, reorders(reports[1]))
      << reports[0] << reports[1];
}

// ---- Softmax ----------------------------------------------------------

// softmax (log: log-softmax) over `axis` of x: f32[4,3,5] in `layout`, as
// JAX writes it.
std::string SoftmaxModule(int axis, bool log, const std::string& layout) {
  std::vector<std::string> kept;
  std::vector<int64_t> dims = {4, 3, 5}, reduced;
  std::vector<int64_t> bdims;
  for (int d = 0; d < 3; ++d) {
    if (d == axis) continue;
    reduced.push_back(dims[d]);
    bdims.push_back(d);
  }
  const std::string x = absl::StrCat("f32[4,3,5]{", layout, "}");
  const std::string r = absl::StrCat("f32[", absl::StrJoin(reduced, ","), "]");
  const std::string b =
      absl::StrCat("dimensions={", absl::StrJoin(bdims, ","), "}");
  std::string text = absl::StrCat(
      R"(HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = )",
      x, R"( parameter(0)
  ninf = f32[] constant(-inf)
  m = )",
      r, " reduce(x, ninf), dimensions={", axis, R"(}, to_apply=max_f32
  mb = )",
      x, " broadcast(m), ", b, R"(
  s = )",
      x, R"( subtract(x, mb)
  e = )",
      x, R"( exponential(s)
  zero = f32[] constant(0)
  z = )",
      r, " reduce(e, zero), dimensions={", axis, R"(}, to_apply=add_f32
)");
  if (log) {
    absl::StrAppend(&text, "  l = ", r, " log(z)\n  lb = ", x,
                    " broadcast(l), ", b, "\n  ROOT y = ", x,
                    " subtract(s, lb)\n}\n");
  } else {
    absl::StrAppend(&text, "  zb = ", x, " broadcast(z), ", b,
                    "\n  ROOT y = ", x, " divide(e, zb)\n}\n");
  }
  return text;
}

TEST_F(OneDnnPluginTest, SoftmaxKeepsHloNaNSemanticsByDefault) {
  for (bool log : {false, true}) {
    const std::string text = SoftmaxModule(2, log, "2,1,0");
    Literal x = Random(ParseShapeOrDie("f32[4,3,5]"), 1);
    // A row with a NaN and one with +inf: NaN throughout in HLO.
    ASSERT_TRUE(x.SetFromDouble({0, 0, 0}, std::nan("")).ok());
    ASSERT_TRUE(x.SetFromDouble({3, 2, 4}, INFINITY).ok());
    std::vector<Literal> args;
    args.push_back(std::move(x));
    ::testing::internal::CaptureStderr();
    ExpectMatchesEvaluator(text, args, {{"report", PLX_Value_INT64, "", 1}});
    const std::string report = ::testing::internal::GetCapturedStderr();
    EXPECT_THAT(report, ::testing::HasSubstr("relaxed_nan=1 maps it"));
  }
}

TEST_F(OneDnnPluginTest, RelaxedSoftmaxRunsOnOneDnnOnTheInnermostAxis) {
  for (bool log : {false, true}) {
    for (int axis : {0, 1, 2}) {
      for (const char* layout : {"2,1,0", "0,2,1"}) {
        const std::string text = SoftmaxModule(axis, log, layout);
        std::vector<Literal> args;
        args.push_back(Random(ParseShapeOrDie("f32[4,3,5]"), axis + 10 * log));
        ::testing::internal::CaptureStderr();
        ExpectMatchesEvaluator(text, args,
                               {{"report", PLX_Value_INT64, "", 1},
                                {"relaxed_nan", PLX_Value_INT64, "", 1}});
        const std::string report = ::testing::internal::GetCapturedStderr();
        // The result keeps the entry's default layout {2,1,0}: only a
        // softmax over dimension 2 of a {2,1,0} input has the input's
        // layout and the innermost axis.
        const bool mapped = axis == 2 && std::string(layout) == "2,1,0";
        EXPECT_THAT(report,
                    ::testing::HasSubstr(mapped ? "softmax 1)" : "softmax 0)"))
            << text << report;
      }
    }
  }
}

TEST(OneDnnRewrite, ASoftmaxWhoseMaximumIsUsedElsewhereStaysOnTheCpuPlugin) {
  std::string text = absl::StrReplaceAll(SoftmaxModule(2, false, "2,1,0"),
                                         {{"ROOT y =", "y ="}});
  // The row maximum is also a result: the pattern is not private.
  text.replace(text.rfind("}"), 1,
               "  ROOT t = (f32[4,3,5], f32[4,3]) tuple(y, m)\n}");
  absl::StatusOr<Rewritten> r = Rewrite(text, /*relaxed_nan=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 0);
  // Without the extra use it is one.
  r = Rewrite(SoftmaxModule(2, false, "2,1,0"), /*relaxed_nan=*/true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 1);
  // And not without relaxed NaN semantics.
  r = Rewrite(SoftmaxModule(2, false, "2,1,0"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 0);
}

// ---- Differential: random dot and convolution configurations -----------

std::string ShapeText(const std::vector<int64_t>& dims,
                      const std::vector<int64_t>& minor_to_major) {
  return absl::StrCat("f32[", absl::StrJoin(dims, ","), "]{",
                      absl::StrJoin(minor_to_major, ","), "}");
}

std::vector<int64_t> RandomPermutation(int64_t n, std::mt19937& gen) {
  std::vector<int64_t> p(n);
  for (int64_t i = 0; i < n; ++i) p[i] = i;
  std::shuffle(p.begin(), p.end(), gen);
  return p;
}

TEST_F(OneDnnPluginTest, RandomDotsMatchTheEvaluator) {
  std::mt19937 gen(20261124);
  for (int trial = 0; trial < 24; ++trial) {
    const int nb = static_cast<int>(gen() % 3);      // batch dims
    const int nl = static_cast<int>(gen() % 3);      // lhs free dims
    const int nr = static_cast<int>(gen() % 3);      // rhs free dims
    const int nc = 1 + static_cast<int>(gen() % 2);  // contracting dims
    auto size = [&] { return static_cast<int64_t>(1 + gen() % 7); };
    std::vector<int64_t> batch, lfree, rfree, contract;
    for (int i = 0; i < nb; ++i) batch.push_back(size());
    for (int i = 0; i < nl; ++i) lfree.push_back(size());
    for (int i = 0; i < nr; ++i) rfree.push_back(size());
    for (int i = 0; i < nc; ++i) contract.push_back(size());
    // Logical order of each operand: a random permutation of its roles.
    std::vector<int64_t> lhs_roles, rhs_roles;  // index into the lists
    std::vector<int64_t> ldims, rdims, lb, rb, lc, rc;
    const std::vector<int64_t> lperm = RandomPermutation(nb + nl + nc, gen);
    const std::vector<int64_t> rperm = RandomPermutation(nb + nr + nc, gen);
    ldims.resize(lperm.size());
    rdims.resize(rperm.size());
    lb.resize(nb);
    rb.resize(nb);
    lc.resize(nc);
    rc.resize(nc);
    for (size_t pos = 0; pos < lperm.size(); ++pos) {
      const int64_t role = lperm[pos];
      if (role < nb) {
        ldims[pos] = batch[role];
        lb[role] = static_cast<int64_t>(pos);
      } else if (role < nb + nl) {
        ldims[pos] = lfree[role - nb];
      } else {
        ldims[pos] = contract[role - nb - nl];
        lc[role - nb - nl] = static_cast<int64_t>(pos);
      }
    }
    for (size_t pos = 0; pos < rperm.size(); ++pos) {
      const int64_t role = rperm[pos];
      if (role < nb) {
        rdims[pos] = batch[role];
        rb[role] = static_cast<int64_t>(pos);
      } else if (role < nb + nr) {
        rdims[pos] = rfree[role - nb];
      } else {
        rdims[pos] = contract[role - nb - nr];
        rc[role - nb - nr] = static_cast<int64_t>(pos);
      }
    }
    // Free dims appear in the result in increasing logical order.
    std::vector<int64_t> odims = batch;
    for (size_t pos = 0; pos < ldims.size(); ++pos) {
      if (lperm[pos] >= nb && lperm[pos] < nb + nl) odims.push_back(ldims[pos]);
    }
    for (size_t pos = 0; pos < rdims.size(); ++pos) {
      if (rperm[pos] >= nb && rperm[pos] < nb + nr) odims.push_back(rdims[pos]);
    }
    const std::string lhs =
        ShapeText(ldims, RandomPermutation(ldims.size(), gen));
    const std::string rhs =
        ShapeText(rdims, RandomPermutation(rdims.size(), gen));
    const std::string out =
        ShapeText(odims, RandomPermutation(odims.size(), gen));
    const std::string text =
        absl::StrCat("HloModule rdot\nENTRY main {\n  a = ", lhs,
                     " parameter(0)\n  b = ", rhs, " parameter(1)\n  d = ", out,
                     " dot(a, b), lhs_batch_dims={", absl::StrJoin(lb, ","),
                     "}, rhs_batch_dims={", absl::StrJoin(rb, ","),
                     "}, lhs_contracting_dims={", absl::StrJoin(lc, ","),
                     "}, rhs_contracting_dims={", absl::StrJoin(rc, ","),
                     "}\n  ROOT t = ", out, " tanh(d)\n}\n");
    std::vector<Literal> args;
    args.push_back(Random(ParseShapeOrDie(lhs), 2 * trial));
    args.push_back(Random(ParseShapeOrDie(rhs), 2 * trial + 1));
    ExpectMatchesEvaluator(text, args);
  }
}

TEST_F(OneDnnPluginTest, RandomConvolutionsMatchTheEvaluator) {
  std::mt19937 gen(11);
  const char* labels[] = {"bf01_oi01->bf01", "b01f_01io->b01f",
                          "f01b_i01o->01bf", "b0f1_o01i->bf10"};
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t groups = 1 + gen() % 2;
    const int64_t n = 1 + gen() % 2, cin = groups * (1 + gen() % 4),
                  cout = groups * (1 + gen() % 4);
    const int64_t h = 3 + gen() % 6, w = 3 + gen() % 6;
    const int64_t kh = 1 + gen() % 3, kw = 1 + gen() % 3;
    const int64_t sh = 1 + gen() % 2, sw = 1 + gen() % 2;
    const int64_t dh = 1 + gen() % 2, dw = 1 + gen() % 2;
    const int64_t pl = gen() % 2, ph = gen() % 2;
    const std::string label = labels[gen() % 4];
    const int64_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
    if (h + pl + ph < eh || w + pl + ph < ew) continue;
    const int64_t oh = (h + pl + ph - eh) / sh + 1;
    const int64_t ow = (w + pl + ph - ew) / sw + 1;
    // Dimension sizes in the order each label names them.
    auto dims_for = [](absl::string_view spec,
                       const std::vector<std::pair<char, int64_t>>& sizes) {
      std::vector<int64_t> out;
      for (char c : spec) {
        for (const auto& [k, v] : sizes) {
          if (k == c) out.push_back(v);
        }
      }
      return out;
    };
    const std::vector<std::string> parts =
        absl::StrSplit(absl::StrReplaceAll(label, {{"->", "_"}}), '_');
    const std::vector<int64_t> xd =
        dims_for(parts[0], {{'b', n}, {'f', cin}, {'0', h}, {'1', w}});
    const std::vector<int64_t> kd = dims_for(
        parts[1], {{'o', cout}, {'i', cin / groups}, {'0', kh}, {'1', kw}});
    const std::vector<int64_t> od =
        dims_for(parts[2], {{'b', n}, {'f', cout}, {'0', oh}, {'1', ow}});
    const std::string xs = ShapeText(xd, RandomPermutation(4, gen));
    const std::string ks = ShapeText(kd, RandomPermutation(4, gen));
    const std::string os = ShapeText(od, RandomPermutation(4, gen));
    const std::string text = absl::StrCat(
        "HloModule rconv\nENTRY main {\n  x = ", xs,
        " parameter(0)\n  k = ", ks, " parameter(1)\n  ROOT c = ", os,
        " convolution(x, k), window={size=", kh, "x", kw, " stride=", sh, "x",
        sw, " pad=", pl, "_", ph, "x", pl, "_", ph, " rhs_dilate=", dh, "x", dw,
        "}, dim_labels=", label, ", feature_group_count=", groups, "\n}\n");
    std::vector<Literal> args;
    args.push_back(Random(ParseShapeOrDie(xs), 3 * trial));
    args.push_back(Random(ParseShapeOrDie(ks), 3 * trial + 1));
    ExpectMatchesEvaluator(text, args);
  }
}

}  // namespace
}  // namespace plexa::onednn
