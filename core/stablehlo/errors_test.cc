// Errors: located at LINE:COL of the MLIR text, naming the op or type,
// never a crash. And round trips: import -> HLO text -> parse -> print.
#include <string>

#include "absl/status/status.h"
#include "core/stablehlo/stablehlo_test_util.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::stablehlo_testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

absl::Status Import(const std::string& text) {
  return ParseStableHloModule(text).status();
}
std::string Msg(const absl::Status& s) { return std::string(s.message()); }

TEST(ErrorsTest, UnknownOpNamesItAndItsLocation) {
  absl::Status s = Import(Main("%a: tensor<2xf32>", "tensor<2xf32>",
                               "    %0 = stablehlo.frobnicate %a : "
                               "tensor<2xf32>\n    return %0 : tensor<2xf32>"));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  // Line 3 (after "module @m {" and the func line), column 10.
  EXPECT_THAT(Msg(s), StartsWith("3:10: "));
  EXPECT_THAT(Msg(s), HasSubstr("'stablehlo.frobnicate'"));
}

TEST(ErrorsTest, DynamicAndQuantizedTypesAreRefusedNamingTheType) {
  absl::Status dyn = Import(Main("%a: tensor<?x2xf32>", "tensor<2xf32>",
                                 "    return %a : tensor<?x2xf32>"));
  EXPECT_EQ(dyn.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Msg(dyn), StartsWith("2:30: "));
  EXPECT_THAT(Msg(dyn), HasSubstr("tensor<?x2xf32>"));
  absl::Status q =
      Import(Main("%a: tensor<2x!quant.uniform<i8:f32, 1.0>>", "tensor<2xf32>",
                  "    return %a : tensor<2xf32>"));
  EXPECT_THAT(Msg(q), HasSubstr("!quant.uniform"));
  absl::Status tf32 = Import(Main("%a: tensor<2xtf32>", "tensor<2xf32>",
                                  "    return %a : tensor<2xf32>"));
  EXPECT_THAT(Msg(tf32), HasSubstr("'tf32'"));
}

TEST(ErrorsTest, RefusedOpsSayWhy) {
  absl::Status s = Import(Main("%a: tensor<2xf32>", "tensor<2xf32>", R"(
    %0 = chlo.zeta %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    return %0 : tensor<2xf32>)"));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(s), StartsWith("4:10: 'chlo.zeta': "));
  EXPECT_THAT(Msg(s), HasSubstr("no HLO counterpart"));
}

TEST(ErrorsTest, ShapeErrorsFromTheHloParserAreMovedToTheMlirOp) {
  // The declared result type disagrees with the operands: shape inference
  // (in the HLO verifier) reports it at the MLIR op.
  absl::Status s =
      Import(Main("%a: tensor<2xf32>, %b: tensor<3xf32>", "tensor<2xf32>", R"(
    %0 = stablehlo.add %a, %b : tensor<2xf32>
    return %0 : tensor<2xf32>)"));
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(Msg(s), StartsWith("4:10: 'stablehlo.add': "));
}

TEST(ErrorsTest, UndefinedValuesAndMalformedText) {
  absl::Status undefined = Import(Main("%a: tensor<2xf32>", "tensor<2xf32>", R"(
    %0 = stablehlo.add %a, %zz : tensor<2xf32>
    return %0 : tensor<2xf32>)"));
  EXPECT_THAT(Msg(undefined), StartsWith("4:28: use of undefined value '%zz'"));
  EXPECT_THAT(
      Msg(Import("module @m {\n  func.func @main(%a: tensor<2xf32> -> ")),
      StartsWith("2:37: "));
  EXPECT_THAT(Msg(Import("module @m {\n  func.func @main() -> () {\n")),
              HasSubstr("expected '}'"));
  EXPECT_THAT(Msg(Import("hello")),
              StartsWith("1:1: expected 'func.func' or 'module'"));
  EXPECT_THAT(Msg(Import(Main("", "tensor<2xf32>", R"(
    %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>
    return %0 : tensor<2xf32>)"))),
              HasSubstr("dimension 0 has 3 element(s) where the type has 2"));
}

TEST(ErrorsTest, ReduceRegionsMustNotCaptureValues) {
  absl::Status s =
      Import(Main("%a: tensor<2xf32>, %k: tensor<f32>", "tensor<f32>", R"(
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
     reducer(%x: tensor<f32>, %y: tensor<f32>)  {
      %1 = stablehlo.add %x, %k : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }
    return %0 : tensor<f32>)"));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(Msg(s), StartsWith("7:30: '%k' is defined outside the region"));
}

TEST(ErrorsTest, NoEntry) {
  EXPECT_THAT(
      Msg(Import(R"(func.func private @f(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
})")),
      HasSubstr("no entry function"));
}

TEST(ModuleTest, OnlyPublicFunctionIsTheEntryLocsAndCommentsAreSkipped) {
  auto m = ParseStableHloModule(R"(#loc = loc(unknown)
// a comment
#loc1 = loc("f.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @f(%arg0: tensor<f32> {mhlo.sharding = "{replicated}", jax.buffer_donor = true} loc("x")) -> (tensor<f32> {jax.result_info = ""}) {
    %0 = stablehlo.negate %arg0 : tensor<f32> loc(#loc1)
    return %0 : tensor<f32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc2 = loc("g.py":1:1)
)");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "jit_f");
  EXPECT_EQ((*m)->entry_computation()->name(), "f");
  EXPECT_EQ(PrintComp(**m),
            "  %arg0 = f32[] parameter(0)\n"
            "  ROOT %negate = f32[] negate(%arg0)\n");
}

TEST(ModuleTest, LooksLikeStableHlo) {
  EXPECT_TRUE(LooksLikeStableHlo("  // c\nmodule @m {"));
  EXPECT_TRUE(LooksLikeStableHlo("func.func @main() {"));
  EXPECT_TRUE(LooksLikeStableHlo("#loc = loc(unknown)\nmodule {"));
  EXPECT_TRUE(LooksLikeStableHlo("\"builtin.module\"() ({"));
  EXPECT_FALSE(LooksLikeStableHlo("HloModule m\n"));
}

// Import, print as HLO, parse the HLO, print again: the same text.
TEST(RoundTripTest, ImportedModulesPrintAndParseBack) {
  const std::string programs[] = {
      Main("%a: tensor<2x3xf32>, %b: tensor<3x4xf32>", "tensor<2x4xf32>", R"(
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %cst = stablehlo.constant dense<0.0> : tensor<2x4xf32>
    %1 = stablehlo.maximum %0, %cst : tensor<2x4xf32>
    return %1 : tensor<2x4xf32>)"),
      Main("%x: tensor<f32>", "tensor<f32>", R"(
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %v = %x) : tensor<i32>, tensor<f32>
     cond {
      %c3 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %i, %c1 : tensor<i32>
      %2 = stablehlo.multiply %v, %x : tensor<f32>
      stablehlo.return %1, %2 : tensor<i32>, tensor<f32>
    }
    return %0#1 : tensor<f32>)"),
  };
  for (const std::string& p : programs) {
    auto m = ParseStableHloModule(p);
    ASSERT_TRUE(m.ok()) << m.status();
    const std::string once = PrintModule(**m);
    auto again = ParseHloModule(once);
    ASSERT_TRUE(again.ok()) << again.status() << "\n" << once;
    EXPECT_EQ(PrintModule(**again), once);
  }
}

}  // namespace
}  // namespace plexa::stablehlo_testing

namespace plexa::stablehlo_testing {
namespace {

// `mlir-opt --mlir-print-op-generic` writes the module and its functions
// generically too.
TEST(ModuleTest, FullyGenericModuleAndFunctions) {
  auto m =
      ParseStableHloModule(R"("builtin.module"() <{sym_name = "jit_main"}> ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0 = "func.call"(%arg0) <{callee = @twice}> : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "twice", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<2xf32>):
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%0) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
)");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->name(), "jit_main");
  EXPECT_EQ(PrintComp(**m),
            "  %arg0 = f32[2] parameter(0)\n"
            "  ROOT %call = f32[2] call(%arg0), to_apply=%twice\n");
  EXPECT_EQ(PrintComp(**m, "twice"),
            "  %arg0 = f32[2] parameter(0)\n"
            "  ROOT %add = f32[2] add(%arg0, %arg0)\n");
}

}  // namespace
}  // namespace plexa::stablehlo_testing
