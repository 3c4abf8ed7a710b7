// Tests of the suite's own machinery: the case-file reader and the
// comparison. They show that a wrong result, a malformed case or a missing
// value makes a conformance test fail.
#include <cmath>
#include <limits>
#include <string>

#include "absl/strings/match.h"
#include "core/shape/shape_util.h"
#include "gtest/gtest.h"
#include "tools/conformance/case_file.h"
#include "tools/conformance/compare.h"

namespace plexa {
namespace {

Literal Typed(absl::string_view text) {
  absl::StatusOr<Literal> l = ParseTypedLiteral(text);
  EXPECT_TRUE(l.ok()) << text << ": " << l.status();
  return l.ok() ? *std::move(l) : Literal();
}

TEST(TypedLiteral, ArrayScalarAndLayout) {
  Literal a = Typed("f32[2,3]{0,1} { {1, 2, 3}, {4, 5, 6} }");
  ASSERT_TRUE(a.shape().IsArray());
  EXPECT_EQ(a.shape().ToString(), "f32[2,3]{0,1}");
  // The text is logical row-major order, whatever the layout.
  EXPECT_EQ(a.GetAsDouble({0, 2}), 3);
  EXPECT_EQ(a.GetAsDouble({1, 0}), 4);
  Literal s = Typed("s32[] -7");
  EXPECT_EQ(s.GetAsInt64({}), -7);
  Literal z = Typed("f32[2,0] { {}, {} }");
  EXPECT_EQ(ShapeUtil::ElementsIn(z.shape()), 0);
  Literal c = Typed("c64[2] {(1, 2), (-0.5, 0)}");
  EXPECT_EQ(c.GetAsComplex({0}), std::complex<double>(1, 2));
}

TEST(TypedLiteral, TuplesAndTokens) {
  Literal t = Typed("( f32[2] {1, 2}, ( s32[] 3, token[] ), pred[] true )");
  ASSERT_TRUE(t.shape().IsTuple());
  ASSERT_EQ(t.tuple_element_count(), 3);
  EXPECT_EQ(t.tuple_element(0).GetAsDouble({1}), 2);
  ASSERT_EQ(t.tuple_element(1).tuple_element_count(), 2);
  EXPECT_EQ(t.tuple_element(1).tuple_element(0).GetAsInt64({}), 3);
  EXPECT_TRUE(t.tuple_element(1).tuple_element(1).shape().IsToken());
  Literal empty = Typed("( )");
  EXPECT_TRUE(empty.shape().IsTuple());
  EXPECT_EQ(empty.tuple_element_count(), 0);
}

TEST(TypedLiteral, Errors) {
  EXPECT_FALSE(ParseTypedLiteral("f32[2] {1, 2, 3}").ok());
  EXPECT_FALSE(ParseTypedLiteral("f32[2]").ok());
  EXPECT_FALSE(ParseTypedLiteral("q32[2] {1, 2}").ok());
  EXPECT_FALSE(ParseTypedLiteral("( f32[] 1, s32[] 2").ok());
  EXPECT_FALSE(ParseTypedLiteral("f32[] 1 junk").ok());
  EXPECT_FALSE(ParseTypedLiteral("(f32[], s32[]) (1, 2)").ok());
}

const char kModule[] =
    "HloModule m\n\nENTRY %main (p0: f32[2]) -> f32[2] {\n"
    "  ROOT %p0 = f32[2] parameter(0)\n}\n";

absl::StatusOr<ConformanceCase> Parse(const std::string& header) {
  return ParseCaseFile(header + kModule, "g/c", "g/c.hlo");
}

TEST(CaseFile, ParsesAllKeys) {
  absl::StatusOr<ConformanceCase> c = Parse(
      "// source: hand\n// note: a note\n"
      "// input: f32[2] {1, 2}\n// expect: f32[2] {1, 2}\n"
      "// tolerance: rtol=1e-5 atol=1e-6 ulps=2 bits\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->source, "hand");
  ASSERT_EQ(c->notes.size(), 1u);
  EXPECT_EQ(c->replica_count(), 1);
  ASSERT_EQ(c->inputs[0].size(), 1u);
  ASSERT_EQ(c->expected.size(), 1u);
  EXPECT_DOUBLE_EQ(c->tolerance.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(c->tolerance.atol, 1e-6);
  EXPECT_EQ(c->tolerance.ulps, 2);
  EXPECT_TRUE(c->tolerance.bits);
  EXPECT_FALSE(c->uses_feeds);
}

TEST(CaseFile, Replicas) {
  absl::StatusOr<ConformanceCase> c = Parse(
      "// source: hand\n// replicas: 2\n"
      "// replica 0 input: f32[2] {1, 2}\n// replica 1 input: f32[2] {3, 4}\n"
      "// replica 0 expect: f32[2] {1, 2}\n"
      "// replica 1 expect: f32[2] {3, 4}\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->replica_count(), 2);
  EXPECT_EQ(c->inputs[1][0].GetAsDouble({0}), 3);
  EXPECT_EQ(c->expected[1].GetAsDouble({1}), 4);
  absl::StatusOr<ConformanceCase> shared = Parse(
      "// source: hand\n// replicas: 2\n// replica 0 input: f32[2] {1, 2}\n"
      "// replica 1 input: f32[2] {3, 4}\n// expect: f32[2] {4, 6}\n");
  ASSERT_TRUE(shared.ok()) << shared.status();
  ASSERT_EQ(shared->expected.size(), 2u);
}

TEST(CaseFile, ChecksAndFeeds) {
  absl::StatusOr<ConformanceCase> c = Parse(
      "// source: hand\n// check: f32[2] range [0, 1)\n"
      "// check: f32[2] moments mean=0.5 std=0.25 tol=0.1\n");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->checks.size(), 2u);
  EXPECT_EQ(c->checks[0].kind, ValueCheck::Kind::kRange);
  EXPECT_TRUE(c->checks[0].lo_inclusive);
  EXPECT_FALSE(c->checks[0].hi_inclusive);
  EXPECT_EQ(c->checks[1].kind, ValueCheck::Kind::kMoments);
  absl::StatusOr<ConformanceCase> f = Parse(
      "// source: hand\n// infeed: f32[2] {1, 2}\n"
      "// outfeed: s32[] 3\n// expect: f32[2] {1, 2}\n");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->uses_feeds);
  EXPECT_EQ(f->infeed.size(), 1u);
  EXPECT_EQ(f->outfeed.size(), 1u);
}

TEST(CaseFile, Errors) {
  const char* bad[] = {
      "// input: f32[2] {1, 2}\n// expect: f32[2] {1, 2}\n",  // no source
      "// source: hand\n// input: f32[2] {1, 2}\n",           // no expect
      "// source: hand\n// expext: f32[2] {1, 2}\n",          // typo
      "// source: hand\n// expect: f32[2] {1, 2}\n// expect: f32[2] {1, 2}\n",
      "// source: hand\n// expect: f32[2] {1, 2}\n// tolerance: rtol=x\n",
      "// source: hand\n// expect: f32[2] {1, 2}\n// tolerance: fuzzy\n",
      "// source: hand\n// replica 0 input: f32[2] {1, 2}\n"
      "// expect: f32[2] {1, 2}\n",  // replica line without replicas
      "// source: hand\n// replicas: 2\n// replica 2 input: f32[2] {1, 2}\n"
      "// expect: f32[2] {1, 2}\n",  // replica out of range
      "// source: hand\n// replicas: 2\n// replica 0 expect: f32[2] {1, 2}\n",
      "// source: hand\n// check: f32[2] between 0 1\n",
      "// source: hand\n// check: f32[2] moments mean=0\n",
      "// source: hand\n// expect: f32[2] {1, 2}\n// this is prose\n",
  };
  for (const char* header : bad) {
    EXPECT_FALSE(Parse(header).ok()) << header;
  }
}

Tolerance Exact() { return Tolerance(); }

TEST(Compare, ExactValues) {
  EXPECT_EQ(CompareLiterals(Typed("s32[3] {1, 2, 3}"),
                            Typed("s32[3] {1, 2, 3}"), Exact()),
            "");
  const std::string m = CompareLiterals(Typed("s32[3] {1, 2, 3}"),
                                        Typed("s32[3] {1, 5, 7}"), Exact());
  EXPECT_TRUE(absl::StrContains(m, "[1]")) << m;
  EXPECT_TRUE(absl::StrContains(m, "2 of 3")) << m;
  EXPECT_NE(CompareLiterals(Typed("u64[1] {18446744073709551615}"),
                            Typed("u64[1] {18446744073709551614}"), Exact()),
            "");
  EXPECT_NE(CompareLiterals(Typed("pred[2] {true, false}"),
                            Typed("pred[2] {true, true}"), Exact()),
            "");
}

TEST(Compare, ShapesIgnoreLayoutOnly) {
  EXPECT_EQ(CompareLiterals(Typed("f32[2,2]{0,1} { {1, 2}, {3, 4} }"),
                            Typed("f32[2,2]{1,0} { {1, 2}, {3, 4} }"), Exact()),
            "");
  EXPECT_NE(CompareLiterals(Typed("f32[2,2] { {1, 2}, {3, 4} }"),
                            Typed("f32[4] {1, 2, 3, 4}"), Exact()),
            "");
  EXPECT_NE(
      CompareLiterals(Typed("f32[2] {1, 2}"), Typed("f64[2] {1, 2}"), Exact()),
      "");
  EXPECT_NE(CompareLiterals(Typed("( f32[2] {1, 2} )"),
                            Typed("( f32[2] {1, 2}, s32[] 1 )"), Exact()),
            "");
  EXPECT_NE(CompareLiterals(Typed("( f32[2] {1, 2}, s32[] 1 )"),
                            Typed("( f32[2] {1, 2}, s32[] 2 )"), Exact()),
            "");
  EXPECT_EQ(
      CompareLiterals(Typed("( token[] )"), Typed("( token[] )"), Exact()), "");
  EXPECT_NE(
      CompareLiterals(Typed("( token[] )"), Typed("( s32[] 1 )"), Exact()), "");
}

TEST(Compare, FloatSpecials) {
  EXPECT_EQ(CompareLiterals(Typed("f32[3] {nan, inf, -0}"),
                            Typed("f32[3] {-nan, inf, 0}"), Exact()),
            "");
  EXPECT_NE(
      CompareLiterals(Typed("f32[1] {nan}"), Typed("f32[1] {1}"), Exact()), "");
  EXPECT_NE(
      CompareLiterals(Typed("f32[1] {1}"), Typed("f32[1] {nan}"), Exact()), "");
  EXPECT_NE(
      CompareLiterals(Typed("f32[1] {inf}"), Typed("f32[1] {-inf}"), Exact()),
      "");
  Tolerance loose;
  loose.rtol = 1;
  loose.atol = 1e30;
  EXPECT_NE(
      CompareLiterals(Typed("f32[1] {inf}"), Typed("f32[1] {3e38}"), loose),
      "");
  Tolerance bits;
  bits.bits = true;
  EXPECT_NE(CompareLiterals(Typed("f32[1] {-0}"), Typed("f32[1] {0}"), bits),
            "");
  EXPECT_EQ(
      CompareLiterals(Typed("f32[1] {nan}"), Typed("f32[1] {-nan}"), bits), "");
}

TEST(Compare, Tolerances) {
  Tolerance rel;
  rel.rtol = 1e-5;
  EXPECT_EQ(
      CompareLiterals(Typed("f32[1] {100}"), Typed("f32[1] {100.0005}"), rel),
      "");
  EXPECT_NE(
      CompareLiterals(Typed("f32[1] {100}"), Typed("f32[1] {100.01}"), rel),
      "");
  Tolerance abs;
  abs.atol = 1e-6;
  EXPECT_EQ(CompareLiterals(Typed("f32[1] {0}"), Typed("f32[1] {-5e-7}"), abs),
            "");
  EXPECT_NE(CompareLiterals(Typed("f32[1] {0}"), Typed("f32[1] {2e-6}"), abs),
            "");
  Tolerance ulp;
  ulp.ulps = 1;
  // bf16 values next to each other near 1: 1 and 1.0078125.
  EXPECT_EQ(
      CompareLiterals(Typed("bf16[1] {1}"), Typed("bf16[1] {1.0078125}"), ulp),
      "");
  EXPECT_NE(
      CompareLiterals(Typed("bf16[1] {1}"), Typed("bf16[1] {1.015625}"), ulp),
      "");
  // f16 across zero: the smallest subnormals on both sides are 2 ulps apart.
  EXPECT_NE(CompareLiterals(Typed("f16[1] {5.960464477539063e-08}"),
                            Typed("f16[1] {-5.960464477539063e-08}"), ulp),
            "");
  EXPECT_EQ(CompareLiterals(Typed("c64[1] {(1, 2)}"),
                            Typed("c64[1] {(1.000005, 2)}"), rel),
            "");
  EXPECT_NE(
      CompareLiterals(Typed("c64[1] {(1, 2)}"), Typed("c64[1] {(1, 3)}"), rel),
      "");
}

ValueCheck Check(absl::string_view header_value) {
  absl::StatusOr<ConformanceCase> c =
      Parse(std::string("// source: hand\n// check: ") +
            std::string(header_value) + "\n");
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? c->checks[0] : ValueCheck();
}

TEST(Compare, Checks) {
  ValueCheck range = Check("f32[3] range [0, 1)");
  EXPECT_EQ(CheckLiteral(range, Typed("f32[3] {0, 0.5, 0.99}")), "");
  EXPECT_NE(CheckLiteral(range, Typed("f32[3] {0, 0.5, 1}")), "");
  EXPECT_NE(CheckLiteral(range, Typed("f32[3] {-0.1, 0.5, 0.9}")), "");
  EXPECT_NE(CheckLiteral(range, Typed("f32[3] {nan, 0.5, 0.9}")), "");
  EXPECT_NE(CheckLiteral(range, Typed("f32[2] {0, 0.5}")), "");
  EXPECT_NE(CheckLiteral(range, Typed("s32[3] {0, 0, 0}")), "");
  ValueCheck moments = Check("f32[4] moments mean=0 std=1 tol=0.01");
  EXPECT_EQ(CheckLiteral(moments, Typed("f32[4] {1, -1, 1, -1}")), "");
  EXPECT_NE(CheckLiteral(moments, Typed("f32[4] {2, -2, 2, -2}")), "");
  EXPECT_NE(CheckLiteral(moments, Typed("f32[4] {2, 0, 2, 0}")), "");
}

}  // namespace
}  // namespace plexa
