// InferShape (generic dispatch) and InferInstructionShape.
#include <memory>

#include "core/infer/infer_test_util.h"
#include "core/infer/shape_inference.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "gtest/gtest.h"

namespace plexa::shape_inference {
namespace {

using testing_util::PS;
using testing_util::Reducer;
using testing_util::S;

absl::StatusOr<Shape> Infer(HloOpcode op,
                            std::initializer_list<const Shape*> operands,
                            const InstructionAttrs& attrs = {},
                            std::initializer_list<ProgramShape> called = {},
                            const Shape* declared = nullptr) {
  std::vector<const Shape*> ops(operands);
  std::vector<ProgramShape> calls(called);
  return InferShape(op, ops, attrs, calls, declared);
}

TEST(DispatchTest, OperandCountsFromOpcodeTable) {
  const Shape a = S("f32[2]");
  EXPECT_INVALID(Infer(HloOpcode::kAdd, {&a}), "add", "2 operand(s)", "f32[2]");
  EXPECT_INVALID(Infer(HloOpcode::kNegate, {&a, &a}), "negate", "1 operand(s)");
  EXPECT_INVALID(Infer(HloOpcode::kClamp, {&a, &a}), "clamp", "3 operand(s)");
  EXPECT_INVALID(Infer(HloOpcode::kDynamicUpdateSlice, {&a}),
                 "dynamic-update-slice", "at least 2");
}

TEST(DispatchTest, ElementwiseOps) {
  const Shape a = S("f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kAdd, {&a, &a}), "f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kExp, {&a}), "f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kCopy, {&a}), "f32[2,3]");
  // HLO binary ops need equal shapes: a scalar and an array are rejected
  // here even though the builder's broadcasting form accepts them.
  const Shape s = S("f32[]");
  EXPECT_INVALID(Infer(HloOpcode::kAdd, {&s, &a}), "add", "f32[]", "f32[2,3]");
  EXPECT_SHAPE(InferBinaryOpShapeWithBroadcast(HloOpcode::kAdd, s, a, {}),
               "f32[2,3]");
  InstructionAttrs cmp;
  cmp.comparison_direction = ComparisonDirection::kLt;
  cmp.comparison_type = ComparisonType::kFloatTotalOrder;
  EXPECT_SHAPE(Infer(HloOpcode::kCompare, {&a, &a}, cmp), "pred[2,3]");
  cmp.comparison_type = ComparisonType::kSigned;
  EXPECT_INVALID(Infer(HloOpcode::kCompare, {&a, &a}, cmp), "SIGNED",
                 "f32[2,3]");
  const Shape p = S("pred[]");
  EXPECT_SHAPE(Infer(HloOpcode::kSelect, {&p, &a, &a}), "f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kClamp, {&s, &a, &s}), "f32[2,3]");
  InstructionAttrs rp;
  rp.exponent_bits = 5;
  rp.mantissa_bits = 10;
  EXPECT_SHAPE(Infer(HloOpcode::kReducePrecision, {&a}, rp), "f32[2,3]");
}

TEST(DispatchTest, OpsThatTakeTheDeclaredShape) {
  const Shape declared = S("f32[2,3]");
  InstructionAttrs param;
  param.parameter_number = 0;
  EXPECT_SHAPE(Infer(HloOpcode::kParameter, {}, param, {}, &declared),
               "f32[2,3]");
  EXPECT_INVALID(Infer(HloOpcode::kParameter, {}, param), "parameter",
                 "must be given");
  const Shape bad = S("f32[-1]");
  EXPECT_INVALID(Infer(HloOpcode::kParameter, {}, param, {}, &bad), "negative");

  InstructionAttrs iota;
  iota.iota_dimension = 1;
  EXPECT_SHAPE(Infer(HloOpcode::kIota, {}, iota, {}, &declared), "f32[2,3]");

  const Shape lo = S("f32[]");
  InstructionAttrs rng;
  rng.distribution = RandomDistribution::kNormal;
  EXPECT_SHAPE(Infer(HloOpcode::kRng, {&lo, &lo}, rng, {}, &declared),
               "f32[2,3]");

  const Shape cc_out = S("(f32[3,3], s32[])");
  InstructionAttrs cc;
  cc.custom_call_target = "myfunc";
  const Shape x = S("f32[2]");
  const Shape y = S("f32[2,3]");
  // Seed 004: CustomCall("myfunc", {x, y}, f32[3x3]).
  const Shape f33 = S("f32[3,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kCustomCall, {&x, &y}, cc, {}, &f33),
               "f32[3,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kCustomCall, {}, cc, {}, &cc_out),
               "(f32[3,3], s32[])");
  cc.has_layout_constraints = true;
  cc.operand_shapes_with_layout = {S("f32[2]"), S("f32[3,2]")};
  EXPECT_INVALID(Infer(HloOpcode::kCustomCall, {&x, &y}, cc, {}, &f33),
                 "custom-call", "f32[2,3]", "f32[3,2]");
}

TEST(DispatchTest, Constant) {
  InstructionAttrs attrs;
  attrs.literal = std::make_shared<Literal>(S("f32[2,3]"));
  Shape declared = S("f32[2,3]");
  declared.set_layout(Layout({0, 1}));
  EXPECT_SHAPE(Infer(HloOpcode::kConstant, {}, attrs, {}, &declared),
               "f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kConstant, {}, attrs), "f32[2,3]");
  const Shape wrong = S("f32[3,2]");
  EXPECT_INVALID(Infer(HloOpcode::kConstant, {}, attrs, {}, &wrong), "constant",
                 "f32[2,3]", "f32[3,2]");
  EXPECT_INVALID(
      Infer(HloOpcode::kConstant, {}, InstructionAttrs{}, {}, &wrong),
      "literal");
}

TEST(DispatchTest, ReshapeBroadcastBitcastConvert) {
  const Shape in = S("f32[2,3]");
  const Shape r = S("f32[3,2]");
  EXPECT_SHAPE(Infer(HloOpcode::kReshape, {&in}, {}, {}, &r), "f32[3,2]");
  const Shape r_bad = S("f32[4]");
  EXPECT_INVALID(Infer(HloOpcode::kReshape, {&in}, {}, {}, &r_bad), "f32[2,3]",
                 "f32[4]");
  // A dynamic operand dimension goes where the declared shape says.
  const Shape dyn = S("f32[<=4,3]");
  const Shape flat = S("f32[<=12]");
  EXPECT_SHAPE(Infer(HloOpcode::kReshape, {&dyn}, {}, {}, &flat), "f32[<=12]");
  // A static operand cannot produce a dynamic result.
  const Shape static43 = S("f32[4,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kReshape, {&static43}, {}, {}, &flat),
               "f32[12]");

  const Shape v = S("f32[3]");
  InstructionAttrs b;
  b.dimensions = {1};
  EXPECT_SHAPE(Infer(HloOpcode::kBroadcast, {&v}, b, {}, &in), "f32[2,3]");
  b.dimensions = {0};
  EXPECT_INVALID(Infer(HloOpcode::kBroadcast, {&v}, b, {}, &in), "f32[3]",
                 "f32[2,3]");

  const Shape s6 = S("s32[6]");
  EXPECT_SHAPE(Infer(HloOpcode::kBitcast, {&in}, {}, {}, &s6), "s32[6]");
  const Shape f5 = S("f32[5]");
  EXPECT_INVALID(Infer(HloOpcode::kBitcast, {&in}, {}, {}, &f5), "bitcast",
                 "f32[2,3]", "f32[5]");

  const Shape s23 = S("s32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kConvert, {&in}, {}, {}, &s23), "s32[2,3]");
  const Shape u8 = S("u8[2,3,4]");
  EXPECT_SHAPE(Infer(HloOpcode::kBitcastConvert, {&in}, {}, {}, &u8),
               "u8[2,3,4]");
  EXPECT_INVALID(Infer(HloOpcode::kConvert, {&in}), "convert", "must be given");
}

TEST(DispatchTest, FixedResultOps) {
  EXPECT_SHAPE(Infer(HloOpcode::kPartitionId, {}), "u32[]");
  EXPECT_SHAPE(Infer(HloOpcode::kReplicaId, {}), "u32[]");
  const Shape t = S("(f32[2], token[])");
  EXPECT_SHAPE(Infer(HloOpcode::kOptimizationBarrier, {&t}),
               "(f32[2], token[])");
  const Shape tok = S("token[]");
  EXPECT_SHAPE(Infer(HloOpcode::kAfterAll, {&tok, &tok}), "token[]");
  const Shape feed = S("(f32[2], token[])");
  EXPECT_SHAPE(Infer(HloOpcode::kInfeed, {&tok}, {}, {}, &feed),
               "(f32[2], token[])");
  const Shape data = S("f32[2]");
  InstructionAttrs out;
  EXPECT_SHAPE(Infer(HloOpcode::kOutfeed, {&data, &tok}, out), "token[]");
  out.outfeed_shape = S("f32[3]");
  EXPECT_INVALID(Infer(HloOpcode::kOutfeed, {&data, &tok}, out), "outfeed",
                 "f32[3]", "f32[2]");
}

TEST(DispatchTest, CalledComputations) {
  const Shape a = S("f32[2,3]");
  EXPECT_INVALID(Infer(HloOpcode::kAdd, {&a, &a}, {}, {Reducer("f32[]")}),
                 "add", "does not call");
  EXPECT_INVALID(Infer(HloOpcode::kCall, {&a}), "call", "to_apply");
  EXPECT_SHAPE(Infer(HloOpcode::kCall, {&a}, {}, {PS({"f32[2,3]"}, "s32[]")}),
               "s32[]");
  const Shape init = S("f32[]");
  InstructionAttrs reduce;
  reduce.dimensions = {1};
  EXPECT_SHAPE(
      Infer(HloOpcode::kReduce, {&a, &init}, reduce, {Reducer("f32[]")}),
      "f32[2]");
  EXPECT_INVALID(
      Infer(HloOpcode::kWhile, {&a}, {}, {PS({"f32[2,3]"}, "pred[]")}), "while",
      "condition, body");
  EXPECT_SHAPE(
      Infer(HloOpcode::kWhile, {&a}, {},
            {PS({"f32[2,3]"}, "pred[]"), PS({"f32[2,3]"}, "f32[2,3]")}),
      "f32[2,3]");
  const Shape p = S("pred[]");
  EXPECT_SHAPE(Infer(HloOpcode::kConditional, {&p, &a, &init}, {},
                     {PS({"f32[2,3]"}, "s32[]"), PS({"f32[]"}, "s32[]")}),
               "s32[]");
  // Map written without dimensions covers all of them.
  EXPECT_SHAPE(Infer(HloOpcode::kMap, {&a, &a}, {}, {Reducer("f32[]")}),
               "f32[2,3]");
  InstructionAttrs sort;
  sort.dimensions = {1};
  EXPECT_SHAPE(
      Infer(HloOpcode::kSort, {&a}, sort, {PS({"f32[]", "f32[]"}, "pred[]")}),
      "f32[2,3]");
  sort.dimensions = {};
  EXPECT_INVALID(
      Infer(HloOpcode::kSort, {&a}, sort, {PS({"f32[]", "f32[]"}, "pred[]")}),
      "sort", "dimensions");
  EXPECT_SHAPE(Infer(HloOpcode::kAllReduce, {&a}, {}, {Reducer("f32[]")}),
               "f32[2,3]");
  // Reduce-window with no window attribute fails for a rank-2 operand.
  EXPECT_INVALID(
      Infer(HloOpcode::kReduceWindow, {&a, &init}, {}, {Reducer("f32[]")}),
      "f32[2,3]", "rank");
}

TEST(DispatchTest, Fusion) {
  const Shape a = S("f32[2]");
  const Shape out = S("f32[2]");
  EXPECT_SHAPE(Infer(HloOpcode::kFusion, {&a, &a}, {},
                     {PS({"f32[2]", "f32[2]"}, "f32[2]")}, &out),
               "f32[2]");
  EXPECT_INVALID(Infer(HloOpcode::kFusion, {&a}, {},
                       {PS({"f32[2]", "f32[2]"}, "f32[2]")}, &out),
                 "fusion", "2 parameters");
  EXPECT_INVALID(Infer(HloOpcode::kFusion, {&a, &a}, {},
                       {PS({"f32[2]", "s32[2]"}, "f32[2]")}, &out),
                 "fusion", "s32[2]");
  const Shape other = S("f32[3]");
  EXPECT_INVALID(Infer(HloOpcode::kFusion, {&a, &a}, {},
                       {PS({"f32[2]", "f32[2]"}, "f32[2]")}, &other),
                 "fusion", "f32[3]");
}

TEST(DispatchTest, AttributeDrivenOps) {
  const Shape a = S("f32[2,3]");
  InstructionAttrs concat;
  concat.dimensions = {1};
  EXPECT_SHAPE(Infer(HloOpcode::kConcatenate, {&a, &a}, concat), "f32[2,6]");
  concat.dimensions = {0, 1};
  EXPECT_INVALID(Infer(HloOpcode::kConcatenate, {&a, &a}, concat),
                 "concatenate", "dimensions");

  InstructionAttrs tr;
  tr.dimensions = {1, 0};
  EXPECT_SHAPE(Infer(HloOpcode::kTranspose, {&a}, tr), "f32[3,2]");

  InstructionAttrs sl;
  sl.slice = {{0, 2, 1}, {1, 3, 1}};
  EXPECT_SHAPE(Infer(HloOpcode::kSlice, {&a}, sl), "f32[2,2]");

  const Shape i = S("s32[]");
  InstructionAttrs ds;
  ds.dynamic_slice_sizes = {1, 2};
  EXPECT_SHAPE(Infer(HloOpcode::kDynamicSlice, {&a, &i, &i}, ds), "f32[1,2]");
  const Shape u = S("f32[1,2]");
  EXPECT_SHAPE(Infer(HloOpcode::kDynamicUpdateSlice, {&a, &u, &i, &i}),
               "f32[2,3]");

  const Shape zero = S("f32[]");
  EXPECT_INVALID(Infer(HloOpcode::kPad, {&a, &zero}), "pad",
                 "padding configuration");
  InstructionAttrs pad;
  pad.padding_config = PaddingConfig{{{1, 1, 0}, {0, 0, 1}}};
  EXPECT_SHAPE(Infer(HloOpcode::kPad, {&a, &zero}, pad), "f32[4,5]");

  InstructionAttrs gd;
  gd.dimensions = {1};
  EXPECT_SHAPE(Infer(HloOpcode::kGetDimensionSize, {&a}, gd), "s32[]");

  const Shape t = S("(f32[2,3], s32[])");
  InstructionAttrs gte;
  gte.tuple_index = 1;
  EXPECT_SHAPE(Infer(HloOpcode::kGetTupleElement, {&t}, gte), "s32[]");
  EXPECT_SHAPE(Infer(HloOpcode::kTuple, {&a, &i}), "(f32[2,3], s32[])");

  const Shape idx = S("s32[2]");
  EXPECT_INVALID(Infer(HloOpcode::kGather, {&a, &idx}), "gather",
                 "dimension numbers");
}

TEST(DispatchTest, DotAndConvolutionTakePreferredTypeFromDeclared) {
  const Shape lhs = S("s8[3,5]");
  const Shape rhs = S("s8[5,7]");
  InstructionAttrs dot;
  dot.dot_dimension_numbers = DotDimensionNumbers{{}, {}, {1}, {0}};
  const Shape s32 = S("s32[3,7]");
  EXPECT_SHAPE(Infer(HloOpcode::kDot, {&lhs, &rhs}, dot, {}, &s32), "s32[3,7]");
  EXPECT_SHAPE(Infer(HloOpcode::kDot, {&lhs, &rhs}, dot), "s8[3,7]");

  // Default convolution dimension numbers: b f x i o with no spatial dims.
  const Shape in = S("f32[4,3]");
  const Shape k = S("f32[3,5]");
  EXPECT_SHAPE(Infer(HloOpcode::kConvolution, {&in, &k}), "f32[4,5]");
}

TEST(DispatchTest, LinalgAndBatchNorm) {
  const Shape a = S("f32[3,3]");
  const Shape b = S("f32[3,4]");
  InstructionAttrs ts;
  ts.triangular_solve_options.left_side = true;
  EXPECT_SHAPE(Infer(HloOpcode::kTriangularSolve, {&a, &b}, ts), "f32[3,4]");
  EXPECT_SHAPE(Infer(HloOpcode::kCholesky, {&a}), "f32[3,3]");
  const Shape x = S("f32[2,3]");
  const Shape f = S("f32[3]");
  InstructionAttrs bn;
  bn.feature_index = 1;
  EXPECT_SHAPE(Infer(HloOpcode::kBatchNormTraining, {&x, &f, &f}, bn),
               "(f32[2,3], f32[3], f32[3])");
  EXPECT_SHAPE(Infer(HloOpcode::kBatchNormInference, {&x, &f, &f, &f, &f}, bn),
               "f32[2,3]");
  EXPECT_SHAPE(Infer(HloOpcode::kBatchNormGrad, {&x, &f, &f, &f, &x}, bn),
               "(f32[2,3], f32[3], f32[3])");
}

TEST(DispatchTest, InferInstructionShapeFromIr) {
  Computation body("add");
  InstructionAttrs p0;
  p0.parameter_number = 0;
  InstructionAttrs p1;
  p1.parameter_number = 1;
  Instruction* x = body.AddInstruction(
      Instruction::Create(HloOpcode::kParameter, S("f32[2]"), {}, p0));
  Instruction* y = body.AddInstruction(
      Instruction::Create(HloOpcode::kParameter, S("f32[2]"), {}, p1));
  Instruction* sum = body.AddInstruction(
      Instruction::Create(HloOpcode::kAdd, S("f32[2]"), {x, y}));
  body.set_root_instruction(sum);
  EXPECT_SHAPE(InferInstructionShape(*sum), "f32[2]");
  EXPECT_SHAPE(InferInstructionShape(*x), "f32[2]");

  // A call of that computation: its signature comes from the callee.
  Computation caller("main");
  Instruction* a = caller.AddInstruction(
      Instruction::Create(HloOpcode::kParameter, S("f32[2]"), {}, p0));
  Instruction* call = caller.AddInstruction(
      Instruction::Create(HloOpcode::kCall, S("f32[2]"), {a, a}, {}, {&body}));
  EXPECT_SHAPE(InferInstructionShape(*call), "f32[2]");
  Instruction* bad_call = caller.AddInstruction(
      Instruction::Create(HloOpcode::kCall, S("f32[2]"), {a}, {}, {&body}));
  EXPECT_INVALID(InferInstructionShape(*bad_call), "call", "f32[2]");
}

}  // namespace
}  // namespace plexa::shape_inference
