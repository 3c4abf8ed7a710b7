#include "plugins/cpu/codegen/jit.h"

#include <cstring>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "plugins/cpu/codegen/llvm_util.h"

namespace plexa::cpu {

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string LlvmErrorToString(llvm::Error error) {
  return llvm::toString(std::move(error));
}

const HostTarget& GetHostTarget() {
  static const HostTarget* const host = [] {
    InitializeLlvmOnce();
    auto* t = new HostTarget;
    t->triple = llvm::sys::getProcessTriple();
    t->cpu = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    std::string list;
    // Sorted so that the feature string (part of the compile-cache key) is
    // the same in every process.
    std::vector<std::string> names;
    for (const auto& f : features) names.push_back(f.getKey().str());
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (!list.empty()) list += ",";
      list += (features.lookup(name) ? "+" : "-") + name;
    }
    t->features = std::move(list);
    t->has_avx512 = features.lookup("avx512f");
    return t;
  }();
  return *host;
}

struct JitLibrary::Impl {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

JitLibrary::JitLibrary(std::unique_ptr<Impl> impl,
                       std::vector<std::string> objects)
    : impl_(std::move(impl)), objects_(std::move(objects)) {}

JitLibrary::~JitLibrary() = default;

absl::StatusOr<std::unique_ptr<JitLibrary>> JitLibrary::Load(
    std::vector<std::string> objects) {
  InitializeLlvmOnce();
  auto jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) {
    return absl::InternalError(
        absl::StrCat("cannot describe the host for the JIT: ",
                     LlvmErrorToString(jtmb.takeError())));
  }
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(*jtmb))
                 .create();
  if (!jit) {
    return absl::InternalError(absl::StrCat(
        "cannot create the LLVM JIT: ", LlvmErrorToString(jit.takeError())));
  }
  // libm and libc functions the kernels call (expf, tanh, memcpy, ...).
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    return absl::InternalError(
        absl::StrCat("cannot search the process for symbols: ",
                     LlvmErrorToString(process.takeError())));
  }
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  for (size_t i = 0; i < objects.size(); ++i) {
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
        llvm::StringRef(objects[i].data(), objects[i].size()),
        absl::StrCat("plexa-cpu-kernels-", i));
    if (llvm::Error e = (*jit)->addObjectFile(std::move(buffer))) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot load the kernels' object code: ",
                       LlvmErrorToString(std::move(e))));
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->jit = std::move(*jit);
  return std::unique_ptr<JitLibrary>(
      new JitLibrary(std::move(impl), std::move(objects)));
}

absl::StatusOr<void*> JitLibrary::Lookup(absl::string_view symbol) const {
  auto addr = impl_->jit->lookup(llvm::StringRef(symbol.data(), symbol.size()));
  if (!addr) {
    return absl::NotFoundError(absl::StrCat(
        "kernel symbol '", symbol, "' is not in the compiled code: ",
        LlvmErrorToString(addr.takeError())));
  }
  return addr->toPtr<void*>();
}

std::string PackObjects(const std::vector<std::string>& objects) {
  std::string out;
  auto put = [&out](uint64_t n) {
    out.append(reinterpret_cast<const char*>(&n), sizeof(n));
  };
  put(objects.size());
  for (const std::string& o : objects) {
    put(o.size());
    out += o;
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> UnpackObjects(
    absl::string_view bytes) {
  auto get = [&bytes](uint64_t* n) {
    if (bytes.size() < sizeof(*n)) return false;
    std::memcpy(n, bytes.data(), sizeof(*n));
    bytes.remove_prefix(sizeof(*n));
    return true;
  };
  uint64_t count = 0;
  if (!get(&count) || count > bytes.size()) {
    return absl::InvalidArgumentError("corrupt object code list");
  }
  std::vector<std::string> out;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t n = 0;
    if (!get(&n) || n > bytes.size()) {
      return absl::InvalidArgumentError("corrupt object code list");
    }
    out.emplace_back(bytes.substr(0, n));
    bytes.remove_prefix(n);
  }
  if (!bytes.empty()) {
    return absl::InvalidArgumentError("corrupt object code list");
  }
  return out;
}

}  // namespace plexa::cpu
