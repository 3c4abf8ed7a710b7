// The runtime side of the evaluator: argument checking, rng, collectives
// across replicas, infeed/outfeed, custom calls, errors.
#include <dlfcn.h>

#include <cmath>
#include <cstring>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "core/eval/eval_test_util.h"
#include "core/shape/layout_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

// ---- Arguments --------------------------------------------------------------

constexpr char kAddOne[] = R"(HloModule m
ENTRY e {
  a = f32[2] parameter(0)
  one = f32[] constant(1)
  b = f32[2] broadcast(one), dimensions={}
  ROOT r = f32[2] add(a, b)
})";

TEST(ArgumentsTest, WrongCountAndShape) {
  absl::StatusOr<Literal> r = RunHlo(kAddOne, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  // Wrong dimensions: the message names the parameter and both shapes.
  r = RunHlo(kAddOne, {L("f32[3]", "{1, 2, 3}")});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
  const std::string msg(r.status().message());
  EXPECT_TRUE(absl::StrContains(msg, "parameter 0")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "f32[2]")) << msg;
  EXPECT_TRUE(absl::StrContains(msg, "f32[3]")) << msg;
  // Wrong element type.
  r = RunHlo(kAddOne, {L("s32[2]", "{1, 2}")});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "s32[2]"));
  // Right: {1, 2} + 1.
  EXPECT_LITERAL(RunOk(kAddOne, {L("f32[2]", "{1, 2}")}), "f32[2]", "{2, 3}");
}

TEST(ArgumentsTest, TupleParameter) {
  EXPECT_LITERAL(
      RunOk(R"(HloModule m
ENTRY e {
  t = (s32[], f32[2]) parameter(0)
  ROOT g = f32[2] get-tuple-element(t), index=1
})",
            {Literal::MakeTuple({L("s32[]", "1"), L("f32[2]", "{3, 4}")})}),
      "f32[2]", "{3, 4}");
}

TEST(ArgumentsTest, UnverifiedModuleIsRejected) {
  // The root claims f32[3] for an f32[2] add: the verifier rejects it
  // before evaluation.
  std::unique_ptr<Module> m = Parse(kAddOne);
  ASSERT_NE(m, nullptr);
  m->entry_computation()->root_instruction()->mutable_shape()->set_dimensions(
      0, 3);
  Evaluator evaluator;
  absl::StatusOr<Literal> r = evaluator.Run(*m, {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
}

// ---- rng
// ----------------------------------------------------------------------

constexpr char kUniform[] = R"(HloModule m
ENTRY e {
  a = f32[] constant(2)
  b = f32[] constant(3)
  ROOT r = f32[1000] rng(a, b), distribution=rng_uniform
})";

TEST(RngTest, DeterministicPerSeedAndInRange) {
  EvaluatorOptions o1;
  o1.rng_seed = 42;
  Literal a = RunOk(kUniform, {}, o1);
  Literal b = RunOk(kUniform, {}, o1);
  EXPECT_TRUE(a == b);
  EvaluatorOptions o2;
  o2.rng_seed = 43;
  Literal c = RunOk(kUniform, {}, o2);
  EXPECT_FALSE(a == c);
  double sum = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    const double v = a.GetAsDouble({i});
    EXPECT_GE(v, 2.0);
    EXPECT_LT(v, 3.0);
    sum += v;
  }
  // The mean of 1000 U[2,3) draws is 2.5 with standard deviation
  // sqrt(1/12/1000) ~ 0.009; 0.05 is more than five sigma.
  EXPECT_NEAR(sum / 1000, 2.5, 0.05);
}

TEST(RngTest, FirstValueFollowsTheDocumentedAlgorithm) {
  // SplitMix64 from state seed=0: first output 0xE220A8397B1DCDAF;
  // u = (out >> 11) * 2^-53; value = 0 + (1 - 0) * u in f64.
  const uint64_t first = 0xE220A8397B1DCDAFull;
  const double u = static_cast<double>(first >> 11) * 0x1.0p-53;
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f64[] constant(0)
  b = f64[] constant(1)
  ROOT r = f64[1] rng(a, b), distribution=rng_uniform
})");
  EXPECT_EQ(r.GetAsDouble({0}), u);
}

TEST(RngTest, UniformIntegersCoverTheRange) {
  // s32 in [-3, 4): every value of -3..3 appears in 1000 draws, none other.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = s32[] constant(-3)
  b = s32[] constant(4)
  ROOT r = s32[1000] rng(a, b), distribution=rng_uniform
})");
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 1000; ++i) seen.insert(r.GetAsInt64({i}));
  EXPECT_EQ(seen, (std::set<int64_t>{-3, -2, -1, 0, 1, 2, 3}));
}

TEST(RngTest, NormalMoments) {
  // mu = 10, sigma = 2: the sample mean of 4000 draws is within 0.2
  // (> 6 standard errors of 2/sqrt(4000) ~ 0.03) and the sample standard
  // deviation within 0.2 of 2.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  mu = f32[] constant(10)
  sigma = f32[] constant(2)
  ROOT r = f32[4000] rng(mu, sigma), distribution=rng_normal
})");
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < 4000; ++i) {
    const double v = r.GetAsDouble({i});
    sum += v;
    sq += v * v;
  }
  const double mean = sum / 4000;
  const double sd = std::sqrt(sq / 4000 - mean * mean);
  EXPECT_NEAR(mean, 10.0, 0.2);
  EXPECT_NEAR(sd, 2.0, 0.2);
}

TEST(RngTest, HalfUniformStaysBelowUpperBound) {
  // [0, 1) in f16: values just below 1 would round up to 1 in f16; the
  // evaluator steps them down to 0.99951171875 (the largest f16 below 1).
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f16[] constant(0)
  b = f16[] constant(1)
  ROOT r = f16[5000] rng(a, b), distribution=rng_uniform
})");
  for (int64_t i = 0; i < 5000; ++i) {
    const double v = r.GetAsDouble({i});
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
  }
}

// ---- Collectives ------------------------------------------------------------

constexpr char kAllReduce[] = R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = f32[] add(x, y)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(a), replica_groups={}, to_apply=add
})";

TEST(CollectivesTest, SeedCrossReplicaSum) {
  // Seed 004: replicas hold (1.0, 2.5) and (3.0, 5.1); both get
  // (4.0, 7.6). In f32, 2.5 + 5.1f = 7.599999904632568359375 = 7.6f.
  std::unique_ptr<Module> m = Parse(kAllReduce);
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  std::vector<std::vector<Literal>> args;
  args.push_back({L("f32[2]", "{1, 2.5}")});
  args.push_back({L("f32[2]", "{3, 5.1}")});
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, args);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_LITERAL((*r)[0], "f32[2]", "{4, 7.6}");
  EXPECT_LITERAL((*r)[1], "f32[2]", "{4, 7.6}");
}

TEST(CollectivesTest, SingleReplicaIsIdentity) {
  EXPECT_LITERAL(RunOk(kAllReduce, {L("f32[2]", "{1, 2}")}), "f32[2]",
                 "{1, 2}");
}

TEST(CollectivesTest, ReplicaGroupsAndReplicaId) {
  // 4 replicas contribute replica-id + 1 in groups {0,1} and {2,3}:
  // group sums 1+2 = 3 and 3+4 = 7.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
add {
  x = u32[] parameter(0)
  y = u32[] parameter(1)
  ROOT r = u32[] add(x, y)
}
ENTRY e {
  id = u32[] replica-id()
  one = u32[] constant(1)
  v = u32[] add(id, one)
  ROOT r = u32[] all-reduce(v), replica_groups={{0,1},{2,3}}, to_apply=add
})");
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, 4, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "u32[]", "3");
  EXPECT_LITERAL((*r)[1], "u32[]", "3");
  EXPECT_LITERAL((*r)[2], "u32[]", "7");
  EXPECT_LITERAL((*r)[3], "u32[]", "7");
}

TEST(CollectivesTest, AllReduceInsideLoopMatchesByExecution) {
  // Each of 3 iterations all-reduces the loop counter over 2 replicas
  // and accumulates: sum over i=0..2 of (i + i) = 6.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  ar = s32[] all-reduce(i), replica_groups={}, to_apply=add
  acc2 = s32[] add(acc, ar)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], s32[]) tuple(i2, acc2)
}
ENTRY e {
  z = s32[] constant(0)
  init = (s32[], s32[]) tuple(z, z)
  w = (s32[], s32[]) while(init), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=1
})");
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, 2, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "s32[]", "6");
  EXPECT_LITERAL((*r)[1], "s32[]", "6");
}

TEST(CollectivesTest, CollectiveBroadcastFromEachGroupsFirstMember) {
  // 4 replicas hold 10 * (replica-id + 1); groups {2,0} and {1,3}: replicas
  // 0 and 2 get replica 2's 30, replicas 1 and 3 replica 1's 20.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
ENTRY e {
  id = u32[] replica-id()
  one = u32[] constant(1)
  ten = u32[] constant(10)
  n = u32[] add(id, one)
  v = u32[] multiply(n, ten)
  b = u32[2] broadcast(v), dimensions={}
  ROOT r = u32[2] collective-broadcast(b), replica_groups={{2,0},{1,3}}
})");
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, 4, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "u32[2]", "{30, 30}");
  EXPECT_LITERAL((*r)[1], "u32[2]", "{20, 20}");
  EXPECT_LITERAL((*r)[2], "u32[2]", "{30, 30}");
  EXPECT_LITERAL((*r)[3], "u32[2]", "{20, 20}");
  // A group naming a replica that does not run is an error, not a hang.
  std::unique_ptr<Module> bad = Parse(R"(HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT r = f32[2] collective-broadcast(p), replica_groups={{0,1,2}}
})");
  ASSERT_NE(bad, nullptr);
  absl::StatusOr<std::vector<Literal>> e =
      evaluator.RunReplicated(*bad, 2, {L("f32[2]", "{1, 2}")});
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "replica 2"))
      << e.status();
}

TEST(CollectivesTest, DivergentReplicasFailInsteadOfHanging) {
  // Only replica 0 reaches the all-reduce (through a conditional on
  // replica-id): replica 1 finishes without joining, and replica 0 gets an
  // error instead of waiting forever.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
reduce_it {
  x = s32[] parameter(0)
  ROOT r = s32[] all-reduce(x), replica_groups={}, to_apply=add
}
skip {
  x = s32[] parameter(0)
  ROOT r = s32[] copy(x)
}
ENTRY e {
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  v = s32[] constant(1)
  ROOT r = s32[] conditional(first, v, v), true_computation=reduce_it, false_computation=skip
})");
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, 2, {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "all-reduce"))
      << r.status();
}

// ---- Feeds
// --------------------------------------------------------------------

TEST(FeedsTest, InfeedAndOutfeedThroughHostQueues) {
  // infeed -> (data, token); data + 1 goes to the outfeed and is returned.
  HostFeedQueue in, out;
  in.Push(L("s32[2]", "{1, 2}"));
  in.Push(L("s32[2]", "{10, 20}"));
  EvaluatorOptions options;
  options.infeed = &in;
  options.outfeed = &out;
  constexpr char kProg[] = R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  f = (s32[2], token[]) infeed(t0)
  d = s32[2] get-tuple-element(f), index=0
  t1 = token[] get-tuple-element(f), index=1
  one = s32[] constant(1)
  ones = s32[2] broadcast(one), dimensions={}
  s = s32[2] add(d, ones)
  t2 = token[] outfeed(s, t1), outfeed_shape=s32[2]{0}
  ROOT r = s32[2] copy(s)
})";
  EXPECT_LITERAL(RunOk(kProg, {}, options), "s32[2]", "{2, 3}");
  EXPECT_LITERAL(RunOk(kProg, {}, options), "s32[2]", "{11, 21}");
  ASSERT_EQ(out.size(), 2);
  std::optional<Literal> first = out.Pop();
  ASSERT_TRUE(first.has_value());
  EXPECT_LITERAL(*first, "s32[2]", "{2, 3}");
  // The infeed queue is now empty: the next run fails.
  absl::StatusOr<Literal> r = RunHlo(kProg, {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "infeed")) << r.status();
}

TEST(FeedsTest, InfeedShapeMismatchIsAnError) {
  HostFeedQueue in;
  in.Push(L("f32[3]", "{1, 2, 3}"));
  EvaluatorOptions options;
  options.infeed = &in;
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  f = (s32[2], token[]) infeed(t0)
  ROOT d = s32[2] get-tuple-element(f), index=0
})",
                                     {}, options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
}

// ---- Custom calls
// -------------------------------------------------------------

extern "C" void PlexaEvalTestAddOne(void* out, const void** in) {
  const float* x = static_cast<const float*>(in[0]);
  float* y = static_cast<float*>(out);
  for (int i = 0; i < 3; ++i) y[i] = x[i] + 1;
}

// Seed 004's myfunc: x f32[2], y f32[2x3] -> z f32[3x3] with
// z[i][j] = x[i % 2] + y[i % 2][j] (a made-up body; z[0][0] = x[1] + y[1][0]
// as the seed writes for its first element is replaced by this rule).
extern "C" void PlexaEvalTestMyFunc(void* out, const void** in) {
  const float(&x)[2] = *static_cast<const float(*)[2]>(in[0]);
  const float(&y)[2][3] = *static_cast<const float(*)[2][3]>(in[1]);
  float(&z)[3][3] = *static_cast<float(*)[3][3]>(out);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) z[i][j] = x[i % 2] + y[i % 2][j];
  }
}

// Tuple result: out is an array of two buffer pointers (sum, product).
extern "C" void PlexaEvalTestSumProduct(void* out, const void** in) {
  void** outs = static_cast<void**>(out);
  const int32_t* a = static_cast<const int32_t*>(in[0]);
  const int32_t* b = static_cast<const int32_t*>(in[1]);
  *static_cast<int32_t*>(outs[0]) = a[0] + b[0];
  *static_cast<int32_t*>(outs[1]) = a[0] * b[0];
}

// Copies 6 floats as they lie in memory.
extern "C" void PlexaEvalTestRawCopy(void* out, const void** in) {
  std::memcpy(out, in[0], 6 * sizeof(float));
}

TEST(CustomCallTest, RegisteredTarget) {
  RegisterCustomCallTarget("plexa_eval_test_add_one", &PlexaEvalTestAddOne);
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  ROOT r = f32[3] custom-call(a), custom_call_target="plexa_eval_test_add_one"
})"),
                 "f32[3]", "{2, 3, 4}");
}

TEST(CustomCallTest, SeedMyFuncExample) {
  // Seed 004: x = {1, 2}, y = {{10,20,30},{40,50,60}}, result f32[3x3].
  // z[i][j] = x[i%2] + y[i%2][j]: row 0 = 1 + {10,20,30}, row 1 =
  // 2 + {40,50,60}, row 2 = row 0.
  RegisterCustomCallTarget("myfunc", &PlexaEvalTestMyFunc);
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[2] constant({1, 2})
  y = f32[2,3] constant({ {10, 20, 30}, {40, 50, 60} })
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
})"),
                 "f32[3,3]", "{ {11, 21, 31}, {42, 52, 62}, {11, 21, 31} }");
}

TEST(CustomCallTest, TupleResultAndResolverOption) {
  EvaluatorOptions options;
  options.custom_call_resolver =
      [](absl::string_view name) -> CustomCallTarget {
    return name == "sum_product" ? &PlexaEvalTestSumProduct : nullptr;
  };
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = s32[] constant(6)
  b = s32[] constant(7)
  ROOT t = (s32[], s32[]) custom-call(a, b), custom_call_target="sum_product", api_version=API_VERSION_ORIGINAL
})",
                    {}, options);
  EXPECT_LITERAL(r.tuple_element(0), "s32[]", "13");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "42");
}

TEST(CustomCallTest, OperandLayoutConstraints) {
  // With operand_layout_constraints the operand arrives column-major:
  // {{1,2,3},{4,5,6}} as 1 4 2 5 3 6.
  RegisterCustomCallTarget("plexa_eval_test_raw_copy", &PlexaEvalTestRawCopy);
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = f32[6]{0} custom-call(a), custom_call_target="plexa_eval_test_raw_copy", operand_layout_constraints={f32[2,3]{0,1}}
})"),
                 "f32[6]", "{1, 4, 2, 5, 3, 6}");
  // Without constraints: default row-major order.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = f32[6] custom-call(a), custom_call_target="plexa_eval_test_raw_copy"
})"),
                 "f32[6]", "{1, 2, 3, 4, 5, 6}");
}

TEST(CustomCallTest, UnresolvedTargetIsNamedInTheError) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  ROOT r = f32[3] custom-call(a), custom_call_target="no_such_target_xyz"
})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsNotFound(r.status())) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no_such_target_xyz"));
}

TEST(CustomCallTest, UnsupportedApiVersionIsAnError) {
  RegisterCustomCallTarget("plexa_eval_test_add_one", &PlexaEvalTestAddOne);
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  a = f32[3] constant({1, 2, 3})
  ROOT r = f32[3] custom-call(a), custom_call_target="plexa_eval_test_add_one", api_version=API_VERSION_TYPED_FFI
})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsUnimplemented(r.status())) << r.status();
}

TEST(CustomCallTest, DefaultResolverFallsBackToDlsym) {
  // Not registered, so the default resolver asks dlsym(RTLD_DEFAULT);
  // "malloc" is in every process (it is only resolved, never called).
  void* expected = dlsym(RTLD_DEFAULT, "malloc");
  ASSERT_NE(expected, nullptr);
  EXPECT_EQ(reinterpret_cast<void*>(DefaultCustomCallResolver("malloc")),
            expected);
  EXPECT_EQ(DefaultCustomCallResolver("no_such_symbol_plexa_xyz"), nullptr);
  // The registry comes first.
  RegisterCustomCallTarget("malloc", &PlexaEvalTestAddOne);
  EXPECT_EQ(DefaultCustomCallResolver("malloc"), &PlexaEvalTestAddOne);
  RegisterCustomCallTarget("malloc", nullptr);
}

TEST(FeedsTest, InfeedWithoutQueueIsAnError) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  t0 = token[] after-all()
  f = (s32[2], token[]) infeed(t0)
  ROOT d = s32[2] get-tuple-element(f), index=0
})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(r.status())) << r.status();
}

TEST(CollectivesTest, PartitionIdIsZero) {
  // One partition: partition-id is 0 on every replica.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = u32[] partition-id()
})");
  ASSERT_NE(m, nullptr);
  Evaluator evaluator;
  absl::StatusOr<std::vector<Literal>> r = evaluator.RunReplicated(*m, 2, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "u32[]", "0");
  EXPECT_LITERAL((*r)[1], "u32[]", "0");
}

}  // namespace
}  // namespace plexa::eval_test
