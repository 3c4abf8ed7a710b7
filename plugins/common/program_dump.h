// A plugin's program as it runs it, written for people: the dump_program
// option of the toolkit's plugins (cpu, onednn, vulkan), which `plexa
// graph --backend` uses to draw the program with its steps coloured.
//
// WriteProgramDump writes two files into `dir` for the module it compiled:
//   <module>.<plugin>.optimized.hlo  the module after the plugin's own
//                                    passes (fusion, layouts), in HLO text
//   <module>.<plugin>.steps.tsv      its steps (DescribeSteps, thunk.h)
// Like XLA's --xla_dump_to: the directory must exist; files of an earlier
// compilation of a module of the same name are replaced.
#ifndef PLEXA_PLUGINS_COMMON_PROGRAM_DUMP_H_
#define PLEXA_PLUGINS_COMMON_PROGRAM_DUMP_H_

#include <string>

#include "abi/sdk/plugin.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "plugins/common/executor.h"

namespace plexa::backend {

absl::Status WriteProgramDump(const std::string& dir,
                              absl::string_view plugin_name,
                              const Module& module,
                              const ProgramExecutor& executor);

// The directory the client's options name as "dump_program" (a non-empty
// string, else INVALID_ARGUMENT), or else the environment variable
// PLEXA_<PLUGIN>_DUMP_PROGRAM (PLEXA_CPU_DUMP_PROGRAM, ...); "" when neither
// does.
absl::StatusOr<std::string> DumpProgramOption(const sdk::Options& options,
                                              absl::string_view plugin_name);

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_PROGRAM_DUMP_H_
