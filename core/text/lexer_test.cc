// The HLO tokenizer: token kinds, numbers (exact integers), strings,
// comments, positions and errors.
#include "core/text/lexer.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace plexa::text_internal {
namespace {

std::vector<TokKind> Kinds(absl::string_view text) {
  Lexer lex(text);
  std::vector<TokKind> out;
  while (true) {
    Token t = lex.Take();
    out.push_back(t.kind);
    if (t.kind == TokKind::kEof || t.kind == TokKind::kError) return out;
  }
}

TEST(LexerTest, Punctuation) {
  EXPECT_EQ(
      Kinds("= , : [ ] { } ( ) -> <= * # + ~ ? ..."),
      (std::vector<TokKind>{
          TokKind::kEqual, TokKind::kComma, TokKind::kColon, TokKind::kLsquare,
          TokKind::kRsquare, TokKind::kLbrace, TokKind::kRbrace,
          TokKind::kLparen, TokKind::kRparen, TokKind::kArrow, TokKind::kLeq,
          TokKind::kStar, TokKind::kHash, TokKind::kPlus, TokKind::kTilde,
          TokKind::kQuestion, TokKind::kDots, TokKind::kEof}));
}

TEST(LexerTest, NamesAndIdentifiers) {
  Lexer lex("%add.3 get-tuple-element.12 _x f32 %_a-b.c");
  Token t = lex.Take();
  EXPECT_EQ(t.kind, TokKind::kName);
  EXPECT_EQ(t.str, "add.3");
  t = lex.Take();
  EXPECT_EQ(t.kind, TokKind::kIdent);
  EXPECT_EQ(t.str, "get-tuple-element.12");
  EXPECT_EQ(lex.Take().str, "_x");
  EXPECT_EQ(lex.Take().str, "f32");
  t = lex.Take();
  EXPECT_EQ(t.kind, TokKind::kName);
  EXPECT_EQ(t.str, "_a-b.c");
}

TEST(LexerTest, IntegersAreExact) {
  Lexer lex(
      "18446744073709551615 -9223372036854775808 18446744073709551616 -0 7");
  Token t = lex.Take();
  EXPECT_EQ(t.kind, TokKind::kInt);
  EXPECT_FALSE(t.negative);
  EXPECT_FALSE(t.overflow);
  EXPECT_EQ(t.magnitude, std::numeric_limits<uint64_t>::max());
  t = lex.Take();
  EXPECT_TRUE(t.negative);
  EXPECT_EQ(t.magnitude, uint64_t{1} << 63);
  t = lex.Take();
  EXPECT_TRUE(t.overflow);
  t = lex.Take();
  EXPECT_TRUE(t.negative);
  EXPECT_EQ(t.magnitude, 0u);
  EXPECT_TRUE(std::signbit(t.value));
  EXPECT_EQ(lex.Take().magnitude, 7u);
}

TEST(LexerTest, Decimals) {
  Lexer lex("1.5 -2.25e3 .5 1e-05 3. 1e999 1x");
  EXPECT_EQ(lex.Peek().kind, TokKind::kDecimal);
  EXPECT_EQ(lex.Take().value, 1.5);
  EXPECT_EQ(lex.Take().value, -2250.0);
  EXPECT_EQ(lex.Take().value, 0.5);
  EXPECT_EQ(lex.Take().value, 1e-05);
  EXPECT_EQ(lex.Take().value, 3.0);
  EXPECT_TRUE(std::isinf(lex.Take().value));
  // "1x" is the integer 1 followed by the identifier x.
  EXPECT_EQ(lex.Peek().kind, TokKind::kInt);
  lex.Take();
  EXPECT_EQ(lex.Take().str, "x");
}

TEST(LexerTest, NegativeInfAndNanAreIdentifiers) {
  Lexer lex("-inf -nan inf nan -infinity");
  EXPECT_EQ(lex.Take().str, "-inf");
  EXPECT_EQ(lex.Take().str, "-nan");
  EXPECT_EQ(lex.Take().str, "inf");
  EXPECT_EQ(lex.Take().str, "nan");
  // "-infinity" is not -inf: a lone '-' and an identifier.
  EXPECT_EQ(lex.Take().kind, TokKind::kOther);
  EXPECT_EQ(lex.Take().str, "infinity");
}

TEST(LexerTest, StringsAreUnescaped) {
  Lexer lex(R"("a\"b\n\x41\101" 'it\'s')");
  Token t = lex.Take();
  EXPECT_EQ(t.kind, TokKind::kString);
  EXPECT_EQ(t.str, "a\"b\nAA");
  EXPECT_EQ(lex.Take().str, "it's");
}

TEST(LexerTest, CommentsAreSkipped) {
  EXPECT_EQ(Kinds("a // x\n/* y\n z */ b /**/c//"),
            (std::vector<TokKind>{TokKind::kIdent, TokKind::kIdent,
                                  TokKind::kIdent, TokKind::kEof}));
}

TEST(LexerTest, ErrorsCarryTheirPosition) {
  Lexer a("x /* open");
  a.Take();
  const Token& e1 = a.Peek();
  EXPECT_EQ(e1.kind, TokKind::kError);
  EXPECT_EQ(e1.begin, 2u);
  EXPECT_EQ(e1.error_expected, "'*/' closing the comment");
  Lexer b("\"abc");
  EXPECT_EQ(b.Peek().kind, TokKind::kError);
  EXPECT_EQ(b.Peek().error_found, "end of input");
  Lexer c(R"("bad \q escape")");
  EXPECT_EQ(c.Peek().kind, TokKind::kError);
  // Errors are sticky: taking one does not advance.
  Lexer d("\"x");
  d.Take();
  EXPECT_EQ(d.Peek().kind, TokKind::kError);
}

TEST(LexerTest, OtherBytesDoNotFail) {
  EXPECT_EQ(
      Kinds("< > ! @ \x01 \xff %"),
      (std::vector<TokKind>{TokKind::kOther, TokKind::kOther, TokKind::kOther,
                            TokKind::kOther, TokKind::kOther, TokKind::kOther,
                            TokKind::kOther, TokKind::kEof}));
  // An embedded NUL is just another byte.
  const std::string with_nul("a\0b", 3);
  EXPECT_EQ(Kinds(with_nul),
            (std::vector<TokKind>{TokKind::kIdent, TokKind::kOther,
                                  TokKind::kIdent, TokKind::kEof}));
}

TEST(LexerTest, LineColumnAndRawScanning) {
  Lexer lex("ab\n  cd 3x3_1,");
  EXPECT_EQ(lex.LineCol(0), std::make_pair(1, 1));
  EXPECT_EQ(lex.LineCol(5), std::make_pair(2, 3));
  lex.Take();
  EXPECT_TRUE(lex.NewlineBetween(lex.last_end(), lex.Peek().begin));
  lex.Take();
  absl::string_view raw = lex.TakeRaw([](char c, size_t) {
    return (c >= '0' && c <= '9') || c == 'x' || c == '_';
  });
  EXPECT_EQ(raw, "3x3_1");
  EXPECT_EQ(lex.Take().kind, TokKind::kComma);
}

TEST(LexerTest, LookaheadDoesNotConsume) {
  Lexer lex("a = b");
  EXPECT_EQ(lex.PeekNext().kind, TokKind::kEqual);
  EXPECT_EQ(lex.Peek().str, "a");
  lex.Take();
  EXPECT_EQ(lex.Peek().kind, TokKind::kEqual);
  EXPECT_EQ(lex.PeekNext().str, "b");
}

}  // namespace
}  // namespace plexa::text_internal
