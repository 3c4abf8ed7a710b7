// sort as one kernel: every invocation takes one element of one row, counts
// the elements of its row that the comparator puts before it (and the equal
// ones at lower positions, so the order is stable), and writes every
// operand's element at that rank. O(n) comparisons per element, so rows
// longer than kMaxSortRow run on the host instead.
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/thunk.h"
#include "plugins/vulkan/glsl_emitter_internal.h"

namespace plexa::vulkan::glsl_internal {
namespace {

constexpr int64_t kMaxSortRow = 16384;

}  // namespace

absl::StatusOr<GlslKernel> Emitter::EmitSort(const Instruction& h,
                                             int max_buffers) {
  const int64_t n_ops = h.operand_count();
  std::vector<Shape> outs;
  backend::FlattenLeafShapes(h.shape(), &outs);
  if (static_cast<int64_t>(outs.size()) != n_ops) {
    return NoCode(h, "a sort whose result is not one array per operand");
  }
  GlslKernel k;
  k.num_buffers = static_cast<int>(2 * n_ops);
  if (k.num_buffers > max_buffers) {
    return NoCode(h, absl::StrCat("a sort of ", n_ops, " operands"));
  }
  const Shape& s0 = h.operand(0)->shape();
  const int64_t dim = h.dimensions(0);
  const int64_t rank = s0.rank();
  for (int64_t i = 0; i < n_ops; ++i) {
    const Shape& s = h.operand(i)->shape();
    if (!s.IsArray() || !ShapeUtil::IsDenseArray(s) ||
        !ShapeUtil::IsDenseArray(outs[i])) {
      return NoCode(h, "a sort of non-dense arrays");
    }
    if (absl::Status st = UseType(h, s.element_type()); !st.ok()) return st;
    buffers_.emplace(h.operand(i), static_cast<int>(i));
  }
  if (rank == 0 || s0.dimensions(dim) > kMaxSortRow) {
    return NoCode(h, absl::StrCat("a sort of rows longer than ", kMaxSortRow));
  }
  k.elements = ShapeUtil::ElementsIn(s0);
  if (k.elements > std::numeric_limits<int32_t>::max()) {
    return NoCode(h, "more than 2^31 elements");
  }
  absl::StatusOr<std::string> less = ScalarFunction(*h.to_apply());
  if (!less.ok()) return less.status();

  const Idx idx = IndexNames(rank);
  Idx at_j = idx, at_rank = idx;
  at_j[dim] = "j";
  at_rank[dim] = "rank";
  if (absl::Status s = CheckLoop(h, s0.dimensions(dim)); !s.ok()) return s;
  std::string main = absl::StrCat("void main() {\n", GridLoop(k.elements, s0));
  std::vector<std::string> mine_then_other, other_then_mine;
  for (int64_t i = 0; i < n_ops; ++i) {
    const PrimitiveType t = h.operand(i)->shape().element_type();
    absl::StatusOr<std::string> v = Call(*h.operand(i), idx);
    if (!v.ok()) return v.status();
    absl::StrAppend(&main, "    ", Reg(t), " x", i, " = ", *v, ";\n");
    mine_then_other.push_back(absl::StrCat("x", i));
    mine_then_other.push_back(absl::StrCat("y", i));
    other_then_mine.push_back(absl::StrCat("y", i));
    other_then_mine.push_back(absl::StrCat("x", i));
  }
  absl::StrAppend(&main, "    const int me = i", dim, ";\n    int rank = 0;\n",
                  "    for (int j = 0; j < ", s0.dimensions(dim), "; ++j) {\n",
                  "      if (j == me) continue;\n");
  for (int64_t i = 0; i < n_ops; ++i) {
    absl::StatusOr<std::string> w = Call(*h.operand(i), at_j);
    if (!w.ok()) return w.status();
    absl::StrAppend(&main, "      ", Reg(h.operand(i)->shape().element_type()),
                    " y", i, " = ", *w, ";\n");
  }
  absl::StrAppend(
      &main, "      if (", *less, "(", absl::StrJoin(other_then_mine, ", "),
      ")) ++rank;\n", "      else if (j < me && !", *less, "(",
      absl::StrJoin(mine_then_other, ", "), ")) ++rank;\n", "    }\n");
  for (int64_t i = 0; i < n_ops; ++i) {
    const PrimitiveType t = outs[i].element_type();
    absl::StrAppend(&main, "    ", Block(t), "(args.a[", n_ops + i, "]).v[",
                    Offset(outs[i], at_rank),
                    "] = ", Store(t, absl::StrCat("x", i)), ";\n");
  }
  absl::StrAppend(&main, "  }\n}\n");
  k.source = Source(main, k.num_buffers);
  return k;
}

}  // namespace plexa::vulkan::glsl_internal
