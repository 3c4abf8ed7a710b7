#include "core/npy/npy.h"

#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrEntry {
  const char* descr;
  PrimitiveType type;
};

// Accepted spellings; the first one per type is what we write.
constexpr DescrEntry kDescrs[] = {
    {"|b1", PRED}, {"<b1", PRED},  {"|i1", S8},   {"<i1", S8},   {"<i2", S16},
    {"<i4", S32},  {"<i8", S64},   {"|u1", U8},   {"<u1", U8},   {"<u2", U16},
    {"<u4", U32},  {"<u8", U64},   {"<f2", F16},  {"<f4", F32},  {"<f8", F64},
    {"<c8", C64},  {"<c16", C128}, {"<V2", BF16}, {"|V2", BF16},
};

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("malformed .npy: ", what));
}

// Extracts the value text of 'key' from the header dict.
absl::StatusOr<std::string> DictValue(absl::string_view header,
                                      absl::string_view key) {
  for (const char quote : {'\'', '"'}) {
    const std::string needle =
        absl::StrCat(std::string(1, quote), key, std::string(1, quote));
    size_t pos = header.find(needle);
    if (pos == absl::string_view::npos) continue;
    pos = header.find(':', pos + needle.size());
    if (pos == absl::string_view::npos) break;
    absl::string_view rest =
        absl::StripLeadingAsciiWhitespace(header.substr(pos + 1));
    if (rest.empty()) break;
    size_t end;
    if (rest[0] == '(') {
      end = rest.find(')');
      if (end == absl::string_view::npos) break;
      return std::string(rest.substr(0, end + 1));
    }
    if (rest[0] == '\'' || rest[0] == '"') {
      end = rest.find(rest[0], 1);
      if (end == absl::string_view::npos) break;
      return std::string(rest.substr(1, end - 1));
    }
    end = rest.find_first_of(",}");
    if (end == absl::string_view::npos) break;
    return std::string(absl::StripTrailingAsciiWhitespace(rest.substr(0, end)));
  }
  return Malformed(absl::StrCat("header has no '", key, "' entry"));
}

absl::StatusOr<std::vector<int64_t>> ParseShapeTuple(absl::string_view text) {
  // "(2, 3)", "(4,)", "()"
  absl::string_view inner = text;
  if (!absl::ConsumePrefix(&inner, "(") || !absl::ConsumeSuffix(&inner, ")")) {
    return Malformed(absl::StrCat("shape '", text, "' is not a tuple"));
  }
  std::vector<int64_t> dims;
  for (absl::string_view part : absl::StrSplit(inner, ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    // numpy may write 3L on some platforms.
    absl::ConsumeSuffix(&part, "L");
    int64_t d;
    if (!absl::SimpleAtoi(part, &d) || d < 0) {
      return Malformed(
          absl::StrCat("bad dimension '", part, "' in shape ", text));
    }
    dims.push_back(d);
  }
  return dims;
}

}  // namespace

absl::StatusOr<std::string> NpyDescr(PrimitiveType type) {
  for (const DescrEntry& e : kDescrs) {
    if (e.type == type) return std::string(e.descr);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "no .npy dtype for element type ", primitive_util::Name(type)));
}

absl::StatusOr<Literal> ReadNpy(absl::string_view bytes,
                                std::optional<PrimitiveType> expected_type) {
  if (bytes.size() < kMagicLen + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    return Malformed("missing \\x93NUMPY magic");
  }
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t offset;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) |
                 (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Malformed("truncated header length");
    header_len = 0;
    for (int i = 0; i < 4; ++i) {
      header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                    << (8 * i);
    }
    offset = 12;
  } else {
    return Malformed(absl::StrCat("unsupported format version ", major, ".",
                                  static_cast<int>(bytes[7])));
  }
  if (bytes.size() < offset + header_len) return Malformed("truncated header");
  const absl::string_view header = bytes.substr(offset, header_len);
  const absl::string_view payload = bytes.substr(offset + header_len);

  auto descr_or = DictValue(header, "descr");
  if (!descr_or.ok()) return descr_or.status();
  const std::string& descr = *descr_or;
  auto fortran_or = DictValue(header, "fortran_order");
  if (!fortran_or.ok()) return fortran_or.status();
  const bool fortran = *fortran_or == "True";
  if (!fortran && *fortran_or != "False") {
    return Malformed(absl::StrCat("fortran_order is '", *fortran_or, "'"));
  }
  auto shape_text = DictValue(header, "shape");
  if (!shape_text.ok()) return shape_text.status();
  auto dims_or = ParseShapeTuple(*shape_text);
  if (!dims_or.ok()) return dims_or.status();
  const std::vector<int64_t>& dims = *dims_or;

  if (!descr.empty() && descr[0] == '>' && descr.substr(1) != "i1" &&
      descr.substr(1) != "u1" && descr.substr(1) != "b1") {
    return absl::InvalidArgumentError(absl::StrCat(
        "big-endian .npy data ('", descr, "') is not supported; save with ",
        "a little-endian dtype"));
  }
  std::optional<PrimitiveType> type;
  for (const DescrEntry& e : kDescrs) {
    if (descr == e.descr) {
      type = e.type;
      break;
    }
  }
  if (type == BF16 && expected_type != BF16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dtype '", descr, "' is raw 2-byte data; it is read as bf16 only ",
        "where a bf16 parameter is expected"));
  }
  if (!type) {
    return absl::InvalidArgumentError(
        absl::StrCat("unsupported .npy dtype '", descr, "'"));
  }

  // Guard the element-count product against overflow before allocating.
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > (int64_t{1} << 40) / d) {
      return Malformed(absl::StrCat("shape ", *shape_text, " is too large"));
    }
    count *= d;
  }
  const int64_t width = primitive_util::ByteWidth(*type);
  if (static_cast<int64_t>(payload.size()) < count * width) {
    return Malformed(absl::StrCat("data holds ", payload.size(),
                                  " bytes; shape ", *shape_text, " of ", descr,
                                  " needs ", count * width));
  }
  Shape shape = ShapeUtil::MakeShape(*type, dims);
  if (fortran) {
    // Fortran order is the layout with dimension 0 most minor.
    std::vector<int64_t> m2m(dims.size());
    std::iota(m2m.begin(), m2m.end(), 0);
    *shape.mutable_layout() = LayoutUtil::MakeLayout(m2m);
  } else {
    LayoutUtil::SetToDefaultLayout(&shape);
  }
  Literal literal(shape);
  if (count > 0) {
    std::memcpy(literal.mutable_data().data(), payload.data(), count * width);
  }
  if (*type == PRED) {
    // numpy bools are bytes 0/1; normalize any other byte to 1.
    for (uint8_t& b : literal.mutable_data()) b = b != 0;
  }
  if (fortran) {
    return literal.Relayout(LayoutUtil::GetDefaultLayoutForRank(dims.size()));
  }
  return literal;
}

absl::StatusOr<Literal> ReadNpyFile(const std::string& path,
                                    std::optional<PrimitiveType> expected) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open '", path, "'"));
  }
  std::stringstream ss;
  ss << in.rdbuf();
  auto lit = ReadNpy(ss.str(), expected);
  if (!lit.ok()) {
    return absl::Status(lit.status().code(),
                        absl::StrCat(path, ": ", lit.status().message()));
  }
  return lit;
}

absl::StatusOr<std::string> WriteNpy(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "only arrays can be written as .npy, not ", shape.ToString()));
  }
  auto descr = NpyDescr(shape.element_type());
  if (!descr.ok()) return descr.status();
  // Bring the data into the plain row-major layout (no tiling/padding).
  const Layout row_major = LayoutUtil::GetDefaultLayoutForRank(shape.rank());
  const Literal* source = &literal;
  std::optional<Literal> relaid;
  if (!(LayoutUtil::EffectiveLayout(shape) == row_major)) {
    auto r = literal.Relayout(row_major);
    if (!r.ok()) return r.status();
    relaid = std::move(*r);
    source = &*relaid;
  }
  std::string dims;
  if (shape.rank() == 1) {
    dims = absl::StrCat("(", shape.dimensions(0), ",)");
  } else {
    dims = absl::StrCat("(", absl::StrJoin(shape.dimensions(), ", "), ")");
  }
  std::string header =
      absl::StrCat("{'descr': '", *descr,
                   "', 'fortran_order': False, 'shape': ", dims, ", }");
  // Total preamble is padded with spaces to a multiple of 64, ending '\n'.
  size_t preamble = kMagicLen + 2 + 2;
  int version = 1;
  if (preamble + header.size() + 1 > 65535) {
    version = 2;
    preamble = kMagicLen + 2 + 4;
  }
  const size_t total = preamble + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  const size_t len = header.size();
  out.push_back(static_cast<char>(len & 0xff));
  out.push_back(static_cast<char>((len >> 8) & 0xff));
  if (version == 2) {
    out.push_back(static_cast<char>((len >> 16) & 0xff));
    out.push_back(static_cast<char>((len >> 24) & 0xff));
  }
  out += header;
  const int64_t nbytes = ShapeUtil::ByteSizeOfElements(shape);
  out.append(reinterpret_cast<const char*>(source->data().data()), nbytes);
  return out;
}

absl::Status WriteNpyFile(const std::string& path, const Literal& literal) {
  auto bytes = WriteNpy(literal);
  if (!bytes.ok()) return bytes.status();
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "'"));
  }
  out.write(bytes->data(), bytes->size());
  if (!out) return absl::DataLossError(absl::StrCat("failed writing ", path));
  return absl::OkStatus();
}

}  // namespace plexa
