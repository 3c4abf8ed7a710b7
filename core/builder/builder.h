// Builder: constructs HLO computations and modules operation by operation,
// following the Operation Semantics (seed 004) and broadcasting (seed 003),
// in the spirit of XLA's ComputationBuilder / XlaBuilder.
//
//   Builder b("axpy");
//   Op a = b.Parameter(0, ShapeUtil::MakeShape(F32, {}), "a");
//   Op x = b.Parameter(1, ShapeUtil::MakeShape(F32, {4}), "x");
//   Op y = b.Parameter(2, ShapeUtil::MakeShape(F32, {4}), "y");
//   Op r = b.Add(b.Mul(a, x), y);        // the scalar a is broadcast
//   absl::StatusOr<std::unique_ptr<Module>> m = b.BuildModule(r);
//
// ---- Handles ---------------------------------------------------------------
// Every operation returns an `Op`: the builder it belongs to plus the index
// of the instruction that holds its value. Ops are cheap to copy and only
// valid with the builder that made them.
//
// ---- Error handling (one design: sticky errors) ----------------------------
// Like XlaBuilder, errors are sticky. Each operation checks its input with
// shape inference (core/infer) before adding anything. The first failure is
// recorded as the builder's error, prefixed with the builder operation's
// name ("Add: ..."), and the operation returns an invalid Op. From then on
// every operation returns an invalid Op without doing anything, so a
// program can be written straight through and checked once:
//   - `first_error()` / `ok()` report the recorded error at any time;
//   - `Build` and `BuildModule` return it.
// Nothing throws or aborts on bad input. `GetShape(op)` returns the shape of
// a valid Op (StatusOr) for callers that need to branch on shapes.
//
// ---- Computations and modules ----------------------------------------------
// Called computations (reducers, comparators, map functions, while
// condition/body, conditional branches, scatter combiners) are built by
// sub-builders: `b.CreateSubBuilder("add")`. A builder and its sub-builders
// (and theirs) form one family that owns every computation it builds:
//   - `Build(root)` finishes a builder's computation and returns a
//     non-owning `Computation*` that operations of the same family accept.
//     (IR computations refer to their callees by pointer, so a computation
//     cannot be handed out on its own: it lives in the family and then in
//     the module.)
//   - `BuildModule(root)` (top-level builder only) finishes the entry
//     computation and returns a Module that owns the entry and every
//     computation reachable from it, callees first. Pointers returned by
//     Build stay valid: the objects move into the module.
// A builder can be built once; after that its operations fail. After
// BuildModule, no builder of the family may Build again. Builders are not
// thread-safe, and a family shares state: use a family from one thread.
//
// ---- Lowering --------------------------------------------------------------
// Several operations of the seed have no HLO opcode and are lowered here:
//   - implicit broadcasting of binary ops and comparisons (seed 003):
//     explicit `broadcast`/`reshape` so the HLO op has equal operand shapes;
//   - Broadcast (prepend sizes) and BroadcastInDim with size-1 dimensions:
//     `broadcast` (plus a `reshape` dropping the degenerate dimensions);
//   - Collapse and Reshape-with-dimensions: `reshape` (after `transpose`);
//   - CrossReplicaSum: `all-reduce` with an add computation;
//   - RngBernoulli: `rng` uniform in [0,1), `compare LT` against the mean,
//     `convert` to the result type;
//   - scalar min/max of Clamp and scalar pred of Select: `broadcast`;
//   - seed-form Infeed/Outfeed without a token: tokens chained by the
//     builder (`after-all` starts the chain) so they are totally ordered.
// Result shapes carry no layout (shape inference's convention); parameter
// shapes keep the layout they were given.
#ifndef PLEXA_CORE_BUILDER_BUILDER_H_
#define PLEXA_CORE_BUILDER_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/attributes.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/ir/opcode.h"
#include "core/literal/literal.h"
#include "core/shape/shape.h"

namespace plexa {

class Builder;

// A value being built: (builder, instruction index). Default: invalid.
class Op {
 public:
  Op() = default;
  bool valid() const { return builder_ != nullptr && id_ >= 0; }
  Builder* builder() const { return builder_; }
  int64_t id() const { return id_; }
  bool operator==(const Op& o) const = default;

 private:
  friend class Builder;
  Op(Builder* builder, int64_t id) : builder_(builder), id_(id) {}
  Builder* builder_ = nullptr;
  int64_t id_ = -1;
};

// Arithmetic on Ops, forwarding to the Op's builder (no broadcast
// dimensions: equal shapes or a scalar side).
Op operator+(Op lhs, Op rhs);
Op operator-(Op lhs, Op rhs);
Op operator*(Op lhs, Op rhs);
Op operator/(Op lhs, Op rhs);
Op operator-(Op operand);

// Seed 004's window padding kinds.
enum class Padding { kSame, kValid };

// (low, high) padding of each spatial dimension for `padding` (XLA's
// MakePadding). kValid: no padding. kSame: the output has
// ceil(input / stride) elements and the total padding
// max(0, (out - 1) * stride + window - input) is split with the extra
// element on the high side (TensorFlow's convention). Strides must be >= 1
// and the three spans of equal length.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> MakePadding(
    absl::Span<const int64_t> input_dimensions,
    absl::Span<const int64_t> window_dimensions,
    absl::Span<const int64_t> window_strides, Padding padding);

// Default convolution dimension numbers of seed 004: lhs and output are
// [batch, feature, spatial...], rhs is [output-feature, input-feature,
// spatial...] (dim_labels=bf01_oi01->bf01 for two spatial dimensions).
ConvolutionDimensionNumbers MakeDefaultConvDimensionNumbers(
    int64_t num_spatial_dims);

class Builder {
 public:
  // Parameter numbers are below this (the IR keeps a table indexed by
  // number; a huge number would only allocate memory for a gap Build
  // rejects anyway).
  static constexpr int64_t kMaxParameterNumber = int64_t{1} << 20;

  // Builder, computation, module and parameter names become valid HLO
  // identifiers ([A-Za-z_][A-Za-z0-9_.-]*): other characters are replaced
  // by '_' (and '_' is prepended to a leading digit, '.' or '-'), so the
  // printed text always parses.
  explicit Builder(std::string name);
  ~Builder();
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  const std::string& name() const { return name_; }

  // A builder for a computation this family calls (reducer, comparator,
  // while body, ...). It shares this builder's computation pool.
  std::unique_ptr<Builder> CreateSubBuilder(absl::string_view name);

  // ---- Errors and shapes ---------------------------------------------------
  const absl::Status& first_error() const { return first_error_; }
  bool ok() const { return first_error_.ok(); }
  // The shape of a valid Op of this builder.
  absl::StatusOr<Shape> GetShape(Op op) const;

  // ---- Finishing -----------------------------------------------------------
  // Finishes the computation with `root` as its root (without an argument:
  // the value of the last operation). Fails with the first recorded error,
  // if parameters are not numbered 0..n-1, or if already built.
  absl::StatusOr<Computation*> Build(Op root);
  absl::StatusOr<Computation*> Build();
  // Top-level builders only: the entry computation plus every computation
  // it calls (transitively), callees first.
  absl::StatusOr<std::unique_ptr<Module>> BuildModule(Op root);
  absl::StatusOr<std::unique_ptr<Module>> BuildModule();

  // ---- Parameters and constants --------------------------------------------
  Op Parameter(int64_t parameter_number, const Shape& shape,
               absl::string_view name = "");
  Op ConstantLiteral(const Literal& literal);
  template <typename T>
  Op ConstantR0(T value) {
    return ConstantLiteral(Literal::CreateR0<T>(value));
  }
  template <typename T>
  Op ConstantR1(absl::Span<const T> values) {
    return ConstantLiteral(Literal::CreateR1<T>(values));
  }
  template <typename T>
  Op ConstantR2(std::initializer_list<std::initializer_list<T>> values) {
    return ConstantLiteral(Literal::CreateR2<T>(values));
  }
  // A scalar of any array element type, converted from `value` as the
  // literal does (round to nearest even for f16/bf16).
  Op ConstantScalar(PrimitiveType type, double value);
  Op Zero(PrimitiveType type) { return ConstantScalar(type, 0.0); }
  Op One(PrimitiveType type) { return ConstantScalar(type, 1.0); }
  // iota: values 0, 1, ... along `iota_dimension`.
  Op Iota(const Shape& shape, int64_t iota_dimension);
  Op Iota(PrimitiveType type, int64_t size);

  // ---- Element-wise binary operations (seed 004, broadcasting seed 003) ----
  // Operands of equal shapes, or one of them a scalar, or (with
  // broadcast_dimensions) the lower-rank operand's dimension i matched to
  // dimension broadcast_dimensions[i] of the higher-rank one; afterwards
  // size-1 ("degenerate") dimensions broadcast against the other side. The
  // broadcasting is lowered to explicit broadcast/reshape instructions.
  Op Add(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Sub(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Mul(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Div(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  // Sign of the result from the dividend (C fmod / truncating).
  Op Rem(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Max(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Min(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Pow(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Atan2(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  // Logical on pred, bitwise on integers (seed: LogicalAnd/LogicalOr).
  Op And(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Or(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Xor(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op ShiftLeft(Op lhs, Op rhs,
               absl::Span<const int64_t> broadcast_dimensions = {});
  Op ShiftRightArithmetic(Op lhs, Op rhs,
                          absl::Span<const int64_t> broadcast_dimensions = {});
  Op ShiftRightLogical(Op lhs, Op rhs,
                       absl::Span<const int64_t> broadcast_dimensions = {});
  // complex(real, imag): f32 -> c64, f64 -> c128.
  Op Complex(Op real, Op imag,
             absl::Span<const int64_t> broadcast_dimensions = {});
  // Any binary opcode of the opcode table's element-wise family.
  Op BinaryOp(HloOpcode opcode, Op lhs, Op rhs,
              absl::Span<const int64_t> broadcast_dimensions = {});

  // ---- Comparisons: HLO compare(a, b), direction=..., result pred ---------
  Op Eq(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Ne(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Ge(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Gt(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Le(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  Op Lt(Op lhs, Op rhs, absl::Span<const int64_t> broadcast_dimensions = {});
  // kDefault leaves `type=` out (derived from the element type).
  Op Compare(Op lhs, Op rhs, ComparisonDirection direction,
             absl::Span<const int64_t> broadcast_dimensions = {},
             ComparisonType type = ComparisonType::kDefault);

  // ---- Element-wise unary operations ---------------------------------------
  Op Abs(Op operand);
  Op Ceil(Op operand);
  Op Cos(Op operand);
  Op Exp(Op operand);
  Op Floor(Op operand);
  Op IsFinite(Op operand);
  Op Log(Op operand);
  Op Not(Op operand);  // seed: LogicalNot
  Op Neg(Op operand);
  Op Sign(Op operand);
  Op Sin(Op operand);
  Op Tanh(Op operand);
  Op Sqrt(Op operand);
  Op Rsqrt(Op operand);
  Op Cbrt(Op operand);
  Op Tan(Op operand);
  // Inverse and hyperbolic trigonometry (XLA's acos ... sinh opcodes).
  Op Acos(Op operand);
  Op Acosh(Op operand);
  Op Asin(Op operand);
  Op Asinh(Op operand);
  Op Atan(Op operand);
  Op Atanh(Op operand);
  Op Cosh(Op operand);
  Op Sinh(Op operand);
  Op Logistic(Op operand);
  Op Log1p(Op operand);
  Op Expm1(Op operand);
  Op RoundNearestEven(Op operand);
  Op RoundNearestAfz(Op operand);
  Op PopulationCount(Op operand);
  Op Clz(Op operand);
  Op Real(Op operand);
  Op Imag(Op operand);
  Op Erf(Op operand);
  // Any unary opcode of the opcode table's element-wise family.
  Op UnaryOp(HloOpcode opcode, Op operand);

  // ---- Other element-wise operations ---------------------------------------
  // Today's argument order clamp(min, operand, max) =
  // min(max(operand, min), max). The seed's header `Clamp(computation,
  // args...)` and formula `max(min(x, a), b)` are garbled; its example
  // Clamp(operand=s32[3]{-1,5,9}, min=0, max=6) = {0,5,6} agrees with this.
  // min and max may be scalars (broadcast explicitly).
  Op Clamp(Op min, Op operand, Op max);
  // pred may be a scalar with array on_true/on_false (broadcast explicitly).
  // Seed 004's select between tuples has no HLO form today and is rejected.
  Op Select(Op pred, Op on_true, Op on_false);
  Op ConvertElementType(Op operand, PrimitiveType new_element_type);
  Op BitcastConvertType(Op operand, PrimitiveType new_element_type);
  // NOTE: XlaBuilder's argument order (exponent, mantissa); the seed lists
  // ReducePrecision(operand, mantissa_bits, exponent_bits).
  Op ReducePrecision(Op operand, int exponent_bits, int mantissa_bits);
  // map(operands...), dimensions=..., to_apply=computation. `dimensions`
  // defaults to all dimensions. Seed 004's static_operands (extra arguments
  // after the N scalars) exist only as scalars here: each is broadcast to
  // the operands' shape and passed as one more mapped operand, so
  // `computation` takes N + M scalars. Non-scalar static operands have no
  // HLO form and are rejected.
  Op Map(absl::Span<const Op> operands, const Computation* computation,
         absl::Span<const int64_t> dimensions = {},
         absl::Span<const Op> static_operands = {});

  // ---- Shape manipulation
  // ---------------------------------------------------- Seed form: new
  // dimensions of the given sizes are prepended.
  Op Broadcast(Op operand, absl::Span<const int64_t> broadcast_sizes);
  // Operand dimension i becomes output dimension broadcast_dimensions[i]
  // (increasing); operand dimensions of size 1 may broadcast to any size.
  Op BroadcastInDim(Op operand, absl::Span<const int64_t> out_dimensions,
                    absl::Span<const int64_t> broadcast_dimensions);
  Op Reshape(Op operand, absl::Span<const int64_t> new_sizes);
  // Seed form: the operand's dimensions are first ordered by `dimensions`
  // (a permutation; a transpose unless it is the identity), then reshaped.
  Op Reshape(Op operand, absl::Span<const int64_t> dimensions,
             absl::Span<const int64_t> new_sizes);
  // Replaces consecutive, in-order `dimensions` with one dimension (their
  // product) at their place. No collapse opcode exists: this is a reshape
  // (or nothing for fewer than two dimensions). The seed's example labels
  // are swapped: Collapse(f32[4,2,3], {0,1}) is f32[8,3] and {1,2} gives
  // f32[4,6], as its definition (and today's XLA) says.
  Op Collapse(Op operand, absl::Span<const int64_t> dimensions);
  Op Transpose(Op operand, absl::Span<const int64_t> permutation);
  Op Rev(Op operand, absl::Span<const int64_t> dimensions);
  Op ConcatInDim(absl::Span<const Op> operands, int64_t dimension);
  // strides: empty means all 1.
  Op Slice(Op operand, absl::Span<const int64_t> start_indices,
           absl::Span<const int64_t> limit_indices,
           absl::Span<const int64_t> strides = {});
  Op SliceInDim(Op operand, int64_t start_index, int64_t limit_index,
                int64_t stride, int64_t dimno);
  // Start indices: one integer scalar per dimension. Out-of-range starts
  // are clamped to [0, dim - size] at run time (today's XLA).
  Op DynamicSlice(Op operand, absl::Span<const Op> start_indices,
                  absl::Span<const int64_t> slice_sizes);
  // Seed form: one rank-1 index vector; split into scalars here.
  Op DynamicSliceWithIndexVector(Op operand, Op start_indices,
                                 absl::Span<const int64_t> slice_sizes);
  Op DynamicUpdateSlice(Op operand, Op update,
                        absl::Span<const Op> start_indices);
  Op DynamicUpdateSliceWithIndexVector(Op operand, Op update, Op start_indices);
  Op Pad(Op operand, Op padding_value, const PaddingConfig& padding_config);
  Op Gather(Op operand, Op start_indices,
            const GatherDimensionNumbers& dimension_numbers,
            absl::Span<const int64_t> slice_sizes,
            bool indices_are_sorted = false);
  Op Scatter(Op operand, Op scatter_indices, Op updates,
             const Computation* update_computation,
             const ScatterDimensionNumbers& dimension_numbers,
             bool indices_are_sorted = false, bool unique_indices = false);
  // Variadic scatter: N operands, N updates, a combiner over 2N scalars.
  Op Scatter(absl::Span<const Op> operands, Op scatter_indices,
             absl::Span<const Op> updates,
             const Computation* update_computation,
             const ScatterDimensionNumbers& dimension_numbers,
             bool indices_are_sorted = false, bool unique_indices = false);
  Op GetDimensionSize(Op operand, int64_t dimension);

  // ---- Tuples and control flow ---------------------------------------------
  Op Tuple(absl::Span<const Op> elements);
  Op GetTupleElement(Op tuple, int64_t index);
  Op Call(const Computation* computation, absl::Span<const Op> args);
  // condition: T -> pred[], body: T -> T; nesting is allowed.
  Op While(const Computation* condition, const Computation* body, Op init);
  Op Conditional(Op predicate, Op true_operand,
                 const Computation* true_computation, Op false_operand,
                 const Computation* false_computation);
  // branch_index: s32[]; branch i gets branch_operands[i]; an out-of-range
  // index runs the last branch.
  Op Conditional(Op branch_index,
                 absl::Span<const Computation* const> branch_computations,
                 absl::Span<const Op> branch_operands);
  Op OptimizationBarrier(Op operand);

  // ---- Custom calls
  // ----------------------------------------------------------
  // custom-call(operands...), custom_call_target="target". The default API
  // version is the seed's `extern "C" void target(void* out, void** in)`.
  // `opaque` is passed through as backend_config.
  Op CustomCall(
      absl::string_view call_target_name, absl::Span<const Op> operands,
      const Shape& shape, absl::string_view opaque = "",
      CustomCallApiVersion api_version = CustomCallApiVersion::kOriginal,
      bool has_side_effect = false,
      absl::Span<const Shape> operand_shapes_with_layout = {});

  // ---- Tokens, infeed and outfeed ------------------------------------------
  Op CreateToken();  // after-all() with no operands
  Op AfterAll(absl::Span<const Op> tokens);
  // infeed(token) -> (data, token).
  Op InfeedWithToken(Op token, const Shape& shape,
                     absl::string_view config = "");
  // Seed form: returns the data only; the builder chains the tokens of all
  // seed-form Infeed/Outfeed calls in program order.
  Op Infeed(const Shape& shape, absl::string_view config = "");
  // outfeed(operand, token) -> token. `shape_with_layout` must be the
  // operand's shape (its layout says how the host reads it).
  Op OutfeedWithToken(Op operand, Op token, const Shape& shape_with_layout,
                      absl::string_view config = "");
  // Seed form: token chained as for Infeed; returns the new token.
  Op Outfeed(Op operand, const Shape& shape_with_layout,
             absl::string_view config = "");

  // ---- Collectives ---------------------------------------------------------
  Op AllReduce(Op operand, const Computation* computation,
               absl::Span<const std::vector<int64_t>> replica_groups = {});
  // Seed form: all-reduce with a scalar add computation (or for pred)
  // the builder creates and reuses.
  Op CrossReplicaSum(
      Op operand, absl::Span<const std::vector<int64_t>> replica_groups = {});
  Op ReplicaId();  // u32[]

  // ---- Reductions and windows
  // ------------------------------------------------
  Op Reduce(Op operand, Op init_value, const Computation* computation,
            absl::Span<const int64_t> dimensions_to_reduce);
  // Variadic: N operands, N init values; the reducer takes 2N scalars and
  // returns an N-tuple; the result is an N-tuple.
  Op Reduce(absl::Span<const Op> operands, absl::Span<const Op> init_values,
            const Computation* computation,
            absl::Span<const int64_t> dimensions_to_reduce);
  // Reduces over every dimension.
  Op ReduceAll(Op operand, Op init_value, const Computation* computation);
  Op ReduceWindow(Op operand, Op init_value, const Computation* computation,
                  absl::Span<const int64_t> window_dimensions,
                  absl::Span<const int64_t> window_strides, Padding padding);
  // Empty dilation spans mean 1.
  Op ReduceWindowWithGeneralPadding(
      absl::Span<const Op> operands, absl::Span<const Op> init_values,
      const Computation* computation,
      absl::Span<const int64_t> window_dimensions,
      absl::Span<const int64_t> window_strides,
      absl::Span<const int64_t> base_dilations,
      absl::Span<const int64_t> window_dilations,
      absl::Span<const std::pair<int64_t, int64_t>> padding);
  Op SelectAndScatter(Op operand, const Computation* select,
                      absl::Span<const int64_t> window_dimensions,
                      absl::Span<const int64_t> window_strides, Padding padding,
                      Op source, Op init_value, const Computation* scatter);
  Op SelectAndScatterWithGeneralPadding(
      Op operand, const Computation* select,
      absl::Span<const int64_t> window_dimensions,
      absl::Span<const int64_t> window_strides,
      absl::Span<const std::pair<int64_t, int64_t>> padding, Op source,
      Op init_value, const Computation* scatter);
  // Sorts `operands` (same dimensions) together along `dimension`
  // (negative counts from the end) by `comparator` over 2N scalars
  // (lhs_0, rhs_0, lhs_1, rhs_1, ...). Results: the array for N = 1, else a
  // tuple.
  Op Sort(absl::Span<const Op> operands, const Computation* comparator,
          int64_t dimension = -1, bool is_stable = false);
  // Seed form Sort(operand): ascending along the last dimension with a
  // `compare LT` comparator the builder creates (NaNs unordered as IEEE).
  Op Sort(Op operand);

  // ---- Linear algebra and convolution --------------------------------------
  // Seed form: vector.vector, matrix.vector, matrix.matrix (rank 1 or 2);
  // contracts lhs's last dimension with rhs's first.
  Op Dot(Op lhs, Op rhs,
         PrimitiveType preferred_element_type =
             PrimitiveType::PRIMITIVE_TYPE_INVALID);
  Op DotGeneral(Op lhs, Op rhs, const DotDimensionNumbers& dimension_numbers,
                PrimitiveType preferred_element_type =
                    PrimitiveType::PRIMITIVE_TYPE_INVALID);
  // Default dimension numbers (MakeDefaultConvDimensionNumbers).
  Op Conv(Op lhs, Op rhs, absl::Span<const int64_t> window_strides,
          Padding padding, int64_t feature_group_count = 1,
          int64_t batch_group_count = 1);
  // Empty dilation spans mean 1 (seed's lhs_dilation/rhs_dilation).
  Op ConvWithGeneralPadding(
      Op lhs, Op rhs, absl::Span<const int64_t> window_strides,
      absl::Span<const std::pair<int64_t, int64_t>> padding,
      absl::Span<const int64_t> lhs_dilation = {},
      absl::Span<const int64_t> rhs_dilation = {},
      int64_t feature_group_count = 1, int64_t batch_group_count = 1);
  Op ConvWithGeneralDimensions(
      Op lhs, Op rhs, absl::Span<const int64_t> window_strides, Padding padding,
      const ConvolutionDimensionNumbers& dimension_numbers,
      int64_t feature_group_count = 1, int64_t batch_group_count = 1);
  Op ConvGeneralDilated(Op lhs, Op rhs,
                        absl::Span<const int64_t> window_strides,
                        absl::Span<const std::pair<int64_t, int64_t>> padding,
                        absl::Span<const int64_t> lhs_dilation,
                        absl::Span<const int64_t> rhs_dilation,
                        const ConvolutionDimensionNumbers& dimension_numbers,
                        int64_t feature_group_count = 1,
                        int64_t batch_group_count = 1,
                        PrimitiveType preferred_element_type =
                            PrimitiveType::PRIMITIVE_TYPE_INVALID);
  Op TriangularSolve(Op a, Op b, bool left_side, bool lower, bool unit_diagonal,
                     TriangularSolveTranspose transpose_a);
  Op Cholesky(Op a, bool lower);
  // Results: (output, batch_mean, batch_var); variance is the biased
  // (population) variance.
  Op BatchNormTraining(Op operand, Op scale, Op offset, float epsilon,
                       int64_t feature_index);
  Op BatchNormInference(Op operand, Op scale, Op offset, Op mean, Op variance,
                        float epsilon, int64_t feature_index);
  // Results: (grad_operand, grad_scale, grad_offset), today's XLA formulas
  // (the seed's are wrong; see SEMANTICS.md).
  Op BatchNormGrad(Op operand, Op scale, Op mean, Op variance, Op grad_output,
                   float epsilon, int64_t feature_index);

  // ---- Random numbers
  // --------------------------------------------------------
  Op RngNormal(Op mu, Op sigma, const Shape& shape);
  Op RngUniform(Op a, Op b, const Shape& shape);
  // No HLO opcode: rng(0, 1) uniform in mean's element type, compare LT
  // against the broadcast mean, then convert pred to shape's element type
  // (none for pred). `mean` is a floating-point scalar.
  Op RngBernoulli(Op mean, const Shape& shape);
  // rng-bit-generator: returns the tuple (new state, random bits). As in
  // XLA's XlaBuilder::RngBitGenerator, the bits take the unsigned integer
  // type of the width of shape's element type (f32 -> u32, s8 -> u8; pred
  // and complex are errors). `initial_state` is u64[2] (rng_three_fry) or
  // u64[2]/u64[3] (rng_philox, rng_default); docs/evaluator.md describes
  // the bits.
  Op RngBitGenerator(RandomAlgorithm algorithm, Op initial_state,
                     const Shape& shape);

 private:
  struct Pool;
  Builder(std::string name, std::shared_ptr<Pool> pool, bool is_sub_builder);

  // Runs `fn` unless an error was recorded; a failure becomes the first
  // error, prefixed with the name of the outermost operation running (an
  // operation may be lowered through others: their errors carry the name
  // the user called). Returns the Op of the instruction `fn` returns.
  Op Emit(absl::string_view op_name,
          absl::FunctionRef<absl::StatusOr<Instruction*>()> fn);
  absl::StatusOr<Instruction*> Resolve(Op op) const;
  // The instruction of an Op returned by a nested operation call, or the
  // error that call recorded.
  absl::StatusOr<Instruction*> Nested(Op op) const;
  absl::StatusOr<std::vector<Instruction*>> ResolveAll(
      absl::Span<const Op> ops) const;
  absl::Status CheckComputation(const Computation* c,
                                absl::string_view role) const;
  // Adds an instruction; its shape was computed (and the input checked) by
  // shape inference.
  Instruction* AddInstruction(HloOpcode opcode, Shape shape,
                              absl::Span<Instruction* const> operands,
                              InstructionAttrs attrs = {},
                              std::vector<Computation*> called = {},
                              absl::string_view name = "");

  // Single-instruction emitters used by the lowerings; each calls the
  // matching shape inference function.
  absl::StatusOr<Instruction*> AddBroadcast(
      Instruction* operand, absl::Span<const int64_t> out_dimensions,
      absl::Span<const int64_t> broadcast_dimensions);
  absl::StatusOr<Instruction*> AddReshape(Instruction* operand,
                                          absl::Span<const int64_t> new_sizes);
  absl::StatusOr<Instruction*> AddTranspose(
      Instruction* operand, absl::Span<const int64_t> permutation);
  absl::StatusOr<Instruction*> AddSlice(Instruction* operand,
                                        std::vector<SliceDimension> slice);
  absl::StatusOr<Instruction*> AddConstant(const Literal& literal);
  absl::StatusOr<Instruction*> AddScalarConstant(PrimitiveType type,
                                                 double value);
  absl::StatusOr<Instruction*> AddGetTupleElement(Instruction* tuple,
                                                  int64_t index);
  absl::StatusOr<Instruction*> AddAfterAll(
      absl::Span<Instruction* const> tokens);
  absl::StatusOr<Instruction*> AddCompare(Instruction* lhs, Instruction* rhs,
                                          ComparisonDirection direction,
                                          ComparisonType type);
  // Seed 003: broadcasts `operand` (a scalar, or of out_dimensions' rank
  // with each dimension equal or 1) to `out_dimensions`: a broadcast, after
  // a reshape dropping the size-1 dimensions that grow.
  absl::StatusOr<Instruction*> AddBroadcastSequence(
      Instruction* operand, absl::Span<const int64_t> out_dimensions);
  // Seed 003 for two operands: brings both to `result_dimensions`
  // (already validated by shape inference).
  absl::StatusOr<std::pair<Instruction*, Instruction*>> LowerImplicitBroadcast(
      Instruction* lhs, Instruction* rhs,
      absl::Span<const int64_t> result_dimensions,
      absl::Span<const int64_t> broadcast_dimensions);
  absl::StatusOr<Instruction*> AddBinary(HloOpcode opcode, Instruction* lhs,
                                         Instruction* rhs,
                                         absl::Span<const int64_t> bdims);
  absl::StatusOr<Instruction*> AddUnary(HloOpcode opcode, Instruction* operand);
  absl::StatusOr<Instruction*> AddDynamicSlice(
      Instruction* operand, std::vector<Instruction*> start_indices,
      absl::Span<const int64_t> slice_sizes);
  absl::StatusOr<std::vector<Instruction*>> SplitIndexVector(
      Instruction* indices);
  absl::StatusOr<Instruction*> AddDynamicUpdateSlice(
      Instruction* operand, Instruction* update,
      std::vector<Instruction*> start_indices);
  absl::StatusOr<Instruction*> AddReduceWindow(
      std::vector<Instruction*> operands_and_inits,
      const Computation* computation, Window window);
  absl::StatusOr<Instruction*> AddSelectAndScatter(
      Instruction* operand, const Computation* select, Window window,
      Instruction* source, Instruction* init_value, const Computation* scatter);
  absl::StatusOr<Instruction*> AddConvolution(
      Instruction* lhs, Instruction* rhs, Window window,
      const ConvolutionDimensionNumbers& dimension_numbers,
      int64_t feature_group_count, int64_t batch_group_count,
      PrimitiveType preferred_element_type);
  absl::StatusOr<Instruction*> AddInfeed(Instruction* token, const Shape& shape,
                                         absl::string_view config);
  absl::StatusOr<Instruction*> AddOutfeed(Instruction* operand,
                                          Instruction* token,
                                          const Shape& shape_with_layout,
                                          absl::string_view config);
  // The token of the seed-form infeed/outfeed chain (created on first use).
  absl::StatusOr<Instruction*> ImplicitToken();
  // Scalar computations the builder makes itself (cached per family):
  // add (or for pred) for CrossReplicaSum, compare LT for Sort(operand).
  absl::StatusOr<Computation*> ScalarAddComputation(PrimitiveType type);
  absl::StatusOr<Computation*> ScalarLessThanComputation(PrimitiveType type);

  std::string name_;
  std::shared_ptr<Pool> pool_;
  bool is_sub_builder_ = false;
  bool built_ = false;
  std::unique_ptr<Computation> computation_;
  std::vector<Instruction*> values_;  // Op id -> instruction
  absl::flat_hash_map<const Instruction*, int64_t> ids_;
  absl::Status first_error_;
  int emit_depth_ = 0;
  std::string outer_op_name_;
  Op last_op_;
  Instruction* implicit_token_ = nullptr;
};

}  // namespace plexa

#endif  // PLEXA_CORE_BUILDER_BUILDER_H_
