// What every CPU thunk sees: the toolkit's thunk, frame and slot types
// (plugins/common/thunk.h) and the CPU plugin's per-run context, which adds
// the client's thread pool to the toolkit's ExecContext.
#ifndef PLEXA_PLUGINS_CPU_CPU_THUNK_H_
#define PLEXA_PLUGINS_CPU_CPU_THUNK_H_

#include "core/ir/instruction.h"
#include "core/shape/shape_util.h"
#include "plugins/common/thunk.h"
#include "plugins/cpu/runtime/thread_pool.h"

namespace plexa::cpu {

using backend::CompiledComputation;
using backend::FlattenLeafShapes;
using backend::Frame;
using backend::LeafCount;
using backend::Slot;
using backend::SlotKind;
using backend::Thunk;
using backend::WithLayout;

struct CpuExecContext : backend::ExecContext {
  ThreadPool* pool = nullptr;
};

// The thread pool of the run `f` belongs to (CpuProgram::Run sets it).
inline ThreadPool* PoolOf(const Frame& f) {
  return static_cast<const CpuExecContext*>(f.ctx)->pool;
}

// True when `h`'s first two operands and its result are dense f32 arrays or
// dense f64 arrays, one type for all three (what the GEMM and convolution
// kernels take).
inline bool HasDenseFloatOperands(const Instruction& h) {
  const Shape& ls = h.operand(0)->shape();
  const Shape& rs = h.operand(1)->shape();
  const Shape out = WithLayout(h.shape());
  const PrimitiveType t = out.element_type();
  return (t == PrimitiveType::F32 || t == PrimitiveType::F64) &&
         ls.element_type() == t && rs.element_type() == t &&
         ShapeUtil::IsDenseArray(ls) && ShapeUtil::IsDenseArray(rs) &&
         ShapeUtil::IsDenseArray(out);
}

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_THUNK_H_
