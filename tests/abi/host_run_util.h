// A helper for ABI tests that drive a plugin through the host library
// (abi/host): compile a program, upload the arguments, run replica 0 and
// read the outputs back. Link plexa_host.
#ifndef PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_
#define PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "absl/status/statusor.h"
#include "core/literal/literal.h"

namespace plexa::abi_test {

// Compiles `program` (HLO text) on `client` with `options`, runs it once on
// `args` and returns its output literals (the result's array leaves).
inline absl::StatusOr<std::vector<Literal>> CompileAndRun(
    host::Client& client, const std::string& program,
    const std::vector<Literal>& args,
    const host::CompileOptions& options = {}) {
  auto exe = client.Compile(program, "hlo-text", options);
  if (!exe.ok()) return exe.status();
  std::vector<std::unique_ptr<host::Buffer>> buffers;
  std::vector<host::Buffer*> raw;
  for (const Literal& a : args) {
    auto b = client.BufferFromLiteral(a);
    if (!b.ok()) return b.status();
    raw.push_back(b->get());
    buffers.push_back(std::move(*b));
  }
  auto out = (*exe)->Execute({raw});
  if (!out.ok()) return out.status();
  std::vector<Literal> results;
  for (auto& b : (*out)[0]) {
    auto lit = b->ToLiteral();
    if (!lit.ok()) return lit.status();
    results.push_back(std::move(*lit));
  }
  return results;
}

}  // namespace plexa::abi_test

#endif  // PLEXA_TESTS_ABI_HOST_RUN_UTIL_H_
