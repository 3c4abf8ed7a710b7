// Dynamic shapes made static, as XLA's DynamicPadder does.
//
// A dynamic dimension (f32[<=8]) has a size known only at run time, within
// its bound. set-dimension-size gives an array such a size, dynamic-reshape
// reshapes by run-time sizes, get-dimension-size reads one, and an entry
// parameter may be dynamic. The lowering keeps every array at its bound
// (the elements past the size are padding: any value) and carries each
// dynamic size as an s32[] value beside it, then rewrites the operations
// whose result the padding would change:
//   reduce, reduce-window       the padding is replaced by the init
//   dot                         the padding of contracted dims becomes 0
//   pad                         the padding becomes the pad value first
//   sort                        the padding sorts after every element
//   concatenate (dynamic dim)   each piece goes where the sizes say
//   reverse (dynamic dim)       the reversed elements start at 0
//   reshape, dynamic-reshape    the elements are gathered in row-major order
//                               of the run-time sizes (no copy where the
//                               padding stays at the end)
// Elementwise ops, broadcast, transpose, slice, dynamic-slice, gather (with
// dynamic indices), tuples and convolution (dynamic batch) carry the sizes
// through. Anything else that meets a dynamic dimension (a while loop
// carrying one, a custom call, a collective other than all-reduce, ...) is
// refused with UNIMPLEMENTED naming the instruction and dimension, never
// run on the padding. Only the entry computation may hold dynamic shapes.
//
// Afterwards no shape in the module is dynamic, so every backend runs the
// program unchanged. docs/dynamic_shapes.md describes it.
#ifndef PLEXA_CORE_PASSES_DYNAMIC_PADDER_H_
#define PLEXA_CORE_PASSES_DYNAMIC_PADDER_H_

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/ir/module.h"
#include "core/literal/literal.h"
#include "core/passes/pass.h"
#include "core/shape/shape.h"

namespace plexa {

// What LowerDynamicShapes did to the entry's signature, so that a host can
// pass arguments at their run-time sizes and read results at theirs.
struct DynamicSignature {
  // False when the signature is unchanged (no dynamic parameter or
  // result); the helpers below then pass values through.
  bool changed = false;
  // The entry's parameters and result as written (with their bounds).
  std::vector<Shape> parameters;
  Shape result;
  // One s32[] parameter is appended per dynamic dimension of a parameter,
  // in this order: (parameter number, dimension).
  std::vector<std::pair<int64_t, int64_t>> parameter_sizes;
  // When the result has dynamic dimensions the lowered entry returns
  // tuple(result, size...), one s32[] per entry here: (tuple element of
  // the result, or -1 for an array result; dimension).
  std::vector<std::pair<int64_t, int64_t>> result_sizes;
};

// True if any shape in `module` is dynamic or it has set-dimension-size or
// dynamic-reshape.
bool HasDynamicShapes(const Module& module);

// Lowers `module` (see above), the entry's dynamic parameters and result
// included, and says how its signature changed. A module without dynamic
// shapes is left as it is.
absl::StatusOr<DynamicSignature> LowerDynamicShapes(Module* module);

// The arguments of the lowered entry: each argument of a dynamic parameter
// may be smaller than the bound in its dynamic dimensions (its size there
// is its run-time size); it is padded to the bound and its sizes appended.
// Static dimensions, ranks and element types must match (InvalidArgument
// naming the parameter otherwise).
absl::StatusOr<std::vector<Literal>> PadDynamicArguments(
    const DynamicSignature& signature, std::vector<Literal> args);

// The lowered entry's result cut to its run-time sizes: the value the
// program as written returns.
absl::StatusOr<Literal> SliceDynamicResult(const DynamicSignature& signature,
                                           Literal result);

// The pass in the default pipeline: lowers a module whose dynamic shapes
// stay inside it (set-dimension-size, dynamic-reshape). Its signature
// cannot change here, so a dynamic parameter is taken at its bound (the
// caller passes the whole array) and a result that is dynamic at run time
// is an error that says to lower on the host (LowerDynamicShapes; plexa run
// does).
class DynamicPadder : public Pass {
 public:
  absl::string_view name() const override { return "dynamic-padder"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_DYNAMIC_PADDER_H_
