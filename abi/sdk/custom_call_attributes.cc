#include "abi/sdk/custom_call_attributes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/literal/float16.h"

namespace plexa::sdk {

namespace {

// An attribute's element type: an integer of `bits` (signless, signed or
// unsigned; index is a signed 64-bit), or a float of `bits` (16 is f16, 17
// stands for bf16).
struct AttrType {
  enum Class { kSignless, kSigned, kUnsigned, kFloat } cls = kSignless;
  int bits = 64;
  std::string spelling = "i64";
  bool is_float() const { return cls == kFloat; }
};

// A number as written: its sign, magnitude and spelling.
struct Number {
  bool negative = false;
  bool hex = false;
  bool has_fraction = false;  // a '.' or an exponent: a float literal
  uint64_t magnitude = 0;     // integers (decimal or hex bits)
  std::string text;           // the literal without the sign
};

}  // namespace

// Recursive descent over the dictionary; every error names the offset.
class AttributeParser {
 public:
  explicit AttributeParser(absl::string_view text) : text_(text) {}

  absl::Status ParseInto(CustomCallAttributes* out) {
    SkipSpace();
    if (pos_ == text_.size()) return absl::OkStatus();  // no dictionary
    if (!Consume('{')) return Error("'{' opening the attribute dictionary");
    SkipSpace();
    if (Consume('}')) return ExpectEnd();
    while (true) {
      CustomCallAttributes::Entry entry;
      const size_t name_at = pos_;
      absl::StatusOr<std::string> name = ParseName();
      if (!name.ok()) return name.status();
      for (const CustomCallAttributes::Entry& e : out->entries_) {
        if (e.name == *name) {
          return ErrorAt(name_at, absl::StrCat("a new name ('", *name,
                                               "' is given twice)"));
        }
      }
      entry.name = std::move(*name);
      SkipSpace();
      if (!Consume('=')) {
        return Error(absl::StrCat("'=' after '", entry.name,
                                  "' (unit attributes are not supported)"));
      }
      SkipSpace();
      if (absl::Status s = ParseValue(&entry); !s.ok()) return s;
      out->entries_.push_back(std::move(entry));
      SkipSpace();
      if (Consume(',')) {
        SkipSpace();
        continue;
      }
      if (Consume('}')) return ExpectEnd();
      return Error("',' or '}' after an attribute");
    }
  }

 private:
  absl::Status ExpectEnd() {
    SkipSpace();
    if (pos_ != text_.size()) return Error("the end after '}'");
    return absl::OkStatus();
  }

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(text_[pos_])) ++pos_;
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    const size_t end = pos_ + word.size();
    if (end < text_.size() && IsIdentChar(text_[end])) return false;
    pos_ = end;
    return true;
  }
  static bool IsIdentStart(char c) {
    return absl::ascii_isalpha(c) || c == '_';
  }
  static bool IsIdentChar(char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '$' || c == '.';
  }

  absl::Status ErrorAt(size_t at, absl::string_view expected) const {
    std::string found =
        at >= text_.size()
            ? "the end of the text"
            : absl::StrCat("'", text_.substr(at, 16),
                           at + 16 < text_.size() ? "..." : "", "'");
    return absl::InvalidArgumentError(absl::StrCat(
        "at offset ", at, ": expected ", expected, ", found ", found));
  }
  absl::Status Error(absl::string_view expected) const {
    return ErrorAt(pos_, expected);
  }

  absl::StatusOr<std::string> ParseName() {
    if (pos_ < text_.size() && text_[pos_] == '"') return ParseString();
    if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) {
      return Error("an attribute name");
    }
    const size_t begin = pos_;
    while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
    return std::string(text_.substr(begin, pos_ - begin));
  }

  // "..." with MLIR's escapes: \" \\ \n \t and \XX (two hex digits).
  absl::StatusOr<std::string> ParseString() {
    const size_t begin = pos_;
    if (!Consume('"')) return Error("'\"'");
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_];
      if (e == '"' || e == '\\') {
        out.push_back(e);
        ++pos_;
      } else if (e == 'n') {
        out.push_back('\n');
        ++pos_;
      } else if (e == 't') {
        out.push_back('\t');
        ++pos_;
      } else if (pos_ + 1 < text_.size() && absl::ascii_isxdigit(e) &&
                 absl::ascii_isxdigit(text_[pos_ + 1])) {
        int v = 0;
        for (int k = 0; k < 2; ++k) {
          const char h = absl::ascii_tolower(text_[pos_ + k]);
          v = v * 16 + (absl::ascii_isdigit(h) ? h - '0' : h - 'a' + 10);
        }
        out.push_back(static_cast<char>(v));
        pos_ += 2;
      } else {
        return ErrorAt(pos_ - 1, "an escape (\\\" \\\\ \\n \\t or \\XX)");
      }
    }
    if (!Consume('"')) return ErrorAt(begin, "a string closed by '\"'");
    return out;
  }

  absl::StatusOr<AttrType> ParseType() {
    const size_t begin = pos_;
    while (pos_ < text_.size() && absl::ascii_isalnum(text_[pos_])) ++pos_;
    const std::string word(text_.substr(begin, pos_ - begin));
    AttrType t;
    t.spelling = word;
    if (word == "index") return t;  // signless 64-bit
    if (word == "f16" || word == "bf16" || word == "f32" || word == "f64") {
      t.cls = AttrType::kFloat;
      t.bits = word == "bf16"  ? 17
               : word == "f16" ? 16
               : word == "f32" ? 32
                               : 64;
      return t;
    }
    absl::string_view digits = word;
    if (absl::StartsWith(word, "si")) {
      t.cls = AttrType::kSigned;
      digits.remove_prefix(2);
    } else if (absl::StartsWith(word, "ui")) {
      t.cls = AttrType::kUnsigned;
      digits.remove_prefix(2);
    } else if (absl::StartsWith(word, "i")) {
      digits.remove_prefix(1);
    } else {
      digits = "";
    }
    int bits = 0;
    if (!digits.empty() && absl::SimpleAtoi(digits, &bits) && bits >= 1 &&
        bits <= 64) {
      t.bits = bits;
      return t;
    }
    return ErrorAt(begin,
                   "a type (i1..i64, si.., ui.., index, f16, bf16, f32, f64)");
  }

  absl::StatusOr<Number> ParseNumber() {
    Number n;
    const size_t begin = pos_;
    if (Consume('-')) n.negative = true;
    const size_t digits = pos_;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") {
      pos_ += 2;
      const size_t hex_begin = pos_;
      while (pos_ < text_.size() && absl::ascii_isxdigit(text_[pos_])) ++pos_;
      if (pos_ == hex_begin || pos_ - hex_begin > 16) {
        return ErrorAt(begin, "hexadecimal digits (at most 16)");
      }
      n.hex = true;
      n.text = std::string(text_.substr(digits, pos_ - digits));
      for (size_t i = hex_begin; i < pos_; ++i) {
        const char h = absl::ascii_tolower(text_[i]);
        n.magnitude = n.magnitude * 16 +
                      (absl::ascii_isdigit(h) ? h - '0' : h - 'a' + 10);
      }
      return n;
    }
    while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    if (pos_ == digits) return ErrorAt(begin, "a number");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      n.has_fraction = true;
      ++pos_;
      while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      n.has_fraction = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      const size_t exp = pos_;
      while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) ++pos_;
      if (pos_ == exp) return ErrorAt(begin, "an exponent's digits");
    }
    n.text = std::string(text_.substr(digits, pos_ - digits));
    if (!n.has_fraction && !absl::SimpleAtoi(n.text, &n.magnitude)) {
      return ErrorAt(begin, "an integer of at most 64 bits");
    }
    return n;
  }

  // The value of integer `n` as `type` (checked against its range).
  absl::StatusOr<int64_t> IntegerValue(const Number& n, const AttrType& type,
                                       size_t at) const {
    if (n.has_fraction) {
      return ErrorAt(at, absl::StrCat("an integer for ", type.spelling));
    }
    const int bits = type.bits;
    // The largest magnitude allowed on each side.
    const uint64_t max_unsigned = bits == 64
                                      ? std::numeric_limits<uint64_t>::max()
                                      : (uint64_t{1} << bits) - 1;
    const uint64_t max_positive =
        type.cls == AttrType::kSigned ? max_unsigned >> 1 : max_unsigned;
    const uint64_t max_negative =
        type.cls == AttrType::kUnsigned ? 0 : (max_unsigned >> 1) + 1;
    if (n.negative ? n.magnitude > max_negative : n.magnitude > max_positive) {
      return ErrorAt(at, absl::StrCat("a value that fits ", type.spelling));
    }
    if (n.negative) return static_cast<int64_t>(0 - n.magnitude);
    return static_cast<int64_t>(n.magnitude);  // ui64 above 2^63-1: bits
  }

  // The value of `n` as float `type`, rounded to it.
  absl::StatusOr<double> FloatValue(const Number& n, const AttrType& type,
                                    size_t at) const {
    double v = 0;
    if (n.hex) {
      const int width = type.bits == 17 ? 16 : type.bits;
      if (width < 64 && n.magnitude >> width != 0) {
        return ErrorAt(at, absl::StrCat(width, " bits of ", type.spelling));
      }
      switch (type.bits) {
        case 16:
          v = Half::ToFloat(static_cast<uint16_t>(n.magnitude));
          break;
        case 17:
          v = BFloat16::ToFloat(static_cast<uint16_t>(n.magnitude));
          break;
        case 32: {
          const uint32_t bits = static_cast<uint32_t>(n.magnitude);
          float f;
          std::memcpy(&f, &bits, sizeof f);
          v = f;
          break;
        }
        default:
          std::memcpy(&v, &n.magnitude, sizeof v);
          break;
      }
      return n.negative ? -v : v;
    }
    if (!absl::SimpleAtod(n.text, &v)) {
      return ErrorAt(at, absl::StrCat("a number for ", type.spelling));
    }
    if (n.negative) v = -v;
    switch (type.bits) {
      case 16:
        v = Half::ToFloat(DoubleToHalfBits(v));
        break;
      case 17:
        v = BFloat16::ToFloat(DoubleToBFloat16Bits(v));
        break;
      case 32:
        v = static_cast<float>(v);
        break;
      default:
        break;
    }
    if (std::isinf(v)) {
      return ErrorAt(at,
                     absl::StrCat("a value in the range of ", type.spelling));
    }
    return v;
  }

  absl::Status ParseValue(CustomCallAttributes::Entry* e) {
    const size_t at = pos_;
    if (pos_ >= text_.size()) return Error("a value");
    const char c = text_[pos_];
    if (c == '"') {
      absl::StatusOr<std::string> s = ParseString();
      if (!s.ok()) return s.status();
      e->kind = PLX_Attribute_STRING;
      e->string_value = std::move(*s);
      return absl::OkStatus();
    }
    if (ConsumeWord("true") || ConsumeWord("false")) {
      e->kind = PLX_Attribute_BOOL;
      e->int64_value = text_[at] == 't' ? 1 : 0;
      return absl::OkStatus();
    }
    if (ConsumeWord("array")) return ParseArray(e);
    if (c == '-' || absl::ascii_isdigit(c)) {
      absl::StatusOr<Number> n = ParseNumber();
      if (!n.ok()) return n.status();
      AttrType type;
      if (n->has_fraction) {
        type.cls = AttrType::kFloat;
        type.spelling = "f64";
      }
      SkipSpace();
      if (Consume(':')) {
        SkipSpace();
        absl::StatusOr<AttrType> t = ParseType();
        if (!t.ok()) return t.status();
        type = *t;
      }
      if (type.is_float()) {
        absl::StatusOr<double> v = FloatValue(*n, type, at);
        if (!v.ok()) return v.status();
        e->kind = PLX_Attribute_DOUBLE;
        e->double_value = *v;
        return absl::OkStatus();
      }
      absl::StatusOr<int64_t> v = IntegerValue(*n, type, at);
      if (!v.ok()) return v.status();
      e->kind = type.bits == 1 && type.cls == AttrType::kSignless
                    ? PLX_Attribute_BOOL
                    : PLX_Attribute_INT64;
      e->int64_value = *v;
      return absl::OkStatus();
    }
    return Error(
        "a value (a number with its type, true, false, a string or "
        "array<type: ...>)");
  }

  // array<TYPE> or array<TYPE: v, v, ...>.
  absl::Status ParseArray(CustomCallAttributes::Entry* e) {
    if (!Consume('<')) return Error("'<' after array");
    SkipSpace();
    absl::StatusOr<AttrType> type = ParseType();
    if (!type.ok()) return type.status();
    e->kind = type->is_float() ? PLX_Attribute_DOUBLE_ARRAY
                               : PLX_Attribute_INT64_ARRAY;
    SkipSpace();
    if (Consume('>')) return absl::OkStatus();
    if (!Consume(':')) return Error("':' or '>' in array<...>");
    while (true) {
      SkipSpace();
      const size_t at = pos_;
      const bool is_bool = type->bits == 1 && !type->is_float();
      if (is_bool && (ConsumeWord("true") || ConsumeWord("false"))) {
        e->int64_array.push_back(text_[at] == 't' ? 1 : 0);
      } else {
        absl::StatusOr<Number> n = ParseNumber();
        if (!n.ok()) return n.status();
        if (type->is_float()) {
          absl::StatusOr<double> v = FloatValue(*n, *type, at);
          if (!v.ok()) return v.status();
          e->double_array.push_back(*v);
        } else {
          absl::StatusOr<int64_t> v = IntegerValue(*n, *type, at);
          if (!v.ok()) return v.status();
          e->int64_array.push_back(*v);
        }
      }
      SkipSpace();
      if (Consume(',')) continue;
      if (Consume('>')) return absl::OkStatus();
      return Error("',' or '>' in array<...>");
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

absl::StatusOr<std::shared_ptr<const CustomCallAttributes>>
CustomCallAttributes::Parse(absl::string_view text) {
  std::shared_ptr<CustomCallAttributes> out(new CustomCallAttributes());
  AttributeParser parser(text);
  if (absl::Status s = parser.ParseInto(out.get()); !s.ok()) return s;
  std::sort(out->entries_.begin(), out->entries_.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  out->BuildView();
  return std::shared_ptr<const CustomCallAttributes>(std::move(out));
}

void CustomCallAttributes::BuildView() {
  view_.clear();
  view_.reserve(entries_.size());
  for (const Entry& e : entries_) {
    PLX_Attribute a{};
    a.struct_size = PLX_Attribute_STRUCT_SIZE;
    a.name = e.name.c_str();
    a.kind = e.kind;
    a.int64_value = e.int64_value;
    a.double_value = e.double_value;
    if (e.kind == PLX_Attribute_STRING) {
      a.string_value = e.string_value.c_str();
      a.string_size = e.string_value.size();
    }
    if (e.kind == PLX_Attribute_INT64_ARRAY) {
      a.int64_array = e.int64_array.data();
      a.array_size = e.int64_array.size();
    }
    if (e.kind == PLX_Attribute_DOUBLE_ARRAY) {
      a.double_array = e.double_array.data();
      a.array_size = e.double_array.size();
    }
    view_.push_back(a);
  }
}

}  // namespace plexa::sdk
