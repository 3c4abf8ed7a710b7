// The GLSL code generator's parts (glsl_emitter.h is its interface): the
// Emitter, whose methods are split over glsl_emitter.cc, glsl_elementwise.cc
// and glsl_loops.cc, and the type helpers they share (glsl_types.cc).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_INTERNAL_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_INTERNAL_H_

#include <complex>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "plugins/vulkan/glsl_emitter.h"
#include "plugins/vulkan/vk_device.h"

namespace plexa::vulkan::glsl_internal {

// A multi-index: one GLSL int expression per dimension.
using Idx = std::vector<std::string>;

// The value of `t` in registers (bool, int, uint, int64_t, uint64_t,
// float for f16/bf16/f32, double) and the buffer block that stores it.
const char* Reg(PrimitiveType t);
const char* Block(PrimitiveType t);
bool IsFloat(PrimitiveType t);
// c64 (vec2) and c128 (dvec2): the instructions ComplexCode names run on
// the device (glsl_complex.cc), the rest on the host.
bool IsComplex(PrimitiveType t);
bool IsSigned(PrimitiveType t);
bool IsUnsigned(PrimitiveType t);
int Bits(PrimitiveType t);
// UNIMPLEMENTED: the plugin runs `h` on the host instead.
absl::Status NoCode(const Instruction& h, absl::string_view why);
// Keeps a narrow integer in its canonical register form (sign- or
// zero-extended) after arithmetic that may leave the type's range.
std::string Wrap(PrimitiveType t, const std::string& e);
// f16/bf16 results are rounded to their type after every operation.
std::string Round(PrimitiveType t, const std::string& e);
// The physical element offset of `idx` in `s` (its layout's order).
std::string Offset(const Shape& s, const Idx& idx);
// A stored element of type `t` (a buffer element expression) as its
// register value, and a register value stored as `t`'s storage type.
std::string Decode(PrimitiveType t, const std::string& raw);
std::string Store(PrimitiveType t, const std::string& v);
// The grid-stride loop over positions g < n that every kernel's main runs
// (opened, not closed), with the position split into i0, i1, ... by the
// layout of `s`: the multi-index of the element at physical position g.
std::string GridLoop(int64_t n, const Shape& s);
// i0, i1, ... (or another prefix).
Idx IndexNames(int64_t rank, absl::string_view prefix = "i");
// Constants of type `t`, exact (floats by their bits).
std::string IntConst(PrimitiveType t, int64_t v);
std::string FloatConst(PrimitiveType t, double v);
std::string Const(PrimitiveType t, double v);
std::string ComplexConst(PrimitiveType t, std::complex<double> v);
// Whether the device has code for `op` on complex values, and the
// complex helpers (cmul, cdiv, cabs, cexp, clog, csqrt, csign) for the
// component types used.
bool ComplexCode(HloOpcode op);
std::string ComplexPrelude(bool c64, bool c128, absl::string_view body);

class Emitter {
 public:
  Emitter(const DeviceFeatures& f) : f_(f) {}

  absl::StatusOr<GlslKernel> Emit(const Instruction& h, int max_buffers);
  // sort: one invocation per element finds the element's rank in its row
  // (glsl_sort.cc).
  absl::StatusOr<GlslKernel> EmitSort(const Instruction& h, int max_buffers);
  // rng-bit-generator: the evaluator's Philox and ThreeFry streams
  // (glsl_rng.cc).
  absl::StatusOr<GlslKernel> EmitRngBitGenerator(const Instruction& h,
                                                 int max_buffers);
  // triangular-solve (one invocation per system) and cholesky (one
  // workgroup per matrix) (glsl_linalg.cc).
  absl::StatusOr<GlslKernel> EmitTriangularSolve(const Instruction& h,
                                                 int max_buffers);
  absl::StatusOr<GlslKernel> EmitCholesky(const Instruction& h,
                                          int max_buffers);

  // Each is in the file that holds its kind of code: glsl_emitter.cc
  // (values, index maps, the kernel), glsl_elementwise.cc, glsl_loops.cc
  // (reductions, dot, convolution, gather).
  absl::Status UseType(const Instruction& h, PrimitiveType t);
  absl::StatusOr<std::string> Call(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Body(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Elementwise(const Instruction& h,
                                          const std::vector<std::string>& ops);
  absl::StatusOr<std::string> Convert(const Instruction& h, PrimitiveType from,
                                      PrimitiveType to, const std::string& x);
  absl::StatusOr<std::string> BitcastConvert(const Instruction& h,
                                             PrimitiveType from,
                                             PrimitiveType to,
                                             const std::string& x);
  absl::StatusOr<std::string> FloatUnary(const Instruction& h, PrimitiveType t,
                                         const std::string& x);
  // An elementwise instruction with a complex operand or result.
  absl::StatusOr<std::string> ComplexElementwise(
      const Instruction& h, const std::vector<std::string>& ops);
  absl::StatusOr<std::string> ScalarFunction(const Computation& c);
  // NoCode when one invocation of x's loop nest would run more iterations
  // than the device's loop limit (DeviceFeatures::max_loop_iterations).
  absl::Status CheckLoop(const Instruction& x, int64_t iterations) const;
  absl::StatusOr<std::string> Reduce(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> ReduceWindow(const Instruction& x,
                                           const Idx& idx);
  // dot, scaled-dot and ragged-dot: a loop over the contracting
  // dimensions (and ragged-dot's groups).
  absl::StatusOr<std::string> Dot(const Instruction& x, const Idx& idx);
  // Operand i (0 lhs, 1 rhs) of a dot-like instruction at `j`, in the
  // result type: for scaled-dot times its scale's element for the block.
  absl::StatusOr<std::string> DotOperand(const Instruction& x, int64_t i,
                                         const Idx& j);
  absl::StatusOr<std::string> Convolution(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Gather(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> Scatter(const Instruction& x, const Idx& idx);
  absl::StatusOr<std::string> SelectAndScatter(const Instruction& x,
                                               const Idx& idx);
  // Element k of the index vector of gather/scatter `indices` at the batch
  // index `batch` (the vector's dimension is index_vector_dim; when that is
  // the rank, the vector is implicit and has one element).
  absl::StatusOr<std::string> IndexVectorElement(const Instruction& indices,
                                                 const Idx& batch,
                                                 int64_t index_vector_dim,
                                                 int64_t k);
  absl::StatusOr<std::string> StochasticConvert(const Instruction& h,
                                                const std::string& x,
                                                const std::string& random);
  absl::StatusOr<std::string> ReducePrecision(const Instruction& h,
                                              PrimitiveType t,
                                              const std::string& x);
  absl::StatusOr<std::string> DynamicStart(const Instruction& x,
                                           int64_t operand, int64_t dim,
                                           int64_t limit);
  // An index value `v` of integer type `t` clamped to [0, limit], as int.
  absl::StatusOr<std::string> ClampIndex(const Instruction& x,
                                         const std::string& v, PrimitiveType t,
                                         int64_t limit);
  std::string Load(int buffer, const Shape& s, const Idx& idx);
  // The GLSL type of a value of shape `s`: the register type of an array's
  // elements, or a struct (defined on first use) with one field fK per
  // array of a tuple whose arrays have equal dimensions (a variadic
  // reduce's result). UNIMPLEMENTED for other shapes.
  absl::StatusOr<std::string> TypeOf(const Instruction& x, const Shape& s);
  // The whole shader: extensions and buffer types for the types used, the
  // push constants, the prelude, the value functions, then `main`.
  std::string Source(const std::string& main, int num_buffers);
  std::string NewName(absl::string_view prefix) {
    return absl::StrCat(prefix, counter_++);
  }

  const DeviceFeatures& f_;
  std::string functions_;
  std::string structs_;
  absl::flat_hash_map<std::string, std::string> struct_names_;
  absl::flat_hash_map<const Instruction*, std::string> names_;
  absl::flat_hash_map<const Instruction*, int> buffers_;
  absl::flat_hash_map<const Computation*, std::string> scalar_fns_;
  std::set<PrimitiveType> types_;
  // Buffer blocks (Block's names) also declared `coherent`, as C<name>:
  // for results that other invocations of the workgroup read back.
  std::set<std::string> coherent_blocks_;
  int counter_ = 0;
};

}  // namespace plexa::vulkan::glsl_internal

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_EMITTER_INTERNAL_H_
