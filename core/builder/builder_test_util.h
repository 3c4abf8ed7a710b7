// Helpers shared by the builder tests: build + verify + text round trip,
// instruction summaries independent of the printer, error expectations.
#ifndef PLEXA_CORE_BUILDER_BUILDER_TEST_UTIL_H_
#define PLEXA_CORE_BUILDER_BUILDER_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/builder/builder.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

#define BLD_TEST_CONCAT_INNER(a, b) a##b
#define BLD_TEST_CONCAT(a, b) BLD_TEST_CONCAT_INNER(a, b)
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL(BLD_TEST_CONCAT(status_or_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  ASSERT_TRUE(tmp.ok()) << tmp.status();          \
  lhs = std::move(tmp).value()
#define EXPECT_OK(expr)             \
  do {                              \
    const absl::Status s_ = (expr); \
    EXPECT_TRUE(s_.ok()) << s_;     \
  } while (0)

namespace plexa::builder_test {

inline Shape S(PrimitiveType t, std::initializer_list<int64_t> dims) {
  return ShapeUtil::MakeShape(t, std::vector<int64_t>(dims));
}
inline Shape F32(std::initializer_list<int64_t> dims) {
  return S(PrimitiveType::F32, dims);
}
inline Shape S32(std::initializer_list<int64_t> dims) {
  return S(PrimitiveType::S32, dims);
}
inline Shape Pred(std::initializer_list<int64_t> dims) {
  return S(PrimitiveType::PRED, dims);
}
inline Shape Tup(std::vector<Shape> elements) {
  return Shape(std::move(elements));
}

// Finishes the module, then requires: the verifier accepts it; its text
// parses; the parsed module verifies and prints the same text.
inline absl::StatusOr<std::unique_ptr<Module>> BuildChecked(Builder& b,
                                                            Op root) {
  absl::StatusOr<std::unique_ptr<Module>> m = b.BuildModule(root);
  if (!m.ok()) return m.status();
  absl::Status v = VerifyModule(**m);
  if (!v.ok()) {
    return absl::Status(v.code(), absl::StrCat("verifier: ", v.message(), "\n",
                                               PrintModule(**m)));
  }
  const std::string text = PrintModule(**m);
  absl::StatusOr<std::unique_ptr<Module>> parsed = ParseHloModule(text);
  if (!parsed.ok()) {
    return absl::Status(
        parsed.status().code(),
        absl::StrCat("parse: ", parsed.status().message(), "\n", text));
  }
  v = VerifyModule(**parsed);
  if (!v.ok()) {
    return absl::Status(
        v.code(), absl::StrCat("verifier (parsed): ", v.message(), "\n", text));
  }
  const std::string again = PrintModule(**parsed);
  if (again != text) {
    return absl::InternalError(absl::StrCat(
        "round trip changed the text:\n", text, "\n---- reprinted:\n", again));
  }
  return m;
}

// "opcode shape" per instruction in emission order, with " {dims}" for
// opcodes whose `dimensions` attribute says where dimensions go. Built
// from the IR, so it does not depend on the printer.
inline std::vector<std::string> Summaries(const Computation& c) {
  std::vector<std::string> out;
  for (const Instruction* i : c.instructions()) {
    std::string s = absl::StrCat(HloOpcodeString(i->opcode()), " ",
                                 i->shape().ToString(/*print_layout=*/false));
    switch (i->opcode()) {
      case HloOpcode::kBroadcast:
      case HloOpcode::kTranspose:
      case HloOpcode::kReverse:
      case HloOpcode::kReduce:
      case HloOpcode::kConcatenate:
      case HloOpcode::kSort:
      case HloOpcode::kMap:
        absl::StrAppend(&s, " {", absl::StrJoin(i->dimensions(), ","), "}");
        break;
      default:
        break;
    }
    out.push_back(std::move(s));
  }
  return out;
}

// The module's text without operand shapes ("add(%x, %y)").
inline std::string Text(const Module& m) {
  PrintOptions options;
  options.print_operand_shapes = false;
  return PrintModule(m, options);
}

// The entry computation's instruction lines as printed (without operand
// shapes), trimmed, without the header and braces.
inline std::vector<std::string> EntryLines(const Module& m) {
  PrintOptions options;
  options.print_operand_shapes = false;
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(
           PrintComputation(*m.entry_computation(), options), '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line == "}" || absl::EndsWith(line, "{")) continue;
    lines.emplace_back(line);
  }
  return lines;
}

// The builder's error: code InvalidArgument, starting "Op:" and containing
// every fragment.
inline void ExpectBuildError(
    Builder& b, absl::string_view op, const std::vector<std::string>& fragments,
    absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
  const absl::Status& e = b.first_error();
  EXPECT_EQ(e.code(), code) << e;
  EXPECT_TRUE(absl::StartsWith(e.message(), absl::StrCat(op, ": "))) << e;
  for (const std::string& f : fragments) {
    EXPECT_THAT(std::string(e.message()), testing::HasSubstr(f));
  }
  // Build reports the same first error.
  absl::StatusOr<std::unique_ptr<Module>> m = b.BuildModule();
  EXPECT_FALSE(m.ok());
  if (!m.ok()) {
    EXPECT_EQ(m.status(), e);
  }
}

// A scalar binary computation "name": (x, y) -> op(x, y).
inline Computation* ScalarComputation(Builder& parent, absl::string_view name,
                                      PrimitiveType type, HloOpcode opcode) {
  std::unique_ptr<Builder> sb = parent.CreateSubBuilder(name);
  const Shape s = ShapeUtil::MakeScalarShape(type);
  Op x = sb->Parameter(0, s, "x");
  Op y = sb->Parameter(1, s, "y");
  absl::StatusOr<Computation*> c = sb->Build(sb->BinaryOp(opcode, x, y));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : nullptr;
}

// A scalar comparator "name": (x, y) -> compare(x, y, direction).
inline Computation* ScalarComparator(Builder& parent, absl::string_view name,
                                     PrimitiveType type,
                                     ComparisonDirection direction) {
  std::unique_ptr<Builder> sb = parent.CreateSubBuilder(name);
  const Shape s = ShapeUtil::MakeScalarShape(type);
  Op x = sb->Parameter(0, s, "x");
  Op y = sb->Parameter(1, s, "y");
  absl::StatusOr<Computation*> c = sb->Build(sb->Compare(x, y, direction));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : nullptr;
}

}  // namespace plexa::builder_test

#endif  // PLEXA_CORE_BUILDER_BUILDER_TEST_UTIL_H_
