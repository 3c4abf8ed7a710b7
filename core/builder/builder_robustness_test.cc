// Every operation fed malformed input (tuples or tokens where arrays go,
// invalid Ops, null computations, empty or out-of-range spans) returns an
// invalid Op and records an error that names the operation; nothing
// crashes.
#include <functional>

#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

struct Inputs {
  Op x;    // f32[2]
  Op tup;  // (f32[2])
  Op tok;  // token[]
};

struct Case {
  const char* op;
  std::function<Op(Builder&, const Inputs&)> call;
};

TEST(RobustnessTest, MalformedInputIsAnErrorNamingTheOp) {
  const Padding kSame = Padding::kSame;
  const std::vector<Case> cases = {
      {"Broadcast", [](Builder& b, const Inputs& in) {
         return b.Broadcast(in.tup, {2});
       }},
      {"BroadcastInDim", [](Builder& b, const Inputs& in) {
         return b.BroadcastInDim(in.tok, {2}, {});
       }},
      {"BroadcastInDim", [](Builder& b, const Inputs& in) {
         return b.BroadcastInDim(in.x, {-2}, {0});
       }},
      {"Reshape", [](Builder& b, const Inputs& in) {
         return b.Reshape(in.tup, {2});
       }},
      {"Reshape", [](Builder& b, const Inputs& in) {
         return b.Reshape(in.x, {5, 5, 5}, {2});
       }},
      {"Collapse", [](Builder& b, const Inputs& in) {
         return b.Collapse(in.tok, {0, 1});
       }},
      {"Transpose", [](Builder& b, const Inputs& in) {
         return b.Transpose(in.x, {});
       }},
      {"Rev", [](Builder& b, const Inputs& in) { return b.Rev(in.x, {-1}); }},
      {"ConcatInDim", [](Builder& b, const Inputs&) {
         return b.ConcatInDim({}, 0);
       }},
      {"Slice", [](Builder& b, const Inputs& in) {
         return b.Slice(in.x, {}, {}, {});
       }},
      {"Slice", [](Builder& b, const Inputs& in) {
         return b.Slice(in.x, {0}, {2}, {0});
       }},
      {"SliceInDim", [](Builder& b, const Inputs& in) {
         return b.SliceInDim(in.tup, 0, 1, 1, 0);
       }},
      {"DynamicSlice", [](Builder& b, const Inputs& in) {
         return b.DynamicSlice(in.x, {}, {});
       }},
      {"DynamicSlice", [](Builder& b, const Inputs& in) {
         return b.DynamicSliceWithIndexVector(in.x, in.tup, {1});
       }},
      {"DynamicUpdateSlice", [](Builder& b, const Inputs& in) {
         return b.DynamicUpdateSlice(in.x, in.tup, {});
       }},
      {"DynamicUpdateSlice", [](Builder& b, const Inputs& in) {
         return b.DynamicUpdateSliceWithIndexVector(in.x, in.x, in.tok);
       }},
      {"Pad", [](Builder& b, const Inputs& in) {
         return b.Pad(in.x, in.x, PaddingConfig{});
       }},
      {"Gather", [](Builder& b, const Inputs& in) {
         return b.Gather(in.x, in.x, GatherDimensionNumbers{}, {});
       }},
      {"Scatter", [](Builder& b, const Inputs& in) {
         return b.Scatter(in.x, in.x, in.x, nullptr, ScatterDimensionNumbers{});
       }},
      {"GetDimensionSize", [](Builder& b, const Inputs& in) {
         return b.GetDimensionSize(in.x, -1);
       }},
      {"Tuple", [](Builder& b, const Inputs&) { return b.Tuple({Op()}); }},
      {"GetTupleElement", [](Builder& b, const Inputs& in) {
         return b.GetTupleElement(in.tup, -1);
       }},
      {"Call", [](Builder& b, const Inputs&) { return b.Call(nullptr, {}); }},
      {"While", [](Builder& b, const Inputs& in) {
         return b.While(nullptr, nullptr, in.x);
       }},
      {"Conditional", [](Builder& b, const Inputs& in) {
         return b.Conditional(in.x, absl::Span<const Computation* const>(),
                              absl::Span<const Op>());
       }},
      {"Conditional", [](Builder& b, const Inputs& in) {
         return b.Conditional(in.tup, in.x, nullptr, in.x, nullptr);
       }},
      {"OptimizationBarrier", [](Builder& b, const Inputs&) {
         return b.OptimizationBarrier(Op());
       }},
      {"CustomCall", [](Builder& b, const Inputs&) {
         return b.CustomCall("t", {Op()}, F32({}));
       }},
      {"AfterAll", [](Builder& b, const Inputs& in) {
         return b.AfterAll({in.x});
       }},
      {"InfeedWithToken", [](Builder& b, const Inputs& in) {
         return b.InfeedWithToken(in.x, F32({}));
       }},
      {"Infeed", [](Builder& b, const Inputs&) { return b.Infeed(Shape()); }},
      {"OutfeedWithToken", [](Builder& b, const Inputs& in) {
         return b.OutfeedWithToken(in.x, in.x, F32({2}));
       }},
      {"Outfeed", [](Builder& b, const Inputs& in) {
         return b.Outfeed(in.tok, ShapeUtil::MakeTokenShape());
       }},
      {"AllReduce", [](Builder& b, const Inputs& in) {
         return b.AllReduce(in.x, nullptr);
       }},
      {"CrossReplicaSum", [](Builder& b, const Inputs& in) {
         return b.CrossReplicaSum(in.tok);
       }},
      {"Reduce", [](Builder& b, const Inputs&) {
         return b.Reduce(absl::Span<const Op>(), absl::Span<const Op>(),
                         nullptr, {});
       }},
      {"ReduceAll", [](Builder& b, const Inputs& in) {
         return b.ReduceAll(in.tup, in.x, nullptr);
       }},
      {"ReduceWindow", [kSame](Builder& b, const Inputs& in) {
         return b.ReduceWindow(in.tup, in.x, nullptr, {}, {}, kSame);
       }},
      {"ReduceWindow", [](Builder& b, const Inputs& in) {
         return b.ReduceWindowWithGeneralPadding({in.x}, {in.x}, nullptr, {1},
                                                 {}, {}, {}, {});
       }},
      {"ReduceWindow", [](Builder& b, const Inputs& in) {
         return b.ReduceWindowWithGeneralPadding({in.x}, {in.x}, nullptr, {1},
                                                 {1}, {1, 1}, {}, {{0, 0}});
       }},
      {"SelectAndScatter", [kSame](Builder& b, const Inputs& in) {
         return b.SelectAndScatter(in.tup, nullptr, {1}, {1}, kSame, in.x,
                                   in.x, nullptr);
       }},
      {"SelectAndScatter", [](Builder& b, const Inputs& in) {
         return b.SelectAndScatterWithGeneralPadding(in.x, nullptr, {1}, {1},
                                                     {}, in.x, in.x, nullptr);
       }},
      {"Sort", [](Builder& b, const Inputs&) {
         return b.Sort(absl::Span<const Op>(), nullptr);
       }},
      {"Sort", [](Builder& b, const Inputs& in) { return b.Sort(in.tok); }},
      {"Dot", [](Builder& b, const Inputs& in) { return b.Dot(in.tup, in.x); }},
      {"DotGeneral", [](Builder& b, const Inputs& in) {
         DotDimensionNumbers d;
         d.lhs_contracting_dimensions = {5};
         d.rhs_contracting_dimensions = {-3};
         return b.DotGeneral(in.x, in.x, d);
       }},
      {"Conv", [kSame](Builder& b, const Inputs& in) {
         return b.Conv(in.x, in.x, {}, kSame);
       }},
      {"ConvGeneralDilated", [](Builder& b, const Inputs& in) {
         return b.ConvGeneralDilated(in.x, in.x, {1}, {{0, 0}}, {}, {},
                                     ConvolutionDimensionNumbers{});
       }},
      {"ConvWithGeneralDimensions", [kSame](Builder& b, const Inputs& in) {
         return b.ConvWithGeneralDimensions(in.tok, in.x, {1}, kSame,
                                            MakeDefaultConvDimensionNumbers(1));
       }},
      {"ConvWithGeneralPadding", [](Builder& b, const Inputs& in) {
         return b.ConvWithGeneralPadding(in.x, in.x, {}, {});
       }},
      {"TriangularSolve", [](Builder& b, const Inputs& in) {
         return b.TriangularSolve(in.x, in.x, true, true, false,
                                  TriangularSolveTranspose::kNoTranspose);
       }},
      {"Cholesky", [](Builder& b, const Inputs& in) {
         return b.Cholesky(in.tup, true);
       }},
      {"BatchNormTraining", [](Builder& b, const Inputs& in) {
         return b.BatchNormTraining(in.x, in.x, in.x, 0.0f, -5);
       }},
      {"BatchNormInference", [](Builder& b, const Inputs& in) {
         return b.BatchNormInference(in.tok, in.x, in.x, in.x, in.x, 0.0f, 0);
       }},
      {"BatchNormGrad", [](Builder& b, const Inputs& in) {
         return b.BatchNormGrad(in.x, in.x, in.x, in.x, Op(), 0.0f, 0);
       }},
      {"RngNormal", [](Builder& b, const Inputs& in) {
         return b.RngNormal(in.x, in.x, Tup({F32({})}));
       }},
      {"RngUniform", [](Builder& b, const Inputs& in) {
         return b.RngUniform(in.tok, in.tok, ShapeUtil::MakeTokenShape());
       }},
      {"RngBernoulli", [](Builder& b, const Inputs&) {
         return b.RngBernoulli(Op(), F32({2}));
       }},
      {"Map", [](Builder& b, const Inputs&) { return b.Map({}, nullptr); }},
      {"Clamp", [](Builder& b, const Inputs& in) {
         return b.Clamp(Op(), in.x, in.x);
       }},
      {"Select", [](Builder& b, const Inputs& in) {
         return b.Select(in.tup, in.x, in.x);
       }},
      {"ConvertElementType", [](Builder& b, const Inputs& in) {
         return b.ConvertElementType(in.x, PrimitiveType::TOKEN);
       }},
      {"BitcastConvertType", [](Builder& b, const Inputs& in) {
         return b.BitcastConvertType(in.x, PrimitiveType::TUPLE);
       }},
      {"ReducePrecision", [](Builder& b, const Inputs& in) {
         return b.ReducePrecision(in.x, -1, -1);
       }},
      {"Iota", [](Builder& b, const Inputs&) {
         return b.Iota(Tup({F32({2})}), 0);
       }},
      {"Iota", [](Builder& b, const Inputs&) {
         return b.Iota(F32({2}), -1);
       }},
      {"Iota", [](Builder& b, const Inputs&) {
         return b.Iota(PrimitiveType::F32, -4);
       }},
      {"Eq", [](Builder& b, const Inputs& in) { return b.Eq(in.x, in.tup); }},
      {"UnaryOp", [](Builder& b, const Inputs& in) {
         return b.UnaryOp(HloOpcode::kAdd, in.x);
       }},
      {"Add", [](Builder& b, const Inputs& in) {
         return b.Add(in.x, in.x, {7, 8, 9});
       }},
      {"Pow", [](Builder& b, const Inputs& in) {
         return b.Pow(in.tok, in.tok);
       }},
      {"Parameter", [](Builder& b, const Inputs&) {
         return b.Parameter(3, Shape(), "bad");
       }},
      {"ConstantScalar", [](Builder& b, const Inputs&) {
         return b.ConstantScalar(PrimitiveType::PRIMITIVE_TYPE_INVALID, 0);
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Builder b("robust");
    Inputs in;
    in.x = b.Parameter(0, F32({2}), "x");
    in.tup = b.Parameter(1, Tup({F32({2})}), "tup");
    in.tok = b.CreateToken();
    ASSERT_TRUE(b.ok()) << b.first_error();
    Op r = c.call(b, in);
    EXPECT_FALSE(r.valid());
    EXPECT_FALSE(b.ok());
    EXPECT_EQ(b.first_error().code(), absl::StatusCode::kInvalidArgument)
        << b.first_error();
    EXPECT_TRUE(
        absl::StartsWith(b.first_error().message(), absl::StrCat(c.op, ": ")))
        << b.first_error();
    EXPECT_FALSE(b.BuildModule().ok());
  }
}

}  // namespace
}  // namespace plexa::builder_test
