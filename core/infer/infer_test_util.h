// Test helpers for shape inference and the verifier: a tiny shape reader
// ("f32[2,<=3]", "(f32[], s32[2])", "token[]") so expected shapes are
// written as HLO text, and status matchers.
#ifndef PLEXA_CORE_INFER_INFER_TEST_UTIL_H_
#define PLEXA_CORE_INFER_INFER_TEST_UTIL_H_

#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape/shape.h"
#include "gtest/gtest.h"

namespace plexa::testing_util {

namespace detail {

inline Shape ReadShape(absl::string_view text, size_t* pos) {
  auto skip = [&] {
    while (*pos < text.size() && text[*pos] == ' ') ++*pos;
  };
  skip();
  if (*pos < text.size() && text[*pos] == '(') {
    ++*pos;
    std::vector<Shape> parts;
    skip();
    while (*pos < text.size() && text[*pos] != ')') {
      parts.push_back(ReadShape(text, pos));
      skip();
      if (*pos < text.size() && text[*pos] == ',') ++*pos;
      skip();
    }
    ++*pos;  // ')'
    return Shape(std::move(parts));
  }
  size_t start = *pos;
  while (*pos < text.size() && std::isalnum(text[*pos])) ++*pos;
  absl::StatusOr<PrimitiveType> type =
      primitive_util::FromName(text.substr(start, *pos - start));
  if (!type.ok()) {
    ADD_FAILURE() << "bad element type in test shape '" << text << "'";
    return Shape();
  }
  Shape s(*type, {});
  ++*pos;  // '['
  while (*pos < text.size() && text[*pos] != ']') {
    bool dynamic = false;
    if (text.substr(*pos, 2) == "<=") {
      dynamic = true;
      *pos += 2;
    }
    int64_t v = 0;
    bool neg = false;
    if (text[*pos] == '-') {
      neg = true;
      ++*pos;
    }
    while (*pos < text.size() && std::isdigit(text[*pos])) {
      v = v * 10 + (text[*pos] - '0');
      ++*pos;
    }
    s.add_dimension(neg ? -v : v, dynamic);
    if (text[*pos] == ',') ++*pos;
  }
  ++*pos;  // ']'
  return s;
}

}  // namespace detail

// "f32[2,3]" -> an array shape without a layout.
inline Shape S(absl::string_view text) {
  size_t pos = 0;
  Shape s = detail::ReadShape(text, &pos);
  if (pos != text.size()) ADD_FAILURE() << "trailing text in '" << text << "'";
  return s;
}

// A program shape "(params) -> result" from shape texts.
inline ProgramShape PS(std::initializer_list<const char*> params,
                       const char* result) {
  ProgramShape p;
  for (const char* t : params) p.parameters.push_back(S(t));
  p.result = S(result);
  return p;
}

// The binary add reducer over one element type: (T[], T[]) -> T[].
inline ProgramShape Reducer(const char* scalar) {
  return PS({scalar, scalar}, scalar);
}

inline const absl::Status& StatusOf(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace plexa::testing_util

// Checks that `expr` (a StatusOr<Shape>) succeeded with exactly the shape
// `text` (no layout).
#define EXPECT_SHAPE(expr, text)                                \
  do {                                                          \
    auto _r = (expr);                                           \
    ASSERT_TRUE(_r.ok()) << _r.status();                        \
    EXPECT_EQ(*_r, ::plexa::testing_util::S(text))              \
        << "got " << _r->ToString() << ", expected " << (text); \
  } while (0)

// Checks that `expr` failed with InvalidArgument and a message containing
// each of the given strings (shapes in HLO syntax, the op name, ...).
#define EXPECT_INVALID(expr, ...)                                              \
  do {                                                                         \
    auto _r0 = (expr);                                                         \
    ASSERT_FALSE(_r0.ok()) << "unexpectedly succeeded";                        \
    const absl::Status& _st = ::plexa::testing_util::StatusOf(_r0);            \
    EXPECT_EQ(_st.code(), absl::StatusCode::kInvalidArgument) << _st;          \
    for (const char* _piece : std::initializer_list<const char*>{__VA_ARGS__}) \
      EXPECT_NE(std::string(_st.message()).find(_piece), std::string::npos)    \
          << "message '" << _st.message() << "' lacks '" << _piece << "'";     \
  } while (0)

#endif  // PLEXA_CORE_INFER_INFER_TEST_UTIL_H_
