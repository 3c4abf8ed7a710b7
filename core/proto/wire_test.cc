// The wire format itself, checked against bytes and numbers worked out by
// hand from the protobuf encoding rules and module.proto, not against the
// serializer: hand-encoded modules decode to the expected IR, unknown
// fields are skipped, the serializer's output carries the expected wire
// values (opcode spellings, PLX_Type numbers, literal buffers in layout
// order with their padding), and the field and enum numbers are frozen.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "core/proto/module_proto.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "gtest/gtest.h"
#include "proto/module.pb.h"

namespace plexa {
namespace {

namespace pb = ::plexa::proto;

// ------------------------------------------------------------ frozen numbers
//
// Field and enum numbers never change (docs/abi.md): renumbering one in
// module.proto fails to compile here.
static_assert(pb::TileProto::kDimensionsFieldNumber == 1);
static_assert(pb::LayoutProto::kMinorToMajorFieldNumber == 1);
static_assert(pb::LayoutProto::kTilesFieldNumber == 2);
static_assert(pb::LayoutProto::kMemorySpaceFieldNumber == 3);
static_assert(pb::LayoutProto::kPaddedDimensionsFieldNumber == 4);
static_assert(pb::LayoutProto::kPaddingValueFieldNumber == 5);
static_assert(pb::LayoutProto::kTailPaddingAlignmentInElementsFieldNumber == 6);
static_assert(pb::LayoutProto::kElementSizeInBitsFieldNumber == 7);
static_assert(pb::ShapeProto::kElementTypeFieldNumber == 1);
static_assert(pb::ShapeProto::kDimensionsFieldNumber == 2);
static_assert(pb::ShapeProto::kIsDynamicDimensionFieldNumber == 3);
static_assert(pb::ShapeProto::kTupleShapesFieldNumber == 4);
static_assert(pb::ShapeProto::kLayoutFieldNumber == 5);
static_assert(pb::ProgramShapeProto::kParametersFieldNumber == 1);
static_assert(pb::ProgramShapeProto::kParameterNamesFieldNumber == 2);
static_assert(pb::ProgramShapeProto::kResultFieldNumber == 3);
static_assert(pb::LiteralProto::kShapeFieldNumber == 1);
static_assert(pb::LiteralProto::kDataFieldNumber == 2);
static_assert(pb::LiteralProto::kTupleElementsFieldNumber == 3);
static_assert(pb::WindowDimensionProto::kSizeFieldNumber == 1);
static_assert(pb::WindowDimensionProto::kStrideFieldNumber == 2);
static_assert(pb::WindowDimensionProto::kPaddingLowFieldNumber == 3);
static_assert(pb::WindowDimensionProto::kPaddingHighFieldNumber == 4);
static_assert(pb::WindowDimensionProto::kWindowDilationFieldNumber == 5);
static_assert(pb::WindowDimensionProto::kBaseDilationFieldNumber == 6);
static_assert(pb::WindowDimensionProto::kWindowReversalFieldNumber == 7);
static_assert(pb::WindowProto::kDimensionsFieldNumber == 1);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kInputBatchDimensionFieldNumber == 1);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kInputFeatureDimensionFieldNumber ==
    2);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kInputSpatialDimensionsFieldNumber ==
    3);
static_assert(pb::ConvolutionDimensionNumbersProto::
                  kKernelInputFeatureDimensionFieldNumber == 4);
static_assert(pb::ConvolutionDimensionNumbersProto::
                  kKernelOutputFeatureDimensionFieldNumber == 5);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kKernelSpatialDimensionsFieldNumber ==
    6);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kOutputBatchDimensionFieldNumber ==
    7);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kOutputFeatureDimensionFieldNumber ==
    8);
static_assert(
    pb::ConvolutionDimensionNumbersProto::kOutputSpatialDimensionsFieldNumber ==
    9);
static_assert(pb::DotDimensionNumbersProto::kLhsBatchDimensionsFieldNumber ==
              1);
static_assert(pb::DotDimensionNumbersProto::kRhsBatchDimensionsFieldNumber ==
              2);
static_assert(
    pb::DotDimensionNumbersProto::kLhsContractingDimensionsFieldNumber == 3);
static_assert(
    pb::DotDimensionNumbersProto::kRhsContractingDimensionsFieldNumber == 4);
static_assert(pb::PaddingDimensionProto::kEdgePaddingLowFieldNumber == 1);
static_assert(pb::PaddingDimensionProto::kEdgePaddingHighFieldNumber == 2);
static_assert(pb::PaddingDimensionProto::kInteriorPaddingFieldNumber == 3);
static_assert(pb::PaddingConfigProto::kDimensionsFieldNumber == 1);
static_assert(pb::SliceDimensionProto::kStartFieldNumber == 1);
static_assert(pb::SliceDimensionProto::kLimitFieldNumber == 2);
static_assert(pb::SliceDimensionProto::kStrideFieldNumber == 3);
static_assert(pb::GatherDimensionNumbersProto::kOffsetDimsFieldNumber == 1);
static_assert(pb::GatherDimensionNumbersProto::kCollapsedSliceDimsFieldNumber ==
              2);
static_assert(pb::GatherDimensionNumbersProto::kStartIndexMapFieldNumber == 3);
static_assert(pb::GatherDimensionNumbersProto::kIndexVectorDimFieldNumber == 4);
static_assert(
    pb::GatherDimensionNumbersProto::kOperandBatchingDimsFieldNumber == 5);
static_assert(
    pb::GatherDimensionNumbersProto::kStartIndicesBatchingDimsFieldNumber == 6);
static_assert(pb::ScatterDimensionNumbersProto::kUpdateWindowDimsFieldNumber ==
              1);
static_assert(
    pb::ScatterDimensionNumbersProto::kInsertedWindowDimsFieldNumber == 2);
static_assert(
    pb::ScatterDimensionNumbersProto::kScatterDimsToOperandDimsFieldNumber ==
    3);
static_assert(pb::ScatterDimensionNumbersProto::kIndexVectorDimFieldNumber ==
              4);
static_assert(pb::ScatterDimensionNumbersProto::kInputBatchingDimsFieldNumber ==
              5);
static_assert(
    pb::ScatterDimensionNumbersProto::kScatterIndicesBatchingDimsFieldNumber ==
    6);
static_assert(pb::TriangularSolveOptionsProto::kLeftSideFieldNumber == 1);
static_assert(pb::TriangularSolveOptionsProto::kLowerFieldNumber == 2);
static_assert(pb::TriangularSolveOptionsProto::kUnitDiagonalFieldNumber == 3);
static_assert(pb::TriangularSolveOptionsProto::kTransposeAFieldNumber == 4);
static_assert(pb::ReplicaGroupProto::kReplicaIdsFieldNumber == 1);
static_assert(pb::OpaqueAttributeProto::kNameFieldNumber == 1);
static_assert(pb::OpaqueAttributeProto::kValueFieldNumber == 2);
static_assert(pb::InstructionAttrsProto::kDimensionsFieldNumber == 1);
static_assert(pb::InstructionAttrsProto::kIotaDimensionFieldNumber == 2);
static_assert(pb::InstructionAttrsProto::kParameterNumberFieldNumber == 3);
static_assert(pb::InstructionAttrsProto::kTupleIndexFieldNumber == 4);
static_assert(pb::InstructionAttrsProto::kLiteralFieldNumber == 5);
static_assert(pb::InstructionAttrsProto::kWindowFieldNumber == 6);
static_assert(
    pb::InstructionAttrsProto::kConvolutionDimensionNumbersFieldNumber == 7);
static_assert(pb::InstructionAttrsProto::kFeatureGroupCountFieldNumber == 8);
static_assert(pb::InstructionAttrsProto::kBatchGroupCountFieldNumber == 9);
static_assert(pb::InstructionAttrsProto::kDotDimensionNumbersFieldNumber == 10);
static_assert(pb::InstructionAttrsProto::kPaddingConfigFieldNumber == 11);
static_assert(pb::InstructionAttrsProto::kSliceFieldNumber == 12);
static_assert(pb::InstructionAttrsProto::kDynamicSliceSizesFieldNumber == 13);
static_assert(pb::InstructionAttrsProto::kGatherDimensionNumbersFieldNumber ==
              14);
static_assert(pb::InstructionAttrsProto::kGatherSliceSizesFieldNumber == 15);
static_assert(pb::InstructionAttrsProto::kScatterDimensionNumbersFieldNumber ==
              16);
static_assert(pb::InstructionAttrsProto::kIndicesAreSortedFieldNumber == 17);
static_assert(pb::InstructionAttrsProto::kUniqueIndicesFieldNumber == 18);
static_assert(pb::InstructionAttrsProto::kComparisonDirectionFieldNumber == 19);
static_assert(pb::InstructionAttrsProto::kComparisonTypeFieldNumber == 20);
static_assert(pb::InstructionAttrsProto::kEpsilonFieldNumber == 21);
static_assert(pb::InstructionAttrsProto::kFeatureIndexFieldNumber == 22);
static_assert(pb::InstructionAttrsProto::kExponentBitsFieldNumber == 23);
static_assert(pb::InstructionAttrsProto::kMantissaBitsFieldNumber == 24);
static_assert(pb::InstructionAttrsProto::kDistributionFieldNumber == 25);
static_assert(pb::InstructionAttrsProto::kIsStableFieldNumber == 26);
static_assert(pb::InstructionAttrsProto::kCustomCallTargetFieldNumber == 27);
static_assert(pb::InstructionAttrsProto::kBackendConfigFieldNumber == 28);
static_assert(pb::InstructionAttrsProto::kApiVersionFieldNumber == 29);
static_assert(pb::InstructionAttrsProto::kHasLayoutConstraintsFieldNumber ==
              30);
static_assert(pb::InstructionAttrsProto::kOperandShapesWithLayoutFieldNumber ==
              31);
static_assert(pb::InstructionAttrsProto::kCustomCallHasSideEffectFieldNumber ==
              32);
static_assert(pb::InstructionAttrsProto::kReplicaGroupsFieldNumber == 33);
static_assert(pb::InstructionAttrsProto::kChannelIdFieldNumber == 34);
static_assert(pb::InstructionAttrsProto::kUseGlobalDeviceIdsFieldNumber == 35);
static_assert(pb::InstructionAttrsProto::kConstrainLayoutFieldNumber == 36);
static_assert(pb::InstructionAttrsProto::kInfeedConfigFieldNumber == 37);
static_assert(pb::InstructionAttrsProto::kOutfeedConfigFieldNumber == 38);
static_assert(pb::InstructionAttrsProto::kOutfeedShapeFieldNumber == 39);
static_assert(pb::InstructionAttrsProto::kFusionKindFieldNumber == 40);
static_assert(pb::InstructionAttrsProto::kTriangularSolveOptionsFieldNumber ==
              41);
static_assert(pb::InstructionAttrsProto::kCholeskyLowerFieldNumber == 42);
static_assert(pb::InstructionAttrsProto::kRngDeltaFieldNumber == 50);
static_assert(pb::InstructionAttrsProto::kAsyncExecutionThreadFieldNumber ==
              51);
static_assert(
    pb::InstructionAttrsProto::kCrossProgramPrefetchIndexFieldNumber == 52);
static_assert(pb::InstructionAttrsProto::kOpaqueFieldNumber == 43);
static_assert(pb::InstructionAttrsProto::kRngAlgorithmFieldNumber == 44);
static_assert(pb::InstructionAttrsProto::kFftTypeFieldNumber == 46);
static_assert(pb::InstructionAttrsProto::kFftLengthFieldNumber == 47);
static_assert(pb::InstructionAttrsProto::kKFieldNumber == 48);
static_assert(pb::InstructionAttrsProto::kLargestFieldNumber == 49);
static_assert(pb::InstructionAttrsProto::kLhsRaggedDimensionsFieldNumber == 54);
static_assert(pb::InstructionAttrsProto::kRhsGroupDimensionsFieldNumber == 55);
static_assert(pb::InstructionAttrsProto::kDotSparsityFieldNumber == 63);
static_assert(pb::InstructionAttrsProto::kNumCarriesFieldNumber == 56);
static_assert(pb::InstructionAttrsProto::kIsReverseFieldNumber == 57);
static_assert(pb::InstructionAttrsProto::kShuffleModeFieldNumber == 58);
static_assert(pb::InstructionAttrsProto::kShuffleShiftsFieldNumber == 59);
static_assert(pb::InstructionAttrsProto::kShuffleIndicesFieldNumber == 60);
static_assert(pb::InstructionAttrsProto::kHasDynamicRootFieldNumber == 61);
static_assert(pb::InstructionAttrsProto::kShuffleMultiShiftsFieldNumber == 62);
static_assert(pb::InstructionProto::kIdFieldNumber == 1);
static_assert(pb::InstructionProto::kNameFieldNumber == 2);
static_assert(pb::InstructionProto::kOpcodeFieldNumber == 3);
static_assert(pb::InstructionProto::kShapeFieldNumber == 4);
static_assert(pb::InstructionProto::kOperandIdsFieldNumber == 5);
static_assert(pb::InstructionProto::kCalledComputationIdsFieldNumber == 6);
static_assert(pb::InstructionProto::kControlPredecessorIdsFieldNumber == 7);
static_assert(pb::InstructionProto::kAttrsFieldNumber == 8);
static_assert(pb::ComputationProto::kIdFieldNumber == 1);
static_assert(pb::ComputationProto::kNameFieldNumber == 2);
static_assert(pb::ComputationProto::kInstructionsFieldNumber == 3);
static_assert(pb::ComputationProto::kRootIdFieldNumber == 4);
static_assert(pb::ComputationProto::kParameterIdsFieldNumber == 5);
static_assert(pb::ModuleProto::kFormatVersionFieldNumber == 1);
static_assert(pb::ModuleProto::kNameFieldNumber == 2);
static_assert(pb::ModuleProto::kEntryComputationIdFieldNumber == 3);
static_assert(pb::ModuleProto::kEntryComputationLayoutFieldNumber == 4);
static_assert(pb::ModuleProto::kAttributesFieldNumber == 5);
static_assert(pb::ModuleProto::kComputationsFieldNumber == 6);
static_assert(pb::ELEMENT_TYPE_INVALID == 0);
static_assert(pb::ELEMENT_TYPE_PRED == 1);
static_assert(pb::ELEMENT_TYPE_S8 == 2);
static_assert(pb::ELEMENT_TYPE_S16 == 3);
static_assert(pb::ELEMENT_TYPE_S32 == 4);
static_assert(pb::ELEMENT_TYPE_S64 == 5);
static_assert(pb::ELEMENT_TYPE_U8 == 6);
static_assert(pb::ELEMENT_TYPE_U16 == 7);
static_assert(pb::ELEMENT_TYPE_U32 == 8);
static_assert(pb::ELEMENT_TYPE_U64 == 9);
static_assert(pb::ELEMENT_TYPE_F16 == 10);
static_assert(pb::ELEMENT_TYPE_BF16 == 11);
static_assert(pb::ELEMENT_TYPE_F32 == 12);
static_assert(pb::ELEMENT_TYPE_F64 == 13);
static_assert(pb::ELEMENT_TYPE_C64 == 14);
static_assert(pb::ELEMENT_TYPE_C128 == 15);
static_assert(pb::ELEMENT_TYPE_TUPLE == 64);
static_assert(pb::ELEMENT_TYPE_TOKEN == 65);
static_assert(pb::PADDING_VALUE_ZERO == 0);
static_assert(pb::PADDING_VALUE_LOWEST == 1);
static_assert(pb::PADDING_VALUE_HIGHEST == 2);
static_assert(pb::PADDING_VALUE_UNKNOWN == 3);
static_assert(pb::COMPARISON_DIRECTION_EQ == 0);
static_assert(pb::COMPARISON_DIRECTION_NE == 1);
static_assert(pb::COMPARISON_DIRECTION_GE == 2);
static_assert(pb::COMPARISON_DIRECTION_GT == 3);
static_assert(pb::COMPARISON_DIRECTION_LE == 4);
static_assert(pb::COMPARISON_DIRECTION_LT == 5);
static_assert(pb::COMPARISON_TYPE_DEFAULT == 0);
static_assert(pb::COMPARISON_TYPE_FLOAT == 1);
static_assert(pb::COMPARISON_TYPE_FLOAT_TOTAL_ORDER == 2);
static_assert(pb::COMPARISON_TYPE_SIGNED == 3);
static_assert(pb::COMPARISON_TYPE_UNSIGNED == 4);
static_assert(pb::RANDOM_DISTRIBUTION_UNIFORM == 0);
static_assert(pb::RANDOM_DISTRIBUTION_NORMAL == 1);
static_assert(pb::RANDOM_ALGORITHM_DEFAULT == 0);
static_assert(pb::RANDOM_ALGORITHM_THREE_FRY == 1);
static_assert(pb::RANDOM_ALGORITHM_PHILOX == 2);
static_assert(pb::FUSION_KIND_LOOP == 0);
static_assert(pb::FUSION_KIND_INPUT == 1);
static_assert(pb::FUSION_KIND_OUTPUT == 2);
static_assert(pb::FUSION_KIND_CUSTOM == 3);
static_assert(pb::CUSTOM_CALL_API_VERSION_UNSPECIFIED == 0);
static_assert(pb::CUSTOM_CALL_API_VERSION_ORIGINAL == 1);
static_assert(pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING == 2);
static_assert(pb::CUSTOM_CALL_API_VERSION_STATUS_RETURNING_UNIFIED == 3);
static_assert(pb::CUSTOM_CALL_API_VERSION_TYPED_FFI == 4);
static_assert(pb::TRIANGULAR_SOLVE_NO_TRANSPOSE == 0);
static_assert(pb::TRIANGULAR_SOLVE_TRANSPOSE == 1);
static_assert(pb::TRIANGULAR_SOLVE_ADJOINT == 2);
// ------------------------------------------------------------ hand encoding

// A varint (protobuf base-128, least significant group first).
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
// Field `field` with wire type 0 (varint) or 2 (length-delimited).
std::string VarintField(int field, uint64_t v) {
  return Varint(static_cast<uint64_t>(field) << 3) + Varint(v);
}
std::string LenField(int field, const std::string& payload) {
  return Varint((static_cast<uint64_t>(field) << 3) | 2) +
         Varint(payload.size()) + payload;
}
std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out += static_cast<char>(b);
  return out;
}

// ModuleProto{format_version=1, name="m", entry_computation_id=0,
//   computations=[{name="e", instructions=[{name="p", opcode="parameter",
//   shape=f32[2]}], root_id=0, parameter_ids=[0]}]}, written out byte by
// byte.
const std::string kParameterModule = Bytes({
    0x08, 0x01,       // format_version = 1
    0x12, 0x01, 'm',  // name = "m"
    0x18, 0x00,       // entry_computation_id = 0 (present)
    0x32, 0x1f,       // computations, 31 bytes:
    0x12, 0x01, 'e',  //   name = "e"
    0x1a, 0x15,       //   instructions, 21 bytes:
    0x12, 0x01, 'p',  //     name = "p"
    0x1a, 0x09, 'p',  'a', 'r',  'a',  'm',
    'e',  't',  'e',  'r', 0x22, 0x05,  //     shape, 5 bytes:
    0x08, 0x0c,                         //       element_type = 12 (F32)
    0x12, 0x01, 0x02,                   //       dimensions = [2] (packed)
    0x20, 0x00,                         //   root_id = 0 (present)
    0x2a, 0x01, 0x00,                   //   parameter_ids = [0] (packed)
});

TEST(WireTest, HandEncodedParameterModuleDecodes) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      DeserializeModule(kParameterModule);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "m");
  ASSERT_NE((*m)->entry_computation(), nullptr);
  EXPECT_EQ((*m)->entry_computation()->name(), "e");
  const Instruction* root = (*m)->entry_computation()->root_instruction();
  EXPECT_EQ(root->name(), "p");
  EXPECT_EQ(root->opcode(), HloOpcode::kParameter);
  EXPECT_EQ(root->shape().ToString(), "f32[2]");
  EXPECT_EQ((*m)->entry_computation()->parameter_instruction(0), root);
}

// The same module built with the length helper, plus a constant
// f32[2] {1, 2}: IEEE-754 1.0f is 0x3f800000 and 2.0f 0x40000000, stored
// little-endian.
std::string ConstantModule(const std::string& extra_in_instruction,
                           const std::string& extra_in_module) {
  const std::string shape = VarintField(1, 12) + LenField(2, Varint(2));
  const std::string literal =
      LenField(1, shape) +
      LenField(2, Bytes({0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40}));
  const std::string attrs = LenField(5, literal);
  const std::string inst = LenField(2, "k") + LenField(3, "constant") +
                           LenField(4, shape) + LenField(8, attrs) +
                           extra_in_instruction;
  const std::string comp = VarintField(1, 7) + LenField(2, "e") +
                           LenField(3, VarintField(1, 40) + inst) +
                           VarintField(4, 40);
  return VarintField(1, 1) + LenField(2, "m") + VarintField(3, 7) +
         LenField(6, comp) + extra_in_module;
}

TEST(WireTest, HandEncodedConstantDecodes) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      DeserializeModule(ConstantModule("", ""));
  ASSERT_TRUE(m.ok()) << m.status();
  const Instruction* k = (*m)->entry_computation()->root_instruction();
  EXPECT_EQ(k->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(k->literal().GetAsDouble({0}), 1.0);
  EXPECT_EQ(k->literal().GetAsDouble({1}), 2.0);
  // A literal shape without a layout gets the default one.
  EXPECT_EQ(k->literal().shape().ToString(), "f32[2]{0}");
}

TEST(WireTest, UnknownFieldsAreSkipped) {
  // Field 127 (varint) inside the instruction; field 15 (varint), field 16
  // (length-delimited) and field 300 (fixed32, wire type 5) in the module:
  // what a newer writer's additional fields look like to this reader.
  const std::string fixed32 =
      Varint((300u << 3) | 5) + Bytes({0x01, 0x02, 0x03, 0x04});
  const std::string unknown_module =
      VarintField(15, 42) + LenField(16, "future") + fixed32;
  absl::StatusOr<std::unique_ptr<Module>> plain =
      DeserializeModule(ConstantModule("", ""));
  absl::StatusOr<std::unique_ptr<Module>> extended =
      DeserializeModule(ConstantModule(VarintField(127, 1), unknown_module));
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE(extended.ok()) << extended.status();
  EXPECT_EQ(PrintModule(**plain), PrintModule(**extended));
}

TEST(WireTest, VersionsAreChecked) {
  std::string v2 = kParameterModule;
  v2[1] = 0x02;  // format_version = 2
  absl::StatusOr<std::unique_ptr<Module>> m = DeserializeModule(v2);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);

  EXPECT_NE(m.status().message().find("format version 2 is newer"),
            std::string::npos)
      << m.status();
  // Without the version field: not a plexa-module.
  m = DeserializeModule(kParameterModule.substr(2));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("no format_version"), std::string::npos)
      << m.status();
}

// ------------------------------------------------------------ writer output

pb::ModuleProto Written(const char* text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::string> bytes = SerializeModule(**m);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  pb::ModuleProto p;
  EXPECT_TRUE(p.ParseFromString(*bytes));
  return p;
}

const pb::InstructionProto* Find(const pb::ModuleProto& p,
                                 const std::string& name) {
  for (const auto& c : p.computations()) {
    for (const auto& i : c.instructions()) {
      if (i.name() == name) return &i;
    }
  }
  return nullptr;
}

std::vector<float> Floats(const std::string& data) {
  std::vector<float> out(data.size() / 4);
  std::memcpy(out.data(), data.data(), out.size() * 4);
  return out;
}

TEST(WriterTest, CarriesTheWireValues) {
  const pb::ModuleProto p = Written(R"hlo(
HloModule w
ENTRY %e (a: f32[2,3], b: pred[3]) -> f32[2,3] {
  %a = f32[2,3]{1,0} parameter(0)
  %b = pred[3] parameter(1)
  %colmajor = f32[2,3]{0,1} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %padded = f32[2,3]{0,1:PD(3,5)PV(highest)} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %tail = s16[2,2]{0,1:L(8)} constant({ { 1, 2 }, { 3, 4 } })
  %bools = pred[3] constant({1, 0, 1})
  %t = (f32[], s8[]) constant((0.5, -1))
  ROOT %sum = f32[2,3]{1,0} add(%a, %colmajor)
}
)hlo");
  EXPECT_EQ(p.format_version(), 1u);
  ASSERT_EQ(p.computations_size(), 1);
  const pb::ComputationProto& c = p.computations(0);
  EXPECT_EQ(c.id(), p.entry_computation_id());
  const pb::InstructionProto* sum = Find(p, "sum");
  const pb::InstructionProto* a = Find(p, "a");
  const pb::InstructionProto* colmajor = Find(p, "colmajor");
  ASSERT_TRUE(sum && a && colmajor);
  EXPECT_EQ(sum->opcode(), "add");
  EXPECT_EQ(a->opcode(), "parameter");
  EXPECT_EQ(sum->shape().element_type(), 12);          // PLX_Type_F32
  EXPECT_EQ(Find(p, "b")->shape().element_type(), 1);  // PLX_Type_PRED
  ASSERT_EQ(sum->operand_ids_size(), 2);
  EXPECT_EQ(sum->operand_ids(0), a->id());
  EXPECT_EQ(sum->operand_ids(1), colmajor->id());
  EXPECT_EQ(c.root_id(), sum->id());
  ASSERT_EQ(c.parameter_ids_size(), 2);
  EXPECT_EQ(c.parameter_ids(0), a->id());
  EXPECT_EQ(c.parameter_ids(1), Find(p, "b")->id());
  // {0,1}: dimension 0 is minor, so memory holds column by column.
  EXPECT_EQ(Floats(colmajor->attrs().literal().data()),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(colmajor->attrs().literal().shape().layout().minor_to_major_size(),
            2);
  // Padded to 3 (minor) x 5 (major); padding slots hold +inf.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Floats(Find(p, "padded")->attrs().literal().data()),
            (std::vector<float>{1, 4, inf, 2, 5, inf, 3, 6, inf, inf, inf, inf,
                                inf, inf, inf}));
  // Four s16 elements column by column, then tail padding to 8 slots.
  EXPECT_EQ(Find(p, "tail")->attrs().literal().data(),
            Bytes({1, 0, 3, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Find(p, "bools")->attrs().literal().data(), Bytes({1, 0, 1}));
  // A tuple: its whole shape, one literal per element, no data of its own.
  const pb::LiteralProto& t = Find(p, "t")->attrs().literal();
  EXPECT_EQ(t.shape().element_type(), 64);  // ELEMENT_TYPE_TUPLE
  EXPECT_EQ(t.shape().tuple_shapes_size(), 2);
  EXPECT_TRUE(t.data().empty());
  ASSERT_EQ(t.tuple_elements_size(), 2);
  EXPECT_EQ(Floats(t.tuple_elements(0).data()), (std::vector<float>{0.5f}));
  EXPECT_EQ(t.tuple_elements(1).data(), Bytes({0xff}));
}

TEST(WriterTest, RngAlgorithmIsFieldFortyFour) {
  const pb::ModuleProto p = Written(R"hlo(
HloModule w
ENTRY %e (s: u64[2]) -> (u64[2], u32[4]) {
  %s = u64[2]{0} parameter(0)
  %d = (u64[2]{0}, u32[4]{0}) rng-bit-generator(%s), algorithm=rng_default
  ROOT %r = (u64[2]{0}, u32[4]{0}) rng-bit-generator(%s), algorithm=rng_philox
}
)hlo");
  const pb::InstructionProto* r = Find(p, "r");
  const pb::InstructionProto* d = Find(p, "d");
  ASSERT_TRUE(r && d);
  EXPECT_EQ(r->opcode(), "rng-bit-generator");
  // Field 44, varint: key (44 << 3) | 0 = 352 = 0xe0 0x02; RNG_PHILOX = 2
  // (XLA's numbering). rng_default is 0, the default: nothing is written.
  EXPECT_EQ(r->attrs().SerializeAsString(), Bytes({0xe0, 0x02, 0x02}));
  EXPECT_EQ(d->attrs().SerializeAsString(), "");
}

TEST(WriterTest, OptionalFieldsAreWrittenOnlyWhenNotTheDefault) {
  const pb::ModuleProto p = Written(R"hlo(
HloModule w
%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
ENTRY %e (a: f32[4,4]) -> f32[2,4] {
  %a = f32[4,4] parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[2,4] reduce-window(%a, %z), window={size=2x1 stride=2x1}, to_apply=%add
}
)hlo");
  const pb::WindowProto& w = Find(p, "r")->attrs().window();
  ASSERT_EQ(w.dimensions_size(), 2);
  EXPECT_TRUE(w.dimensions(0).has_size());
  EXPECT_EQ(w.dimensions(0).size(), 2);
  EXPECT_TRUE(w.dimensions(0).has_stride());
  EXPECT_FALSE(w.dimensions(1).has_size());    // 1: the default
  EXPECT_FALSE(w.dimensions(1).has_stride());  // 1: the default
  EXPECT_FALSE(w.dimensions(0).has_window_dilation());
  EXPECT_FALSE(Find(p, "r")->attrs().has_feature_group_count());
  EXPECT_FALSE(Find(p, "r")->attrs().has_channel_id());
  EXPECT_FALSE(Find(p, "a")->attrs().has_literal());
  EXPECT_FALSE(Find(p, "a")->shape().has_layout());  // none was written
}

TEST(WriterTest, EveryElementTypeRoundTrips) {
  for (int t = static_cast<int>(PrimitiveType::PRED);
       t <= static_cast<int>(PrimitiveType::F8E8M0FNU); ++t) {
    const PrimitiveType type = static_cast<PrimitiveType>(t);
    const std::string name(primitive_util::Name(type));
    const std::string text = "HloModule t\nENTRY %e (p: " + name + "[3]) -> " +
                             name + "[3] {\n  ROOT %p = " + name +
                             "[3]{0} parameter(0)\n}\n";
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    absl::StatusOr<std::string> bytes = SerializeModule(**m);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    pb::ModuleProto p;
    ASSERT_TRUE(p.ParseFromString(*bytes));
    // The PLX_Type numbering: PRED=1 ... C128=15, S4=16 ... F8E8M0FNU=28,
    // the core's order.
    EXPECT_EQ(p.computations(0).instructions(0).shape().element_type(), t)
        << name;
    absl::StatusOr<std::unique_ptr<Module>> back = DeserializeModule(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(PrintModule(**back), PrintModule(**m)) << name;
  }
}

TEST(WriterTest, IsDeterministic) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(R"hlo(
HloModule d, is_scheduled=true
ENTRY %e (a: f32[2]) -> f32[2] {
  %a = f32[2] parameter(0)
  ROOT %n = f32[2] negate(%a), metadata={op_name="n"}
}
)hlo");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<std::string> one = SerializeModule(**m);
  absl::StatusOr<std::string> two = SerializeModule(**m);
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_TRUE(*one == *two);
}

}  // namespace
}  // namespace plexa
