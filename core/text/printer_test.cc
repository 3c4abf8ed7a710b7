// The printer's spelling of each attribute, its ordering rules and options.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

std::unique_ptr<Module> Parse(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  EXPECT_TRUE(m.ok()) << m.status() << "\n" << text;
  if (!m.ok()) return nullptr;
  return std::move(m).value();
}

// Prints instruction `name` of a module whose entry body is `body`.
std::string PrintOf(absl::string_view body, absl::string_view name,
                    absl::string_view prefix = "",
                    const PrintOptions& options = {}) {
  auto m = Parse(
      absl::StrCat("HloModule t\n", prefix, "\nENTRY %e {\n", body, "\n}\n"));
  if (m == nullptr) return "";
  for (const Computation* c : m->computations()) {
    if (const Instruction* i = c->GetInstructionWithName(name)) {
      return PrintInstruction(*i, options);
    }
  }
  return "<missing>";
}

constexpr absl::string_view kAdd =
    "%add { %x = f32[] parameter(0)\n %y = f32[] parameter(1)\n"
    " ROOT %s = f32[] add(%x, %y) }\n";

TEST(PrinterTest, WindowOmitsDefaults) {
  const std::string body = R"(  %x = f32[1,8,8,3]{3,2,1,0} parameter(0)
  %k = f32[3,3,3,16]{3,2,1,0} parameter(1)
  %a = f32[1,8,8,16]{3,2,1,0} convolution(%x, %k), window={size=3x3 stride=1x1 pad=0_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}, dim_labels=b01f_01io->b01f
  %b = f32[1,8,8,16]{3,2,1,0} convolution(%x, %k), window={rhs_reversal=0x1 size=3x3 pad=1_1x0_-1 stride=2x1 lhs_dilate=1x2 rhs_dilate=2x2}, dim_labels=b01f_01io->b01f, feature_group_count=3, batch_group_count=2)";
  EXPECT_EQ(PrintOf(body, "a"),
            "%a = f32[1,8,8,16]{3,2,1,0} convolution(f32[1,8,8,3]{3,2,1,0} "
            "%x, f32[3,3,3,16]{3,2,1,0} %k), window={size=3x3}, "
            "dim_labels=b01f_01io->b01f");
  EXPECT_EQ(PrintOf(body, "b"),
            "%b = f32[1,8,8,16]{3,2,1,0} convolution(f32[1,8,8,3]{3,2,1,0} "
            "%x, f32[3,3,3,16]{3,2,1,0} %k), window={size=3x3 stride=2x1 "
            "pad=1_1x0_-1 lhs_dilate=1x2 rhs_dilate=2x2 rhs_reversal=0x1}, "
            "dim_labels=b01f_01io->b01f, feature_group_count=3, "
            "batch_group_count=2");
}

TEST(PrinterTest, DimLabelsRoundTripIncludingUnusedDimensions) {
  const std::string body = R"(  %x = f32[2,3,1,10]{3,2,1,0} parameter(0)
  %k = f32[3,1,4,5]{3,2,1,0} parameter(1)
  ROOT %c = f32[2,4,1,8]{3,2,1,0} convolution(%x, %k), window={size=3}, dim_labels=bf?0_i?o0->bf?0)";
  EXPECT_EQ(PrintOf(body, "c", "", PrintOptions{false, true, true}),
            "%c = f32[2,4,1,8]{3,2,1,0} convolution(%x, %k), window={size=3}, "
            "dim_labels=bf?0_i?o0->bf?0");
}

TEST(PrinterTest, DotPadSliceGatherScatterSpelling) {
  const std::string body = R"(  %a = f32[2,3,4]{2,1,0} parameter(0)
  %b = f32[2,4,5]{2,1,0} parameter(1)
  %d1 = f32[2,3,5]{2,1,0} dot(%a, %b), rhs_contracting_dims={1}, rhs_batch_dims={0}, lhs_batch_dims={0}, lhs_contracting_dims={2}
  %m = f32[3,4]{1,0} parameter(2)
  %n = f32[4,5]{1,0} parameter(3)
  %d2 = f32[3,5]{1,0} dot(%m, %n), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %z = f32[] constant(0)
  %p1 = f32[4,6]{1,0} pad(%m, %z), padding=1_0_0x1_1_0
  %p2 = f32[5,11]{1,0} pad(%m, %z), padding=1_0_0x1_1_2
  %s1 = f32[2,4]{1,0} slice(%m), slice={[1:3:1], [0:4:1]}
  %s2 = f32[1,2]{1,0} slice(%m), slice={[0:3:2], [0:4:3]}
  %i = s32[2,1]{1,0} parameter(4)
  %g = f32[2,4]{1,0} gather(%m, %i), slice_sizes={1,4}, index_vector_dim=1, start_index_map={0}, collapsed_slice_dims={0}, offset_dims={1}
  ROOT %sc = f32[3,4]{1,0} scatter(%m, %i, %g), to_apply=%add, index_vector_dim=1, unique_indices=true, scatter_dims_to_operand_dims={0}, inserted_window_dims={0}, update_window_dims={1})";
  const PrintOptions brief{false, true, true};
  EXPECT_EQ(PrintOf(body, "d1", kAdd, brief),
            "%d1 = f32[2,3,5]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
            "rhs_contracting_dims={1}");
  EXPECT_EQ(PrintOf(body, "d2", kAdd, brief),
            "%d2 = f32[3,5]{1,0} dot(%m, %n), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={0}");
  EXPECT_EQ(PrintOf(body, "p1", kAdd, brief),
            "%p1 = f32[4,6]{1,0} pad(%m, %z), padding=1_0x1_1");
  EXPECT_EQ(PrintOf(body, "p2", kAdd, brief),
            "%p2 = f32[5,11]{1,0} pad(%m, %z), padding=1_0_0x1_1_2");
  EXPECT_EQ(PrintOf(body, "s1", kAdd, brief),
            "%s1 = f32[2,4]{1,0} slice(%m), slice={[1:3], [0:4]}");
  EXPECT_EQ(PrintOf(body, "s2", kAdd, brief),
            "%s2 = f32[1,2]{1,0} slice(%m), slice={[0:3:2], [0:4:3]}");
  EXPECT_EQ(PrintOf(body, "g", kAdd, brief),
            "%g = f32[2,4]{1,0} gather(%m, %i), offset_dims={1}, "
            "collapsed_slice_dims={0}, start_index_map={0}, "
            "index_vector_dim=1, slice_sizes={1,4}");
  EXPECT_EQ(PrintOf(body, "sc", kAdd, brief),
            "%sc = f32[3,4]{1,0} scatter(%m, %i, %g), update_window_dims={1}, "
            "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
            "index_vector_dim=1, unique_indices=true, to_apply=%add");
}

TEST(PrinterTest, AttributeOrderTypedCalledVerbatimControlMetadataBackend) {
  const std::string body = R"(  %p = f32[4]{0} parameter(0)
  %q = f32[4]{0} negate(%p)
  ROOT %r = f32[4]{0} reduce-window(%p, %p), backend_config="cfg", metadata={op_name="m"}, control-predecessors={%q}, sharding={replicated}, unknown_thing={1,2}, to_apply=%add, window={size=2}, frontend_attributes={a="b"}, origin={{"x"}})";
  EXPECT_EQ(PrintOf(body, "r", kAdd, PrintOptions{false, true, true}),
            "%r = f32[4]{0} reduce-window(%p, %p), window={size=2}, "
            "to_apply=%add, unknown_thing={1,2}, sharding={replicated}, "
            "frontend_attributes={a=\"b\"}, control-predecessors={%q}, "
            "metadata={op_name=\"m\"}, origin={{\"x\"}}, "
            "backend_config=\"cfg\"");
}

TEST(PrinterTest, OptionsDropPercentShapesAndVerbatimAttributes) {
  const std::string body =
      R"(  %p = f32[4]{0} parameter(0), metadata={op_name="m"}
  ROOT %r = f32[4]{0} negate(%p), sharding={replicated}, backend_config={"x":1})";
  EXPECT_EQ(PrintOf(body, "r", "", PrintOptions{false, false, false}),
            "r = f32[4]{0} negate(p), backend_config={\"x\":1}");
  EXPECT_EQ(PrintOf(body, "r"),
            "%r = f32[4]{0} negate(f32[4]{0} %p), sharding={replicated}, "
            "backend_config={\"x\":1}");
}

TEST(PrinterTest, BackendConfigQuotedUnlessJsonDict) {
  const PrintOptions brief{false, true, true};
  EXPECT_EQ(PrintOf("ROOT %p = f32[] parameter(0), backend_config=\"{\\\"a\\\":"
                    "1}\"",
                    "p", "", brief),
            "%p = f32[] parameter(0), backend_config={\"a\":1}");
  EXPECT_EQ(PrintOf("ROOT %p = f32[] parameter(0), backend_config=\"a\\nb\\\"c"
                    "\\001\"",
                    "p", "", brief),
            "%p = f32[] parameter(0), backend_config=\"a\\nb\\\"c\\001\"");
  EXPECT_EQ(PrintOf("ROOT %p = f32[] parameter(0), backend_config=\"{} x\"",
                    "p", "", brief),
            "%p = f32[] parameter(0), backend_config=\"{} x\"");
}

TEST(PrinterTest, ScalarAttributes) {
  const PrintOptions brief{false, true, true};
  const std::string body = R"(  %x = f32[2,8]{1,0} parameter(0)
  %s = f32[8]{0} parameter(1)
  %bn = f32[2,8]{1,0} batch-norm-inference(%x, %s, %s, %s, %s), epsilon=0.1, feature_index=1
  %bn2 = f32[2,8]{1,0} batch-norm-inference(%x, %s, %s, %s, %s), epsilon=1e-05, feature_index=1
  %c = pred[2,8]{1,0} compare(%x, %x), direction=LE, type=FLOAT
  %lo = f32[] constant(0)
  %rng = f32[2]{0} rng(%lo, %lo), distribution=RNG_NORMAL
  %t = f32[2,2]{1,0} parameter(2)
  %ts = f32[2,2]{1,0} triangular-solve(%t, %t)
  %ch = f32[2,2]{1,0} cholesky(%t), lower=false
  %ar = f32[2,8]{1,0} all-reduce(%x), to_apply=%add
  %cc = f32[2,8]{1,0} custom-call(%x), custom_call_target="f", api_version=API_VERSION_ORIGINAL, operand_layout_constraints={f32[2,8]{0,1}}
  ROOT %in = (f32[2]{0}, token[]) infeed(%tok)
  %tok = token[] after-all())";
  EXPECT_EQ(PrintOf(body, "bn", kAdd, brief),
            "%bn = f32[2,8]{1,0} batch-norm-inference(%x, %s, %s, %s, %s), "
            "epsilon=0.1, feature_index=1");
  EXPECT_EQ(PrintOf(body, "bn2", kAdd, brief),
            "%bn2 = f32[2,8]{1,0} batch-norm-inference(%x, %s, %s, %s, %s), "
            "epsilon=1e-05, feature_index=1");
  EXPECT_EQ(PrintOf(body, "c", kAdd, brief),
            "%c = pred[2,8]{1,0} compare(%x, %x), direction=LE, type=FLOAT");
  EXPECT_EQ(PrintOf(body, "rng", kAdd, brief),
            "%rng = f32[2]{0} rng(%lo, %lo), distribution=rng_normal");
  EXPECT_EQ(PrintOf(body, "ts", kAdd, brief),
            "%ts = f32[2,2]{1,0} triangular-solve(%t, %t), "
            "transpose_a=NO_TRANSPOSE");
  EXPECT_EQ(PrintOf(body, "ch", kAdd, brief),
            "%ch = f32[2,2]{1,0} cholesky(%t)");
  EXPECT_EQ(PrintOf(body, "ar", kAdd, brief),
            "%ar = f32[2,8]{1,0} all-reduce(%x), replica_groups={}, "
            "to_apply=%add");
  EXPECT_EQ(PrintOf(body, "cc", kAdd, brief),
            "%cc = f32[2,8]{1,0} custom-call(%x), custom_call_target=\"f\", "
            "operand_layout_constraints={f32[2,8]{0,1}}, "
            "api_version=API_VERSION_ORIGINAL");
  EXPECT_EQ(PrintOf(body, "in", kAdd, brief),
            "%in = (f32[2]{0}, token[]) infeed(%tok)");
}

// all-gather and reduce-scatter print their attributes in XLA's order
// (written here in another), iota groups as the groups they expand to.
TEST(PrinterTest, AllGatherReduceScatterAsXlaPrintsThem) {
  const std::string body = R"(  %x = f32[4,2]{1,0} parameter(0)
  %ag = f32[4,4]{1,0} all-gather(%x), dimensions={1}, use_global_device_ids=true, replica_groups=[2,2]<=[4], channel_id=3, constrain_layout=true
  %ag2 = f32[8,2]{1,0} all-gather(%x), replica_groups={}, dimensions={0}
  ROOT %rs = f32[2,2]{1,0} reduce-scatter(%x), to_apply=%add, dimensions={0}, replica_groups={{1,0}}, use_global_device_ids=true, channel_id=1)";
  EXPECT_EQ(PrintOf(body, "ag", kAdd),
            "%ag = f32[4,4]{1,0} all-gather(f32[4,2]{1,0} %x), channel_id=3, "
            "replica_groups={{0,1},{2,3}}, constrain_layout=true, "
            "dimensions={1}, use_global_device_ids=true");
  EXPECT_EQ(PrintOf(body, "ag2", kAdd),
            "%ag2 = f32[8,2]{1,0} all-gather(f32[4,2]{1,0} %x), "
            "replica_groups={}, dimensions={0}");
  EXPECT_EQ(PrintOf(body, "rs", kAdd),
            "%rs = f32[2,2]{1,0} reduce-scatter(f32[4,2]{1,0} %x), "
            "channel_id=1, replica_groups={{1,0}}, use_global_device_ids=true, "
            "dimensions={0}, to_apply=%add");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %cp = f32[4]{0} collective-permute(%x), "
                    "source_target_pairs={{0,1},{1,2}, {2,0}}, channel_id=2",
                    "cp"),
            "%cp = f32[4]{0} collective-permute(f32[4]{0} %x), channel_id=2, "
            "source_target_pairs={{0,1},{1,2},{2,0}}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %a2a = f32[4]{0} all-to-all(%x), dimensions={0}, "
                    "replica_groups=[1,2]<=[2], channel_id=5",
                    "a2a"),
            "%a2a = f32[4]{0} all-to-all(f32[4]{0} %x), channel_id=5, "
            "replica_groups={{0,1}}, dimensions={0}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %a2a = (f32[4]{0}, f32[4]{0}) all-to-all(%x, %x), "
                    "replica_groups={{1,0}}",
                    "a2a"),
            "%a2a = (f32[4]{0}, f32[4]{0}) all-to-all(f32[4]{0} %x, "
            "f32[4]{0} %x), replica_groups={{1,0}}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %s = (f32[4]{0}, f32[8]{0}) all-gather-start(%x), "
                    "dimensions={0}, replica_groups={{0,1}}\n"
                    "  %d = f32[8]{0} all-gather-done(%s)",
                    "s"),
            "%s = (f32[4]{0}, f32[8]{0}) all-gather-start(f32[4]{0} %x), "
            "replica_groups={{0,1}}, dimensions={0}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %cp = f32[4]{0} collective-permute(%x), "
                    "source_target_pairs={}",
                    "cp"),
            "%cp = f32[4]{0} collective-permute(f32[4]{0} %x), "
            "source_target_pairs={}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %cb = f32[4]{0} collective-broadcast(%x), "
                    "replica_groups=[2,2]<=[4], channel_id=4",
                    "cb"),
            "%cb = f32[4]{0} collective-broadcast(f32[4]{0} %x), "
            "channel_id=4, replica_groups={{0,1},{2,3}}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %cb = f32[4]{0} collective-broadcast(%x), "
                    "replica_groups={}",
                    "cb"),
            "%cb = f32[4]{0} collective-broadcast(f32[4]{0} %x), "
            "replica_groups={}");
  EXPECT_EQ(PrintOf("  ROOT %x = f32[4]{0} parameter(0)\n"
                    "  %b = u32[4]{0} bitcast-convert(%x)\n"
                    "  %sc = s32[4]{0} stochastic-convert(%x, %b)",
                    "sc"),
            "%sc = s32[4]{0} stochastic-convert(f32[4]{0} %x, u32[4]{0} %b)");
}

TEST(PrinterTest, RngBitGeneratorAsXlaPrintsIt) {
  // The line of the task statement, as XLA prints it: the algorithm always,
  // rng_default included; spellings are read in any case.
  const std::string body = R"(  %state = u64[2]{0} parameter(0)
  %rng = (u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(u64[2]{0} %state), algorithm=rng_three_fry
  ROOT %d = (u64[2]{0}, s64[5]{0}) rng-bit-generator(u64[2]{0} %state), algorithm=RNG_DEFAULT)";
  EXPECT_EQ(PrintOf(body, "rng"),
            "%rng = (u64[2]{0}, u32[2,3]{1,0}) rng-bit-generator(u64[2]{0} "
            "%state), algorithm=rng_three_fry");
  EXPECT_EQ(PrintOf(body, "d"),
            "%d = (u64[2]{0}, s64[5]{0}) rng-bit-generator(u64[2]{0} "
            "%state), algorithm=rng_default");
}

TEST(PrinterTest, FftAndTopKAsXlaPrintsThem) {
  // XLA prints fft_type then fft_length, and topk's largest always (the
  // parser takes largest=true when it is left out); fft types are read in
  // any case.
  const std::string body = R"(  %x = f32[4,8]{1,0} parameter(0)
  %r = c64[4,5]{1,0} fft(f32[4,8]{1,0} %x), fft_type=rfft, fft_length={4,8}
  %i = f32[4,8]{1,0} fft(c64[4,5]{1,0} %r), fft_length={4,8}, fft_type=IRFFT
  %t = (f32[4,2]{1,0}, s32[4,2]{1,0}) topk(f32[4,8]{1,0} %x), k=2
  ROOT %s = (f32[4,3]{1,0}, s32[4,3]{1,0}) topk(f32[4,8]{1,0} %i), largest=false, k=3)";
  EXPECT_EQ(PrintOf(body, "r"),
            "%r = c64[4,5]{1,0} fft(f32[4,8]{1,0} %x), fft_type=RFFT, "
            "fft_length={4,8}");
  EXPECT_EQ(PrintOf(body, "i"),
            "%i = f32[4,8]{1,0} fft(c64[4,5]{1,0} %r), fft_type=IRFFT, "
            "fft_length={4,8}");
  EXPECT_EQ(PrintOf(body, "t"),
            "%t = (f32[4,2]{1,0}, s32[4,2]{1,0}) topk(f32[4,8]{1,0} %x), "
            "k=2, largest=true");
  EXPECT_EQ(PrintOf(body, "s"),
            "%s = (f32[4,3]{1,0}, s32[4,3]{1,0}) topk(f32[4,8]{1,0} %i), "
            "k=3, largest=false");
}

TEST(PrinterTest, RaggedDotAsXlaPrintsIt) {
  // XLA prints dot's dimension numbers (lhs_batch_dims, lhs_contracting_dims,
  // rhs_batch_dims, rhs_contracting_dims; empty batch dims left out), then
  // lhs_ragged_dims and rhs_group_dims when not empty; the parser takes
  // them in any order.
  const std::string body = R"(  %x = f32[2,11,5]{2,1,0} parameter(0)
  %y = f32[3,2,5,7]{3,2,1,0} parameter(1)
  %g = s32[2,3]{1,0} parameter(2)
  %w = f32[2,5,7]{2,1,0} parameter(3)
  %m1 = f32[2,11,7]{2,1,0} ragged-dot(f32[2,11,5]{2,1,0} %x, f32[3,2,5,7]{3,2,1,0} %y, s32[2,3]{1,0} %g), rhs_group_dims={0}, lhs_ragged_dims={1}, rhs_contracting_dims={2}, lhs_contracting_dims={2}, rhs_batch_dims={1}, lhs_batch_dims={0}
  %m2 = f32[3,2,11,7]{3,2,1,0} ragged-dot(f32[2,11,5]{2,1,0} %x, f32[2,5,7]{2,1,0} %w, s32[2,3]{1,0} %g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={2}
  ROOT %t = (f32[2,11,7]{2,1,0}, f32[3,2,11,7]{3,2,1,0}) tuple(%m1, %m2))";
  EXPECT_EQ(PrintOf(body, "m1"),
            "%m1 = f32[2,11,7]{2,1,0} ragged-dot(f32[2,11,5]{2,1,0} %x, "
            "f32[3,2,5,7]{3,2,1,0} %y, s32[2,3]{1,0} %g), lhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_batch_dims={1}, "
            "rhs_contracting_dims={2}, lhs_ragged_dims={1}, "
            "rhs_group_dims={0}");
  EXPECT_EQ(PrintOf(body, "m2"),
            "%m2 = f32[3,2,11,7]{3,2,1,0} ragged-dot(f32[2,11,5]{2,1,0} %x, "
            "f32[2,5,7]{2,1,0} %w, s32[2,3]{1,0} %g), lhs_batch_dims={0}, "
            "lhs_contracting_dims={2}, rhs_batch_dims={0}, "
            "rhs_contracting_dims={1}, lhs_ragged_dims={2}");
  // XLA's own test program (xla/tests ragged_dot_test NonContracting):
  // no batch dimensions.
  const std::string xla = R"(  %p0 = f32[6,4]{1,0} parameter(0)
  %p1 = f32[3,4,5]{2,1,0} parameter(1)
  %p2 = s64[3]{0} parameter(2)
  ROOT %ragged-dot = f32[6,5]{1,0} ragged-dot(f32[6,4]{1,0} %p0, f32[3,4,5]{2,1,0} %p1, s64[3]{0} %p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0})";
  EXPECT_EQ(PrintOf(xla, "ragged-dot"),
            "%ragged-dot = f32[6,5]{1,0} ragged-dot(f32[6,4]{1,0} %p0, "
            "f32[3,4,5]{2,1,0} %p1, s64[3]{0} %p2), lhs_contracting_dims={1}, "
            "rhs_contracting_dims={1}, lhs_ragged_dims={0}, "
            "rhs_group_dims={0}");
}

TEST(PrinterTest, ConditionalFormsFollowTheSelectorType) {
  const std::string prefix =
      "%f { ROOT %a = f32[] parameter(0) }\n"
      "%g { %b = f32[] parameter(0)\n ROOT %n = f32[] negate(%b) }\n";
  const std::string body = R"(  %p = pred[] parameter(0)
  %x = f32[] parameter(1)
  %i = s32[] parameter(2)
  %c1 = f32[] conditional(%p, %x, %x), branch_computations={%f, %g}
  ROOT %c2 = f32[] conditional(%i, %x, %x), branch_computations={%f, %g})";
  const PrintOptions brief{false, true, true};
  EXPECT_EQ(PrintOf(body, "c1", prefix, brief),
            "%c1 = f32[] conditional(%p, %x, %x), true_computation=%f, "
            "false_computation=%g");
  EXPECT_EQ(PrintOf(body, "c2", prefix, brief),
            "%c2 = f32[] conditional(%i, %x, %x), "
            "branch_computations={%f, %g}");
}

TEST(PrinterTest, ComputationSignatureAndPostOrder) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT r = (f32[2]{0}, s32[]) tuple(n, q)
  n = f32[2]{0} negate(p), control-predecessors={q}
  p = f32[2]{0} parameter(0)
  q = s32[] parameter(1)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(PrintComputation(*m->entry_computation()),
            R"(ENTRY %e (p: f32[2], q: s32[]) -> (f32[2], s32[]) {
  %p = f32[2]{0} parameter(0)
  %q = s32[] parameter(1)
  %n = f32[2]{0} negate(f32[2]{0} %p), control-predecessors={%q}
  ROOT %r = (f32[2]{0}, s32[]) tuple(f32[2]{0} %n, s32[] %q)
}
)");
}

TEST(PrinterTest, ProgrammaticModuleWithoutLayoutOrEntryLayout) {
  Module m("built");
  auto c = std::make_unique<Computation>("main");
  InstructionAttrs pa;
  pa.parameter_number = 0;
  auto param = Instruction::Create(HloOpcode::kParameter,
                                   ShapeUtil::MakeShape(F32, {3}), {}, pa);
  param->set_name("x");
  Instruction* p = c->AddInstruction(std::move(param));
  Instruction* e = c->AddInstruction(Instruction::Create(
      HloOpcode::kExp, ShapeUtil::MakeShape(F32, {3}), {p}));
  c->set_root_instruction(e);
  m.AddComputation(std::move(c), /*is_entry=*/true);
  const std::string text = PrintModule(m);
  EXPECT_EQ(text, R"(HloModule built

ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  ROOT %exponential.0 = f32[3] exponential(f32[3] %x)
}
)");
  absl::StatusOr<std::unique_ptr<Module>> back = ParseHloModule(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(PrintModule(**back), text);
}

TEST(PrinterTest, LayoutsWithEveryItemRoundTrip) {
  const std::string text =
      "HloModule m\n\nENTRY %e (p: f32[8,128], q: s32[<=4,2]) -> "
      "f32[8,128] {\n"
      "  %p = f32[8,128]{1,0:T(8,128)(2,1)L(1024)E(32)S(1)PD(8,130)PV("
      "lowest)} parameter(0)\n"
      "  %q = s32[<=4,2]{0,1:T(2,*)} parameter(1)\n"
      "  ROOT %c = f32[8,128]{1,0:T(8,128)(2,1)L(1024)E(32)S(1)PD(8,130)PV("
      "lowest)} copy(f32[8,128]{1,0:T(8,128)(2,1)L(1024)E(32)S(1)PD(8,130)PV("
      "lowest)} %p)\n}\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(PrintModule(*m), text);
}

// The async wrappers, copy-start, rng-get-and-update-state, add-dependency
// and domain as XLA prints them.
TEST(PrinterTest, AsyncWrappersAndOrderingOpsAsXlaPrintsThem) {
  constexpr absl::string_view kWrapped =
      "%wrapped { %a = f32[4] parameter(0)\n"
      " ROOT %n = f32[4] negate(%a) }\n";
  constexpr absl::string_view kChain =
      "  %x = f32[4]{0} parameter(0)\n"
      "  %s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(%x), "
      "calls=%wrapped, async_execution_thread=\"parallel_thread\"\n"
      "  %u = ((f32[4]{0}), f32[4]{0}, s32[]) async-update(%s)\n"
      "  ROOT %d = f32[4]{0} async-done(%u)";
  EXPECT_EQ(PrintOf(kChain, "s", kWrapped),
            "%s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(f32[4]{0} %x), "
            "async_execution_thread=\"parallel_thread\", calls=%wrapped");
  EXPECT_EQ(PrintOf(kChain, "d", kWrapped),
            "%d = f32[4]{0} async-done(((f32[4]{0}), f32[4]{0}, s32[]) "
            "%u)");
  EXPECT_EQ(PrintOf("  %x = f32[4]{0} parameter(0)\n"
                    "  %s = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(%x), "
                    "cross_program_prefetch_index=0\n"
                    "  ROOT %d = f32[4]{0} copy-done(%s)",
                    "s"),
            "%s = (f32[4]{0}, f32[4]{0}, u32[]) copy-start(f32[4]{0} %x), "
            "cross_program_prefetch_index=0");
  EXPECT_EQ(PrintOf("  ROOT %r = u64[2]{0} rng-get-and-update-state(), "
                    "delta=4096",
                    "r"),
            "%r = u64[2]{0} rng-get-and-update-state(), delta=4096");
  EXPECT_EQ(PrintOf("  %x = f32[4]{0} parameter(0)\n"
                    "  %t = token[] after-all()\n"
                    "  ROOT %a = f32[4]{0} add-dependency(%x, %t)",
                    "a"),
            "%a = f32[4]{0} add-dependency(f32[4]{0} %x, token[] %t)");
  EXPECT_EQ(
      PrintOf("  %x = f32[4]{0} parameter(0)\n"
              "  ROOT %m = f32[4]{0} domain(%x), domain={kind="
              "\"sharding\", entry={maximal device=0}, exit={replicated}}",
              "m"),
      "%m = f32[4]{0} domain(f32[4]{0} %x), domain={kind="
      "\"sharding\", entry={maximal device=0}, exit={replicated}}");
}

TEST(PrinterTest, SendRecvAsXlaPrintsThem) {
  // XLA writes channel_id always, is_host_transfer only when true, and the
  // replica pairs of a transfer across replicas as a frontend attribute,
  // which Plexa keeps verbatim.
  constexpr absl::string_view kBody =
      "  %x = f32[2]{0} parameter(0)\n"
      "  %t = token[] after-all()\n"
      "  %r = (f32[2]{0}, u32[], token[]) recv(%t), channel_id=1, "
      "frontend_attributes={_xla_send_recv_source_target_pairs="
      "\"{{0,1},{1,0}}\"}\n"
      "  %s = (f32[2]{0}, u32[], token[]) send(%x, %t), channel_id=1, "
      "is_host_transfer=false, frontend_attributes={"
      "_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}\n"
      "  %rd = (f32[2]{0}, token[]) recv-done(%r), channel_id=1\n"
      "  %sd = token[] send-done(%s), channel_id=1\n"
      "  %hs = (f32[2]{0}, u32[], token[]) send(%x, %t), channel_id=2, "
      "is_host_transfer=true\n"
      "  %hsd = token[] send-done(%hs), channel_id=2, is_host_transfer=true\n"
      "  ROOT %d = f32[2]{0} get-tuple-element(%rd), index=0";
  EXPECT_EQ(PrintOf(kBody, "r"),
            "%r = (f32[2]{0}, u32[], token[]) recv(token[] %t), channel_id=1, "
            "frontend_attributes={_xla_send_recv_source_target_pairs="
            "\"{{0,1},{1,0}}\"}");
  EXPECT_EQ(PrintOf(kBody, "s"),
            "%s = (f32[2]{0}, u32[], token[]) send(f32[2]{0} %x, token[] %t), "
            "channel_id=1, frontend_attributes={"
            "_xla_send_recv_source_target_pairs=\"{{0,1},{1,0}}\"}");
  EXPECT_EQ(PrintOf(kBody, "rd"),
            "%rd = (f32[2]{0}, token[]) recv-done((f32[2]{0}, u32[], token[]) "
            "%r), channel_id=1");
  EXPECT_EQ(PrintOf(kBody, "sd"),
            "%sd = token[] send-done((f32[2]{0}, u32[], token[]) %s), "
            "channel_id=1");
  EXPECT_EQ(PrintOf(kBody, "hs"),
            "%hs = (f32[2]{0}, u32[], token[]) send(f32[2]{0} %x, token[] %t), "
            "channel_id=2, is_host_transfer=true");
  EXPECT_EQ(PrintOf(kBody, "hsd"),
            "%hsd = token[] send-done((f32[2]{0}, u32[], token[]) %hs), "
            "channel_id=2, is_host_transfer=true");
  // The whole module prints and parses back to the same text.
  auto m = Parse(absl::StrCat("HloModule t\nENTRY %e {\n", kBody, "\n}\n"));
  ASSERT_NE(m, nullptr);
  const std::string once = PrintModule(*m);
  auto again = Parse(once);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), once);
}

}  // namespace
}  // namespace plexa
