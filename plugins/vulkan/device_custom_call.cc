#include "plugins/vulkan/device_custom_call.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"
#include "plugins/vulkan/spirv_compiler.h"

namespace plexa::vulkan {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kExecutionModeLocalSize = 17;

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

absl::StatusOr<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

absl::Status CheckKernelDirectory(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "vulkan option 'kernel_dir': '", dir, "' is not a directory"));
  }
  return absl::OkStatus();
}

std::optional<uint32_t> SpirvLocalSizeX(absl::Span<const uint32_t> spirv) {
  if (spirv.size() < 5 || spirv[0] != kSpirvMagic) return std::nullopt;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16;
    const uint32_t opcode = spirv[i] & 0xffff;
    if (words == 0 || i + words > spirv.size()) return std::nullopt;
    // OpExecutionMode %entry LocalSize x y z
    if (opcode == kOpExecutionMode && words >= 6 &&
        spirv[i + 2] == kExecutionModeLocalSize) {
      return spirv[i + 3];
    }
    i += words;
  }
  return std::nullopt;
}

absl::StatusOr<std::optional<DeviceKernelFile>> FindDeviceKernel(
    const std::string& dir, const std::string& target,
    const std::string& instruction) {
  if (target.empty() || target[0] == '.' ||
      target.find('/') != std::string::npos) {
    return std::nullopt;
  }
  DeviceKernelFile k;
  const std::string spv = absl::StrCat(dir, "/", target, ".spv");
  const std::string comp = absl::StrCat(dir, "/", target, ".comp");
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat(instruction, ": custom-call target '", target,
                     "': ", k.path, ": ", why));
  };
  if (IsFile(spv)) {
    k.path = spv;
    PLEXA_ASSIGN_OR_RETURN(std::string bytes, ReadAll(spv));
    if (bytes.size() % 4 != 0 || bytes.size() < 20) {
      return error("not a SPIR-V module (its size is not 4-byte words)");
    }
    k.spirv.resize(bytes.size() / 4);
    std::memcpy(k.spirv.data(), bytes.data(), bytes.size());
    if (k.spirv[0] != kSpirvMagic) {
      return error("not a SPIR-V module (no magic number 0x07230203)");
    }
  } else if (IsFile(comp)) {
    k.path = comp;
    PLEXA_ASSIGN_OR_RETURN(std::string source, ReadAll(comp));
    absl::StatusOr<std::vector<uint32_t>> spirv =
        CompileGlslToSpirv(source, absl::StrCat(instruction, " (", comp, ")"));
    if (!spirv.ok()) return error(spirv.status().message());
    k.spirv = *std::move(spirv);
  } else {
    return std::nullopt;
  }
  std::optional<uint32_t> local = SpirvLocalSizeX(k.spirv);
  if (!local.has_value() || *local == 0) {
    return error(
        "the module declares no workgroup size (layout(local_size_x = N) "
        "in;)");
  }
  k.local_size_x = *local;
  return k;
}

}  // namespace plexa::vulkan
