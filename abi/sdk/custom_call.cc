#include "abi/sdk/custom_call.h"

#include <dlfcn.h>

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace plexa::sdk {

PLX_CallFrameBuffer MakeCallFrameBuffer(void* data, const Shape& shape) {
  PLX_CallFrameBuffer b{};
  b.struct_size = PLX_CallFrameBuffer_STRUCT_SIZE;
  b.data = data;
  b.element_type = static_cast<PLX_Type>(shape.element_type());
  b.dims = shape.dimensions().data();
  b.num_dims = shape.dimensions().size();
  return b;
}

absl::Status CallTypedCustomCall(void* function, absl::string_view call,
                                 absl::Span<const PLX_CallFrameBuffer> args,
                                 absl::Span<const PLX_CallFrameBuffer> results,
                                 absl::string_view backend_config) {
  PLX_CallFrame frame{};
  frame.struct_size = PLX_CallFrame_STRUCT_SIZE;
  frame.args = args.data();
  frame.num_args = args.size();
  frame.results = results.data();
  frame.num_results = results.size();
  frame.backend_config = backend_config.data();
  frame.backend_config_size = backend_config.size();
  const int32_t rc = reinterpret_cast<PLX_CustomCall_Typed*>(function)(&frame);
  if (rc == 0) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(
      "custom-call ", call, ": the target returned ", rc, ": ",
      frame.error_message != nullptr ? frame.error_message : "(no message)"));
}

struct CustomCallRegistry::Impl {
  mutable std::mutex mu;  // std::mutex for ThreadSanitizer: see event.h
  absl::flat_hash_map<std::string, CustomCallTarget> targets;  // guarded by mu
  uint64_t generation = 0;                                     // guarded by mu
};

CustomCallRegistry::CustomCallRegistry() : impl_(std::make_shared<Impl>()) {}

CustomCallRegistry& CustomCallRegistry::Global() {
  static CustomCallRegistry* const kRegistry = new CustomCallRegistry();
  return *kRegistry;
}

void CustomCallRegistry::Register(const std::string& name, void* function,
                                  int32_t api_version) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->targets[name] =
      CustomCallTarget{function, api_version, "registry", nullptr};
  ++impl_->generation;
}

uint64_t CustomCallRegistry::generation() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->generation;
}

bool CustomCallRegistry::Lookup(absl::string_view name,
                                CustomCallTarget* out) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->targets.find(name);
  if (it == impl_->targets.end()) return false;
  *out = it->second;
  return true;
}

absl::StatusOr<std::shared_ptr<const CustomCallLibrary>>
CustomCallLibrary::Open(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::NotFoundError(
        absl::StrCat("cannot load custom-call library '", path,
                     "': ", why ? why : "unknown dlopen error"));
  }
  return std::shared_ptr<const CustomCallLibrary>(
      new CustomCallLibrary(path, handle));
}

CustomCallLibrary::~CustomCallLibrary() { dlclose(handle_); }

void* CustomCallLibrary::Find(const std::string& symbol) const {
  return dlsym(handle_, symbol.c_str());
}

absl::StatusOr<std::shared_ptr<CustomCallResolver>> CustomCallResolver::Create(
    const std::vector<std::string>& libraries) {
  std::shared_ptr<CustomCallResolver> r(new CustomCallResolver());
  for (const std::string& path : libraries) {
    absl::StatusOr<std::shared_ptr<const CustomCallLibrary>> library =
        CustomCallLibrary::Open(path);
    if (!library.ok()) return library.status();
    r->libraries_.push_back(std::move(*library));
  }
  return r;
}

absl::StatusOr<CustomCallTarget> CustomCallResolver::Resolve(
    absl::string_view name) const {
  CustomCallTarget target;
  if (CustomCallRegistry::Global().Lookup(name, &target)) return target;
  const std::string symbol(name);
  std::vector<std::string> searched = {"the registry"};
  for (const std::shared_ptr<const CustomCallLibrary>& library : libraries_) {
    if (void* fn = library->Find(symbol)) {
      return CustomCallTarget{fn, 0, library->path(), library};
    }
    searched.push_back(library->path());
  }
  if (void* fn = dlsym(RTLD_DEFAULT, symbol.c_str())) {
    return CustomCallTarget{fn, 0, "process", nullptr};
  }
  searched.push_back("the process (dlsym RTLD_DEFAULT)");
  return absl::NotFoundError(absl::StrCat("custom-call target '", name,
                                          "' not found; searched ",
                                          absl::StrJoin(searched, ", ")));
}

}  // namespace plexa::sdk
