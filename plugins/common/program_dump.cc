#include "plugins/common/program_dump.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/text/hlo_printer.h"

namespace plexa::backend {
namespace {

absl::Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("dump_program: cannot write '", path,
                     "' (does the directory exist and is it writable?)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status WriteProgramDump(const std::string& dir,
                              absl::string_view plugin_name,
                              const Module& module,
                              const ProgramExecutor& executor) {
  const std::string stem =
      absl::StrCat(dir, "/", module.name(), ".", plugin_name);
  if (absl::Status s =
          WriteFile(absl::StrCat(stem, ".optimized.hlo"), PrintModule(module));
      !s.ok()) {
    return s;
  }
  return WriteFile(absl::StrCat(stem, ".steps.tsv"), executor.DescribeSteps());
}

absl::StatusOr<std::string> DumpProgramOption(const sdk::Options& options,
                                              absl::string_view plugin_name) {
  if (auto it = options.find("dump_program"); it != options.end()) {
    if (it->second.kind != PLX_Value_STRING ||
        it->second.string_value.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("option 'dump_program' of plugin '", plugin_name,
                       "' is a directory (a non-empty string)"));
    }
    return it->second.string_value;
  }
  const std::string var = absl::StrCat(
      "PLEXA_", absl::AsciiStrToUpper(plugin_name), "_DUMP_PROGRAM");
  const char* dir = std::getenv(var.c_str());
  return std::string(dir != nullptr ? dir : "");
}

}  // namespace plexa::backend
