// Malformed and unsupported input: located errors (computation and
// instruction by name and id, and the field at fault), never a crash.
#include <random>
#include <string>

#include "core/xla_proto/xla_proto_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::xla_proto_test {
namespace {

using ::testing::HasSubstr;

xla_pb::HloModuleProto Mlp() {
  xla_pb::HloModuleProto m;
  EXPECT_TRUE(m.ParseFromString(ReadPb("mlp")));
  return m;
}

// The entry's instruction named `name`.
xla_pb::HloInstructionProto* Inst(xla_pb::HloModuleProto& m,
                                  const std::string& name) {
  for (auto& c : *m.mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      if (i.name() == name) return &i;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  static xla_pb::HloInstructionProto none;
  return &none;
}

TEST(XlaProtoErrors, UnknownOperandId) {
  xla_pb::HloModuleProto m = Mlp();
  Inst(m, "add.9")->set_operand_ids(1, 77);
  EXPECT_EQ(ErrorOf(m),
            "computation 'main.9' (id 9), instruction 'add.9' (id 9): "
            "operand_ids[1] = 77 is not an instruction written before it in "
            "this computation");
}

TEST(XlaProtoErrors, UnknownOpcodeIsUnimplemented) {
  xla_pb::HloModuleProto m = Mlp();
  Inst(m, "relu.13")->set_opcode("relu");
  absl::StatusOr<std::unique_ptr<Module>> r =
      ParseXlaHloProto(m.SerializeAsString());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(r.status().message(),
              HasSubstr("instruction 'relu.13' (id 13): opcode 'relu' is "
                        "not an operation Plexa has"));
}

TEST(XlaProtoErrors, LiteralWithTooFewValues) {
  xla_pb::HloModuleProto m = Mlp();
  Inst(m, "b.7")->mutable_literal()->mutable_f32s()->RemoveLast();
  EXPECT_EQ(ErrorOf(m),
            "computation 'main.9' (id 9), instruction 'b.7' (id 7): literal: "
            "f32s holds 1 values for f32[2]{0} (2 elements)");
}

TEST(XlaProtoErrors, PackedSubByteLiteral) {
  xla_pb::HloModuleProto m = Mlp();
  xla_pb::LiteralProto* lit = Inst(m, "b.7")->mutable_literal();
  lit->Clear();
  lit->mutable_shape()->set_element_type(xla_pb::S4);
  lit->mutable_shape()->add_dimensions(4);
  lit->set_s4s(std::string("\x12\x34", 2));
  EXPECT_EQ(ErrorOf(m),
            "computation 'main.9' (id 9), instruction 'b.7' (id 7): literal: "
            "s4s holds 2 values for s4[4] (4 elements); a byte per element "
            "is read (as XLA's literals hold them), not packed values");
}

// A huge shape with few values is refused before anything is allocated.
TEST(XlaProtoErrors, HugeConstantWithFewValues) {
  xla_pb::HloModuleProto m = Mlp();
  xla_pb::ShapeProto* shape =
      Inst(m, "b.7")->mutable_literal()->mutable_shape();
  shape->set_dimensions(0, 1 << 30);
  shape->add_dimensions(4);
  shape->mutable_layout()->add_minor_to_major(1);
  EXPECT_THAT(ErrorOf(m), HasSubstr("instruction 'b.7' (id 7): literal: f32s "
                                    "holds 2 values for f32[1073741824,4]"));
  shape->set_dimensions(1, 1024);
  EXPECT_THAT(ErrorOf(m), HasSubstr("is too large"));
}

TEST(XlaProtoErrors, BadEnumsAndStrings) {
  xla_pb::HloModuleProto m = Mlp();
  xla_pb::HloInstructionProto* add = Inst(m, "add.9");
  add->set_opcode("compare");
  add->set_comparison_direction("SMALLER");
  EXPECT_THAT(ErrorOf(m), HasSubstr("instruction 'add.9' (id 9): "
                                    "comparison_direction: 'SMALLER' is not "
                                    "one of EQ NE GE GT LE LT"));
  m = Mlp();
  Inst(m, "x.4")->mutable_shape()->set_element_type(xla_pb::OPAQUE_TYPE);
  EXPECT_THAT(ErrorOf(m),
              HasSubstr("instruction 'x.4' (id 4): shape: element_type 14 "
                        "(OPAQUE_TYPE) is not an element type Plexa has"));
  m = Mlp();
  Inst(m, "dot.6")->mutable_shape()->set_dimensions(0, -3);
  EXPECT_THAT(ErrorOf(m), HasSubstr("instruction 'dot.6' (id 6): shape: "
                                    "dimensions[0] is -3"));
  m = Mlp();
  Inst(m, "x.4")->mutable_shape()->add_is_dynamic_dimension(true);
  EXPECT_THAT(ErrorOf(m), HasSubstr("instruction 'x.4' (id 4): shape: "
                                    "is_dynamic_dimension has 1 entries for "
                                    "2 dimensions"));
}

TEST(XlaProtoErrors, RootCalleeAndEntry) {
  xla_pb::HloModuleProto m = Mlp();
  m.mutable_computations(1)->set_root_id(500);
  EXPECT_EQ(ErrorOf(m),
            "computation 'main.9' (id 9): root_id 500 is not one of its "
            "instructions");
  m = Mlp();
  Inst(m, "reduce.12")->set_called_computation_ids(0, 9);
  EXPECT_THAT(ErrorOf(m),
              HasSubstr("instruction 'reduce.12' (id 12): "
                        "called_computation_ids[0] = 9 is not a computation "
                        "written before this one"));
  m = Mlp();
  m.set_entry_computation_id(0);
  m.set_entry_computation_name("nope");
  EXPECT_EQ(ErrorOf(m),
            "entry_computation_name 'nope' is not one of the module's "
            "computations");
}

// Errors of Plexa's HLO parser and verifier come back at the instruction.
TEST(XlaProtoErrors, ParserAndVerifierErrorsNameTheInstruction) {
  xla_pb::HloModuleProto m = Mlp();
  Inst(m, "reduce.12")->clear_dimensions();
  EXPECT_THAT(ErrorOf(m), HasSubstr("computation 'main.9' (id 9), "
                                    "instruction 'reduce.12' (id 12): "));
  m = Mlp();
  Inst(m, "add.9")->mutable_shape()->set_dimensions(1, 3);
  EXPECT_THAT(ErrorOf(m), HasSubstr("computation 'main.9' (id 9), "
                                    "instruction 'add.9' (id 9): "));
}

TEST(XlaProtoErrors, NotAProto) {
  absl::StatusOr<std::unique_ptr<Module>> r = ParseXlaHloProto("HloModule m");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("not a serialized XLA HloModuleProto, HloProto or "
                        "HloSnapshot"));
  EXPECT_FALSE(ParseXlaHloProto("").ok());
  r = ParseXlaHloProto(std::string("\x1f\x8b\x08\x00", 4));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("gzip-compressed"));
  EXPECT_TRUE(LooksLikeBinaryProto(ReadPb("mlp")));
  EXPECT_FALSE(LooksLikeBinaryProto("HloModule m\n\nENTRY %e {\n}\n"));
}

// Truncations and random byte changes of every test program: an error or a
// module, never a crash (run under ASan/UBSan in CI).
TEST(XlaProtoFuzz, TruncatedAndMutatedFilesNeverCrash) {
  std::mt19937 rng(15);
  int errors = 0;
  for (const char* name : {"mlp", "shapes", "control_snapshot", "more_ops"}) {
    const std::string bytes = ReadPb(name);
    ASSERT_FALSE(bytes.empty());
    for (size_t n = 0; n < bytes.size(); n += 1 + bytes.size() / 300) {
      errors += !ImportXlaProto(bytes.substr(0, n)).ok();
    }
    for (int k = 0; k < 1500; ++k) {
      std::string b = bytes;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        b[rng() % b.size()] = static_cast<char>(rng() % 256);
      }
      errors += !ImportXlaProto(b).ok();
    }
  }
  // Most damaged files are refused (the rest still decode to a module).
  EXPECT_GT(errors, 1000);
}

}  // namespace
}  // namespace plexa::xla_proto_test
