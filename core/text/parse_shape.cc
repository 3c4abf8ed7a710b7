// Shapes and layouts of the HLO text format.
//
//   shape  ::= '(' (shape (',' shape)*)? ')'          tuple
//            | type '[' (dim (',' dim)*)? ']' layout?  array or token[]
//   dim    ::= int | '<=' int                          static or bounded
//   dynamic layout ::= '{' (int (',' int)*)? (':' item*)? '}' item   ::= 'T'
//   ('(' (int|'*'),* ')')+  tiles
//            | 'L(' int ')'                tail padding alignment (elements)
//            | 'E(' int ')'                element size in bits
//            | 'S(' int ')'                memory space
//            | 'PD(' int,* ')'             Plexa: padded dimensions (seed 000)
//            | 'PV(' zero|lowest|highest|unknown ')'  Plexa: padding value
//
// XLA layout items Plexa cannot represent are read and dropped:
//   D(...)   dimension level types (sparse arrays; Plexa layouts are dense)
//   #(type)  index primitive type and *(type) pointer primitive type (sparse)
//   SC(...)  split configs (TPU memory splitting)
//   P(shape) physical shape (sparse)
//   M(n)     dynamic shape metadata prefix bytes
// Unbounded dynamic dimensions (`?`) are refused: Plexa keeps a bound for
// every dynamic dimension.
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/text/parser_impl.h"

namespace plexa::text_internal {
namespace {

bool IsArrayTypeName(absl::string_view name) {
  auto type = primitive_util::FromName(name);
  return type.ok() &&
         (primitive_util::IsArrayType(*type) || *type == PrimitiveType::TOKEN);
}

}  // namespace

bool Parser::AtShapeStart() {
  const Token& t = lexer_.Peek();
  if (t.kind == TokKind::kLparen) return true;
  return t.kind == TokKind::kIdent && IsArrayTypeName(t.str) &&
         lexer_.PeekNext().kind == TokKind::kLsquare;
}

absl::StatusOr<Shape> Parser::ParseShape() {
  DepthGuard guard(this);
  if (guard.exceeded()) return DepthError();

  if (TakeIf(TokKind::kLparen)) {
    std::vector<Shape> elements;
    if (!TakeIf(TokKind::kRparen)) {
      while (true) {
        PLEXA_ASSIGN_OR_RETURN(Shape element, ParseShape());
        elements.push_back(std::move(element));
        if (TakeIf(TokKind::kComma)) continue;
        PLEXA_RETURN_IF_ERROR(
            Expect(TokKind::kRparen, "',' or ')' in the tuple shape"));
        break;
      }
    }
    return Shape(std::move(elements));
  }

  const Token& t = lexer_.Peek();
  if (t.kind != TokKind::kIdent || !IsArrayTypeName(t.str)) {
    return ErrorHere("a shape (an element type such as f32, or '(')");
  }
  const PrimitiveType type = *primitive_util::FromName(t.str);
  lexer_.Take();
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kLsquare, "'[' after the element type"));
  Shape shape(type, {});
  if (!TakeIf(TokKind::kRsquare)) {
    if (type == PrimitiveType::TOKEN) {
      return ErrorHere("']' (token[] has no dimensions)");
    }
    while (true) {
      if (lexer_.Peek().kind == TokKind::kQuestion) {
        return ErrorHere(
            "a dimension size or '<=' bound (unbounded dynamic dimensions "
            "are not supported)");
      }
      const bool dynamic = TakeIf(TokKind::kLeq);
      PLEXA_ASSIGN_OR_RETURN(
          int64_t size, ParseNonNegativeInt64("a non-negative dimension size"));
      shape.add_dimension(size, dynamic);
      if (TakeIf(TokKind::kComma)) continue;
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kRsquare, "',' or ']' in the dimensions"));
      break;
    }
  }
  // A '{' starts a layout only if an integer or ':' follows; otherwise it
  // is the body of a computation whose signature ends with this shape.
  if (type != PrimitiveType::TOKEN && lexer_.Peek().kind == TokKind::kLbrace &&
      (lexer_.PeekNext().kind == TokKind::kInt ||
       lexer_.PeekNext().kind == TokKind::kColon)) {
    PLEXA_ASSIGN_OR_RETURN(Layout layout,
                           ParseLayout(shape.rank(), /*check_rank=*/true));
    shape.set_layout(std::move(layout));
  }
  return shape;
}

absl::StatusOr<Layout> Parser::ParseLayout(int64_t rank, bool check_rank) {
  const size_t begin = lexer_.Peek().begin;
  PLEXA_RETURN_IF_ERROR(Expect(TokKind::kLbrace, "'{' starting a layout"));
  Layout layout;
  std::vector<int64_t> minor_to_major;
  if (lexer_.Peek().kind == TokKind::kInt) {
    while (true) {
      PLEXA_ASSIGN_OR_RETURN(int64_t d, ParseInt64("a dimension number"));
      minor_to_major.push_back(d);
      if (!TakeIf(TokKind::kComma)) break;
    }
  }
  if (check_rank && static_cast<int64_t>(minor_to_major.size()) != rank) {
    return ErrorAt(begin,
                   absl::StrCat("a layout with ", rank,
                                " dimension numbers (one per dimension)"),
                   absl::StrCat(minor_to_major.size()));
  }
  layout.set_minor_to_major(minor_to_major);

  // Reads '(' int ')'.
  auto paren_int = [&](absl::string_view what) -> absl::StatusOr<int64_t> {
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kLparen, absl::StrCat("'(' after ", what)));
    PLEXA_ASSIGN_OR_RETURN(int64_t v, ParseInt64("an integer"));
    PLEXA_RETURN_IF_ERROR(
        Expect(TokKind::kRparen, absl::StrCat("')' closing ", what)));
    return v;
  };
  // Skips a balanced '(' ... ')' group (for dropped items).
  auto skip_parens = [&](absl::string_view what) -> absl::Status {
    if (lexer_.Peek().kind != TokKind::kLparen) {
      return ErrorHere(absl::StrCat("'(' after ", what));
    }
    return ConsumeAtom();
  };

  if (TakeIf(TokKind::kColon)) {
    while (lexer_.Peek().kind != TokKind::kRbrace) {
      const Token t = lexer_.Peek();
      if (t.kind == TokKind::kHash || t.kind == TokKind::kStar) {
        lexer_.Take();  // #(s32) / *(s32): sparse index/pointer types
        PLEXA_RETURN_IF_ERROR(
            skip_parens(t.kind == TokKind::kHash ? "'#'" : "'*'"));
        continue;
      }
      if (t.kind != TokKind::kIdent) {
        return ErrorHere("a layout item (T, L, E, S, PD, PV, ...) or '}'");
      }
      const std::string item = t.str;
      lexer_.Take();
      if (item == "T") {
        if (lexer_.Peek().kind != TokKind::kLparen) {
          return ErrorHere("'(' starting a tile");
        }
        while (TakeIf(TokKind::kLparen)) {
          Tile tile;
          if (!TakeIf(TokKind::kRparen)) {
            while (true) {
              if (TakeIf(TokKind::kStar)) {
                tile.add_dimension(Tile::kCombineDimension);
              } else {
                PLEXA_ASSIGN_OR_RETURN(int64_t d,
                                       ParseInt64("a tile size or '*'"));
                tile.add_dimension(d);
              }
              if (TakeIf(TokKind::kComma)) continue;
              PLEXA_RETURN_IF_ERROR(
                  Expect(TokKind::kRparen, "',' or ')' in the tile"));
              break;
            }
          }
          layout.add_tile(std::move(tile));
        }
      } else if (item == "L") {
        PLEXA_ASSIGN_OR_RETURN(int64_t v, paren_int("L"));
        layout.set_tail_padding_alignment_in_elements(v);
      } else if (item == "E") {
        PLEXA_ASSIGN_OR_RETURN(int64_t v, paren_int("E"));
        layout.set_element_size_in_bits(v);
      } else if (item == "S") {
        PLEXA_ASSIGN_OR_RETURN(int64_t v, paren_int("S"));
        layout.set_memory_space(v);
      } else if (item == "M") {
        PLEXA_RETURN_IF_ERROR(paren_int("M").status());  // dropped
      } else if (item == "PD") {
        PLEXA_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after PD"));
        std::vector<int64_t> padded;
        if (!TakeIf(TokKind::kRparen)) {
          while (true) {
            PLEXA_ASSIGN_OR_RETURN(int64_t d,
                                   ParseInt64("a padded dimension size"));
            padded.push_back(d);
            if (TakeIf(TokKind::kComma)) continue;
            PLEXA_RETURN_IF_ERROR(
                Expect(TokKind::kRparen, "',' or ')' in PD(...)"));
            break;
          }
        }
        layout.set_padded_dimensions(padded);
      } else if (item == "PV") {
        PLEXA_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after PV"));
        const Token& v = lexer_.Peek();
        PaddingValue pv;
        if (v.kind == TokKind::kIdent && v.str == "zero") {
          pv = PaddingValue::kZero;
        } else if (v.kind == TokKind::kIdent && v.str == "lowest") {
          pv = PaddingValue::kLowest;
        } else if (v.kind == TokKind::kIdent && v.str == "highest") {
          pv = PaddingValue::kHighest;
        } else if (v.kind == TokKind::kIdent && v.str == "unknown") {
          pv = PaddingValue::kUnknown;
        } else {
          return ErrorHere("a padding value (zero, lowest, highest, unknown)");
        }
        lexer_.Take();
        layout.set_padding_value(pv);
        PLEXA_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' closing PV(...)"));
      } else if (item == "D" || item == "SC") {
        PLEXA_RETURN_IF_ERROR(skip_parens(item));  // dropped
        if (item == "SC") {
          // SC(dim:i,j)(dim:k)...: one group per split config.
          while (lexer_.Peek().kind == TokKind::kLparen) {
            PLEXA_RETURN_IF_ERROR(skip_parens(item));
          }
        }
      } else if (item == "P") {
        PLEXA_RETURN_IF_ERROR(Expect(TokKind::kLparen, "'(' after P"));
        PLEXA_RETURN_IF_ERROR(ParseShape().status());  // dropped
        PLEXA_RETURN_IF_ERROR(Expect(TokKind::kRparen, "')' closing P(...)"));
      } else {
        return ErrorAt(t.begin,
                       "a layout item (T, L, E, S, PD, PV, ...) or '}'",
                       Describe(t));
      }
    }
  }
  PLEXA_RETURN_IF_ERROR(Expect(TokKind::kRbrace, "'}' closing the layout"));
  return layout;
}

absl::StatusOr<ProgramShape> Parser::ParseComputationLayout() {
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kLbrace, "'{' starting entry_computation_layout"));
  PLEXA_ASSIGN_OR_RETURN(ProgramShape program_shape, ParseProgramShape());
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kRbrace, "'}' closing entry_computation_layout"));
  return program_shape;
}

absl::StatusOr<ProgramShape> Parser::ParseProgramShape() {
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kLparen, "'(' starting the parameter shapes"));
  ProgramShape program_shape;
  if (!TakeIf(TokKind::kRparen)) {
    while (true) {
      PLEXA_ASSIGN_OR_RETURN(Shape p, ParseShape());
      program_shape.parameters.push_back(std::move(p));
      if (TakeIf(TokKind::kComma)) continue;
      PLEXA_RETURN_IF_ERROR(
          Expect(TokKind::kRparen, "',' or ')' in the parameter shapes"));
      break;
    }
  }
  PLEXA_RETURN_IF_ERROR(
      Expect(TokKind::kArrow, "'->' before the result shape"));
  PLEXA_ASSIGN_OR_RETURN(program_shape.result, ParseShape());
  return program_shape;
}

}  // namespace plexa::text_internal
