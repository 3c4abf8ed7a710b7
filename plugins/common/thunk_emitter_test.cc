// The toolkit on its own, with the smallest backend there is: one that
// runs every instruction it is handed on the evaluator (EmitReference).
// The toolkit's parts then do the rest: slots, constants, while and
// conditional through the executor, in-place updates, buffer assignment,
// arena reuse across runs, and all-reduce across two replicas through the
// replica hub. Expected values are worked out by hand.
#include "plugins/common/thunk_emitter.h"

#include <complex>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/literal/literal.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plugins/common/executor.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {
namespace {

using ::testing::HasSubstr;

class EvaluatorBackend : public ThunkEmitter {
 public:
  using ThunkEmitter::ThunkEmitter;

 protected:
  absl::Status EmitBackendInstruction(CompiledComputation& cc,
                                      const Instruction& h) override {
    EmitReference(cc, h);
    return absl::OkStatus();
  }
};

struct Compiled {
  std::unique_ptr<Module> module;
  std::unique_ptr<ProgramExecutor> executor;
  ProgramStats stats;
};

absl::StatusOr<std::unique_ptr<Compiled>> Compile(const std::string& text,
                                                  int64_t num_replicas = 1) {
  auto out = std::make_unique<Compiled>();
  absl::StatusOr<std::unique_ptr<Module>> module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  out->module = std::move(*module);
  EvaluatorBackend emitter(DeviceGrid{num_replicas, 1}, &out->stats);
  absl::StatusOr<CompiledComputation*> entry =
      emitter.Compile(*out->module->entry_computation(), /*is_entry=*/true);
  if (!entry.ok()) return entry.status();
  out->executor = std::make_unique<ProgramExecutor>(
      emitter.TakeComputations(), *entry, std::move(emitter.constants()));
  return out;
}

// Runs replica `replica` of `replicas` on `args`; returns the one result.
absl::StatusOr<Literal> RunProgram(const ProgramExecutor& executor,
                                   const std::vector<Literal>& args,
                                   int64_t replica = 0, int64_t replicas = 1,
                                   ReplicaHub* hub = nullptr) {
  std::vector<const void*> arg_ptrs;
  for (const Literal& a : args) arg_ptrs.push_back(a.data().data());
  Literal result(executor.result_shapes().at(0));
  std::vector<void*> result_ptrs = {result.mutable_data().data()};
  ExecContext ctx;
  ctx.replica_id = replica;
  ctx.replica_count = replicas;
  ctx.hub = hub;
  if (absl::Status s = executor.Run(arg_ptrs, result_ptrs, ctx); !s.ok()) {
    return s;
  }
  return result;
}

TEST(ThunkEmitterTest, AWhileLoopRunsItsComputationsOnTheHost) {
  // Doubles x until it is at least 100: 3, 6, ..., 192.
  auto compiled = Compile(R"(HloModule loop
cond {
  p = s32[] parameter(0)
  limit = s32[] constant(100)
  ROOT lt = pred[] compare(p, limit), direction=LT
}
body {
  p = s32[] parameter(0)
  ROOT twice = s32[] add(p, p)
}
ENTRY main {
  x = s32[] parameter(0)
  ROOT w = s32[] while(x), condition=cond, body=body
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  for (int run = 0; run < 2; ++run) {  // the second run reuses the arenas
    auto out =
        RunProgram(*(*compiled)->executor, {Literal::CreateR0<int32_t>(3)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, Literal::CreateR0<int32_t>(192));
  }
  // compare and add on the evaluator; the while is the toolkit's.
  EXPECT_EQ((*compiled)->stats.reference_thunks, 2);
  EXPECT_EQ((*compiled)->stats.runtime_thunks, 1);
}

TEST(ThunkEmitterTest, StepsAreListedPerComputationWithTheirClass) {
  // The toolkit's own thunks say what they are: the while is control flow,
  // the all-reduce (its reducer matches) a collective, and the rest runs on
  // the evaluator; the root that is a parameter is copied into a fresh
  // result, a step of no instruction.
  auto compiled = Compile(R"(HloModule steps
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
cond {
  p = s32[] parameter(0)
  limit = s32[] constant(100)
  ROOT lt = pred[] compare(p, limit), direction=LT
}
body {
  p = s32[] parameter(0)
  ROOT twice = s32[] add(p, p)
}
ENTRY main {
  x = s32[] parameter(0)
  y = f32[4] parameter(1)
  w = s32[] while(x), condition=cond, body=body
  r = f32[4] all-reduce(y), to_apply=sum
  ROOT t = (s32[], f32[4], f32[4]) tuple(w, r, y)
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->executor->DescribeSteps(),
            "# plexa program steps: one line per thunk, in the order each "
            "computation runs them\n"
            "# computation\tinstruction\tclass\tkind\n"
            "main\tw\tcontrol-flow\twhile\n"
            "main\tr\tcollective\tall-reduce\n"
            "main\t-\tcopy\t-\n"
            "cond\tlt\treference\tcompare\n"
            "body\ttwice\treference\tadd\n");
  EXPECT_STREQ(StepClassName(StepClass::kGemm), "gemm");
  EXPECT_STREQ(StepClassName(StepClass::kControlFlow), "control-flow");
}

TEST(ThunkEmitterTest, AConditionalRunsTheSelectedBranch) {
  auto compiled = Compile(R"(HloModule branch
on_true {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
on_false {
  p = f32[2] parameter(0)
  ROOT a = f32[2] abs(p)
}
ENTRY main {
  c = pred[] parameter(0)
  x = f32[2] parameter(1)
  ROOT r = f32[2] conditional(c, x, x), true_computation=on_true,
      false_computation=on_false
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const Literal x = Literal::CreateR1<float>({-1.5f, 2});
  auto yes =
      RunProgram(*(*compiled)->executor, {Literal::CreateR0<bool>(true), x});
  ASSERT_TRUE(yes.ok()) << yes.status();
  EXPECT_EQ(*yes, Literal::CreateR1<float>({1.5f, -2}));
  auto no =
      RunProgram(*(*compiled)->executor, {Literal::CreateR0<bool>(false), x});
  ASSERT_TRUE(no.ok()) << no.status();
  EXPECT_EQ(*no, Literal::CreateR1<float>({1.5f, 2}));
}

TEST(ThunkEmitterTest, TemporariesShareTheArena) {
  // a, b, c, d in a chain: each dies when the next is made.
  auto compiled = Compile(R"(HloModule chain
ENTRY main {
  x = f32[256] parameter(0)
  a = f32[256] negate(x)
  b = f32[256] negate(a)
  c = f32[256] negate(b)
  ROOT d = f32[256] negate(c)
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const ProgramStats& stats = (*compiled)->stats;
  EXPECT_EQ(stats.unshared_temp_bytes, 3 * 1024);
  EXPECT_EQ(stats.peak_temp_bytes, 2 * 1024);
  std::vector<float> ones(256, 1.0f);
  auto out = RunProgram(*(*compiled)->executor,
                        {Literal::CreateR1<float>(absl::MakeConstSpan(ones))});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Literal::CreateR1<float>(absl::MakeConstSpan(ones)));
}

constexpr char kAllReduce[] = R"(HloModule all_reduce
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(b, a)
}
ENTRY main {
  x = f32[3] parameter(0)
  ROOT ar = f32[3] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
}
)";

TEST(ThunkEmitterTest, AllReduceSumsAcrossReplicas) {
  auto compiled = Compile(kAllReduce, 2);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->stats.runtime_thunks, 1);
  EXPECT_EQ((*compiled)->stats.reference_thunks, 0);
  ReplicaHub hub(2);
  std::vector<absl::StatusOr<Literal>> out(2, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int64_t r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      const float v = static_cast<float>(r + 1);
      out[r] = RunProgram(*(*compiled)->executor,
                          {Literal::CreateR1<float>({v, 10 * v, 100 * v})}, r,
                          2, &hub);
      hub.MarkDone(r, !out[r].ok());
    });
  }
  for (std::thread& t : threads) t.join();
  for (int64_t r = 0; r < 2; ++r) {
    ASSERT_TRUE(out[r].ok()) << out[r].status();
    EXPECT_EQ(*out[r], Literal::CreateR1<float>({3, 30, 300}));
  }
}

TEST(ThunkEmitterTest, AnAllReduceNamingAMissingReplicaIsAnError) {
  auto compiled = Compile(kAllReduce, 1);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("instruction 'ar' (all-reduce): replica_groups "
                        "mention replica 1 but 1 replica(s) run"));
}

TEST(ThunkEmitterTest, AReplicaInNoGroupIsAnError) {
  // Three replicas run, the groups name two: replica 2 would wait at a
  // meeting nobody else joins.
  auto compiled = Compile(kAllReduce, 3);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(compiled.status().message(),
              HasSubstr("ar: replica 2 of the 3 device(s) that run is in "
                        "none of the replica_groups"));
}

TEST(ThunkEmitterTest, AnAllReduceOfOneParameterTwiceIsNotASum) {
  // add(a, a) is no reducer: across replicas it is turned down, not run as
  // a sum.
  std::string text = kAllReduce;
  text.replace(text.find("add(b, a)"), 9, "add(a, a)");
  auto compiled = Compile(text, 2);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(compiled.status().message(), HasSubstr("ar: all-reduce"));
}

}  // namespace
}  // namespace plexa::backend

namespace plexa::backend {
namespace {

// fft and topk run as the toolkit's native thunks (no evaluator thunk):
// rfft({1,2,3,4}) = {10, -2+2i, -2}, by hand.
TEST(ThunkEmitterTest, FftIsANativeThunk) {
  auto compiled = Compile(R"(HloModule fft
ENTRY main {
  x = f32[4]{0} parameter(0)
  ROOT f = c64[3]{0} fft(x), fft_type=RFFT, fft_length={4}
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->stats.runtime_thunks, 1);
  EXPECT_EQ((*compiled)->stats.reference_thunks, 0);
  auto out = RunProgram(*(*compiled)->executor,
                        {Literal::CreateR1<float>({1, 2, 3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::complex<float> want[] = {{10, 0}, {-2, 2}, {-2, 0}};
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_LT(std::abs(out->Get<std::complex<float>>({i}) - want[i]), 1e-6)
        << i;
  }
}

// topk along the last dimension, ties in index order: the indices of the
// two largest of {3, 9, 1, 9} are {1, 3}.
TEST(ThunkEmitterTest, TopKIsANativeThunk) {
  auto compiled = Compile(R"(HloModule topk
ENTRY main {
  x = s32[4]{0} parameter(0)
  t = (s32[2]{0}, s32[2]{0}) topk(x), k=2, largest=true
  ROOT i = s32[2]{0} get-tuple-element(t), index=1
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->stats.reference_thunks, 0);
  auto out = RunProgram(*(*compiled)->executor,
                        {Literal::CreateR1<int32_t>({3, 9, 1, 9})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out, Literal::CreateR1<int32_t>({1, 3}));
}

// A layout the row-major kernels cannot read takes the evaluator.
TEST(ThunkEmitterTest, FftInAnotherLayoutTakesTheEvaluator) {
  auto compiled = Compile(R"(HloModule fft
ENTRY main {
  x = c64[2,2]{0,1} parameter(0)
  ROOT f = c64[2,2]{1,0} fft(x), fft_type=FFT, fft_length={2}
}
)");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ((*compiled)->stats.reference_thunks, 1);
}

}  // namespace
}  // namespace plexa::backend
