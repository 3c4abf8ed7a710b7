// The remaining families: fft, batch norm, linear algebra, collectives,
// feeds, select-and-scatter, map, custom-call aliases; and the numerics of
// the chlo decompositions, evaluated and compared with values computed by
// hand (next_after) or with known values of erfinv.
#include <cmath>
#include <string>
#include <vector>

#include "core/eval/evaluator.h"
#include "core/stablehlo/stablehlo_test_util.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::stablehlo_testing {
namespace {

using ::testing::HasSubstr;

TEST(MoreOpsTest, FftBatchNormCholeskyTriangularSolve) {
  const std::string entry = ImportEntry(Main(
      "%c: tensor<4xcomplex<f32>>, %x: tensor<2x3xf32>, %s: tensor<3xf32>, "
      "%a: tensor<2x2xf32>",
      "tensor<4xcomplex<f32>>, tensor<2x3xf32>, tensor<2x2xf32>, "
      "tensor<2x2xf32>",
      R"(
    %0 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %1 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
    %3 = "stablehlo.triangular_solve"(%2, %a) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    return %0, %1, %2, %3 : tensor<4xcomplex<f32>>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)"));
  EXPECT_THAT(entry, HasSubstr("%fft = c64[4] fft(%c), fft_type=IFFT, "
                               "fft_length={4}"));
  EXPECT_THAT(entry, HasSubstr("batch-norm-inference(%x, %s, %s, %s, %s), "
                               "epsilon=0.001, feature_index=1"));
  EXPECT_THAT(entry, HasSubstr("cholesky(%a), lower=true"));
  EXPECT_THAT(entry,
              HasSubstr("triangular-solve(%cholesky, %a), left_side=true, "
                        "lower=true, transpose_a=NO_TRANSPOSE"));
}

TEST(MoreOpsTest, BatchNormTrainingGivesThreeResults) {
  EXPECT_THAT(ImportEntry(Main("%x: tensor<2x3xf32>, %s: tensor<3xf32>",
                               "tensor<2x3xf32>, tensor<3xf32>", R"(
    %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
    return %0#0, %0#2 : tensor<2x3xf32>, tensor<3xf32>)")),
              HasSubstr("%batch-norm-training = (f32[2,3], f32[3], f32[3]) "
                        "batch-norm-training(%x, %s, %s), epsilon=0.001, "
                        "feature_index=1"));
}

TEST(MoreOpsTest, CollectivesAndIds) {
  const std::string entry = ImportEntry(Main("%a: tensor<4xf32>",
                                             "tensor<8xf32>, tensor<4xf32>, "
                                             "tensor<2xf32>, tensor<ui32>",
                                             R"(
    %0 = "stablehlo.all_gather"(%a) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    %1 = "stablehlo.collective_permute"(%a) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}> : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "stablehlo.reduce_scatter"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %4 = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<2xf32>
    %3 = stablehlo.replica_id : tensor<ui32>
    return %0, %1, %2, %3 : tensor<8xf32>, tensor<4xf32>, tensor<2xf32>, tensor<ui32>)"));
  EXPECT_THAT(entry, HasSubstr("all-gather(%a), replica_groups={{0,1}}, "
                               "dimensions={0}"));
  EXPECT_THAT(entry, HasSubstr("collective-permute(%a), channel_id=2, "
                               "source_target_pairs={{0,1},{1,0}}"));
  EXPECT_THAT(entry, HasSubstr("reduce-scatter(%a), replica_groups={{0,1}}, "
                               "dimensions={0}, to_apply="));
  EXPECT_THAT(entry, HasSubstr("%replica-id = u32[] replica-id()"));
}

TEST(MoreOpsTest, CollectiveBroadcast) {
  EXPECT_THAT(ImportEntry(Main("%a: tensor<4xf32>", "tensor<4xf32>", R"(
    %0 = "stablehlo.collective_broadcast"(%a) <{replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>)")),
              HasSubstr("collective-broadcast(%a), channel_id=3, "
                        "replica_groups={{1,0},{2,3}}"));
}

TEST(MoreOpsTest, InfeedOutfeedTokens) {
  const std::string entry =
      ImportEntry(Main("%t: !stablehlo.token", "!stablehlo.token", R"(
    %0:2 = "stablehlo.infeed"(%t) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %1 = "stablehlo.outfeed"(%0#0, %0#1) <{outfeed_config = ""}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %1 : !stablehlo.token)"));
  EXPECT_THAT(entry, HasSubstr("%infeed = ((f32[2]), token[]) infeed(%t)"));
  EXPECT_THAT(entry, HasSubstr("ROOT %outfeed = token[] outfeed(%tuple, "
                               "%get-tuple-element.2)"));
}

// stablehlo.send/recv: HLO's send + send-done and recv + recv-done; the
// replica pairs become XLA's frontend attribute. Evaluated: the recv of the
// same program gets the send's data (within one replica, no pairs).
TEST(MoreOpsTest, SendRecv) {
  const std::string text = Main("%a: tensor<2xf32>", "tensor<2xf32>", R"(
    %t = stablehlo.create_token : !stablehlo.token
    %0 = "stablehlo.send"(%a, %t) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, is_host_transfer = false}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %1:2 = "stablehlo.recv"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, is_host_transfer = false}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %1#0 : tensor<2xf32>)");
  const std::string entry = ImportEntry(text);
  EXPECT_THAT(entry, HasSubstr("send(%a, %"));
  EXPECT_THAT(entry, HasSubstr("send-done(%send), channel_id=5"));
  EXPECT_THAT(entry, HasSubstr("recv-done(%recv), channel_id=5"));
  auto m = ParseStableHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  Evaluator evaluator;
  auto r = evaluator.Run(
      **m, {*ParseLiteral("{1.5, -2}", Shape(PrimitiveType::F32, {2}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(
      r->ToString(),
      ParseLiteral("{1.5, -2}", Shape(PrimitiveType::F32, {2}))->ToString());
  EXPECT_THAT(
      ImportEntry(Main("%a: tensor<2xf32>", "!stablehlo.token", R"(
    %t = stablehlo.create_token : !stablehlo.token
    %0 = "stablehlo.send"(%a, %t) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %0 : !stablehlo.token)")),
      HasSubstr("channel_id=2, frontend_attributes={"
                "_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}"));
}

TEST(MoreOpsTest, SelectAndScatterAndMap) {
  auto m = ParseStableHloModule(Main("%a: tensor<4xf32>, %s: tensor<2xf32>",
                                     "tensor<4xf32>, tensor<4xf32>",
                                     R"(
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.select_and_scatter"(%a, %s, %z) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %2 = stablehlo.compare  GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    }, {
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %2 = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = "stablehlo.map"(%a, %a) <{dimensions = array<i64: 0>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %2 = stablehlo.multiply %x, %y : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  // Evaluated: select-and-scatter puts each source value at its window's
  // maximum; map squares.
  Evaluator evaluator;
  Literal x = *ParseLiteral("{1, 5, 7, 2}", Shape(PrimitiveType::F32, {4}));
  Literal s = *ParseLiteral("{10, 20}", Shape(PrimitiveType::F32, {2}));
  auto r = evaluator.Run(**m, {x, s});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tuple_element(0).ToStringWithoutShape(), "{0, 10, 20, 0}");
  EXPECT_EQ(r->tuple_element(1).ToStringWithoutShape(), "{1, 25, 49, 4}");
}

TEST(MoreOpsTest, CustomCallOutputOperandAliases) {
  EXPECT_THAT(ImportEntry(Main("%a: tensor<2xf32>", "tensor<2xf32>", R"(
    %0 = "stablehlo.custom_call"(%a) <{call_target_name = "inplace", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]}> : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>)")),
              HasSubstr("custom_call_target=\"inplace\", "
                        "output_to_operand_aliasing={{}: (0, {})}"));
}

// Evaluates @main on f32 vectors.
std::vector<float> Eval(const std::string& mlir,
                        const std::vector<std::vector<float>>& inputs) {
  auto m = ParseStableHloModule(mlir);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  std::vector<Literal> args;
  for (const auto& in : inputs) {
    Literal lit(Shape(PrimitiveType::F32, {static_cast<int64_t>(in.size())}));
    for (size_t i = 0; i < in.size(); ++i) {
      lit.Set<float>({static_cast<int64_t>(i)}, in[i]);
    }
    args.push_back(std::move(lit));
  }
  auto r = Evaluator().Run(**m, args);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  std::vector<float> out;
  for (int64_t i = 0; i < r->shape().dimensions(0); ++i) {
    out.push_back(r->Get<float>({i}));
  }
  return out;
}

TEST(ChloNumericsTest, NextAfterStepsOneUlp) {
  const std::string mlir =
      Main("%x: tensor<5xf32>, %y: tensor<5xf32>", "tensor<5xf32>", R"(
    %0 = chlo.next_after %x, %y : tensor<5xf32>, tensor<5xf32> -> tensor<5xf32>
    return %0 : tensor<5xf32>)");
  std::vector<float> r = Eval(
      mlir, {{1.0f, 1.0f, 0.0f, -2.0f, 3.0f}, {2.0f, 0.0f, -1.0f, 0.0f, 3.0f}});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0], 1.0f + std::ldexp(1.0f, -23));  // 1 + ulp(1)
  EXPECT_EQ(r[1], 1.0f - std::ldexp(1.0f, -24));  // below 1 the ulp halves
  EXPECT_EQ(r[2], -std::ldexp(1.0f, -149));  // smallest subnormal, y's sign
  EXPECT_EQ(r[3], -2.0f + std::ldexp(1.0f, -23));  // towards zero
  EXPECT_EQ(r[4], 3.0f);                           // x == y gives y
}

TEST(ChloNumericsTest, ErfInvMatchesKnownValues) {
  const std::string mlir = Main("%x: tensor<5xf32>", "tensor<5xf32>", R"(
    %0 = chlo.erf_inv %x : tensor<5xf32> -> tensor<5xf32>
    return %0 : tensor<5xf32>)");
  std::vector<float> r = Eval(mlir, {{0.0f, 0.5f, -0.9f, 0.999f, 1.0f}});
  ASSERT_EQ(r.size(), 5u);
  // erfinv values (Abramowitz & Stegun tables; scipy.special.erfinv agrees).
  EXPECT_NEAR(r[0], 0.0, 1e-7);
  EXPECT_NEAR(r[1], 0.4769362762044699, 2e-6);
  EXPECT_NEAR(r[2], -1.1630871536766743, 2e-6);
  EXPECT_NEAR(r[3], 2.3267537655135246, 1e-4);
  EXPECT_TRUE(std::isinf(r[4]) && r[4] > 0);
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

TEST(ChloNumericsTest, LgammaMatchesClosedForms) {
  const std::string mlir = Main("%x: tensor<6xf32>", "tensor<6xf32>", R"(
    %0 = chlo.lgamma %x : tensor<6xf32> -> tensor<6xf32>
    return %0 : tensor<6xf32>)");
  std::vector<float> r = Eval(mlir, {{0.5f, 3.0f, -0.5f, 10.0f, 1.0f, -2.5f}});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_NEAR(r[0], 0.5723649429247001, 1e-5);  // log(sqrt(pi))
  EXPECT_NEAR(r[1], 0.6931471805599453, 1e-5);  // log(2!)
  EXPECT_NEAR(r[2], 1.2655121234846454, 1e-5);  // log(2 sqrt(pi))
  EXPECT_NEAR(r[3], 12.801827480081469, 1e-4);  // log(9!)
  EXPECT_NEAR(r[4], 0.0, 1e-6);                 // log(0!)
  // Gamma(-2.5) = -8 sqrt(pi) / 15: lgamma is log|Gamma|.
  EXPECT_NEAR(r[5], std::log(8.0 * std::sqrt(M_PI) / 15.0), 1e-5);
}

TEST(ChloNumericsTest, DigammaMatchesClosedForms) {
  const std::string mlir = Main("%x: tensor<5xf32>", "tensor<5xf32>", R"(
    %0 = chlo.digamma %x : tensor<5xf32> -> tensor<5xf32>
    return %0 : tensor<5xf32>)");
  std::vector<float> r = Eval(mlir, {{1.0f, 0.5f, 2.0f, -0.5f, -1.0f}});
  ASSERT_EQ(r.size(), 5u);
  const double euler = 0.57721566490153286;
  EXPECT_NEAR(r[0], -euler, 1e-5);                          // psi(1)
  EXPECT_NEAR(r[1], -euler - 2 * std::log(2.0), 1e-5);      // psi(1/2)
  EXPECT_NEAR(r[2], 1 - euler, 1e-5);                       // psi(2)
  EXPECT_NEAR(r[3], -euler - 2 * std::log(2.0) + 2, 1e-5);  // psi(-1/2)
  EXPECT_TRUE(std::isnan(r[4]));                            // a pole
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// Spellings older JAX releases print: attributes in a {...} dictionary
// after the regions, slice_sizes as a dense<>, index_vector_dim left at
// its default (0), locations on block arguments, index-typed layouts.
TEST(OlderSpellingsTest, GatherScatterDefaultsAndDictionaries) {
  const std::string mlir = Main("%v: tensor<3xi32>, %i: tensor<i32>",
                                "tensor<i32>, tensor<3xi32>", R"(
    %0 = stablehlo.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<1xi32> loc(#loc1)
    %1 = "stablehlo.gather"(%v, %0) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, indices_are_sorted = true, slice_sizes = dense<1> : tensor<1xi64>} : (tensor<3xi32>, tensor<1xi32>) -> tensor<i32> loc(#loc2)
    %c = stablehlo.constant dense<7> : tensor<i32>
    %2 = "stablehlo.scatter"(%v, %0, %c) ({
    ^bb0(%a: tensor<i32> loc(unknown), %b: tensor<i32> loc(unknown)):
      stablehlo.return %b : tensor<i32> loc(#loc3)
    }) {indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true} : (tensor<3xi32>, tensor<1xi32>, tensor<i32>) -> tensor<3xi32>
    return %1, %2 : tensor<i32>, tensor<3xi32>)");
  auto m = ParseStableHloModule(mlir);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_THAT(PrintComp(**m), HasSubstr("index_vector_dim=0, slice_sizes={1}"));
  Literal v = *ParseLiteral("{10, 20, 30}", Shape(PrimitiveType::S32, {3}));
  Literal i = *ParseLiteral("2", Shape(PrimitiveType::S32, {}));
  auto r = Evaluator().Run(**m, {v, i});
  ASSERT_TRUE(r.ok()) << r.status();
  // v[2], and v with v[2] replaced by 7.
  EXPECT_EQ(r->tuple_element(0).ToStringWithoutShape(), "30");
  EXPECT_EQ(r->tuple_element(1).ToStringWithoutShape(), "{10, 20, 7}");
  // Layouts as index-typed dense attributes are read (and not kept).
  EXPECT_THAT(ImportEntry(Main("%v: tensor<3xi32>", "tensor<3xi32>", R"(
    %0 = stablehlo.custom_call @noop(%v) {api_version = 2 : i32, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<3xi32>) -> tensor<3xi32>
    return %0 : tensor<3xi32>)")),
              HasSubstr("custom-call(%v), custom_call_target=\"noop\""));
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// The custom form of if (`stablehlo.if %p -> (types) {..} else {..}`)
// gives the same module as the generic one.
TEST(PrettyIfTest, SameAsGeneric) {
  const std::string pretty =
      Main("%p: tensor<i1>, %x: tensor<f32>", "tensor<f32>", R"(
    %0 = stablehlo.if %p -> (tensor<f32>) {
      %1 = stablehlo.multiply %x, %x : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    } else {
      stablehlo.return %x : tensor<f32>
    }
    return %0 : tensor<f32>)");
  const std::string generic =
      Main("%p: tensor<i1>, %x: tensor<f32>", "tensor<f32>", R"(
    %0 = "stablehlo.if"(%p) ({
      %1 = stablehlo.multiply %x, %x : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }, {
      stablehlo.return %x : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    return %0 : tensor<f32>)");
  auto a = ParseStableHloModule(pretty);
  auto b = ParseStableHloModule(generic);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(PrintModule(**a), PrintModule(**b));
  EXPECT_EQ(PrintComp(**a, "branch_0"),
            "  %param = (f32[]) parameter(0)\n"
            "  %x = f32[] get-tuple-element(%param), index=0\n"
            "  ROOT %multiply = f32[] multiply(%x, %x)\n");
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

TEST(StaticDynamicOpsTest, ShapeOperandsWithStaticResultsBecomeStaticOps) {
  EXPECT_EQ(
      ImportEntry(Main("%a: tensor<2x3xf32>, %s: tensor<2xi64>",
                       "tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<4xi32>", R"(
    %0 = stablehlo.dynamic_reshape %a, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf32>
    %c = stablehlo.constant dense<[4, 2, 3]> : tensor<3xi64>
    %1 = stablehlo.dynamic_broadcast_in_dim %a, %c, dims = [1, 2] : (tensor<2x3xf32>, tensor<3xi64>) -> tensor<4x2x3xf32>
    %n = stablehlo.constant dense<4> : tensor<1xi64>
    %2 = stablehlo.dynamic_iota %n, dim = 0 : (tensor<1xi64>) -> tensor<4xi32>
    return %0, %1, %2 : tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<4xi32>)")),
      "  %a = f32[2,3] parameter(0)\n"
      "  %s = s64[2] parameter(1)\n"
      "  %reshape = f32[3,2] reshape(%a)\n"
      "  %constant = s64[3] constant({4, 2, 3})\n"
      "  %broadcast = f32[4,2,3] broadcast(%a), dimensions={1,2}\n"
      "  %constant.1 = s64[1] constant({4})\n"
      "  %iota = s32[4] iota(), iota_dimension=0\n"
      "  ROOT %tuple = (f32[3,2], f32[4,2,3], s32[4]) tuple(%reshape, "
      "%broadcast, %iota)\n");
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// A while inside a while inside an if branch: %x and %m are used two and
// three regions deep, and travel through every enclosing loop state.
TEST(NestedCapturesTest, ValuesThreeRegionsDeep) {
  auto m = ParseStableHloModule(
      Main("%p: tensor<i1>, %n: tensor<i32>, %m: tensor<i32>, %x: tensor<f32>",
           "tensor<f32>", R"(
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.if"(%p) ({
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %outer:2 = stablehlo.while(%i = %c0, %acc = %zero) : tensor<i32>, tensor<f32>
       cond {
        %lt = stablehlo.compare  LT, %i, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %c0_1 = stablehlo.constant dense<0> : tensor<i32>
        %inner:2 = stablehlo.while(%j = %c0_1, %a = %acc) : tensor<i32>, tensor<f32>
         cond {
          %lt = stablehlo.compare  LT, %j, %m,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %lt : tensor<i1>
        } do {
          %one = stablehlo.constant dense<1> : tensor<i32>
          %j1 = stablehlo.add %j, %one : tensor<i32>
          %a1 = stablehlo.add %a, %x : tensor<f32>
          stablehlo.return %j1, %a1 : tensor<i32>, tensor<f32>
        }
        %one = stablehlo.constant dense<1> : tensor<i32>
        %i1 = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %i1, %inner#1 : tensor<i32>, tensor<f32>
      }
      stablehlo.return %outer#1 : tensor<f32>
    }, {
      stablehlo.return %zero : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    return %r : tensor<f32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  auto scalar = [](const char* text, PrimitiveType t) {
    return *ParseLiteral(text, Shape(t, {}));
  };
  auto r = Evaluator().Run(
      **m,
      {scalar("true", PrimitiveType::PRED), scalar("3", PrimitiveType::S32),
       scalar("4", PrimitiveType::S32), scalar("0.5", PrimitiveType::F32)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToStringWithoutShape(), "6");  // 3 * 4 * 0.5
  auto r2 = Evaluator().Run(
      **m,
      {scalar("false", PrimitiveType::PRED), scalar("3", PrimitiveType::S32),
       scalar("4", PrimitiveType::S32), scalar("0.5", PrimitiveType::F32)});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(r2->ToStringWithoutShape(), "0");
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// Older JAX writes window attributes as dense<> (i64 and i1); a dense of
// floats where integers belong is an error, not a guess.
TEST(OlderSpellingsTest, DenseWindowAttributes) {
  const char* args = "%x: tensor<1x4x4x1xf32>, %k: tensor<2x2x1x1xf32>";
  EXPECT_THAT(ImportEntry(Main(args, "tensor<1x3x3x1xf32>", R"(
    %0 = "stablehlo.convolution"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = dense<1> : tensor<2xi64>, padding = dense<0> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_reversal = dense<[false, true]> : tensor<2xi1>, window_strides = dense<1> : tensor<2xi64>} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>
    return %0 : tensor<1x3x3x1xf32>)")),
              HasSubstr("window={size=2x2 rhs_reversal=0x1}, "
                        "dim_labels=b01f_01io->b01f"));
  EXPECT_THAT(ImportEntry(Main("%a: tensor<2x3xf32>", "tensor<3x2xf32>", R"(
    %0 = "stablehlo.transpose"(%a) {permutation = dense<[1.0, 0.0]> : tensor<2xf32>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>)")),
              HasSubstr("expected integers, got f32[2]"));
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// JAX with Shardy: a mesh, argument shardings, sharding constraints.
TEST(ShardyTest, MeshesShardingsAndConstraintsAreAnnotationsOnly) {
  EXPECT_EQ(
      ImportEntry(R"(module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {"x"}]> : tensor<8x4xf32>
    %1 = stablehlo.negate %0 : tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
})"),
      "  %arg0 = f32[8,4] parameter(0)\n"
      "  ROOT %negate = f32[8,4] negate(%arg0)\n");
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

TEST(StaticDynamicOpsTest, ConstantShapeOperandsGiveSliceAndPad) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<4xf32>, %v: tensor<f32>",
                             "tensor<2xf32>, tensor<7xf32>", R"(
    %s = stablehlo.constant dense<[1]> : tensor<1xi64>
    %l = stablehlo.constant dense<[4]> : tensor<1xi64>
    %st = stablehlo.constant dense<[2]> : tensor<1xi64>
    %0 = stablehlo.real_dynamic_slice %a, %s, %l, %st : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
    %z = stablehlo.constant dense<0> : tensor<1xi64>
    %1 = stablehlo.dynamic_pad %a, %v, %s, %st, %z : (tensor<4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<7xf32>
    return %0, %1 : tensor<2xf32>, tensor<7xf32>)")),
            "  %a = f32[4] parameter(0)\n"
            "  %v = f32[] parameter(1)\n"
            "  %constant = s64[1] constant({1})\n"
            "  %constant.1 = s64[1] constant({4})\n"
            "  %constant.2 = s64[1] constant({2})\n"
            "  %slice = f32[2] slice(%a), slice={[1:4:2]}\n"
            "  %constant.3 = s64[1] constant({0})\n"
            "  %pad = f32[7] pad(%a, %v), padding=1_2\n"
            "  ROOT %tuple = (f32[2], f32[7]) tuple(%slice, %pad)\n");
  // A shape operand computed at run time is refused.
  EXPECT_THAT(ImportEntry(Main("%a: tensor<4xf32>, %s: tensor<1xi64>",
                               "tensor<2xf32>", R"(
    %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
    return %0 : tensor<2xf32>)")),
              HasSubstr("UNIMPLEMENTED: 4:10: 'stablehlo.real_dynamic_slice': "
                        "its start_indices must be a constant"));
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo {
namespace {

using stablehlo_testing::ImportEntry;
using stablehlo_testing::Main;
using ::testing::HasSubstr;

// lax.ragged_all_to_all as JAX lowers it (jax/_src/lax/parallel.py): a
// custom call with its replica groups (and, under SPMD, a channel id) in a
// backend_config dictionary, which XLA's importer makes its
// ragged-all-to-all instruction.
TEST(RaggedAllToAllCallTest, ImportsAsTheInstruction) {
  const std::string args =
      "%x: tensor<4x2xf32>, %out: tensor<4x2xf32>, %io: tensor<2xi32>, "
      "%ss: tensor<2xi32>, %oo: tensor<2xi32>, %rs: tensor<2xi32>";
  EXPECT_THAT(ImportEntry(Main(args, "tensor<4x2xf32>", R"(
    %0 = stablehlo.custom_call @ragged_all_to_all(%x, %out, %io, %ss, %oo, %rs) {api_version = 4 : i32, backend_config = {channel_id = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>)")),
              HasSubstr("f32[4,2] ragged-all-to-all(%x, %out, %io, %ss, %oo, "
                        "%rs), channel_id=1, replica_groups={{0,1}}"));
  // Without its dictionary it is refused by name.
  auto m = ParseStableHloModule(Main(args, "tensor<4x2xf32>", R"(
    %0 = stablehlo.custom_call @ragged_all_to_all(%x, %out, %io, %ss, %oo, %rs) {api_version = 4 : i32} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>)"));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("@ragged_all_to_all needs a backend_config"));
}

// chlo.ragged_dot as JAX's lax.ragged_dot writes it (generic form, every
// field of #chlo.ragged_dot given), ragged in an lhs non-contracting
// dimension; the values by hand: sizes {1, 2} put row 0 in group 0 (rhs
// {{1,0},{0,1}}: the row itself), rows 1-2 in group 1 (rhs {{0,1},{1,0}}:
// the row swapped) and leave row 3 at zero.
TEST(ChloRaggedDotTest, NonContractingImportsAndRuns) {
  const std::string text =
      Main("%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x2xf32>, %gs: tensor<2xi32>",
           "tensor<4x2xf32>", R"(
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>]} : (tensor<4x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>)");
  EXPECT_THAT(ImportEntry(text),
              HasSubstr("f32[4,2] ragged-dot(%lhs, %rhs, %gs), "
                        "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
                        "lhs_ragged_dims={0}, rhs_group_dims={0}, "
                        "operand_precision={default,highest}"));
  auto m = ParseStableHloModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  auto r = Evaluator().Run(
      **m, {*ParseLiteral("{ {1, 2}, {3, 4}, {5, 6}, {7, 8} }",
                          Shape(PrimitiveType::F32, {4, 2})),
            *ParseLiteral("{ { {1, 0}, {0, 1} }, { {0, 1}, {1, 0} } }",
                          Shape(PrimitiveType::F32, {2, 2, 2})),
            *ParseLiteral("{1, 2}", Shape(PrimitiveType::S32, {2}))});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->ToString(), ParseLiteral("{ {1, 2}, {4, 3}, {6, 5}, {0, 0} }",
                                        Shape(PrimitiveType::F32, {4, 2}))
                               ->ToString());
}

// Ragged in the contracting dimension, with batch dimensions, fields left
// out (no rhs_group_dimensions) and properties syntax; a preferred result
// type (bf16 operands, f32 result).
TEST(ChloRaggedDotTest, ContractingAndBatch) {
  EXPECT_THAT(ImportEntry(Main(
                  "%lhs: tensor<2x11x5xbf16>, %rhs: tensor<2x5x7xbf16>, %gs: "
                  "tensor<2x3xi64>",
                  "tensor<3x2x11x7xf32>", R"(
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [2]>}> : (tensor<2x11x5xbf16>, tensor<2x5x7xbf16>, tensor<2x3xi64>) -> tensor<3x2x11x7xf32>
    return %0 : tensor<3x2x11x7xf32>)")),
              HasSubstr("f32[3,2,11,7] ragged-dot(%lhs, %rhs, %gs), "
                        "lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                        "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
                        "lhs_ragged_dims={2}\n"));
}

// StableHLO's own verifier example: group_sizes of the wrong shape is
// refused at the MLIR op, with the expected shape.
TEST(ChloRaggedDotTest, BadGroupSizesAreLocated) {
  const std::string entry = ImportEntry(
      Main("%lhs: tensor<19x17x11x5xf32>, %rhs: tensor<3x19x5x7xf32>, %gs: "
           "tensor<19x11x3xi64>",
           "tensor<19x17x11x7xf32>", R"(
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2], lhs_ragged_dimensions = [2], rhs_group_dimensions = [0]>} : (tensor<19x17x11x5xf32>, tensor<3x19x5x7xf32>, tensor<19x11x3xi64>) -> tensor<19x17x11x7xf32>
    return %0 : tensor<19x17x11x7xf32>)"));
  EXPECT_THAT(entry, HasSubstr("'chlo.ragged_dot'"));
  EXPECT_THAT(entry, HasSubstr("group_sizes must have shape [19,17,3]"));
  EXPECT_THAT(
      ImportEntry(Main("%lhs: tensor<4x2xf32>, %rhs: tensor<2x2x2xf32>, "
                       "%gs: tensor<2xi32>",
                       "tensor<4x2xf32>", R"(
    %0 = "chlo.ragged_dot"(%lhs, %rhs, %gs) : (tensor<4x2xf32>, tensor<2x2x2xf32>, tensor<2xi32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>)")),
      HasSubstr("missing ragged_dot_dimension_numbers"));
}

}  // namespace
}  // namespace plexa::stablehlo
