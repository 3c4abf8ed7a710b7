#include <memory>
#include <string>
#include <vector>

#include "core/text/hlo_parser.h"
#include "core/xla_proto/xla_proto_export.h"
#include "core/xla_proto/xla_proto_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::xla_proto_test {
namespace {

using ::testing::HasSubstr;

TEST(XlaProtoImport, MlpPrintsAsWrittenByHand) {
  std::unique_ptr<Module> m = Import("mlp");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Text(*m), R"(HloModule jit_mlp

%region_add.1 (a.1: f32[], b.2: f32[]) -> f32[] {
  %a.1 = f32[] parameter(0)
  %b.2 = f32[] parameter(1)
  ROOT %add.3 = f32[] add(%a.1, %b.2)
}

ENTRY %main.9 (x.4: f32[2,3], w.5: f32[3,2]) -> f32[2] {
  %x.4 = f32[2,3]{1,0} parameter(0)
  %w.5 = f32[3,2]{1,0} parameter(1)
  %dot.6 = f32[2,2]{1,0} dot(%x.4, %w.5), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %b.7 = f32[2]{0} constant({0.5, -20})
  %broadcast.8 = f32[2,2]{1,0} broadcast(%b.7), dimensions={1}
  %add.9 = f32[2,2]{1,0} add(%dot.6, %broadcast.8)
  %zero.10 = f32[] constant(0)
  %zeros.11 = f32[2,2]{1,0} broadcast(%zero.10), dimensions={}
  %relu.13 = f32[2,2]{1,0} maximum(%add.9, %zeros.11)
  ROOT %reduce.12 = f32[2]{0} reduce(%relu.13, %zero.10), dimensions={1}, to_apply=%region_add.1
}
)");
}

TEST(XlaProtoImport, MlpRunsOnTheEvaluator) {
  std::unique_ptr<Module> m = Import("mlp");
  ASSERT_NE(m, nullptr);
  // By hand: x.w = {{4, 5}, {10, 11}}; + {0.5, -20} along dimension 1;
  // relu; row sums.
  Literal x = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  Literal w = Literal::CreateR2<float>({{1, 0}, {0, 1}, {1, 1}});
  absl::StatusOr<Literal> r = Evaluator().Run(*m, {x, w});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<float>({4.5f, 10.5f}));
}

}  // namespace
}  // namespace plexa::xla_proto_test

namespace plexa::xla_proto_test {
namespace {

using ::testing::HasSubstr;

// Each line of `want` (written by hand) is a line of the module's text.
void ExpectLines(const Module& m, const std::vector<std::string>& want) {
  const std::string text = Text(m);
  for (const std::string& line : want) {
    EXPECT_THAT(text, HasSubstr("\n  " + line + "\n")) << text;
  }
}

TEST(XlaProtoImport, ElementwiseShapesAndConstantsOfEveryType) {
  std::unique_ptr<Module> m = Import("shapes");
  ASSERT_NE(m, nullptr);
  ExpectLines(
      *m,
      {
          "%lt = pred[2,3] compare(%p, %exp), direction=LT, type=TOTALORDER",
          "%sel = f32[2,3] select(%lt, %p, %exp)",
          "%cvt = s32[2,3] convert(%sel)",
          "%bits = s32[2,3] bitcast-convert(%p)",
          "%tr = f32[3,2] transpose(%p), dimensions={1,0}",
          "%sl = f32[2,2] slice(%p), slice={[0:2:1], [0:3:2]}",
          "%ds = f32[1,2] dynamic-slice(%p, %i, %i), dynamic_slice_sizes={1,2}",
          "%dus = f32[2,3] dynamic-update-slice(%p, %ds, %i, %i)",
          "%cat = f32[4,3] concatenate(%p, %exp), dimensions={0}",
          "%pad = f32[3,6] pad(%p, %zero), padding=1_0_0x0_1_1",
          "%iota = s32[4] iota(), iota_dimension=0",
          "%rev = f32[2,3] reverse(%p), dimensions={1}",
          "%clamp = f32[2,3] clamp(%neg, %p, %exp)",
          "%rp = f32[2,3] reduce-precision(%p), exponent_bits=5, "
          "mantissa_bits=10",
          "%gte = s32[4] get-tuple-element(%tup), index=1",
          "%barrier = (f32[2,3], s32[4]) opt-barrier(%tup)",
          // s32s {1, 2, 3, 4} in layout {0,1} (column-major) order.
          "%c_s32 = s32[2,2]{0,1} constant({ { 1, 3 }, { 2, 4 } })",
          "%c_pred = pred[3] constant({1, 0, 1})",
          "%c_bf16 = bf16[2] constant({1, -2.5})",
          "%c_f16 = f16[] constant(1.5)",
          "%c_u8 = u8[3] constant({1, 2, 255})",
          "%c_s64 = s64[2] constant({-1, 9007199254740993})",
          "%c_c64 = c64[] constant((1, -2))",
          "%c_f64 = f64[] constant(0.1)",
          "%c_s4 = s4[2] constant({-1, 7})",
          "%c_u16 = u16[] constant(4660)",
          "%c_u64 = u64[] constant(18446744073709551615)",
          "%c_s8 = s8[2] constant({-128, 127})",
          "%c_u32 = u32[] constant(4294967295)",
          "%c_f8 = f8e4m3fn[] constant(1)",
          "%c_tuple = (f32[], s16[1]) constant(( -0.25, {-2} ))",
      });
}

TEST(XlaProtoImport, WindowsIndexingLinalgCollectivesSideEffects) {
  absl::StatusOr<XlaProtoImport> imported = ImportXlaProto(ReadPb("more_ops"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->kind, "HloProto");
  EXPECT_TRUE(imported->arguments.empty());
  ExpectLines(
      *imported->module,
      {
          "%sort = f32[4] sort(%x), dimensions={0}, is_stable=true, "
          "to_apply=%gt",
          "%rw = f32[3] reduce-window(%x, %zero), window={size=2}, "
          "to_apply=%add",
          "%sas = f32[4] select-and-scatter(%x, %rw, %zero), window={size=2}, "
          "select=%gt, scatter=%add",
          "%map = f32[4] map(%x, %x), dimensions={0}, to_apply=%add, "
          "metadata={op_type=\"add\" op_name=\"jit(f)/map \\\"x\\\"\" "
          "source_file=\"/tmp/f.py\" source_line=12}",
          "%conv = f32[1,3,1] convolution(%x3, %k), window={size=2}, "
          "dim_labels=b0f_0io->b0f, operand_precision={highest,default}",
          "%gather = f32[2,2] gather(%m, %idx), offset_dims={1}, "
          "collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
          "slice_sizes={1,2}",
          "%scatter = f32[2,2] scatter(%m, %idx, %gather), "
          "update_window_dims={1}, "
          "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
          "index_vector_dim=1, indices_are_sorted=true, unique_indices=true, "
          "to_apply=%add",
          "%dot = f32[2,2] dot(%m, %m), lhs_contracting_dims={1}, "
          "rhs_contracting_dims={1}",
          "%chol = f32[2,2] cholesky(%dot), lower=true",
          "%ts = f32[2,2] triangular-solve(%chol, %m), left_side=true, "
          "lower=true, "
          "transpose_a=NO_TRANSPOSE",
          "%fft = c64[4] fft(%cx), fft_type=IFFT, fft_length={4}",
          "%topk = (f32[2], s32[2]) topk(%x), k=2, largest=true",
          "%cc = f32[4]{0} custom-call(%x), custom_call_target=\"my_target\", "
          "operand_layout_constraints={f32[4]{0}}, "
          "custom_call_has_side_effect=true, "
          "api_version=API_VERSION_STATUS_RETURNING, backend_config=\"cfg\"",
          "%ar = f32[4] all-reduce(%x), channel_id=1, replica_groups={{0,1}}, "
          "to_apply=%add",
          // iota(4) as [2,2] transposed: {0,2}, {1,3}.
          "%ag = f32[8] all-gather(%x), channel_id=2, "
          "replica_groups={{0,2},{1,3}}, dimensions={0}, "
          "use_global_device_ids=true",
          "%rsc = f32[2] reduce-scatter(%x), replica_groups={{0,1}}, "
          "dimensions={0}, to_apply=%add",
          "%a2a = f32[4] all-to-all(%x), replica_groups={{0,1}}, "
          "dimensions={0}",
          "%cp = f32[4] collective-permute(%x), channel_id=3, "
          "source_target_pairs={{0,1},{1,0}}",
          "%rbg = (u64[2], u32[4]) rng-bit-generator(%state), "
          "algorithm=rng_three_fry",
          "%tok = token[] after-all()",
          "%in = (f32[2], token[]) infeed(%tok), infeed_config=\"in\"",
          "%out = token[] outfeed(%x, %tok), outfeed_shape=f32[4]{0}, "
          "outfeed_config=\"out\"",
          "%rng = f32[3] rng(%zero, %zero), distribution=rng_normal",
      });
}

TEST(XlaProtoImport, RaggedDotInItsThreeModes) {
  std::unique_ptr<Module> m = Import("ragged_dot");
  ASSERT_NE(m, nullptr);
  ExpectLines(*m, {"%rows = f32[4,3]{1,0} ragged-dot(%x, %w, %sizes), "
                   "lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
                   "lhs_ragged_dims={0}, rhs_group_dims={0}",
                   "%grads = f32[2,2,3]{2,1,0} ragged-dot(%x, %v, %sizes), "
                   "lhs_contracting_dims={0}, rhs_contracting_dims={0}, "
                   "lhs_ragged_dims={0}",
                   "%batch = f32[4,1]{1,0} ragged-dot(%x, %wb, %sizes), "
                   "lhs_batch_dims={0}, lhs_contracting_dims={1}, "
                   "rhs_batch_dims={0}, rhs_contracting_dims={1}, "
                   "lhs_ragged_dims={0}"});
  // By hand, sizes {1, 2}: rows 0 | 1-2 | 3 (beyond the sum: 0) take
  // w[0] | w[1] | nothing; grads sums k=0 into group 0 and k=1,2 into group
  // 1 (x[k] outer v[k]); batch is the plain dot of every row.
  auto lit = [](const char* shape, const char* values) {
    absl::StatusOr<Literal> l = ParseLiteral(values, *ParseShape(shape));
    EXPECT_TRUE(l.ok()) << l.status();
    return l.ok() ? *std::move(l) : Literal();
  };
  absl::StatusOr<Literal> r = Evaluator().Run(
      *m, {lit("f32[4,2]", "{ {1, 2}, {3, 4}, {5, 6}, {7, 8} }"),
           lit("f32[2,2,3]",
               "{ { {1, 0, 0}, {0, 1, 0} }, { {0, 0, 1}, {1, 1, 1} } }"),
           lit("s64[2]", "{1, 2}"),
           lit("f32[4,3]", "{ {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1} }"),
           lit("f32[4,2,1]",
               "{ { {1}, {1} }, { {1}, {-1} }, { {2}, {0} }, { {0}, {3} } }")});
  ASSERT_TRUE(r.ok()) << r.status();
  std::vector<Literal> parts = std::move(*r).DecomposeTuple();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0],
            lit("f32[4,3]", "{ {1, 2, 0}, {4, 4, 7}, {6, 6, 11}, {0, 0, 0} }"));
  EXPECT_EQ(parts[1], lit("f32[2,2,3]",
                          "{ { {1, 0, 0}, {2, 0, 0} }, "
                          "{ {0, 3, 5}, {0, 4, 6} } }"));
  EXPECT_EQ(parts[2], lit("f32[4,1]", "{ {3}, {-1}, {10}, {24} }"));
}

TEST(XlaProtoRoundTrip, RaggedDotUsesField90) {
  std::unique_ptr<Module> m = Import("ragged_dot");
  ASSERT_NE(m, nullptr);
  const std::string bytes = SerializeXlaHloModuleProto(*m);
  xla_pb::HloModuleProto proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  int ragged = 0;
  for (const xla_pb::HloInstructionProto& i :
       proto.computations(0).instructions()) {
    if (i.opcode() != "ragged-dot") continue;
    ++ragged;
    EXPECT_FALSE(i.has_dot_dimension_numbers()) << i.name();
    ASSERT_TRUE(i.has_ragged_dot_dimension_numbers()) << i.name();
    EXPECT_EQ(i.ragged_dot_dimension_numbers().lhs_ragged_dimensions_size(), 1);
    if (i.name() == "rows") {
      EXPECT_EQ(i.ragged_dot_dimension_numbers().rhs_group_dimensions(0), 0);
      EXPECT_EQ(i.ragged_dot_dimension_numbers()
                    .dot_dimension_numbers()
                    .lhs_contracting_dimensions(0),
                1);
    }
  }
  EXPECT_EQ(ragged, 3);
  absl::StatusOr<std::unique_ptr<Module>> back = ParseXlaHloProto(bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(Text(**back), Text(*m));
}

TEST(XlaProtoImport, SnapshotCarriesItsArgumentsAndRuns) {
  absl::StatusOr<XlaProtoImport> imported =
      ImportXlaProto(ReadPb("control_snapshot"));
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->kind, "HloSnapshot");
  ASSERT_EQ(imported->arguments.size(), 2u);
  EXPECT_EQ(imported->arguments[0], Literal::CreateR1<float>({1, -2}));
  EXPECT_EQ(imported->arguments[1], Literal::CreateR0<bool>(true));
  ExpectLines(
      *imported->module,
      {
          "ROOT %lt = pred[] compare(%n, %three), direction=LT, type=SIGNED",
          "%loop = (s32[], f32[2]) while(%init), condition=%cond, body=%body",
          "%c = f32[2] conditional(%p, %w, %w), true_computation=%on_true, "
          "false_computation=%on_false",
          "%f = f32[2] fusion(%c, %x), kind=kLoop, calls=%fused",
          "ROOT %r = f32[2] call(%f), to_apply=%square",
      });
  // By hand: three doublings (x8), negate (true) or abs (false), + x,
  // squared.
  absl::StatusOr<Literal> r =
      Evaluator().Run(*imported->module, imported->arguments);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<float>({49, 196}));
  r = Evaluator().Run(*imported->module, {Literal::CreateR1<float>({1, -2}),
                                          Literal::CreateR0<bool>(false)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, Literal::CreateR1<float>({81, 196}));
}

}  // namespace
}  // namespace plexa::xla_proto_test
