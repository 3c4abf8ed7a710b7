// Robustness of DeserializeModule: serialized modules truncated at many
// points, mutated byte by byte, and mutated field by field (operand ids,
// opcodes, shapes, enum numbers, literal sizes, computations, ...) with a
// fixed seed. Every input must give a status or a verified module, never a
// crash, hang or sanitizer report (CI runs this under ASan/UBSan). A
// module that decodes must also print, verify, and serialize and decode
// again to the same text.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/proto/module_proto.h"
#include "core/proto/proto_test_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

namespace pb = ::plexa::proto;
using proto_testing::Program;
using proto_testing::Rng;

struct Seed {
  std::string name;
  std::string bytes;  // a serialized module
  bool small;         // embedded programs: every truncation, more mutations
};

std::vector<Seed> Seeds() {
  std::vector<Program> programs = proto_testing::EmbeddedPrograms();
  const size_t embedded = programs.size();
  // Every examples/ program and every 8th conformance case.
  for (Program& p : proto_testing::HloFilesUnder("examples")) {
    programs.push_back(std::move(p));
  }
  std::vector<Program> cases =
      proto_testing::HloFilesUnder("tests/conformance");
  for (size_t i = 0; i < cases.size(); i += 8) programs.push_back(cases[i]);
  std::vector<Seed> out;
  for (size_t i = 0; i < programs.size(); ++i) {
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseHloModule(programs[i].text);
    // (Parsing and serializing every program is roundtrip_test's job;
    // this runs before main, where a failure cannot be reported.)
    if (!m.ok()) continue;
    absl::StatusOr<std::string> bytes = SerializeModule(**m);
    if (!bytes.ok()) continue;
    out.push_back({programs[i].name, std::move(*bytes), i < embedded});
  }
  return out;
}

// Decodes; a decoded module must verify, print, and survive another round
// trip unchanged. Returns whether it decoded.
bool Feed(const std::string& bytes) {
  absl::StatusOr<std::unique_ptr<Module>> m = DeserializeModule(bytes);
  if (!m.ok()) {
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument)
        << m.status();
    EXPECT_FALSE(m.status().message().empty());
    return false;
  }
  absl::Status verified = VerifyModule(**m);
  EXPECT_TRUE(verified.ok()) << verified;
  const std::string printed = PrintModule(**m);
  absl::StatusOr<std::string> again = SerializeModule(**m);
  EXPECT_TRUE(again.ok()) << again.status() << "\n" << printed;
  if (!again.ok()) return true;
  absl::StatusOr<std::unique_ptr<Module>> m2 = DeserializeModule(*again);
  EXPECT_TRUE(m2.ok()) << m2.status() << "\n" << printed;
  if (m2.ok()) {
    EXPECT_EQ(PrintModule(**m2), printed);
  }
  return true;
}

// ------------------------------------------------------------ bytes

std::string MutateBytes(const std::string& in, Rng& rng) {
  std::string s = in;
  const int edits = 1 + static_cast<int>(rng.Below(3));
  for (int e = 0; e < edits; ++e) {
    const size_t pos = rng.Below(s.size() + 1);
    switch (rng.Below(7)) {
      case 0:  // a random byte
        if (!s.empty())
          s[std::min(pos, s.size() - 1)] = static_cast<char>(rng.Next());
        break;
      case 1:  // one bit
        if (!s.empty())
          s[std::min(pos, s.size() - 1)] ^=
              static_cast<char>(1 << rng.Below(8));
        break;
      case 2:  // delete a short range
        s.erase(pos, 1 + rng.Below(6));
        break;
      case 3: {  // duplicate a slice elsewhere
        const size_t from = rng.Below(s.size() + 1);
        const size_t len = std::min<size_t>(1 + rng.Below(24), s.size() - from);
        s.insert(pos, s.substr(from, len));
        break;
      }
      case 4:  // a byte that steers varints and lengths: 0, 0x7f, 0x80, 0xff
        if (!s.empty()) {
          static constexpr char kEdges[] = {
              0, 0x7f, static_cast<char>(0x80), static_cast<char>(0xff), 1, 2};
          s[std::min(pos, s.size() - 1)] = kEdges[rng.Below(sizeof(kEdges))];
        }
        break;
      case 5:  // increment a byte (ids, lengths and enum numbers move by one)
        if (!s.empty()) ++s[std::min(pos, s.size() - 1)];
        break;
      default:  // swap two bytes
        if (s.size() > 1)
          std::swap(s[rng.Below(s.size())], s[rng.Below(s.size())]);
        break;
    }
  }
  return s;
}

// ------------------------------------------------------------ fields

int64_t Interesting(Rng& rng) {
  static constexpr int64_t kValues[] = {0,
                                        1,
                                        2,
                                        3,
                                        -1,
                                        -2,
                                        7,
                                        64,
                                        1000,
                                        int64_t{1} << 31,
                                        int64_t{1} << 40,
                                        std::numeric_limits<int64_t>::max(),
                                        std::numeric_limits<int64_t>::min()};
  return kValues[rng.Below(sizeof(kValues) / sizeof(kValues[0]))];
}

// A random instruction of the module (nullptr if there is none).
pb::InstructionProto* AnyInstruction(pb::ModuleProto* p, Rng& rng) {
  if (p->computations_size() == 0) return nullptr;
  pb::ComputationProto* c = p->mutable_computations(
      static_cast<int>(rng.Below(p->computations_size())));
  if (c->instructions_size() == 0) return nullptr;
  return c->mutable_instructions(
      static_cast<int>(rng.Below(c->instructions_size())));
}

int64_t AnyId(const pb::ModuleProto& p, Rng& rng) {
  std::vector<int64_t> ids;
  for (const auto& c : p.computations()) {
    for (const auto& i : c.instructions()) ids.push_back(i.id());
  }
  if (ids.empty() || rng.Below(8) == 0) return Interesting(rng);
  return ids[rng.Below(ids.size())];
}

void MutateShape(pb::ShapeProto* s, Rng& rng) {
  switch (rng.Below(9)) {
    case 0:
      s->set_element_type(static_cast<pb::ElementType>(rng.Below(20)));
      break;
    case 1:
      if (s->dimensions_size() > 0) {
        s->set_dimensions(static_cast<int>(rng.Below(s->dimensions_size())),
                          Interesting(rng));
      }
      break;
    case 2:
      s->add_dimensions(static_cast<int64_t>(rng.Below(5)));
      break;
    case 3:
      s->clear_dimensions();
      break;
    case 4:
      if (s->has_layout()) {
        s->clear_layout();
      } else {
        for (int i = s->dimensions_size() - 1; i >= 0; --i) {
          s->mutable_layout()->add_minor_to_major(i);
        }
      }
      break;
    case 5: {
      pb::LayoutProto* l = s->mutable_layout();
      switch (rng.Below(6)) {
        case 0:
          l->add_tiles()->add_dimensions(Interesting(rng));
          break;
        case 1:
          l->add_padded_dimensions(Interesting(rng));
          break;
        case 2:
          l->set_tail_padding_alignment_in_elements(Interesting(rng));
          break;
        case 3:
          l->set_element_size_in_bits(Interesting(rng));
          break;
        case 4:
          l->set_memory_space(Interesting(rng));
          break;
        default:
          l->set_padding_value(static_cast<pb::PaddingValue>(rng.Below(5)));
      }
      break;
    }
    case 6:
      s->add_is_dynamic_dimension(rng.Below(2) == 0);
      break;
    case 7: {  // wrap in a tuple
      pb::ShapeProto inner = *s;
      s->Clear();
      s->set_element_type(pb::ELEMENT_TYPE_TUPLE);
      *s->add_tuple_shapes() = inner;
      break;
    }
    default:
      s->set_element_type(rng.Below(2) ? pb::ELEMENT_TYPE_TOKEN
                                       : pb::ELEMENT_TYPE_S32);
  }
}

void MutateAttrs(pb::InstructionAttrsProto* a, Rng& rng) {
  switch (rng.Below(16)) {
    case 0:
      a->add_dimensions(Interesting(rng));
      break;
    case 1:
      a->clear_dimensions();
      break;
    case 2:
      a->set_parameter_number(Interesting(rng));
      break;
    case 3:
      a->set_tuple_index(Interesting(rng));
      break;
    case 4:
      a->set_iota_dimension(Interesting(rng));
      break;
    case 5: {
      pb::WindowDimensionProto* d = a->mutable_window()->add_dimensions();
      d->set_size(Interesting(rng));
      if (rng.Below(2)) d->set_stride(Interesting(rng));
      if (rng.Below(2)) d->set_padding_low(Interesting(rng));
      break;
    }
    case 6: {
      pb::SliceDimensionProto* d = a->add_slice();
      d->set_start(Interesting(rng));
      d->set_limit(Interesting(rng));
      if (rng.Below(2)) d->set_stride(Interesting(rng));
      break;
    }
    case 7:
      a->set_comparison_direction(
          static_cast<pb::ComparisonDirection>(rng.Below(8)));
      a->set_comparison_type(static_cast<pb::ComparisonType>(rng.Below(6)));
      break;
    case 8: {
      pb::GatherDimensionNumbersProto* g =
          a->mutable_gather_dimension_numbers();
      g->add_offset_dims(Interesting(rng));
      g->add_start_index_map(Interesting(rng));
      g->set_index_vector_dim(Interesting(rng));
      a->add_gather_slice_sizes(Interesting(rng));
      break;
    }
    case 9: {
      pb::ConvolutionDimensionNumbersProto* c =
          a->mutable_convolution_dimension_numbers();
      c->add_input_spatial_dimensions(Interesting(rng));
      c->set_output_feature_dimension(Interesting(rng));
      a->set_feature_group_count(Interesting(rng));
      break;
    }
    case 10: {
      pb::DotDimensionNumbersProto* d = a->mutable_dot_dimension_numbers();
      d->add_lhs_contracting_dimensions(Interesting(rng));
      d->add_rhs_batch_dimensions(Interesting(rng));
      break;
    }
    case 11: {
      pb::PaddingDimensionProto* d =
          a->mutable_padding_config()->add_dimensions();
      d->set_edge_padding_low(Interesting(rng));
      d->set_interior_padding(Interesting(rng));
      break;
    }
    case 12:
      if (a->has_literal()) {
        pb::LiteralProto* l = a->mutable_literal();
        switch (rng.Below(4)) {
          case 0:
            l->mutable_data()->push_back('\x01');
            break;
          case 1:
            if (!l->data().empty()) l->mutable_data()->pop_back();
            break;
          case 2:
            MutateShape(l->mutable_shape(), rng);
            break;
          default:
            l->clear_data();
        }
      } else {
        a->mutable_literal()->mutable_shape()->set_element_type(
            pb::ELEMENT_TYPE_F32);
        a->mutable_literal()->set_data(std::string(4, '\0'));
      }
      break;
    case 13: {
      pb::ScatterDimensionNumbersProto* s =
          a->mutable_scatter_dimension_numbers();
      s->add_update_window_dims(Interesting(rng));
      s->add_scatter_dims_to_operand_dims(Interesting(rng));
      break;
    }
    case 14:
      a->set_exponent_bits(static_cast<int32_t>(Interesting(rng)));
      a->set_mantissa_bits(static_cast<int32_t>(Interesting(rng)));
      a->set_feature_index(Interesting(rng));
      break;
    default:
      a->add_dynamic_slice_sizes(Interesting(rng));
      a->add_replica_groups()->add_replica_ids(Interesting(rng));
      a->set_has_layout_constraints(rng.Below(2) == 0);
      break;
  }
}

std::vector<std::string> AllOpcodes() {
  std::vector<std::string> out;
  for (int k = 0; k < kHloOpcodeCount; ++k) {
    out.emplace_back(HloOpcodeString(static_cast<HloOpcode>(k)));
  }
  return out;
}

void MutateFields(pb::ModuleProto* p, Rng& rng) {
  static const std::vector<std::string> kOpcodes = AllOpcodes();
  const int edits = 1 + static_cast<int>(rng.Below(3));
  for (int e = 0; e < edits; ++e) {
    pb::InstructionProto* inst = AnyInstruction(p, rng);
    switch (rng.Below(14)) {
      case 0:
        if (inst && inst->operand_ids_size() > 0) {
          inst->set_operand_ids(
              static_cast<int>(rng.Below(inst->operand_ids_size())),
              AnyId(*p, rng));
        }
        break;
      case 1:
        if (inst) inst->add_operand_ids(AnyId(*p, rng));
        break;
      case 2:
        if (inst) inst->clear_operand_ids();
        break;
      case 3:
        if (inst) inst->set_opcode(kOpcodes[rng.Below(kOpcodes.size())]);
        break;
      case 4:
        if (inst) MutateShape(inst->mutable_shape(), rng);
        break;
      case 5:
      case 6:
        if (inst) MutateAttrs(inst->mutable_attrs(), rng);
        break;
      case 7:
        if (inst) {
          if (rng.Below(2) && inst->called_computation_ids_size() > 0) {
            inst->clear_called_computation_ids();
          } else {
            inst->add_called_computation_ids(
                p->computations_size() > 0
                    ? p->computations(
                           static_cast<int>(rng.Below(p->computations_size())))
                          .id()
                    : Interesting(rng));
          }
        }
        break;
      case 8:
        if (inst) inst->add_control_predecessor_ids(AnyId(*p, rng));
        break;
      case 9:
        if (p->computations_size() > 0) {
          pb::ComputationProto* c = p->mutable_computations(
              static_cast<int>(rng.Below(p->computations_size())));
          switch (rng.Below(4)) {
            case 0:
              c->set_root_id(AnyId(*p, rng));
              break;
            case 1:
              c->clear_parameter_ids();
              break;
            case 2:
              if (c->instructions_size() > 1) {
                c->mutable_instructions()->SwapElements(
                    0, static_cast<int>(rng.Below(c->instructions_size())));
              }
              break;
            default:
              if (c->instructions_size() > 0) {
                c->mutable_instructions()->RemoveLast();
              }
          }
        }
        break;
      case 10:
        if (inst && p->computations_size() > 0) {
          // A copy of an instruction under a fresh id and name.
          pb::InstructionProto copy = *inst;
          copy.set_id(copy.id() + 100000);
          copy.set_name(copy.name() + ".copy");
          *p->mutable_computations(0)->add_instructions() = copy;
        }
        break;
      case 11:
        p->set_entry_computation_id(
            p->computations_size() > 0
                ? p->computations(
                       static_cast<int>(rng.Below(p->computations_size())))
                      .id()
                : Interesting(rng));
        break;
      case 12:
        if (p->computations_size() > 1) {
          p->mutable_computations()->SwapElements(
              0, static_cast<int>(rng.Below(p->computations_size())));
        } else if (p->computations_size() == 1 && rng.Below(4) == 0) {
          p->mutable_computations()->RemoveLast();
        }
        break;
      default:
        if (inst) inst->set_name(rng.Below(2) ? "" : "dup");
        break;
    }
  }
}

// ------------------------------------------------------------ the tests

class DeserializeFuzzTest : public ::testing::TestWithParam<Seed> {};

TEST_P(DeserializeFuzzTest, TruncationsAndMutationsNeverCrash) {
  const Seed& seed = GetParam();
  const std::string& bytes = seed.bytes;
  Feed(bytes);
  // Every truncation of the small programs; about 64 of each other one.
  const size_t stride = seed.small ? 1 : std::max<size_t>(1, bytes.size() / 64);
  for (size_t n = 0; n < bytes.size(); n += stride) {
    Feed(bytes.substr(0, n));
  }
  Rng rng(proto_testing::Hash(seed.name));
  const int byte_mutations = seed.small ? 500 : 40;
  for (int i = 0; i < byte_mutations; ++i) Feed(MutateBytes(bytes, rng));

  pb::ModuleProto base;
  ASSERT_TRUE(base.ParseFromString(bytes));
  const int field_mutations = seed.small ? 800 : 60;
  int decoded = 0;
  for (int i = 0; i < field_mutations; ++i) {
    pb::ModuleProto p = base;
    MutateFields(&p, rng);
    std::string mutated;
    ASSERT_TRUE(p.SerializeToString(&mutated));
    decoded += Feed(mutated) ? 1 : 0;
  }
  // The field mutations must reach past decoding into verified modules
  // (some edits keep a module valid) and be refused otherwise; a mutator
  // whose every output is refused at the first check tests little.
  if (seed.small) {
    EXPECT_GT(decoded, 0);
    EXPECT_LT(decoded, field_mutations);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, DeserializeFuzzTest,
                         ::testing::ValuesIn(Seeds()),
                         [](const ::testing::TestParamInfo<Seed>& info) {
                           return proto_testing::Sanitize(info.param.name) +
                                  "_" + std::to_string(info.index);
                         });

TEST(DeserializeFuzzSmokeTest, PathologicalInputs) {
  for (const std::string& bytes : std::vector<std::string>{
           std::string(), std::string(1, '\0'), std::string(100000, '\0'),
           std::string(100000, '\xff'),
           std::string(4096, '\x0a'),   // nested length-delimited headers
           std::string("\x08\x01", 2),  // a version and nothing else
           std::string("\x08\x01\x18\x00", 4),
           std::string("\x08\x01\x32\x00\x18\x00", 6),  // one empty computation
       }) {
    Feed(bytes);
  }
}

}  // namespace
}  // namespace plexa
