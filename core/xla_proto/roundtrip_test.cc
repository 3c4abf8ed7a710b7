// Export -> import round trips: every HLO program of the tree (the text
// parser's test programs and the .hlo files under tests/ and examples/)
// written as an HloModuleProto and read back prints the same computations
// (attributes Plexa keeps verbatim are not in the proto and not compared).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/infer/shape_inference.h"
#include "core/ir/computation.h"
#include "core/text/hlo_parser.h"
#include "core/text/test_programs.h"
#include "core/verifier/verifier.h"
#include "core/xla_proto/xla_proto_export.h"
#include "core/xla_proto/xla_proto_test_util.h"
#include "gtest/gtest.h"

namespace plexa::xla_proto_test {
namespace {

std::map<std::string, std::string> Computations(const Module& m) {
  PrintOptions o;
  o.print_opaque_attributes = false;
  std::map<std::string, std::string> out;
  for (const Computation* c : m.computations()) {
    out[c->name()] = PrintComputation(*c, o);
  }
  return out;
}

// XLA's proto always carries scan's num_carries, which the text may leave
// out: the text's module with the count the shapes give, for comparison.
void WriteScanCarries(Module& m) {
  for (Computation* c : m.computations()) {
    for (Instruction* i : c->instructions()) {
      if (i->opcode() != HloOpcode::kScan || i->attrs().num_carries) continue;
      std::vector<const Shape*> shapes;
      for (const Instruction* o : i->operands()) shapes.push_back(&o->shape());
      absl::StatusOr<int64_t> n = shape_inference::ScanNumCarries(
          shapes, i->attrs().dimensions, std::nullopt,
          i->to_apply()->ComputeProgramShape());
      if (n.ok()) i->mutable_attrs()->num_carries = *n;
    }
  }
}

std::vector<std::pair<std::string, std::string>> Programs() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : testing_programs::kAllPrograms) {
    out.emplace_back(std::string(p.name), std::string(p.text));
  }
  for (auto& file : testing_programs::TreeHloFiles()) {
    out.push_back(std::move(file));
  }
  return out;
}

TEST(XlaProtoRoundTrip, EveryProgramOfTheTree) {
  int tried = 0;
  int refused = 0;
  for (const auto& [name, text] : Programs()) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    if (!m.ok() || !VerifyModule(**m).ok()) continue;  // negative tests
    ++tried;
    absl::StatusOr<XlaProtoImport> back =
        ImportXlaProto(SerializeXlaHloModuleProto(**m));
    if (!back.ok() &&
        back.status().code() == absl::StatusCode::kUnimplemented) {
      ++refused;  // what the proto does not carry (domain's shardings)
      std::cerr << "refused: " << name << ": " << back.status() << "\n";
      continue;
    }
    ASSERT_TRUE(back.ok()) << name << ": " << back.status();
    WriteScanCarries(**m);
    EXPECT_EQ(Computations(*back->module), Computations(**m)) << name;
  }
  std::cerr << tried - refused << " programs round-tripped\n";
  EXPECT_GT(tried, 50);
  EXPECT_LT(refused * 20, tried) << "more than 5% of the programs refused";
}

}  // namespace
}  // namespace plexa::xla_proto_test
