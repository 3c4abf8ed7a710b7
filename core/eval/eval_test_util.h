// Helpers for the evaluator tests: programs are HLO text; inputs and
// expected values are written as HLO literal text and checked exactly
// (bitwise, NaN payloads included) unless a test asks for a tolerance.
#ifndef PLEXA_CORE_EVAL_EVAL_TEST_UTIL_H_
#define PLEXA_CORE_EVAL_EVAL_TEST_UTIL_H_

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {

// A literal from its shape and value text: L("f32[2]", "{1, 2}").
inline Literal L(absl::string_view shape_text, absl::string_view values) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  EXPECT_TRUE(shape.ok()) << shape.status();
  if (!shape.ok()) return Literal();
  absl::StatusOr<Literal> lit = ParseLiteral(values, *shape);
  EXPECT_TRUE(lit.ok()) << lit.status() << " for " << values;
  if (!lit.ok()) return Literal();
  return std::move(lit).value();
}

inline std::unique_ptr<Module> Parse(absl::string_view hlo) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << hlo;
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

inline absl::StatusOr<Literal> RunHlo(absl::string_view hlo,
                                      std::vector<Literal> args = {},
                                      EvaluatorOptions options = {}) {
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return absl::InvalidArgumentError("parse failed");
  Evaluator evaluator(std::move(options));
  return evaluator.Run(*m, args);
}

// Runs and expects success.
inline Literal RunOk(absl::string_view hlo, std::vector<Literal> args = {},
                     EvaluatorOptions options = {}) {
  absl::StatusOr<Literal> r = RunHlo(hlo, std::move(args), std::move(options));
  EXPECT_TRUE(r.ok()) << r.status() << "\n" << hlo;
  if (!r.ok()) return Literal();
  return std::move(r).value();
}

// Exact comparison (bitwise for floats).
#define EXPECT_LITERAL(actual, shape_text, values_text) \
  do {                                                  \
    const ::plexa::Literal _expected =                  \
        ::plexa::eval_test::L(shape_text, values_text); \
    const ::plexa::Literal& _actual = (actual);         \
    EXPECT_TRUE(_actual == _expected)                   \
        << "actual:   " << _actual.ToString()           \
        << "\nexpected: " << _expected.ToString();      \
  } while (0)

// Element-wise comparison with a relative tolerance (for transcendental
// functions, whose last bits depend on the libm).
inline void ExpectNear(const Literal& actual, const Literal& expected,
                       double rel_tol) {
  ASSERT_TRUE(Shape::Equal().IgnoreLayout()(actual.shape(), expected.shape()))
      << actual.shape().ToString() << " vs " << expected.shape().ToString();
  ShapeUtil::ForEachIndex(expected.shape(), [&](absl::Span<const int64_t> i) {
    const std::complex<double> a = actual.GetAsComplex(i);
    const std::complex<double> e = expected.GetAsComplex(i);
    if (std::isnan(e.real()) || std::isnan(e.imag())) {
      EXPECT_TRUE(std::isnan(a.real()) || std::isnan(a.imag()));
      return;
    }
    if (std::isinf(e.real())) {
      EXPECT_EQ(a.real(), e.real());
      return;
    }
    const double tol = rel_tol * std::max(1.0, std::abs(e));
    EXPECT_NEAR(a.real(), e.real(), tol) << "at linear position";
    EXPECT_NEAR(a.imag(), e.imag(), tol);
  });
}

#define EXPECT_LITERAL_NEAR(actual, shape_text, values_text, tol) \
  ::plexa::eval_test::ExpectNear(                                 \
      (actual), ::plexa::eval_test::L(shape_text, values_text), (tol))

}  // namespace plexa::eval_test

#endif  // PLEXA_CORE_EVAL_EVAL_TEST_UTIL_H_
