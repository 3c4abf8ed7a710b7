// Internal to plexa_cpu_codegen (includes LLVM headers; never include it
// outside plugins/cpu/codegen/*.cc).
#ifndef PLEXA_PLUGINS_CPU_CODEGEN_LLVM_UTIL_H_
#define PLEXA_PLUGINS_CPU_CODEGEN_LLVM_UTIL_H_

#include <string>

#include "llvm/Support/Error.h"

namespace plexa::cpu {

// Registers the native target with LLVM (once per process).
void InitializeLlvmOnce();
std::string LlvmErrorToString(llvm::Error error);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CODEGEN_LLVM_UTIL_H_
