// Shape inference of the opcodes XLA added in 2025-26: scan, shuffle,
// mulhi, scaled-dot, ragged-all-to-all and collective-reduce. Shapes from
// XLA's own test modules (scan_expander_test, shuffle_expander_test,
// block_scaling_rewriter_test, hlo_parser_test), results by hand from the
// rules of XLA's verifier; each check's error.
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "core/literal/literal.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::S;

constexpr PrimitiveType kNone = PrimitiveType::PRIMITIVE_TYPE_INVALID;

TEST(ScanShapeTest, OutputsStackedThenCarries) {
  // XLA's scan_expander_test: cumsum over f32[4] with one carry.
  const Shape in = S("f32[4]");
  const Shape init = S("f32[]");
  const ProgramShape add = PS({"f32[]", "f32[]"}, "(f32[], f32[])");
  const Shape tuple = S("(f32[4], f32[])");
  EXPECT_SHAPE(InferScanShape({&in, &init}, {0}, 1, add, &tuple),
               "(f32[4], f32[])");
  // Four inputs, three carries of other types, outputs of other types.
  const Shape in0 = S("s8[8]"), in1 = S("s16[8,2]"), in2 = S("s32[8]"),
              in3 = S("s64[8,3,4]");
  const Shape c0 = S("u16[]"), c1 = S("u32[5]"), c2 = S("u64[]");
  const ProgramShape body =
      PS({"s8[]", "s16[2]", "s32[]", "s64[3,4]", "u16[]", "u32[5]", "u64[]"},
         "(f32[6], f64[], u16[], u32[5], u64[])");
  EXPECT_SHAPE(InferScanShape({&in0, &in1, &in2, &in3, &c0, &c1, &c2}, {0}, 3,
                              body, nullptr),
               "(f32[8,6], f64[8], u16[], u32[5], u64[])");
  // Left out, num_carries is the one count the shapes allow (XLA's test
  // writes this module without it).
  EXPECT_SHAPE(InferScanShape({&in0, &in1, &in2, &in3, &c0, &c1, &c2}, {0},
                              std::nullopt, body, nullptr),
               "(f32[8,6], f64[8], u16[], u32[5], u64[])");
  // Scan dimension 1 of a matrix: the output gets it back at 1.
  const Shape m = S("f32[3,5]");
  const Shape row = S("f32[3]");
  const ProgramShape col = PS({"f32[3]", "f32[3]"}, "(f32[3], f32[3])");
  EXPECT_SHAPE(InferScanShape({&m, &row}, {1}, 1, col, nullptr),
               "(f32[3,5], f32[3])");
}

TEST(ScanShapeTest, OneElementIsBareUnlessWrittenAsATuple) {
  const Shape in = S("f32[4]");
  const Shape init = S("f32[]");
  const ProgramShape sum = PS({"f32[]", "f32[]"}, "f32[]");
  const Shape bare = S("f32[]");
  const Shape tuple = S("(f32[])");
  EXPECT_SHAPE(InferScanShape({&in, &init}, {0}, 1, sum, &bare), "f32[]");
  EXPECT_SHAPE(InferScanShape({&in, &init}, {0}, 1, sum, &tuple), "(f32[])");
  // No carry, one output: the stacked array.
  const ProgramShape twice = PS({"f32[]"}, "f32[]");
  EXPECT_SHAPE(InferScanShape({&in}, {0}, 0, twice, nullptr), "f32[4]");
}

TEST(ScanShapeTest, XlaVerifierErrors) {
  const Shape in = S("f32[4]");
  const Shape init = S("f32[]");
  EXPECT_INVALID(InferScanShape({&in, &init}, {0}, 1,
                                PS({"f32[]"}, "(f32[], f32[])"), nullptr),
                 "must take 2 parameters");
  EXPECT_INVALID(
      InferScanShape({&in, &init}, {1}, 1,
                     PS({"f32[]", "f32[]"}, "(f32[], f32[])"), nullptr),
      "scan dimension 1 is out of bounds");
  EXPECT_INVALID(
      InferScanShape({&in, &init}, {0}, 1,
                     PS({"s32[]", "f32[]"}, "(f32[], f32[])"), nullptr),
      "parameter 0", "input element shape f32[]");
  EXPECT_INVALID(
      InferScanShape({&in, &init}, {0}, 1,
                     PS({"f32[]", "f32[]"}, "(f32[], s32[])"), nullptr),
      "result element 1", "(the carry)");
  const Shape other = S("f32[5]");
  EXPECT_INVALID(
      InferScanShape({&in, &other, &init}, {0}, 1,
                     PS({"f32[]", "f32[]", "f32[]"}, "(f32[], f32[])"),
                     nullptr),
      "inputs differ in the length of dimension 0");
  EXPECT_INVALID(
      InferScanShape({&in, &init}, {0, 1}, 1,
                     PS({"f32[]", "f32[]"}, "(f32[], f32[])"), nullptr),
      "exactly one entry in dimensions");
  // Left out and no count fits: the likeliest count's error. (Two counts
  // cannot both fit: the operand between inputs and inits would need a
  // parameter of its shape with and without the scan dimension.)
  EXPECT_INVALID(
      InferScanShape({&in, &init}, {0}, std::nullopt,
                     PS({"f32[]", "s32[]"}, "(f32[], f32[])"), nullptr),
      "does not match init 0 f32[]");
}

InstructionAttrs Shuffle(std::vector<int64_t> dims, ShuffleMode mode) {
  InstructionAttrs a;
  a.dimensions = std::move(dims);
  a.shuffle_mode = mode;
  return a;
}

std::shared_ptr<const Literal> S32(const char* shape,
                                   std::vector<int32_t> values) {
  Literal l(S(shape));
  std::memcpy(l.mutable_data().data(), values.data(), values.size() * 4);
  return std::make_shared<const Literal>(std::move(l));
}

TEST(ShuffleShapeTest, ModesAndTheirChecks) {
  const Shape x = S("f32[3,2]");
  InstructionAttrs rotate = Shuffle({0, 1}, ShuffleMode::kRotate);
  rotate.shuffle_shifts = {1, -5};
  EXPECT_SHAPE(InferShuffleShape(x, rotate), "f32[3,2]");
  rotate.shuffle_shifts = {1};
  EXPECT_INVALID(InferShuffleShape(x, rotate), "one shift per dimension");
  // XLA's shuffle_expander_test: indices s32[3,1] (dimension 1 shared, the
  // coordinate dimension left out for one shuffled dimension).
  InstructionAttrs permute = Shuffle({0}, ShuffleMode::kPermute);
  permute.shuffle_indices = S32("s32[3,1]", {2, 0, 1});
  EXPECT_SHAPE(InferShuffleShape(x, permute), "f32[3,2]");
  permute.shuffle_indices = S32("s32[3,1]", {2, 3, 1});
  EXPECT_INVALID(InferShuffleShape(x, permute), "index 3",
                 "out of range for dimension 0 of size 3");
  permute.shuffle_indices = S32("s32[2,1]", {0, 1});
  EXPECT_INVALID(InferShuffleShape(x, permute), "dimension 0 is 2");
  InstructionAttrs both = Shuffle({0, 1}, ShuffleMode::kPermute);
  both.shuffle_indices = S32("s32[3,2,1]", {0, 0, 0, 0, 0, 0});
  EXPECT_INVALID(InferShuffleShape(x, both), "one coordinate per shuffled");
  InstructionAttrs twice = Shuffle({0, 0}, ShuffleMode::kRotate);
  twice.shuffle_shifts = {1, 1};
  EXPECT_INVALID(InferShuffleShape(x, twice), "listed twice");
  InstructionAttrs mixed = Shuffle({0}, ShuffleMode::kRotate);
  mixed.shuffle_shifts = {1};
  mixed.shuffle_indices = S32("s32[3]", {0, 1, 2});
  EXPECT_INVALID(InferShuffleShape(x, mixed), "mode=rotate takes shifts");
  InstructionAttrs multi = Shuffle({0}, ShuffleMode::kMultiRotate);
  multi.shuffle_multi_shifts = S32("s32[1,2]", {1, 2});
  EXPECT_SHAPE(InferShuffleShape(x, multi), "f32[3,2]");
  multi.shuffle_multi_shifts = S32("s32[3,2]", {0, 0, 0, 0, 0, 0});
  EXPECT_INVALID(InferShuffleShape(x, multi), "size 1 in the rotated");
}

TEST(MulhiShapeTest, IntegersOnly) {
  EXPECT_SHAPE(
      InferBinaryOpShape(HloOpcode::kMulhi, S("s32[64,32]"), S("s32[64,32]")),
      "s32[64,32]");
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kMulhi, S("u8[3]"), S("u8[3]")),
               "u8[3]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kMulhi, S("f32[3]"), S("f32[3]")),
      "integral", "mulhi");
}

DotDimensionNumbers Contracting(int64_t lhs, int64_t rhs) {
  DotDimensionNumbers d;
  d.lhs_contracting_dimensions = {lhs};
  d.rhs_contracting_dimensions = {rhs};
  return d;
}

TEST(ScaledDotShapeTest, DotResultAfterXlaScaleChecks) {
  // XLA's block_scaling_rewriter_test: MX f8 with e8m0 scales, block 32.
  EXPECT_SHAPE(
      InferScaledDotShape(S("f8e4m3fn[128,256]"), S("f8e4m3fn[128,256]"),
                          S("f8e8m0fnu[128,8]"), S("f8e8m0fnu[128,8]"),
                          Contracting(1, 1), PrimitiveType::F16),
      "f16[128,128]");
  EXPECT_SHAPE(InferScaledDotShape(S("f8e4m3fn[128,64]"), S("f8e4m3fn[64,128]"),
                                   S("f8e8m0fnu[128,2]"), S("f8e8m0fnu[2,128]"),
                                   Contracting(1, 0), PrimitiveType::F32),
               "f32[128,128]");
  // A no-op bf16 scale (XLA's IsNoOpScale), even a scalar one.
  EXPECT_SHAPE(InferScaledDotShape(S("bf16[4,4]"), S("bf16[4,4]"), S("bf16[]"),
                                   S("bf16[1,1]"), Contracting(1, 1), kNone),
               "bf16[4,4]");
  EXPECT_INVALID(
      InferScaledDotShape(S("f32[4,6]"), S("f32[4,6]"), S("f32[4,4]"),
                          S("f32[4,2]"), Contracting(1, 1), kNone),
      "dimension 1 of the lhs operand", "multiple");
  EXPECT_INVALID(InferScaledDotShape(S("f32[4,6]"), S("f32[4,6]"), S("f32[4]"),
                                     S("f32[4,2]"), Contracting(1, 1), kNone),
                 "the lhs scale f32[4] has 1 dimension(s)");
  EXPECT_INVALID(InferScaledDotShape(S("f32[4,6]"), S("f32[4,6]"), S("f32[]"),
                                     S("f32[]"), Contracting(1, 1), kNone),
                 "the lhs scale f32[] has 0 dimension(s)");
  EXPECT_INVALID(
      InferScaledDotShape(S("bf16[4,6]"), S("bf16[4,6]"), S("bf16[]"),
                          S("bf16[]"), Contracting(1, 1), kNone),
      "at least one of the scales");
}

TEST(MixedPrecisionDotTest, OperandTypesMayDifferAsInXla) {
  // XLA's InferDotOpShape no longer compares the operand types; the result
  // is the preferred type, else the higher-precision operand type.
  EXPECT_SHAPE(InferDotShape(S("bf16[2,3]"), S("s8[3,2]"), Contracting(1, 0),
                             PrimitiveType::F32),
               "f32[2,2]");
  EXPECT_SHAPE(
      InferDotShape(S("bf16[2,3]"), S("s8[3,2]"), Contracting(1, 0), kNone),
      "bf16[2,2]");
  EXPECT_SHAPE(
      InferDotShape(S("f16[2,3]"), S("bf16[3,2]"), Contracting(1, 0), kNone),
      "bf16[2,2]");
  EXPECT_SHAPE(
      InferDotShape(S("s8[2,3]"), S("s32[3,2]"), Contracting(1, 0), kNone),
      "s32[2,2]");
  // The preferred type still may not narrow an integer operand.
  EXPECT_INVALID(InferDotShape(S("s8[2,3]"), S("s32[3,2]"), Contracting(1, 0),
                               PrimitiveType::S16),
                 "must not be narrower");
}

TEST(RaggedAllToAllShapeTest, TheOutputOperandsShape) {
  // XLA's hlo_parser_test module.
  const Shape data = S("bf16[1024,256]");
  const Shape offsets = S("s32[8]");
  EXPECT_SHAPE(InferRaggedAllToAllShape(
                   {&data, &data, &offsets, &offsets, &offsets, &offsets},
                   {{0, 1, 2, 3, 4, 5, 6, 7}}),
               "bf16[1024,256]");
  const Shape s64 = S("s64[8]");
  EXPECT_INVALID(InferRaggedAllToAllShape(
                     {&data, &data, &offsets, &offsets, &s64, &offsets}, {}),
                 "output_offsets is s64[8]", "one shape");
  const Shape r3 = S("s32[2,2,2]");
  EXPECT_INVALID(
      InferRaggedAllToAllShape({&data, &data, &r3, &r3, &r3, &r3}, {}),
      "rank 1 or 2");
  EXPECT_INVALID(InferRaggedAllToAllShape(
                     {&data, &data, &offsets, &offsets, &offsets, &offsets},
                     {{0, 1}, {2}}),
                 "one size");
}

TEST(AllReduceShapeTest, WholeArrayReducers) {
  // XLA's GPU tests reduce with (s32[4], s32[4]) -> s32[4]: accepted when
  // it is the operand's shape; another shape is still refused.
  const Shape x = S("s32[4]");
  EXPECT_SHAPE(InferAllReduceShape({&x}, PS({"s32[4]", "s32[4]"}, "s32[4]")),
               "s32[4]");
  const Shape y = S("s32[5]");
  EXPECT_INVALID(InferAllReduceShape({&y}, PS({"s32[4]", "s32[4]"}, "s32[4]")),
                 "the reduction computation must be");
}

TEST(CollectiveReduceShapeTest, DataOperandsAndRoots) {
  const Shape x = S("f32[8]");
  const Shape y = S("s32[2,2]");
  const ProgramShape add = PS({"f32[]", "f32[]"}, "f32[]");
  EXPECT_SHAPE(InferCollectiveReduceShape({&x}, {{0, 1}, {2, 3}}, false, add),
               "f32[8]");
  const Shape root = S("s32[1]");
  EXPECT_SHAPE(InferCollectiveReduceShape({&x, &root}, {{0, 1}}, true, add),
               "f32[8]");
  const Shape roots2 = S("s32[2]");
  EXPECT_INVALID(InferCollectiveReduceShape({&x, &roots2}, {}, true, add),
                 "must be s32[1]");
  EXPECT_INVALID(InferCollectiveReduceShape({&x}, {}, true, add),
                 "has_dynamic_root=true needs");
  EXPECT_INVALID(InferCollectiveReduceShape({&y}, {}, false, add),
                 "collective-reduce: ");
}

}  // namespace
}  // namespace plexa::shape_inference
