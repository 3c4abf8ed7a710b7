// What every CPU thunk sees: the toolkit's thunk, frame and slot types
// (plugins/common/thunk.h) and the CPU plugin's per-run context, which adds
// the client's thread pool to the toolkit's ExecContext.
#ifndef PLEXA_PLUGINS_CPU_CPU_THUNK_H_
#define PLEXA_PLUGINS_CPU_CPU_THUNK_H_

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

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_THUNK_H_
