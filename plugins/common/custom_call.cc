#include "plugins/common/custom_call.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace plexa::backend {

absl::StatusOr<sdk::CustomCallTarget> ResolveCustomCallTarget(
    const Instruction& h, const sdk::CustomCallResolver& resolver,
    absl::string_view plugin) {
  const std::string& target = h.attrs().custom_call_target;
  absl::StatusOr<sdk::CustomCallTarget> fn = resolver.Resolve(target);
  if (!fn.ok()) {
    return absl::Status(fn.status().code(),
                        absl::StrCat(h.name(), ": ", fn.status().message()));
  }
  if (fn->found_in != "registry") {
    // Found by its symbol's name (in a custom_call_libraries library or the
    // process): no registration says which signature it has, so the
    // program's api_version does — as XLA reads a legacy target's.
    fn->api_version =
        h.attrs().api_version == CustomCallApiVersion::kTypedFfi ? 1 : 0;
  }
  if (fn->api_version != 0 && fn->api_version != 1) {
    return absl::UnimplementedError(absl::StrCat(
        h.name(), ": custom-call target '", target, "' has api_version ",
        fn->api_version, "; ", plugin, " calls 0 and 1"));
  }
  if (h.attrs().api_version == CustomCallApiVersion::kTypedFfi &&
      fn->api_version != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        h.name(), ": the program calls '", target,
        "' with api_version=API_VERSION_TYPED_FFI but the target is "
        "registered with api_version 0 (void(void*, const void**))"));
  }
  return fn;
}

}  // namespace plexa::backend
