// The MLIR text reader's scanner and recursive-descent parser (one class,
// its methods in two files: mlir_values.cc reads types and attribute
// values, mlir_reader.cc operations, regions and modules). Internal to
// core/stablehlo; mlir_reader.h is the interface.
#ifndef PLEXA_CORE_STABLEHLO_MLIR_READER_IMPL_H_
#define PLEXA_CORE_STABLEHLO_MLIR_READER_IMPL_H_

#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/base/status_macros.h"
#include "core/stablehlo/mlir_ast.h"

namespace plexa::stablehlo::reader_internal {

// Nesting deeper than this (regions, arrays, types) is refused rather than
// risking the stack on hostile input.
inline constexpr int kMaxDepth = 256;

inline bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}
inline bool IsValueNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}

class Reader {
 public:
  explicit Reader(absl::string_view text) : text_(text) {}

  absl::StatusOr<MModule> Module();
  absl::StatusOr<Shape> TypeOnly() {
    PLEXA_ASSIGN_OR_RETURN(Shape s, Type());
    Skip();
    if (!AtEnd()) return Error("unexpected text after the type");
    return s;
  }

 private:
  // ---- scanning
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  SrcLoc LocAt(size_t pos) const {
    SrcLoc loc{1, 1};
    // Lines are counted incrementally: positions only move forward in
    // practice, but a fresh count keeps this correct for any position.
    if (pos >= line_cache_pos_) {
      loc.line = line_cache_line_;
      size_t line_start = line_cache_start_;
      for (size_t i = line_cache_pos_; i < pos && i < text_.size(); ++i) {
        if (text_[i] == '\n') {
          ++loc.line;
          line_start = i + 1;
        }
      }
      line_cache_pos_ = pos;
      line_cache_line_ = loc.line;
      line_cache_start_ = line_start;
      loc.col = static_cast<int>(pos - line_start) + 1;
      return loc;
    }
    size_t line_start = 0;
    for (size_t i = 0; i < pos && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++loc.line;
        line_start = i + 1;
      }
    }
    loc.col = static_cast<int>(pos - line_start) + 1;
    return loc;
  }
  SrcLoc Here() const { return LocAt(pos_); }
  absl::Status ErrorAt(SrcLoc loc, absl::string_view msg) const {
    return absl::InvalidArgumentError(
        absl::StrCat(loc.line, ":", loc.col, ": ", msg));
  }
  absl::Status Error(absl::string_view msg) const {
    std::string found;
    if (AtEnd()) {
      found = "end of input";
    } else {
      size_t n = 0;
      while (pos_ + n < text_.size() && n < 20 && text_[pos_ + n] != '\n') ++n;
      found = absl::StrCat("'", text_.substr(pos_, n), "'");
    }
    return ErrorAt(Here(), absl::StrCat(msg, " (found ", found, ")"));
  }

  // Whitespace and // comments.
  void Skip() {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && Peek(1) == '/') {
        while (!AtEnd() && Peek() != '\n') ++pos_;
      } else {
        break;
      }
    }
  }
  bool TryChar(char c) {
    Skip();
    if (Peek() == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool TryStr(absl::string_view s) {
    Skip();
    if (absl::StartsWith(text_.substr(pos_), s)) {
      pos_ += s.size();
      return true;
    }
    return false;
  }
  absl::Status Expect(char c) {
    if (TryChar(c)) return absl::OkStatus();
    return Error(absl::StrCat("expected '", std::string(1, c), "'"));
  }
  bool PeekIsChar(char c) {
    Skip();
    return Peek() == c;
  }
  // An identifier (letters, digits, _ . $ -) at the cursor, not consumed.
  absl::string_view PeekIdent() {
    Skip();
    if (!IsIdentStart(Peek())) return "";
    size_t n = 1;
    while (pos_ + n < text_.size() && IsIdentChar(text_[pos_ + n])) ++n;
    return text_.substr(pos_, n);
  }
  bool TryKeyword(absl::string_view kw) {
    if (PeekIdent() == kw) {
      pos_ += kw.size();
      return true;
    }
    return false;
  }
  absl::StatusOr<std::string> Ident() {
    absl::string_view id = PeekIdent();
    if (id.empty()) return Error("expected an identifier");
    pos_ += id.size();
    return std::string(id);
  }
  // `%name` or `%name#3` (with the %).
  absl::StatusOr<std::string> ValueName(bool allow_index) {
    Skip();
    if (Peek() != '%') return Error("expected a value name ('%...')");
    size_t n = 1;
    while (pos_ + n < text_.size() && IsValueNameChar(text_[pos_ + n])) ++n;
    if (n == 1) return Error("expected a value name after '%'");
    if (allow_index && Peek(n) == '#') {
      size_t m = n + 1;
      while (pos_ + m < text_.size() &&
             std::isdigit(static_cast<unsigned char>(text_[pos_ + m]))) {
        ++m;
      }
      if (m == n + 1) return Error("expected a result number after '#'");
      n = m;
    }
    std::string name(text_.substr(pos_, n));
    pos_ += n;
    return name;
  }
  absl::StatusOr<std::string> SymbolName() {
    Skip();
    if (Peek() != '@') return Error("expected a symbol ('@...')");
    ++pos_;
    if (Peek() == '"') return QuotedString();
    size_t n = 0;
    while (pos_ + n < text_.size() && IsIdentChar(text_[pos_ + n])) ++n;
    if (n == 0) return Error("expected a symbol name after '@'");
    std::string name(text_.substr(pos_, n));
    pos_ += n;
    return name;
  }
  absl::StatusOr<std::string> QuotedString() {
    Skip();
    if (Peek() != '"') return Error("expected a string");
    ++pos_;
    std::string out;
    while (true) {
      if (AtEnd()) return Error("unterminated string");
      char c = text_[pos_++];
      if (c == '"') break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (AtEnd()) return Error("unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case '"':
        case '\\':
          out += e;
          break;
        default: {
          // MLIR's \XX: two hex digits.
          char e2 = Peek();
          if (!std::isxdigit(static_cast<unsigned char>(e)) ||
              !std::isxdigit(static_cast<unsigned char>(e2))) {
            return Error("bad escape in string");
          }
          ++pos_;
          out += static_cast<char>(
              std::strtol(std::string{e, e2}.c_str(), nullptr, 16));
        }
      }
    }
    return out;
  }
  // Skips a balanced group starting at an opening bracket ( [ { <, with
  // strings inside. Used for locations and attributes we do not read.
  absl::Status SkipBalanced() {
    Skip();
    std::vector<char> stack;
    do {
      if (AtEnd()) return Error("unbalanced brackets");
      char c = text_[pos_];
      if (c == '"') {
        PLEXA_RETURN_IF_ERROR(QuotedString().status());
        continue;
      }
      ++pos_;
      if (c == '(' || c == '[' || c == '{' || c == '<') {
        if (stack.size() > static_cast<size_t>(kMaxDepth)) {
          return Error("nesting too deep");
        }
        stack.push_back(c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>');
      } else if (c == ')' || c == ']' || c == '}' || c == '>') {
        if (c == '>' && pos_ >= 2 && text_[pos_ - 2] == '-') continue;  // ->
        if (stack.empty() || stack.back() != c) {
          return ErrorAt(LocAt(pos_ - 1), "unbalanced brackets");
        }
        stack.pop_back();
      }
    } while (!stack.empty());
    return absl::OkStatus();
  }
  // `loc(...)` after an op, argument or function.
  absl::Status SkipLoc() {
    while (PeekIdent() == "loc" && Peek(3) == '(') {
      pos_ += 3;
      PLEXA_RETURN_IF_ERROR(SkipBalanced());
    }
    return absl::OkStatus();
  }

  // ---- types
  absl::StatusOr<PrimitiveType> ElementType(SrcLoc loc, absl::string_view id);
  absl::StatusOr<Shape> Type();
  absl::StatusOr<std::vector<Shape>> TypeListInParens();
  absl::StatusOr<Shape> TensorType(SrcLoc loc);

  // ---- attributes
  absl::StatusOr<MAttrPtr> AttrValue();
  absl::StatusOr<MAttrPtr> AttrValueInner();
  absl::Status Dict(std::vector<std::pair<std::string, MAttrPtr>>* out,
                    char close);
  absl::StatusOr<std::string> AttrKey();
  absl::StatusOr<MAttrPtr> HashAttr();
  absl::StatusOr<MAttrPtr> Number();

  // ---- operations
  absl::StatusOr<MOp> Op();
  absl::Status GenericOpBody(MOp* op);
  absl::Status PrettyOpBody(MOp* op);
  absl::Status TypeSignature(MOp* op);
  absl::Status Region(MRegion* region, bool braces_open);
  absl::Status BlockArgs(std::vector<MBlockArg>* args);
  absl::Status Func(MModule* module);
  absl::Status GenericContainer(MModule* module);
  absl::Status GenericFunc(MOp op, MModule* module);
  absl::Status ModuleBody(MModule* module, bool braced);

  absl::Status Enter() {
    if (++depth_ > kMaxDepth) return Error("nesting too deep");
    return absl::OkStatus();
  }
  void Leave() { --depth_; }

  absl::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  mutable size_t line_cache_pos_ = 0;
  mutable int line_cache_line_ = 1;
  mutable size_t line_cache_start_ = 0;
};

struct DepthGuard {
  explicit DepthGuard(int* d) : depth(d) {}
  ~DepthGuard() { --*depth; }
  int* depth;
};

}  // namespace plexa::stablehlo::reader_internal

#endif  // PLEXA_CORE_STABLEHLO_MLIR_READER_IMPL_H_
