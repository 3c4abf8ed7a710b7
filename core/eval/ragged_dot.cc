// ragged-dot: a dot whose lhs ragged dimension is cut into groups
// (shape_inference.h: RaggedDotMode). The value is XLA's own decomposition
// of the op (xla/hlo/transforms/expanders/ragged_dot_rewriter.cc) and JAX's
// reference (_ragged_dot_general_impl), computed directly:
//
// * Group g of a group_sizes row covers the ragged indices r with
//   start_g <= r < end_g, start_g the sum of the sizes before g and end_g
//   start_g + size_g (running sums in 64 bits, wrapping). An index covered
//   by no group (at or beyond the sum of the sizes) takes part in no
//   product: in the non-contracting mode its result rows are 0, in the
//   contracting mode it is left out of every group's sum. Negative sizes
//   are not refused (XLA's expander does not check them either): a group
//   with end <= start is empty and the groups after it start earlier.
// * Non-contracting: result[b, m, n] = sum over the groups g covering m's
//   ragged index and over k of lhs[b, m, k] * rhs[g, b, k, n], accumulated
//   from 0 (dot's accumulator) in the order g, then k.
// * Contracting: result[g, b, m, n] = sum over the k whose ragged index
//   group g covers of lhs[b, m, k] * rhs[b, k, n].
// * Batch: XLA's expander and JAX's reference compute the plain dot and
//   read no group sizes, so this does too (every batch row is a product,
//   also those beyond the sum of the sizes).
//
// One difference from the decomposition: it multiplies masked-out lhs
// entries (zeros) by the rhs, so an inf or NaN in an rhs group a row does
// not belong to makes that row NaN there; here a row only meets its own
// groups. Operands of another element type than the result are converted
// first, as for dot.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/infer/shape_inference.h"

namespace plexa::eval {
namespace {

using shape_inference::RaggedDotMode;

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t Product(const Shape& s, absl::Span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= s.dimensions(d);
  return p;
}

// [start, end) of every group of every group_sizes row: rows x groups pairs.
struct GroupBounds {
  int64_t rows = 1;
  int64_t groups = 0;
  std::vector<int64_t> start, end;  // [row * groups + g]

  bool Covers(int64_t row, int64_t g, int64_t r) const {
    const int64_t i = row * groups + g;
    return start[i] <= r && r < end[i];
  }
};

absl::StatusOr<GroupBounds> ReadGroupBounds(const Literal& group_sizes) {
  const Shape& s = group_sizes.shape();
  GroupBounds b;
  b.groups = s.dimensions(s.rank() - 1);
  b.rows = b.groups == 0 ? 0 : ElementCount(s.dimensions()) / b.groups;
  b.start.resize(b.rows * b.groups);
  b.end.resize(b.rows * b.groups);
  for (int64_t row = 0; row < b.rows; ++row) {
    uint64_t sum = 0;  // wraps instead of overflowing
    for (int64_t g = 0; g < b.groups; ++g) {
      const int64_t i = row * b.groups + g;
      PLEXA_ASSIGN_OR_RETURN(int64_t size, ReadIndexElement(group_sizes, i));
      b.start[i] = static_cast<int64_t>(sum);
      sum += static_cast<uint64_t>(size);
      b.end[i] = static_cast<int64_t>(sum);
    }
  }
  return b;
}

// The operands in dot's canonical order: lhs [B, M, K], rhs [G, B, K, N]
// (G only in the non-contracting mode), M the lhs free dimensions in
// increasing order, K the contracting dimensions as listed, N the rhs free
// dimensions in increasing order.
struct Canonical {
  int64_t batch = 1, m = 1, k = 1, n = 1, groups = 1;
  std::vector<int64_t> lhs_order, rhs_order;
  std::vector<int64_t> lhs_free;  // the lhs free dimensions, increasing
};

Canonical Canonicalize(const Shape& ls, const Shape& rs,
                       const DotDimensionNumbers& dn,
                       absl::Span<const int64_t> rhs_group) {
  Canonical c;
  c.lhs_order = dn.lhs_batch_dimensions;
  c.rhs_order.assign(rhs_group.begin(), rhs_group.end());
  c.rhs_order.insert(c.rhs_order.end(), dn.rhs_batch_dimensions.begin(),
                     dn.rhs_batch_dimensions.end());
  c.batch = Product(ls, dn.lhs_batch_dimensions);
  c.groups = Product(rs, rhs_group);
  for (int64_t d = 0; d < ls.rank(); ++d) {
    if (!Contains(dn.lhs_batch_dimensions, d) &&
        !Contains(dn.lhs_contracting_dimensions, d)) {
      c.lhs_order.push_back(d);
      c.lhs_free.push_back(d);
      c.m *= ls.dimensions(d);
    }
  }
  c.lhs_order.insert(c.lhs_order.end(), dn.lhs_contracting_dimensions.begin(),
                     dn.lhs_contracting_dimensions.end());
  c.rhs_order.insert(c.rhs_order.end(), dn.rhs_contracting_dimensions.begin(),
                     dn.rhs_contracting_dimensions.end());
  c.k = Product(ls, dn.lhs_contracting_dimensions);
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (!Contains(dn.rhs_batch_dimensions, d) &&
        !Contains(dn.rhs_contracting_dimensions, d) &&
        !Contains(rhs_group, d)) {
      c.rhs_order.push_back(d);
      c.n *= rs.dimensions(d);
    }
  }
  return c;
}

// Where the ragged index and the group_sizes row of a flat index along one
// canonical axis (M or K) come from: the axis is [outer..., ragged,
// inner...]; row = batch index * outer_count + outer index when group_sizes
// has a prefix, else 0.
struct RaggedAxis {
  int64_t outer = 1;     // product of the axis's dimensions before the ragged
  int64_t size = 1;      // the ragged dimension's size
  int64_t inner = 1;     // product of the axis's dimensions after it
  bool per_row = false;  // group_sizes has a prefix (rank > 1)

  int64_t Ragged(int64_t flat) const { return (flat / inner) % size; }
  int64_t Row(int64_t b, int64_t flat) const {
    return per_row ? b * outer + flat / (inner * size) : 0;
  }
};

RaggedAxis MakeRaggedAxis(const Shape& ls, absl::Span<const int64_t> axis_dims,
                          int64_t ragged, bool per_row) {
  RaggedAxis a;
  a.per_row = per_row;
  bool after = false;
  for (int64_t d : axis_dims) {
    if (d == ragged) {
      a.size = ls.dimensions(d);
      after = true;
    } else if (after) {
      a.inner *= ls.dimensions(d);
    } else {
      a.outer *= ls.dimensions(d);
    }
  }
  return a;
}

template <typename T>
void NonContracting(const T* lhs, const T* rhs, T* out, const Canonical& c,
                    const RaggedAxis& axis, const GroupBounds& bounds) {
  using A = AccumulatorT<T>;
  std::unique_ptr<A[]> acc = std::make_unique<A[]>(c.n);
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      std::fill_n(acc.get(), c.n, A(0));
      const int64_t r = axis.Ragged(i);
      const int64_t row = axis.Row(b, i);
      const T* l = lhs + (b * c.m + i) * c.k;
      for (int64_t g = 0; g < c.groups; ++g) {
        if (!bounds.Covers(row, g, r)) continue;
        const T* rg = rhs + (g * c.batch + b) * c.k * c.n;
        for (int64_t p = 0; p < c.k; ++p) {
          const A a = ToAccumulator(l[p]);
          const T* rrow = rg + p * c.n;
          for (int64_t j = 0; j < c.n; ++j) {
            MultiplyAccumulate<T>(acc[j], a, ToAccumulator(rrow[j]));
          }
        }
      }
      T* o = out + (b * c.m + i) * c.n;
      for (int64_t j = 0; j < c.n; ++j) o[j] = FromAccumulator<T>(acc[j]);
    }
  }
}

// Contracting (groups > 0, covered by `bounds`) and batch (bounds null: one
// group, every k).
template <typename T>
void Contracting(const T* lhs, const T* rhs, T* out, const Canonical& c,
                 int64_t groups, const RaggedAxis& axis,
                 const GroupBounds* bounds) {
  using A = AccumulatorT<T>;
  std::unique_ptr<A[]> acc = std::make_unique<A[]>(c.n);
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t b = 0; b < c.batch; ++b) {
      const T* rb = rhs + b * c.k * c.n;
      for (int64_t i = 0; i < c.m; ++i) {
        std::fill_n(acc.get(), c.n, A(0));
        const T* l = lhs + (b * c.m + i) * c.k;
        for (int64_t p = 0; p < c.k; ++p) {
          if (bounds != nullptr &&
              !bounds->Covers(axis.Row(b, p), g, axis.Ragged(p))) {
            continue;
          }
          const A a = ToAccumulator(l[p]);
          const T* rrow = rb + p * c.n;
          for (int64_t j = 0; j < c.n; ++j) {
            MultiplyAccumulate<T>(acc[j], a, ToAccumulator(rrow[j]));
          }
        }
        T* o = out + ((g * c.batch + b) * c.m + i) * c.n;
        for (int64_t j = 0; j < c.n; ++j) o[j] = FromAccumulator<T>(acc[j]);
      }
    }
  }
}

}  // namespace

absl::StatusOr<Literal> EvalRaggedDot(Interpreter&, const Instruction& instr,
                                      Operands ops) {
  const InstructionAttrs& attrs = instr.attrs();
  if (ops.size() != 3 || !attrs.dot_dimension_numbers ||
      !instr.shape().IsArray()) {
    return Invalid(instr, "expected three operands and dimension numbers");
  }
  const DotDimensionNumbers& dn = *attrs.dot_dimension_numbers;
  const PrimitiveType type = instr.shape().element_type();
  // Everything the loops rely on is shape inference's to check; a
  // hand-made instruction that fails it gets its error here.
  PLEXA_ASSIGN_OR_RETURN(
      Shape expected,
      shape_inference::InferRaggedDotShape(
          ops[0]->shape(), ops[1]->shape(), ops[2]->shape(), dn,
          attrs.lhs_ragged_dimensions, attrs.rhs_group_dimensions, type));
  if (expected.dimensions() != instr.shape().dimensions()) {
    return Invalid(instr,
                   absl::StrCat("the result should be ", expected.ToString(),
                                ", not ", instr.shape().ToString()));
  }
  const int64_t ragged = attrs.lhs_ragged_dimensions[0];
  const RaggedDotMode mode = shape_inference::GetRaggedDotMode(dn, ragged);
  PLEXA_ASSIGN_OR_RETURN(Literal lhs, ConvertLiteral(*ops[0], type));
  PLEXA_ASSIGN_OR_RETURN(Literal rhs, ConvertLiteral(*ops[1], type));
  const Literal& group_sizes = *ops[2];
  const bool per_row = group_sizes.shape().rank() > 1;

  const Canonical c = Canonicalize(lhs.shape(), rhs.shape(), dn,
                                   mode == RaggedDotMode::kNonContracting
                                       ? attrs.rhs_group_dimensions
                                       : std::vector<int64_t>{});
  const Literal lhs_t = TransposeLiteral(lhs, c.lhs_order);
  const Literal rhs_t = TransposeLiteral(rhs, c.rhs_order);
  Literal out = MakeLiteral(instr.shape());
  GroupBounds bounds;
  if (mode != RaggedDotMode::kBatch) {
    PLEXA_ASSIGN_OR_RETURN(bounds, ReadGroupBounds(group_sizes));
  }
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(type, [&](auto tag) -> absl::Status {
    using T = typename decltype(tag)::type;
    const T* l = DataOf<T>(lhs_t);
    const T* r = DataOf<T>(rhs_t);
    T* o = MutableDataOf<T>(out);
    switch (mode) {
      case RaggedDotMode::kNonContracting:
        NonContracting<T>(
            l, r, o, c,
            MakeRaggedAxis(lhs.shape(), c.lhs_free, ragged, per_row), bounds);
        break;
      case RaggedDotMode::kContracting:
        Contracting<T>(
            l, r, o, c, bounds.groups,
            MakeRaggedAxis(lhs.shape(), dn.lhs_contracting_dimensions, ragged,
                           per_row),
            &bounds);
        break;
      case RaggedDotMode::kBatch:
        Contracting<T>(l, r, o, c, 1, RaggedAxis{}, nullptr);
        break;
    }
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace plexa::eval
