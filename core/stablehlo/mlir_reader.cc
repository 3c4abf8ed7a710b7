#include "core/stablehlo/mlir_reader.h"

#include <cctype>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "core/shape/shape_util.h"

namespace plexa::stablehlo {

const MAttr* MAttr::Field(absl::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return v.get();
  }
  return nullptr;
}

const MAttr* MOp::Attr(absl::string_view key) const {
  for (const auto& [k, v] : attrs) {
    if (k == key) return v.get();
  }
  return nullptr;
}

namespace {

// Nesting deeper than this (regions, arrays, types) is refused rather than
// risking the stack on hostile input.
constexpr int kMaxDepth = 256;

bool IsIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$' || c == '-';
}
bool IsValueNameChar(char c) {
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

absl::StatusOr<PrimitiveType> Reader::ElementType(SrcLoc loc,
                                                  absl::string_view id) {
  static const std::pair<absl::string_view, PrimitiveType> kTypes[] = {
      {"i1", PrimitiveType::PRED},
      {"i2", PrimitiveType::S2},
      {"i4", PrimitiveType::S4},
      {"i8", PrimitiveType::S8},
      {"i16", PrimitiveType::S16},
      {"i32", PrimitiveType::S32},
      {"i64", PrimitiveType::S64},
      {"si8", PrimitiveType::S8},
      {"si16", PrimitiveType::S16},
      {"si32", PrimitiveType::S32},
      {"si64", PrimitiveType::S64},
      {"index", PrimitiveType::S64},  // layouts and shapes print as index
      {"ui2", PrimitiveType::U2},
      {"ui4", PrimitiveType::U4},
      {"ui8", PrimitiveType::U8},
      {"ui16", PrimitiveType::U16},
      {"ui32", PrimitiveType::U32},
      {"ui64", PrimitiveType::U64},
      {"f16", PrimitiveType::F16},
      {"bf16", PrimitiveType::BF16},
      {"f32", PrimitiveType::F32},
      {"f64", PrimitiveType::F64},
      {"f8E5M2", PrimitiveType::F8E5M2},
      {"f8E4M3FN", PrimitiveType::F8E4M3FN},
      {"f8E4M3B11FNUZ", PrimitiveType::F8E4M3B11FNUZ},
      {"f8E5M2FNUZ", PrimitiveType::F8E5M2FNUZ},
      {"f8E4M3FNUZ", PrimitiveType::F8E4M3FNUZ},
      {"f8E4M3", PrimitiveType::F8E4M3},
      {"f8E3M4", PrimitiveType::F8E3M4},
      {"f4E2M1FN", PrimitiveType::F4E2M1FN},
      {"f8E8M0FNU", PrimitiveType::F8E8M0FNU},
  };
  for (const auto& [name, type] : kTypes) {
    if (id == name) return type;
  }
  return ErrorAt(loc, absl::StrCat("unsupported element type '", id, "'"));
}

absl::StatusOr<Shape> Reader::TensorType(SrcLoc loc) {
  // After "tensor<": dims `2x3x` then the element type.
  std::vector<int64_t> dims;
  size_t start = pos_;
  while (true) {
    Skip();
    if (Peek() == '?' || Peek() == '*') {
      size_t end = text_.find('>', pos_);
      return ErrorAt(
          loc, absl::StrCat(
                   "dynamic shapes are not supported: 'tensor<",
                   text_.substr(
                       start, end == absl::string_view::npos ? 0 : end - start),
                   ">'"));
    }
    if (!std::isdigit(static_cast<unsigned char>(Peek()))) break;
    int64_t d = 0;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) {
      if (d > (int64_t{1} << 50)) return Error("dimension too large");
      d = d * 10 + (Peek() - '0');
      ++pos_;
    }
    if (Peek() != 'x') return Error("expected 'x' after a dimension");
    ++pos_;
    dims.push_back(d);
  }
  PrimitiveType et;
  if (TryStr("complex<")) {
    PLEXA_ASSIGN_OR_RETURN(std::string inner, Ident());
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    if (inner == "f32") {
      et = PrimitiveType::C64;
    } else if (inner == "f64") {
      et = PrimitiveType::C128;
    } else {
      return ErrorAt(
          loc, absl::StrCat("unsupported element type 'complex<", inner, ">'"));
    }
  } else if (PeekIsChar('!')) {
    size_t s = pos_;
    ++pos_;
    while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
    return ErrorAt(loc, absl::StrCat("unsupported element type '",
                                     text_.substr(s, pos_ - s),
                                     "' (quantized and dialect types are "
                                     "not supported)"));
  } else {
    SrcLoc eloc = Here();
    PLEXA_ASSIGN_OR_RETURN(std::string id, Ident());
    PLEXA_ASSIGN_OR_RETURN(et, ElementType(eloc, id));
  }
  if (TryChar(',')) {
    return ErrorAt(loc,
                   "tensor types with an encoding (bounded dynamic or sparse "
                   "tensors) are not supported");
  }
  PLEXA_RETURN_IF_ERROR(Expect('>'));
  return ShapeUtil::MakeShape(et, dims);
}

absl::StatusOr<Shape> Reader::Type() {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  Skip();
  SrcLoc loc = Here();
  if (TryStr("!stablehlo.token") || TryStr("!mhlo.token")) {
    return ShapeUtil::MakeTokenShape();
  }
  if (TryStr("tensor<")) return TensorType(loc);
  if (TryStr("tuple<")) {
    std::vector<Shape> elems;
    if (!TryChar('>')) {
      do {
        PLEXA_ASSIGN_OR_RETURN(Shape s, Type());
        elems.push_back(std::move(s));
      } while (TryChar(','));
      PLEXA_RETURN_IF_ERROR(Expect('>'));
    }
    return ShapeUtil::MakeTupleShape(elems);
  }
  if (TryStr("complex<")) {
    PLEXA_ASSIGN_OR_RETURN(std::string inner, Ident());
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    if (inner == "f32") return ShapeUtil::MakeScalarShape(PrimitiveType::C64);
    if (inner == "f64") return ShapeUtil::MakeScalarShape(PrimitiveType::C128);
    return ErrorAt(loc,
                   absl::StrCat("unsupported type 'complex<", inner, ">'"));
  }
  if (Peek() == '!') {
    size_t s = pos_;
    ++pos_;
    while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
    return ErrorAt(loc, absl::StrCat("unsupported type '",
                                     text_.substr(s, pos_ - s), "'"));
  }
  absl::string_view id = PeekIdent();
  if (id == "index") {
    pos_ += id.size();
    return ShapeUtil::MakeScalarShape(PrimitiveType::S64);
  }
  if (id == "memref" || id == "vector" || id == "none") {
    return ErrorAt(loc, absl::StrCat("unsupported type '", id, "'"));
  }
  if (id.empty()) return Error("expected a type");
  pos_ += id.size();
  PLEXA_ASSIGN_OR_RETURN(PrimitiveType et, ElementType(loc, id));
  return ShapeUtil::MakeScalarShape(et);
}

absl::StatusOr<std::vector<Shape>> Reader::TypeListInParens() {
  PLEXA_RETURN_IF_ERROR(Expect('('));
  std::vector<Shape> out;
  if (TryChar(')')) return out;
  do {
    PLEXA_ASSIGN_OR_RETURN(Shape s, Type());
    out.push_back(std::move(s));
    // Result attributes in a function signature: {jax.result_info = ...}.
    if (PeekIsChar('{')) PLEXA_RETURN_IF_ERROR(SkipBalanced());
    PLEXA_RETURN_IF_ERROR(SkipLoc());
  } while (TryChar(','));
  PLEXA_RETURN_IF_ERROR(Expect(')'));
  return out;
}

// ------------------------------------------------------------ attributes

absl::StatusOr<MAttrPtr> Reader::Number() {
  Skip();
  auto a = std::make_shared<MAttr>();
  a->loc = Here();
  size_t start = pos_;
  if (Peek() == '-' || Peek() == '+') ++pos_;
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
    pos_ += 2;
    size_t digits = pos_;
    while (std::isxdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    if (pos_ == digits) return Error("expected hex digits");
    a->kind = MAttr::Kind::kInt;
    std::string t(text_.substr(digits, pos_ - digits));
    if (t.size() > 16) return ErrorAt(a->loc, "hex number too large");
    a->i = static_cast<int64_t>(std::strtoull(t.c_str(), nullptr, 16));
    if (text_[start] == '-') a->i = -a->i;
    a->raw = std::string(text_.substr(start, pos_ - start));
    return a;
  }
  bool is_float = false;
  size_t digits = pos_;
  while (std::isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
  if (pos_ == digits) {
    // inf / nan spelled out.
    absl::string_view id = PeekIdent();
    if (id == "inf" || id == "nan") {
      pos_ += id.size();
      a->kind = MAttr::Kind::kFloat;
      a->f = id == "inf" ? HUGE_VAL : std::nan("");
      if (text_[start] == '-') a->f = -a->f;
      a->raw = std::string(text_.substr(start, pos_ - start));
      return a;
    }
    return Error("expected a number");
  }
  if (Peek() == '.') {
    is_float = true;
    ++pos_;
    while (std::isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    size_t save = pos_;
    ++pos_;
    if (Peek() == '-' || Peek() == '+') ++pos_;
    if (std::isdigit(static_cast<unsigned char>(Peek()))) {
      is_float = true;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) ++pos_;
    } else {
      pos_ = save;
    }
  }
  a->raw = std::string(text_.substr(start, pos_ - start));
  if (is_float) {
    a->kind = MAttr::Kind::kFloat;
    a->f = std::strtod(a->raw.c_str(), nullptr);
  } else {
    a->kind = MAttr::Kind::kInt;
    errno = 0;
    a->i = std::strtoll(a->raw.c_str(), nullptr, 10);
    if (errno == ERANGE) {
      // ui64 values above INT64_MAX: keep the bits.
      a->i = static_cast<int64_t>(std::strtoull(a->raw.c_str(), nullptr, 10));
    }
  }
  return a;
}

absl::StatusOr<std::string> Reader::AttrKey() {
  Skip();
  if (Peek() == '"') return QuotedString();
  return Ident();
}

absl::Status Reader::Dict(std::vector<std::pair<std::string, MAttrPtr>>* out,
                          char close) {
  if (TryChar(close)) return absl::OkStatus();
  do {
    PLEXA_ASSIGN_OR_RETURN(std::string key, AttrKey());
    if (TryChar('=')) {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr v, AttrValue());
      out->emplace_back(std::move(key), std::move(v));
    } else {
      auto unit = std::make_shared<MAttr>();
      unit->kind = MAttr::Kind::kUnit;
      out->emplace_back(std::move(key), std::move(unit));
    }
  } while (TryChar(','));
  return Expect(close);
}

// #stablehlo<kind VALUE>, #stablehlo.name<...>, #chlo<...>; anything else
// starting with # is skipped as opaque.
absl::StatusOr<MAttrPtr> Reader::HashAttr() {
  auto a = std::make_shared<MAttr>();
  a->loc = Here();
  ++pos_;  // '#'
  size_t n = 0;
  while (pos_ + n < text_.size() && IsIdentChar(text_[pos_ + n])) ++n;
  std::string dialect(text_.substr(pos_, n));
  pos_ += n;
  const bool ours = absl::StartsWith(dialect, "stablehlo") ||
                    absl::StartsWith(dialect, "chlo") ||
                    absl::StartsWith(dialect, "mhlo");
  if (!ours || Peek() != '<') {
    a->kind = MAttr::Kind::kOpaque;
    a->name = dialect;
    if (Peek() == '<') PLEXA_RETURN_IF_ERROR(SkipBalanced());
    return a;
  }
  ++pos_;  // '<'
  size_t dot = dialect.find('.');
  if (dot == std::string::npos) {
    // #stablehlo<comparison_direction LT>
    a->kind = MAttr::Kind::kEnum;
    PLEXA_ASSIGN_OR_RETURN(a->name, Ident());
    PLEXA_ASSIGN_OR_RETURN(a->s, Ident());
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    return a;
  }
  a->kind = MAttr::Kind::kStruct;
  a->name = dialect.substr(dot + 1);
  if (TryChar('>')) return a;
  if (a->name == "conv") {
    if (TryKeyword("raw")) {
      PLEXA_RETURN_IF_ERROR(Dict(&a->fields, '>'));
      return a;
    }
    PLEXA_ASSIGN_OR_RETURN(MAttrPtr dims, AttrValue());
    a->items.push_back(std::move(dims));
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    return a;
  }
  PLEXA_RETURN_IF_ERROR(Dict(&a->fields, '>'));
  return a;
}

absl::StatusOr<MAttrPtr> Reader::AttrValue() {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  Skip();
  size_t start = pos_;
  PLEXA_ASSIGN_OR_RETURN(MAttrPtr a, AttrValueInner());
  // `[0] x [0]` (dot_general) and `[b, 0, f]x[0, i, o]->[b, 0, f]` (conv).
  if (a->kind == MAttr::Kind::kArray && PeekIdent() == "x") {
    size_t save = pos_;
    ++pos_;
    if (PeekIsChar('[')) {
      auto cross = std::make_shared<MAttr>();
      cross->kind = MAttr::Kind::kCross;
      cross->loc = a->loc;
      cross->items.push_back(a);
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr rhs, AttrValueInner());
      cross->items.push_back(rhs);
      if (TryStr("->")) {
        PLEXA_ASSIGN_OR_RETURN(MAttrPtr out, AttrValueInner());
        cross->items.push_back(out);
      }
      a = cross;
    } else {
      pos_ = save;
    }
  }
  if (a->kind == MAttr::Kind::kInt || a->kind == MAttr::Kind::kFloat ||
      a->kind == MAttr::Kind::kBool || a->kind == MAttr::Kind::kDense ||
      a->kind == MAttr::Kind::kString) {
    // A typed literal: `1 : i64`, `dense<...> : tensor<2xi64>`. Not `::`.
    Skip();
    if (Peek() == ':' && Peek(1) != ':') {
      size_t save = pos_;
      ++pos_;
      Skip();
      absl::string_view id = PeekIdent();
      // Scalar literals take element types (`1 : i64`); a tensor type after
      // one is the op's own type (`stablehlo.iota dim = 0 : tensor<4xi32>`).
      const bool scalar_type =
          !id.empty() && id != "tensor" && id != "tuple" && id != "complex";
      if (a->kind == MAttr::Kind::kDense ? (!id.empty() || Peek() == '!')
                                         : scalar_type) {
        PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
        a->type = std::move(t);
      } else {
        pos_ = save;
      }
    }
  }
  a->raw = std::string(text_.substr(start, pos_ - start));
  return a;
}

absl::StatusOr<MAttrPtr> Reader::AttrValueInner() {
  Skip();
  SrcLoc loc = Here();
  char c = Peek();
  if (c == '[') {
    ++pos_;
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kArray;
    a->loc = loc;
    if (TryChar(']')) return a;
    do {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr item, AttrValue());
      a->items.push_back(std::move(item));
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect(']'));
    return a;
  }
  if (c == '{') {
    ++pos_;
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kDict;
    a->loc = loc;
    PLEXA_RETURN_IF_ERROR(Dict(&a->fields, '}'));
    return a;
  }
  if (c == '"') {
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kString;
    a->loc = loc;
    PLEXA_ASSIGN_OR_RETURN(a->s, QuotedString());
    return a;
  }
  if (c == '@') {
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kSymbol;
    a->loc = loc;
    PLEXA_ASSIGN_OR_RETURN(a->s, SymbolName());
    return a;
  }
  if (c == '#') return HashAttr();
  if (c == '<') {
    // A dialect attribute without its prefix (`algorithm = <lhs_precision_type
    // = tf32, ...>` of a pretty dot): kept opaque.
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kOpaque;
    a->loc = loc;
    PLEXA_RETURN_IF_ERROR(SkipBalanced());
    return a;
  }
  if (c == '(') {
    // A function type (function_type of a generic func.func). Complex
    // literals (1.0, 2.0) only occur inside dense<...>, read from its text.
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kFunctionType;
    a->loc = loc;
    PLEXA_ASSIGN_OR_RETURN(a->fn_inputs, TypeListInParens());
    if (!TryStr("->")) return Error("expected '->' in a function type");
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(a->fn_results, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      a->fn_results.push_back(std::move(t));
    }
    return a;
  }
  if (c == '-' || c == '+' || std::isdigit(static_cast<unsigned char>(c))) {
    return Number();
  }
  absl::string_view id = PeekIdent();
  if (id.empty()) return Error("expected an attribute value");
  auto a = std::make_shared<MAttr>();
  a->loc = loc;
  if (id == "true" || id == "false") {
    pos_ += id.size();
    a->kind = MAttr::Kind::kBool;
    a->b = id == "true";
    return a;
  }
  if (id == "unit") {
    pos_ += id.size();
    a->kind = MAttr::Kind::kUnit;
    return a;
  }
  if (id == "inf" || id == "nan") return Number();
  if ((id == "dense" || id == "dense_resource" || id == "sparse") &&
      Peek(id.size()) == '<') {
    if (id != "dense") {
      return ErrorAt(loc, absl::StrCat("'", id,
                                       "<...>' constants are not supported "
                                       "(print the module without "
                                       "elided or external constants)"));
    }
    pos_ += id.size() + 1;
    size_t begin = pos_;
    // The contents hold numbers, brackets, parentheses and strings, never
    // '<' or '>' outside a string.
    while (true) {
      if (AtEnd()) return Error("unterminated 'dense<'");
      char d = Peek();
      if (d == '"') {
        PLEXA_RETURN_IF_ERROR(QuotedString().status());
        continue;
      }
      if (d == '>') break;
      ++pos_;
    }
    a->kind = MAttr::Kind::kDense;
    a->s = std::string(text_.substr(begin, pos_ - begin));
    ++pos_;
    return a;
  }
  if (id == "array" && Peek(id.size()) == '<') {
    pos_ += id.size() + 1;
    a->kind = MAttr::Kind::kArray;
    SrcLoc tloc = Here();
    PLEXA_ASSIGN_OR_RETURN(std::string et, Ident());
    PLEXA_RETURN_IF_ERROR(ElementType(tloc, et).status());
    if (TryChar(':')) {
      do {
        PLEXA_ASSIGN_OR_RETURN(MAttrPtr item, AttrValueInner());
        a->items.push_back(std::move(item));
      } while (TryChar(','));
    }
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    return a;
  }
  if (id == "tensor" || id == "tuple" || id == "complex") {
    PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
    a->kind = MAttr::Kind::kType;
    a->type = std::move(t);
    return a;
  }
  if (Peek(id.size()) == '<' || Peek(id.size()) == '(') {
    // affine_map<...>, loc(...), and other dialect values we do not read.
    pos_ += id.size();
    a->kind = MAttr::Kind::kOpaque;
    a->name = std::string(id);
    PLEXA_RETURN_IF_ERROR(SkipBalanced());
    return a;
  }
  pos_ += id.size();
  a->kind = MAttr::Kind::kIdent;
  a->s = std::string(id);
  return a;
}

// ------------------------------------------------------------ operations

absl::Status Reader::BlockArgs(std::vector<MBlockArg>* args) {
  PLEXA_RETURN_IF_ERROR(Expect('('));
  if (TryChar(')')) return absl::OkStatus();
  do {
    MBlockArg arg;
    Skip();
    arg.loc = Here();
    PLEXA_ASSIGN_OR_RETURN(arg.name, ValueName(false));
    PLEXA_RETURN_IF_ERROR(Expect(':'));
    PLEXA_ASSIGN_OR_RETURN(arg.type, Type());
    // Argument attributes: {mhlo.layout_mode = "default", ...}.
    if (PeekIsChar('{')) PLEXA_RETURN_IF_ERROR(SkipBalanced());
    PLEXA_RETURN_IF_ERROR(SkipLoc());
    args->push_back(std::move(arg));
  } while (TryChar(','));
  return Expect(')');
}

// After the opening '{' when braces_open; reads up to and including '}'.
absl::Status Reader::Region(MRegion* region, bool braces_open) {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  Skip();
  region->loc = Here();
  if (!braces_open) PLEXA_RETURN_IF_ERROR(Expect('{'));
  Skip();
  if (Peek() == '^') {
    // ^bb0(%a: tensor<f32>, ...):
    ++pos_;
    while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
    if (PeekIsChar('(')) PLEXA_RETURN_IF_ERROR(BlockArgs(&region->args));
    PLEXA_RETURN_IF_ERROR(Expect(':'));
  }
  while (!TryChar('}')) {
    Skip();
    if (AtEnd()) return Error("expected '}' to close the region");
    if (Peek() == '^')
      return Error("regions with several blocks are not supported");
    PLEXA_ASSIGN_OR_RETURN(MOp op, Op());
    region->ops.push_back(std::move(op));
  }
  return absl::OkStatus();
}

absl::Status Reader::TypeSignature(MOp* op) {
  // After ':'. `(a, b) -> c`, `(a) -> (b, c)`, `() -> t` or `t1, t2`.
  Skip();
  if (Peek() == '(') {
    PLEXA_ASSIGN_OR_RETURN(op->operand_types, TypeListInParens());
    PLEXA_RETURN_IF_ERROR(Expect('-'));
    PLEXA_RETURN_IF_ERROR(Expect('>'));
    op->has_function_type = true;
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      op->result_types.push_back(std::move(t));
    }
    return absl::OkStatus();
  }
  do {
    PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
    op->result_types.push_back(std::move(t));
  } while (TryChar(','));
  if (TryStr("->")) {
    // `tensor<16xf32> -> (tensor<3xf32>, tensor<3xi32>)` (chlo.top_k).
    op->operand_types = std::move(op->result_types);
    op->result_types.clear();
    op->has_function_type = true;
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      op->result_types.push_back(std::move(t));
    }
  }
  return absl::OkStatus();
}

absl::Status Reader::GenericOpBody(MOp* op) {
  PLEXA_RETURN_IF_ERROR(Expect('('));
  if (!TryChar(')')) {
    do {
      Skip();
      SrcLoc loc = Here();
      PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
      op->operands.push_back({std::move(v), loc});
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect(')'));
  }
  if (TryStr("<{")) {
    PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
    PLEXA_RETURN_IF_ERROR(Expect('>'));
  }
  if (PeekIsChar('(')) {
    ++pos_;
    do {
      auto region = std::make_unique<MRegion>();
      PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
      op->regions.push_back(std::move(region));
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect(')'));
  }
  if (TryChar('{')) PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
  PLEXA_RETURN_IF_ERROR(Expect(':'));
  PLEXA_RETURN_IF_ERROR(TypeSignature(op));
  return SkipLoc();
}

absl::Status Reader::PrettyOpBody(MOp* op) {
  // Items until ':' (the type), '}' (end of the region) or the next op.
  while (true) {
    Skip();
    if (AtEnd()) return Error("unexpected end of input in an operation");
    char c = Peek();
    SrcLoc loc = Here();
    if (c == ':' && Peek(1) != ':') {
      ++pos_;
      PLEXA_RETURN_IF_ERROR(TypeSignature(op));
      break;
    }
    if (c == '}') return absl::OkStatus();
    if (c == ',') {
      ++pos_;
      continue;
    }
    if (c == '-' && Peek(1) == '>') {
      // `stablehlo.if %p -> (tensor<f32>) { ... } else { ... }`: the result
      // types, then an unlabelled first region.
      pos_ += 2;
      op->has_function_type = true;
      if (PeekIsChar('(')) {
        PLEXA_ASSIGN_OR_RETURN(op->result_types, TypeListInParens());
      } else {
        PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
        op->result_types.push_back(std::move(t));
      }
      if (PeekIsChar('{')) {
        auto region = std::make_unique<MRegion>();
        PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
        op->regions.push_back(std::move(region));
      }
      break;
    }
    if (c == '%') {
      // The next op (`%1 = ...`, `%0:2 = ...`) ends this one.
      size_t save = pos_;
      PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
      Skip();
      if (Peek() == '=' ||
          (Peek() == ':' &&
           std::isdigit(static_cast<unsigned char>(Peek(1))))) {
        pos_ = save;
        return absl::OkStatus();
      }
      op->operands.push_back({std::move(v), loc});
      continue;
    }
    if (c == '(') {
      // (%a, %b) operands; (%x init: %y) reduce; (%it = %c) while.
      ++pos_;
      if (TryChar(')')) continue;
      do {
        Skip();
        SrcLoc vloc = Here();
        if (Peek() != '%') {
          // `k = 3` among the operands (chlo.top_k(%x, k = 3)).
          PLEXA_ASSIGN_OR_RETURN(std::string key, Ident());
          PLEXA_RETURN_IF_ERROR(Expect('='));
          PLEXA_ASSIGN_OR_RETURN(MAttrPtr value, AttrValue());
          op->attrs.emplace_back(std::move(key), std::move(value));
          continue;
        }
        PLEXA_ASSIGN_OR_RETURN(std::string v, ValueName(true));
        if (TryChar('=')) {
          op->iter_args.push_back(v);
          Skip();
          vloc = Here();
          PLEXA_ASSIGN_OR_RETURN(v, ValueName(true));
          op->operands.push_back({std::move(v), vloc});
        } else if (TryKeyword("init")) {
          PLEXA_RETURN_IF_ERROR(Expect(':'));
          op->operands.push_back({std::move(v), vloc});
          Skip();
          vloc = Here();
          PLEXA_ASSIGN_OR_RETURN(std::string init, ValueName(true));
          // Inits follow all inputs: kept apart, appended below.
          auto init_attr = std::make_shared<MAttr>();
          init_attr->kind = MAttr::Kind::kString;
          init_attr->s = init;
          init_attr->loc = vloc;
          op->attrs.emplace_back("__init", std::move(init_attr));
        } else {
          op->operands.push_back({std::move(v), vloc});
        }
      } while (TryChar(','));
      PLEXA_RETURN_IF_ERROR(Expect(')'));
      continue;
    }
    if (c == '<' && Peek(1) == '{') {
      pos_ += 2;
      PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
      PLEXA_RETURN_IF_ERROR(Expect('>'));
      continue;
    }
    if (c == '{') {
      ++pos_;
      PLEXA_RETURN_IF_ERROR(Dict(&op->attrs, '}'));
      continue;
    }
    if (c == '<') {
      // A bare dialect attribute (sdy.sharding_constraint %x <@mesh, [..]>).
      auto a = std::make_shared<MAttr>();
      a->kind = MAttr::Kind::kOpaque;
      a->loc = loc;
      PLEXA_RETURN_IF_ERROR(SkipBalanced());
      op->positional.push_back(std::move(a));
      continue;
    }
    if (c == '[') {
      // A suffix: slice ranges [0:2, 1:3:1] or an index [1].
      ++pos_;
      auto a = std::make_shared<MAttr>();
      a->kind = MAttr::Kind::kArray;
      a->loc = loc;
      if (!TryChar(']')) {
        do {
          auto range = std::make_shared<MAttr>();
          range->kind = MAttr::Kind::kArray;
          range->loc = Here();
          do {
            PLEXA_ASSIGN_OR_RETURN(MAttrPtr n, Number());
            if (n->kind != MAttr::Kind::kInt) {
              return ErrorAt(n->loc, "expected an integer");
            }
            range->items.push_back(std::move(n));
          } while (TryChar(':'));
          a->items.push_back(std::move(range));
        } while (TryChar(','));
        PLEXA_RETURN_IF_ERROR(Expect(']'));
      }
      op->positional.push_back(std::move(a));
      continue;
    }
    if (c == '@' || c == '"' || c == '#' || c == '-' ||
        std::isdigit(static_cast<unsigned char>(c))) {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr a, AttrValue());
      op->positional.push_back(std::move(a));
      continue;
    }
    absl::string_view id = PeekIdent();
    if (id.empty()) return Error("unexpected text in an operation");
    if (id == "loc" && Peek(3) == '(') {
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      continue;
    }
    if (id == "applies") {
      pos_ += id.size();
      PLEXA_ASSIGN_OR_RETURN(op->applies, Ident());
      continue;
    }
    if (id == "across") {
      pos_ += id.size();
      continue;
    }
    size_t save = pos_;
    pos_ += id.size();
    if (TryChar('=')) {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr v, AttrValue());
      op->attrs.emplace_back(std::string(id), std::move(v));
      continue;
    }
    pos_ = save;
    if (id == "dense" || id == "array" || id == "true" || id == "false") {
      PLEXA_ASSIGN_OR_RETURN(MAttrPtr a, AttrValue());
      op->positional.push_back(std::move(a));
      continue;
    }
    // A keyword (LT, FLOAT), unless it starts the next op.
    if (id.find('.') != absl::string_view::npos || id == "return" ||
        id == "call") {
      return absl::OkStatus();
    }
    pos_ += id.size();
    auto a = std::make_shared<MAttr>();
    a->kind = MAttr::Kind::kIdent;
    a->s = std::string(id);
    a->loc = loc;
    op->positional.push_back(std::move(a));
  }
  // Labelled regions after the type: cond {..} do {..}, reducer(..) {..},
  // and a bare `{` region (if/else as `stablehlo.if ... { } else { }`).
  while (true) {
    PLEXA_RETURN_IF_ERROR(SkipLoc());
    Skip();
    absl::string_view id = PeekIdent();
    size_t after = pos_ + id.size();
    while (after < text_.size() &&
           (text_[after] == ' ' || text_[after] == '\n' ||
            text_[after] == '\t' || text_[after] == '\r')) {
      ++after;
    }
    const bool label = !id.empty() && id.find('.') == absl::string_view::npos &&
                       id != "return" && id != "call" && id != "loc" &&
                       after < text_.size() &&
                       (text_[after] == '{' || text_[after] == '(');
    if (!label) break;
    pos_ += id.size();
    auto region = std::make_unique<MRegion>();
    // reducer(%a: t, %c: t) (%b: t, %d: t): one group per input, each
    // (accumulator, value); the block takes all accumulators first.
    std::vector<std::vector<MBlockArg>> groups;
    while (PeekIsChar('(')) {
      groups.emplace_back();
      PLEXA_RETURN_IF_ERROR(BlockArgs(&groups.back()));
    }
    for (int k = 0; k < 2; ++k) {
      for (const auto& g : groups) {
        if (static_cast<int>(g.size()) > k) region->args.push_back(g[k]);
      }
    }
    for (const auto& g : groups) {
      for (size_t k = 2; k < g.size(); ++k) region->args.push_back(g[k]);
    }
    std::vector<MBlockArg> args = std::move(region->args);
    PLEXA_RETURN_IF_ERROR(Region(region.get(), false));
    if (region->args.empty()) region->args = std::move(args);
    op->regions.push_back(std::move(region));
  }
  return absl::OkStatus();
}

absl::StatusOr<MOp> Reader::Op() {
  PLEXA_RETURN_IF_ERROR(Enter());
  DepthGuard guard(&depth_);
  MOp op;
  Skip();
  op.loc = Here();
  // Results: %0 = , %0:2 = , %a, %b = .
  if (Peek() == '%') {
    do {
      PLEXA_ASSIGN_OR_RETURN(std::string r, ValueName(false));
      if (TryChar(':')) {
        PLEXA_ASSIGN_OR_RETURN(MAttrPtr n, Number());
        if (n->kind != MAttr::Kind::kInt || n->i < 1 || n->i > 4096) {
          return ErrorAt(n->loc, "expected a result count");
        }
        for (int64_t k = 0; k < n->i; ++k) {
          op.results.push_back(absl::StrCat(r, "#", k));
        }
      } else {
        op.results.push_back(std::move(r));
      }
    } while (TryChar(','));
    PLEXA_RETURN_IF_ERROR(Expect('='));
    Skip();
    op.loc = Here();
  }
  if (Peek() == '"') {
    PLEXA_ASSIGN_OR_RETURN(op.name, QuotedString());
    op.generic = true;
    PLEXA_RETURN_IF_ERROR(GenericOpBody(&op));
    return op;
  }
  PLEXA_ASSIGN_OR_RETURN(op.name, Ident());
  if (op.name == "call" || op.name == "func.call") {
    // call @f(%a, %b) : (...) -> ...
    auto callee = std::make_shared<MAttr>();
    callee->kind = MAttr::Kind::kSymbol;
    callee->loc = Here();
    PLEXA_ASSIGN_OR_RETURN(callee->s, SymbolName());
    op.positional.push_back(std::move(callee));
  }
  PLEXA_RETURN_IF_ERROR(PrettyOpBody(&op));
  return op;
}

absl::Status Reader::Func(MModule* module) {
  MFunc f;
  Skip();
  f.loc = Here();
  if (TryKeyword("public")) {
    f.is_public = true;
  } else if (TryKeyword("private") || TryKeyword("nested")) {
    f.is_public = false;
  }
  PLEXA_ASSIGN_OR_RETURN(f.name, SymbolName());
  PLEXA_RETURN_IF_ERROR(BlockArgs(&f.args));
  if (TryStr("->")) {
    if (PeekIsChar('(')) {
      PLEXA_ASSIGN_OR_RETURN(f.result_types, TypeListInParens());
    } else {
      PLEXA_ASSIGN_OR_RETURN(Shape t, Type());
      f.result_types.push_back(std::move(t));
    }
  }
  if (TryKeyword("attributes")) {
    if (!PeekIsChar('{')) return Error("expected '{' after 'attributes'");
    PLEXA_RETURN_IF_ERROR(SkipBalanced());
  }
  Skip();
  if (Peek() != '{') {
    return Error(absl::StrCat("expected the body of function @", f.name,
                              " (external functions are not supported)"));
  }
  f.body = std::make_unique<MRegion>();
  PLEXA_RETURN_IF_ERROR(Region(f.body.get(), false));
  f.body->args = f.args;
  PLEXA_RETURN_IF_ERROR(SkipLoc());
  module->funcs.push_back(std::move(f));
  return absl::OkStatus();
}

absl::Status Reader::ModuleBody(MModule* module, bool braced) {
  while (true) {
    Skip();
    if (AtEnd()) {
      if (braced) return Error("expected '}' to close the module");
      return absl::OkStatus();
    }
    if (braced && TryChar('}')) return absl::OkStatus();
    if (Peek() == '#') {
      // #loc1 = loc(...) and other aliases: to the end of the definition.
      ++pos_;
      while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
      PLEXA_RETURN_IF_ERROR(Expect('='));
      PLEXA_RETURN_IF_ERROR(AttrValue().status());
      continue;
    }
    if (Peek() == '"') {
      // The generic form of the module and its functions
      // (`"builtin.module"() ({ "func.func"() <{...}> ({...}) : () -> () })`).
      PLEXA_RETURN_IF_ERROR(GenericContainer(module));
      continue;
    }
    absl::string_view id = PeekIdent();
    if (id == "func.func" || id == "func") {
      pos_ += id.size();
      PLEXA_RETURN_IF_ERROR(Func(module));
      continue;
    }
    if (id == "sdy.mesh") {
      // sdy.mesh @mesh = <...>: device meshes, not needed to run.
      pos_ += id.size();
      PLEXA_RETURN_IF_ERROR(SymbolName().status());
      PLEXA_RETURN_IF_ERROR(Expect('='));
      Skip();
      if (Peek() == '<') PLEXA_RETURN_IF_ERROR(SkipBalanced());
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      continue;
    }
    if (id == "module" && !braced && module->funcs.empty()) {
      pos_ += id.size();
      Skip();
      if (Peek() == '@') {
        PLEXA_ASSIGN_OR_RETURN(module->name, SymbolName());
      }
      if (TryKeyword("attributes")) {
        PLEXA_RETURN_IF_ERROR(Expect('{'));
        PLEXA_RETURN_IF_ERROR(Dict(&module->attrs, '}'));
      }
      PLEXA_RETURN_IF_ERROR(Expect('{'));
      PLEXA_RETURN_IF_ERROR(ModuleBody(module, true));
      PLEXA_RETURN_IF_ERROR(SkipLoc());
      braced = false;
      continue;
    }
    return Error("expected 'func.func' or 'module'");
  }
}

absl::Status Reader::GenericContainer(MModule* module) {
  PLEXA_ASSIGN_OR_RETURN(MOp op, Op());
  if (op.name == "builtin.module") {
    if (const MAttr* n = op.Attr("sym_name")) module->name = n->s;
    if (op.regions.size() != 1) {
      return ErrorAt(op.loc, "'builtin.module' must have one region");
    }
    for (MOp& inner : op.regions[0]->ops) {
      PLEXA_RETURN_IF_ERROR(GenericFunc(std::move(inner), module));
    }
    return absl::OkStatus();
  }
  return GenericFunc(std::move(op), module);
}

absl::Status Reader::GenericFunc(MOp op, MModule* module) {
  if (op.name != "func.func") {
    return ErrorAt(op.loc,
                   absl::StrCat("expected 'func.func', found '", op.name, "'"));
  }
  MFunc f;
  f.loc = op.loc;
  const MAttr* name = op.Attr("sym_name");
  const MAttr* type = op.Attr("function_type");
  if (name == nullptr || type == nullptr ||
      type->kind != MAttr::Kind::kFunctionType || op.regions.size() != 1) {
    return ErrorAt(op.loc,
                   "a generic 'func.func' needs sym_name, function_type and "
                   "a body");
  }
  f.name = name->s;
  if (const MAttr* v = op.Attr("sym_visibility"))
    f.is_public = v->s == "public";
  f.result_types = type->fn_results;
  f.body = std::move(op.regions[0]);
  f.args = f.body->args;
  if (f.args.size() != type->fn_inputs.size()) {
    return ErrorAt(
        op.loc,
        absl::StrCat("@", f.name, " declares ", type->fn_inputs.size(),
                     " argument(s) but its block takes ", f.args.size()));
  }
  module->funcs.push_back(std::move(f));
  return absl::OkStatus();
}

absl::StatusOr<MModule> Reader::Module() {
  MModule module;
  PLEXA_RETURN_IF_ERROR(ModuleBody(&module, false));
  if (module.funcs.empty()) {
    return ErrorAt(Here(), "the module has no function");
  }
  return module;
}

}  // namespace

absl::StatusOr<MModule> ReadMlirModule(absl::string_view text) {
  Reader reader(text);
  return reader.Module();
}

absl::StatusOr<Shape> ReadMlirType(absl::string_view text) {
  Reader reader(text);
  return reader.TypeOnly();
}

}  // namespace plexa::stablehlo
