// What the oneDNN plugin maps to a oneDNN primitive, and the primitive it
// builds for it.
//
// A chain is an anchor — a dot (dnnl::matmul) or a convolution
// (dnnl::convolution_forward) — and the elementwise instructions that
// consume it one after the other (each the only user of the one before),
// which run as the primitive's post-ops:
//   - binary: add, subtract, multiply, divide (the chain on the left for
//     subtract and divide), maximum and minimum (relaxed NaN mode only) with
//     another value of the result's shape or a broadcast of one (a bias, a
//     per-channel scale, a scalar): the post-op reads the broadcast's
//     operand with size-1 dimensions, never the broadcast array;
//   - eltwise: tanh, logistic, exponential, negate; in relaxed NaN mode
//     also maximum with 0 (relu) and clamp between scalar constants.
// oneDNN's max, relu and clip return the other operand for a NaN input
// where HLO's maximum, minimum and clamp return NaN (checked on this
// machine's oneDNN 2.6: relu(NaN) = 0), so they are post-ops only when the
// client asks for relaxed NaN semantics (docs/onednn.md).
//
// MatchChain finds a chain in any computation; the plugin's rewrite
// (onednn_extension.h) makes each one a fusion of kind kCustom, and the
// thunk is built from the fused computation by matching it again. Both use
// BuildPlan, so a chain is rewritten only if oneDNN takes it.
#ifndef PLEXA_PLUGINS_ONEDNN_ONEDNN_PLAN_H_
#define PLEXA_PLUGINS_ONEDNN_ONEDNN_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace plexa::onednn {

struct MatchOptions {
  // maximum, minimum and clamp as post-ops although oneDNN drops NaNs.
  bool relaxed_nan = false;
  int max_post_ops = 8;
  // Also the f32 convolutions the CPU plugin runs with its Winograd kernel
  // (3x3, unit stride, enough tiles), which oneDNN 2.6's direct kernels do
  // not beat (docs/onednn.md has the numbers); by default they stay there.
  bool all_convolutions = false;
  // f32 dots and convolutions (softmaxes: 5 per element) with fewer
  // floating-point operations stay on the CPU plugin: a primitive costs
  // about 3 µs more per call, and below 2 * 128^3 the CPU plugin's GEMM is
  // faster (measured: 64^3 5 µs vs 8 µs, 128^3 even, 256^3 1.07x for
  // oneDNN). bf16 is always mapped (the CPU plugin has no bf16 GEMM).
  double min_flops = 2.0 * 128 * 128 * 128;
  // Memory-bound primitives (pooling, reduction, layer norm, eltwise,
  // binary, reorder, concat) on arrays with fewer elements stay on the CPU
  // plugin: a library call costs a few µs more than its loops.
  int64_t min_elements = 1 << 16;
  // Also the patterns oneDNN 2.6 runs slower than the CPU plugin's fused
  // loops on this machine (docs/onednn.md has the numbers): layer norm,
  // reductions, standalone unary elementwise ops and gelu, binary ops, and
  // batch norms whose features are not the innermost dimension.
  bool all_primitives = false;
};

struct PostOp {
  enum class Kind { kBinary, kEltwise };
  const Instruction* op = nullptr;  // the elementwise instruction
  Kind kind = Kind::kEltwise;
  dnnl::algorithm alg = dnnl::algorithm::undef;
  float alpha = 0.0f, beta = 0.0f;  // kEltwise
  // kBinary: the other operand, read through `broadcast` when not null.
  const Instruction* source = nullptr;
  const Instruction* broadcast = nullptr;
  // kEltwise from scalar constants (relu's 0, clamp's bounds) or a gelu: the
  // constants and broadcasts of them, fused in with the post-op so the
  // fused computation still shows them.
  std::vector<const Instruction*> constants;
};

struct Chain {
  const Instruction* anchor = nullptr;  // dot or convolution
  std::vector<PostOp> post_ops;
  // The instruction whose value the chain computes.
  const Instruction* last() const {
    return post_ops.empty() ? anchor : post_ops.back().op;
  }
  // The instructions in order (anchor, then each post-op's broadcast and
  // instruction): the members of the fusion that replaces the chain.
  std::vector<Instruction*> Members() const;
};

// The anchor's elementwise consumers that can be post-ops, longest first
// (empty when `anchor` has several users, is a computation's root, or the
// first consumer does not qualify).
std::vector<PostOp> MatchPostOps(const Instruction& anchor,
                                 const MatchOptions& options);

// The dnnl_arg of the input a sum post-op adds: it is reordered into the
// destination (`staged` is the destination's layout) before the primitive
// runs.
inline constexpr int kSumArg = -1;

// One argument of the primitive. The program's array (`user`) is
// reordered into a copy in the scratch (`staged`, the same dimensions in
// another layout: a blocked one the primitive chose, or a dense order in
// which the dimensions it collapses are contiguous) when the two differ;
// the primitive reads (or writes) that memory as `prim`, which may collapse
// dimensions.
struct PlanArg {
  int dnnl_arg = 0;                     // DNNL_ARG_SRC, ...
  const Instruction* source = nullptr;  // the value read (inputs)
  dnnl::memory::desc user, staged, prim;
  bool reorder = false;        // user != staged
  int64_t scratch_offset = 0;  // of the staged copy
};

struct Plan {
  enum class Kind {
    kMatmul,
    kConvolution,
    kSoftmax,
    kPooling,
    kReduction,
    kLayerNorm,
    kBatchNorm,
    kEltwise,
    kBinary,
    kReorder,
    kConcat,
  };
  Kind kind = Kind::kMatmul;
  dnnl::primitive primitive;
  std::string impl;  // oneDNN's implementation name ("brg:avx512_core")
  std::vector<PlanArg> inputs;  // src, weights, then post-op operands
  PlanArg dst;                  // source null
  // Results after the first (a tuple's leaves 1, 2, ...: batch norm's mean
  // and variance), in the thunk's outputs 1, 2, ...
  std::vector<PlanArg> more_outputs;
  dnnl::memory::desc scratchpad;  // the primitive's, at scratch offset 0
  int64_t scratchpad_bytes = 0;
  int64_t scratch_bytes = 0;  // all of it: scratchpad and reordered copies
  int post_op_count = 0;
  int reorders = 0;  // per execution
  // The result is left in the primitive's layout (dst.user == dst.prim):
  // only the next convolution can read it (PlanHints).
  bool dst_in_primitive_layout = false;
};

// "matmul", "convolution", "softmax", "pooling", ...: the fusion's
// backend_config, the thunk's kind and the report's key.
const char* KindName(Plan::Kind kind);

// The oneDNN type of an element type it computes in (f32, bf16).
std::optional<dnnl::memory::data_type> DnnlType(PrimitiveType t);

// A dense array with a layout, at least one element and a oneDNN type.
bool IsPlainArray(const Shape& s);

// The value of a scalar constant or of a broadcast of one.
std::optional<double> ScalarConstantValue(const Instruction& i);

// `s`'s memory with its dimensions in `order` (logical dimension numbers;
// -1 is a dimension of size 1 that is not in the array), with the strides
// of its layout.
dnnl::memory::desc PermutedDesc(const Shape& s,
                                absl::Span<const int64_t> order);
// The same in logical order.
dnnl::memory::desc PlainDesc(const Shape& s);

// Lays out plan->scratch_bytes: the primitive's `scratchpad` at offset 0,
// then a copy for each argument that is reordered (sets their `reorder`,
// `scratch_offset` and plan->reorders).
void LayOutScratch(const dnnl::memory::desc& scratchpad, Plan* plan);

// Layouts agreed between consecutive convolutions: a convolution whose
// only user is another oneDNN convolution reading it as its input leaves
// its result in its own (blocked) layout, and the next one reads it so, with
// no reorder in between. The slot keeps the array's byte size, so only
// layouts of the same size qualify (64 channels in nChw16c do; 3 do not).
struct PlanHints {
  // Convolutions: the layout input 0 arrives in (else the program's).
  std::optional<dnnl::memory::desc> src_layout;
  // Convolutions: leave the result in the primitive's layout when it has
  // the same size.
  bool keep_dst_layout = false;
};

// The primitive for `chain` (anchor and post-ops), or an error saying why
// oneDNN does not take it (unsupported types, dimension numbers, windows,
// layouts, or oneDNN found no implementation).
absl::StatusOr<Plan> BuildPlan(const Chain& chain, const dnnl::engine& engine,
                               const PlanHints& hints = {});

}  // namespace plexa::onednn

#endif  // PLEXA_PLUGINS_ONEDNN_ONEDNN_PLAN_H_
