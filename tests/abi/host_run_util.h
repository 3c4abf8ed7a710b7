// Helpers for tests that drive a plugin through the host library
// (abi/host): compile a program, upload the arguments, run replica 0 and
// read the outputs back; a device's attributes by name. Link plexa_host.
#ifndef PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_
#define PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/status/statusor.h"
#include "core/literal/literal.h"

namespace plexa::abi_test {

// Uploads `args`, runs `exe` once (replica 0) and returns its output
// literals (the result's array leaves).
inline absl::StatusOr<std::vector<Literal>> RunOnce(
    host::Client& client, host::Executable& exe,
    const std::vector<Literal>& args) {
  std::vector<std::unique_ptr<host::Buffer>> buffers;
  std::vector<host::Buffer*> raw;
  for (const Literal& a : args) {
    auto b = client.BufferFromLiteral(a);
    if (!b.ok()) return b.status();
    raw.push_back(b->get());
    buffers.push_back(std::move(*b));
  }
  auto out = exe.Execute({raw});
  if (!out.ok()) return out.status();
  std::vector<Literal> results;
  for (auto& b : (*out)[0]) {
    auto lit = b->ToLiteral();
    if (!lit.ok()) return lit.status();
    results.push_back(std::move(*lit));
  }
  return results;
}

// Compiles `program` (HLO text) on `client` with `options`, runs it once on
// `args` and returns its output literals (the result's array leaves).
inline absl::StatusOr<std::vector<Literal>> CompileAndRun(
    host::Client& client, const std::string& program,
    const std::vector<Literal>& args,
    const host::CompileOptions& options = {}) {
  auto exe = client.Compile(program, "hlo-text", options);
  if (!exe.ok()) return exe.status();
  return RunOnce(client, **exe, args);
}

// The first device's attributes (PLX_Device_Describe), by name; an empty
// map when the call fails.
inline std::map<std::string, PLX_NamedValue> DeviceAttributes(
    const host::Plugin& plugin, host::Client& client) {
  PLX_Device_Describe_Args args{};
  args.struct_size = PLX_Device_Describe_Args_STRUCT_SIZE;
  args.device = client.devices()[0].handle;
  std::map<std::string, PLX_NamedValue> out;
  if (!host::ConsumeError(plugin.api(),
                          plugin.api()->PLX_Device_Describe(&args))
           .ok()) {
    return out;
  }
  for (size_t i = 0; i < args.num_attributes; ++i) {
    out[args.attributes[i].name] = args.attributes[i];
  }
  return out;
}

}  // namespace plexa::abi_test

#endif  // PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_
