// The handlers the op table (op_table.cc) points at, one per family of
// operations. Each reads what it needs from the op (both the generic and
// the pretty spellings of its attributes) and writes HLO instructions.
// Internal to core/stablehlo.
#ifndef PLEXA_CORE_STABLEHLO_OPS_H_
#define PLEXA_CORE_STABLEHLO_OPS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/stablehlo/lower.h"

namespace plexa::stablehlo {

#define PLEXA_STABLEHLO_HANDLER(name) \
  absl::Status name(OpContext& ctx, absl::string_view hlo_op)

// ops_basic.cc: one HLO instruction with the op's operands and result.
PLEXA_STABLEHLO_HANDLER(LowerSimple);
PLEXA_STABLEHLO_HANDLER(LowerSelectOrClamp);
PLEXA_STABLEHLO_HANDLER(LowerConstant);
PLEXA_STABLEHLO_HANDLER(LowerCompare);
PLEXA_STABLEHLO_HANDLER(LowerBroadcastInDim);
PLEXA_STABLEHLO_HANDLER(LowerBroadcast);
PLEXA_STABLEHLO_HANDLER(LowerTranspose);
PLEXA_STABLEHLO_HANDLER(LowerReverse);
PLEXA_STABLEHLO_HANDLER(LowerConcatenate);
PLEXA_STABLEHLO_HANDLER(LowerIota);
PLEXA_STABLEHLO_HANDLER(LowerSlice);
PLEXA_STABLEHLO_HANDLER(LowerDynamicSlice);
PLEXA_STABLEHLO_HANDLER(LowerPad);
PLEXA_STABLEHLO_HANDLER(LowerGetTupleElement);
PLEXA_STABLEHLO_HANDLER(LowerTupleResults);  // opt-barrier over a tuple
PLEXA_STABLEHLO_HANDLER(LowerReducePrecision);
PLEXA_STABLEHLO_HANDLER(LowerGetDimensionSize);
PLEXA_STABLEHLO_HANDLER(LowerStaticDynamicShapeOp);
PLEXA_STABLEHLO_HANDLER(LowerIdentity);  // sharding annotations
PLEXA_STABLEHLO_HANDLER(LowerRealDynamicSlice);
PLEXA_STABLEHLO_HANDLER(LowerDynamicPad);

// ops_linalg.cc
PLEXA_STABLEHLO_HANDLER(LowerDot);
PLEXA_STABLEHLO_HANDLER(LowerDotGeneral);
PLEXA_STABLEHLO_HANDLER(LowerConvolution);
PLEXA_STABLEHLO_HANDLER(LowerGather);
PLEXA_STABLEHLO_HANDLER(LowerScatter);
PLEXA_STABLEHLO_HANDLER(LowerFft);
PLEXA_STABLEHLO_HANDLER(LowerBatchNorm);
PLEXA_STABLEHLO_HANDLER(LowerCholesky);
PLEXA_STABLEHLO_HANDLER(LowerTriangularSolve);
PLEXA_STABLEHLO_HANDLER(LowerRng);
PLEXA_STABLEHLO_HANDLER(LowerRngBitGenerator);

// ops_regions.cc: ops with regions, calls and side effects.
PLEXA_STABLEHLO_HANDLER(LowerReduce);
PLEXA_STABLEHLO_HANDLER(LowerReduceWindow);
PLEXA_STABLEHLO_HANDLER(LowerSelectAndScatter);
PLEXA_STABLEHLO_HANDLER(LowerSort);
PLEXA_STABLEHLO_HANDLER(LowerMap);
PLEXA_STABLEHLO_HANDLER(LowerWhile);
PLEXA_STABLEHLO_HANDLER(LowerIf);
PLEXA_STABLEHLO_HANDLER(LowerCase);
PLEXA_STABLEHLO_HANDLER(LowerCall);
PLEXA_STABLEHLO_HANDLER(LowerComposite);
PLEXA_STABLEHLO_HANDLER(LowerCustomCall);
PLEXA_STABLEHLO_HANDLER(LowerAllReduce);
PLEXA_STABLEHLO_HANDLER(LowerAllGather);
PLEXA_STABLEHLO_HANDLER(LowerReduceScatter);
PLEXA_STABLEHLO_HANDLER(LowerAllToAll);
PLEXA_STABLEHLO_HANDLER(LowerCollectivePermute);
PLEXA_STABLEHLO_HANDLER(LowerCollectiveBroadcast);
PLEXA_STABLEHLO_HANDLER(LowerInfeed);
PLEXA_STABLEHLO_HANDLER(LowerOutfeed);
PLEXA_STABLEHLO_HANDLER(LowerSend);
PLEXA_STABLEHLO_HANDLER(LowerRecv);

// ops_chlo.cc: chlo ops without an HLO opcode, as HLO.
PLEXA_STABLEHLO_HANDLER(LowerChloBroadcastBinary);
PLEXA_STABLEHLO_HANDLER(LowerChloBroadcastCompare);
PLEXA_STABLEHLO_HANDLER(LowerChloBroadcastSelect);
PLEXA_STABLEHLO_HANDLER(LowerChloSquare);
PLEXA_STABLEHLO_HANDLER(LowerChloIsInf);
PLEXA_STABLEHLO_HANDLER(LowerChloErfc);
PLEXA_STABLEHLO_HANDLER(LowerChloErfInv);
PLEXA_STABLEHLO_HANDLER(LowerChloConj);
PLEXA_STABLEHLO_HANDLER(LowerChloConstantLike);
PLEXA_STABLEHLO_HANDLER(LowerChloTopK);
PLEXA_STABLEHLO_HANDLER(LowerChloRaggedDot);
PLEXA_STABLEHLO_HANDLER(LowerChloNextAfter);
PLEXA_STABLEHLO_HANDLER(LowerChloLgamma);
PLEXA_STABLEHLO_HANDLER(LowerChloDigamma);
PLEXA_STABLEHLO_HANDLER(LowerRefused);  // a located UNIMPLEMENTED

#undef PLEXA_STABLEHLO_HANDLER

}  // namespace plexa::stablehlo

#endif  // PLEXA_CORE_STABLEHLO_OPS_H_
