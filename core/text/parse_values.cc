// Values of instruction attributes (parse_attributes.cc dispatches here):
// the verbatim value scanner and the parsers of structured values (window,
// dim_labels, padding, slice, replica groups, backend_config, ...).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/text/parser_impl.h"

namespace plexa::text_internal {
namespace {

std::string Quoted(absl::string_view s) { return absl::StrCat("'", s, "'"); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Splits "3x3" / "1_2x0_0" style patterns into integers. False on any
// malformed or out-of-range piece.
bool SplitInts(absl::string_view s, char sep, std::vector<int64_t>* out) {
  for (absl::string_view piece : absl::StrSplit(s, sep)) {
    int64_t v;
    if (piece.empty() || !absl::SimpleAtoi(piece, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// The largest finite magnitude (exclusive) that rounds to a finite value of
// each floating-point type: max + half an ulp.
double FloatOverflowLimit(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::F16:
      return 65520.0;
    case PrimitiveType::BF16:
      return std::ldexp(1.0, 128) - std::ldexp(1.0, 119);
    case PrimitiveType::F32:
      return std::ldexp(1.0, 128) - std::ldexp(1.0, 103);
    default:
      return std::numeric_limits<double>::infinity();
  }
}

// Row-major expansion of XLA's iota replica groups
// [num_groups,group_size]<=[reshape_dims]T(perm): iota over reshape_dims,
// transposed by perm, read in row-major order and cut into groups.
std::vector<std::vector<int64_t>> ExpandIotaGroups(
    int64_t num_groups, int64_t group_size, const std::vector<int64_t>& reshape,
    const std::vector<int64_t>& perm) {
  const size_t rank = reshape.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * reshape[i];
  std::vector<int64_t> tdims(rank);
  for (size_t i = 0; i < rank; ++i) tdims[i] = reshape[perm[i]];
  std::vector<int64_t> idx(rank, 0);
  std::vector<std::vector<int64_t>> groups(num_groups);
  for (int64_t linear = 0; linear < num_groups * group_size; ++linear) {
    int64_t value = 0;
    for (size_t i = 0; i < rank; ++i) value += idx[i] * strides[perm[i]];
    groups[linear / group_size].push_back(value);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < tdims[d]) break;
      idx[d] = 0;
    }
  }
  return groups;
}

}  // namespace

// ---------------------------------------------------------------------------
// Values kept verbatim
// ---------------------------------------------------------------------------

absl::Status Parser::ConsumeAtom() {
  auto closer_of = [](TokKind k) {
    switch (k) {
      case TokKind::kLbrace:
        return TokKind::kRbrace;
      case TokKind::kLsquare:
        return TokKind::kRsquare;
      default:
        return TokKind::kRparen;
    }
  };
  auto spelling = [](TokKind k) {
    return k == TokKind::kRbrace    ? "'}'"
           : k == TokKind::kRsquare ? "']'"
                                    : "')'";
  };
  const Token& first = lexer_.Peek();
  if (first.kind == TokKind::kError) return ErrorHere("");
  if (first.kind == TokKind::kEof) return ErrorHere("a value");
  if (first.kind != TokKind::kLbrace && first.kind != TokKind::kLsquare &&
      first.kind != TokKind::kLparen) {
    lexer_.Take();
    return absl::OkStatus();
  }
  std::vector<TokKind> closers{closer_of(first.kind)};
  lexer_.Take();
  while (!closers.empty()) {
    const Token& t = lexer_.Peek();
    switch (t.kind) {
      case TokKind::kError:
      case TokKind::kEof:
        return ErrorHere(spelling(closers.back()));
      case TokKind::kLbrace:
      case TokKind::kLsquare:
      case TokKind::kLparen:
        closers.push_back(closer_of(t.kind));
        break;
      case TokKind::kRbrace:
      case TokKind::kRsquare:
      case TokKind::kRparen:
        if (t.kind != closers.back()) {
          return ErrorHere(spelling(closers.back()));
        }
        closers.pop_back();
        break;
      default:
        break;
    }
    lexer_.Take();
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Parser::ParseOpaqueValue(
    absl::string_view attr_name) {
  const size_t begin = lexer_.Peek().begin;
  size_t end = begin;
  bool any = false;
  while (true) {
    const Token& t = lexer_.Peek();
    if (t.kind == TokKind::kError) return ErrorHere("");
    if (t.kind == TokKind::kEof || t.kind == TokKind::kComma ||
        t.kind == TokKind::kRbrace || t.kind == TokKind::kRparen ||
        t.kind == TokKind::kRsquare) {
      break;
    }
    if (any) {
      // A value continues on its line only, and never into the next
      // instruction (`name =`).
      if (lexer_.NewlineBetween(end, t.begin)) break;
      if ((t.kind == TokKind::kIdent || t.kind == TokKind::kName) &&
          lexer_.PeekNext().kind == TokKind::kEqual) {
        break;
      }
    }
    PLEXA_RETURN_IF_ERROR(ConsumeAtom());
    end = lexer_.last_end();
    any = true;
  }
  if (!any) return ErrorHere(absl::StrCat("a value for ", Quoted(attr_name)));

  // Canonical spelling: strings kept as written, comments dropped, each
  // whitespace run (including one left by a comment) becomes one space.
  const absl::string_view raw = lexer_.text().substr(begin, end - begin);
  std::string out;
  bool pending_space = false;
  for (size_t i = 0; i < raw.size();) {
    const char c = raw[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = true;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < raw.size() && raw[i + 1] == '/') {
      while (i < raw.size() && raw[i] != '\n' && raw[i] != '\r') ++i;
      pending_space = true;
      continue;
    }
    if (c == '/' && i + 1 < raw.size() && raw[i + 1] == '*') {
      const size_t close = raw.find("*/", i + 2);
      i = close == absl::string_view::npos ? raw.size() : close + 2;
      pending_space = true;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < raw.size() && raw[j] != c) {
        if (raw[j] == '\\') ++j;
        ++j;
      }
      j = std::min(j + 1, raw.size());
      out.append(raw.data() + i, j - i);
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Structured values of typed attributes
// ---------------------------------------------------------------------------

// Parses the window sub-attributes:
//   {size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
//    rhs_reversal=0x0}
absl::StatusOr<Window> ParseWindowValue(Parser* p) {
  Lexer& lex = p->lexer();
  const size_t window_loc = lex.Peek().begin;
  PLEXA_RETURN_IF_ERROR(p->Expect(TokKind::kLbrace, "'{' starting window"));
  std::vector<int64_t> size, stride, lhs_dilate, rhs_dilate, reversal;
  std::vector<int64_t> pad_low, pad_high;
  absl::flat_hash_map<std::string, size_t> seen;  // field -> location
  const absl::string_view kFields =
      "a window field (size, stride, pad, lhs_dilate, rhs_dilate, "
      "rhs_reversal) or '}'";
  while (!p->TakeIf(TokKind::kRbrace)) {
    const Token& t = lex.Peek();
    if (t.kind != TokKind::kIdent) return p->ErrorHere(kFields);
    const std::string field = t.str;
    const size_t field_loc = t.begin;
    std::vector<int64_t>* target = nullptr;
    if (field == "size") target = &size;
    if (field == "stride") target = &stride;
    if (field == "lhs_dilate") target = &lhs_dilate;
    if (field == "rhs_dilate") target = &rhs_dilate;
    if (field == "rhs_reversal") target = &reversal;
    if (target == nullptr && field != "pad") return p->ErrorHere(kFields);
    lex.Take();
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kEqual, absl::StrCat("'=' after ", Quoted(field))));
    if (!seen.emplace(field, field_loc).second) {
      return p->ErrorAt(field_loc, "each window field at most once",
                        absl::StrCat("a second ", Quoted(field)));
    }
    const size_t value_loc = lex.Peek().begin;
    if (field == "pad") {
      absl::string_view raw = lex.TakeRaw([](char c, size_t) {
        return IsDigit(c) || c == '_' || c == 'x' || c == '-';
      });
      bool ok = !raw.empty();
      for (absl::string_view dim : absl::StrSplit(raw, 'x')) {
        std::vector<int64_t> lh;
        if (!ok || !SplitInts(dim, '_', &lh) || lh.size() != 2) {
          ok = false;
          break;
        }
        pad_low.push_back(lh[0]);
        pad_high.push_back(lh[1]);
      }
      if (!ok) {
        return p->ErrorAt(value_loc, "window padding like 1_1x0_2",
                          raw.empty() ? p->Describe(lex.Peek()) : Quoted(raw));
      }
      continue;
    }
    absl::string_view raw =
        lex.TakeRaw([](char c, size_t) { return IsDigit(c) || c == 'x'; });
    if (raw.empty() || !SplitInts(raw, 'x', target)) {
      return p->ErrorAt(value_loc,
                        absl::StrCat("window ", field, " like 3 or 3x3"),
                        raw.empty() ? p->Describe(lex.Peek()) : Quoted(raw));
    }
  }
  const size_t rank = size.size();
  if (rank == 0 && seen.size() > 0) {
    return p->ErrorAt(window_loc, "'size=' in a window with other fields",
                      "none");
  }
  auto check = [&](const std::vector<int64_t>& v,
                   absl::string_view field) -> absl::Status {
    if (!v.empty() && v.size() != rank) {
      return p->ErrorAt(
          seen[std::string(field)],
          absl::StrCat(rank, " values in window ", field, " (one per size)"),
          absl::StrCat(v.size()));
    }
    return absl::OkStatus();
  };
  PLEXA_RETURN_IF_ERROR(check(stride, "stride"));
  PLEXA_RETURN_IF_ERROR(check(pad_low, "pad"));
  PLEXA_RETURN_IF_ERROR(check(lhs_dilate, "lhs_dilate"));
  PLEXA_RETURN_IF_ERROR(check(rhs_dilate, "rhs_dilate"));
  PLEXA_RETURN_IF_ERROR(check(reversal, "rhs_reversal"));
  Window window;
  for (size_t i = 0; i < rank; ++i) {
    WindowDimension d;
    d.size = size[i];
    if (!stride.empty()) d.stride = stride[i];
    if (!pad_low.empty()) {
      d.padding_low = pad_low[i];
      d.padding_high = pad_high[i];
    }
    if (!lhs_dilate.empty()) d.base_dilation = lhs_dilate[i];
    if (!rhs_dilate.empty()) d.window_dilation = rhs_dilate[i];
    if (!reversal.empty()) d.window_reversal = reversal[i] != 0;
    window.dimensions.push_back(d);
  }
  return window;
}

// dim_labels=b01f_01io->b01f: for each operand, the role of each dimension
// (b batch, f feature, i/o kernel input/output feature, digits the spatial
// dimensions in order, ? unused).
absl::StatusOr<ConvolutionDimensionNumbers> ParseDimLabelsValue(Parser* p) {
  Lexer& lex = p->lexer();
  const size_t loc = lex.Peek().begin;
  absl::string_view raw = lex.TakeRaw([](char c, size_t) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
           c == '-' || c == '>' || c == '?';
  });
  const absl::string_view kExpected = "dim labels like b01f_01io->b01f";
  if (raw.empty()) return p->ErrorHere(kExpected);
  const size_t underscore = raw.find('_');
  const size_t arrow = raw.find("->");
  if (underscore == absl::string_view::npos ||
      arrow == absl::string_view::npos || arrow < underscore) {
    return p->ErrorAt(loc, kExpected, Quoted(raw));
  }
  const absl::string_view parts[3] = {
      raw.substr(0, underscore),
      raw.substr(underscore + 1, arrow - underscore - 1),
      raw.substr(arrow + 2)};
  // Per part: the two named roles and the spatial positions.
  int64_t named[3][2];
  std::vector<int64_t> spatial[3];
  for (int part = 0; part < 3; ++part) {
    const char first = part == 1 ? 'i' : 'b';
    const char second = part == 1 ? 'o' : 'f';
    absl::string_view s = parts[part];
    named[part][0] = named[part][1] = -1;
    int64_t num_spatial = 0;
    for (char c : s) num_spatial += IsDigit(c) ? 1 : 0;
    spatial[part].assign(static_cast<size_t>(num_spatial), -1);
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      int64_t* slot = nullptr;
      if (c == first) slot = &named[part][0];
      if (c == second) slot = &named[part][1];
      if (IsDigit(c) && c - '0' < num_spatial) {
        slot = &spatial[part][static_cast<size_t>(c - '0')];
      }
      if (c == '?') continue;
      if (slot == nullptr || *slot != -1) {
        return p->ErrorAt(
            loc,
            absl::StrCat(kExpected, " (each of ", std::string(1, first),
                         std::string(1, second), " and 0..", num_spatial - 1,
                         " once in ", Quoted(s), ")"),
            Quoted(raw));
      }
      *slot = static_cast<int64_t>(i);
    }
    if (named[part][0] < 0 || named[part][1] < 0) {
      return p->ErrorAt(loc,
                        absl::StrCat(kExpected, " (", Quoted(s), " needs ",
                                     std::string(1, first), " and ",
                                     std::string(1, second), ")"),
                        Quoted(raw));
    }
  }
  if (spatial[0].size() != spatial[1].size() ||
      spatial[0].size() != spatial[2].size()) {
    return p->ErrorAt(loc,
                      absl::StrCat(kExpected,
                                   " (the same number of spatial dimensions "
                                   "in input, kernel and output)"),
                      Quoted(raw));
  }
  ConvolutionDimensionNumbers d;
  d.input_batch_dimension = named[0][0];
  d.input_feature_dimension = named[0][1];
  d.input_spatial_dimensions = spatial[0];
  d.kernel_input_feature_dimension = named[1][0];
  d.kernel_output_feature_dimension = named[1][1];
  d.kernel_spatial_dimensions = spatial[1];
  d.output_batch_dimension = named[2][0];
  d.output_feature_dimension = named[2][1];
  d.output_spatial_dimensions = spatial[2];
  return d;
}

// padding=0_1_0x2_-1_1: low_high[_interior] per dimension ('' for rank 0).
absl::StatusOr<PaddingConfig> ParsePaddingValue(Parser* p) {
  Lexer& lex = p->lexer();
  const size_t loc = lex.Peek().begin;
  PaddingConfig config;
  absl::string_view rest = lex.text().substr(std::min(loc, lex.text().size()));
  if (rest.empty() || !(IsDigit(rest[0]) || rest[0] == '-')) {
    return config;  // rank-0 pad prints an empty configuration
  }
  absl::string_view raw = lex.TakeRaw([](char c, size_t) {
    return IsDigit(c) || c == '_' || c == 'x' || c == '-';
  });
  for (absl::string_view dim : absl::StrSplit(raw, 'x')) {
    std::vector<int64_t> v;
    if (!SplitInts(dim, '_', &v) || (v.size() != 2 && v.size() != 3)) {
      return p->ErrorAt(loc,
                        "padding like 0_1 or 0_1_2 per dimension, x-separated",
                        Quoted(raw));
    }
    PaddingDimension d;
    d.edge_padding_low = v[0];
    d.edge_padding_high = v[1];
    if (v.size() == 3) d.interior_padding = v[2];
    config.dimensions.push_back(d);
  }
  return config;
}

// slice={[0:2:1], [1:3]}
absl::StatusOr<std::vector<SliceDimension>> ParseSliceValue(Parser* p) {
  PLEXA_RETURN_IF_ERROR(p->Expect(TokKind::kLbrace, "'{' starting slice"));
  std::vector<SliceDimension> out;
  if (p->TakeIf(TokKind::kRbrace)) return out;
  while (true) {
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kLsquare, "'[' starting a slice dimension"));
    SliceDimension d;
    PLEXA_ASSIGN_OR_RETURN(d.start, p->ParseInt64("a slice start"));
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kColon, "':' after the slice start"));
    PLEXA_ASSIGN_OR_RETURN(d.limit, p->ParseInt64("a slice limit"));
    if (p->TakeIf(TokKind::kColon)) {
      PLEXA_ASSIGN_OR_RETURN(d.stride, p->ParseInt64("a slice stride"));
    }
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kRsquare, "':' or ']' in a slice dimension"));
    out.push_back(d);
    if (p->TakeIf(TokKind::kComma)) continue;
    PLEXA_RETURN_IF_ERROR(p->Expect(TokKind::kRbrace, "',' or '}' in slice"));
    return out;
  }
}

// replica_groups={{0,1},{2,3}} or the iota form [2,2]<=[4] /
// [2,2]<=[2,2]T(1,0), expanded to explicit groups.
absl::StatusOr<std::vector<std::vector<int64_t>>> ParseReplicaGroupsValue(
    Parser* p) {
  Lexer& lex = p->lexer();
  std::vector<std::vector<int64_t>> groups;
  if (lex.Peek().kind == TokKind::kLbrace) {
    lex.Take();
    if (p->TakeIf(TokKind::kRbrace)) return groups;
    while (true) {
      PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> g,
                             p->ParseBracedInt64List("a replica group"));
      groups.push_back(std::move(g));
      if (p->TakeIf(TokKind::kComma)) continue;
      PLEXA_RETURN_IF_ERROR(
          p->Expect(TokKind::kRbrace, "',' or '}' in replica_groups"));
      return groups;
    }
  }
  if (lex.Peek().kind != TokKind::kLsquare) {
    return p->ErrorHere("replica groups ({{0,1},...} or [2,2]<=[4])");
  }
  const size_t loc = lex.Peek().begin;
  auto bracketed =
      [&](TokKind open, TokKind close,
          absl::string_view what) -> absl::StatusOr<std::vector<int64_t>> {
    PLEXA_RETURN_IF_ERROR(
        p->Expect(open, absl::StrCat("the opening of ", what)));
    std::vector<int64_t> v;
    while (true) {
      PLEXA_ASSIGN_OR_RETURN(
          int64_t x, p->ParseNonNegativeInt64("a non-negative integer"));
      v.push_back(x);
      if (p->TakeIf(TokKind::kComma)) continue;
      PLEXA_RETURN_IF_ERROR(
          p->Expect(close, absl::StrCat("',' or the end of ", what)));
      return v;
    }
  };
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<int64_t> dims,
      bracketed(TokKind::kLsquare, TokKind::kRsquare, "the group dimensions"));
  PLEXA_RETURN_IF_ERROR(
      p->Expect(TokKind::kLeq, "'<=' in iota replica groups"));
  PLEXA_ASSIGN_OR_RETURN(
      std::vector<int64_t> reshape,
      bracketed(TokKind::kLsquare, TokKind::kRsquare, "the iota dimensions"));
  std::vector<int64_t> perm(reshape.size());
  std::iota(perm.begin(), perm.end(), 0);
  if (p->PeekIsIdent("T") && lex.PeekNext().kind == TokKind::kLparen) {
    lex.Take();
    PLEXA_ASSIGN_OR_RETURN(
        perm, bracketed(TokKind::kLparen, TokKind::kRparen, "T(...)"));
  }
  // Validate before expanding (and bound the size: this is untrusted text).
  constexpr int64_t kMaxDevices = int64_t{1} << 20;
  int64_t total = 1;
  for (int64_t d : reshape) {
    if (d == 0 || total > kMaxDevices / d) {
      total = -1;
      break;
    }
    total *= d;
  }
  std::vector<bool> used(reshape.size(), false);
  bool perm_ok = perm.size() == reshape.size();
  for (int64_t x : perm) {
    if (!perm_ok || x >= static_cast<int64_t>(reshape.size()) ||
        used[static_cast<size_t>(x)]) {
      perm_ok = false;
      break;
    }
    used[static_cast<size_t>(x)] = true;
  }
  if (dims.size() != 2 || total < 0 || dims[0] == 0 || dims[1] == 0 ||
      dims[0] > kMaxDevices / dims[1] || dims[0] * dims[1] != total ||
      !perm_ok) {
    return p->ErrorAt(
        loc,
        "iota replica groups [groups,size]<=[dims]T(perm) with groups*size "
        "equal to the product of dims (at most 2^20) and perm a permutation",
        "an inconsistent form");
  }
  return ExpandIotaGroups(dims[0], dims[1], reshape, perm);
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>>
ParseSourceTargetPairsValue(Parser* p) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  PLEXA_RETURN_IF_ERROR(
      p->Expect(TokKind::kLbrace, "'{' starting source_target_pairs"));
  if (p->TakeIf(TokKind::kRbrace)) return pairs;
  while (true) {
    const size_t loc = p->lexer().Peek().begin;
    PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> pair,
                           p->ParseBracedInt64List("a source-target pair"));
    if (pair.size() != 2) {
      return p->ErrorAt(loc, "a source-target pair {source,target}",
                        absl::StrCat(pair.size(), " value(s)"));
    }
    pairs.emplace_back(pair[0], pair[1]);
    if (p->TakeIf(TokKind::kComma)) continue;
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kRbrace, "',' or '}' in source_target_pairs"));
    return pairs;
  }
}

absl::StatusOr<float> ParseFloat32Value(Parser* p, absl::string_view what) {
  const Token& t = p->lexer().Peek();
  double v;
  if (t.kind == TokKind::kInt || t.kind == TokKind::kDecimal) {
    v = t.value;
  } else if (t.kind == TokKind::kIdent && (t.str == "inf" || t.str == "-inf" ||
                                           t.str == "nan" || t.str == "-nan")) {
    v = t.str == "inf"    ? std::numeric_limits<double>::infinity()
        : t.str == "-inf" ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
    if (t.str == "-nan") v = -v;
  } else {
    return p->ErrorHere(what);
  }
  const bool spelled_finite =
      t.kind == TokKind::kInt || t.kind == TokKind::kDecimal;
  if (spelled_finite &&
      !(std::fabs(v) < FloatOverflowLimit(PrimitiveType::F32))) {
    return p->ErrorHere(absl::StrCat(what, " in the range of f32"));
  }
  p->lexer().Take();
  return static_cast<float>(v);
}

absl::StatusOr<std::vector<NameRef>> ParseNameList(Parser* p,
                                                   absl::string_view what) {
  PLEXA_RETURN_IF_ERROR(
      p->Expect(TokKind::kLbrace, absl::StrCat("'{' starting ", what)));
  std::vector<NameRef> out;
  if (p->TakeIf(TokKind::kRbrace)) return out;
  while (true) {
    PLEXA_ASSIGN_OR_RETURN(NameRef r, p->ParseNameRef("a name"));
    out.push_back(std::move(r));
    if (p->TakeIf(TokKind::kComma)) continue;
    PLEXA_RETURN_IF_ERROR(
        p->Expect(TokKind::kRbrace, absl::StrCat("',' or '}' in ", what)));
    return out;
  }
}

// backend_config="..." or backend_config={...} (a JSON dictionary, kept as
// written, as XLA does).
absl::StatusOr<std::string> ParseBackendConfigValue(Parser* p) {
  Lexer& lex = p->lexer();
  const Token& t = lex.Peek();
  if (t.kind == TokKind::kString) return lex.Take().str;
  if (t.kind != TokKind::kLbrace) {
    return p->ErrorHere("a quoted string or {...} for backend_config");
  }
  const absl::string_view text = lex.text();
  const size_t begin = t.begin;
  int64_t depth = 0;
  size_t i = begin;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      ++i;
      while (i < text.size() && text[i] != '"') {
        if (text[i] == '\\') ++i;
        ++i;
      }
      if (i >= text.size()) break;
      ++i;
      continue;
    }
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) {
      lex.AdvanceTo(i + 1);
      return std::string(text.substr(begin, i + 1 - begin));
    }
    ++i;
  }
  return p->ErrorAt(begin, "'}' closing backend_config", "end of input");
}

}  // namespace plexa::text_internal
