// Shape inference for every operation (seeds 003 and 004, XLA semantics).
//
// One function per operation; each returns the result shape or an
// InvalidArgument whose message names the operation and shows the shapes
// involved in HLO syntax (f32[2,3]). Result shapes carry no layout.
//
// InferInstructionShape dispatches on the opcode table and is what the
// verifier and the parser use; the builder calls the specific functions.
#ifndef PLEXA_CORE_INFER_SHAPE_INFERENCE_H_
#define PLEXA_CORE_INFER_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/ir/opcode.h"
#include "core/shape/shape.h"

namespace plexa {

class Instruction;

namespace shape_inference {

// ---- Generic dispatch ----------------------------------------------------
// The result shape of an instruction with this opcode, operand shapes,
// attributes and called computations' signatures (see Instruction for the
// order of called computations). `declared` is the shape written for it (or
// nullptr): ops whose result cannot be derived from operands (parameter,
// constant, iota, rng, infeed, custom-call, reshape, broadcast,
// bitcast, fusion's kind) take it from there and only check it.
absl::StatusOr<Shape> InferShape(HloOpcode opcode,
                                 absl::Span<const Shape* const> operands,
                                 const InstructionAttrs& attrs,
                                 absl::Span<const ProgramShape> called,
                                 const Shape* declared);
// `use_declared` false: as if the instruction had no shape written (the
// parser's `add = add(a, b)`).
absl::StatusOr<Shape> InferInstructionShape(const Instruction& instruction,
                                            bool use_declared = true);

// ---- Elementwise (infer/elementwise.cc) ----------------------------------
absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);
// HLO form: operands have equal dimensions (seed 003's implicit forms are
// lowered by the builder).
absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs,
                                         const Shape& rhs);
// Seed 003: the builder's form with broadcast_dimensions and degenerate
// (size-1) dimensions. Returns the broadcast result shape.
absl::StatusOr<Shape> InferBinaryOpShapeWithBroadcast(
    HloOpcode opcode, const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions);
// Only the dimensions of broadcasting (no element type rules): the shape
// lhs and rhs broadcast to under seed 003, element type of lhs.
absl::StatusOr<Shape> InferBroadcastedDimensions(
    const Shape& lhs, const Shape& rhs,
    absl::Span<const int64_t> broadcast_dimensions);
absl::StatusOr<Shape> InferCompareShape(const Shape& lhs, const Shape& rhs,
                                        ComparisonDirection direction,
                                        ComparisonType type);
absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand,
                                      const Shape& max);
absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false);
absl::StatusOr<Shape> InferConvertShape(const Shape& operand,
                                        PrimitiveType new_type);
absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand,
                                               PrimitiveType new_type);
// stochastic-convert(x, random): x's dimensions with `new_type` (XLA's
// InferStochasticConvertShape): x a float array, random an unsigned integer
// array of x's dimensions and bit width.
absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand,
                                                  const Shape& random,
                                                  PrimitiveType new_type);
absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand,
                                                int exponent_bits,
                                                int mantissa_bits);
absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions);

// ---- Shape manipulation (infer/data_movement.cc) ----------------------------
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand,
                                          const Shape& output,
                                          absl::Span<const int64_t> dims);
// Seed 004's Broadcast(operand, broadcast_sizes): new dims are prepended.
absl::StatusOr<Shape> InferBroadcastWithSizesShape(
    const Shape& operand, absl::Span<const int64_t> broadcast_sizes);
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand,
                                        absl::Span<const int64_t> new_sizes);
absl::StatusOr<Shape> InferTransposeShape(
    const Shape& operand, absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferReverseShape(const Shape& operand,
                                        absl::Span<const int64_t> dims);
absl::StatusOr<Shape> InferConcatenateShape(
    absl::Span<const Shape* const> operands, int64_t dimension);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand,
                                      absl::Span<const SliceDimension> slice);
absl::StatusOr<Shape> InferDynamicSliceShape(
    const Shape& operand, absl::Span<const Shape* const> start_indices,
    absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(
    const Shape& operand, const Shape& update,
    absl::Span<const Shape* const> start_indices);
absl::StatusOr<Shape> InferPadShape(const Shape& operand,
                                    const Shape& padding_value,
                                    const PaddingConfig& config);
absl::StatusOr<Shape> InferGatherShape(const Shape& operand,
                                       const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferScatterShape(
    absl::Span<const Shape* const> operands_indices_updates,
    const ProgramShape& to_apply, const ScatterDimensionNumbers& dnums);
absl::StatusOr<Shape> InferIotaShape(const Shape& declared,
                                     int64_t iota_dimension);
absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand,
                                                 int64_t dimension);
// set-dimension-size(operand, size), dimensions={d}: the operand with
// dimension d dynamic (its bound the operand's size); `size` is an s32
// scalar (XLA's shape_inference.cc).
absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand,
                                                 const Shape& size,
                                                 int64_t dimension);
// dynamic-reshape(operand, size_0, ..., size_{n-1}): the declared shape
// (bounds and which dimensions are dynamic), one s32 scalar size per
// result dimension, and as many elements as the operand's bounds hold.
absl::StatusOr<Shape> InferDynamicReshapeShape(
    const Shape& operand, absl::Span<const Shape* const> sizes,
    const Shape& declared);

// ---- Tuples and control flow (infer/control_flow.cc) ----------------------
absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> elements);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& tuple,
                                                int64_t index);
absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape* const> args,
                                     const ProgramShape& to_apply);
absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition,
                                      const ProgramShape& body,
                                      const Shape& init);
absl::StatusOr<Shape> InferConditionalShape(
    const Shape& branch_index, absl::Span<const ProgramShape> branches,
    absl::Span<const Shape* const> branch_operands);

// ---- Reductions and windows (infer/reduction.cc) --------------------------
// Variadic reduce: operands then init values (N each).
absl::StatusOr<Shape> InferReduceShape(
    absl::Span<const Shape* const> operands_and_inits,
    absl::Span<const int64_t> dimensions, const ProgramShape& to_apply);
absl::StatusOr<Shape> InferReduceWindowShape(
    absl::Span<const Shape* const> operands_and_inits, const Window& window,
    const ProgramShape& to_apply);
absl::StatusOr<Shape> InferSelectAndScatterShape(
    const Shape& operand, const ProgramShape& select, const Window& window,
    const Shape& source, const Shape& init_value, const ProgramShape& scatter);
absl::StatusOr<Shape> InferAllReduceShape(
    absl::Span<const Shape* const> operands, const ProgramShape& to_apply);

// ---- Collectives (infer/collectives.cc) ------------------------------------
// The size of the replica groups, checked as XLA's verifier does: no empty
// group, no replica twice, every replica from 0 to the largest named in
// some group, one size for all. 0 for replica_groups={} (every replica).
absl::StatusOr<int64_t> CheckReplicaGroups(
    absl::string_view op, absl::Span<const std::vector<int64_t>> groups);
// all-gather(x...), dimensions={d}: dimension d times the group size (with
// replica_groups={}, taken from `declared`). `times_partitions`: the
// instruction is in XLA's cross-replica-and-partition mode (a channel_id
// without use_global_device_ids), where every partition of the grouped
// replicas takes part, so the shard count is the group size times the
// module's num_partitions, which shapes do not carry: `declared`, when
// given, tells it (a multiple of the group size).
absl::StatusOr<Shape> InferAllGatherShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const Shape* declared,
    bool times_partitions = false);
// reduce-scatter(x...), dimensions={d}, to_apply: dimension d divided by
// the group size (`times_partitions` as for all-gather).
absl::StatusOr<Shape> InferReduceScatterShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const ProgramShape& to_apply,
    const Shape* declared, bool times_partitions = false);
// all-to-all(x), dimensions={d}: x's shape, d divisible by the group size;
// all-to-all(x0, ..., xN-1) (no dimensions): one operand per member, the
// tuple of their shapes.
absl::StatusOr<Shape> InferAllToAllShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions);
// The async pairs, run synchronously. all-gather-start: (operand, result)
// for one operand, ((operands), (results)) for several;
// collective-permute-start: (operand, result, u32[], u32[]); their -done
// returns element 1. all-reduce-start and -done: all-reduce's result.
absl::StatusOr<Shape> InferAllGatherStartShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    absl::Span<const int64_t> dimensions, const Shape* declared,
    bool times_partitions = false);
absl::StatusOr<Shape> InferCollectivePermuteStartShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs);
absl::StatusOr<Shape> InferAsyncDoneShape(HloOpcode done, const Shape& start);
// The generic async wrappers (XLA's verifier). async-start(operands),
// calls=%wrapped: ((operands), wrapped result, context...); the context
// elements come from `declared` (without one: no context). async-update:
// its operand's shape; async-done: its operand's element 1.
absl::StatusOr<Shape> InferAsyncStartShape(
    absl::Span<const Shape* const> operands, const ProgramShape& wrapped,
    const Shape* declared);
absl::StatusOr<Shape> InferAsyncUpdateShape(const Shape& operand);
absl::StatusOr<Shape> InferAsyncWrapperDoneShape(const Shape& operand);
// copy-start(x): (x, x, u32[]) as XLA (destination, source, context);
// copy-done: element 0, the destination.
absl::StatusOr<Shape> InferCopyStartShape(const Shape& operand,
                                          const Shape* declared);
absl::StatusOr<Shape> InferCopyDoneShape(const Shape& operand);
// add-dependency(x, token): x's shape; the second operand is a token.
absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand,
                                              const Shape& token);
// rng-get-and-update-state(): u64[2].
absl::StatusOr<Shape> InferRngGetAndUpdateStateShape();
// collective-broadcast(x), replica_groups: the operand's shape (XLA's
// InferCollectiveBroadcastShape); the groups as for the other collectives.
absl::StatusOr<Shape> InferCollectiveBroadcastShape(
    const Shape& operand,
    absl::Span<const std::vector<int64_t>> replica_groups);
// collective-permute(x), source_target_pairs: the operand's shape; no
// replica is a source twice or a target twice. XLA's combined form,
// collective-permute(x, y, ...) of arrays, permutes each the same way and
// returns their tuple. (XLA's in-place form, four operands with
// slice_sizes=, is refused by the parser: docs/opcodes.md.)
absl::StatusOr<Shape> InferCollectivePermuteShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::pair<int64_t, int64_t>> source_target_pairs);

// ragged-all-to-all(input, output, input_offsets, send_sizes,
// output_offsets, recv_sizes), replica_groups: the output operand's shape
// (XLA's InferRaggedAllToAllShape); the four offset and size operands have
// one shape of rank 1 or 2 (XLA's verifier).
absl::StatusOr<Shape> InferRaggedAllToAllShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups);
// collective-reduce(x..., [roots]), replica_groups, to_apply: all-reduce's
// shape of the data operands; with has_dynamic_root the last operand is an
// s32 vector of one root per data operand.
absl::StatusOr<Shape> InferCollectiveReduceShape(
    absl::Span<const Shape* const> operands,
    absl::Span<const std::vector<int64_t>> replica_groups,
    bool has_dynamic_root, const ProgramShape& to_apply);

// ---- scan (infer/scan.cc) --------------------------------------------------
// The number of carries of scan(inputs..., inits...): num_carries when
// written; otherwise the one count for which the operands and to_apply
// check (an error when none or several do).
absl::StatusOr<int64_t> ScanNumCarries(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       std::optional<int64_t> num_carries,
                                       const ProgramShape& to_apply);
// XLA's verifier's scan checks and result: (outputs stacked along the scan
// dimension..., final carries...), or the one element alone when
// `declared` is not a tuple (or absent).
absl::StatusOr<Shape> InferScanShape(absl::Span<const Shape* const> operands,
                                     absl::Span<const int64_t> dimensions,
                                     std::optional<int64_t> num_carries,
                                     const ProgramShape& to_apply,
                                     const Shape* declared);

// ---- shuffle (infer/shuffle.cc) --------------------------------------------
// shuffle(x), dimensions, mode and its shifts/indices/multi_shifts: the
// operand's shape.
absl::StatusOr<Shape> InferShuffleShape(const Shape& operand,
                                        const InstructionAttrs& attrs);

absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands,
                                     int64_t dimension,
                                     const ProgramShape& comparator);
// The shape of a window applied to a base shape (no element-type rules).
absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base,
                                             const Window& window,
                                             PrimitiveType element_type);

// ---- Linear algebra and convolution (infer/linalg.cc) ---------------------
absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    PrimitiveType preferred_type);
// dot(lhs, rhs, meta...) with N:M structured-sparse operands: XLA's
// checks (a metadata operand of InferSparseDotMetadataShape's shape per
// descriptor, the sparse contracting size times m/n matching its partner)
// and the dense dot of the logical shapes (infer/sparse_dot.cc,
// core/ir/sparse_dot.h).
absl::StatusOr<Shape> InferSparseDotShape(
    absl::Span<const Shape* const> operands, const DotDimensionNumbers& dnums,
    absl::Span<const SparsityDescriptor> sparsity,
    PrimitiveType preferred_type);
// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): dot's result (XLA's verifier
// uses InferDotOpShape) after XLA's scale checks: each scale has its
// operand's rank and divides its dimensions, one contracting dimension,
// not both scales scalars (infer/scaled_dot.cc).
absl::StatusOr<Shape> InferScaledDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& lhs_scale,
                                          const Shape& rhs_scale,
                                          const DotDimensionNumbers& dnums,
                                          PrimitiveType preferred_type);
// The type scaled-dot multiplies an operand and its scale in (XLA's
// ScaledDotRewriter, GetTargetType): bf16 when both are narrower than 16
// bits, else the wider type, f32 for two types of one width.
PrimitiveType ScaledDotProductType(PrimitiveType operand, PrimitiveType scale);
absl::StatusOr<Shape> InferConvolveShape(
    const Shape& lhs, const Shape& rhs, int64_t feature_group_count,
    int64_t batch_group_count, const Window& window,
    const ConvolutionDimensionNumbers& dnums, PrimitiveType preferred_type);
absl::StatusOr<Shape> InferTriangularSolveShape(
    const Shape& a, const Shape& b, const TriangularSolveOptions& options);
absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);

// ---- ragged-dot (infer/ragged_dot.cc) -------------------------------------
// XLA's ragged dot: a dot whose lhs has one ragged dimension cut into groups
// of the sizes group_sizes holds. Its mode is the kind of that dimension:
//   non-contracting (m): [b,m,k], [g,b,k,n], [b,g] -> [b,m,n]: rows of
//     group i are multiplied by the rhs's group i (rhs_group_dims={..});
//   contracting (k):     [b,m,k], [b,k,n],   [b,g] -> [g,b,m,n]: group i
//     contracts only its part of k;
//   batch (b):           [b,m,k], [b,k,n],   [g]   -> [b,m,n].
// group_sizes is [g] or [prefix..., g] (RaggedDotGroupSizesPrefix); a [g]
// stands for the same sizes at every prefix index (JAX's and StableHLO's
// broadcast).
enum class RaggedDotMode { kNonContracting, kContracting, kBatch };
RaggedDotMode GetRaggedDotMode(const DotDimensionNumbers& dnums,
                               int64_t lhs_ragged_dimension);
// The lhs dimensions group_sizes has before its group dimension when it is
// not [g] (StableHLO's chlo.ragged_dot, JAX's ragged_dot_general): the lhs
// batch dimensions (as listed), then in the non-contracting mode the lhs
// non-contracting dimensions before the ragged one (in order), in the
// contracting mode the contracting dimensions listed before the ragged one;
// in the batch mode only the batch dimensions listed before the ragged one.
std::vector<int64_t> RaggedDotGroupSizesPrefix(const DotDimensionNumbers& dnums,
                                               int64_t lhs_ragged_dimension,
                                               int64_t lhs_rank);
// XLA's InferRaggedDotOpShape with group_sizes of any rank StableHLO allows:
// the dot checks, one lhs ragged dimension, an integer group_sizes of shape
// [g] or [prefix..., g], one rhs group dimension (not batch or contracting,
// of size g) exactly in the non-contracting mode and none otherwise. The
// result is dot's, with the rhs group dimension left out and, in the
// contracting mode, g in front; its element type as dot's (preferred_type).
absl::StatusOr<Shape> InferRaggedDotShape(
    const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
    const DotDimensionNumbers& dnums,
    absl::Span<const int64_t> lhs_ragged_dimensions,
    absl::Span<const int64_t> rhs_group_dimensions,
    PrimitiveType preferred_type);

// ---- fft and topk (infer/fft_topk.cc) -------------------------------------
// fft(x), fft_type, fft_length (1 to 3 innermost dimensions): FFT/IFFT keep
// the complex operand's shape; RFFT takes f32/f64 whose innermost dimensions
// equal fft_length and gives c64/c128 with the last one fft_length/2+1;
// IRFFT takes complex whose last dimension is fft_length/2+1 (the others
// equal fft_length) and gives f32/f64 with the last one fft_length.
absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType fft_type,
                                    absl::Span<const int64_t> fft_length);
// topk(x), k: (values, s32 indices), both x's shape with the last
// dimension k (0 <= k <= that dimension).
absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);
// XLA's well-known custom-call "TopK": one operand of rank 1 or 2, the
// result (values, s32 indices) as topk's with k the result's last
// dimension, largest first. Returns k, or an error naming the call and its
// shapes. (Read by the rewriting pass and by the evaluator, which runs the
// call itself when nothing registered the target.)
absl::StatusOr<int64_t> TopKCustomCallK(const Instruction& call);
absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand,
                                                  const Shape& scale,
                                                  const Shape& offset,
                                                  int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormInferenceShape(
    const Shape& operand, const Shape& scale, const Shape& offset,
    const Shape& mean, const Shape& variance, int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormGradShape(
    const Shape& operand, const Shape& scale, const Shape& mean,
    const Shape& variance, const Shape& grad_output, int64_t feature_index);

// ---- Other (infer/misc.cc) ------------------------------------------------
absl::StatusOr<Shape> InferRngShape(const Shape& a, const Shape& b,
                                    RandomDistribution distribution,
                                    const Shape& declared);
// rng-bit-generator(state), algorithm=...: the declared (state, data) tuple,
// checked. The state is u64[2] for rng_three_fry, u64[2] or u64[3] for
// rng_philox and rng_default; the data is an array of an integral or
// floating-point type (not pred, not complex).
absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state,
                                                RandomAlgorithm algorithm,
                                                const Shape& declared);
absl::StatusOr<Shape> InferInfeedShape(const Shape& token,
                                       const Shape& declared);
absl::StatusOr<Shape> InferOutfeedShape(const Shape& operand,
                                        const Shape& token);
absl::StatusOr<Shape> InferAfterAllShape(absl::Span<const Shape* const> tokens);
// The channel instructions (XLA's ShapeInference and HloVerifier):
// send(data, token): (data, u32[], token[]), the u32[] a context scalar;
// recv(token): the declared (data, u32[], token[]), data an array;
// send-done(send): token[]; recv-done(recv): (data, token[]).
absl::StatusOr<Shape> InferSendShape(const Shape& data, const Shape& token);
absl::StatusOr<Shape> InferRecvShape(const Shape& token, const Shape& declared);
absl::StatusOr<Shape> InferSendDoneShape(const Shape& send);
absl::StatusOr<Shape> InferRecvDoneShape(const Shape& recv);

}  // namespace shape_inference
}  // namespace plexa

#endif  // PLEXA_CORE_INFER_SHAPE_INFERENCE_H_
