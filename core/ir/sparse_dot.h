// dot's N:M structured sparsity (XLA's SparsityDescriptor): the text form
// and the layout of the metadata operand, shared by shape inference, the
// evaluator and the sparse-dot-expander pass.
//
//   dot(lhs, rhs, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0},
//       sparsity=L.1@2:4
//
// The lhs keeps n=2 of every m=4 logical values along its contracting
// dimension 1: it stores K*n/m values there, the rhs has the logical K.
// The metadata operand (u16, one per descriptor, after lhs and rhs, in
// descriptor order) has the sparse operand's shape except along the sparse
// dimension, where it holds the positions of the stored values: each
// position is IndexBits(m) bits (2 for 2:4), packed from the low bits up,
// PositionsPerElement(m) per u16 (8 for 2:4). So for 2:4 each u16 covers 4
// groups of 4 logical values, group j in bits 4j..4j+3: the first stored
// value of the group sits at (bits & 3), the second at (bits >> 2) & 3, as
// the 2:4 metadata of NVIDIA's sparse tensor cores that XLA's GPU backend
// feeds. Positions within a group must increase (the evaluator checks).
#ifndef PLEXA_CORE_IR_SPARSE_DOT_H_
#define PLEXA_CORE_IR_SPARSE_DOT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/shape/shape.h"

namespace plexa::sparse_dot {

// The metadata element type (XLA's default for InferSparseDotMetadataShape).
inline constexpr PrimitiveType kMetadataType = PrimitiveType::U16;
inline constexpr int64_t kMetadataBits = 16;

// Bits of one position: ceil(log2(m)), at least 1.
int64_t IndexBits(int64_t m);
// Positions one metadata element holds: 16 / IndexBits(m) when the bits
// divide 16 (m <= 4, or 9..16, ...); 0 otherwise (a layout no hardware
// has: the evaluator and the expander refuse it).
int64_t PositionsPerElement(int64_t m);
// The metadata size along the sparse dimension for `stored` values:
// ceil(stored * IndexBits(m) / 16) (2 for 16 stored values at 2:4).
int64_t MetadataSize(int64_t stored, int64_t m);
// The metadata shape of `operand` (stored values) under `d`: u16, the
// operand's dimensions with the sparse one replaced by MetadataSize.
Shape MetadataShape(const Shape& operand, const SparsityDescriptor& d);
// The logical (dense) shape of a stored operand: the sparse dimension
// times m / n.
Shape LogicalShape(const Shape& operand, const SparsityDescriptor& d);

// XLA's text: L.1@2:4 (lhs, dimension 1, 2:4), R.0@2:4; several joined by
// '_'. Parse refuses anything else, naming what it expected.
std::string SparsityToString(absl::Span<const SparsityDescriptor> sparsity);
absl::StatusOr<std::vector<SparsityDescriptor>> ParseSparsity(
    absl::string_view text);

}  // namespace plexa::sparse_dot

#endif  // PLEXA_CORE_IR_SPARSE_DOT_H_
