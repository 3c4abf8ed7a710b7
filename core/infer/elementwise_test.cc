#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::S;

// ---- Unary ------------------------------------------------------------

TEST(UnaryTest, FloatingOnlyOps) {
  for (HloOpcode op :
       {HloOpcode::kFloor, HloOpcode::kCeil, HloOpcode::kRoundNearestAfz,
        HloOpcode::kRoundNearestEven, HloOpcode::kErf}) {
    EXPECT_SHAPE(InferUnaryOpShape(op, S("f32[2,3]")), "f32[2,3]");
    EXPECT_SHAPE(InferUnaryOpShape(op, S("bf16[4]")), "bf16[4]");
    EXPECT_INVALID(InferUnaryOpShape(op, S("s32[2,3]")), "s32[2,3]",
                   HloOpcodeString(op).data());
    EXPECT_INVALID(InferUnaryOpShape(op, S("c64[2]")), "c64[2]");
  }
}

TEST(UnaryTest, FloatingOrComplexOps) {
  for (HloOpcode op :
       {HloOpcode::kAcos,     HloOpcode::kAcosh, HloOpcode::kAsin,
        HloOpcode::kAsinh,    HloOpcode::kAtan,  HloOpcode::kAtanh,
        HloOpcode::kCosh,     HloOpcode::kSinh,  HloOpcode::kCos,
        HloOpcode::kSin,      HloOpcode::kTan,   HloOpcode::kExp,
        HloOpcode::kExpm1,    HloOpcode::kLog,   HloOpcode::kLog1p,
        HloOpcode::kLogistic, HloOpcode::kRsqrt, HloOpcode::kSqrt,
        HloOpcode::kCbrt,     HloOpcode::kTanh}) {
    EXPECT_SHAPE(InferUnaryOpShape(op, S("f64[3]")), "f64[3]");
    EXPECT_SHAPE(InferUnaryOpShape(op, S("c64[3]")), "c64[3]");
    EXPECT_INVALID(InferUnaryOpShape(op, S("s32[3]")), "s32[3]");
    EXPECT_INVALID(InferUnaryOpShape(op, S("pred[3]")), "pred[3]");
  }
}

TEST(UnaryTest, RealImagAbsGiveComponentType) {
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kReal, S("c64[2,2]")), "f32[2,2]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kImag, S("c128[5]")), "f64[5]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kReal, S("f32[5]")), "f32[5]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kAbs, S("c64[]")), "f32[]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kAbs, S("s32[4]")), "s32[4]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kAbs, S("f16[4]")), "f16[4]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kAbs, S("u32[4]")), "u32[4]",
                 "abs");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kImag, S("s32[4]")), "s32[4]",
                 "imag");
}

TEST(UnaryTest, IntegerAndPredOps) {
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kNot, S("pred[3]")), "pred[3]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kNot, S("u8[3]")), "u8[3]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kNot, S("f32[3]")), "f32[3]",
                 "not");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kPopulationCount, S("s64[2]")),
               "s64[2]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kClz, S("u16[2]")), "u16[2]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kPopulationCount, S("f32[2]")),
                 "f32[2]", "popcnt");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kClz, S("pred[2]")), "pred[2]",
                 "count-leading-zeros");
}

TEST(UnaryTest, NegateSignIsFinite) {
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kNegate, S("u32[2]")), "u32[2]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kNegate, S("c64[2]")), "c64[2]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kNegate, S("pred[2]")), "pred[2]",
                 "negate");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kSign, S("s8[2]")), "s8[2]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kSign, S("f32[2]")), "f32[2]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kSign, S("c128[2]")), "c128[2]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kSign, S("u8[2]")), "u8[2]",
                 "sign");
  // Seed 004: IsFinite returns PRED values of the input's shape.
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kIsFinite, S("f32[2,3]")),
               "pred[2,3]");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kIsFinite, S("s32[2,3]")),
                 "s32[2,3]", "is-finite");
}

TEST(UnaryTest, ScalarOperandAndDynamicDimensions) {
  // Seed 004: the operand may be a scalar (rank 0).
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kTanh, S("f32[]")), "f32[]");
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kExp, S("f32[<=4,3]")),
               "f32[<=4,3]");
}

TEST(UnaryTest, CopyAcceptsTuplesOthersDoNot) {
  EXPECT_SHAPE(InferUnaryOpShape(HloOpcode::kCopy, S("(f32[2], s32[])")),
               "(f32[2], s32[])");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kExp, S("(f32[2], s32[])")),
                 "(f32[2], s32[])", "exponential");
  EXPECT_INVALID(InferUnaryOpShape(HloOpcode::kAdd, S("f32[2]")), "add");
}

TEST(UnaryTest, ResultHasNoLayout) {
  Shape in = S("f32[2,3]");
  in.set_layout(Layout({0, 1}));
  absl::StatusOr<Shape> r = InferUnaryOpShape(HloOpcode::kNegate, in);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_layout());
  EXPECT_EQ(r->ToString(), "f32[2,3]");
}

// ---- Binary, HLO form --------------------------------------------------

TEST(BinaryTest, EqualShapes) {
  EXPECT_SHAPE(
      InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[2,3]")),
      "f32[2,3]");
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kMultiply, S("s32[]"), S("s32[]")),
               "s32[]");
  EXPECT_SHAPE(
      InferBinaryOpShape(HloOpcode::kMaximum, S("f32[<=5]"), S("f32[5]")),
      "f32[<=5]");
  EXPECT_SHAPE(
      InferBinaryOpShape(HloOpcode::kRemainder, S("s32[4]"), S("s32[4]")),
      "s32[4]");
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kPower, S("c64[4]"), S("c64[4]")),
               "c64[4]");
}

TEST(BinaryTest, HloFormRequiresEqualDimensions) {
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kAdd, S("f32[2,3]"), S("f32[3,2]")), "add",
      "f32[2,3]", "f32[3,2]");
  // A scalar with an array is implicit broadcasting: the builder's form
  // only (XLA's HLO verifier rejects it too).
  EXPECT_INVALID(InferBinaryOpShape(HloOpcode::kAdd, S("f32[]"), S("f32[2]")),
                 "f32[]", "f32[2]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kSubtract, S("f32[2,1]"), S("f32[2,3]")),
      "f32[2,1]", "f32[2,3]");
}

TEST(BinaryTest, ElementTypesMustAgree) {
  EXPECT_INVALID(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2]"), S("s32[2]")),
                 "f32[2]", "s32[2]", "add");
  EXPECT_INVALID(InferBinaryOpShape(HloOpcode::kAdd, S("f32[2]"), S("f16[2]")),
                 "f32[2]", "f16[2]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kAdd, S("(f32[2])"), S("f32[2]")),
      "(f32[2])");
}

TEST(BinaryTest, IntegerAndLogicalOps) {
  for (HloOpcode op : {HloOpcode::kShiftLeft, HloOpcode::kShiftRightArithmetic,
                       HloOpcode::kShiftRightLogical}) {
    EXPECT_SHAPE(InferBinaryOpShape(op, S("u32[3]"), S("u32[3]")), "u32[3]");
    EXPECT_INVALID(InferBinaryOpShape(op, S("f32[3]"), S("f32[3]")), "f32[3]",
                   HloOpcodeString(op).data());
    EXPECT_INVALID(InferBinaryOpShape(op, S("pred[3]"), S("pred[3]")),
                   "pred[3]");
  }
  for (HloOpcode op : {HloOpcode::kAnd, HloOpcode::kOr, HloOpcode::kXor}) {
    EXPECT_SHAPE(InferBinaryOpShape(op, S("pred[3]"), S("pred[3]")), "pred[3]");
    EXPECT_SHAPE(InferBinaryOpShape(op, S("s8[3]"), S("s8[3]")), "s8[3]");
    EXPECT_INVALID(InferBinaryOpShape(op, S("f32[3]"), S("f32[3]")), "f32[3]",
                   HloOpcodeString(op).data());
  }
}

TEST(BinaryTest, ArithmeticRejectsPred) {
  for (HloOpcode op : {HloOpcode::kSubtract, HloOpcode::kDivide,
                       HloOpcode::kRemainder, HloOpcode::kPower}) {
    EXPECT_INVALID(InferBinaryOpShape(op, S("pred[2]"), S("pred[2]")),
                   "pred[2]", HloOpcodeString(op).data());
  }
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAdd, S("pred[2]"), S("pred[2]")),
               "pred[2]");
}

TEST(BinaryTest, Atan2NeedsFloatingOrComplex) {
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAtan2, S("f32[2]"), S("f32[2]")),
               "f32[2]");
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kAtan2, S("c64[2]"), S("c64[2]")),
               "c64[2]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kAtan2, S("s32[2]"), S("s32[2]")), "s32[2]",
      "atan2");
}

TEST(BinaryTest, ComplexComposesComponents) {
  EXPECT_SHAPE(
      InferBinaryOpShape(HloOpcode::kComplex, S("f32[2,3]"), S("f32[2,3]")),
      "c64[2,3]");
  EXPECT_SHAPE(InferBinaryOpShape(HloOpcode::kComplex, S("f64[]"), S("f64[]")),
               "c128[]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kComplex, S("bf16[2]"), S("bf16[2]")),
      "bf16[2]", "complex");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kComplex, S("f32[2]"), S("f64[2]")),
      "f32[2]", "f64[2]");
  EXPECT_INVALID(
      InferBinaryOpShape(HloOpcode::kComplex, S("s32[2]"), S("s32[2]")),
      "s32[2]");
}

// ---- Seed 003: broadcasting ------------------------------------------

// Seed 003, scalar broadcasting: |1 2 3;4 5 6| + 7 is a 2x3 matrix.
TEST(BroadcastingTest, ScalarWithArray) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[2,3]"),
                                               S("s32[]"), {}),
               "s32[2,3]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[]"),
                                               S("s32[2,3]"), {}),
               "s32[2,3]");
}

// Seed 003: the (2,3) matrix plus the (3) vector needs broadcast
// dimensions (1); without them the operation is invalid.
TEST(BroadcastingTest, MatrixPlusVector) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[2,3]"),
                                               S("s32[3]"), {1}),
               "s32[2,3]");
  EXPECT_INVALID(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[2,3]"),
                                                 S("s32[3]"), {}),
                 "s32[2,3]", "s32[3]");
}

// Seed 003: a 3-vector and a 3x3 matrix broadcast both ways, (1) and (0).
TEST(BroadcastingTest, SquareMatrixEitherDimension) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[3,3]"),
                                               S("f32[3]"), {1}),
               "f32[3,3]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[3,3]"),
                                               S("f32[3]"), {0}),
               "f32[3,3]");
}

// Seed 003: "broadcast dimension 0 is invalid when adding a 2x3 matrix and
// a 3-element vector".
TEST(BroadcastingTest, Dimension0For2x3WithVector3IsInvalid) {
  EXPECT_INVALID(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[2,3]"),
                                                 S("f32[3]"), {0}),
                 "f32[2,3]", "f32[3]", "add");
}

// Seed 003: the 2x3x4 cuboid and a 3x4 matrix with broadcast tuple (1,2).
TEST(BroadcastingTest, MatrixIntoCuboid) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[2,3,4]"),
                                               S("f32[3,4]"), {1, 2}),
               "f32[2,3,4]");
}

// Seed 003 formal definition with MxNxPxQ = 2x3x4x5: a vector T matches
// any one dimension; a TxV matrix matches (2,3), (1,2), (0,3), ...
TEST(BroadcastingTest, FormalDefinition) {
  const Shape big = S("f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[5]"), {3}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[4]"), {2}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[3]"), {1}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[2]"), {0}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[4,5]"), {2, 3}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[3,4]"), {1, 2}),
               "f32[2,3,4,5]");
  EXPECT_SHAPE(InferBroadcastedDimensions(big, S("f32[2,5]"), {0, 3}),
               "f32[2,3,4,5]");
  // "T must equal the matching dimension of the higher-rank array."
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[5]"), {2}), "f32[5]",
                 "f32[2,3,4,5]");
  // The order must be strictly increasing: matching V to N and T to P is
  // illegal, and so is matching both to one dimension.
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[4,3]"), {2, 1}),
                 "f32[4,3]", "f32[2,3,4,5]", "order");
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[3,3]"), {1, 1}),
                 "f32[3,3]", "order");
  // broadcast_dimensions out of range or of the wrong length.
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[5]"), {4}), "f32[5]",
                 "out of range");
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[5]"), {-1}), "f32[5]");
  EXPECT_INVALID(InferBroadcastedDimensions(big, S("f32[4,5]"), {3}),
                 "f32[4,5]", "f32[2,3,4,5]");
}

// Seed 003 degenerate-dimension examples 1-4 and the outer product.
TEST(BroadcastingTest, DegenerateDimensions) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[2,1]"),
                                               S("f32[2,3]"), {}),
               "f32[2,3]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[1,2,5]"),
                                               S("f32[7,2,5]"), {}),
               "f32[7,2,5]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[7,2,5]"),
                                               S("f32[7,1,5]"), {}),
               "f32[7,2,5]");
  EXPECT_INVALID(InferBinaryOpShapeWithBroadcast(
                     HloOpcode::kAdd, S("f32[7,2,5]"), S("f32[7,2,6]"), {}),
                 "f32[7,2,5]", "f32[7,2,6]", "add");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(
                   HloOpcode::kMultiply, S("f32[2,1]"), S("f32[1,3]"), {}),
               "f32[2,3]");
}

// Seed 003 composition: a 4-vector plus the 1x2 matrix [5 6] with
// broadcast dimensions (0) gives a 4x2 matrix.
TEST(BroadcastingTest, CompositionVectorWithDegenerateMatrix) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[4]"),
                                               S("s32[1,2]"), {0}),
               "s32[4,2]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("s32[1,2]"),
                                               S("s32[4]"), {0}),
               "s32[4,2]");
}

// Seed 003 composition: a 1x2 matrix into a 4x3x1 array with (1,2): first
// 4x1x2, then degenerate broadcasting to 4x3x2.
TEST(BroadcastingTest, CompositionMatrixInto4x3x1) {
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, S("f32[1,2]"),
                                               S("f32[4,3,1]"), {1, 2}),
               "f32[4,3,2]");
  EXPECT_SHAPE(
      InferBroadcastedDimensions(S("f32[4,3,1]"), S("f32[1,2]"), {1, 2}),
      "f32[4,3,2]");
}

TEST(BroadcastingTest, SameRankBroadcastDimensionsMustBeIdentity) {
  EXPECT_SHAPE(InferBroadcastedDimensions(S("f32[2,3]"), S("f32[2,3]"), {0, 1}),
               "f32[2,3]");
  EXPECT_INVALID(
      InferBroadcastedDimensions(S("f32[2,3]"), S("f32[2,3]"), {1, 0}),
      "f32[2,3]", "identity");
}

TEST(BroadcastingTest, DimensionsOnlyUsesLhsElementType) {
  // No element-type rules: the lhs type is used.
  EXPECT_SHAPE(InferBroadcastedDimensions(S("s32[2,1]"), S("f32[1,3]"), {}),
               "s32[2,3]");
}

TEST(BroadcastingTest, TypeRulesStillApply) {
  EXPECT_INVALID(InferBinaryOpShapeWithBroadcast(HloOpcode::kAnd, S("f32[2,3]"),
                                                 S("f32[3]"), {1}),
                 "f32[2,3]", "and");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kComplex,
                                               S("f32[2,3]"), S("f32[3]"), {1}),
               "c64[2,3]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kCompare,
                                               S("f32[2,3]"), S("f32[3]"), {1}),
               "pred[2,3]");
}

// ---- Compare ---------------------------------------------------------

TEST(CompareTest, ResultIsPred) {
  EXPECT_SHAPE(
      InferCompareShape(S("f32[2,3]"), S("f32[2,3]"), ComparisonDirection::kLt,
                        ComparisonType::kDefault),
      "pred[2,3]");
  EXPECT_SHAPE(
      InferCompareShape(S("s32[]"), S("s32[]"), ComparisonDirection::kEq,
                        ComparisonType::kSigned),
      "pred[]");
  EXPECT_SHAPE(
      InferCompareShape(S("u8[4]"), S("u8[4]"), ComparisonDirection::kGe,
                        ComparisonType::kUnsigned),
      "pred[4]");
  EXPECT_SHAPE(
      InferCompareShape(S("pred[4]"), S("pred[4]"), ComparisonDirection::kNe,
                        ComparisonType::kUnsigned),
      "pred[4]");
  EXPECT_SHAPE(
      InferCompareShape(S("f32[4]"), S("f32[4]"), ComparisonDirection::kLt,
                        ComparisonType::kFloatTotalOrder),
      "pred[4]");
  EXPECT_SHAPE(
      InferCompareShape(S("bf16[4]"), S("bf16[4]"), ComparisonDirection::kLt,
                        ComparisonType::kFloat),
      "pred[4]");
  EXPECT_SHAPE(
      InferCompareShape(S("c64[4]"), S("c64[4]"), ComparisonDirection::kEq,
                        ComparisonType::kFloat),
      "pred[4]");
}

TEST(CompareTest, TypeMustSuitElementType) {
  EXPECT_INVALID(
      InferCompareShape(S("s32[4]"), S("s32[4]"), ComparisonDirection::kLt,
                        ComparisonType::kFloatTotalOrder),
      "s32[4]", "TOTALORDER");
  EXPECT_INVALID(
      InferCompareShape(S("u32[4]"), S("u32[4]"), ComparisonDirection::kLt,
                        ComparisonType::kSigned),
      "u32[4]", "SIGNED");
  EXPECT_INVALID(
      InferCompareShape(S("s32[4]"), S("s32[4]"), ComparisonDirection::kLt,
                        ComparisonType::kUnsigned),
      "s32[4]", "UNSIGNED");
  EXPECT_INVALID(
      InferCompareShape(S("f32[4]"), S("f32[4]"), ComparisonDirection::kLt,
                        ComparisonType::kSigned),
      "f32[4]", "SIGNED");
  EXPECT_INVALID(
      InferCompareShape(S("c64[4]"), S("c64[4]"), ComparisonDirection::kEq,
                        ComparisonType::kFloatTotalOrder),
      "c64[4]");
}

TEST(CompareTest, OperandsMustMatch) {
  EXPECT_INVALID(
      InferCompareShape(S("f32[4]"), S("s32[4]"), ComparisonDirection::kEq,
                        ComparisonType::kDefault),
      "f32[4]", "s32[4]", "compare");
  EXPECT_INVALID(
      InferCompareShape(S("f32[4]"), S("f32[]"), ComparisonDirection::kEq,
                        ComparisonType::kDefault),
      "f32[4]", "f32[]");
}

// ---- Clamp and select ------------------------------------------------

// Seed 004: Clamp(operand s32[3], min s32, max s32) = s32[3]; in today's
// operand order clamp(min, operand, max).
TEST(ClampTest, ScalarBoundsFromSeed) {
  EXPECT_SHAPE(InferClampShape(S("s32[]"), S("s32[3]"), S("s32[]")), "s32[3]");
}

TEST(ClampTest, SameShapeOrScalar) {
  EXPECT_SHAPE(InferClampShape(S("f32[2,3]"), S("f32[2,3]"), S("f32[2,3]")),
               "f32[2,3]");
  EXPECT_SHAPE(InferClampShape(S("f32[2,3]"), S("f32[2,3]"), S("f32[]")),
               "f32[2,3]");
  EXPECT_INVALID(InferClampShape(S("f32[3]"), S("f32[2,3]"), S("f32[]")),
                 "f32[3]", "f32[2,3]", "Clamp");
  EXPECT_INVALID(InferClampShape(S("s32[]"), S("f32[2,3]"), S("f32[]")),
                 "s32[]", "f32[2,3]");
}

// Seed 004 select examples: pred[4] with s32[4]s, and a scalar pred.
TEST(SelectTest, SeedExamples) {
  EXPECT_SHAPE(InferSelectShape(S("pred[4]"), S("s32[4]"), S("s32[4]")),
               "s32[4]");
  EXPECT_SHAPE(InferSelectShape(S("pred[]"), S("s32[4]"), S("s32[4]")),
               "s32[4]");
}

TEST(SelectTest, Errors) {
  EXPECT_INVALID(InferSelectShape(S("s32[4]"), S("s32[4]"), S("s32[4]")),
                 "s32[4]", "PRED");
  EXPECT_INVALID(InferSelectShape(S("pred[4]"), S("s32[4]"), S("s32[5]")),
                 "s32[4]", "s32[5]");
  EXPECT_INVALID(InferSelectShape(S("pred[4]"), S("s32[4]"), S("f32[4]")),
                 "s32[4]", "f32[4]");
  EXPECT_INVALID(InferSelectShape(S("pred[2]"), S("s32[4]"), S("s32[4]")),
                 "pred[2]", "s32[4]");
  // Today's XLA has no tuple select.
  EXPECT_INVALID(InferSelectShape(S("pred[]"), S("(s32[4])"), S("(s32[4])")),
                 "(s32[4])");
}

// ---- Conversions -----------------------------------------------------

// Seed 004: convert(s32[3] {0,1,2}, f32) is f32[3].
TEST(ConvertTest, SeedExample) {
  EXPECT_SHAPE(InferConvertShape(S("s32[3]"), PrimitiveType::F32), "f32[3]");
  EXPECT_SHAPE(InferConvertShape(S("f32[<=3]"), PrimitiveType::PRED),
               "pred[<=3]");
}

TEST(ConvertTest, NonArraysRejected) {
  EXPECT_INVALID(InferConvertShape(S("(s32[3])"), PrimitiveType::F32),
                 "(s32[3])", "f32");
  EXPECT_INVALID(InferConvertShape(S("s32[3]"), PrimitiveType::TUPLE), "s32[3]",
                 "tuple");
  EXPECT_INVALID(InferConvertShape(S("token[]"), PrimitiveType::F32),
                 "token[]");
}

TEST(BitcastConvertTest, SameAndDifferentWidths) {
  EXPECT_SHAPE(InferBitcastConvertShape(S("f32[2,3]"), PrimitiveType::S32),
               "s32[2,3]");
  // Narrower: a new minor dimension of the width ratio.
  EXPECT_SHAPE(InferBitcastConvertShape(S("f32[2]"), PrimitiveType::U8),
               "u8[2,4]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("f64[3]"), PrimitiveType::F32),
               "f32[3,2]");
  // Wider: the minor dimension must be the ratio and disappears.
  EXPECT_SHAPE(InferBitcastConvertShape(S("u8[2,4]"), PrimitiveType::F32),
               "f32[2]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("s16[2]"), PrimitiveType::S32),
               "s32[]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("pred[3]"), PrimitiveType::S8),
               "s8[3]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("c64[2]"), PrimitiveType::C128),
               "c128[]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("c128[3]"), PrimitiveType::C64),
               "c64[3,2]");
}

TEST(StochasticConvertTest, XlasRules) {
  EXPECT_SHAPE(InferStochasticConvertShape(S("f32[2,3]"), S("u32[2,3]"),
                                           PrimitiveType::S32),
               "s32[2,3]");
  EXPECT_SHAPE(
      InferStochasticConvertShape(S("f16[4]"), S("u16[4]"), PrimitiveType::S8),
      "s8[4]");
  EXPECT_SHAPE(
      InferStochasticConvertShape(S("bf16[]"), S("u16[]"), PrimitiveType::S16),
      "s16[]");
  EXPECT_SHAPE(
      InferStochasticConvertShape(S("f64[1]"), S("u64[1]"), PrimitiveType::S64),
      "s64[1]");
  EXPECT_INVALID(
      InferStochasticConvertShape(S("f32[2]"), S("s32[2]"), PrimitiveType::S32),
      "must be unsigned integers", "s32[2]");
  EXPECT_INVALID(
      InferStochasticConvertShape(S("s32[2]"), S("u32[2]"), PrimitiveType::S32),
      "only floating point operand", "s32[2]");
  EXPECT_INVALID(
      InferStochasticConvertShape(S("f32[2]"), S("u16[2]"), PrimitiveType::S32),
      "the random is 16 bits and the operand is 32 bits");
  EXPECT_INVALID(
      InferStochasticConvertShape(S("f32[2]"), S("u32[3]"), PrimitiveType::S32),
      "f32[2]", "u32[3]");
  EXPECT_INVALID(InferStochasticConvertShape(S("(f32[2])"), S("u32[2]"),
                                             PrimitiveType::S32),
                 "stochastic convert", "(f32[2])");
}

TEST(BitcastConvertTest, SmallTypes) {
  EXPECT_SHAPE(InferBitcastConvertShape(S("u8[3]"), PrimitiveType::F8E4M3FN),
               "f8e4m3fn[3]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("s4[3]"), PrimitiveType::F4E2M1FN),
               "f4e2m1fn[3]");
  EXPECT_SHAPE(InferBitcastConvertShape(S("f8e5m2[2]"), PrimitiveType::F16),
               "f16[]");
  // A sub-byte type with another width: refused, naming both.
  absl::StatusOr<Shape> r =
      InferBitcastConvertShape(S("u8[3]"), PrimitiveType::S4);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("bit widths 8 and 4"),
            absl::string_view::npos)
      << r.status();
}

TEST(BitcastConvertTest, Errors) {
  EXPECT_INVALID(InferBitcastConvertShape(S("u8[2,3]"), PrimitiveType::F32),
                 "u8[2,3]", "f32");
  EXPECT_INVALID(InferBitcastConvertShape(S("u8[]"), PrimitiveType::F32),
                 "u8[]");
  EXPECT_INVALID(InferBitcastConvertShape(S("f64[2]"), PrimitiveType::C64),
                 "f64[2]", "c64");
  EXPECT_INVALID(InferBitcastConvertShape(S("(f32[2])"), PrimitiveType::S32),
                 "(f32[2])");
}

TEST(ReducePrecisionTest, Rules) {
  EXPECT_SHAPE(InferReducePrecisionShape(S("f32[2,3]"), 5, 10), "f32[2,3]");
  EXPECT_SHAPE(InferReducePrecisionShape(S("f64[]"), 1, 0), "f64[]");
  EXPECT_INVALID(InferReducePrecisionShape(S("f32[2]"), 0, 10), "f32[2]",
                 "exponent_bits");
  EXPECT_INVALID(InferReducePrecisionShape(S("f32[2]"), 5, -1), "f32[2]",
                 "mantissa_bits");
  EXPECT_INVALID(InferReducePrecisionShape(S("s32[2]"), 5, 10), "s32[2]",
                 "reduce-precision");
}

// ---- Map -------------------------------------------------------------

TEST(MapTest, Valid) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("s32[2,3]");
  EXPECT_SHAPE(
      InferMapShape({&a, &b}, PS({"f32[]", "s32[]"}, "pred[]"), {0, 1}),
      "pred[2,3]");
  const Shape c = S("f32[]");
  EXPECT_SHAPE(InferMapShape({&c}, PS({"f32[]"}, "f32[]"), {}), "f32[]");
}

TEST(MapTest, Errors) {
  const Shape a = S("f32[2,3]");
  const Shape b = S("f32[3,2]");
  EXPECT_INVALID(
      InferMapShape({&a, &b}, PS({"f32[]", "f32[]"}, "f32[]"), {0, 1}),
      "f32[2,3]", "f32[3,2]");
  EXPECT_INVALID(InferMapShape({&a}, PS({"f32[]", "f32[]"}, "f32[]"), {0, 1}),
                 "f32[2,3]", "arity");
  EXPECT_INVALID(InferMapShape({&a}, PS({"f32[2]"}, "f32[]"), {0, 1}),
                 "scalar");
  EXPECT_INVALID(InferMapShape({&a}, PS({"f32[]"}, "f32[2]"), {0, 1}),
                 "scalar");
  EXPECT_INVALID(InferMapShape({&a}, PS({"s32[]"}, "f32[]"), {0, 1}), "s32[]",
                 "f32[2,3]");
  EXPECT_INVALID(InferMapShape({&a}, PS({"f32[]"}, "f32[]"), {1, 0}),
                 "f32[2,3]");
  EXPECT_INVALID(InferMapShape({&a}, PS({"f32[]"}, "f32[]"), {0}), "f32[2,3]");
  EXPECT_INVALID(InferMapShape({}, PS({}, "f32[]"), {}), "Map");
}

}  // namespace
}  // namespace plexa::shape_inference
