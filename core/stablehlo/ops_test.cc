// Each op family imported from its pretty and its generic form, checked
// against the HLO written by hand.
#include <string>

#include "core/stablehlo/stablehlo_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::stablehlo_testing {
namespace {

using ::testing::HasSubstr;

TEST(ElementwiseTest, PrettyAndGenericGiveTheSameHlo) {
  const std::string expected =
      "  %a = f32[2] parameter(0)\n"
      "  %b = f32[2] parameter(1)\n"
      "  %add = f32[2] add(%a, %b)\n"
      "  %exponential = f32[2] exponential(%add)\n"
      "  ROOT %atan2 = f32[2] atan2(%exponential, %b)\n";
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2xf32>, %b: tensor<2xf32>",
                             "tensor<2xf32>", R"(
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    %1 = stablehlo.exponential %0 : tensor<2xf32>
    %2 = stablehlo.atan2 %1, %b : tensor<2xf32>
    return %2 : tensor<2xf32>)")),
            expected);
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2xf32>, %b: tensor<2xf32>",
                             "tensor<2xf32>", R"(
    %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = "stablehlo.exponential"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "stablehlo.atan2"(%1, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%2) : (tensor<2xf32>) -> ())")),
            expected);
}

TEST(ElementwiseTest, EveryUnaryOpMapsToItsHloOpcode) {
  const std::pair<const char*, const char*> kOps[] = {
      {"abs", "abs"},
      {"cbrt", "cbrt"},
      {"ceil", "ceil"},
      {"cosine", "cosine"},
      {"exponential_minus_one", "exponential-minus-one"},
      {"floor", "floor"},
      {"log", "log"},
      {"log_plus_one", "log-plus-one"},
      {"logistic", "logistic"},
      {"negate", "negate"},
      {"round_nearest_afz", "round-nearest-afz"},
      {"round_nearest_even", "round-nearest-even"},
      {"rsqrt", "rsqrt"},
      {"sign", "sign"},
      {"sine", "sine"},
      {"sqrt", "sqrt"},
      {"tan", "tan"},
      {"tanh", "tanh"},
  };
  for (const auto& [mlir, hlo] : kOps) {
    std::string body = absl::StrCat("    %0 = stablehlo.", mlir,
                                    " %a : tensor<3xf32>\n    return %0 : "
                                    "tensor<3xf32>");
    EXPECT_THAT(ImportEntry(Main("%a: tensor<3xf32>", "tensor<3xf32>", body)),
                HasSubstr(absl::StrCat("f32[3] ", hlo, "(%a)")))
        << mlir;
  }
}

TEST(ElementwiseTest, IntegerAndBitOps) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<4xi32>, %b: tensor<4xi32>",
                             "tensor<4xi32>", R"(
    %0 = stablehlo.shift_left %a, %b : tensor<4xi32>
    %1 = stablehlo.shift_right_logical %0, %b : tensor<4xi32>
    %2 = stablehlo.popcnt %1 : tensor<4xi32>
    %3 = stablehlo.count_leading_zeros %2 : tensor<4xi32>
    %4 = stablehlo.xor %3, %a : tensor<4xi32>
    %5 = stablehlo.not %4 : tensor<4xi32>
    return %5 : tensor<4xi32>)")),
            "  %a = s32[4] parameter(0)\n"
            "  %b = s32[4] parameter(1)\n"
            "  %shift-left = s32[4] shift-left(%a, %b)\n"
            "  %shift-right-logical = s32[4] shift-right-logical(%shift-left, "
            "%b)\n"
            "  %popcnt = s32[4] popcnt(%shift-right-logical)\n"
            "  %count-leading-zeros = s32[4] count-leading-zeros(%popcnt)\n"
            "  %xor = s32[4] xor(%count-leading-zeros, %a)\n"
            "  ROOT %not = s32[4] not(%xor)\n");
}

TEST(ElementwiseTest, CompareSelectClampConvert) {
  const std::string pretty =
      Main("%a: tensor<3xf32>, %b: tensor<3xf32>, %lo: tensor<f32>",
           "tensor<3xi32>", R"(
    %0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %1 = stablehlo.select %0, %a, %b : tensor<3xi1>, tensor<3xf32>
    %2 = stablehlo.clamp %lo, %1, %b : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %3 = stablehlo.convert %2 : (tensor<3xf32>) -> tensor<3xi32>
    return %3 : tensor<3xi32>)");
  const std::string generic =
      Main("%a: tensor<3xf32>, %b: tensor<3xf32>, %lo: tensor<f32>",
           "tensor<3xi32>", R"(
    %0 = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>}> : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %1 = "stablehlo.select"(%0, %a, %b) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %2 = "stablehlo.clamp"(%lo, %1, %b) : (tensor<f32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %3 = "stablehlo.convert"(%2) : (tensor<3xf32>) -> tensor<3xi32>
    "func.return"(%3) : (tensor<3xi32>) -> ())");
  const std::string expected =
      "  %a = f32[3] parameter(0)\n"
      "  %b = f32[3] parameter(1)\n"
      "  %lo = f32[] parameter(2)\n"
      "  %compare = pred[3] compare(%a, %b), direction=LT, type=FLOAT\n"
      "  %select = f32[3] select(%compare, %a, %b)\n"
      "  %broadcast = f32[3] broadcast(%lo), dimensions={}\n"
      "  %clamp = f32[3] clamp(%broadcast, %select, %b)\n"
      "  ROOT %convert = s32[3] convert(%clamp)\n";
  EXPECT_EQ(ImportEntry(pretty), expected);
  EXPECT_EQ(ImportEntry(generic), expected);
}

TEST(ConstantTest, ListsSplatsHexBoolsComplexAndSpecialFloats) {
  EXPECT_EQ(
      ImportEntry(Main("",
                       "tensor<2x2xf32>, tensor<3xf32>, tensor<2xi1>, "
                       "tensor<2xcomplex<f32>>, tensor<3xf32>, tensor<2xi8>",
                       R"(
    %0 = stablehlo.constant dense<[[1.000000e+00, 2.5], [-3.0, 4.0]]> : tensor<2x2xf32>
    %1 = stablehlo.constant dense<0x7FC00000> : tensor<3xf32>
    %2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %3 = stablehlo.constant dense<[(1.0, 2.0), (-0.5, 0.0)]> : tensor<2xcomplex<f32>>
    %4 = stablehlo.constant dense<"0x0000803F000080FF00000040"> : tensor<3xf32>
    %5 = stablehlo.constant dense<[-128, 127]> : tensor<2xi8>
    return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<3xf32>, tensor<2xi1>, tensor<2xcomplex<f32>>, tensor<3xf32>, tensor<2xi8>)")),
      "  %constant = f32[2,2] constant({ { 1, 2.5 }, { -3, 4 } })\n"
      "  %constant.1 = f32[] constant(nan)\n"
      "  %broadcast = f32[3] broadcast(%constant.1), dimensions={}\n"
      "  %constant.2 = pred[2] constant({1, 0})\n"
      "  %constant.3 = c64[2] constant({(1, 2), (-0.5, 0)})\n"
      "  %constant.4 = f32[3] constant({1, -inf, 2})\n"
      "  %constant.5 = s8[2] constant({-128, 127})\n"
      "  ROOT %tuple = (f32[2,2], f32[3], pred[2], c64[2], f32[3], s8[2]) "
      "tuple(%constant, %broadcast, %constant.2, %constant.3, "
      "%constant.4, %constant.5)\n");
}

TEST(ConstantTest, ScalarsOfEveryWidthAndSignedness) {
  EXPECT_EQ(
      ImportEntry(Main(
          "",
          "tensor<ui32>, tensor<bf16>, tensor<f16>, tensor<i64>, tensor<f64>",
          R"(
    %0 = stablehlo.constant dense<4294967295> : tensor<ui32>
    %1 = stablehlo.constant dense<0x7F80> : tensor<bf16>
    %2 = stablehlo.constant dense<0xFC00> : tensor<f16>
    %3 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %4 = stablehlo.constant dense<0x3FF8000000000000> : tensor<f64>
    return %0, %1, %2, %3, %4 : tensor<ui32>, tensor<bf16>, tensor<f16>, tensor<i64>, tensor<f64>)")),
      "  %constant = u32[] constant(4294967295)\n"
      "  %constant.1 = bf16[] constant(inf)\n"
      "  %constant.2 = f16[] constant(-inf)\n"
      "  %constant.3 = s64[] constant(-9223372036854775808)\n"
      "  %constant.4 = f64[] constant(1.5)\n"
      "  ROOT %tuple = (u32[], bf16[], f16[], s64[], f64[]) "
      "tuple(%constant, %constant.1, %constant.2, %constant.3, "
      "%constant.4)\n");
}

TEST(ShapeOpsTest, BroadcastReshapeTransposeSliceConcatPadIotaReverse) {
  const std::string pretty = Main(
      "%a: tensor<2x3xf32>, %s: tensor<f32>",
      "tensor<4x3xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>, "
      "tensor<6xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x2x3xf32>",
      R"(
    %0 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.slice %a [0:1, 1:3] : (tensor<2x3xf32>) -> tensor<1x2xf32>
    %3 = stablehlo.pad %a, %s, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
    %4 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<6xf32>
    %5 = stablehlo.iota dim = 0 : tensor<4xi32>
    %6 = stablehlo.reverse %a, dims = [1] : tensor<2x3xf32>
    %7 = stablehlo.broadcast_in_dim %a, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<4x3xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>, tensor<6xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x2x3xf32>)");
  const std::string generic = Main(
      "%a: tensor<2x3xf32>, %s: tensor<f32>",
      "tensor<4x3xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>, "
      "tensor<6xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x2x3xf32>",
      R"(
    %0 = "stablehlo.concatenate"(%a, %a) <{dimension = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %1 = "stablehlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %2 = "stablehlo.slice"(%a) <{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 1, 3>, strides = array<i64: 1, 1>}> : (tensor<2x3xf32>) -> tensor<1x2xf32>
    %3 = "stablehlo.pad"(%a, %s) <{edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
    %4 = "stablehlo.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf32>
    %5 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
    %6 = "stablehlo.reverse"(%a) <{dimensions = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = "stablehlo.broadcast_in_dim"(%a) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<2x2x3xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %6, %7) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<2x5xf32>, tensor<6xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<2x2x3xf32>) -> ())");
  const std::string expected =
      "  %a = f32[2,3] parameter(0)\n"
      "  %s = f32[] parameter(1)\n"
      "  %concatenate = f32[4,3] concatenate(%a, %a), dimensions={0}\n"
      "  %transpose = f32[3,2] transpose(%a), dimensions={1,0}\n"
      "  %slice = f32[1,2] slice(%a), slice={[0:1], [1:3]}\n"
      "  %pad = f32[2,5] pad(%a, %s), padding=0_0x1_1\n"
      "  %reshape = f32[6] reshape(%a)\n"
      "  %iota = s32[4] iota(), iota_dimension=0\n"
      "  %reverse = f32[2,3] reverse(%a), dimensions={1}\n"
      "  %broadcast = f32[2,2,3] broadcast(%a), dimensions={1,2}\n"
      "  ROOT %tuple = (f32[4,3], f32[3,2], f32[1,2], f32[2,5], f32[6], "
      "s32[4], f32[2,3], f32[2,2,3]) tuple(%concatenate, %transpose, %slice, "
      "%pad, %reshape, %iota, %reverse, %broadcast)\n";
  EXPECT_EQ(ImportEntry(pretty), expected);
  EXPECT_EQ(ImportEntry(generic), expected);
}

TEST(ShapeOpsTest, BroadcastInDimStretchesSizeOneDimensions) {
  // StableHLO broadcasts a size-1 dimension; HLO's broadcast cannot, so the
  // importer reshapes it away first.
  EXPECT_EQ(
      ImportEntry(Main("%a: tensor<1x3xf32>", "tensor<4x3xf32>", R"(
    %0 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>)")),
      "  %a = f32[1,3] parameter(0)\n"
      "  %reshape = f32[3] reshape(%a)\n"
      "  ROOT %broadcast = f32[4,3] broadcast(%reshape), dimensions={1}\n");
}

TEST(ShapeOpsTest, DynamicSliceAndUpdate) {
  EXPECT_EQ(ImportEntry(Main(
                "%a: tensor<4x4xf32>, %i: tensor<i32>, %u: tensor<2x2xf32>",
                "tensor<4x4xf32>", R"(
    %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %1 = stablehlo.add %0, %u : tensor<2x2xf32>
    %2 = stablehlo.dynamic_update_slice %a, %1, %i, %i : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
    return %2 : tensor<4x4xf32>)")),
            "  %a = f32[4,4] parameter(0)\n"
            "  %i = s32[] parameter(1)\n"
            "  %u = f32[2,2] parameter(2)\n"
            "  %dynamic-slice = f32[2,2] dynamic-slice(%a, %i, %i), "
            "dynamic_slice_sizes={2,2}\n"
            "  %add = f32[2,2] add(%dynamic-slice, %u)\n"
            "  ROOT %dynamic-update-slice = f32[4,4] dynamic-update-slice(%a, "
            "%add, %i, %i)\n");
}

TEST(DotTest, DotGeneralPrettyAndGeneric) {
  const std::string expected =
      "  %a = f32[2,3,4] parameter(0)\n"
      "  %b = f32[2,4,5] parameter(1)\n"
      "  ROOT %dot = f32[2,3,5] dot(%a, %b), lhs_batch_dims={0}, "
      "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
      "rhs_contracting_dims={1}, operand_precision={highest,default}\n";
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>",
                             "tensor<2x3x5xf32>", R"(
    %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    return %0 : tensor<2x3x5xf32>)")),
            expected);
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>",
                             "tensor<2x3x5xf32>", R"(
    %0 = "stablehlo.dot_general"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]}> : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    return %0 : tensor<2x3x5xf32>)")),
            expected);
}

TEST(DotTest, LegacyDotContractsTheLastLhsDimension) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2x3xf32>, %b: tensor<3xf32>",
                             "tensor<2xf32>", R"(
    %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>)")),
            "  %a = f32[2,3] parameter(0)\n"
            "  %b = f32[3] parameter(1)\n"
            "  ROOT %dot = f32[2] dot(%a, %b), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}\n");
}

TEST(ConvolutionTest, PrettyGenericAndRawDimensionNumbersAgree) {
  const std::string expected =
      "  %x = f32[1,5,5,2] parameter(0)\n"
      "  %k = f32[3,3,2,4] parameter(1)\n"
      "  ROOT %convolution = f32[1,3,2,4] convolution(%x, %k), "
      "window={size=3x3 stride=1x2 pad=0_0x0_1}, "
      "dim_labels=b01f_01io->b01f\n";
  const char* args = "%x: tensor<1x5x5x2xf32>, %k: tensor<3x3x2x4xf32>";
  EXPECT_EQ(ImportEntry(Main(args, "tensor<1x3x2x4xf32>", R"(
    %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 2], pad = [[0, 0], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x2x4xf32>
    return %0 : tensor<1x3x2x4xf32>)")),
            expected);
  EXPECT_EQ(ImportEntry(Main(args, "tensor<1x3x2x4xf32>", R"(
    %0 = "stablehlo.convolution"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, padding = dense<[[0, 0], [0, 1]]> : tensor<2x2xi64>, window_strides = array<i64: 1, 2>}> : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x2x4xf32>
    return %0 : tensor<1x3x2x4xf32>)")),
            expected);
  EXPECT_EQ(ImportEntry(Main(args, "tensor<1x3x2x4xf32>", R"(
    %0 = "stablehlo.convolution"(%x, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<[[0, 0], [0, 1]]> : tensor<2x2xi64>, window_strides = array<i64: 1, 2>}> : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x2x4xf32>
    return %0 : tensor<1x3x2x4xf32>)")),
            expected);
}

TEST(GatherScatterTest, GatherGeneric) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<5x3xf32>, %i: tensor<2x1xi32>",
                             "tensor<2x3xf32>", R"(
    %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>)")),
            "  %a = f32[5,3] parameter(0)\n"
            "  %i = s32[2,1] parameter(1)\n"
            "  ROOT %gather = f32[2,3] gather(%a, %i), offset_dims={1}, "
            "collapsed_slice_dims={0}, start_index_map={0}, "
            "index_vector_dim=1, slice_sizes={1,3}\n");
}

TEST(GatherScatterTest, ScatterWithItsRegion) {
  auto m = ParseStableHloModule(
      Main("%a: tensor<5xf32>, %i: tensor<2x1xi32>, %u: tensor<2xf32>",
           "tensor<5xf32>", R"(
    %0 = "stablehlo.scatter"(%a, %i, %u) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %1 = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<5xf32>, tensor<2x1xi32>, tensor<2xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintComp(**m),
            "  %a = f32[5] parameter(0)\n"
            "  %i = s32[2,1] parameter(1)\n"
            "  %u = f32[2] parameter(2)\n"
            "  ROOT %scatter = f32[5] scatter(%a, %i, %u), "
            "update_window_dims={}, inserted_window_dims={0}, "
            "scatter_dims_to_operand_dims={0}, index_vector_dim=1, "
            "indices_are_sorted=true, unique_indices=true, "
            "to_apply=%region_scatter\n");
  EXPECT_EQ(PrintComp(**m, "region_scatter"),
            "  %x = f32[] parameter(0)\n"
            "  %y = f32[] parameter(1)\n"
            "  ROOT %add = f32[] add(%x, %y)\n");
}

TEST(ReduceTest, PrettyAppliesAndRegionFormsAndVariadic) {
  auto m = ParseStableHloModule(
      Main("%a: tensor<2x3xf32>, %b: tensor<2x3xi32>",
           "tensor<2xf32>, tensor<3xf32>, tensor<3xi32>", R"(
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%a init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %1:2 = stablehlo.reduce(%a init: %cst), (%b init: %c) across dimensions = [0] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
     reducer(%x0: tensor<f32>, %y0: tensor<f32>) (%x1: tensor<i32>, %y1: tensor<i32>)  {
      %2 = stablehlo.maximum %x0, %y0 : tensor<f32>
      %3 = stablehlo.minimum %x1, %y1 : tensor<i32>
      stablehlo.return %2, %3 : tensor<f32>, tensor<i32>
    }
    return %0, %1#0, %1#1 : tensor<2xf32>, tensor<3xf32>, tensor<3xi32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintComp(**m),
            "  %a = f32[2,3] parameter(0)\n"
            "  %b = s32[2,3] parameter(1)\n"
            "  %constant = f32[] constant(0)\n"
            "  %constant.1 = s32[] constant(0)\n"
            "  %reduce = f32[2] reduce(%a, %constant), dimensions={1}, "
            "to_apply=%region_add\n"
            "  %reduce.1 = (f32[3], s32[3]) reduce(%a, %b, %constant, "
            "%constant.1), dimensions={0}, to_apply=%region_reduce\n"
            "  %get-tuple-element = f32[3] get-tuple-element(%reduce.1), "
            "index=0\n"
            "  %get-tuple-element.1 = s32[3] get-tuple-element(%reduce.1), "
            "index=1\n"
            "  ROOT %tuple = (f32[2], f32[3], s32[3]) tuple(%reduce, "
            "%get-tuple-element, %get-tuple-element.1)\n");
  // Block arguments: the accumulators first, then the values.
  EXPECT_EQ(PrintComp(**m, "region_reduce"),
            "  %x0 = f32[] parameter(0)\n"
            "  %x1 = s32[] parameter(1)\n"
            "  %y0 = f32[] parameter(2)\n"
            "  %y1 = s32[] parameter(3)\n"
            "  %maximum = f32[] maximum(%x0, %y0)\n"
            "  %minimum = s32[] minimum(%x1, %y1)\n"
            "  ROOT %tuple = (f32[], s32[]) tuple(%maximum, %minimum)\n");
}

TEST(ReduceTest, ReduceWindowGeneric) {
  EXPECT_EQ(
      ImportEntry(Main("%a: tensor<1x4x4x1xf32>", "tensor<1x2x2x1xf32>", R"(
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%a, %cst) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %1 = stablehlo.maximum %x, %y : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<1x4x4x1xf32>, tensor<f32>) -> tensor<1x2x2x1xf32>
    return %0 : tensor<1x2x2x1xf32>)")),
      "  %a = f32[1,4,4,1] parameter(0)\n"
      "  %constant = f32[] constant(-inf)\n"
      "  ROOT %reduce-window = f32[1,2,2,1] reduce-window(%a, "
      "%constant), window={size=1x2x2x1 stride=1x2x2x1}, "
      "to_apply=%region_reduce_window\n");
}

TEST(SortTest, ComparatorRegionDimensionAndStability) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<5xf32>, %b: tensor<5xi32>",
                             "tensor<5xf32>, tensor<5xi32>", R"(
    %0:2 = "stablehlo.sort"(%a, %b) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>, %p: tensor<i32>, %q: tensor<i32>):
      %1 = stablehlo.compare  GT, %x, %y,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
    return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>)")),
            "  %a = f32[5] parameter(0)\n"
            "  %b = s32[5] parameter(1)\n"
            "  %sort = (f32[5], s32[5]) sort(%a, %b), dimensions={0}, "
            "is_stable=true, to_apply=%region_sort\n"
            "  %get-tuple-element = f32[5] get-tuple-element(%sort), index=0\n"
            "  %get-tuple-element.1 = s32[5] get-tuple-element(%sort), "
            "index=1\n"
            "  ROOT %tuple = (f32[5], s32[5]) tuple(%get-tuple-element, "
            "%get-tuple-element.1)\n");
}

TEST(ControlFlowTest, PrettyWhileWithACapturedValue) {
  // %limit is used by the condition without being a loop variable: it
  // joins the loop state and the body passes it through.
  auto m = ParseStableHloModule(
      Main("%limit: tensor<i32>, %x: tensor<f32>", "tensor<f32>", R"(
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %acc = %x) : tensor<i32>, tensor<f32>
     cond {
      %1 = stablehlo.compare  LT, %i, %limit,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %i, %c1 : tensor<i32>
      %2 = stablehlo.add %acc, %acc : tensor<f32>
      stablehlo.return %1, %2 : tensor<i32>, tensor<f32>
    }
    return %0#1 : tensor<f32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintComp(**m),
            "  %limit = s32[] parameter(0)\n"
            "  %x = f32[] parameter(1)\n"
            "  %constant = s32[] constant(0)\n"
            "  %tuple = (s32[], f32[], s32[]) tuple(%constant, %x, %limit)\n"
            "  %while = (s32[], f32[], s32[]) while(%tuple), "
            "condition=%cond, body=%body\n"
            "  %get-tuple-element = s32[] get-tuple-element(%while), index=0\n"
            "  ROOT %get-tuple-element.1 = f32[] get-tuple-element(%while), "
            "index=1\n");
  EXPECT_EQ(PrintComp(**m, "cond"),
            "  %param = (s32[], f32[], s32[]) parameter(0)\n"
            "  %i = s32[] get-tuple-element(%param), index=0\n"
            "  %acc = f32[] get-tuple-element(%param), index=1\n"
            "  %limit = s32[] get-tuple-element(%param), index=2\n"
            "  ROOT %compare = pred[] compare(%i, %limit), direction=LT, "
            "type=SIGNED\n");
  EXPECT_EQ(PrintComp(**m, "body"),
            "  %param = (s32[], f32[], s32[]) parameter(0)\n"
            "  %i = s32[] get-tuple-element(%param), index=0\n"
            "  %acc = f32[] get-tuple-element(%param), index=1\n"
            "  %constant = s32[] constant(1)\n"
            "  %add = s32[] add(%i, %constant)\n"
            "  %add.1 = f32[] add(%acc, %acc)\n"
            "  %limit = s32[] get-tuple-element(%param), index=2\n"
            "  ROOT %tuple = (s32[], f32[], s32[]) tuple(%add, %add.1, "
            "%limit)\n");
}

TEST(ControlFlowTest, GenericIfAndCaseCaptureTheirOperands) {
  auto m = ParseStableHloModule(
      Main("%p: tensor<i1>, %n: tensor<i32>, %x: tensor<f32>",
           "tensor<f32>, tensor<f32>", R"(
    %0 = "stablehlo.if"(%p) ({
      %1 = stablehlo.negate %x : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }, {
      stablehlo.return %x : tensor<f32>
    }) : (tensor<i1>) -> tensor<f32>
    %1 = "stablehlo.case"(%n) ({
      %c = stablehlo.constant dense<1.0> : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }, {
      %2 = stablehlo.multiply %x, %x : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %0, %1 : tensor<f32>, tensor<f32>)"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintComp(**m),
            "  %p = pred[] parameter(0)\n"
            "  %n = s32[] parameter(1)\n"
            "  %x = f32[] parameter(2)\n"
            "  %tuple = (f32[]) tuple(%x)\n"
            "  %tuple.1 = (f32[]) tuple(%x)\n"
            "  %conditional = f32[] conditional(%p, %tuple, %tuple.1), "
            "true_computation=%branch_0, false_computation=%branch_1\n"
            "  %tuple.2 = () tuple()\n"
            "  %tuple.3 = (f32[]) tuple(%x)\n"
            "  %conditional.1 = f32[] conditional(%n, %tuple.2, %tuple.3), "
            "branch_computations={%branch_0.1, %branch_1.1}\n"
            "  ROOT %tuple.4 = (f32[], f32[]) tuple(%conditional, "
            "%conditional.1)\n");
  EXPECT_EQ(PrintComp(**m, "branch_0"),
            "  %param = (f32[]) parameter(0)\n"
            "  %x = f32[] get-tuple-element(%param), index=0\n"
            "  ROOT %negate = f32[] negate(%x)\n");
}

TEST(CallTest, FuncCallBetweenFunctionsAndMultipleResults) {
  auto m = ParseStableHloModule(R"(
module @m {
  func.func public @main(%a: tensor<2xf32>) -> (tensor<2xf32>) {
    %0:2 = func.call @pair(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    %1 = call @plus(%0#0, %0#1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func private @pair(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %0 = stablehlo.negate %x : tensor<2xf32>
    return %x, %0 : tensor<2xf32>, tensor<2xf32>
  }
  func.func private @plus(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %x, %y : tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
})");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintComp(**m),
            "  %a = f32[2] parameter(0)\n"
            "  %call = (f32[2], f32[2]) call(%a), to_apply=%pair\n"
            "  %get-tuple-element = f32[2] get-tuple-element(%call), index=0\n"
            "  %get-tuple-element.1 = f32[2] get-tuple-element(%call), "
            "index=1\n"
            "  ROOT %call.1 = f32[2] call(%get-tuple-element, "
            "%get-tuple-element.1), to_apply=%plus\n");
  EXPECT_EQ((*m)->entry_computation()->name(), "main");
}

TEST(CallTest, CompositeInlinesItsDecomposition) {
  EXPECT_EQ(ImportEntry(R"(
module @m {
  func.func public @main(%a: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = stablehlo.composite "my.double" %a {composite_attributes = {k = 2 : i64}, decomposition = @my.double.impl, version = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  func.func private @my.double.impl(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %x, %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
})"),
            "  %a = f32[2] parameter(0)\n"
            "  ROOT %add = f32[2] add(%a, %a)\n");
}

TEST(CustomCallTest, TargetBackendConfigApiVersionAndSideEffect) {
  EXPECT_EQ(ImportEntry(Main("%a: tensor<2xf32>", "tensor<2xf32>", R"(
    %0 = stablehlo.custom_call @my_target(%a) {api_version = 2 : i32, backend_config = "cfg \"q\"", has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>)")),
            "  %a = f32[2] parameter(0)\n"
            "  ROOT %custom-call = f32[2] custom-call(%a), "
            "custom_call_target=\"my_target\", "
            "custom_call_has_side_effect=true, "
            "api_version=API_VERSION_STATUS_RETURNING, "
            "backend_config=\"cfg \\\"q\\\"\"\n");
}

TEST(MiscTest, IotaRngBitGeneratorOptimizationBarrierTuples) {
  EXPECT_EQ(
      ImportEntry(Main("%s: tensor<2xui64>, %a: tensor<2xf32>",
                       "tensor<2xui64>, tensor<3xui32>, tensor<2xf32>", R"(
    %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xui32>)
    %1 = stablehlo.optimization_barrier %a : tensor<2xf32>
    return %0#0, %0#1, %1 : tensor<2xui64>, tensor<3xui32>, tensor<2xf32>)")),
      "  %s = u64[2] parameter(0)\n"
      "  %a = f32[2] parameter(1)\n"
      "  %rng-bit-generator = (u64[2], u32[3]) rng-bit-generator(%s), "
      "algorithm=rng_default\n"
      "  %get-tuple-element = u64[2] "
      "get-tuple-element(%rng-bit-generator), index=0\n"
      "  %get-tuple-element.1 = u32[3] "
      "get-tuple-element(%rng-bit-generator), index=1\n"
      "  %tuple = (f32[2]) tuple(%a)\n"
      "  %opt-barrier = (f32[2]) opt-barrier(%tuple)\n"
      "  %get-tuple-element.2 = f32[2] get-tuple-element(%opt-barrier), "
      "index=0\n"
      "  ROOT %tuple.1 = (u64[2], u32[3], f32[2]) "
      "tuple(%get-tuple-element, %get-tuple-element.1, "
      "%get-tuple-element.2)\n");
}

TEST(CollectivesTest, AllReduceWithReplicaGroupsAndChannel) {
  EXPECT_THAT(ImportEntry(Main("%a: tensor<4xf32>", "tensor<4xf32>", R"(
    %0 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %1 = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>)")),
              HasSubstr("ROOT %all-reduce = f32[4] all-reduce(%a), "
                        "channel_id=1, replica_groups={{0,1}}, "
                        "use_global_device_ids=true, "
                        "to_apply=%region_all_reduce"));
}

TEST(ChloTest, OpcodesAndDecompositions) {
  EXPECT_EQ(ImportEntry(Main(
                "%a: tensor<3xf32>, %b: tensor<f32>",
                "tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>", R"(
    %0 = chlo.erf %a : tensor<3xf32> -> tensor<3xf32>
    %1 = chlo.broadcast_add %a, %b : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
    %2 = chlo.is_inf %a : tensor<3xf32> -> tensor<3xi1>
    %3 = chlo.square %a : tensor<3xf32> -> tensor<3xf32>
    return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xi1>, tensor<3xf32>)")),
            "  %a = f32[3] parameter(0)\n"
            "  %b = f32[] parameter(1)\n"
            "  %erf = f32[3] erf(%a)\n"
            "  %broadcast = f32[3] broadcast(%b), dimensions={}\n"
            "  %add = f32[3] add(%a, %broadcast)\n"
            "  %abs = f32[3] abs(%a)\n"
            "  %constant = f32[] constant(inf)\n"
            "  %broadcast.1 = f32[3] broadcast(%constant), dimensions={}\n"
            "  %compare = pred[3] compare(%abs, %broadcast.1), direction=EQ\n"
            "  %multiply = f32[3] multiply(%a, %a)\n"
            "  ROOT %tuple = (f32[3], f32[3], pred[3], f32[3]) tuple(%erf, "
            "%add, %compare, %multiply)\n");
}

TEST(ChloTest, TopKGivesValuesAndIndices) {
  EXPECT_EQ(
      ImportEntry(Main("%a: tensor<5xf32>", "tensor<2xf32>, tensor<2xi32>", R"(
    %values, %indices = chlo.top_k(%a, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi32>)
    return %values, %indices : tensor<2xf32>, tensor<2xi32>)")),
      "  %a = f32[5] parameter(0)\n"
      "  %topk = (f32[2], s32[2]) topk(%a), k=2, largest=true\n"
      "  %get-tuple-element = f32[2] get-tuple-element(%topk), index=0\n"
      "  %get-tuple-element.1 = s32[2] get-tuple-element(%topk), "
      "index=1\n"
      "  ROOT %tuple = (f32[2], s32[2]) tuple(%get-tuple-element, "
      "%get-tuple-element.1)\n");
}

}  // namespace
}  // namespace plexa::stablehlo_testing
