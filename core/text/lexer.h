// Tokenizer for XLA's HLO text format (internal to core/text).
//
// The lexer is position-based and pure: LexAt(offset) skips whitespace and
// comments (`// ...` to the end of the line, `/* ... */`) and returns the
// token there, so the parser can look ahead freely and re-scan a region
// character by character where HLO's grammar is not token-shaped
// (`dim_labels=b01f_01io->b01f`, `window={size=3x3 pad=0_1x1_0}`).
//
// It never fails hard: malformed input (an unterminated string or comment,
// a bad escape) yields a kError token that says what was expected; bytes
// that start no token yield kOther, which the parser reports where it needs
// something else and accepts inside attribute values it keeps verbatim.
#ifndef PLEXA_CORE_TEXT_LEXER_H_
#define PLEXA_CORE_TEXT_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"

namespace plexa::text_internal {

enum class TokKind {
  kEof,
  kError,
  kEqual,     // =
  kComma,     // ,
  kColon,     // :
  kLsquare,   // [
  kRsquare,   // ]
  kLbrace,    // {
  kRbrace,    // }
  kLparen,    // (
  kRparen,    // )
  kArrow,     // ->
  kLeq,       // <=
  kStar,      // *
  kHash,      // #
  kPlus,      // +
  kTilde,     // ~
  kQuestion,  // ?
  kDots,      // ...
  kName,      // %foo (str holds "foo")
  kIdent,     // foo, f32, ENTRY, also "-inf" and "-nan"
  kString,    // "..." or '...' (str holds the unescaped text)
  kInt,       // [-]digits
  kDecimal,   // [-]digits.digits, 1e5, .5
  kOther,     // any other byte
};

struct Token {
  TokKind kind = TokKind::kEof;
  size_t begin = 0;  // byte offsets into the text: [begin, end)
  size_t end = 0;
  std::string str;  // kName, kIdent, kString

  // kInt: the value is (negative ? -magnitude : magnitude); `overflow` is set
  // when the magnitude does not fit in 64 bits.
  bool negative = false;
  uint64_t magnitude = 0;
  bool overflow = false;
  // kInt and kDecimal: the value as a double (correctly rounded). For a
  // finite spelling too large for a double this is +-inf.
  double value = 0;

  // kError: "LINE:COL: expected <error_expected>, found <error_found>",
  // located at `begin`.
  std::string error_expected;
  std::string error_found;
};

// [a-zA-Z0-9_.-]: characters that may continue a name.
bool IsIdentifierChar(char c);

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  absl::string_view text() const { return text_; }

  // The next token (not consumed) and the one after it.
  const Token& Peek();
  const Token& PeekNext();
  // Consumes and returns the next token.
  Token Take();

  // End offset of the last consumed token (0 at the start).
  size_t last_end() const { return last_end_; }

  // Consumes raw characters starting where the next token begins, while
  // `accept(c, index)` holds. Returns them (possibly empty) and moves past
  // them. Used for the non-token patterns of HLO (3x3, 1_1x0_0, b01f_...).
  template <typename Accept>
  absl::string_view TakeRaw(Accept accept) {
    const size_t begin = Peek().begin;
    size_t end = begin;
    while (end < text_.size() && accept(text_[end], end - begin)) ++end;
    AdvanceTo(end);
    return text_.substr(begin, end - begin);
  }

  // Moves the read position to `offset` (which must be a token boundary).
  void Reset(size_t offset);
  // Consumes everything up to `offset` (after raw scanning by the caller).
  void AdvanceTo(size_t offset) {
    Reset(offset);
    last_end_ = offset;
  }

  // 1-based line and column (in bytes) of an offset.
  std::pair<int, int> LineCol(size_t offset) const;
  // True if a line break lies in [a, b).
  bool NewlineBetween(size_t a, size_t b) const;

  // Lexes the token starting at or after `offset` (after whitespace and
  // comments).
  Token LexAt(size_t offset) const;

 private:
  Token LexNumber(size_t begin) const;
  Token LexString(size_t begin) const;

  absl::string_view text_;
  size_t pos_ = 0;
  size_t last_end_ = 0;
  std::optional<Token> peek_;
  std::optional<Token> peek_next_;
};

}  // namespace plexa::text_internal

#endif  // PLEXA_CORE_TEXT_LEXER_H_
