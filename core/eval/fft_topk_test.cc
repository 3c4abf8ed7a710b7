// fft and topk on the evaluator; expected values computed by hand (the DFT
// sums written out) or from the closed form of a transformed impulse.
#include <cmath>
#include <numbers>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

// X[k] = sum_j x[j] exp(-2 pi i jk/4) for x = {1, 2, 3, 4}:
// X = {10, -2+2i, -2, -2-2i}.
TEST(FftTest, ForwardAndInversePowerOfTwo) {
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[4] constant({(1, 0), (2, 0), (3, 0), (4, 0)})
  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}
})"),
                      "c64[4]", "{(10, 0), (-2, 2), (-2, 0), (-2, -2)}", 1e-6);
  // IFFT is scaled by 1/N, as numpy.fft.ifft.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[4] constant({(10, 0), (-2, 2), (-2, 0), (-2, -2)})
  ROOT f = c64[4] fft(x), fft_type=IFFT, fft_length={4}
})"),
                      "c64[4]", "{(1, 0), (2, 0), (3, 0), (4, 0)}", 1e-6);
}

// Length 3 (not a power of two): an impulse at 1 gives the powers of
// w = exp(-2 pi i/3) = -1/2 - i sqrt(3)/2.
TEST(FftTest, LengthThree) {
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c128[3] constant({(0, 0), (1, 0), (0, 0)})
  ROOT f = c128[3] fft(x), fft_type=FFT, fft_length={3}
})"),
                      "c128[3]",
                      "{(1, 0), (-0.5, -0.8660254037844386), "
                      "(-0.5, 0.8660254037844386)}",
                      1e-14);
}

// An impulse at position 1 of length n has X[k] = exp(-2 pi i k/n): checks
// every length's accuracy against the closed form (1000 = 2^3 5^3 and the
// prime 997 take Bluestein's path, 1024 the radix-2 one).
TEST(FftTest, ImpulseClosedFormAnyLength) {
  for (int n : {997, 1000, 1024}) {
    std::string x = "{(0, 0), (1, 0)";
    std::string expected = "{";
    for (int j = 2; j < n; ++j) absl::StrAppend(&x, ", (0, 0)");
    absl::StrAppend(&x, "}");
    for (int k = 0; k < n; ++k) {
      const double a = -2.0 * std::numbers::pi * k / n;
      absl::StrAppend(&expected, k ? ", " : "", "(",
                      absl::StrFormat("%.17g", std::cos(a)), ", ",
                      absl::StrFormat("%.17g", std::sin(a)), ")");
    }
    absl::StrAppend(&expected, "}");
    SCOPED_TRACE(absl::StrCat("n=", n));
    const std::string shape = absl::StrCat("c128[", n, "]");
    std::vector<Literal> args;
    args.push_back(L(shape, x));
    EXPECT_LITERAL_NEAR(
        RunOk(absl::StrCat("HloModule m\nENTRY e {\n  x = ", shape,
                           " parameter(0)\n  ROOT f = ", shape,
                           " fft(x), fft_type=FFT, "
                           "fft_length={",
                           n, "}\n}"),
              std::move(args)),
        shape, expected, 1e-12);
  }
}

TEST(FftTest, RealTransforms) {
  // rfft({1,2,3,4}) = {10, -2+2i, -2}; irfft gives the values back.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT f = c64[3] fft(x), fft_type=RFFT, fft_length={4}
})"),
                      "c64[3]", "{(10, 0), (-2, 2), (-2, 0)}", 1e-6);
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[3] constant({(10, 0), (-2, 2), (-2, 0)})
  ROOT f = f32[4] fft(x), fft_type=IRFFT, fft_length={4}
})"),
                      "f32[4]", "{1, 2, 3, 4}", 1e-6);
  // Odd length: rfft({1,2,3}) = {6, -1.5 + i sqrt(3)/2}.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c128[2] constant({(6, 0), (-1.5, 0.8660254037844386)})
  ROOT f = f64[3] fft(x), fft_type=IRFFT, fft_length={3}
})"),
                      "f64[3]", "{1, 2, 3}", 1e-14);
  // The imaginary parts of X[0] and X[n/2] cannot reach a real result.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[3] constant({(10, 7), (-2, 2), (-2, -5)})
  ROOT f = f32[4] fft(x), fft_type=IRFFT, fft_length={4}
})"),
                      "f32[4]", "{1, 2, 3, 4}", 1e-6);
}

TEST(FftTest, TwoDimensionsAndBatch) {
  // fft2({{1,2},{3,4}}) = {{10,-2},{-4,0}}; the batch of two transforms
  // each 2x2 block on its own.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[2,2,2] constant({ { {(1,0), (2,0)}, {(3,0), (4,0)} }, { {(1,0), (0,0)}, {(0,0), (0,0)} } })
  ROOT f = c64[2,2,2] fft(x), fft_type=FFT, fft_length={2,2}
})"),
                      "c64[2,2,2]",
                      "{ { {(10,0), (-2,0)}, {(-4,0), (0,0)} }, "
                      "{ {(1,0), (1,0)}, {(1,0), (1,0)} } }",
                      1e-6);
  // rfft2 of {{1,2},{3,4}} keeps the last dimension's 2/2+1 = 2 columns;
  // irfft2 inverts it.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = f64[2,2] constant({ {1, 2}, {3, 4} })
  r = c128[2,2] fft(x), fft_type=RFFT, fft_length={2,2}
  ROOT i = f64[2,2] fft(r), fft_type=IRFFT, fft_length={2,2}
})"),
                      "f64[2,2]", "{ {1, 2}, {3, 4} }", 1e-14);
}

TEST(FftTest, FftLengthShorterOrLongerThanTheOperand) {
  // fft_length 2 of a length-4 operand reads {1, 2}: {3, -1}; the rest of
  // the result (the operand's extent) is zero.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[4] constant({(1, 0), (2, 0), (3, 0), (4, 0)})
  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={2}
})"),
                      "c64[4]", "{(3, 0), (-1, 0), (0, 0), (0, 0)}", 1e-6);
  // fft_length 4 of a length-2 operand zero-pads it: {1,2,0,0} -> X[0..1]
  // = {3, 1-2i}.
  EXPECT_LITERAL_NEAR(RunOk(R"(HloModule m
ENTRY e {
  x = c64[2] constant({(1, 0), (2, 0)})
  ROOT f = c64[2] fft(x), fft_type=FFT, fft_length={4}
})"),
                      "c64[2]", "{(3, 0), (1, -2)}", 1e-6);
}

TEST(TopKTest, LargestAndSmallestWithTies) {
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f32[2,8] constant({ {3, 1, 4, 1, 5, 9, 2, 6}, {2, 2, 2, 1, 1, 1, 0, 0} })
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[2,3]", "{ {9, 6, 5}, {2, 2, 2} }");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2,3]", "{ {5, 7, 4}, {0, 1, 2} }");
  Literal s = RunOk(R"(HloModule m
ENTRY e {
  x = s32[2,8] constant({ {3, 1, 4, 1, 5, 9, 2, 6}, {2, 2, 2, 1, 1, 1, 0, 0} })
  ROOT t = (s32[2,3], s32[2,3]) topk(x), k=3, largest=false
})");
  EXPECT_LITERAL(s.tuple_element(0), "s32[2,3]", "{ {1, 1, 2}, {0, 0, 1} }");
  EXPECT_LITERAL(s.tuple_element(1), "s32[2,3]", "{ {1, 3, 6}, {6, 7, 3} }");
}

TEST(TopKTest, FloatsInTotalOrder) {
  // -nan < -inf < -0 < +0 < inf < +nan.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  x = f32[6] constant({0, nan, -inf, -nan, -0, inf})
  ROOT t = (f32[6], s32[6]) topk(x), k=6
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[6]", "{nan, inf, 0, -0, -inf, -nan}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[6]", "{1, 5, 0, 4, 2, 3}");
  Literal s = RunOk(R"(HloModule m
ENTRY e {
  x = bf16[6] constant({0, nan, -inf, -nan, -0, inf})
  ROOT t = (bf16[2], s32[2]) topk(x), k=2, largest=false
})");
  EXPECT_LITERAL(s.tuple_element(0), "bf16[2]", "{-nan, -inf}");
  EXPECT_LITERAL(s.tuple_element(1), "s32[2]", "{3, 2}");
}

TEST(TopKTest, ComplexIsRefused) {
  absl::StatusOr<Literal> r = RunHlo(R"(HloModule m
ENTRY e {
  x = c64[2] constant({(1, 0), (2, 0)})
  ROOT t = (c64[1], s32[1]) topk(x), k=1
})");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("topk"), std::string::npos) << r.status();
}

}  // namespace
}  // namespace plexa::eval_test
