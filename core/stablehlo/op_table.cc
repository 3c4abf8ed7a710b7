// The one table of operations the importer reads: MLIR name, handler, and
// the HLO opcode the handler writes where it is a single one. For
// LowerRefused the third column is the reason given to the user.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/stablehlo/lower.h"
#include "core/stablehlo/ops.h"

namespace plexa::stablehlo {
namespace {

constexpr absl::string_view kDynamic =
    "dynamic shapes are not supported (Plexa's shapes are static)";
constexpr absl::string_view kQuantized = "quantized types are not supported";

constexpr OpMapping kOps[] = {
    // Elementwise: one HLO instruction.
    {"stablehlo.abs", LowerSimple, "abs"},
    {"stablehlo.add", LowerSimple, "add"},
    {"stablehlo.and", LowerSimple, "and"},
    {"stablehlo.atan2", LowerSimple, "atan2"},
    {"stablehlo.bitcast_convert", LowerSimple, "bitcast-convert"},
    {"stablehlo.cbrt", LowerSimple, "cbrt"},
    {"stablehlo.ceil", LowerSimple, "ceil"},
    {"stablehlo.clamp", LowerSelectOrClamp, "clamp"},
    {"stablehlo.compare", LowerCompare, "compare"},
    {"stablehlo.complex", LowerSimple, "complex"},
    {"stablehlo.convert", LowerSimple, "convert"},
    {"stablehlo.cosine", LowerSimple, "cosine"},
    {"stablehlo.count_leading_zeros", LowerSimple, "count-leading-zeros"},
    {"stablehlo.divide", LowerSimple, "divide"},
    {"stablehlo.exponential", LowerSimple, "exponential"},
    {"stablehlo.exponential_minus_one", LowerSimple, "exponential-minus-one"},
    {"stablehlo.floor", LowerSimple, "floor"},
    {"stablehlo.imag", LowerSimple, "imag"},
    {"stablehlo.is_finite", LowerSimple, "is-finite"},
    {"stablehlo.log", LowerSimple, "log"},
    {"stablehlo.log_plus_one", LowerSimple, "log-plus-one"},
    {"stablehlo.logistic", LowerSimple, "logistic"},
    {"stablehlo.maximum", LowerSimple, "maximum"},
    {"stablehlo.minimum", LowerSimple, "minimum"},
    {"stablehlo.multiply", LowerSimple, "multiply"},
    {"stablehlo.negate", LowerSimple, "negate"},
    {"stablehlo.not", LowerSimple, "not"},
    {"stablehlo.or", LowerSimple, "or"},
    {"stablehlo.popcnt", LowerSimple, "popcnt"},
    {"stablehlo.power", LowerSimple, "power"},
    {"stablehlo.real", LowerSimple, "real"},
    {"stablehlo.reduce_precision", LowerReducePrecision, "reduce-precision"},
    {"stablehlo.remainder", LowerSimple, "remainder"},
    {"stablehlo.round_nearest_afz", LowerSimple, "round-nearest-afz"},
    {"stablehlo.round_nearest_even", LowerSimple, "round-nearest-even"},
    {"stablehlo.rsqrt", LowerSimple, "rsqrt"},
    {"stablehlo.select", LowerSelectOrClamp, "select"},
    {"stablehlo.shift_left", LowerSimple, "shift-left"},
    {"stablehlo.shift_right_arithmetic", LowerSimple, "shift-right-arithmetic"},
    {"stablehlo.shift_right_logical", LowerSimple, "shift-right-logical"},
    {"stablehlo.sign", LowerSimple, "sign"},
    {"stablehlo.sine", LowerSimple, "sine"},
    {"stablehlo.sqrt", LowerSimple, "sqrt"},
    {"stablehlo.subtract", LowerSimple, "subtract"},
    {"stablehlo.tan", LowerSimple, "tan"},
    {"stablehlo.tanh", LowerSimple, "tanh"},
    {"stablehlo.xor", LowerSimple, "xor"},
    // Data movement and shapes.
    {"stablehlo.constant", LowerConstant, "constant"},
    {"stablehlo.broadcast_in_dim", LowerBroadcastInDim, "broadcast"},
    {"stablehlo.broadcast", LowerBroadcast, "broadcast"},
    {"stablehlo.reshape", LowerSimple, "reshape"},
    {"stablehlo.transpose", LowerTranspose, "transpose"},
    {"stablehlo.reverse", LowerReverse, "reverse"},
    {"stablehlo.concatenate", LowerConcatenate, "concatenate"},
    {"stablehlo.iota", LowerIota, "iota"},
    {"stablehlo.slice", LowerSlice, "slice"},
    {"stablehlo.dynamic_slice", LowerDynamicSlice, "dynamic-slice"},
    {"stablehlo.dynamic_update_slice", LowerSimple, "dynamic-update-slice"},
    {"stablehlo.pad", LowerPad, "pad"},
    {"stablehlo.get_tuple_element", LowerGetTupleElement, "get-tuple-element"},
    {"stablehlo.tuple", LowerSimple, "tuple"},
    {"stablehlo.optimization_barrier", LowerTupleResults, "opt-barrier"},
    {"stablehlo.get_dimension_size", LowerGetDimensionSize,
     "get-dimension-size"},
    {"stablehlo.gather", LowerGather, "gather"},
    {"stablehlo.scatter", LowerScatter, "scatter"},
    // Linear algebra, convolution, fft, normalization.
    {"stablehlo.dot", LowerDot, "dot"},
    {"stablehlo.dot_general", LowerDotGeneral, "dot"},
    {"stablehlo.convolution", LowerConvolution, "convolution"},
    {"stablehlo.fft", LowerFft, "fft"},
    {"stablehlo.batch_norm_inference", LowerBatchNorm, "batch-norm-inference"},
    {"stablehlo.batch_norm_training", LowerBatchNorm, "batch-norm-training"},
    {"stablehlo.batch_norm_grad", LowerBatchNorm, "batch-norm-grad"},
    {"stablehlo.cholesky", LowerCholesky, "cholesky"},
    {"stablehlo.triangular_solve", LowerTriangularSolve, "triangular-solve"},
    {"stablehlo.rng", LowerRng, "rng"},
    {"stablehlo.rng_bit_generator", LowerRngBitGenerator, "rng-bit-generator"},
    // Regions, calls, side effects.
    {"stablehlo.reduce", LowerReduce, "reduce"},
    {"stablehlo.reduce_window", LowerReduceWindow, "reduce-window"},
    {"stablehlo.select_and_scatter", LowerSelectAndScatter,
     "select-and-scatter"},
    {"stablehlo.sort", LowerSort, "sort"},
    {"stablehlo.map", LowerMap, "map"},
    {"stablehlo.while", LowerWhile, "while"},
    {"stablehlo.if", LowerIf, "conditional"},
    {"stablehlo.case", LowerCase, "conditional"},
    {"func.call", LowerCall, "call"},
    {"call", LowerCall, "call"},
    {"stablehlo.composite", LowerComposite, ""},
    {"stablehlo.custom_call", LowerCustomCall, "custom-call"},
    {"stablehlo.after_all", LowerSimple, "after-all"},
    {"stablehlo.create_token", LowerSimple, "after-all"},
    {"stablehlo.replica_id", LowerSimple, "replica-id"},
    {"stablehlo.partition_id", LowerSimple, "partition-id"},
    {"stablehlo.all_reduce", LowerAllReduce, "all-reduce"},
    {"stablehlo.all_gather", LowerAllGather, "all-gather"},
    {"stablehlo.reduce_scatter", LowerReduceScatter, "reduce-scatter"},
    {"stablehlo.all_to_all", LowerAllToAll, "all-to-all"},
    {"stablehlo.collective_broadcast", LowerCollectiveBroadcast,
     "collective-broadcast"},
    {"stablehlo.collective_permute", LowerCollectivePermute,
     "collective-permute"},
    {"stablehlo.infeed", LowerInfeed, "infeed"},
    {"stablehlo.outfeed", LowerOutfeed, "outfeed"},
    // chlo: an HLO opcode where Plexa has one.
    {"chlo.acos", LowerSimple, "acos"},
    {"chlo.acosh", LowerSimple, "acosh"},
    {"chlo.asin", LowerSimple, "asin"},
    {"chlo.asinh", LowerSimple, "asinh"},
    {"chlo.atan", LowerSimple, "atan"},
    {"chlo.atanh", LowerSimple, "atanh"},
    {"chlo.cosh", LowerSimple, "cosh"},
    {"chlo.sinh", LowerSimple, "sinh"},
    {"chlo.tan", LowerSimple, "tan"},
    {"chlo.erf", LowerSimple, "erf"},
    {"chlo.erfc", LowerChloErfc, ""},
    {"chlo.erf_inv", LowerChloErfInv, ""},
    {"chlo.square", LowerChloSquare, "multiply"},
    {"chlo.conj", LowerChloConj, ""},
    {"chlo.is_inf", LowerChloIsInf, "inf"},
    {"chlo.is_pos_inf", LowerChloIsInf, "pos"},
    {"chlo.is_neg_inf", LowerChloIsInf, "neg"},
    {"chlo.constant_like", LowerChloConstantLike, ""},
    {"chlo.constant", LowerConstant, "constant"},
    {"chlo.top_k", LowerChloTopK, "topk"},
    {"chlo.ragged_dot", LowerChloRaggedDot, "ragged-dot"},
    {"chlo.next_after", LowerChloNextAfter, ""},
    {"chlo.broadcast_add", LowerChloBroadcastBinary, "add"},
    {"chlo.broadcast_and", LowerChloBroadcastBinary, "and"},
    {"chlo.broadcast_atan2", LowerChloBroadcastBinary, "atan2"},
    {"chlo.broadcast_complex", LowerChloBroadcastBinary, "complex"},
    {"chlo.broadcast_divide", LowerChloBroadcastBinary, "divide"},
    {"chlo.broadcast_maximum", LowerChloBroadcastBinary, "maximum"},
    {"chlo.broadcast_minimum", LowerChloBroadcastBinary, "minimum"},
    {"chlo.broadcast_multiply", LowerChloBroadcastBinary, "multiply"},
    {"chlo.broadcast_or", LowerChloBroadcastBinary, "or"},
    {"chlo.broadcast_polygamma", LowerRefused,
     "polygamma has no HLO counterpart and no decomposition here"},
    {"chlo.broadcast_power", LowerChloBroadcastBinary, "power"},
    {"chlo.broadcast_remainder", LowerChloBroadcastBinary, "remainder"},
    {"chlo.broadcast_shift_left", LowerChloBroadcastBinary, "shift-left"},
    {"chlo.broadcast_shift_right_arithmetic", LowerChloBroadcastBinary,
     "shift-right-arithmetic"},
    {"chlo.broadcast_shift_right_logical", LowerChloBroadcastBinary,
     "shift-right-logical"},
    {"chlo.broadcast_subtract", LowerChloBroadcastBinary, "subtract"},
    {"chlo.broadcast_xor", LowerChloBroadcastBinary, "xor"},
    {"chlo.broadcast_next_after", LowerChloNextAfter, "broadcast"},
    {"chlo.broadcast_zeta", LowerRefused,
     "zeta has no HLO counterpart and no decomposition here"},
    {"chlo.broadcast_compare", LowerChloBroadcastCompare, "compare"},
    {"chlo.broadcast_select", LowerChloBroadcastSelect, "select"},
    {"chlo.lgamma", LowerChloLgamma, ""},
    {"chlo.digamma", LowerChloDigamma, ""},
    {"chlo.polygamma", LowerRefused,
     "polygamma has no HLO counterpart and no decomposition here"},
    {"chlo.zeta", LowerRefused,
     "zeta has no HLO counterpart and no decomposition here"},
    {"chlo.bessel_i1e", LowerRefused,
     "bessel_i1e has no HLO counterpart and no decomposition here"},
    // Shardy's annotations: Plexa runs one program per replica, so a
    // sharding constraint is its operand.
    {"sdy.sharding_constraint", LowerIdentity, ""},
    {"sdy.reshard", LowerIdentity, ""},
    // Refused, with the reason.
    // Static results (the reader refuses `?`): the static op.
    {"stablehlo.dynamic_broadcast_in_dim", LowerStaticDynamicShapeOp,
     "broadcast"},
    {"stablehlo.dynamic_reshape", LowerStaticDynamicShapeOp, "reshape"},
    {"stablehlo.dynamic_iota", LowerStaticDynamicShapeOp, "iota"},
    {"stablehlo.dynamic_conv", LowerRefused, kDynamic},
    {"stablehlo.dynamic_gather", LowerRefused, kDynamic},
    {"stablehlo.dynamic_pad", LowerDynamicPad, "pad"},
    {"stablehlo.real_dynamic_slice", LowerRealDynamicSlice, "slice"},
    {"stablehlo.set_dimension_size", LowerRefused, kDynamic},
    {"stablehlo.uniform_quantize", LowerRefused, kQuantized},
    {"stablehlo.uniform_dequantize", LowerRefused, kQuantized},
    {"stablehlo.send", LowerSend, "send"},
    {"stablehlo.recv", LowerRecv, "recv"},
    {"sdy.manual_computation", LowerRefused,
     "manual SPMD regions are not supported (Plexa has no partitioner)"},
};

}  // namespace

const OpMapping* FindOpMapping(absl::string_view mlir_name) {
  static const auto* const kIndex = [] {
    auto* index = new absl::flat_hash_map<absl::string_view, const OpMapping*>;
    for (const OpMapping& m : kOps) (*index)[m.mlir_name] = &m;
    return index;
  }();
  auto it = kIndex->find(mlir_name);
  if (it != kIndex->end()) return it->second;
  // mhlo spells the same ops the same way.
  if (mlir_name.substr(0, 5) == "mhlo.") {
    std::string s = absl::StrCat("stablehlo.", mlir_name.substr(5));
    auto it2 = kIndex->find(s);
    if (it2 != kIndex->end()) return it2->second;
  }
  return nullptr;
}

absl::Span<const OpMapping> AllOpMappings() { return kOps; }

}  // namespace plexa::stablehlo
