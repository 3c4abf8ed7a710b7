// Malformed and hostile plexa-modules: each is a valid module's proto with
// one thing broken, and must come back as InvalidArgument with a message
// that says what is wrong and where, never as a crash, a huge allocation or
// an unverified module.
#include <climits>
#include <functional>
#include <initializer_list>
#include <string>

#include "core/proto/module_proto.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

namespace pb = ::plexa::proto;

constexpr char kBase[] = R"hlo(
HloModule base

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (a: f32[2], b: pred[2]) -> f32[] {
  %a = f32[2] parameter(0)
  %b = pred[2] parameter(1)
  %k = f32[2] constant({1, 2})
  %sum = f32[2] add(%a, %k)
  %cmp = pred[2] compare(%a, %k), direction=LT
  %zero = f32[] constant(0)
  %w = f32[1] reduce-window(%a, %zero), window={size=2}, to_apply=%add
  ROOT %r = f32[] reduce(%sum, %zero), dimensions={0}, to_apply=%add
}
)hlo";

pb::ModuleProto Base() {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(kBase);
  EXPECT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::string> bytes = SerializeModule(**m);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  pb::ModuleProto p;
  EXPECT_TRUE(p.ParseFromString(*bytes));
  return p;
}

pb::ComputationProto* Comp(pb::ModuleProto* p, const std::string& name) {
  for (auto& c : *p->mutable_computations()) {
    if (c.name() == name) return &c;
  }
  ADD_FAILURE() << "no computation " << name;
  return p->mutable_computations(0);
}

pb::InstructionProto* Inst(pb::ModuleProto* p, const std::string& name) {
  for (auto& c : *p->mutable_computations()) {
    for (auto& i : *c.mutable_instructions()) {
      if (i.name() == name) return &i;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  return p->mutable_computations(0)->mutable_instructions(0);
}

int64_t IdOf(pb::ModuleProto* p, const std::string& name) {
  return Inst(p, name)->id();
}

absl::Status Decode(absl::string_view bytes) {
  return DeserializeModule(bytes).status();
}

absl::Status Decode(const pb::ModuleProto& p) {
  std::string bytes;
  EXPECT_TRUE(p.SerializeToString(&bytes));
  return Decode(bytes);
}

void ExpectError(const absl::Status& s,
                 std::initializer_list<const char*> fragments) {
  ASSERT_FALSE(s.ok()) << "decoded a broken module";
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  for (const char* f : fragments) {
    EXPECT_NE(s.message().find(f), std::string::npos)
        << "'" << f << "' not in: " << s.message();
  }
}

// One broken module: the base with `edit` applied must fail with every
// fragment in the message.
void ExpectBroken(const std::function<void(pb::ModuleProto*)>& edit,
                  std::initializer_list<const char*> fragments) {
  pb::ModuleProto p = Base();
  edit(&p);
  ExpectError(Decode(p), fragments);
}

TEST(ErrorsTest, TheBaseModuleDecodes) {
  absl::Status s = Decode(Base());
  EXPECT_TRUE(s.ok()) << s;
}

// ------------------------------------------------------------ not a module

TEST(ErrorsTest, NotAModule) {
  ExpectError(Decode(std::string()), {"no format_version"});
  ExpectError(Decode(std::string("\xff\xff\xff\xff", 4)), {"do not parse"});
  ExpectError(Decode(std::string("\x0a\x05"
                                 "ab",
                                 4)),
              {"do not parse"});
  // HLO text handed over as a plexa-module.
  ExpectError(Decode(std::string(kBase)), {"plexa-module"});
}

TEST(ErrorsTest, Versions) {
  ExpectBroken(
      [](pb::ModuleProto* p) { p->set_format_version(2); },
      {"format version 2 is newer", "reads versions 1 to 1", "hlo-text"});
  ExpectBroken([](pb::ModuleProto* p) { p->set_format_version(0); },
               {"no format_version"});
}

TEST(ErrorsTest, OverTwoGigabytes) {
  // Never read: the size alone is refused.
  const char byte = 0;
  ExpectError(Decode(absl::string_view(&byte, size_t{INT_MAX} + 1)), {"2 GiB"});
}

// ------------------------------------------------------------ ids and names

TEST(ErrorsTest, Entry) {
  ExpectBroken([](pb::ModuleProto* p) { p->clear_entry_computation_id(); },
               {"module 'base'", "no entry computation"});
  ExpectBroken([](pb::ModuleProto* p) { p->set_entry_computation_id(99); },
               {"entry computation id 99"});
  ExpectBroken([](pb::ModuleProto* p) { p->clear_computations(); },
               {"entry computation id"});
}

TEST(ErrorsTest, Roots) {
  ExpectBroken([](pb::ModuleProto* p) { Comp(p, "main")->clear_root_id(); },
               {"computation 'main'", "no root"});
  ExpectBroken(
      [](pb::ModuleProto* p) { Comp(p, "main")->set_root_id(IdOf(p, "s")); },
      {"computation 'main'", "root id", "('s')",
       "belongs to computation 'add'"});
  ExpectBroken([](pb::ModuleProto* p) { Comp(p, "main")->set_root_id(-5); },
               {"root id -5 names no instruction"});
}

TEST(ErrorsTest, Operands) {
  ExpectBroken(
      [](pb::ModuleProto* p) { Inst(p, "sum")->set_operand_ids(1, 12345); },
      {"instruction 'sum'", "operand id 12345 names no instruction"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->set_operand_ids(0, IdOf(p, "x"));
      },
      {"instruction 'sum'", "('x') belongs to computation 'add'"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->add_control_predecessor_ids(777);
      },
      {"control predecessor id 777"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "r")->set_called_computation_ids(0, 31337);
      },
      {"instruction 'r'", "called computation id 31337"});
}

TEST(ErrorsTest, DuplicateIdsAndNames) {
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "k")->set_id(IdOf(p, "s")); },
               {"instruction 'k'", "is used more than once in the module"});
  ExpectBroken(
      [](pb::ModuleProto* p) { Comp(p, "main")->set_id(Comp(p, "add")->id()); },
      {"computation id", "'add'", "'main'"});
  ExpectBroken([](pb::ModuleProto* p) { Comp(p, "main")->set_name("add"); },
               {"computation name 'add' is used more than once"});
  ExpectBroken([](pb::ModuleProto* p) { Comp(p, "add")->set_name(""); },
               {"computation #0 has no name"});
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "k")->set_name("sum"); },
               {"name is used more than once in 'main'"});
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "k")->set_name(""); },
               {"no instruction name"});
}

TEST(ErrorsTest, Parameters) {
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "b")->mutable_attrs()->set_parameter_number(int64_t{1} << 50);
      },
      {"instruction 'b'", "parameter number 1125899906842624 is out of range",
       "2 parameter(s)"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "b")->mutable_attrs()->set_parameter_number(-1);
      },
      {"parameter number -1 is out of range"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "b")->mutable_attrs()->set_parameter_number(0);
      },
      {"instruction 'b'", "parameter number 0 is used more than once"});
  ExpectBroken(
      [](pb::ModuleProto* p) { Comp(p, "main")->clear_parameter_ids(); },
      {"computation 'main'", "lists 0 parameter(s) but holds 2"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ComputationProto* c = Comp(p, "main");
        const int64_t first = c->parameter_ids(0);
        c->set_parameter_ids(0, c->parameter_ids(1));
        c->set_parameter_ids(1, first);
      },
      {"parameter 0 is listed as 'b'"});
}

// ------------------------------------------------------------ values

TEST(ErrorsTest, UnknownOpcode) {
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "sum")->set_opcode("frob"); },
               {"instruction 'sum'", "unknown opcode 'frob'"});
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "sum")->set_opcode(""); },
               {"unknown opcode ''"});
  // A spelling is exact: the enum's name is not one.
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "sum")->set_opcode("kAdd"); },
               {"unknown opcode 'kAdd'"});
}

TEST(ErrorsTest, OutOfRangeEnums) {
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_shape()->set_element_type(
            static_cast<pb::ElementType>(99));
      },
      {"instruction 'sum'", "unknown element type 99"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_shape()->set_element_type(
            pb::ELEMENT_TYPE_INVALID);
      },
      {"unknown element type 0"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "cmp")->mutable_attrs()->set_comparison_direction(
            static_cast<pb::ComparisonDirection>(42));
      },
      {"instruction 'cmp'", "unknown comparison_direction 42"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "cmp")->mutable_attrs()->set_comparison_type(
            static_cast<pb::ComparisonType>(-3));
      },
      {"unknown comparison_type -3"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_attrs()->set_distribution(
            static_cast<pb::RandomDistribution>(7));
      },
      {"unknown distribution 7"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_attrs()->set_rng_algorithm(
            static_cast<pb::RandomAlgorithm>(3));
      },
      {"unknown rng_algorithm 3"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_attrs()->set_fusion_kind(
            static_cast<pb::FusionKind>(8));
      },
      {"unknown fusion_kind 8"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_attrs()->set_api_version(
            static_cast<pb::CustomCallApiVersion>(77));
      },
      {"unknown custom-call api_version 77"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")
            ->mutable_attrs()
            ->mutable_triangular_solve_options()
            ->set_transpose_a(static_cast<pb::TriangularSolveTranspose>(5));
      },
      {"unknown triangular_solve transpose_a 5"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "a")->mutable_shape()->mutable_layout()->add_minor_to_major(0);
        Inst(p, "a")->mutable_shape()->mutable_layout()->set_padding_value(
            static_cast<pb::PaddingValue>(6));
      },
      {"instruction 'a'", "unknown padding_value 6"});
}

TEST(ErrorsTest, InvalidShapes) {
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "a")->mutable_shape()->set_dimensions(0, -2);
      },
      {"instruction 'a'", "invalid shape f32[-2]", "negative"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "a")->mutable_shape()->mutable_layout()->add_minor_to_major(1);
      },
      {"instruction 'a'", "invalid shape", "minor_to_major"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::LayoutProto* l = Inst(p, "a")->mutable_shape()->mutable_layout();
        l->add_minor_to_major(0);
        l->set_tail_padding_alignment_in_elements(0);
      },
      {"tail_padding_alignment_in_elements must be >= 1"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::LayoutProto* l = Inst(p, "a")->mutable_shape()->mutable_layout();
        l->add_minor_to_major(0);
        l->add_tiles()->add_dimensions(INT64_MIN);  // T(*): nothing to combine
      },
      {"ends with '*'"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "a")->mutable_shape()->add_is_dynamic_dimension(true);
        Inst(p, "a")->mutable_shape()->add_is_dynamic_dimension(false);
      },
      {"2 dynamic-dimension flags for 1 dimensions"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        s->set_element_type(pb::ELEMENT_TYPE_TUPLE);
      },
      {"a tuple shape has dimensions"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        *s->add_tuple_shapes() = *s;
      },
      {"a f32 shape has tuple elements"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        s->clear_dimensions();
        s->set_element_type(pb::ELEMENT_TYPE_TOKEN);
        s->mutable_layout();
      },
      {"a token shape has dimensions or a layout"});
  ExpectBroken([](pb::ModuleProto* p) { Inst(p, "a")->clear_shape(); },
               {"instruction 'a'", "no shape"});
  // Sizes that overflow int64.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        s->set_dimensions(0, int64_t{1} << 40);
        s->add_dimensions(int64_t{1} << 40);
      },
      {"overflows int64"});
}

TEST(ErrorsTest, DeepNesting) {
  // 70 tuples deep: past this reader's limit of 64, inside protobuf's 100.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        s->Clear();
        for (int i = 0; i < 70; ++i) {
          s->set_element_type(pb::ELEMENT_TYPE_TUPLE);
          s = s->add_tuple_shapes();
        }
        s->set_element_type(pb::ELEMENT_TYPE_F32);
      },
      {"nested deeper than 64"});
  // 200 deep: protobuf refuses to parse it at all.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ShapeProto* s = Inst(p, "a")->mutable_shape();
        s->Clear();
        for (int i = 0; i < 200; ++i) {
          s->set_element_type(pb::ELEMENT_TYPE_TUPLE);
          s = s->add_tuple_shapes();
        }
      },
      {"do not parse"});
}

TEST(ErrorsTest, Literals) {
  auto lit = [](pb::ModuleProto* p) {
    return Inst(p, "k")->mutable_attrs()->mutable_literal();
  };
  ExpectBroken([&](pb::ModuleProto* p) { lit(p)->mutable_data()->pop_back(); },
               {"instruction 'k'", "literal f32[2]{0} needs 8 bytes of data",
                "holds 7"});
  ExpectBroken(
      [&](pb::ModuleProto* p) { lit(p)->mutable_data()->append(4, 'x'); },
      {"needs 8 bytes", "holds 12"});
  // Absurd sizes claimed by the shape, backed by 8 bytes: refused before
  // anything is allocated (an allocation this big would abort under ASan).
  ExpectBroken(
      [&](pb::ModuleProto* p) {
        lit(p)->mutable_shape()->set_dimensions(0, int64_t{1} << 40);
      },
      {"needs 4398046511104 bytes of data", "holds 8"});
  ExpectBroken(
      [&](pb::ModuleProto* p) {
        pb::LayoutProto* l = lit(p)->mutable_shape()->mutable_layout();
        l->set_tail_padding_alignment_in_elements(int64_t{1} << 61);
      },
      {"instruction 'k'"});
  ExpectBroken([&](pb::ModuleProto* p) { lit(p)->clear_shape(); },
               {"a literal without a shape"});
  ExpectBroken(
      [&](pb::ModuleProto* p) { *lit(p)->add_tuple_elements() = *lit(p); },
      {"literal has tuple elements"});
  // The constant's literal must agree with its shape (the verifier).
  ExpectBroken(
      [&](pb::ModuleProto* p) {
        lit(p)->mutable_shape()->set_dimensions(0, 1);
        lit(p)->mutable_data()->resize(4);
      },
      {"'k'", "constant"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "k")->mutable_attrs()->clear_literal();
      },
      {"'k'", "constant has no literal"});
}

TEST(ErrorsTest, PredLiteralsHoldOnlyBooleans) {
  pb::ModuleProto p = Base();
  pb::InstructionProto* k = Inst(&p, "k");
  k->mutable_shape()->set_element_type(pb::ELEMENT_TYPE_PRED);
  pb::LiteralProto* l = k->mutable_attrs()->mutable_literal();
  l->mutable_shape()->set_element_type(pb::ELEMENT_TYPE_PRED);
  l->set_data(std::string("\x01\x00", 2));
  // Now valid: a pred[2] constant (its users do not matter to decoding
  // until the verifier; make them consistent by removing them).
  Inst(&p, "sum")->set_operand_ids(1, IdOf(&p, "a"));
  Inst(&p, "cmp")->set_operand_ids(1, IdOf(&p, "a"));
  EXPECT_TRUE(Decode(p).ok()) << Decode(p);
  l->set_data(std::string("\x01\x02", 2));
  ExpectError(Decode(p), {"instruction 'k'", "holds byte 2 at offset 1"});
}

TEST(ErrorsTest, TupleLiterals) {
  pb::ModuleProto p = Base();
  pb::InstructionProto* k = Inst(&p, "k");
  pb::LiteralProto element = k->attrs().literal();
  pb::LiteralProto* l = k->mutable_attrs()->mutable_literal();
  l->Clear();
  pb::ShapeProto* ts = l->mutable_shape();
  ts->set_element_type(pb::ELEMENT_TYPE_TUPLE);
  *ts->add_tuple_shapes() = element.shape();
  *l->add_tuple_elements() = element;
  *k->mutable_shape() = *ts;
  Inst(&p, "sum")->set_operand_ids(1, IdOf(&p, "a"));
  Inst(&p, "cmp")->set_operand_ids(1, IdOf(&p, "a"));
  EXPECT_TRUE(Decode(p).ok()) << Decode(p);

  pb::ModuleProto q = p;
  Inst(&q, "k")->mutable_attrs()->mutable_literal()->clear_tuple_elements();
  ExpectError(Decode(q), {"tuple literal (f32[2]{0}) has 0 elements"});
  q = p;
  Inst(&q, "k")->mutable_attrs()->mutable_literal()->set_data("x");
  ExpectError(Decode(q), {"carries array data"});
  q = p;
  Inst(&q, "k")
      ->mutable_attrs()
      ->mutable_literal()
      ->mutable_tuple_elements(0)
      ->mutable_shape()
      ->set_element_type(pb::ELEMENT_TYPE_S32);
  ExpectError(Decode(q), {"element 0 of tuple literal", "has shape s32[2]"});
}

// ------------------------------------------------------------ the verifier

TEST(ErrorsTest, CyclesAndBadGraphsReachTheVerifier) {
  // sum uses r, r uses sum: a cycle through operands.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->set_operand_ids(0, IdOf(p, "sum"));
      },
      {"cycle"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "k")->add_control_predecessor_ids(IdOf(p, "r"));
      },
      {"cycle"});
  // A computation calling itself.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::InstructionProto* s = Inst(p, "s");
        s->set_opcode("call");
        s->add_called_computation_ids(Comp(p, "add")->id());
      },
      {"computation 'add' calls itself"});
  // A declared shape that is not what the operation computes.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        Inst(p, "sum")->mutable_shape()->set_element_type(pb::ELEMENT_TYPE_S32);
      },
      {"instruction 'sum'", "does not match the inferred shape"});
  // Operand count for the opcode.
  ExpectBroken(
      [](pb::ModuleProto* p) { Inst(p, "sum")->add_operand_ids(IdOf(p, "a")); },
      {"add expects 2 operand(s), got 3"});
  // The reducer lost.
  ExpectBroken(
      [](pb::ModuleProto* p) { Inst(p, "r")->clear_called_computation_ids(); },
      {"'r'"});
  // entry_computation_layout that does not match the entry.
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ProgramShapeProto* l = p->mutable_entry_computation_layout();
        pb::ShapeProto* s = l->add_parameters();
        s->set_element_type(pb::ELEMENT_TYPE_F32);
        l->mutable_result()->set_element_type(pb::ELEMENT_TYPE_F32);
      },
      {"entry_computation_layout", "1 parameters", "has 2"});
  ExpectBroken(
      [](pb::ModuleProto* p) {
        pb::ProgramShapeProto* l = p->mutable_entry_computation_layout();
        l->add_parameters()->set_element_type(pb::ELEMENT_TYPE_F32);
      },
      {"entry_computation_layout", "no result shape"});
}

}  // namespace
}  // namespace plexa
