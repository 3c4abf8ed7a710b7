// The algebraic simplifier: local rewrites that make a module smaller
// without changing what it computes.
//
// Identities (x is any operand; "0" and "1" are a constant, or a broadcast
// of one, whose every element is that value):
//   x + 0, 0 + x, x - 0  -> x      x * 1, 1 * x, x / 1 -> x
//   negate(negate(x))    -> x      not(not(x))         -> x
//   and(x, true), and(true, x), or(x, false), or(false, x) -> x   (pred)
//   select(true, a, b)   -> a      select(false, a, b) -> b
//   convert(x) to x's own element type -> x
// Shape operations:
//   reshape(x) to x's dimensions -> x;  reshape(reshape(x)) -> reshape(x)
//   reshape(broadcast(scalar)) -> broadcast(scalar)
//   transpose(x) with the identity permutation -> x
//   transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]])
//   transpose(broadcast(scalar)) -> broadcast(scalar)
//   broadcast(x) to x's dimensions with dimensions={0..n-1} -> x
//   broadcast(broadcast(x, d1), d2) -> broadcast(x, d2[d1[i]])
//   slice covering the whole operand -> x
//   slice(slice(x)) -> one slice (starts and strides composed)
//   concatenate with one operand -> x
//   pad with no edge or interior padding -> x
//   reverse(x) over no dimension of size > 1 -> x
//   reverse(reverse(x, d1), d2) -> reverse(x, d1 xor d2) (-> x if empty)
//   copy(x) -> x when that changes no layout (any copy while the module is
//     not yet laid out: layout assignment inserts the copies it needs)
// Dots:
//   dot(transpose(a), b) -> dot(a, b) with the transpose folded into the
//     dimension numbers, when the transpose keeps the operand's free
//     (non-batch, non-contracting) dimensions in order (so the result's
//     dimension order is unchanged); likewise for the rhs. The contracting
//     dimensions keep their pairing order, so the sum runs in the same
//     order and the result is bit-identical.
//   With canonicalize_dots: every dot is put in the canonical form
//     lhs [batch..., free..., contracting...] (lhs_batch_dims={0..b-1},
//         lhs_contracting_dims = the last k dimensions),
//     rhs [batch..., contracting..., free...] (rhs_batch_dims={0..b-1},
//         rhs_contracting_dims={b..b+k-1}),
//   with batch dimensions in the order the dot lists them, contracting
//   dimensions in their pairing order and free dimensions in increasing
//   order, by transposing the operands that are not already in that form.
//   The result shape and the summation order do not change. A matmul
//   library then sees [B, M, K] x [B, K, N]-like operands. A transpose is
//   only folded into a dot when the folded dot is canonical, so the two
//   rewrites do not undo each other.
//
// Floating point: x + 0 -> x is not exact in IEEE arithmetic when x is -0
// (-0 + +0 = +0) and the "0" is +0; x - 0 with a -0 constant likewise.
// Plexa follows XLA, which makes these rewrites anyway (a sign of zero is
// not something programs rely on), and, like XLA, does NOT rewrite x * 0
// -> 0 (wrong for NaN, infinities and -0) nor x - x -> 0. x * 1 and x / 1
// are exact for real types; for complex types x * (1+0i) can differ when a
// component is infinite, a case XLA also accepts.
//
// Instructions with dynamic dimensions (or dynamic operands) are left
// alone.
//
// Layouts: with is_layout_sensitive=false (before layout assignment) the
// rewrites ignore layouts; a new instruction takes the layout of the one
// it replaces. With is_layout_sensitive=true an instruction is only
// replaced by an existing one of the same layout.
#ifndef PLEXA_CORE_PASSES_ALGEBRAIC_SIMPLIFIER_H_
#define PLEXA_CORE_PASSES_ALGEBRAIC_SIMPLIFIER_H_

#include "core/passes/pass.h"

namespace plexa {

class AlgebraicSimplifier : public Pass {
 public:
  struct Options {
    bool is_layout_sensitive = false;
    bool fold_transpose_into_dot = true;
    bool canonicalize_dots = false;
  };

  AlgebraicSimplifier() = default;
  explicit AlgebraicSimplifier(Options options) : options_(options) {}

  absl::string_view name() const override { return "algebraic-simplifier"; }
  absl::StatusOr<bool> Run(Module& module) override;

 private:
  Options options_;
};

// True if the dot's dimension numbers are in the canonical form above for
// operands of the given ranks.
bool IsCanonicalDot(const DotDimensionNumbers& dnums, int64_t lhs_rank,
                    int64_t rhs_rank);

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_ALGEBRAIC_SIMPLIFIER_H_
