#include "core/passes/algebraic_simplifier.h"

#include <cmath>
#include <vector>

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::ExpectRewrite;

TEST(AlgebraicSimplifierTest, AdditiveAndMultiplicativeIdentities) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[2], y: s32[2]) -> (f32[2], f32[2], f32[2], s32[2], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %y = s32[2] parameter(1)
      %zero = f32[] constant(0)
      %zeros = f32[2] broadcast(%zero), dimensions={}
      %one = f32[2] constant({1, 1})
      %ione = s32[2] constant({1, 1})
      %a = f32[2] add(%x, %zeros)
      %b = f32[2] add(%zeros, %x)
      %c = f32[2] subtract(%x, %zeros)
      %d = s32[2] multiply(%ione, %y)
      %e = f32[2] divide(%x, %one)
      %f = f32[2] multiply(%x, %one)
      ROOT %t = (f32[2], f32[2], f32[2], s32[2], f32[2], f32[2]) tuple(%a, %b, %c, %d, %e, %f)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2], y: s32[2]) -> (f32[2], f32[2], f32[2], s32[2], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %y = s32[2] parameter(1)
      ROOT %t = (f32[2], f32[2], f32[2], s32[2], f32[2], f32[2]) tuple(%x, %x, %x, %y, %x, %x)
    }
  )");
}

TEST(AlgebraicSimplifierTest, DoesNotRewriteTimesZeroOrMinusSelf) {
  // x * 0 is not 0 for NaN, inf or -0 inputs; x - x is not 0 for NaN and
  // inf; 0 - x is not x. None of them is rewritten.
  AlgebraicSimplifier simplifier;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> (f32[2], f32[2], f32[2]) {
      %x = f32[2] parameter(0)
      %zero = f32[2] constant({0, 0})
      %a = f32[2] multiply(%x, %zero)
      %b = f32[2] subtract(%x, %x)
      %c = f32[2] subtract(%zero, %x)
      ROOT %t = (f32[2], f32[2], f32[2]) tuple(%a, %b, %c)
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(AlgebraicSimplifierTest, NonZeroConstantIsNotAnIdentity) {
  AlgebraicSimplifier simplifier;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> f32[2] {
      %x = f32[2] parameter(0)
      %c = f32[2] constant({0, 1})
      ROOT %a = f32[2] add(%x, %c)
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(AlgebraicSimplifierTest, InvolutionsAndLogicalIdentities) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[3], p: pred[3], q: pred[3]) -> (f32[3], pred[3], pred[3], pred[3], f32[3], f32[3]) {
      %x = f32[3] parameter(0)
      %p = pred[3] parameter(1)
      %q = pred[3] parameter(2)
      %n1 = f32[3] negate(%x)
      %n2 = f32[3] negate(%n1)
      %not1 = pred[3] not(%p)
      %not2 = pred[3] not(%not1)
      %t = pred[] constant(true)
      %ts = pred[3] broadcast(%t), dimensions={}
      %f = pred[3] constant({0, 0, 0})
      %and = pred[3] and(%q, %ts)
      %or = pred[3] or(%f, %q)
      %sel_t = f32[3] select(%ts, %x, %n1)
      %sel_f = f32[3] select(%f, %n1, %x)
      ROOT %r = (f32[3], pred[3], pred[3], pred[3], f32[3], f32[3]) tuple(%n2, %not2, %and, %or, %sel_t, %sel_f)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[3], p: pred[3], q: pred[3]) -> (f32[3], pred[3], pred[3], pred[3], f32[3], f32[3]) {
      %x = f32[3] parameter(0)
      %p = pred[3] parameter(1)
      %q = pred[3] parameter(2)
      ROOT %r = (f32[3], pred[3], pred[3], pred[3], f32[3], f32[3]) tuple(%x, %p, %q, %q, %x, %x)
    }
  )");
}

TEST(AlgebraicSimplifierTest, ConvertToSameTypeAndNoOpShapeOps) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3]) {
      %x = f32[2,3] parameter(0)
      %cv = f32[2,3] convert(%x)
      %rs = f32[2,3] reshape(%x)
      %tr = f32[2,3] transpose(%x), dimensions={0,1}
      %bc = f32[2,3] broadcast(%x), dimensions={0,1}
      %sl = f32[2,3] slice(%x), slice={[0:2], [0:3]}
      %cc = f32[2,3] concatenate(%x), dimensions={0}
      %zero = f32[] constant(0)
      %pd = f32[2,3] pad(%x, %zero), padding=0_0x0_0
      %rv = f32[2,3] reverse(%x), dimensions={}
      ROOT %t = (f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3]) tuple(%cv, %rs, %tr, %bc, %sl, %cc, %pd, %rv)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3]) {
      %x = f32[2,3] parameter(0)
      ROOT %t = (f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3], f32[2,3]) tuple(%x, %x, %x, %x, %x, %x, %x, %x)
    }
  )");
}

TEST(AlgebraicSimplifierTest, ConvertToAnotherTypeStays) {
  AlgebraicSimplifier simplifier;
  const char* text = R"(
    HloModule m

    ENTRY %main (x: f32[2]) -> s32[2] {
      %x = f32[2] parameter(0)
      ROOT %c = s32[2] convert(%x)
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(AlgebraicSimplifierTest, ReshapeOfReshape) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[2,3,4]) -> f32[4,6] {
      %x = f32[2,3,4] parameter(0)
      %r1 = f32[6,4] reshape(%x)
      ROOT %r2 = f32[4,6] reshape(%r1)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3,4]) -> f32[4,6] {
      %x = f32[2,3,4] parameter(0)
      ROOT %reshape.0 = f32[4,6] reshape(%x)
    }
  )");
}

TEST(AlgebraicSimplifierTest, ReshapeAndTransposeOfBroadcastScalar) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (s: f32[]) -> (f32[6], f32[3,2]) {
      %s = f32[] parameter(0)
      %b = f32[2,3] broadcast(%s), dimensions={}
      %r = f32[6] reshape(%b)
      %t = f32[3,2] transpose(%b), dimensions={1,0}
      ROOT %out = (f32[6], f32[3,2]) tuple(%r, %t)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (s: f32[]) -> (f32[6], f32[3,2]) {
      %s = f32[] parameter(0)
      %broadcast.0 = f32[6] broadcast(%s), dimensions={}
      %broadcast.1 = f32[3,2] broadcast(%s), dimensions={}
      ROOT %out = (f32[6], f32[3,2]) tuple(%broadcast.0, %broadcast.1)
    }
  )");
}

TEST(AlgebraicSimplifierTest, TransposeOfTransposeComposes) {
  // t2[i] = t1[perm2[i]] = x[perm1[perm2[i]]]: perm1={1,2,0}, perm2={2,0,1}
  // compose to {0,1,2}: the identity, so the result is x itself. A second
  // pair composes to {2,1,0}.
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[2,3,4]) -> (f32[2,3,4], f32[4,3,2]) {
      %x = f32[2,3,4] parameter(0)
      %t1 = f32[3,4,2] transpose(%x), dimensions={1,2,0}
      %t2 = f32[2,3,4] transpose(%t1), dimensions={2,0,1}
      %t3 = f32[4,3,2] transpose(%t1), dimensions={1,0,2}
      ROOT %out = (f32[2,3,4], f32[4,3,2]) tuple(%t2, %t3)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3,4]) -> (f32[2,3,4], f32[4,3,2]) {
      %x = f32[2,3,4] parameter(0)
      %transpose.0 = f32[4,3,2] transpose(%x), dimensions={2,1,0}
      ROOT %out = (f32[2,3,4], f32[4,3,2]) tuple(%x, %transpose.0)
    }
  )");
}

TEST(AlgebraicSimplifierTest, BroadcastOfBroadcastComposes) {
  // x dim 0 -> b1 dim 1 -> b2 dim 2.
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> f32[5,2,3] {
      %x = f32[3] parameter(0)
      %b1 = f32[2,3] broadcast(%x), dimensions={1}
      ROOT %b2 = f32[5,2,3] broadcast(%b1), dimensions={1,2}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[3]) -> f32[5,2,3] {
      %x = f32[3] parameter(0)
      ROOT %broadcast.0 = f32[5,2,3] broadcast(%x), dimensions={2}
    }
  )");
}

TEST(AlgebraicSimplifierTest, SliceOfSliceComposes) {
  // Inner [1:9:2] of 10 gives elements 1,3,5,7; outer [1:4:2] of those
  // gives 3,7: start 1+1*2=3, stride 4, limit 3+(2-1)*4+1=8.
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[10,4]) -> f32[2,2] {
      %x = f32[10,4] parameter(0)
      %s1 = f32[4,3] slice(%x), slice={[1:9:2], [1:4]}
      ROOT %s2 = f32[2,2] slice(%s1), slice={[1:4:2], [0:2]}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[10,4]) -> f32[2,2] {
      %x = f32[10,4] parameter(0)
      ROOT %slice.0 = f32[2,2] slice(%x), slice={[3:8:4], [1:3:1]}
    }
  )");
}

TEST(AlgebraicSimplifierTest, ReverseOfReverse) {
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3], f32[1,3]) {
      %x = f32[2,3] parameter(0)
      %r1 = f32[2,3] reverse(%x), dimensions={0,1}
      %r2 = f32[2,3] reverse(%r1), dimensions={0,1}
      %r3 = f32[2,3] reverse(%r1), dimensions={1}
      %y = f32[1,3] slice(%x), slice={[0:1], [0:3]}
      %r4 = f32[1,3] reverse(%y), dimensions={0}
      ROOT %t = (f32[2,3], f32[2,3], f32[1,3]) tuple(%r2, %r3, %r4)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3], f32[1,3]) {
      %x = f32[2,3] parameter(0)
      %y = f32[1,3] slice(%x), slice={[0:1], [0:3]}
      %reverse.0 = f32[2,3] reverse(%x), dimensions={0}
      ROOT %t = (f32[2,3], f32[2,3], f32[1,3]) tuple(%x, %reverse.0, %y)
    }
  )");
}

TEST(AlgebraicSimplifierTest, CopyRemovedUnlessItChangesALaidOutLayout) {
  // Before layout assignment every copy goes; once layouts are assigned
  // only copies that keep the layout go.
  AlgebraicSimplifier insensitive;
  ExpectRewrite(insensitive, R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> f32[2,3] {
      %x = f32[2,3]{1,0} parameter(0)
      ROOT %c = f32[2,3]{0,1} copy(%x)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> f32[2,3] {
      ROOT %x = f32[2,3]{1,0} parameter(0)
    }
  )");
  AlgebraicSimplifier::Options options;
  options.is_layout_sensitive = true;
  AlgebraicSimplifier sensitive(options);
  ExpectRewrite(sensitive, R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3]) {
      %x = f32[2,3]{1,0} parameter(0)
      %keep = f32[2,3]{0,1} copy(%x)
      %drop = f32[2,3]{1,0} copy(%x)
      ROOT %t = (f32[2,3]{0,1}, f32[2,3]{1,0}) tuple(%keep, %drop)
    }
  )",
                R"(
    HloModule m

    ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2,3]) {
      %x = f32[2,3]{1,0} parameter(0)
      %keep = f32[2,3]{0,1} copy(%x)
      ROOT %t = (f32[2,3]{0,1}, f32[2,3]{1,0}) tuple(%keep, %x)
    }
  )");
}

TEST(AlgebraicSimplifierTest, TransposeFoldedIntoDot) {
  // lhs = transpose(a) with a f32[4,2] (contracting over a's dim 0) and
  // rhs = transpose(b) with b f32[3,4] (contracting over b's dim 1): the
  // matmul a^T b^T becomes one dot over a and b.
  AlgebraicSimplifier simplifier;
  ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (a: f32[4,2], b: f32[3,4]) -> f32[2,3] {
      %a = f32[4,2] parameter(0)
      %b = f32[3,4] parameter(1)
      %ta = f32[2,4] transpose(%a), dimensions={1,0}
      %tb = f32[4,3] transpose(%b), dimensions={1,0}
      ROOT %d = f32[2,3] dot(%ta, %tb), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    }
  )",
                R"(
    HloModule m

    ENTRY %main (a: f32[4,2], b: f32[3,4]) -> f32[2,3] {
      %a = f32[4,2] parameter(0)
      %b = f32[3,4] parameter(1)
      ROOT %dot.1 = f32[2,3] dot(%a, %b), lhs_contracting_dims={0}, rhs_contracting_dims={1}
    }
  )",
                /*changed=*/true, /*to_fixpoint=*/true);
}

TEST(AlgebraicSimplifierTest, TransposeThatReordersFreeDimsIsNotFolded) {
  // The lhs free dimensions 0,1 come from a's dimensions 1,0: folding would
  // transpose the result.
  AlgebraicSimplifier simplifier;
  const char* text = R"(
    HloModule m

    ENTRY %main (a: f32[3,2,4], b: f32[4,5]) -> f32[2,3,5] {
      %a = f32[3,2,4] parameter(0)
      %b = f32[4,5] parameter(1)
      %ta = f32[2,3,4] transpose(%a), dimensions={1,0,2}
      ROOT %d = f32[2,3,5] dot(%ta, %b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
    }
  )";
  ExpectRewrite(simplifier, text, text, /*changed=*/false);
}

TEST(AlgebraicSimplifierTest, DotCanonicalization) {
  // Batch dimension 1 of the lhs and 2 of the rhs move to the front; the
  // lhs contracting dimension goes last, the rhs one right after batch.
  AlgebraicSimplifier::Options options;
  options.canonicalize_dots = true;
  AlgebraicSimplifier simplifier(options);
  auto m = ExpectRewrite(simplifier, R"(
    HloModule m

    ENTRY %main (a: f32[4,5,2], b: f32[4,3,5]) -> f32[5,2,3] {
      %a = f32[4,5,2] parameter(0)
      %b = f32[4,3,5] parameter(1)
      ROOT %d = f32[5,2,3] dot(%a, %b), lhs_batch_dims={1}, lhs_contracting_dims={0}, rhs_batch_dims={2}, rhs_contracting_dims={0}
    }
  )",
                         R"(
    HloModule m

    ENTRY %main (a: f32[4,5,2], b: f32[4,3,5]) -> f32[5,2,3] {
      %a = f32[4,5,2] parameter(0)
      %b = f32[4,3,5] parameter(1)
      %transpose.0 = f32[5,2,4] transpose(%a), dimensions={1,2,0}
      %transpose.1 = f32[5,4,3] transpose(%b), dimensions={2,0,1}
      ROOT %dot.0 = f32[5,2,3] dot(%transpose.0, %transpose.1), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
    }
  )");
  // Canonical dots stay as they are (and the transposes are not folded
  // back into them).
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(pass_test::RunPass(simplifier, *m));
}

// Deterministic, non-trivial argument values for a module's parameters.
std::vector<Literal> MakeArgs(const Module& m) {
  std::vector<Literal> args;
  for (const Instruction* p : m.entry_computation()->parameter_instructions()) {
    Literal lit(p->shape());
    int k = 0;
    ShapeUtil::ForEachIndex(p->shape(), [&](absl::Span<const int64_t> i) {
      EXPECT_TRUE(lit.SetFromDouble(i, 0.1 * (k % 7) - 0.31 * (k % 3)).ok());
      ++k;
    });
    args.push_back(std::move(lit));
  }
  return args;
}

TEST(AlgebraicSimplifierTest, DotRewritesKeepResultsBitIdentical) {
  // Transpose folding and canonicalization change only dimension numbers
  // and operand layouts in memory: the evaluator's sums run in the same
  // order (two contracting dimensions in the second program).
  const char* programs[] = {R"(
    HloModule m

    ENTRY %main (a: f32[3,2,4], b: f32[4,3,5]) -> f32[3,2,5] {
      %a = f32[3,2,4] parameter(0)
      %b = f32[4,3,5] parameter(1)
      %tb = f32[3,4,5] transpose(%b), dimensions={1,0,2}
      ROOT %d = f32[3,2,5] dot(%a, %tb), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
    }
  )",
                            R"(
    HloModule m

    ENTRY %main (a: f32[4,3,2,6], b: f32[6,5,3,4]) -> f32[3,2,5] {
      %a = f32[4,3,2,6] parameter(0)
      %b = f32[6,5,3,4] parameter(1)
      ROOT %d = f32[3,2,5] dot(%a, %b), lhs_batch_dims={1}, lhs_contracting_dims={3,0}, rhs_batch_dims={2}, rhs_contracting_dims={0,3}
    }
  )"};
  for (const char* text : programs) {
    std::unique_ptr<Module> before = pass_test::Parse(pass_test::Dedent(text));
    ASSERT_NE(before, nullptr);
    const std::vector<Literal> args = MakeArgs(*before);
    absl::StatusOr<Literal> expected = Evaluator().Run(*before, args);
    ASSERT_TRUE(expected.ok()) << expected.status();
    for (bool canonicalize : {false, true}) {
      AlgebraicSimplifier::Options options;
      options.canonicalize_dots = canonicalize;
      AlgebraicSimplifier simplifier(options);
      std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(text));
      ASSERT_NE(m, nullptr);
      pass_test::RunToFixpoint(simplifier, *m);
      absl::StatusOr<Literal> actual = Evaluator().Run(*m, args);
      ASSERT_TRUE(actual.ok()) << actual.status();
      EXPECT_EQ(*expected, *actual) << pass_test::Print(*m);
    }
  }
}

TEST(AlgebraicSimplifierTest, SignOfZeroCaveatFollowsXla) {
  // Documented: -0 + 0 is +0, but x + 0 -> x leaves -0. XLA does the same.
  AlgebraicSimplifier simplifier;
  std::unique_ptr<Module> m = pass_test::Parse(pass_test::Dedent(R"(
    HloModule m

    ENTRY %main (x: f32[]) -> f32[] {
      %x = f32[] parameter(0)
      %zero = f32[] constant(0)
      ROOT %a = f32[] add(%x, %zero)
    }
  )"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(pass_test::RunPass(simplifier, *m));
  absl::StatusOr<Literal> r = Evaluator().Run(*m, {Literal::CreateR0(-0.0f)});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(std::signbit(r->Get<float>({})));
}

}  // namespace
}  // namespace plexa
