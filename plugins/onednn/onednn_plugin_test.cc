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
                                  double min_flops = 0,
                                  int64_t min_elements = 1 << 16,
                                  bool all_primitives = false) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) return m.status();
  MatchOptions options;
  options.relaxed_nan = relaxed_nan;
  options.all_convolutions = all_convolutions;
  options.min_flops = min_flops;  // 0 by default: the programs are small
  options.min_elements = min_elements;
  options.all_primitives = all_primitives;
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
    options.push_back({"min_elements", PLX_Value_INT64, "", 0});
    options.push_back({"all_primitives", PLX_Value_INT64, "", 1});
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
      const bool ok = (std::isnan(w) && std::isnan(g)) || w == g ||
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
                    ::testing::HasSubstr(mapped ? "softmax 1" : "softmax 0"))
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

// ---- Patterns beyond dots and convolutions (primitives.h) ---------------

constexpr char kReducers[] = R"(
add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
min_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(a, b)
}
)";

std::string WithReducers(absl::string_view name, absl::string_view entry) {
  return absl::StrCat("HloModule ", name, "\n", kReducers, "\nENTRY main {\n",
                      entry, "}\n");
}

// The backend_configs of the oneDNN fusions of `text` (every pattern taken
// however small; relaxed NaN semantics when asked).
std::vector<std::string> Configs(const std::string& text, bool relaxed) {
  absl::StatusOr<Rewritten> r = Rewrite(text, relaxed, false, /*min_flops=*/0,
                                        /*min_elements=*/0,
                                        /*all_primitives=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  std::vector<std::string> out = r->configs;
  std::sort(out.begin(), out.end());
  return out;
}

std::string Config(absl::string_view kind) {
  return absl::StrCat("{\"onednn\":\"", kind, "\"}");
}

const std::string kMaxPoolNchw = WithReducers("maxpool", R"(
  x = f32[2,16,12,12] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT p = f32[2,16,6,6] reduce-window(x, ninf), window={size=1x1x3x3 stride=1x1x2x2 pad=0_0x0_0x1_0x1_0}, to_apply=max_f
)");

const std::string kAvgPoolNhwc = WithReducers("avgpool", R"(
  x = f32[2,12,12,16] parameter(0)
  zero = f32[] constant(0)
  s = f32[2,7,7,16] reduce-window(x, zero), window={size=1x2x2x1 stride=1x2x2x1 pad=0_0x1_1x1_1x0_0}, to_apply=add_f
  four = f32[] constant(4)
  fb = f32[2,7,7,16] broadcast(four), dimensions={}
  ROOT p = f32[2,7,7,16] divide(s, fb)
)");

TEST(OneDnnPatterns, PoolsBecomePooling) {
  EXPECT_THAT(Configs(kAvgPoolNhwc, false),
              ::testing::ElementsAre(Config("pooling")));
  // Max pooling only with relaxed NaN semantics: oneDNN's drops NaNs.
  EXPECT_THAT(Configs(kMaxPoolNchw, false), ::testing::ElementsAre());
  EXPECT_THAT(Configs(kMaxPoolNchw, true),
              ::testing::ElementsAre(Config("pooling")));
  // A sum over a window that is not divided by the window's size (an
  // average over 3 of a 2x2 window) is not an average pool.
  EXPECT_THAT(Configs(absl::StrReplaceAll(kAvgPoolNhwc,
                                          {{"constant(4)", "constant(3)"}}),
                      false),
              ::testing::ElementsAre());
  // Nor is a min over a window.
  EXPECT_THAT(Configs(absl::StrReplaceAll(
                          kMaxPoolNchw, {{"constant(-inf)", "constant(inf)"},
                                         {"to_apply=max_f", "to_apply=min_f"}}),
                      true),
              ::testing::ElementsAre());
}

TEST_F(OneDnnPluginTest, PoolsMatchTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[2,12,12,16]"), 7));
  ExpectMatchesEvaluator(kAvgPoolNhwc, args);
  std::vector<Literal> nchw;
  nchw.push_back(Random(ParseShapeOrDie("f32[2,16,12,12]"), 8));
  ExpectMatchesEvaluator(kMaxPoolNchw, nchw,
                         {{"relaxed_nan", PLX_Value_INT64, "", 1}});
  // A NaN in a window: HLO's max is NaN; by default the CPU plugin runs it.
  ASSERT_TRUE(nchw[0].SetFromDouble({0, 0, 0, 0}, std::nan("")).ok());
  ExpectMatchesEvaluator(kMaxPoolNchw, nchw);
}

// oneDNN 2.6 has jit reductions over the innermost dimensions only (a
// middle one is its reference loop: left to the CPU plugin).
const std::string kRowSum = WithReducers("rowsum", R"(
  x = f32[32,16,64] parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[32,16] reduce(x, zero), dimensions={2}, to_apply=add_f
)");

TEST(OneDnnPatterns, ReducesFromTheIdentityBecomeReduction) {
  EXPECT_THAT(Configs(kRowSum, false),
              ::testing::ElementsAre(Config("reduction")));
  // Not from another init (oneDNN's reduction has none).
  EXPECT_THAT(
      Configs(absl::StrReplaceAll(kRowSum, {{"constant(0)", "constant(1)"}}),
              false),
      ::testing::ElementsAre());
  // Max only with relaxed NaN semantics.
  const std::string max =
      absl::StrReplaceAll(kRowSum, {{"constant(0)", "constant(-inf)"},
                                    {"to_apply=add_f", "to_apply=max_f"}});
  EXPECT_THAT(Configs(max, false), ::testing::ElementsAre());
  EXPECT_THAT(Configs(max, true), ::testing::ElementsAre(Config("reduction")));
}

TEST_F(OneDnnPluginTest, ReductionsMatchTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[32,16,64]"), 9));
  ExpectMatchesEvaluator(kRowSum, args);
  // A middle dimension: oneDNN's reference loop, so the CPU plugin's.
  const std::string middle =
      absl::StrReplaceAll(kRowSum, {{"f32[32,16] reduce", "f32[32,64] reduce"},
                                    {"dimensions={2}", "dimensions={1}"}});
  EXPECT_THAT(Configs(middle, false), ::testing::ElementsAre());
  ExpectMatchesEvaluator(middle, args);
  // Over two dimensions, one of them innermost, with a column-major input.
  const std::string two = WithReducers("sum2", R"(
  x = f32[32,64,16]{0,1,2} parameter(0)
  zero = f32[] constant(0)
  ROOT s = f32[64] reduce(x, zero), dimensions={0,2}, to_apply=add_f
)");
  std::vector<Literal> cm;
  cm.push_back(Random(ParseShapeOrDie("f32[32,64,16]{0,1,2}"), 10));
  ExpectMatchesEvaluator(two, cm);
}

// Layer norm over the last axis of f32[8,256], the variance in two passes.
const std::string kLayerNorm = WithReducers("layer_norm", R"(
  x = f32[8,256] parameter(0)
  g = f32[256] parameter(1)
  b = f32[256] parameter(2)
  z = f32[] constant(0)
  s = f32[8] reduce(x, z), dimensions={1}, to_apply=add_f
  n = f32[] constant(256)
  nb = f32[8] broadcast(n), dimensions={}
  mean = f32[8] divide(s, nb)
  mb = f32[8,256] broadcast(mean), dimensions={0}
  d = f32[8,256] subtract(x, mb)
  dd = f32[8,256] multiply(d, d)
  s2 = f32[8] reduce(dd, z), dimensions={1}, to_apply=add_f
  var = f32[8] divide(s2, nb)
  eps = f32[] constant(1e-05)
  eb = f32[8] broadcast(eps), dimensions={}
  ve = f32[8] add(var, eb)
  r = f32[8] rsqrt(ve)
  rb = f32[8,256] broadcast(r), dimensions={0}
  nrm = f32[8,256] multiply(d, rb)
  gb = f32[8,256] broadcast(g), dimensions={1}
  sc = f32[8,256] multiply(nrm, gb)
  bb = f32[8,256] broadcast(b), dimensions={1}
  ROOT y = f32[8,256] add(sc, bb)
)");

// As Flax writes it: keepdims means, var = max(0, mean(x^2) - mean^2),
// rsqrt multiplied by the scale first, over the last axis of f32[4,8,128].
const std::string kFlaxLayerNorm = WithReducers("flax_layer_norm", R"(
  x = f32[4,8,128] parameter(0)
  g = f32[128] parameter(1)
  b = f32[128] parameter(2)
  z = f32[] constant(0)
  s = f32[4,8] reduce(x, z), dimensions={2}, to_apply=add_f
  sr = f32[4,8,1] reshape(s)
  n = f32[] constant(128)
  nb = f32[4,8,1] broadcast(n), dimensions={}
  mean = f32[4,8,1] divide(sr, nb)
  xx = f32[4,8,128] multiply(x, x)
  s2 = f32[4,8] reduce(xx, z), dimensions={2}, to_apply=add_f
  s2r = f32[4,8,1] reshape(s2)
  m2 = f32[4,8,1] divide(s2r, nb)
  mm = f32[4,8,1] multiply(mean, mean)
  v0 = f32[4,8,1] subtract(m2, mm)
  zb = f32[4,8,1] broadcast(z), dimensions={}
  var = f32[4,8,1] maximum(zb, v0)
  eps = f32[] constant(1e-06)
  eb = f32[4,8,1] broadcast(eps), dimensions={}
  ve = f32[4,8,1] add(var, eb)
  r = f32[4,8,1] rsqrt(ve)
  rr = f32[4,8] reshape(r)
  rb = f32[4,8,128] broadcast(rr), dimensions={0,1}
  gb = f32[4,8,128] broadcast(g), dimensions={2}
  mul = f32[4,8,128] multiply(rb, gb)
  mr = f32[4,8] reshape(mean)
  mb = f32[4,8,128] broadcast(mr), dimensions={0,1}
  d = f32[4,8,128] subtract(x, mb)
  nrm = f32[4,8,128] multiply(d, mul)
  bb = f32[4,8,128] broadcast(b), dimensions={2}
  ROOT y = f32[4,8,128] add(nrm, bb)
)");

TEST(OneDnnPatterns, LayerNormsBecomeOneLayerNormalization) {
  EXPECT_THAT(Configs(kLayerNorm, false),
              ::testing::ElementsAre(Config("layer_normalization")));
  EXPECT_THAT(Configs(kFlaxLayerNorm, false),
              ::testing::ElementsAre(Config("layer_normalization")));
  // The mean is also a result: not private, so no layer norm. The row sum
  // of x becomes a reduction; that of d * d does not (the CPU plugin fuses
  // the multiply into its reduction, where oneDNN would need it written).
  std::string shared = absl::StrReplaceAll(kLayerNorm, {{"ROOT y =", "y ="}});
  shared.replace(shared.rfind("}"), 1,
                 "  ROOT t = (f32[8,256], f32[8]) tuple(y, mean)\n}");
  EXPECT_THAT(Configs(shared, false),
              ::testing::ElementsAre(Config("reduction")));
  // A wrong count (the mean divides by 255) is not a layer norm.
  EXPECT_THAT(
      Configs(
          absl::StrReplaceAll(kLayerNorm, {{"constant(256)", "constant(255)"}}),
          false),
      ::testing::Not(::testing::Contains(Config("layer_normalization"))));
}

TEST_F(OneDnnPluginTest, LayerNormsMatchTheEvaluator) {
  for (const std::string* text : {&kLayerNorm, &kFlaxLayerNorm}) {
    const bool flax = text == &kFlaxLayerNorm;
    std::vector<Literal> args;
    Literal x =
        Random(ParseShapeOrDie(flax ? "f32[4,8,128]" : "f32[8,256]"), 11);
    // An offset mean, so the two ways of computing the variance differ.
    std::vector<int64_t> index(x.shape().rank(), 0);
    do {
      ASSERT_TRUE(x.SetFromDouble(index, 3.0 + x.GetAsDouble(index)).ok());
    } while (IndexUtil::BumpIndices(x.shape(), absl::MakeSpan(index)));
    args.push_back(std::move(x));
    args.push_back(Random(ParseShapeOrDie(flax ? "f32[128]" : "f32[256]"), 12));
    args.push_back(Random(ParseShapeOrDie(flax ? "f32[128]" : "f32[256]"), 13));
    ::testing::internal::CaptureStderr();
    ExpectMatchesEvaluator(*text, args, {{"report", PLX_Value_INT64, "", 1}});
    EXPECT_THAT(::testing::internal::GetCapturedStderr(),
                ::testing::HasSubstr("layer_normalization 1"));
  }
}

std::string BatchNormTraining(int result) {
  return absl::StrCat(R"(HloModule bn_training
ENTRY main {
  x = f32[4,8,6,6] parameter(0)
  s = f32[8] parameter(1)
  o = f32[8] parameter(2)
  bn = (f32[4,8,6,6], f32[8], f32[8]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  ROOT r = get-tuple-element(bn), index=)",
                      result, "\n}\n");
}

TEST_F(OneDnnPluginTest, BatchNormTrainingRunsAsOnePrimitive) {
  // Each of the three results, against the evaluator.
  for (int result = 0; result < 3; ++result) {
    std::string text = BatchNormTraining(result);
    text = absl::StrReplaceAll(
        text, {{"get-tuple-element(bn)",
                result == 0 ? "f32[4,8,6,6] get-tuple-element(bn)"
                            : "f32[8] get-tuple-element(bn)"}});
    EXPECT_THAT(Configs(text, false),
                ::testing::ElementsAre(Config("batch_normalization")));
    std::vector<Literal> args;
    args.push_back(Random(ParseShapeOrDie("f32[4,8,6,6]"), 14));
    args.push_back(Random(ParseShapeOrDie("f32[8]"), 15));
    args.push_back(Random(ParseShapeOrDie("f32[8]"), 16));
    ExpectMatchesEvaluator(text, args);
  }
}

const std::string kConcat = R"(HloModule concat
ENTRY main {
  a = f32[6,64] parameter(0)
  b = f32[6,32] parameter(1)
  ROOT c = f32[6,96] concatenate(a, b), dimensions={1}
}
)";

const std::string kTranspose = R"(HloModule transpose
ENTRY main {
  a = f32[32,48,5] parameter(0)
  ROOT t = f32[48,5,32] transpose(a), dimensions={1,2,0}
}
)";

TEST(OneDnnPatterns, ConcatenateAndTransposeBecomeConcatAndReorder) {
  EXPECT_THAT(Configs(kConcat, false),
              ::testing::ElementsAre(Config("concat")));
  EXPECT_THAT(Configs(kTranspose, false),
              ::testing::ElementsAre(Config("reorder")));
}

TEST_F(OneDnnPluginTest, ConcatAndReorderMatchTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[6,64]"), 17));
  args.push_back(Random(ParseShapeOrDie("f32[6,32]"), 18));
  ExpectMatchesEvaluator(kConcat, args, {}, 0);
  std::vector<Literal> t;
  t.push_back(Random(ParseShapeOrDie("f32[32,48,5]"), 19));
  ExpectMatchesEvaluator(kTranspose, t, {}, 0);
}

// gelu(x), the tanh approximation as jax.nn.gelu writes it.
std::string GeluTanh(absl::string_view x) {
  return absl::StrReplaceAll(R"(
  c3 = f32[16,64] multiply(X, X)
  x3 = f32[16,64] multiply(c3, X)
  k = f32[] constant(0.044715)
  kb = f32[16,64] broadcast(k), dimensions={}
  kx3 = f32[16,64] multiply(kb, x3)
  inner = f32[16,64] add(X, kx3)
  sq = f32[] constant(0.7978845608)
  sb = f32[16,64] broadcast(sq), dimensions={}
  t0 = f32[16,64] multiply(sb, inner)
  t = f32[16,64] tanh(t0)
  one = f32[] constant(1)
  ob = f32[16,64] broadcast(one), dimensions={}
  a = f32[16,64] add(ob, t)
  h = f32[] constant(0.5)
  hb = f32[16,64] broadcast(h), dimensions={}
  cdf = f32[16,64] multiply(hb, a)
  ROOT y = f32[16,64] multiply(X, cdf)
)",
                             {{"X", x}});
}

// gelu(x) = x * 0.5 * (1 + erf(x / sqrt(2))).
std::string GeluErf(absl::string_view x) {
  return absl::StrReplaceAll(R"(
  r2 = f32[] constant(1.41421356)
  rb = f32[16,64] broadcast(r2), dimensions={}
  q = f32[16,64] divide(X, rb)
  e = f32[16,64] erf(q)
  one = f32[] constant(1)
  ob = f32[16,64] broadcast(one), dimensions={}
  a = f32[16,64] add(e, ob)
  xa = f32[16,64] multiply(X, a)
  two = f32[] constant(2)
  tb = f32[16,64] broadcast(two), dimensions={}
  ROOT y = f32[16,64] divide(xa, tb)
)",
                             {{"X", x}});
}

std::string Standalone(absl::string_view body) {
  return absl::StrCat(
      "HloModule eltwise\nENTRY main {\n  x = f32[16,64] "
      "parameter(0)\n",
      body, "}\n");
}

std::string AfterDot(absl::string_view body) {
  return absl::StrCat(R"(HloModule dot_gelu
ENTRY main {
  p = f32[16,32] parameter(0)
  w = f32[32,64] parameter(1)
  d = f32[16,64] dot(p, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)",
                      body, "}\n");
}

TEST(OneDnnPatterns, GeluIsOneEltwiseOrOnePostOp) {
  for (const std::string& gelu : {GeluTanh("x"), GeluErf("x")}) {
    EXPECT_THAT(Configs(Standalone(gelu), false),
                ::testing::ElementsAre(Config("eltwise")));
  }
  // dot and the gelu's 9 (tanh) or 5 (erf) instructions, one matmul.
  for (const auto& [gelu, ops] :
       {std::pair{GeluTanh("d"), 10}, std::pair{GeluErf("d"), 6}}) {
    absl::StatusOr<Rewritten> r =
        Rewrite(AfterDot(gelu), false, false, 0, /*min_elements=*/0);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_THAT(r->configs, ::testing::ElementsAre(Config("matmul")));
    EXPECT_EQ(r->fused_ops, ops);
  }
  // 0.0447 is not gelu's constant: the CPU plugin runs the loop.
  EXPECT_THAT(Configs(Standalone(absl::StrReplaceAll(GeluTanh("x"),
                                                     {{"0.044715", "0.0447"}})),
                      false),
              ::testing::ElementsAre());
}

TEST_F(OneDnnPluginTest, EltwiseKeepsHloSpecialValues) {
  Literal x = Random(ParseShapeOrDie("f32[16,64]"), 20);
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0,    -0.0,
                             1e30,         -1e30,    1e-30,     -1e-30, 20.0,
                             -20.0,        88.0,     -88.0};
  for (size_t i = 0; i < std::size(specials); ++i) {
    ASSERT_TRUE(
        x.SetFromDouble({0, static_cast<int64_t>(i)}, specials[i]).ok());
  }
  for (const char* op : {"tanh", "logistic", "sqrt", "abs"}) {
    SCOPED_TRACE(op);
    const std::string text =
        Standalone(absl::StrCat("  ROOT y = f32[16,64] ", op, "(x)\n"));
    EXPECT_THAT(Configs(text, false), ::testing::ElementsAre(Config("eltwise")))
        << op;
    std::vector<Literal> args;
    args.push_back(x);
    ExpectMatchesEvaluator(text, args);
  }
  for (const std::string& gelu : {GeluTanh("x"), GeluErf("x")}) {
    std::vector<Literal> args;
    args.push_back(x);
    ExpectMatchesEvaluator(Standalone(gelu), args);
  }
}

TEST_F(OneDnnPluginTest, GeluPostOpMatchesTheEvaluator) {
  for (const std::string& gelu : {GeluTanh("d"), GeluErf("d")}) {
    std::vector<Literal> args;
    args.push_back(Random(ParseShapeOrDie("f32[16,32]"), 21));
    args.push_back(Random(ParseShapeOrDie("f32[32,64]"), 22));
    ::testing::internal::CaptureStderr();
    ExpectMatchesEvaluator(AfterDot(gelu), args,
                           {{"report", PLX_Value_INT64, "", 1}});
    EXPECT_THAT(::testing::internal::GetCapturedStderr(),
                ::testing::HasSubstr("1 post-ops fused"));
  }
}

const std::string kBiasAdd = R"(HloModule bias_add
ENTRY main {
  x = f32[16,64] parameter(0)
  b = f32[64] parameter(1)
  bb = f32[16,64] broadcast(b), dimensions={1}
  ROOT y = f32[16,64] subtract(x, bb)
}
)";

TEST(OneDnnPatterns, BinaryWithABroadcastOperandBecomesBinary) {
  EXPECT_THAT(Configs(kBiasAdd, false),
              ::testing::ElementsAre(Config("binary")));
  // The broadcast on the left of a subtract cannot be src1.
  EXPECT_THAT(Configs(absl::StrReplaceAll(
                          kBiasAdd, {{"subtract(x, bb)", "subtract(bb, x)"}}),
                      false),
              ::testing::ElementsAre());
  // A chain of elementwise ops stays one CPU loop fusion.
  const std::string chain = absl::StrReplaceAll(
      kBiasAdd, {{"ROOT y = f32[16,64] subtract(x, bb)",
                  "y = f32[16,64] subtract(x, bb)\n  ROOT t = f32[16,64] "
                  "tanh(y)"}});
  EXPECT_THAT(Configs(chain, false), ::testing::ElementsAre());
}

TEST_F(OneDnnPluginTest, BinaryMatchesTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Random(ParseShapeOrDie("f32[16,64]"), 23));
  args.push_back(Random(ParseShapeOrDie("f32[64]"), 24));
  ExpectMatchesEvaluator(kBiasAdd, args, {}, 0);
}

TEST(OneDnnPatterns, SmallArraysStayOnTheCpuPluginByDefault) {
  // min_elements (65536 by default): a 2x16x12x12 pool has 4608 elements.
  absl::StatusOr<Rewritten> r = Rewrite(kAvgPoolNhwc);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->fusions, 0);
}

TEST(OneDnnPatterns, WhatIsSlowerOnOneDnnStaysOnTheCpuPluginByDefault) {
  auto configs = [](const std::string& text) {
    absl::StatusOr<Rewritten> r =
        Rewrite(text, false, false, 0, /*min_elements=*/0,
                /*all_primitives=*/false);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->configs : std::vector<std::string>{"error"};
  };
  // Measured slower than the CPU plugin's fusions (docs/onednn.md).
  EXPECT_THAT(configs(kLayerNorm), ::testing::ElementsAre());
  EXPECT_THAT(configs(kRowSum), ::testing::ElementsAre());
  EXPECT_THAT(configs(Standalone(GeluTanh("x"))), ::testing::ElementsAre());
  EXPECT_THAT(configs(kBiasAdd), ::testing::ElementsAre());
  std::string nchw = BatchNormTraining(0);
  nchw = absl::StrReplaceAll(
      nchw, {{"get-tuple-element(bn)", "f32[4,8,6,6] get-tuple-element(bn)"}});
  EXPECT_THAT(configs(nchw), ::testing::ElementsAre());
  // Faster: pools, concatenations, channels-last batch norms.
  EXPECT_THAT(configs(kAvgPoolNhwc), ::testing::ElementsAre(Config("pooling")));
  EXPECT_THAT(configs(kConcat), ::testing::ElementsAre(Config("concat")));
  const std::string nhwc = R"(HloModule bn_nhwc
ENTRY main {
  x = f32[4,6,6,8] parameter(0)
  s = f32[8] parameter(1)
  o = f32[8] parameter(2)
  bn = (f32[4,6,6,8], f32[8], f32[8]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=3
  ROOT r = f32[8] get-tuple-element(bn), index=2
}
)";
  EXPECT_THAT(configs(nhwc),
              ::testing::ElementsAre(Config("batch_normalization")));
}

}  // namespace
}  // namespace plexa::onednn
