// dense<...> element attributes as HLO literal text. The values are only
// re-spelled here (nested lists, splats, hex blobs, hex bit patterns of
// special floats, complex pairs); Plexa's HLO literal parser reads them, so
// rounding and range checks are the ones every `.hlo` constant gets.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/base/status_macros.h"
#include "core/literal/float16.h"
#include "core/literal/float8.h"
#include "core/shape/primitive_type.h"
#include "core/shape/shape_util.h"
#include "core/stablehlo/lower.h"

namespace plexa::stablehlo {
namespace {

absl::Status ErrorAt(const SrcLoc& loc, absl::string_view msg) {
  return absl::InvalidArgumentError(
      absl::StrCat(loc.line, ":", loc.col, ": ", msg));
}

bool IsFloat(PrimitiveType t) {
  return t == PrimitiveType::F16 || t == PrimitiveType::BF16 ||
         t == PrimitiveType::F32 || t == PrimitiveType::F64 ||
         SmallFloatFormatOf(t) != nullptr;
}
bool IsComplex(PrimitiveType t) {
  return t == PrimitiveType::C64 || t == PrimitiveType::C128;
}
bool IsUnsigned(PrimitiveType t) {
  return t == PrimitiveType::U8 || t == PrimitiveType::U16 ||
         t == PrimitiveType::U32 || t == PrimitiveType::U64 ||
         t == PrimitiveType::U4 || t == PrimitiveType::U2;
}

// Bytes per element in MLIR's hex blobs.
int HexElementBytes(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::S16:
    case PrimitiveType::U16:
    case PrimitiveType::F16:
    case PrimitiveType::BF16:
      return 2;
    case PrimitiveType::S32:
    case PrimitiveType::U32:
    case PrimitiveType::F32:
      return 4;
    case PrimitiveType::S64:
    case PrimitiveType::U64:
    case PrimitiveType::F64:
    case PrimitiveType::C64:
      return 8;
    case PrimitiveType::C128:
      return 16;
    default:
      return 1;
  }
}

std::string DoubleText(double d) {
  if (std::isnan(d)) return std::signbit(d) ? "-nan" : "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", d);
  return buf;
}

// The value of a float of type `t` whose encoding is `bits`.
double FloatFromBits(PrimitiveType t, uint64_t bits) {
  switch (t) {
    case PrimitiveType::F16:
      return Half::ToFloat(static_cast<uint16_t>(bits));
    case PrimitiveType::BF16:
      return BFloat16::ToFloat(static_cast<uint16_t>(bits));
    case PrimitiveType::F32: {
      uint32_t b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, 4);
      return f;
    }
    case PrimitiveType::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    default: {
      const SmallFloatFormat* fmt = SmallFloatFormatOf(t);
      if (fmt == nullptr) return 0;
      if (SmallFloatIsNan(*fmt, static_cast<uint8_t>(bits)))
        return std::nan("");
      return SmallFloatToDouble(*fmt, static_cast<uint8_t>(bits));
    }
  }
}

uint64_t ReadLe(const std::vector<uint8_t>& bytes, size_t at, int n) {
  uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | bytes[at + k];
  return v;
}

std::string IntFromBits(PrimitiveType t, uint64_t bits, int nbytes) {
  if (t == PrimitiveType::PRED) return bits != 0 ? "true" : "false";
  if (IsUnsigned(t)) return absl::StrCat(bits);
  int width = nbytes * 8;
  if (t == PrimitiveType::S4) width = 4;
  if (t == PrimitiveType::S2) width = 2;
  int64_t v = static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  return absl::StrCat(v);
}

// One element's text, read from `s` at `*pos`.
class DenseReader {
 public:
  DenseReader(absl::string_view s, const SrcLoc& loc, PrimitiveType type)
      : s_(s), loc_(loc), type_(type) {}

  void Skip() {
    while (pos_ < s_.size() &&
           std::isspace(static_cast<unsigned char>(s_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() {
    Skip();
    return pos_ >= s_.size();
  }
  char Peek() {
    Skip();
    return pos_ < s_.size() ? s_[pos_] : '\0';
  }
  absl::Status Error(absl::string_view msg) {
    return ErrorAt(loc_, absl::StrCat("in dense<", s_, ">: ", msg));
  }

  // A number or keyword token.
  absl::StatusOr<std::string> Token() {
    Skip();
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) ||
            s_[pos_] == '-' || s_[pos_] == '+' || s_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ == start) return Error("expected a value");
    return std::string(s_.substr(start, pos_ - start));
  }

  absl::StatusOr<std::string> Scalar(PrimitiveType t, const std::string& tok) {
    const bool negative = !tok.empty() && tok[0] == '-';
    absl::string_view body = tok;
    if (negative || (!tok.empty() && tok[0] == '+')) body.remove_prefix(1);
    const bool hex =
        body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
    if (t == PrimitiveType::PRED) {
      if (tok == "true" || tok == "1") return std::string("true");
      if (tok == "false" || tok == "0") return std::string("false");
      return Error(absl::StrCat("'", tok, "' is not a boolean"));
    }
    if (IsFloat(t)) {
      if (hex) {
        uint64_t bits =
            std::strtoull(std::string(body.substr(2)).c_str(), nullptr, 16);
        double d = FloatFromBits(t, bits);
        return DoubleText(negative ? -d : d);
      }
      if (body == "inf" || body == "nan") return tok;
      char* end = nullptr;
      std::string copy(tok);
      std::strtod(copy.c_str(), &end);
      if (end == copy.c_str() || *end != '\0') {
        return Error(absl::StrCat("'", tok, "' is not a number"));
      }
      return tok;
    }
    // Integers.
    if (hex) {
      uint64_t bits =
          std::strtoull(std::string(body.substr(2)).c_str(), nullptr, 16);
      std::string v = IntFromBits(t, bits, HexElementBytes(t));
      return negative ? absl::StrCat("-", v) : v;
    }
    if (tok == "true") return std::string("1");
    if (tok == "false") return std::string("0");
    for (char c : body) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        return Error(absl::StrCat("'", tok, "' is not an integer"));
      }
    }
    if (body.empty()) return Error("expected an integer");
    return tok;
  }

  // An element: a scalar, or (re, im) for complex types.
  absl::StatusOr<std::string> Element() {
    if (IsComplex(type_)) {
      PrimitiveType part =
          type_ == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
      if (Peek() != '(') return Error("expected a complex value '(re, im)'");
      ++pos_;
      PLEXA_ASSIGN_OR_RETURN(std::string re_tok, Token());
      PLEXA_ASSIGN_OR_RETURN(std::string re, Scalar(part, re_tok));
      if (Peek() != ',') return Error("expected ','");
      ++pos_;
      PLEXA_ASSIGN_OR_RETURN(std::string im_tok, Token());
      PLEXA_ASSIGN_OR_RETURN(std::string im, Scalar(part, im_tok));
      if (Peek() != ')') return Error("expected ')'");
      ++pos_;
      return absl::StrCat("(", re, ", ", im, ")");
    }
    PLEXA_ASSIGN_OR_RETURN(std::string tok, Token());
    return Scalar(type_, tok);
  }

  // A nested list for dims[depth..], appended to `out` flat.
  absl::Status List(absl::Span<const int64_t> dims, size_t depth,
                    std::vector<std::string>* out) {
    if (depth > 64) return Error("nesting too deep");
    if (depth == dims.size()) {
      PLEXA_ASSIGN_OR_RETURN(std::string e, Element());
      out->push_back(std::move(e));
      return absl::OkStatus();
    }
    if (Peek() != '[') {
      return Error(absl::StrCat("expected '[' for dimension ", depth));
    }
    ++pos_;
    int64_t count = 0;
    if (Peek() == ']') {
      ++pos_;
    } else {
      while (true) {
        PLEXA_RETURN_IF_ERROR(List(dims, depth + 1, out));
        ++count;
        if (count > dims[depth]) break;
        if (Peek() == ',') {
          ++pos_;
          continue;
        }
        if (Peek() != ']') return Error("expected ',' or ']'");
        ++pos_;
        break;
      }
    }
    if (count != dims[depth]) {
      return Error(absl::StrCat("dimension ", depth, " has ", count,
                                " element(s) where the type has ",
                                dims[depth]));
    }
    return absl::OkStatus();
  }

  size_t pos_ = 0;

 private:
  absl::string_view s_;
  SrcLoc loc_;
  PrimitiveType type_;
};

// Flat element texts as an HLO literal of shape `dims`.
std::string Nest(const std::vector<std::string>& flat,
                 absl::Span<const int64_t> dims, size_t depth, size_t* at) {
  if (depth == dims.size()) return flat[(*at)++];
  std::vector<std::string> parts;
  for (int64_t i = 0; i < dims[depth]; ++i) {
    parts.push_back(Nest(flat, dims, depth + 1, at));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

}  // namespace

absl::StatusOr<std::string> ScalarToLiteral(const MAttr& value,
                                            PrimitiveType type) {
  DenseReader reader(value.raw, value.loc, type);
  if (value.kind == MAttr::Kind::kBool)
    return std::string(value.b ? "true" : "false");
  std::string tok = value.raw;
  size_t colon = tok.find(':');
  if (colon != std::string::npos) tok = tok.substr(0, colon);
  while (!tok.empty() && std::isspace(static_cast<unsigned char>(tok.back()))) {
    tok.pop_back();
  }
  return reader.Scalar(type, tok);
}

absl::StatusOr<std::string> DenseToLiteral(const MAttr& dense,
                                           const Shape& type, bool* splat) {
  *splat = false;
  if (!type.IsArray()) {
    return ErrorAt(dense.loc, "a dense<...> constant must have a tensor type");
  }
  const PrimitiveType et = type.element_type();
  int64_t n = 1;
  for (int64_t d : type.dimensions()) {
    if (d != 0 && n > (int64_t{1} << 28) / d) {
      return ErrorAt(dense.loc, "constant too large");
    }
    n *= d;
  }
  DenseReader reader(dense.s, dense.loc, et);
  std::vector<std::string> flat;
  if (reader.Peek() == '"') {
    // "0x0000803F...": the elements' bytes, little-endian, or one element
    // (a splat).
    std::string hex;
    size_t p = dense.s.find('"') + 1;
    size_t end = dense.s.find('"', p);
    if (end == std::string::npos) return reader.Error("unterminated string");
    hex = dense.s.substr(p, end - p);
    if (hex.size() < 2 || hex[0] != '0' || (hex[1] != 'x' && hex[1] != 'X')) {
      return reader.Error("expected a hex string \"0x...\"");
    }
    std::vector<uint8_t> bytes;
    for (size_t i = 2; i + 1 < hex.size(); i += 2) {
      if (!std::isxdigit(static_cast<unsigned char>(hex[i])) ||
          !std::isxdigit(static_cast<unsigned char>(hex[i + 1]))) {
        return reader.Error("bad hex digit");
      }
      bytes.push_back(static_cast<uint8_t>(
          std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16)));
    }
    if (hex.size() % 2 != 0) return reader.Error("odd number of hex digits");
    const int eb = HexElementBytes(et);
    const int64_t count = static_cast<int64_t>(bytes.size()) / eb;
    if (static_cast<int64_t>(bytes.size()) % eb != 0 ||
        (count != n && count != 1)) {
      return reader.Error(absl::StrCat(bytes.size(), " bytes do not hold ", n,
                                       " element(s) of ", ShapeText(type)));
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string e;
      if (IsComplex(et)) {
        PrimitiveType part =
            et == PrimitiveType::C64 ? PrimitiveType::F32 : PrimitiveType::F64;
        int half = eb / 2;
        e = absl::StrCat(
            "(", DoubleText(FloatFromBits(part, ReadLe(bytes, i * eb, half))),
            ", ",
            DoubleText(FloatFromBits(part, ReadLe(bytes, i * eb + half, half))),
            ")");
      } else if (IsFloat(et)) {
        e = DoubleText(FloatFromBits(et, ReadLe(bytes, i * eb, eb)));
      } else {
        e = IntFromBits(et, ReadLe(bytes, i * eb, eb), eb);
      }
      flat.push_back(std::move(e));
    }
  } else if (reader.AtEnd()) {
    if (n != 0) return reader.Error("no values for a non-empty tensor");
  } else if (reader.Peek() != '[') {
    PLEXA_ASSIGN_OR_RETURN(std::string e, reader.Element());
    flat.push_back(std::move(e));
  } else if (type.rank() == 0) {
    return reader.Error("a list for a scalar type");
  } else {
    PLEXA_RETURN_IF_ERROR(reader.List(type.dimensions(), 0, &flat));
  }
  if (!reader.AtEnd() && reader.Peek() != '"') {
    return reader.Error("unexpected text after the values");
  }
  if (static_cast<int64_t>(flat.size()) != n) {
    if (flat.size() != 1) {
      return reader.Error(
          absl::StrCat(flat.size(), " value(s) for ", n, " element(s)"));
    }
    if (n > 1) {
      *splat = true;
      return flat[0];
    }
    flat.assign(n, flat[0]);
  }
  if (n == 0) return type.rank() == 0 ? std::string("0") : std::string("{}");
  size_t at = 0;
  return Nest(flat, type.dimensions(), 0, &at);
}

}  // namespace plexa::stablehlo
