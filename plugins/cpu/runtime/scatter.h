// XLA scatter applied in place, for one operand (not variadic), with the
// update computation recognised as one of a few combiners.
//
// The caller copies the operand into the output buffer first; Scatter then
// combines every update into it, with the semantics of the reference
// evaluator (core/eval/gather_scatter.cc):
//
//   for each scatter position p of the updates (row-major over the updates'
//   non-window dimensions, which match the indices' dimensions other than
//   index_vector_dim, in order):
//     start[scatter_dims_to_operand_dims[k]] = indices[p, k]
//     start[input_batching_dims[j]] = p's coordinate on the indices dimension
//                                     scatter_indices_batching_dims[j]
//     (every other operand dimension starts at 0)
//     if some dimension d has start[d] < 0 or
//        start[d] > operand_dims[d] - window_size[d]: skip the window
//        (window_size is the updates' size for window dimensions, 1 for
//        inserted and batching dimensions)
//     for each element w of the window:
//       out[start + w] = combiner(out[start + w], updates[p, w])
//
// Windows are applied one after the other in that order, so with duplicate
// indices `kAssign` leaves the last update and `kAdd` sums them. Unsigned
// index values above INT64_MAX count as out of bounds.
//
// Example (XLA's classic scatter-add of rows): operand f32[3,3] of zeros,
// indices s32[2] {0, 2}, updates f32[2,3] {{1,2,3},{4,5,6}},
// update_window_dims={1}, inserted_window_dims={0},
// scatter_dims_to_operand_dims={0}, index_vector_dim=1, kAdd:
//   out = {{1,2,3},{0,0,0},{4,5,6}}.
#ifndef PLEXA_PLUGINS_CPU_RUNTIME_SCATTER_H_
#define PLEXA_PLUGINS_CPU_RUNTIME_SCATTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace plexa::cpu {

// Element types of the operand/updates and of the indices (integers only).
// kPred is one byte holding 0 or 1.
enum class ScatterType : int32_t {
  kPred,
  kS8,
  kS16,
  kS32,
  kS64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF32,
  kF64,
};

// Bytes per element of `type` (0 for a value outside the enum).
int64_t ScatterTypeByteWidth(ScatterType type);

// What the update computation does with (current, update):
//   kAssign: update (to_apply returns its second parameter)
//   kAdd, kMultiply: wrapping for integers; for pred, or and and
//   kMax, kMin: a NaN in either argument is the result (the first
//     argument's when both are NaN), else the larger/smaller, the first
//     argument when they compare equal (max(-0, +0) = -0); for pred, or
//     and and
//   kAnd, kOr: bitwise, integers and pred only
enum class ScatterCombiner : int32_t {
  kAssign,
  kAdd,
  kMultiply,
  kMax,
  kMin,
  kAnd,
  kOr,
};

// One array: its logical dimensions and the element stride of each in
// memory (any layout).
struct ScatterArray {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
};

struct ScatterDesc {
  ScatterType element_type = ScatterType::kF32;  // operand and updates
  ScatterCombiner combiner = ScatterCombiner::kAssign;
  // The update computation takes the update as its first argument:
  // combiner(update, current), e.g. maximum(parameter(1), parameter(0)).
  // It only changes which NaN max/min return and the sign of max/min of
  // -0 and +0.
  bool update_first = false;
  ScatterArray operand;  // the output buffer, which holds the operand
  ScatterType index_type = ScatterType::kS32;
  ScatterArray indices;
  ScatterArray updates;
  // XLA's ScatterDimensionNumbers. index_vector_dim may equal the rank of
  // the indices (each index vector is one element).
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> input_batching_dims;
  std::vector<int64_t> scatter_indices_batching_dims;
};

// Checks `desc` like XLA's shape inference for scatter (ranks, dimension
// numbers, sizes, types). InvalidArgument naming the problem otherwise.
// Thread-safe.
absl::Status ValidateScatter(const ScatterDesc& desc);

// Applies the scatter described by `desc` to `out` in place (see the top of
// this file). `out` holds the operand, laid out by desc.operand; `indices`
// and `updates` are read only and must not overlap `out`. A description
// ValidateScatter rejects is an InvalidArgument error and nothing is
// written. Single-threaded. Thread-safe for distinct output buffers.
absl::Status Scatter(const ScatterDesc& desc, void* out, const void* indices,
                     const void* updates);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_RUNTIME_SCATTER_H_
