#include "core/ir/sparse_dot.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/shape/shape_util.h"

namespace plexa::sparse_dot {

int64_t IndexBits(int64_t m) {
  int64_t bits = 1;
  while (bits < 62 && (int64_t{1} << bits) < m) ++bits;
  return bits;
}

int64_t PositionsPerElement(int64_t m) {
  const int64_t bits = IndexBits(m);
  return kMetadataBits % bits == 0 ? kMetadataBits / bits : 0;
}

int64_t MetadataSize(int64_t stored, int64_t m) {
  const int64_t bits = stored * IndexBits(m);
  return (bits + kMetadataBits - 1) / kMetadataBits;
}

Shape MetadataShape(const Shape& operand, const SparsityDescriptor& d) {
  std::vector<int64_t> dims(operand.dimensions().begin(),
                            operand.dimensions().end());
  dims[d.dimension] = MetadataSize(dims[d.dimension], d.m);
  return ShapeUtil::MakeShape(kMetadataType, dims);
}

Shape LogicalShape(const Shape& operand, const SparsityDescriptor& d) {
  Shape s = operand;
  s.set_dimensions(d.dimension, operand.dimensions(d.dimension) / d.n * d.m);
  return s;
}

std::string SparsityToString(absl::Span<const SparsityDescriptor> sparsity) {
  return absl::StrJoin(sparsity, "_",
                       [](std::string* out, const SparsityDescriptor& d) {
                         absl::StrAppend(out, d.index == 0 ? "L" : "R", ".",
                                         d.dimension, "@", d.n, ":", d.m);
                       });
}

absl::StatusOr<std::vector<SparsityDescriptor>> ParseSparsity(
    absl::string_view text) {
  std::vector<SparsityDescriptor> out;
  for (absl::string_view one : absl::StrSplit(text, '_')) {
    auto bad = [&] {
      return absl::InvalidArgumentError(absl::StrCat(
          "sparsity: expected L.<dimension>@<n>:<m> or R.<dimension>@<n>:<m> "
          "(several joined by '_'), got '",
          one, "'"));
    };
    if (one.size() < 2 || (one[0] != 'L' && one[0] != 'R') || one[1] != '.') {
      return bad();
    }
    const size_t at = one.find('@');
    const size_t colon = one.find(':');
    if (at == absl::string_view::npos || colon == absl::string_view::npos ||
        colon < at) {
      return bad();
    }
    SparsityDescriptor d;
    d.index = one[0] == 'L' ? 0 : 1;
    if (!absl::SimpleAtoi(one.substr(2, at - 2), &d.dimension) ||
        !absl::SimpleAtoi(one.substr(at + 1, colon - at - 1), &d.n) ||
        !absl::SimpleAtoi(one.substr(colon + 1), &d.m)) {
      return bad();
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace plexa::sparse_dot
