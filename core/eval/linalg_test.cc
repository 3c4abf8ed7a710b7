// triangular-solve, cholesky and the batch-norm family; expected values
// computed by hand.
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

TEST(TriangularSolveTest, LeftLowerNoTranspose) {
  // L = {{2, 0}, {3, 4}} (the 99 above the diagonal is never read).
  // L x = {4, 10}: x0 = 4/2 = 2, x1 = (10 - 3*2)/4 = 1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {2, 99}, {3, 4} })
  b = f32[2,1] constant({ {4}, {10} })
  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})"),
                 "f32[2,1]", "{ {2}, {1} }");
}

TEST(TriangularSolveTest, LeftLowerTranspose) {
  // L^T = {{2, 3}, {0, 4}}; L^T x = {8, 8}: x1 = 2, x0 = (8 - 3*2)/2 = 1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {2, 99}, {3, 4} })
  b = f32[2,1] constant({ {8}, {8} })
  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=TRANSPOSE
})"),
                 "f32[2,1]", "{ {1}, {2} }");
}

TEST(TriangularSolveTest, UnitDiagonal) {
  // The diagonal (7, 9) is taken as 1: {{1,0},{3,1}} x = {1, 5}:
  // x0 = 1, x1 = 5 - 3 = 2.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f64[2,2] constant({ {7, 0}, {3, 9} })
  b = f64[2,1] constant({ {1}, {5} })
  ROOT x = f64[2,1] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE
})"),
                 "f64[2,1]", "{ {1}, {2} }");
}

TEST(TriangularSolveTest, RightSideUpper) {
  // x U = b with U = {{2, 1}, {0, 4}} (the -5 below is ignored):
  // [x0, x1] U = [2 x0, x0 + 4 x1] = [2, 9] -> x = [1, 2].
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {2, 1}, {-5, 4} })
  b = f32[1,2] constant({ {2, 9} })
  ROOT x = f32[1,2] triangular-solve(a, b), left_side=false, lower=false, transpose_a=NO_TRANSPOSE
})"),
                 "f32[1,2]", "{ {1, 2} }");
  // Right side with a transposed lower matrix: x L^T = b,
  // L = {{1, 0}, {2, 1}}, L^T = {{1, 2}, {0, 1}}: [x0, 2 x0 + x1] = [3, 7]
  // -> x = [3, 1].
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {1, 0}, {2, 1} })
  b = f32[1,2] constant({ {3, 7} })
  ROOT x = f32[1,2] triangular-solve(a, b), left_side=false, lower=true, transpose_a=TRANSPOSE
})"),
                 "f32[1,2]", "{ {3, 1} }");
}

TEST(TriangularSolveTest, ComplexAdjointAndBatch) {
  // A lower = {{1+i, 0}, {2, 1}}; adjoint = {{1-i, 2}, {0, 1}}.
  // For x = {1, 1}: {(1-i) + 2, 1} = {3-i, 1}, so b = {3-i, 1} gives x.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  a = c64[2,2] constant({ {(1, 1), (0, 0)}, {(2, 0), (1, 0)} })
  b = c64[2,1] constant({ {(3, -1)}, {(1, 0)} })
  ROOT x = c64[2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=ADJOINT
})"),
                      "c64[2,1]", "{ {(1, 0)}, {(1, 0)} }", 1e-6);
  // Two independent systems: 2x = 6 and 4x = 2.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,1,1] constant({ { {2} }, { {4} } })
  b = f32[2,1,1] constant({ { {6} }, { {2} } })
  ROOT x = f32[2,1,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})"),
                 "f32[2,1,1]", "{ { {3} }, { {0.5} } }");
}

TEST(CholeskyTest, LowerAndUpper) {
  // A = {{4, 2}, {2, 3}} = L L^T with L = {{2, 0}, {1, sqrt(2)}}; the
  // other triangle of the result is zero. The 99 in the unread triangle of
  // the input does not matter.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  a = f64[2,2] constant({ {4, 99}, {2, 3} })
  ROOT l = f64[2,2] cholesky(a), lower=true
})"),
                      "f64[2,2]", "{ {2, 0}, {1, 1.4142135623730951} }", 1e-15);
  // Upper: A = U^T U with U = L^T.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {4, 2}, {-7, 3} })
  ROOT u = f32[2,2] cholesky(a), lower=false
})"),
                      "f32[2,2]", "{ {2, 1}, {0, 1.4142135623730951} }", 1e-6);
}

TEST(CholeskyTest, NotPositiveDefiniteGivesNaN) {
  // {{1, 2}, {2, 1}}: the second pivot is 1 - 2^2 = -3 < 0 -> all NaN.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,2] constant({ {1, 2}, {2, 1} })
  ROOT l = f32[2,2] cholesky(a), lower=true
})");
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_TRUE(std::isnan(r.GetAsDouble({i, j})));
  }
}

TEST(BatchNormTest, TrainingUsesBiasedVariance) {
  // Features in dimension 1. x = {{1, 2}, {3, 6}}:
  //   feature 0: {1, 3}, mean 2, var ((-1)^2 + 1^2)/2 = 1 (biased);
  //   feature 1: {2, 6}, mean 4, var (4 + 4)/2 = 4.
  // scale {1, 2}, offset {0, 10}, epsilon 0:
  //   y = (x - mean)/sqrt(var) * scale + offset
  //     = {{-1, (2-4)/2*2+10 = 8}, {1, (6-4)/2*2+10 = 12}}.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f32[2,2] constant({ {1, 2}, {3, 6} })
  s = f32[2] constant({1, 2})
  o = f32[2] constant({0, 10})
  ROOT t = (f32[2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[2,2]", "{ {-1, 8}, {1, 12} }");
  EXPECT_LITERAL(r.tuple_element(1), "f32[2]", "{2, 4}");
  EXPECT_LITERAL(r.tuple_element(2), "f32[2]", "{1, 4}");
}

TEST(BatchNormTest, TrainingWithEpsilon) {
  // One feature {1, 3}: mean 2, var 1; epsilon 3 -> sqrt(1 + 3) = 2:
  // y = {-0.5, 0.5}.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f32[2,1] constant({ {1}, {3} })
  s = f32[1] constant({1})
  o = f32[1] constant({0})
  ROOT t = (f32[2,1], f32[1], f32[1]) batch-norm-training(x, s, o), epsilon=3, feature_index=1
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[2,1]", "{ {-0.5}, {0.5} }");
  EXPECT_LITERAL(r.tuple_element(2), "f32[1]", "{1}");
}

TEST(BatchNormTest, Inference) {
  // Same numbers as the training test, with the statistics given.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  x = f32[2,2] constant({ {1, 2}, {3, 6} })
  s = f32[2] constant({1, 2})
  o = f32[2] constant({0, 10})
  m = f32[2] constant({2, 4})
  v = f32[2] constant({1, 4})
  ROOT y = f32[2,2] batch-norm-inference(x, s, o, m, v), epsilon=0, feature_index=1
})"),
                 "f32[2,2]", "{ {-1, 8}, {1, 12} }");
}

TEST(BatchNormTest, GradUsesTheRealGradient) {
  // One feature, x = {1, 1, 3, 3}: mean 2, var 1, x^ = {-1, -1, 1, 1};
  // scale 2, dy = {1, 2, 3, 6}, m = 4:
  //   grad_offset = sum dy = 12
  //   grad_scale  = sum dy x^ = -1 - 2 + 3 + 6 = 6
  //   grad_x = 2/1 * (dy - 12/4 - x^ * 6/4)
  //          = 2 * {1-3+1.5, 2-3+1.5, 3-3-1.5, 6-3-1.5} = {-1, 1, -3, 3}.
  // (Seed 004's formula dy * scale * sqrt(var + eps) would give
  // {2, 4, 6, 12}: it is wrong, SEMANTICS.md.)
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f32[4,1] constant({ {1}, {1}, {3}, {3} })
  s = f32[1] constant({2})
  m = f32[1] constant({2})
  v = f32[1] constant({1})
  dy = f32[4,1] constant({ {1}, {2}, {3}, {6} })
  ROOT t = (f32[4,1], f32[1], f32[1]) batch-norm-grad(x, s, m, v, dy), epsilon=0, feature_index=1
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[4,1]", "{ {-1}, {1}, {-3}, {3} }");
  EXPECT_LITERAL(r.tuple_element(1), "f32[1]", "{6}");
  EXPECT_LITERAL(r.tuple_element(2), "f32[1]", "{12}");
}

TEST(BatchNormTest, HalfPrecisionRoundsOnce) {
  // f16 operand {1, 3} (one feature): mean 2, var 1, y = {-1, 1}, all
  // exact in f16.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f16[2,1] constant({ {1}, {3} })
  s = f16[1] constant({1})
  o = f16[1] constant({0})
  ROOT t = (f16[2,1], f16[1], f16[1]) batch-norm-training(x, s, o), epsilon=0, feature_index=1
})");
  EXPECT_LITERAL(r.tuple_element(0), "f16[2,1]", "{ {-1}, {1} }");
  EXPECT_LITERAL(r.tuple_element(1), "f16[1]", "{2}");
}

TEST(TriangularSolveTest, EveryOptionCombinationSatisfiesItsEquation) {
  // For all 24 combinations of left_side, lower, unit_diagonal and
  // transpose_a, the solution X must satisfy op(A) X = B (left) or
  // X op(A) = B (right), where op(A) is built here by hand: only the
  // triangle named by `lower` of A, a unit diagonal if asked, then
  // transposed (ADJOINT = TRANSPOSE for real A).
  const double a[3][3] = {{2, 0.5, -1}, {1, 3, 0.25}, {-0.5, 2, 4}};
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (bool unit : {true, false}) {
        for (const char* trans : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          SCOPED_TRACE(absl::StrCat("left=", left, " lower=", lower,
                                    " unit=", unit, " ", trans));
          double t[3][3];
          for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
              double v = (lower ? j <= i : j >= i) ? a[i][j] : 0.0;
              if (i == j && unit) v = 1.0;
              if (std::string(trans) == "NO_TRANSPOSE") {
                t[i][j] = v;
              } else {
                t[j][i] = v;
              }
            }
          }
          const int rows = left ? 3 : 2;
          const int cols = left ? 2 : 3;
          const std::string b_shape =
              absl::StrCat("f64[", rows, ",", cols, "]");
          const std::string b_text =
              left ? "{ {1, 2}, {3, 4}, {5, 6} }" : "{ {1, 2, 3}, {4, 5, 6} }";
          const std::string prog = absl::StrCat(
              "HloModule m\nENTRY e {\n"
              "  a = f64[3,3] constant({ {2, 0.5, -1}, {1, 3, 0.25}, "
              "{-0.5, 2, 4} })\n  b = ",
              b_shape, " constant(", b_text, ")\n  ROOT x = ", b_shape,
              " triangular-solve(a, b), left_side=", left ? "true" : "false",
              ", lower=", lower ? "true" : "false",
              ", unit_diagonal=", unit ? "true" : "false",
              ", transpose_a=", trans, "\n}");
          Literal x = RunOk(prog);
          Literal b = L(b_shape, b_text);
          for (int64_t i = 0; i < rows; ++i) {
            for (int64_t j = 0; j < cols; ++j) {
              double sum = 0;
              for (int64_t k = 0; k < 3; ++k) {
                sum += left ? t[i][k] * x.GetAsDouble({k, j})
                            : x.GetAsDouble({i, k}) * t[k][j];
              }
              EXPECT_NEAR(sum, b.GetAsDouble({i, j}), 1e-12);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace plexa::eval_test
