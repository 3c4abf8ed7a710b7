// Literals of constants, as Literal::ToStringWithoutShape and XLA print them:
//
//   scalar   42, -1.5, 1e-05, true, inf, -inf, nan, -nan, nan(0x7f), (1, 2)
//   array    {1, 2, 3}   { { 1, 2 }, { 3, 4 } }   one brace level per
//            dimension; a zero-sized dimension is an empty {} and has no
//            inner levels; {...} (XLA's elided large constant) reads as zeros
//   tuple    ( {1, 2}, 3 )
//
// Integers are read exactly (u64 max, s64 min) and must fit the element
// type; floating-point values must be finite in the element type unless
// spelled inf/nan. pred accepts true/false and 0/1. Complex values are
// (real, imaginary); a plain real number means a zero imaginary part.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/literal/float8.h"
#include "core/shape/shape_util.h"
#include "core/text/parser_impl.h"

namespace plexa::text_internal {
namespace {

struct Scalar {
  enum Kind { kInt, kUint, kReal, kComplex } kind = kInt;
  int64_t i = 0;
  uint64_t u = 0;
  double re = 0;
  double im = 0;
};

int MantissaBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16:
      return 10;
    case PrimitiveType::BF16:
      return 7;
    case PrimitiveType::F32:
      return 23;
    default:
      return 52;
  }
}

double OverflowLimit(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16:
      return 65520.0;  // max 65504 + half an ulp
    case PrimitiveType::BF16:
      return std::ldexp(1.0, 128) - std::ldexp(1.0, 119);
    case PrimitiveType::F32:
      return std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    default:
      return std::numeric_limits<double>::infinity();
  }
}

uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return std::numeric_limits<uint64_t>::max();
  }
  return a * b;
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

// Reads one real number of floating-point type `type` (also the component
// type of a complex).
absl::StatusOr<double> ParseReal(Parser* p, PrimitiveType type,
                                 absl::string_view type_name) {
  Lexer& lex = p->lexer();
  const Token& t = lex.Peek();
  const std::string what = absl::StrCat("a ", type_name, " value");
  if (t.kind == TokKind::kInt || t.kind == TokKind::kDecimal) {
    const double v = t.value;
    if (!(std::fabs(v) < OverflowLimit(type))) {
      return p->ErrorHere(absl::StrCat(what, " (finite in ", type_name, ")"));
    }
    if (const SmallFloatFormat* f = SmallFloatFormatOf(type)) {
      // f8/f4: a number must round to a number of the type (not to its
      // NaN or inf, as 500 would in f8e4m3fn, or 0 in f8e8m0fnu).
      const uint8_t bits = DoubleToSmallFloatBits(*f, v);
      if (!std::isfinite(SmallFloatToDouble(*f, bits))) {
        return p->ErrorHere(
            absl::StrCat(what, " (a number ", type_name, " can hold)"));
      }
    }
    lex.Take();
    return v;
  }
  if (t.kind != TokKind::kIdent) return p->ErrorHere(what);
  const bool negative = !t.str.empty() && t.str[0] == '-';
  const absl::string_view word =
      absl::string_view(t.str).substr(negative ? 1 : 0);
  if (SmallFloatFormatOf(type) != nullptr &&
      ((word == "inf" && !primitive_util::HasInfinity(type)) ||
       (word == "nan" && type == PrimitiveType::F4E2M1FN))) {
    return p->ErrorHere(
        absl::StrCat(what, " (", type_name, " has no ", word, ")"));
  }
  if (word == "inf") {
    lex.Take();
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (word != "nan") return p->ErrorHere(what);
  const size_t nan_end = t.end;
  lex.Take();
  double v = std::numeric_limits<double>::quiet_NaN();
  // nan(0x...) gives the payload in the element type's mantissa bits. It is
  // placed in the top bits of a double's mantissa, which narrowing keeps.
  const absl::string_view text = lex.text();
  if (nan_end < text.size() && text[nan_end] == '(') {
    size_t i = nan_end + 1;
    uint64_t payload = 0;
    bool ok = text.substr(i, 2) == "0x";
    i += 2;
    size_t digits = 0;
    while (ok && i < text.size() && IsHexDigit(text[i])) {
      const char c = text[i];
      const uint64_t d = c <= '9'   ? static_cast<uint64_t>(c - '0')
                         : c <= 'F' ? static_cast<uint64_t>(c - 'A' + 10)
                                    : static_cast<uint64_t>(c - 'a' + 10);
      if (payload >> 60 != 0) ok = false;
      payload = (payload << 4) | d;
      ++digits;
      ++i;
    }
    const int mbits = MantissaBits(type);
    const uint64_t mask = (uint64_t{1} << mbits) - 1;
    ok = ok && digits > 0 && i < text.size() && text[i] == ')' &&
         payload != 0 && payload <= mask;
    if (!ok) {
      return p->ErrorAt(nan_end,
                        absl::StrCat("a NaN payload (0x1..0x", absl::Hex(mask),
                                     ") for ", type_name),
                        "a malformed payload");
    }
    const uint64_t bits = (negative ? uint64_t{1} << 63 : 0) |
                          (uint64_t{0x7ff} << 52) | (payload << (52 - mbits));
    std::memcpy(&v, &bits, sizeof(v));
    lex.AdvanceTo(i + 1);
    return v;
  }
  return negative ? -v : v;
}

absl::Status ParseScalar(Parser* p, PrimitiveType type, Scalar* out) {
  Lexer& lex = p->lexer();
  const absl::string_view name = primitive_util::Name(type);
  const Token& t = lex.Peek();
  if (type == PrimitiveType::PRED) {
    out->kind = Scalar::kInt;
    if (t.kind == TokKind::kIdent && (t.str == "true" || t.str == "false")) {
      out->i = t.str == "true" ? 1 : 0;
      lex.Take();
      return absl::OkStatus();
    }
    if (t.kind == TokKind::kInt && !t.overflow && t.magnitude <= 1 &&
        !(t.negative && t.magnitude == 1)) {
      out->i = static_cast<int64_t>(t.magnitude);
      lex.Take();
      return absl::OkStatus();
    }
    return p->ErrorHere("a pred value (true, false, 0 or 1)");
  }
  if (primitive_util::IsIntegralType(type)) {
    const int bits = static_cast<int>(primitive_util::BitWidth(type));
    const bool is_signed = primitive_util::IsSignedIntegralType(type);
    std::string range;
    uint64_t limit;
    if (is_signed) {
      const uint64_t max = (uint64_t{1} << (bits - 1)) - 1;
      limit = t.negative ? max + 1 : max;
      range = absl::StrCat("[-", max + 1, ", ", max, "]");
    } else {
      limit = bits == 64 ? std::numeric_limits<uint64_t>::max()
                         : (uint64_t{1} << bits) - 1;
      range = absl::StrCat("[0, ", limit, "]");
    }
    const std::string what = absl::StrCat("an ", name, " value in ", range);
    if (t.kind != TokKind::kInt) return p->ErrorHere(what);
    if (t.overflow || t.magnitude > limit ||
        (!is_signed && t.negative && t.magnitude != 0)) {
      return p->ErrorHere(what);
    }
    if (is_signed) {
      out->kind = Scalar::kInt;
      out->i = t.negative ? static_cast<int64_t>(0 - t.magnitude)
                          : static_cast<int64_t>(t.magnitude);
    } else {
      out->kind = Scalar::kUint;
      out->u = t.magnitude;
    }
    lex.Take();
    return absl::OkStatus();
  }
  if (primitive_util::IsFloatingPointType(type)) {
    out->kind = Scalar::kReal;
    PLEXA_ASSIGN_OR_RETURN(out->re, ParseReal(p, type, name));
    return absl::OkStatus();
  }
  if (primitive_util::IsComplexType(type)) {
    const PrimitiveType component = primitive_util::ComplexComponentType(type);
    out->kind = Scalar::kComplex;
    if (!p->TakeIf(TokKind::kLparen)) {
      PLEXA_ASSIGN_OR_RETURN(out->re, ParseReal(p, component, name));
      return absl::OkStatus();
    }
    PLEXA_ASSIGN_OR_RETURN(out->re, ParseReal(p, component, name));
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kComma, "',' between real and imaginary parts"));
    PLEXA_ASSIGN_OR_RETURN(out->im, ParseReal(p, component, name));
    return p->Expect(TokKind::kRparen, "')' closing the complex value");
  }
  return p->ErrorHere(
      absl::StrCat("no literal (", name, " has no constant values)"));
}

}  // namespace

absl::Status Parser::CheckConstantShape(const Shape& shape, size_t loc) {
  if (!shape.IsArray()) {
    return ErrorAt(loc, "a constant of array or tuple shape",
                   absl::StrCat("shape ", shape.ToString()));
  }
  // Literal(shape) lays the values out by the layout: it must be valid.
  absl::Status valid = ShapeUtil::ValidateShape(shape);
  if (!valid.ok()) {
    return ErrorAt(loc,
                   absl::StrCat("a valid shape and layout for the constant (",
                                valid.message(), ")"),
                   shape.ToString());
  }
  uint64_t bound =
      static_cast<uint64_t>(primitive_util::ByteWidth(shape.element_type()));
  if (shape.has_layout()) {
    const Layout& layout = shape.layout();
    for (int64_t i = 0; i < shape.rank(); ++i) {
      int64_t d = shape.dimensions(i);
      if (static_cast<int64_t>(layout.padded_dimensions().size()) ==
          shape.rank()) {
        d = std::max(d, layout.padded_dimensions()[static_cast<size_t>(i)]);
      }
      bound =
          SaturatingMul(bound, static_cast<uint64_t>(std::max<int64_t>(d, 1)));
    }
    // Tiling rounds each tiled dimension up to a multiple of the tile, at
    // most multiplying the size by the tile size; tail padding likewise.
    for (const Tile& tile : layout.tiles()) {
      for (int64_t t : tile.dimensions()) {
        if (t > 1) bound = SaturatingMul(bound, static_cast<uint64_t>(t));
      }
    }
    if (layout.tail_padding_alignment_in_elements() > 1) {
      bound = SaturatingMul(
          bound,
          static_cast<uint64_t>(layout.tail_padding_alignment_in_elements()));
    }
  } else {
    for (int64_t d : shape.dimensions()) {
      bound =
          SaturatingMul(bound, static_cast<uint64_t>(std::max<int64_t>(d, 1)));
    }
  }
  if (bound > static_cast<uint64_t>(kMaxConstantBytes)) {
    return ErrorAt(
        loc,
        absl::StrCat("a constant of at most ", kMaxConstantBytes, " bytes"),
        absl::StrCat("shape ", shape.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Parser::ParseLiteral(const Shape& shape) {
  DepthGuard guard(this);
  if (guard.exceeded()) return DepthError();
  if (shape.IsTuple()) {
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kLparen, "'(' starting a tuple literal"));
    std::vector<Literal> elements;
    for (int64_t i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i > 0) {
        PLEXA_RETURN_IF_ERROR(
            Expect(TokKind::kComma,
                   absl::StrCat("',' before tuple literal element ", i)));
      }
      PLEXA_ASSIGN_OR_RETURN(Literal element,
                             ParseLiteral(shape.tuple_shapes(i)));
      elements.push_back(std::move(element));
    }
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kRparen,
               absl::StrCat("')' closing the tuple literal of ",
                            shape.tuple_shapes_size(), " elements")));
    return Literal::MakeTuple(std::move(elements));
  }
  PLEXA_RETURN_IF_ERROR(CheckConstantShape(shape, lexer_.Peek().begin));
  return ParseArrayLiteral(shape);
}

absl::StatusOr<Literal> Parser::ParseArrayLiteral(const Shape& shape) {
  const PrimitiveType type = shape.element_type();
  const int64_t rank = shape.rank();
  std::vector<Scalar> values;
  if (rank == 0) {
    values.emplace_back();
    PLEXA_RETURN_IF_ERROR(ParseScalar(this, type, &values.back()));
  } else {
    PLEXA_RETURN_IF_ERROR(Expect(
        TokKind::kLbrace,
        absl::StrCat("'{' starting a literal of shape ", shape.ToString())));
    if (TakeIf(TokKind::kDots)) {
      // XLA elides large constants as {...}; XLA's own parser fills them
      // with arbitrary values, Plexa with zeros.
      PLEXA_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' after '...'"));
      return Literal(shape);
    }
    std::vector<int64_t> count(static_cast<size_t>(rank), 0);
    size_t level = 0;
    while (true) {
      const int64_t dim = shape.dimensions(static_cast<int64_t>(level));
      if (count[level] == dim) {
        if (lexer_.Peek().kind != TokKind::kRbrace) {
          return ErrorHere(absl::StrCat("'}' after the ", dim,
                                        " elements of dimension ", level,
                                        " of ", shape.ToString()));
        }
        lexer_.Take();
        if (level == 0) break;
        --level;
        ++count[level];
        if (count[level] < shape.dimensions(static_cast<int64_t>(level))) {
          PLEXA_RETURN_IF_ERROR(
              Expect(TokKind::kComma,
                     absl::StrCat("',' and more elements of dimension ", level,
                                  " of ", shape.ToString())));
        }
        continue;
      }
      if (static_cast<int64_t>(level) == rank - 1) {
        values.emplace_back();
        PLEXA_RETURN_IF_ERROR(ParseScalar(this, type, &values.back()));
        ++count[level];
        if (count[level] < dim) {
          PLEXA_RETURN_IF_ERROR(Expect(
              TokKind::kComma, absl::StrCat("',' and ", dim - count[level],
                                            " more element(s) of dimension ",
                                            level, " of ", shape.ToString())));
        }
      } else {
        PLEXA_RETURN_IF_ERROR(
            Expect(TokKind::kLbrace,
                   absl::StrCat("'{' starting an element of dimension ", level,
                                " of ", shape.ToString())));
        ++level;
        count[level] = 0;
      }
    }
  }

  Literal literal(shape);
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (const Scalar& v : values) {
    absl::Status st;
    switch (v.kind) {
      case Scalar::kInt:
        st = literal.SetFromInt64(index, v.i);
        break;
      case Scalar::kUint:
        st = literal.SetFromUint64(index, v.u);
        break;
      case Scalar::kReal:
        st = literal.SetFromDouble(index, v.re);
        break;
      case Scalar::kComplex:
        st = literal.SetFromComplex(index, std::complex<double>(v.re, v.im));
        break;
    }
    if (!st.ok()) return st;
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < shape.dimensions(d)) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return literal;
}

}  // namespace plexa::text_internal
