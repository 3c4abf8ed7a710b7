// Helpers for the pass tests: a pass runs on a module parsed from HLO text
// (verified before and after), and the result is compared with the module
// text expected after the pass, written by hand.
#ifndef PLEXA_CORE_PASSES_PASS_TEST_UTIL_H_
#define PLEXA_CORE_PASSES_PASS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "core/eval/evaluator.h"
#include "core/passes/dynamic_padder.h"
#include "core/passes/pass.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"

namespace plexa::pass_test {

inline std::unique_ptr<Module> Parse(absl::string_view hlo) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(hlo);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << hlo;
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << v << "\n" << hlo;
  return std::move(m).value();
}

// A program with dynamic shapes as the tests that compare the evaluator
// before and after passes take it: lowered to static shapes
// (LowerDynamicShapes, as plexa run and the conformance runner do), its
// text printed again and its arguments padded. Other programs are left
// alone.
inline void LowerDynamicProgram(std::string* text,
                                std::vector<Literal>* inputs) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(*text);
  if (!m.ok() || !HasDynamicShapes(**m)) return;
  absl::StatusOr<DynamicSignature> sig = LowerDynamicShapes(m->get());
  ASSERT_TRUE(sig.ok()) << sig.status();
  *text = PrintModule(**m);
  if (inputs == nullptr) return;
  absl::StatusOr<std::vector<Literal>> padded =
      PadDynamicArguments(*sig, std::move(*inputs));
  ASSERT_TRUE(padded.ok()) << padded.status();
  *inputs = *std::move(padded);
}

// The module as the tests write it: no operand shapes, `%` names.
inline std::string Print(const Module& m) {
  PrintOptions o;
  o.print_operand_shapes = false;
  return PrintModule(m, o);
}

// Removes leading and trailing blank lines and the indentation common to
// all non-blank lines, and trailing spaces, so expected text can be
// written indented inside a raw string.
inline std::string Dedent(absl::string_view text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  while (!lines.empty() && absl::StripAsciiWhitespace(lines.front()).empty()) {
    lines.erase(lines.begin());
  }
  while (!lines.empty() && absl::StripAsciiWhitespace(lines.back()).empty()) {
    lines.pop_back();
  }
  size_t indent = std::string::npos;
  for (const std::string& l : lines) {
    if (absl::StripAsciiWhitespace(l).empty()) continue;
    indent = std::min(indent, l.find_first_not_of(' '));
  }
  for (std::string& l : lines) {
    l = l.size() >= indent ? l.substr(indent) : "";
    while (!l.empty() && l.back() == ' ') l.pop_back();
  }
  return absl::StrJoin(lines, "\n");
}

// Runs `pass` once; expects success and a verified result.
inline bool RunPass(Pass& pass, Module& module) {
  absl::StatusOr<bool> changed = pass.Run(module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  absl::Status v = VerifyModule(module);
  EXPECT_TRUE(v.ok()) << v << "\n" << Print(module);
  return changed.ok() && *changed;
}

// Runs the pass to its fixpoint (at most 10 times); true if it changed.
inline bool RunToFixpoint(Pass& pass, Module& module) {
  bool changed = false;
  for (int i = 0; i < 10 && RunPass(pass, module); ++i) changed = true;
  return changed;
}

// Parses `before`, runs `pass` (once, or until it changes nothing), and
// expects the printed result to be `after` (both dedented) and the pass to
// report `changed`. Returns the module for further checks.
inline std::unique_ptr<Module> ExpectRewrite(Pass& pass,
                                             absl::string_view before,
                                             absl::string_view after,
                                             bool changed = true,
                                             bool to_fixpoint = false) {
  std::unique_ptr<Module> m = Parse(Dedent(before));
  if (m == nullptr) return nullptr;
  const bool did = to_fixpoint ? RunToFixpoint(pass, *m) : RunPass(pass, *m);
  EXPECT_EQ(did, changed) << pass.name();
  EXPECT_EQ(Dedent(Print(*m)), Dedent(after));
  return m;
}

// Runs `hlo` (constants only) on the evaluator before and after `pass`;
// both must give `expected` (of `shape`: values from outside the code,
// e.g. by hand), and the rewritten program must no longer contain `gone`
// (the form the pass removes) and must contain `present`.
inline void ExpectSameValueAfter(Pass& pass, const std::string& hlo,
                                 const std::string& shape,
                                 const std::string& expected,
                                 absl::string_view gone,
                                 absl::string_view present) {
  std::unique_ptr<Module> before = Parse(hlo);
  std::unique_ptr<Module> after = Parse(hlo);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  ASSERT_TRUE(RunPass(pass, *after));
  const std::string printed = Print(*after);
  EXPECT_FALSE(absl::StrContains(printed, gone)) << printed;
  EXPECT_TRUE(absl::StrContains(printed, present)) << printed;
  absl::StatusOr<Literal> want = ParseLiteral(expected, *ParseShape(shape));
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<Literal> x = Evaluator().Run(*before, {});
  absl::StatusOr<Literal> y = Evaluator().Run(*after, {});
  ASSERT_TRUE(x.ok()) << x.status();
  ASSERT_TRUE(y.ok()) << y.status() << "\n" << printed;
  EXPECT_EQ(x->ToString(), want->ToString());
  EXPECT_EQ(y->ToString(), want->ToString()) << printed;
}

}  // namespace plexa::pass_test

#endif  // PLEXA_CORE_PASSES_PASS_TEST_UTIL_H_
