#include "plugins/vulkan/shader_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "abi/sdk/plugin.h"
#include "absl/strings/str_cat.h"

namespace plexa::vulkan {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

std::string SpirvName(const std::string& glsl) {
  return absl::StrCat("spirv-",
                      sdk::Fingerprint({"plexa-vulkan-spirv-1", glsl}), ".spv");
}

}  // namespace

absl::Status PrepareCacheDirectory(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return absl::InvalidArgumentError(
        absl::StrCat("vulkan option 'cache_dir': cannot make '", dir,
                     "': ", std::strerror(errno)));
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      ::access(dir.c_str(), W_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vulkan option 'cache_dir': '", dir, "' is not a writable directory"));
  }
  return absl::OkStatus();
}

std::optional<std::string> ReadCacheFile(const std::string& dir,
                                         const std::string& name) {
  std::ifstream in(absl::StrCat(dir, "/", name), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  if (!in.good() && !in.eof()) return std::nullopt;
  return s.str();
}

absl::Status WriteCacheFile(const std::string& dir, const std::string& name,
                            absl::string_view bytes) {
  const std::string path = absl::StrCat(dir, "/", name);
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  std::ofstream out(tmp, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat(
        "vulkan cache_dir: cannot write '", path, "': ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

std::optional<std::vector<uint32_t>> LookupSpirv(const std::string& dir,
                                                 const std::string& glsl) {
  std::optional<std::string> bytes = ReadCacheFile(dir, SpirvName(glsl));
  // A SPIR-V module: whole words, a five-word header led by the magic.
  if (!bytes || bytes->size() % 4 != 0 || bytes->size() < 20) {
    return std::nullopt;
  }
  std::vector<uint32_t> words(bytes->size() / 4);
  std::memcpy(words.data(), bytes->data(), bytes->size());
  if (words[0] != kSpirvMagic) return std::nullopt;
  return words;
}

absl::Status StoreSpirv(const std::string& dir, const std::string& glsl,
                        const std::vector<uint32_t>& spirv) {
  return WriteCacheFile(
      dir, SpirvName(glsl),
      absl::string_view(reinterpret_cast<const char*>(spirv.data()),
                        spirv.size() * sizeof(uint32_t)));
}

}  // namespace plexa::vulkan
