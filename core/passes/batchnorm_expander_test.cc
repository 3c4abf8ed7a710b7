#include "core/passes/batchnorm_expander.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/passes/dce.h"
#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(BatchNormExpanderTest, InferenceText) {
  // y = (x - mean) * (scale * rsqrt(var + eps)) + offset, per feature 1.
  BatchNormExpander expander;
  ExpectRewrite(expander, R"(
    HloModule m

    ENTRY %main (x: f32[2,3], scale: f32[3], offset: f32[3], mean: f32[3], var: f32[3]) -> f32[2,3] {
      %x = f32[2,3] parameter(0)
      %scale = f32[3] parameter(1)
      %offset = f32[3] parameter(2)
      %mean = f32[3] parameter(3)
      %var = f32[3] parameter(4)
      ROOT %bn = f32[2,3] batch-norm-inference(%x, %scale, %offset, %mean, %var), epsilon=0.001, feature_index=1
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3], scale: f32[3], offset: f32[3], mean: f32[3], var: f32[3]) -> f32[2,3] {
      %x = f32[2,3] parameter(0)
      %scale = f32[3] parameter(1)
      %offset = f32[3] parameter(2)
      %mean = f32[3] parameter(3)
      %var = f32[3] parameter(4)
      %broadcast.0 = f32[2,3] broadcast(%mean), dimensions={1}
      %subtract.0 = f32[2,3] subtract(%x, %broadcast.0)
      %constant.0 = f32[] constant(0.001)
      %broadcast.1 = f32[3] broadcast(%constant.0), dimensions={}
      %add.0 = f32[3] add(%var, %broadcast.1)
      %rsqrt.0 = f32[3] rsqrt(%add.0)
      %multiply.0 = f32[3] multiply(%scale, %rsqrt.0)
      %broadcast.2 = f32[2,3] broadcast(%multiply.0), dimensions={1}
      %multiply.1 = f32[2,3] multiply(%subtract.0, %broadcast.2)
      %broadcast.3 = f32[2,3] broadcast(%offset), dimensions={1}
      ROOT %add.1 = f32[2,3] add(%multiply.1, %broadcast.3)
    }
  )");
}

// Values in [-2, 2) from a simple generator; variances positive.
Literal Values(const Shape& shape, int seed, bool positive) {
  Literal lit(shape);
  uint32_t state = 12345u + 977u * seed;
  ShapeUtil::ForEachIndex(shape, [&](absl::Span<const int64_t> i) {
    state = state * 1664525u + 1013904223u;
    const double u = (state >> 8) / double(1 << 24);
    EXPECT_TRUE(lit.SetFromDouble(i, positive ? 0.1 + 2 * u : 4 * u - 2).ok());
  });
  return lit;
}

void ExpectClose(const Literal& expected, const Literal& actual, double tol,
                 const std::string& where) {
  ASSERT_EQ(expected.shape().IsTuple(), actual.shape().IsTuple()) << where;
  if (expected.shape().IsTuple()) {
    ASSERT_EQ(expected.tuple_element_count(), actual.tuple_element_count());
    for (int64_t i = 0; i < expected.tuple_element_count(); ++i) {
      ExpectClose(expected.tuple_element(i), actual.tuple_element(i), tol,
                  absl::StrCat(where, " element ", i));
    }
    return;
  }
  ASSERT_TRUE(ShapeUtil::Compatible(expected.shape(), actual.shape())) << where;
  ShapeUtil::ForEachIndex(expected.shape(), [&](absl::Span<const int64_t> i) {
    const double e = expected.GetAsDouble(i);
    const double a = actual.GetAsDouble(i);
    EXPECT_LE(std::fabs(e - a), tol * (1 + std::fabs(e)))
        << where << " at " << absl::StrJoin(i, ",") << ": " << e << " vs " << a;
  });
}

struct Case {
  const char* op;
  const char* type;
  double tol;
};

// Runs the expanded and the original module on the same inputs.
void CheckAgainstEvaluator(const Case& c) {
  // x is [4,3,5] with feature dimension 1.
  const std::string t = c.type;
  std::string text;
  if (std::string(c.op) == "training") {
    text = absl::StrCat(
        "HloModule m\n\nENTRY %main (x: T[4,3,5], s: T[3], o: T[3]) -> "
        "(T[4,3,5], T[3], T[3]) {\n  %x = T[4,3,5] parameter(0)\n"
        "  %s = T[3] parameter(1)\n  %o = T[3] parameter(2)\n"
        "  ROOT %bn = (T[4,3,5], T[3], T[3]) batch-norm-training(%x, %s, %o), "
        "epsilon=0.01, feature_index=1\n}\n");
  } else if (std::string(c.op) == "inference") {
    text = absl::StrCat(
        "HloModule m\n\nENTRY %main (x: T[4,3,5], s: T[3], o: T[3], m: T[3], "
        "v: T[3]) -> T[4,3,5] {\n  %x = T[4,3,5] parameter(0)\n"
        "  %s = T[3] parameter(1)\n  %o = T[3] parameter(2)\n"
        "  %m = T[3] parameter(3)\n  %v = T[3] parameter(4)\n"
        "  ROOT %bn = T[4,3,5] batch-norm-inference(%x, %s, %o, %m, %v), "
        "epsilon=0.01, feature_index=1\n}\n");
  } else {
    text = absl::StrCat(
        "HloModule m\n\nENTRY %main (x: T[4,3,5], s: T[3], m: T[3], v: T[3], "
        "dy: T[4,3,5]) -> (T[4,3,5], T[3], T[3]) {\n"
        "  %x = T[4,3,5] parameter(0)\n  %s = T[3] parameter(1)\n"
        "  %m = T[3] parameter(2)\n  %v = T[3] parameter(3)\n"
        "  %dy = T[4,3,5] parameter(4)\n"
        "  ROOT %bn = (T[4,3,5], T[3], T[3]) batch-norm-grad(%x, %s, %m, %v, "
        "%dy), epsilon=0.01, feature_index=1\n}\n");
  }
  text = absl::StrReplaceAll(text, {{"T[", t + "["}});
  std::unique_ptr<Module> before = pass_test::Parse(text);
  std::unique_ptr<Module> after = pass_test::Parse(text);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  BatchNormExpander expander;
  ASSERT_TRUE(pass_test::RunPass(expander, *after));
  for (const Computation* comp : after->computations()) {
    for (const Instruction* inst : comp->instructions()) {
      const HloOpcode op = inst->opcode();
      EXPECT_TRUE(op != HloOpcode::kBatchNormTraining &&
                  op != HloOpcode::kBatchNormInference &&
                  op != HloOpcode::kBatchNormGrad);
    }
  }
  std::vector<Literal> args;
  int seed = 0;
  for (const Instruction* p :
       before->entry_computation()->parameter_instructions()) {
    // The variance operand (named v) must be positive.
    args.push_back(Values(p->shape(), seed++, p->name() == "v"));
  }
  absl::StatusOr<Literal> expected = Evaluator().Run(*before, args);
  absl::StatusOr<Literal> actual = Evaluator().Run(*after, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ASSERT_TRUE(actual.ok()) << actual.status();
  ExpectClose(*expected, *actual, c.tol, absl::StrCat(c.op, " ", c.type));
}

TEST(BatchNormExpanderTest, MatchesTheEvaluator) {
  for (const Case& c :
       {Case{"training", "f32", 1e-5}, Case{"inference", "f32", 1e-5},
        Case{"grad", "f32", 1e-5}, Case{"training", "f64", 1e-12},
        Case{"grad", "f64", 1e-12}, Case{"training", "f16", 2e-3},
        Case{"grad", "bf16", 2e-2}}) {
    CheckAgainstEvaluator(c);
  }
}

TEST(BatchNormExpanderTest, OptionsSelectWhatIsExpanded) {
  BatchNormExpander::Options options;
  options.expand_inference = false;
  BatchNormExpander expander(options);
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[2,3], scale: f32[3], offset: f32[3], mean: f32[3], var: f32[3]) -> f32[2,3] {
      %x = f32[2,3] parameter(0)
      %scale = f32[3] parameter(1)
      %offset = f32[3] parameter(2)
      %mean = f32[3] parameter(3)
      %var = f32[3] parameter(4)
      ROOT %bn = f32[2,3] batch-norm-inference(%x, %scale, %offset, %mean, %var), epsilon=0.001, feature_index=1
    }
  )";
  ExpectRewrite(expander, text, text, /*changed=*/false);
}

}  // namespace
}  // namespace plexa
