// Loading compiled kernels into the process: ORC LLJIT over object code.
//
// Kernels are compiled to an ELF object first (KernelModule::Compile) and
// that object is what the JIT links, so the same bytes serve execution and
// executable serialization: a deserialized executable links the stored
// object without running LLVM's optimizer or code generator again.
#ifndef PLEXA_PLUGINS_CPU_CODEGEN_JIT_H_
#define PLEXA_PLUGINS_CPU_CODEGEN_JIT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace plexa::cpu {

// The host this process runs on, as LLVM names it ("znver4", "+avx512f,...").
struct HostTarget {
  std::string triple;
  std::string cpu;
  std::string features;
  // Whether the host has AVX-512F (for docs and benchmarks).
  bool has_avx512 = false;
};
const HostTarget& GetHostTarget();

// A linked object: symbols resolve to callable addresses. Unresolved
// references of the object (libm functions such as `expf`) resolve against
// the symbols of the process. Thread-safe after creation.
class JitLibrary {
 public:
  // Links `objects` (ELF relocatable objects for this host) together.
  static absl::StatusOr<std::unique_ptr<JitLibrary>> Load(
      std::vector<std::string> objects);
  ~JitLibrary();
  JitLibrary(const JitLibrary&) = delete;
  JitLibrary& operator=(const JitLibrary&) = delete;

  // The address of `symbol`; NotFound naming it when absent.
  absl::StatusOr<void*> Lookup(absl::string_view symbol) const;
  const std::vector<std::string>& objects() const { return objects_; }

 private:
  struct Impl;
  JitLibrary(std::unique_ptr<Impl> impl, std::vector<std::string> objects);
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> objects_;
};

// Several objects as one byte string and back (executable serialization).
std::string PackObjects(const std::vector<std::string>& objects);
// InvalidArgument when `bytes` is not what PackObjects made.
absl::StatusOr<std::vector<std::string>> UnpackObjects(absl::string_view bytes);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_CODEGEN_JIT_H_
