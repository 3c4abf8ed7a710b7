// Test helpers for core/xla_proto: the encoded programs of tests/xla_proto
// (protoc --encode at build time) and the evaluator.
#ifndef PLEXA_CORE_XLA_PROTO_XLA_PROTO_TEST_UTIL_H_
#define PLEXA_CORE_XLA_PROTO_XLA_PROTO_TEST_UTIL_H_

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "core/eval/evaluator.h"
#include "core/text/hlo_printer.h"
#include "core/xla_proto/xla_proto_import.h"
#include "gtest/gtest.h"
#include "xla_proto/xla_hlo.pb.h"

namespace plexa::xla_proto_test {

// The bytes of tests/xla_proto/NAME.textproto as protoc encoded them.
inline std::string ReadPb(const std::string& name) {
  std::ifstream in(std::string(PLEXA_XLA_PROTO_TEST_DATA) + "/" + name + ".pb",
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name << ".pb is missing or empty";
  return ss.str();
}

inline std::unique_ptr<Module> Import(const std::string& name) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseXlaHloProto(ReadPb(name));
  EXPECT_TRUE(m.ok()) << name << ": " << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

// The module's text without operand shapes (as the expectations are
// written).
inline std::string Text(const Module& m) {
  PrintOptions o;
  o.print_operand_shapes = false;
  return PrintModule(m, o);
}

// The error of importing a module proto built by the test.
inline std::string ErrorOf(const xla_pb::HloModuleProto& proto) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseXlaHloProto(proto.SerializeAsString());
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : std::string(m.status().message());
}

}  // namespace plexa::xla_proto_test

#endif  // PLEXA_CORE_XLA_PROTO_XLA_PROTO_TEST_UTIL_H_
