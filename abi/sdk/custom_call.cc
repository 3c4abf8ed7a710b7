#include "abi/sdk/custom_call.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/memory_limit.h"
#include "core/shape/layout_util.h"

namespace plexa::sdk {

// ---- The client's context ----

CallFrameContext::CallFrameContext(int64_t scratch_limit_bytes)
    : scratch_limit_bytes_(scratch_limit_bytes) {}

CallFrameContext::CallFrameContext(PLX_Log_Callback* callback, void* user_data,
                                   int64_t scratch_limit_bytes)
    : callback_(callback),
      user_data_(user_data),
      scratch_limit_bytes_(scratch_limit_bytes) {}

const CallFrameContext& CallFrameContext::Default() {
  static const CallFrameContext* const kDefault =
      new CallFrameContext(MachineMemoryBytes());
  return *kDefault;
}

void CallFrameContext::Log(PLX_LogSeverity severity,
                           absl::string_view message) const {
  const std::string line(message);
  if (callback_ != nullptr) {
    callback_(user_data_, severity, line.c_str());
    return;
  }
  const char* what = severity == PLX_LogSeverity_INFO      ? "INFO"
                     : severity == PLX_LogSeverity_WARNING ? "WARNING"
                                                           : "ERROR";
  // One write per line, so that lines of concurrent calls do not mix.
  const std::string out = absl::StrCat("plexa ", what, ": ", line, "\n");
  std::fwrite(out.data(), 1, out.size(), stderr);
}

absl::StatusOr<std::shared_ptr<const CallFrameContext>> ReadCallFrameContext(
    const PLX_Extension* chain, const char* fn, int64_t scratch_limit_bytes) {
  const PLX_LoggerExtension* logger = nullptr;
  int hops = 0;
  for (const PLX_Extension* e = chain; e != nullptr; e = e->next) {
    if (++hops > 256) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": the extension chain has more than 256 links (a cycle?)"));
    }
    if (e->type != PLX_ExtensionType_LOGGER) continue;
    if (e->struct_size < PLX_LoggerExtension_STRUCT_SIZE ||
        e->struct_size > (size_t{1} << 16)) {
      return absl::InvalidArgumentError(absl::StrCat(
          fn, ": PLX_LoggerExtension struct_size is ", e->struct_size,
          ", expected at least ", PLX_LoggerExtension_STRUCT_SIZE));
    }
    if (logger != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": two PLX_LoggerExtension in one call"));
    }
    logger = reinterpret_cast<const PLX_LoggerExtension*>(e);
    if (logger->callback == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(fn, ": PLX_LoggerExtension.callback is NULL"));
    }
  }
  if (logger == nullptr) {
    return std::make_shared<const CallFrameContext>(scratch_limit_bytes);
  }
  return std::make_shared<const CallFrameContext>(
      logger->callback, logger->user_data, scratch_limit_bytes);
}

// ---- Typed calls ----

absl::StatusOr<std::shared_ptr<const TypedCustomCall>> TypedCustomCall::Create(
    const Instruction& h, CustomCallTarget target, std::string platform) {
  auto call = std::make_shared<TypedCustomCall>();
  call->target = std::move(target);
  call->instruction = h.name();
  call->target_name = h.attrs().custom_call_target;
  call->platform = std::move(platform);
  call->backend_config = h.attrs().backend_config;
  const bool typed_ffi =
      h.attrs().api_version == CustomCallApiVersion::kTypedFfi;
  absl::StatusOr<std::shared_ptr<const CustomCallAttributes>> attributes =
      CustomCallAttributes::Parse(typed_ffi
                                      ? absl::string_view(call->backend_config)
                                      : absl::string_view());
  if (!attributes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call ", h.name(), " (custom_call_target=\"", call->target_name,
        "\", api_version=API_VERSION_TYPED_FFI): its backend_config is not "
        "an attribute dictionary: ",
        attributes.status().message(),
        " (the backend_config: ", call->backend_config, ")"));
  }
  call->attributes = std::move(*attributes);
  return std::shared_ptr<const TypedCustomCall>(std::move(call));
}

namespace {

// The call in progress on this thread (a stack: a target may run another
// program's custom call): what PLX_CallFrameApi's functions find from the
// frame they are given. A frame that is not one of them (NULL, a copy, a
// frame after its call) is reported on stderr and gets nothing.
struct ActiveCall {
  PLX_CallFrame frame{};
  const TypedCustomCall* call = nullptr;
  const CallFrameContext* context = nullptr;
  const DeviceScratch* device_scratch = nullptr;  // when stream is set
  std::vector<void*> scratch;  // host memory, freed when the call returns
  int64_t scratch_bytes = 0;
  ActiveCall* outer = nullptr;
  ~ActiveCall() {
    for (void* p : scratch) std::free(p);
  }
};

thread_local ActiveCall* t_active_call = nullptr;

ActiveCall* FindActiveCall(const PLX_CallFrame* frame, const char* function) {
  for (ActiveCall* a = t_active_call; a != nullptr; a = a->outer) {
    if (&a->frame == frame) return a;
  }
  CallFrameContext::Default().Log(
      PLX_LogSeverity_ERROR,
      absl::StrCat("PLX_CallFrameApi.", function, ": frame ",
                   absl::Hex(reinterpret_cast<uintptr_t>(frame)),
                   " is not the frame of a custom call running on this thread "
                   "(call the API during the call, with the frame the target "
                   "was given)"));
  return nullptr;
}

void LogFromTarget(PLX_CallFrame* frame, PLX_LogSeverity severity,
                   const char* message) {
  ActiveCall* a = FindActiveCall(frame, "log");
  if (a == nullptr) return;
  std::string prefix = absl::StrCat("custom-call ", a->call->instruction, ": ");
  const int32_t raw = static_cast<int32_t>(severity);
  if (raw < PLX_LogSeverity_INFO || raw > PLX_LogSeverity_ERROR) {
    absl::StrAppend(&prefix, "(log severity ", raw,
                    " is not a PLX_LogSeverity; logged as ERROR) ");
    severity = PLX_LogSeverity_ERROR;
  }
  a->context->Log(
      severity,
      absl::StrCat(prefix, message != nullptr ? message : "(NULL message)"));
}

void* AllocateScratch(PLX_CallFrame* frame, size_t bytes, size_t alignment) {
  ActiveCall* a = FindActiveCall(frame, "allocate_scratch");
  if (a == nullptr) return nullptr;
  const auto refuse = [a](const std::string& why) -> void* {
    a->context->Log(PLX_LogSeverity_ERROR,
                    absl::StrCat("custom-call ", a->call->instruction,
                                 ": allocate_scratch: ", why));
    return nullptr;
  };
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment > 4096) {
    return refuse(absl::StrCat("alignment ", alignment,
                               " is not a power of two of at most 4096"));
  }
  const uint64_t left = static_cast<uint64_t>(
      a->context->scratch_limit_bytes() -
      std::min(a->scratch_bytes, a->context->scratch_limit_bytes()));
  if (bytes > left) {
    return refuse(absl::StrCat(bytes, " bytes is more than the ", left,
                               " left of this call's scratch limit (",
                               a->context->scratch_limit_bytes(),
                               " bytes: the client's memory limit)"));
  }
  if (a->frame.stream != nullptr) {
    // Scratch must be where the buffers live: device memory, which only the
    // plugin can give (host memory would be a wrong answer, not a NULL).
    if (a->device_scratch == nullptr || !*a->device_scratch) {
      return refuse(absl::StrCat(a->call->platform,
                                 " passes device buffers and gives no device "
                                 "scratch memory"));
    }
    std::string why;
    void* p = (*a->device_scratch)(bytes, alignment, &why);
    if (p == nullptr) {
      return refuse(absl::StrCat(
          bytes, " bytes of device memory: ", why.empty() ? "refused" : why));
    }
    a->scratch_bytes += static_cast<int64_t>(bytes);
    return p;
  }
  void* p = nullptr;
  const size_t align = std::max(alignment, sizeof(void*));
  // A zero-byte request still gets a distinct valid pointer.
  if (posix_memalign(&p, align, std::max<size_t>(bytes, 1)) != 0) {
    return refuse(absl::StrCat("the host has no ", bytes, " bytes aligned to ",
                               alignment, " left"));
  }
  a->scratch.push_back(p);
  a->scratch_bytes += static_cast<int64_t>(bytes);
  return p;
}

constexpr PLX_CallFrameApi kCallFrameApi = {
    PLX_CallFrameApi_STRUCT_SIZE,
    &LogFromTarget,
    &AllocateScratch,
};

// The layout text of `shape` when its layout says more than a dimension
// order (tiles, padding, element size, memory space), else "".
std::string ExtraLayoutText(const Shape& shape) {
  if (!shape.has_layout()) return "";
  const Layout plain(shape.layout().minor_to_major());
  return shape.layout() == plain ? "" : shape.layout().ToString();
}

// PLX_CallFrameBuffer and PLX_ArrayShape arrays over `arrays`, with the
// storage they point into.
struct FrameArrays {
  std::vector<PLX_CallFrameBuffer> buffers;
  std::vector<PLX_ArrayShape> shapes;
  std::vector<std::vector<int64_t>> minor_to_major;
  std::vector<std::string> layouts;

  explicit FrameArrays(absl::Span<const CallFrameArray> arrays) {
    minor_to_major.reserve(arrays.size());
    layouts.reserve(arrays.size());
    for (const CallFrameArray& a : arrays) {
      const Shape& shape = *a.shape;
      PLX_CallFrameBuffer b{};
      b.struct_size = PLX_CallFrameBuffer_STRUCT_SIZE;
      b.data = a.data;
      b.element_type = static_cast<PLX_Type>(shape.element_type());
      b.dims = shape.dimensions().data();
      b.num_dims = shape.dimensions().size();
      buffers.push_back(b);
      const Layout layout = LayoutUtil::EffectiveLayout(shape);
      minor_to_major.emplace_back(layout.minor_to_major().begin(),
                                  layout.minor_to_major().end());
      layouts.push_back(ExtraLayoutText(shape));
      PLX_ArrayShape s{};
      s.struct_size = PLX_ArrayShape_STRUCT_SIZE;
      s.element_type = b.element_type;
      s.dims = b.dims;
      s.num_dims = b.num_dims;
      s.minor_to_major =
          b.num_dims == 0 ? nullptr : minor_to_major.back().data();
      s.layout = layouts.back().empty() ? nullptr : layouts.back().c_str();
      shapes.push_back(s);
    }
  }
};

}  // namespace

absl::Status CallTypedCustomCall(const TypedCustomCall& call,
                                 absl::Span<const CallFrameArray> args,
                                 absl::Span<const CallFrameArray> results,
                                 const CallFrameContext* context, void* stream,
                                 const DeviceScratch* device_scratch) {
  // A frame hands device memory over in place, a byte an element: the
  // packed form the ABI defines for the sub-byte types would be misread.
  for (const auto* list : {&args, &results}) {
    for (const CallFrameArray& a : *list) {
      if (primitive_util::IsSubByteType(a.shape->element_type())) {
        return absl::UnimplementedError(
            absl::StrCat("custom-call '", call.instruction, "' (target '",
                         call.target_name, "'): ", a.shape->ToString(),
                         " is a packed sub-byte type; call frames carry none"));
      }
    }
  }
  const FrameArrays in(args), out(results);
  ActiveCall active;
  active.call = &call;
  active.context = context != nullptr ? context : &CallFrameContext::Default();
  active.device_scratch = device_scratch;
  PLX_CallFrame& frame = active.frame;
  frame.struct_size = PLX_CallFrame_STRUCT_SIZE;
  frame.args = in.buffers.data();
  frame.num_args = in.buffers.size();
  frame.results = out.buffers.data();
  frame.num_results = out.buffers.size();
  frame.backend_config = call.backend_config.c_str();
  frame.backend_config_size = call.backend_config.size();
  frame.platform = call.platform.c_str();
  frame.stream = stream;
  frame.arg_shapes = in.shapes.data();
  frame.result_shapes = out.shapes.data();
  absl::Span<const PLX_Attribute> attributes = call.attributes->attributes();
  frame.attributes = attributes.empty() ? nullptr : attributes.data();
  frame.num_attributes = attributes.size();
  frame.api = &kCallFrameApi;
  active.outer = t_active_call;
  t_active_call = &active;
  const int32_t rc =
      reinterpret_cast<PLX_CustomCall_Typed*>(call.target.function)(&frame);
  t_active_call = active.outer;
  if (rc == 0) return absl::OkStatus();
  int32_t code = frame.error_code;
  if (code <= PLX_Error_Code_OK || code > PLX_Error_Code_UNAUTHENTICATED) {
    code = PLX_Error_Code_INTERNAL;
  }
  return absl::Status(
      static_cast<absl::StatusCode>(code),
      absl::StrCat("custom-call ", call.instruction, " (target '",
                   call.target_name, "' on ", call.platform, ") returned ", rc,
                   ": ",
                   frame.error_message != nullptr ? frame.error_message
                                                  : "(no message)"));
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
