// The attribute table (core/ir/attribute_table.h) against every format: for
// each opcode and each attribute the table gives it, an instruction written
// with a non-default value must parse into the table's field (not into the
// verbatim attributes), print that value back, read back the same text, and
// come back from the plexa-module attribute message unchanged. A format that
// forgets an attribute fails here by name. It lives in core/proto because
// that is the library that sees both the text format and the proto.
#include "core/ir/attribute_table.h"

#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/proto/module_proto_internal.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "gtest/gtest.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

namespace pb = ::plexa::proto;

// A value other than the default for every attribute, spelled as the
// printer spells it. No default case: a new AttrId needs a sample here.
std::string SampleValue(AttrId id) {
  switch (id) {
    case AttrId::kDimensions:
      return "{1,0}";
    case AttrId::kIotaDimension:
    case AttrId::kIndex:
    case AttrId::kFeatureIndex:
      return "1";
    case AttrId::kWindow:
      return "{size=2x3 stride=2x1 pad=0_1x1_0 lhs_dilate=1x2 rhs_dilate=2x1 "
             "rhs_reversal=1x0}";
    case AttrId::kDimLabels:
      return "b01f_01io->b01f";
    case AttrId::kFeatureGroupCount:
      return "2";
    case AttrId::kBatchGroupCount:
      return "3";
    case AttrId::kLhsBatchDims:
    case AttrId::kRhsBatchDims:
      return "{0}";
    case AttrId::kLhsContractingDims:
      return "{2}";
    case AttrId::kRhsContractingDims:
      return "{1}";
    case AttrId::kLhsRaggedDims:
      return "{1}";
    case AttrId::kRhsGroupDims:
      return "{0}";
    case AttrId::kSparsity:
      return "L.2@2:4_R.1@1:3";
    case AttrId::kPadding:
      return "1_2_0x0_-1_1";
    case AttrId::kSlice:
      return "{[0:2:1], [1:3:2]}";
    case AttrId::kDynamicSliceSizes:
      return "{2,2}";
    case AttrId::kOffsetDims:
    case AttrId::kUpdateWindowDims:
      return "{1}";
    case AttrId::kCollapsedSliceDims:
    case AttrId::kStartIndexMap:
    case AttrId::kInsertedWindowDims:
    case AttrId::kScatterDimsToOperandDims:
    case AttrId::kStartIndicesBatchingDims:
    case AttrId::kScatterIndicesBatchingDims:
      return "{0}";
    case AttrId::kOperandBatchingDims:
    case AttrId::kInputBatchingDims:
      return "{2}";
    case AttrId::kGatherIndexVectorDim:
    case AttrId::kScatterIndexVectorDim:
      return "1";
    case AttrId::kSliceSizes:
      return "{1,2}";
    case AttrId::kIndicesAreSorted:
    case AttrId::kUniqueIndices:
    case AttrId::kIsStable:
    case AttrId::kCustomCallHasSideEffect:
    case AttrId::kUseGlobalDeviceIds:
    case AttrId::kConstrainLayout:
    case AttrId::kIsHostTransfer:
    case AttrId::kLeftSide:
    case AttrId::kLower:
    case AttrId::kUnitDiagonal:
    case AttrId::kCholeskyLower:
      return "true";
    case AttrId::kDirection:
      return "LT";
    case AttrId::kComparisonType:
      return "TOTALORDER";
    case AttrId::kEpsilon:
      return "0.001";
    case AttrId::kExponentBits:
      return "5";
    case AttrId::kMantissaBits:
      return "10";
    case AttrId::kDistribution:
      return "rng_normal";
    case AttrId::kRngAlgorithm:
      return "rng_philox";
    case AttrId::kCustomCallTarget:
      return "\"my_target\"";
    case AttrId::kApiVersion:
      return "API_VERSION_TYPED_FFI";
    case AttrId::kOperandLayoutConstraints:
      return "{f32[2,3]{0,1}, s32[]}";
    case AttrId::kReplicaGroups:
      return "{{0,1},{2,3}}";
    case AttrId::kChannelId:
      return "7";
    case AttrId::kDelta:
      return "-3";
    case AttrId::kCrossProgramPrefetchIndex:
      return "2";
    case AttrId::kAsyncExecutionThread:
      return "\"parallel_thread\"";
    case AttrId::kSourceTargetPairs:
      return "{{0,1},{1,0},{3,2}}";
    case AttrId::kInfeedConfig:
    case AttrId::kOutfeedConfig:
      return "\"config\\n\"";
    case AttrId::kOutfeedShape:
      return "(f32[2]{0}, s32[])";
    case AttrId::kFusionKind:
      return "kOutput";
    case AttrId::kTransposeA:
      return "ADJOINT";
    case AttrId::kFftType:
      return "IRFFT";
    case AttrId::kFftLength:
      return "{4,8}";
    case AttrId::kK:
      return "3";
    case AttrId::kLargest:
      return "false";  // the default is true
    case AttrId::kNumCarries:
      return "2";
    case AttrId::kIsReverse:
    case AttrId::kHasDynamicRoot:
      return "true";
    case AttrId::kShuffleMode:
      return "permute";
    case AttrId::kShifts:
      return "{1,-2}";
    case AttrId::kShuffleIndices:
      return "s32[2]{0} {1, 0}";
    case AttrId::kMultiShifts:
      return "s64[2]{0} {3, -1}";
    case AttrId::kToApply:
    case AttrId::kCondition:
    case AttrId::kBody:
    case AttrId::kSelect:
    case AttrId::kScatter:
    case AttrId::kTrueComputation:
    case AttrId::kFalseComputation:
    case AttrId::kCalls:
      return "%f";
    case AttrId::kBranchComputations:
    case AttrId::kCalledComputations:
      return "{%f, %g}";
  }
  return "";
}

struct Case {
  HloOpcode op;
  AttrSpec spec;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << HloOpcodeString(c.op) << " " << c.spec.name;
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    for (const AttrSpec& spec : AttributesOf(op)) cases.push_back({op, spec});
  }
  return cases;
}

std::string CaseName(const testing::TestParamInfo<Case>& info) {
  std::string name =
      absl::StrCat(HloOpcodeString(info.param.op), "_", info.param.spec.name);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

bool IsPredicateBranch(AttrId id) {
  return id == AttrId::kTrueComputation || id == AttrId::kFalseComputation;
}

// A module whose root is `op` with its required attributes and `tested`,
// each at its sample value. Nothing is verified, so the operands are
// placeholders; a predicate conditional gets a pred operand and both of its
// branches, any other conditional its branch list.
std::string ModuleText(HloOpcode op, const AttrSpec& tested) {
  std::vector<std::string> attrs;
  for (const AttrSpec& spec : AttributesOf(op)) {
    const bool partner =
        IsPredicateBranch(tested.id) && IsPredicateBranch(spec.id);
    const bool branches = op == HloOpcode::kConditional &&
                          !IsPredicateBranch(tested.id) &&
                          spec.id == AttrId::kBranchComputations;
    if (spec.required || spec.id == tested.id || partner || branches) {
      attrs.push_back(absl::StrCat(spec.name, "=", SampleValue(spec.id)));
    }
  }
  std::vector<std::string> operands;
  const int arity = HloOpcodeArity(op);
  if (op == HloOpcode::kConditional) {
    operands = {IsPredicateBranch(tested.id) ? "%b" : "%i", "%p"};
  } else {
    operands.assign(arity == kVariadic ? 1 : arity, "%p");
  }
  std::string root = absl::StrCat("f32[] ", HloOpcodeString(op), "(",
                                  absl::StrJoin(operands, ", "), ")");
  for (const std::string& a : attrs) absl::StrAppend(&root, ", ", a);
  return absl::StrCat(R"hlo(HloModule m

%f (x: f32[]) -> f32[] {
  ROOT %x = f32[] parameter(0)
}

%g (y: f32[]) -> f32[] {
  ROOT %y = f32[] parameter(0)
}

ENTRY %e (p: f32[], b: pred[], i: s32[]) -> f32[] {
  %p = f32[] parameter(0)
  %b = pred[] parameter(1)
  %i = s32[] parameter(2)
  ROOT %r = )hlo",
                      root, "\n}\n");
}

class AttributeTableTest : public testing::TestWithParam<Case> {};

TEST_P(AttributeTableTest, EveryFormatCarriesTheAttribute) {
  const HloOpcode op = GetParam().op;
  const AttrSpec& spec = GetParam().spec;
  const std::string text = ModuleText(op, spec);
  SCOPED_TRACE(text);

  // Text -> IR: the parser fills the table's field, not the verbatim list.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  Instruction* root = (*m)->entry_computation()->root_instruction();
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->attrs().opaque.empty())
      << "the parser kept '" << spec.name << "' verbatim";
  if (!IsCalledComputation(spec.id)) {
    EXPECT_FALSE(HoldsDefault(root->attrs(), spec.id))
        << "the parser did not store '" << spec.name << "'";
  }

  // IR -> text: the value is printed, and the text reads back to itself.
  const std::string printed = PrintModule(**m);
  const std::string expected =
      absl::StrCat(", ", spec.name, "=", SampleValue(spec.id));
  EXPECT_TRUE(absl::StrContains(printed, expected))
      << "the printer did not write " << expected << " in\n"
      << printed;
  absl::StatusOr<std::unique_ptr<Module>> again = ParseHloModule(printed);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);

  // IR -> proto -> IR: called computations travel as ids, checked by the
  // module round-trip tests; every value attribute travels in the
  // attribute message.
  if (IsCalledComputation(spec.id)) return;
  pb::InstructionAttrsProto p;
  ASSERT_TRUE(proto_internal::AttrsToProto(root->attrs(), &p, "test").ok());
  pb::InstructionAttrsProto wire;
  ASSERT_TRUE(wire.ParseFromString(p.SerializeAsString()));
  absl::StatusOr<InstructionAttrs> back =
      proto_internal::AttrsFromProto(wire, "test");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(HoldsDefault(*back, spec.id))
      << "the proto format lost '" << spec.name << "'";
  *root->mutable_attrs() = *std::move(back);
  EXPECT_EQ(PrintModule(**m), printed)
      << "the proto format changed '" << spec.name << "'";
}

INSTANTIATE_TEST_SUITE_P(Table, AttributeTableTest,
                         testing::ValuesIn(AllCases()), CaseName);

// What the formats rely on the table to say consistently.
TEST(AttributeTableShapeTest, EachOpcodeNamesEachAttributeOnce) {
  absl::flat_hash_set<AttrId> used;
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode op = static_cast<HloOpcode>(i);
    absl::flat_hash_set<absl::string_view> names;
    bool computations_started = false;
    for (const AttrSpec& spec : AttributesOf(op)) {
      SCOPED_TRACE(absl::StrCat(HloOpcodeString(op), " ", spec.name));
      EXPECT_TRUE(names.insert(spec.name).second) << "named twice";
      EXPECT_EQ(FindAttribute(op, spec.name), &spec);
      used.insert(spec.id);
      // The printer writes values before called computations.
      if (IsCalledComputation(spec.id)) computations_started = true;
      EXPECT_TRUE(IsCalledComputation(spec.id) || !computations_started)
          << "a value attribute after a called computation";
      // A required value left out as a default would not read back.
      if (spec.required) {
        EXPECT_EQ(spec.print, AttrPrint::kAlways);
      }
      EXPECT_EQ(FieldOf(spec.id).has_value(), !IsCalledComputation(spec.id));
    }
  }
  // Every attribute is some opcode's (none is dead).
  for (int id = 0; id <= static_cast<int>(AttrId::kCalledComputations); ++id) {
    EXPECT_TRUE(used.contains(static_cast<AttrId>(id)))
        << "AttrId " << id << " belongs to no opcode";
  }
}

// Reading leaves a default where the attribute is absent, and writing the
// default attributes writes nothing: the proto's zero values are the IR's
// defaults, as module.proto promises.
TEST(AttributeTableShapeTest, DefaultAttributesWriteNothing) {
  pb::InstructionAttrsProto p;
  ASSERT_TRUE(proto_internal::AttrsToProto(InstructionAttrs(), &p, "").ok());
  EXPECT_EQ(p.SerializeAsString(), "");
  absl::StatusOr<InstructionAttrs> back = proto_internal::AttrsFromProto(p, "");
  ASSERT_TRUE(back.ok()) << back.status();
  for (int id = 0; id <= static_cast<int>(AttrId::kCalledComputations); ++id) {
    EXPECT_TRUE(HoldsDefault(*back, static_cast<AttrId>(id))) << id;
  }
}

}  // namespace
}  // namespace plexa
