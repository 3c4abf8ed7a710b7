// The MLIR reader's types (tensor<2x3xf32>, tuple<...>, !stablehlo.token)
// and attribute values (numbers, arrays, dictionaries, dense<...>,
// #stablehlo<...> enums and #stablehlo.xxx<...> structs, function types).
#include <cerrno>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/shape/shape_util.h"
#include "core/stablehlo/mlir_reader_impl.h"

namespace plexa::stablehlo::reader_internal {

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

}  // namespace plexa::stablehlo::reader_internal
