#include "core/text/lexer.h"

#include <cmath>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"

namespace plexa::text_internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentifierStart(char c) {
  return absl::ascii_isalpha(static_cast<unsigned char>(c)) || c == '_';
}

Token MakeToken(TokKind kind, size_t begin, size_t end) {
  Token t;
  t.kind = kind;
  t.begin = begin;
  t.end = end;
  return t;
}

Token MakeError(size_t begin, size_t end, std::string expected,
                std::string found) {
  Token t = MakeToken(TokKind::kError, begin, end);
  t.error_expected = std::move(expected);
  t.error_found = std::move(found);
  return t;
}

}  // namespace

bool IsIdentifierChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '.' || c == '-';
}

const Token& Lexer::Peek() {
  if (!peek_) peek_ = LexAt(pos_);
  return *peek_;
}

const Token& Lexer::PeekNext() {
  if (!peek_next_) {
    const Token& cur = Peek();
    // Nothing follows the end of input or an error.
    if (cur.kind == TokKind::kEof || cur.kind == TokKind::kError) {
      peek_next_ = cur;
    } else {
      peek_next_ = LexAt(cur.end);
    }
  }
  return *peek_next_;
}

Token Lexer::Take() {
  Peek();
  // The end of input and errors are sticky: taking them does not advance.
  if (peek_->kind == TokKind::kEof || peek_->kind == TokKind::kError) {
    return *peek_;
  }
  Token t = std::move(*peek_);
  pos_ = t.end;
  last_end_ = t.end;
  peek_ = std::move(peek_next_);
  peek_next_.reset();
  return t;
}

void Lexer::Reset(size_t offset) {
  pos_ = offset;
  peek_.reset();
  peek_next_.reset();
}

std::pair<int, int> Lexer::LineCol(size_t offset) const {
  if (offset > text_.size()) offset = text_.size();
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (text_[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, static_cast<int>(offset - line_start) + 1};
}

bool Lexer::NewlineBetween(size_t a, size_t b) const {
  for (size_t i = a; i < b && i < text_.size(); ++i) {
    if (text_[i] == '\n' || text_[i] == '\r') return true;
  }
  return false;
}

Token Lexer::LexAt(size_t offset) const {
  const size_t n = text_.size();
  size_t p = offset;
  // Whitespace and comments.
  while (p < n) {
    const char c = text_[p];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++p;
      continue;
    }
    if (c == '/' && p + 1 < n && text_[p + 1] == '/') {
      while (p < n && text_[p] != '\n' && text_[p] != '\r') ++p;
      continue;
    }
    if (c == '/' && p + 1 < n && text_[p + 1] == '*') {
      const size_t close = text_.find("*/", p + 2);
      if (close == absl::string_view::npos) {
        return MakeError(p, n, "'*/' closing the comment", "end of input");
      }
      p = close + 2;
      continue;
    }
    break;
  }
  if (p >= n) return MakeToken(TokKind::kEof, n, n);

  const char c = text_[p];
  auto single = [&](TokKind kind) { return MakeToken(kind, p, p + 1); };
  switch (c) {
    case '=':
      return single(TokKind::kEqual);
    case ',':
      return single(TokKind::kComma);
    case ':':
      return single(TokKind::kColon);
    case '[':
      return single(TokKind::kLsquare);
    case ']':
      return single(TokKind::kRsquare);
    case '{':
      return single(TokKind::kLbrace);
    case '}':
      return single(TokKind::kRbrace);
    case '(':
      return single(TokKind::kLparen);
    case ')':
      return single(TokKind::kRparen);
    case '*':
      return single(TokKind::kStar);
    case '#':
      return single(TokKind::kHash);
    case '+':
      return single(TokKind::kPlus);
    case '~':
      return single(TokKind::kTilde);
    case '?':
      return single(TokKind::kQuestion);
    case '<':
      if (p + 1 < n && text_[p + 1] == '=') {
        return MakeToken(TokKind::kLeq, p, p + 2);
      }
      return single(TokKind::kOther);
    case '"':
    case '\'':
      return LexString(p);
    case '%': {
      if (p + 1 < n && IsIdentifierStart(text_[p + 1])) {
        size_t e = p + 2;
        while (e < n && IsIdentifierChar(text_[e])) ++e;
        Token t = MakeToken(TokKind::kName, p, e);
        t.str = std::string(text_.substr(p + 1, e - p - 1));
        return t;
      }
      return single(TokKind::kOther);
    }
    case '.':
      if (p + 1 < n && IsDigit(text_[p + 1])) return LexNumber(p);
      if (p + 2 < n && text_[p + 1] == '.' && text_[p + 2] == '.') {
        return MakeToken(TokKind::kDots, p, p + 3);
      }
      return single(TokKind::kOther);
    case '-': {
      if (p + 1 < n && text_[p + 1] == '>') {
        return MakeToken(TokKind::kArrow, p, p + 2);
      }
      if (p + 1 < n &&
          (IsDigit(text_[p + 1]) ||
           (text_[p + 1] == '.' && p + 2 < n && IsDigit(text_[p + 2])))) {
        return LexNumber(p);
      }
      // -inf and -nan are single tokens (literals use them).
      for (absl::string_view word : {"inf", "nan"}) {
        if (text_.substr(p + 1, 3) == word &&
            (p + 4 >= n || !IsIdentifierChar(text_[p + 4]))) {
          Token t = MakeToken(TokKind::kIdent, p, p + 4);
          t.str = std::string(text_.substr(p, 4));
          return t;
        }
      }
      return single(TokKind::kOther);
    }
    default:
      break;
  }
  if (IsDigit(c)) return LexNumber(p);
  if (IsIdentifierStart(c)) {
    size_t e = p + 1;
    while (e < n && IsIdentifierChar(text_[e])) ++e;
    Token t = MakeToken(TokKind::kIdent, p, e);
    t.str = std::string(text_.substr(p, e - p));
    return t;
  }
  return single(TokKind::kOther);
}

Token Lexer::LexNumber(size_t begin) const {
  const size_t n = text_.size();
  size_t p = begin;
  bool negative = false;
  if (text_[p] == '-') {
    negative = true;
    ++p;
  }
  const size_t digits_begin = p;
  while (p < n && IsDigit(text_[p])) ++p;
  const size_t digits_end = p;
  bool is_decimal = false;
  if (p < n && text_[p] == '.' && !(p + 1 < n && text_[p + 1] == '.')) {
    // "1." and "1.5" are decimals; "1..." is not ("..." follows).
    is_decimal = true;
    ++p;
    while (p < n && IsDigit(text_[p])) ++p;
  }
  if (p < n && (text_[p] == 'e' || text_[p] == 'E')) {
    size_t q = p + 1;
    if (q < n && (text_[q] == '+' || text_[q] == '-')) ++q;
    if (q < n && IsDigit(text_[q])) {
      is_decimal = true;
      p = q;
      while (p < n && IsDigit(text_[p])) ++p;
    }
  }
  Token t = MakeToken(is_decimal ? TokKind::kDecimal : TokKind::kInt, begin, p);
  t.negative = negative;
  const absl::string_view spelling = text_.substr(begin, p - begin);
  double v = 0;
  if (!absl::SimpleAtod(spelling, &v)) {
    // Only reachable for spellings SimpleAtod rejects; treat as overflow.
    v = negative ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
  }
  t.value = v;
  if (!is_decimal) {
    uint64_t m = 0;
    for (size_t i = digits_begin; i < digits_end; ++i) {
      const uint64_t d = static_cast<uint64_t>(text_[i] - '0');
      if (m > (std::numeric_limits<uint64_t>::max() - d) / 10) {
        t.overflow = true;
        break;
      }
      m = m * 10 + d;
    }
    t.magnitude = t.overflow ? 0 : m;
  }
  return t;
}

Token Lexer::LexString(size_t begin) const {
  const size_t n = text_.size();
  const char quote = text_[begin];
  size_t p = begin + 1;
  while (p < n && text_[p] != quote) {
    if (text_[p] == '\\') ++p;  // skip the escaped character
    ++p;
  }
  if (p >= n) {
    return MakeError(begin, n,
                     std::string("a closing ") + quote + " ending the string",
                     "end of input");
  }
  Token t = MakeToken(TokKind::kString, begin, p + 1);
  std::string error;
  if (!absl::CUnescape(text_.substr(begin + 1, p - begin - 1), &t.str,
                       &error)) {
    return MakeError(begin, p + 1, "a string with valid escape sequences",
                     "a string with a bad escape (" + error + ")");
  }
  return t;
}

}  // namespace plexa::text_internal
