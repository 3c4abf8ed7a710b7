#include "plugins/common/compile_cache.h"

#include <sys/stat.h>

#include "abi/sdk/custom_call.h"
#include "absl/strings/str_cat.h"

namespace plexa::backend {
namespace {

// Length-prefixed, so no field's contents can fake a boundary.
void AppendField(std::string* key, absl::string_view field) {
  absl::StrAppend(key, field.size(), ":", field, ";");
}

// The file behind `path` as it is now: a library rebuilt in place (or a
// path that now names another file) gives another key.
std::string FileIdentity(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "missing";
  return absl::StrCat(st.st_dev, ".", st.st_ino, ".", st.st_size, ".",
                      st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec);
}

}  // namespace

std::string CompileCacheKey(absl::string_view module_text,
                            const sdk::CompileOptions& options,
                            int64_t num_replicas) {
  std::string key;
  AppendField(&key, absl::StrCat("replicas=", num_replicas));
  AppendField(&key, absl::StrCat("partitions=", options.num_partitions));
  AppendField(&key, absl::StrCat("opt=", options.optimization_level));
  for (const auto& [name, value] : options.options) {
    AppendField(&key, name);
    AppendField(&key,
                absl::StrCat(static_cast<int>(value.kind), "|",
                             value.string_value, "|", value.int64_value, "|",
                             value.bool_value, "|", value.float_value));
  }
  AppendField(&key,
              absl::StrCat("libraries=", options.custom_call_libraries.size()));
  for (const std::string& path : options.custom_call_libraries) {
    AppendField(&key, path);
    AppendField(&key, FileIdentity(path));
  }
  AppendField(&key,
              absl::StrCat("registry=",
                           sdk::CustomCallRegistry::Global().generation()));
  AppendField(&key, module_text);
  return key;
}

}  // namespace plexa::backend
