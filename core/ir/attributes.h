// Typed attributes of instructions: one small struct per concept, as the
// Operation Semantics (seed 004) and XLA's HLO text describe them.
#ifndef PLEXA_CORE_IR_ATTRIBUTES_H_
#define PLEXA_CORE_IR_ATTRIBUTES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/shape/shape.h"

namespace plexa {

class Literal;

// window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1
//         rhs_reversal=0x0}
struct WindowDimension {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t window_dilation = 1;  // rhs_dilate
  int64_t base_dilation = 1;    // lhs_dilate
  bool window_reversal = false;
  bool operator==(const WindowDimension&) const = default;
};

struct Window {
  std::vector<WindowDimension> dimensions;
  bool operator==(const Window&) const = default;
};

// dim_labels=b01f_01io->b01f
struct ConvolutionDimensionNumbers {
  int64_t input_batch_dimension = 0;
  int64_t input_feature_dimension = 1;
  std::vector<int64_t> input_spatial_dimensions;
  int64_t kernel_input_feature_dimension = 0;
  int64_t kernel_output_feature_dimension = 1;
  std::vector<int64_t> kernel_spatial_dimensions;
  int64_t output_batch_dimension = 0;
  int64_t output_feature_dimension = 1;
  std::vector<int64_t> output_spatial_dimensions;
  bool operator==(const ConvolutionDimensionNumbers&) const = default;
};

// lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0},
// rhs_contracting_dims={1}
struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch_dimensions;
  std::vector<int64_t> rhs_batch_dimensions;
  std::vector<int64_t> lhs_contracting_dimensions;
  std::vector<int64_t> rhs_contracting_dimensions;
  bool operator==(const DotDimensionNumbers&) const = default;
};

// dot's N:M structured sparsity (XLA's SparsityDescriptor of type
// SPARSITY_STRUCTURED_N_M; text sparsity=L.1@2:4, R.0@2:4 for the rhs,
// several joined by '_'): along contracting dimension `dimension` of operand
// `index` (0 lhs, 1 rhs), each group of m logical values holds at most n
// nonzeros, and the operand stores only those n per group. A metadata
// operand (u16, after lhs and rhs, one per descriptor in order) says where
// in its group each stored value sits (core/ir/sparse_dot.h).
struct SparsityDescriptor {
  int64_t index = 0;
  int64_t dimension = 0;
  int64_t n = 0;
  int64_t m = 0;
  bool operator==(const SparsityDescriptor&) const = default;
};

// padding=0_1_0x2_-1_1 (low_high_interior per dimension)
struct PaddingDimension {
  int64_t edge_padding_low = 0;
  int64_t edge_padding_high = 0;
  int64_t interior_padding = 0;
  bool operator==(const PaddingDimension&) const = default;
};

struct PaddingConfig {
  std::vector<PaddingDimension> dimensions;
  bool operator==(const PaddingConfig&) const = default;
};

// slice={[0:2:1], [1:3]}
struct SliceDimension {
  int64_t start = 0;
  int64_t limit = 0;
  int64_t stride = 1;
  bool operator==(const SliceDimension&) const = default;
};

struct GatherDimensionNumbers {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> start_indices_batching_dims;
  bool operator==(const GatherDimensionNumbers&) const = default;
};

struct ScatterDimensionNumbers {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
  bool operator==(const ScatterDimensionNumbers&) const = default;
};

// compare(a, b), direction=LT, type=TOTALORDER
enum class ComparisonDirection : int32_t { kEq, kNe, kGe, kGt, kLe, kLt };
enum class ComparisonType : int32_t {
  kDefault,  // not written in text: derived from the element type
  kFloat,
  kFloatTotalOrder,
  kSigned,
  kUnsigned,
};

// rng(a, b), distribution=rng_uniform
enum class RandomDistribution : int32_t { kUniform, kNormal };

// rng-bit-generator(state), algorithm=rng_three_fry. The numbers are XLA's
// RandomAlgorithm enum (xla_data.proto). kDefault is the backend's choice;
// Plexa, like XLA's CPU and GPU compilers, runs it as kPhilox.
enum class RandomAlgorithm : int32_t {
  kDefault = 0,
  kThreeFry = 1,
  kPhilox = 2,
};

// shuffle(x), mode=rotate|permute|multi_rotate (XLA's ShuffleMode).
enum class ShuffleMode : int32_t { kRotate, kPermute, kMultiRotate };

// fusion(...), kind=kLoop
enum class FusionKind : int32_t { kLoop, kInput, kOutput, kCustom };

// custom-call api_version=API_VERSION_... (XLA's CustomCallApiVersion).
enum class CustomCallApiVersion : int32_t {
  kUnspecified = 0,
  kOriginal = 1,  // void target(void* out, void** in)  (seed 004)
  kStatusReturning = 2,
  kStatusReturningUnified = 3,
  kTypedFfi = 4,
};

enum class TriangularSolveTranspose : int32_t {
  kNoTranspose,
  kTranspose,
  kAdjoint,
};

// fft(x), fft_type=RFFT: XLA's FftType (xla_data.proto), its numbers.
enum class FftType : int32_t {
  kFft = 0,    // complex -> complex, forward
  kIfft = 1,   // complex -> complex, inverse (scaled by 1/N)
  kRfft = 2,   // real -> complex, the non-negative frequencies
  kIrfft = 3,  // complex (Hermitian half) -> real, inverse
};

struct TriangularSolveOptions {
  bool left_side = false;
  bool lower = false;
  bool unit_diagonal = false;
  TriangularSolveTranspose transpose_a = TriangularSolveTranspose::kNoTranspose;
  bool operator==(const TriangularSolveOptions&) const = default;
};

// All attributes an instruction may carry. Which ones an opcode uses, under
// which text names, is the attribute table's (core/ir/attribute_table.h),
// which the parser, the printer and the plexa-module format all read; a
// field added here gets its line there. Unused fields keep their defaults,
// so two instructions compare equal field by field.
struct InstructionAttrs {
  // broadcast, transpose, reverse, reduce, concatenate (1), sort (1),
  // get-dimension-size (1), map, all-reduce (none), iota via iota_dimension.
  std::vector<int64_t> dimensions;
  int64_t iota_dimension = 0;
  int64_t parameter_number = 0;
  int64_t tuple_index = 0;

  // constant
  std::shared_ptr<const Literal> literal;

  // convolution, reduce-window, select-and-scatter
  std::optional<Window> window;
  std::optional<ConvolutionDimensionNumbers> convolution_dimension_numbers;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;

  // dot, ragged-dot (its batch and contracting dimensions)
  std::optional<DotDimensionNumbers> dot_dimension_numbers;

  // ragged-dot: with dot_dimension_numbers, XLA's RaggedDotDimensionNumbers
  // (lhs_ragged_dims={1}, rhs_group_dims={0}). The lhs has exactly one
  // ragged dimension; the rhs a group dimension only when that one is a
  // non-contracting dimension (the shape inference's checks).
  std::vector<int64_t> lhs_ragged_dimensions;
  std::vector<int64_t> rhs_group_dimensions;

  // dot: structured sparsity of its operands, at most one per operand; each
  // adds a metadata operand after lhs and rhs.
  std::vector<SparsityDescriptor> dot_sparsity;

  // pad
  std::optional<PaddingConfig> padding_config;

  // slice
  std::vector<SliceDimension> slice;

  // dynamic-slice
  std::vector<int64_t> dynamic_slice_sizes;

  // gather / scatter
  std::optional<GatherDimensionNumbers> gather_dimension_numbers;
  std::vector<int64_t> gather_slice_sizes;
  std::optional<ScatterDimensionNumbers> scatter_dimension_numbers;
  bool indices_are_sorted = false;
  bool unique_indices = false;

  // compare
  ComparisonDirection comparison_direction = ComparisonDirection::kEq;
  ComparisonType comparison_type = ComparisonType::kDefault;

  // batch-norm-*
  float epsilon = 0.0f;
  int64_t feature_index = 0;

  // reduce-precision
  int32_t exponent_bits = 0;
  int32_t mantissa_bits = 0;

  // rng
  RandomDistribution distribution = RandomDistribution::kUniform;

  // rng-bit-generator
  RandomAlgorithm rng_algorithm = RandomAlgorithm::kDefault;

  // rng-get-and-update-state: how far each run advances the 128-bit state.
  int64_t rng_delta = 0;

  // async-start / -update / -done: the thread the wrapped computation runs
  // on in XLA; empty is XLA's "main". Plexa runs it synchronously.
  std::string async_execution_thread;

  // copy-start: which cross-program prefetch this copy is, if any.
  std::optional<int64_t> cross_program_prefetch_index;

  // sort
  bool is_stable = false;

  // custom-call
  std::string custom_call_target;
  std::string backend_config;  // also kept for any op that has one
  CustomCallApiVersion api_version = CustomCallApiVersion::kUnspecified;
  bool has_layout_constraints = false;  // operand_layout_constraints given
  std::vector<Shape> operand_shapes_with_layout;
  bool custom_call_has_side_effect = false;

  // all-reduce and other collectives
  std::vector<std::vector<int64_t>> replica_groups;
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  bool constrain_layout = false;
  // collective-permute: (source replica, target replica) pairs.
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;
  // send / recv (and their -done): the transfer goes to or from the host
  // (XLA's is_host_transfer) instead of another instruction's channel end.
  bool is_host_transfer = false;

  // infeed / outfeed
  std::string infeed_config;
  std::string outfeed_config;
  std::optional<Shape> outfeed_shape;

  // fusion
  FusionKind fusion_kind = FusionKind::kLoop;

  // triangular-solve, cholesky
  TriangularSolveOptions triangular_solve_options;
  bool cholesky_lower = false;

  // fft: the transform and the lengths of its 1 to 3 innermost dimensions.
  FftType fft_type = FftType::kFft;
  std::vector<int64_t> fft_length;

  // topk: the k largest (or smallest) along the last dimension. XLA's
  // parser takes largest=true when the text leaves it out.
  int64_t k = 0;
  bool largest = true;
  // scan (XLA's HloScanInstruction): dimensions={d} is the scan dimension;
  // the last num_carries operands are the initial carries (left out in
  // some of XLA's tests: then the one count the shapes allow, see
  // ScanNumCarries); is_reverse walks from the end; is_associative is a
  // hint that changes no value (unset: XLA's TRI_STATE_UNSPECIFIED).
  std::optional<int64_t> num_carries;
  bool is_reverse = false;
  std::optional<bool> is_associative;
  // shuffle: the mode, rotate's shifts (one per dimension in `dimensions`),
  // permute's indices and multi_rotate's multi_shifts (typed literals).
  ShuffleMode shuffle_mode = ShuffleMode::kRotate;
  std::vector<int64_t> shuffle_shifts;
  std::shared_ptr<const Literal> shuffle_indices;
  std::shared_ptr<const Literal> shuffle_multi_shifts;
  // collective-reduce: the root of each group comes from a trailing s32
  // operand (one root rank per data operand) instead of rank 0.
  bool has_dynamic_root = false;

  // Attributes kept verbatim and never interpreted: metadata, sharding,
  // frontend_attributes, statistics, ... (name, raw text after '='), in the
  // order they appeared. The printer writes them back unchanged.
  std::vector<std::pair<std::string, std::string>> opaque;
};

absl::string_view ComparisonDirectionString(ComparisonDirection d);  // "LT"
std::optional<ComparisonDirection> StringToComparisonDirection(
    absl::string_view s);
absl::string_view ComparisonTypeString(ComparisonType t);  // "TOTALORDER"
std::optional<ComparisonType> StringToComparisonType(absl::string_view s);
absl::string_view FusionKindString(FusionKind k);  // "kLoop"
std::optional<FusionKind> StringToFusionKind(absl::string_view s);
absl::string_view RandomDistributionString(RandomDistribution d);  // rng_normal
std::optional<RandomDistribution> StringToRandomDistribution(
    absl::string_view s);
absl::string_view RandomAlgorithmString(RandomAlgorithm a);  // rng_philox
std::optional<RandomAlgorithm> StringToRandomAlgorithm(absl::string_view s);
absl::string_view CustomCallApiVersionString(CustomCallApiVersion v);
std::optional<CustomCallApiVersion> StringToCustomCallApiVersion(
    absl::string_view s);
absl::string_view ShuffleModeString(ShuffleMode m);  // "rotate"
std::optional<ShuffleMode> StringToShuffleMode(absl::string_view s);
absl::string_view FftTypeString(FftType t);  // "RFFT"
std::optional<FftType> StringToFftType(absl::string_view s);
absl::string_view TriangularSolveTransposeString(TriangularSolveTranspose t);
std::optional<TriangularSolveTranspose> StringToTriangularSolveTranspose(
    absl::string_view s);

// The comparison type XLA uses when none is written: FLOAT for floats and
// complex, SIGNED for signed integers, UNSIGNED for unsigned and pred.
ComparisonType DefaultComparisonType(PrimitiveType type);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_ATTRIBUTES_H_
