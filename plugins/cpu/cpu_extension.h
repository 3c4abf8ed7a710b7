// What a backend built on the CPU plugin adds to it (the oneDNN plugin,
// plugins/onednn): a rewrite that runs in the CPU pipeline before fusion,
// and thunks for the instructions that rewrite made. Everything else — the
// pipeline, the JIT-compiled kernels, the runtime thunks, the toolkit's
// control flow, collectives and feeds, the client, buffers, executables,
// serialization and the compile cache — stays the CPU plugin's, so such a
// backend is its kernels and its pattern matcher, and no program runs
// slower on it than on the CPU plugin.
//
// An extension is shared by a client and every program compiled with it
// (shared_ptr); its methods may be called from several threads at once.
#ifndef PLEXA_PLUGINS_CPU_CPU_EXTENSION_H_
#define PLEXA_PLUGINS_CPU_CPU_EXTENSION_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "plugins/common/thunk.h"

namespace plexa::cpu {

// A thunk the extension made for one instruction. The CPU's thunk emitter
// sets its inputs (the operands' array leaves, in order) and outputs (the
// result's leaves) and, when scratch_bytes > 0, appends one more output: a
// temporary of that many bytes (64-byte aligned) from the program's arena,
// live only while the thunk runs.
struct ExtensionThunk {
  std::unique_ptr<backend::Thunk> thunk;
  int64_t scratch_bytes = 0;
};

class CpuExtension {
 public:
  virtual ~CpuExtension() = default;

  // The backend's name, for reports and error messages ("onednn").
  virtual std::string name() const = 0;

  // Runs on the optimized module with layouts assigned, after the default
  // pipeline and before the CPU's reduction splitting and fusion. Returns
  // whether it changed the module; the module must still verify.
  virtual absl::StatusOr<bool> RewriteBeforeFusion(Module* module) = 0;

  // Batch norms the default pipeline leaves unexpanded for the rewrite
  // (the extension must then take each of them).
  virtual bool KeepBatchNorm(const Instruction& bn) const { return false; }

  // The thunk for `h`, or an ExtensionThunk with a null thunk when the CPU
  // plugin should emit `h` itself. An error fails the compile.
  virtual absl::StatusOr<ExtensionThunk> MakeThunk(const Instruction& h) = 0;

  // One line for the compile report (counts by kind), or empty.
  virtual std::string Report(const Module& optimized) const { return ""; }
};

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CPU_EXTENSION_H_
