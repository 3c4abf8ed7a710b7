// serialize -> deserialize is the identity: on every conformance program,
// every example, the programs embedded in the text tests, hand-written
// modules that together set every typed attribute, and a module built in
// C++ whose one custom-call carries a non-default value in every field of
// InstructionAttrs. Identity means the same printed text, the same
// structure (core/proto/proto_test_util.h) and the same bytes when
// serialized again.
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "core/proto/module_proto.h"
#include "core/proto/proto_test_util.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"
#include "core/text/hlo_printer.h"
#include "core/verifier/verifier.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using proto_testing::ModuleDifference;
using proto_testing::Program;

// The whole check on a module that verifies.
void ExpectRoundTrip(const Module& m1) {
  absl::StatusOr<std::string> bytes = SerializeModule(m1);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<Module>> m2 = DeserializeModule(*bytes);
  ASSERT_TRUE(m2.ok()) << m2.status();
  EXPECT_EQ(PrintModule(m1), PrintModule(**m2));
  EXPECT_EQ(ModuleDifference(m1, **m2), "");
  absl::StatusOr<std::string> again = SerializeModule(**m2);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == *bytes) << "serializing the decoded module gives "
                                   "other bytes";
}

void ExpectTextRoundTrip(const std::string& text) {
  absl::StatusOr<std::unique_ptr<Module>> m1 = ParseHloModule(text);
  ASSERT_TRUE(m1.ok()) << m1.status();
  absl::Status verified = VerifyModule(**m1);
  ASSERT_TRUE(verified.ok()) << verified;
  ExpectRoundTrip(**m1);
}

// ------------------------------------------------------------ the corpus

std::vector<Program> Corpus() {
  std::vector<Program> out = proto_testing::HloFilesUnder("tests/conformance");
  for (Program& p : proto_testing::HloFilesUnder("examples")) {
    out.push_back(std::move(p));
  }
  for (Program& p : proto_testing::EmbeddedPrograms()) {
    out.push_back(std::move(p));
  }
  return out;
}

TEST(CorpusTest, IsThere) {
  // The parameterized test below must not pass on an empty corpus.
  EXPECT_GE(proto_testing::HloFilesUnder("tests/conformance").size(), 800u);
  EXPECT_GE(proto_testing::HloFilesUnder("examples").size(), 1u);
  EXPECT_GE(proto_testing::EmbeddedPrograms().size(), 10u);
}

class CorpusRoundTripTest : public ::testing::TestWithParam<Program> {};

TEST_P(CorpusRoundTripTest, IsTheIdentity) {
  ExpectTextRoundTrip(GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusRoundTripTest,
                         ::testing::ValuesIn(Corpus()),
                         [](const ::testing::TestParamInfo<Program>& info) {
                           return proto_testing::Sanitize(info.param.name) +
                                  "_" + std::to_string(info.index);
                         });

// ------------------------------------------------------------ hand-written

// Layouts of every kind (tiles with a combined dimension, memory space,
// seed 000 padding with padding values, tail alignment, sub-byte element
// size, dynamic dimensions) on parameters and constants; constants of
// every element type with the values that are easy to lose (NaN payloads,
// -0, infinities, extreme integers, empty arrays, nested tuples); module
// header attributes.
constexpr char kLayoutsAndLiterals[] = R"hlo(
HloModule hand_layouts, is_scheduled=true, entry_computation_layout={(f32[8,128]{1,0:T(8,128)}, bf16[4,6,8]{2,1,0:T(2,*,4)(2,1)}, f32[2,3]{0,1:PD(3,5)PV(lowest)}, u8[16]{0:L(4)E(4)}, f32[<=4,3]{1,0}, s32[4]{0:S(1)})->f32[8,128]{1,0:T(8,128)}}, frontend_attributes={fingerprint="ab12"}

ENTRY %main (a: f32[8,128], b: bf16[4,6,8], c: f32[2,3], d: u8[16], e: f32[<=4,3], f: s32[4]) -> f32[8,128] {
  %a = f32[8,128]{1,0:T(8,128)} parameter(0)
  %b = bf16[4,6,8]{2,1,0:T(2,*,4)(2,1)} parameter(1)
  %c = f32[2,3]{0,1:PD(3,5)PV(lowest)} parameter(2)
  %d = u8[16]{0:L(4)E(4)} parameter(3)
  %e = f32[<=4,3]{1,0} parameter(4)
  %f = s32[4]{0:S(1)} parameter(5)
  %k_padded = f32[2,3]{0,1:PD(3,5)PV(highest)} constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %k_tiled = f32[3,5]{1,0:T(2,2)} constant({ { 1, 2, 3, 4, 5 }, { 6, 7, 8, 9, 10 }, { 11, 12, 13, 14, 15 } })
  %k_tail = s16[2,2]{0,1:L(8)} constant({ { 1, 2 }, { 3, 4 } })
  %k_subbyte = u8[4]{0:E(4)} constant({1, 2, 3, 15})
  %k_pred = pred[5]{0} constant({1, 0, 1, 1, 0})
  %k_bf16 = bf16[3]{0} constant({1.5, -0, inf})
  %k_f16 = f16[3]{0} constant({nan, 65504, -inf})
  %k_f64 = f64[3]{0} constant({nan(0x1234), -1e-300, -nan})
  %k_c128 = c128[2]{0} constant({(1, -2), (nan, -0)})
  %k_c64 = c64[1]{0} constant({(0.5, inf)})
  %k_s8 = s8[2]{0} constant({-128, 127})
  %k_u16 = u16[2]{0} constant({0, 65535})
  %k_u32 = u32[2]{0} constant({4294967295, 7})
  %k_s64 = s64[2]{0} constant({-9223372036854775808, 9223372036854775807})
  %k_u64 = u64[1]{0} constant({18446744073709551615})
  %k_empty = f32[0]{0} constant({})
  %k_empty2 = f32[2,0]{1,0} constant({ {}, {} })
  %k_scalar = f32[] constant(-0)
  %k_tuple = (s8[], (u16[2]{0}, u32[]), f32[0]{0}) constant((-3, ({1, 2}, 4000000000), {}))
  %k_empty_tuple = () constant(())
  ROOT %r = f32[8,128]{1,0:T(8,128)} copy(f32[8,128]{1,0:T(8,128)} %a)
}
)hlo";

// Every operation family with its attributes at non-default values.
constexpr char kOperations[] = R"hlo(
HloModule hand_ops

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

%lt (p: f32[], q: f32[]) -> pred[] {
  %p = f32[] parameter(0)
  %q = f32[] parameter(1)
  ROOT %cmp = pred[] compare(%p, %q), direction=LT, type=TOTALORDER
}

%ge (g0: f32[], g1: f32[]) -> pred[] {
  %g0 = f32[] parameter(0)
  %g1 = f32[] parameter(1)
  ROOT %cmp = pred[] compare(%g0, %g1), direction=GE, type=FLOAT
}

%fused (f0: f32[4], f1: f32[4]) -> f32[4] {
  %f0 = f32[4] parameter(0)
  %f1 = f32[4] parameter(1)
  ROOT %m = f32[4] multiply(%f0, %f1)
}

%cond (w: (s32[], f32[4])) -> pred[] {
  %w = (s32[], f32[4]) parameter(0)
  %i = s32[] get-tuple-element(%w), index=0
  %n = s32[] constant(3)
  ROOT %less = pred[] compare(%i, %n), direction=LT, type=SIGNED
}

%body (v: (s32[], f32[4])) -> (s32[], f32[4]) {
  %v = (s32[], f32[4]) parameter(0)
  %j = s32[] get-tuple-element(%v), index=0
  %one = s32[] constant(1)
  %j1 = s32[] add(%j, %one)
  %acc = f32[4] get-tuple-element(%v), index=1
  %acc2 = f32[4] add(%acc, %acc)
  ROOT %t = (s32[], f32[4]) tuple(%j1, %acc2)
}

%neg_branch (nb: f32[4]) -> f32[4] {
  %nb = f32[4] parameter(0)
  ROOT %ng = f32[4] negate(%nb)
}

%id_branch (ib: f32[4]) -> f32[4] {
  ROOT %ib = f32[4] parameter(0)
}

ENTRY %main (img: f32[1,5,5,2], ker: f32[3,3,2,4], gker: f32[3,3,1,4], bimg: f32[2,5,5,2], m: f32[2,3,4], n: f32[2,4,5], op: f32[5,4], idx: s32[3,1], upd: f32[3,4], bop: f32[2,5,4], bidx: s32[2,3,1], bupd: f32[2,3,4], v: f32[4], u: u32[4], tk: token[], ta: f32[4,4], tb: f32[3,4], sel: s32[]) -> f32[4] {
  %img = f32[1,5,5,2] parameter(0)
  %ker = f32[3,3,2,4] parameter(1)
  %gker = f32[3,3,1,4] parameter(2)
  %bimg = f32[2,5,5,2] parameter(3)
  %m = f32[2,3,4] parameter(4)
  %n = f32[2,4,5] parameter(5)
  %op = f32[5,4] parameter(6)
  %idx = s32[3,1] parameter(7)
  %upd = f32[3,4] parameter(8)
  %bop = f32[2,5,4] parameter(9)
  %bidx = s32[2,3,1] parameter(10)
  %bupd = f32[2,3,4] parameter(11)
  %v = f32[4] parameter(12)
  %u = u32[4] parameter(13)
  %tk = token[] parameter(14)
  %ta = f32[4,4] parameter(15)
  %tb = f32[3,4] parameter(16)
  %sel = s32[] parameter(17)
  %zero = f32[] constant(0)
  %i0 = s32[] constant(1)
  %conv = f32[1,3,3,4] convolution(%img, %ker), window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f
  %conv_dilated = f32[1,8,3,4] convolution(%img, %ker), window={size=3x3 pad=0_1x2_0 lhs_dilate=2x1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f
  %gconv = f32[1,3,3,4] convolution(%img, %gker), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=2
  %bconv = f32[1,3,3,4] convolution(%bimg, %ker), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, batch_group_count=2
  %dot = f32[2,3,5] dot(%m, %n), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  %gsizes = s32[2,2] constant({ {1, 2}, {3, 0} })
  %ng = f32[2,2,4,5] broadcast(%n), dimensions={1,2,3}
  %rdot = f32[2,3,5] ragged-dot(%m, %ng, %gsizes), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
  %kdot = f32[2,2,3,5] ragged-dot(%m, %n, %gsizes), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={2}
  %gather = f32[3,4] gather(%op, %idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}, indices_are_sorted=true
  %bgather = f32[2,3,4] gather(%bop, %bidx), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,4}
  %scatter = f32[5,4] scatter(%op, %idx, %upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=true, unique_indices=true, to_apply=%add
  %bscatter = f32[2,5,4] scatter(%bop, %bidx, %bupd), update_window_dims={2}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2, to_apply=%add
  %pad = f32[12,6] pad(%op, %zero), padding=1_2_1x0_-1_1
  %slice = f32[2,2] slice(%op), slice={[0:4:2], [1:4:2]}
  %dslice = f32[2,4] dynamic-slice(%op, %i0, %i0), dynamic_slice_sizes={2,4}
  %mu = f32[] constant(0.5)
  %sigma = f32[] constant(2)
  %rng = f32[4] rng(%mu, %sigma), distribution=rng_normal
  %rbg_state = u64[2] constant({7, 9})
  %rbg_state3 = u64[3] constant({7, 9, 11})
  %rbg = (u64[2], u32[2,3]) rng-bit-generator(%rbg_state), algorithm=rng_three_fry
  %rbg_philox = (u64[3], s64[5]) rng-bit-generator(%rbg_state3), algorithm=rng_philox
  %rbg_default = (u64[2], u8[7]) rng-bit-generator(%rbg_state), algorithm=rng_default
  %sort = f32[4] sort(%v), dimensions={0}, is_stable=true, to_apply=%lt
  %scale = f32[2] constant({1, 2})
  %offset = f32[2] constant({0, 1})
  %mean = f32[2] constant({0.5, 0.25})
  %var = f32[2] constant({1, 4})
  %bni = f32[1,5,5,2] batch-norm-inference(%img, %scale, %offset, %mean, %var), epsilon=0.25, feature_index=3
  %rp = f32[4] reduce-precision(%v), exponent_bits=3, mantissa_bits=2
  %iota = s32[3,4] iota(), iota_dimension=1
  %tsolve = f32[3,4] triangular-solve(%ta, %tb), left_side=false, lower=false, unit_diagonal=true, transpose_a=ADJOINT
  %chol = f32[4,4] cholesky(%ta), lower=true
  %rfft = c64[4,3] fft(%ta), fft_type=RFFT, fft_length={4}
  %cfft = c64[4,3] fft(%rfft), fft_type=IFFT, fft_length={4,3}
  %irfft = f32[4,4] fft(%cfft), fft_type=IRFFT, fft_length={4}
  %topk = (f32[4,2], s32[4,2]) topk(%ta), k=2, largest=false
  %ar = f32[4] all-reduce(%v), channel_id=7, replica_groups={{0,1},{2,3}}, use_global_device_ids=true, constrain_layout=true, to_apply=%add
  %cp = f32[4] collective-permute(%v), channel_id=2, source_target_pairs={{0,1},{1,0},{3,2}}
  %cb = f32[4] collective-broadcast(%v), channel_id=9, replica_groups={{1,0},{3,2}}
  %infeed = ((f32[2]), token[]) infeed(%tk), infeed_config="in-config"
  %itok = token[] get-tuple-element(%infeed), index=1
  %outfeed = token[] outfeed(%v, %itok), outfeed_shape=f32[4]{0}, outfeed_config="out-config"
  %hsend = (f32[4], u32[], token[]) send(%v, %tk), channel_id=11, is_host_transfer=true
  %hsend_done = token[] send-done(%hsend), channel_id=11, is_host_transfer=true
  %floop = f32[4] fusion(%v, %v), kind=kLoop, calls=%fused
  %finput = f32[4] fusion(%v, %v), kind=kInput, calls=%fused
  %foutput = f32[4] fusion(%v, %v), kind=kOutput, calls=%fused
  %fcustom = f32[4] fusion(%v, %v), kind=kCustom, calls=%fused
  %cc = f32[4]{0} custom-call(%v, %u), custom_call_target="my_target", operand_layout_constraints={f32[4]{0}, u32[4]{0}}, custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI, backend_config={"k": [1, 2]}, called_computations={%add}
  %cc_orig = f32[4] custom-call(%v), custom_call_target="orig", api_version=API_VERSION_ORIGINAL, backend_config="\001\002 bytes\377"
  %init = s32[] constant(0)
  %wt = (s32[], f32[4]) tuple(%init, %v)
  %while = (s32[], f32[4]) while(%wt), condition=%cond, body=%body
  %wres = f32[4] get-tuple-element(%while), index=1
  %switch = f32[4] conditional(%sel, %v, %v), branch_computations={%neg_branch, %id_branch}
  %ifelse_pred = pred[] constant(true)
  %ifelse = f32[4] conditional(%ifelse_pred, %v, %v), true_computation=%neg_branch, false_computation=%id_branch
  %called = f32[4] call(%v), to_apply=%neg_branch
  %astart = ((f32[4]), f32[4], s32[]) async-start(%v), async_execution_thread="parallel_thread", calls=%neg_branch
  %aupdate = ((f32[4]), f32[4], s32[]) async-update(%astart)
  %adone = f32[4] async-done(%aupdate)
  %cstart = (f32[4], f32[4], u32[]) copy-start(%v), cross_program_prefetch_index=0
  %cdone = f32[4] copy-done(%cstart)
  %rngstate = u64[2] rng-get-and-update-state(), delta=4096
  %adep = f32[4] add-dependency(%v, %itok)
  %dom = f32[4] domain(%v), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  %mapped = f32[4] map(%v, %v), dimensions={0}, to_apply=%add
  %reduce = f32[5] reduce(%op, %zero), dimensions={1}, to_apply=%add
  %rwin = f32[2,2] reduce-window(%op, %zero), window={size=2x2 stride=2x2 pad=0_0x0_0}, to_apply=%add
  %sas = f32[5,4] select-and-scatter(%op, %rwin, %zero), window={size=2x2 stride=2x2}, select=%ge, scatter=%add
  %bcast = f32[3,4,2] broadcast(%v), dimensions={1}
  %transpose = f32[4,5] transpose(%op), dimensions={1,0}
  %reverse = f32[5,4] reverse(%op), dimensions={0,1}
  %concat = f32[10,4] concatenate(%op, %op), dimensions={0}
  %gds = s32[] get-dimension-size(%op), dimensions={1}
  %sds = f32[5,<=4] set-dimension-size(%op, %gds), dimensions={1}
  %dreshape = f32[<=20] dynamic-reshape(%op, %gds)
  %bitcast = f32[20] bitcast(%op)
  %bcvt = u32[4] bitcast-convert(%v)
  %stoch = s32[4] stochastic-convert(%v, %bcvt)
  %cvt = f64[4] convert(%v)
  %reshape = f32[2,2] reshape(%v)
  %pid = u32[] partition-id()
  %rid = u32[] replica-id()
  %after = token[] after-all(%tk, %outfeed)
  %barrier = f32[4] opt-barrier(%v)
  %clamp = f32[4] clamp(%v, %v, %v)
  %vpred = pred[4] compare(%v, %v), direction=NE
  %select = f32[4] select(%vpred, %v, %v)
  %neg = f32[4] negate(%v), control-predecessors={%sort, %rng}, metadata={op_name="jit(f)/neg" source_file="/tmp/f.py" source_line=3}, sharding={replicated}, frontend_attributes={k="v"}
  ROOT %sum = f32[4] add(%neg, %wres), control-predecessors={%cc}
}
)hlo";

TEST(HandWrittenTest, LayoutsAndLiterals) {
  ExpectTextRoundTrip(kLayoutsAndLiterals);
}

TEST(HandWrittenTest, Operations) { ExpectTextRoundTrip(kOperations); }

// The hand-written modules together give every field of InstructionAttrs
// a non-default value (so the round trips above would notice a field the
// format drops), and every value of each attribute enumeration.
TEST(HandWrittenTest, CoverEveryAttribute) {
  std::vector<const Instruction*> all;
  std::vector<std::unique_ptr<Module>> keep;
  for (const char* text : {kLayoutsAndLiterals, kOperations}) {
    absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
    ASSERT_TRUE(m.ok()) << m.status();
    for (const Computation* c : (*m)->computations()) {
      for (const Instruction* i : c->instructions()) all.push_back(i);
    }
    keep.push_back(std::move(*m));
  }
  using Pred = std::function<bool(const InstructionAttrs&)>;
  const std::vector<std::pair<const char*, Pred>> fields = {
      {"dimensions", [](auto& a) { return !a.dimensions.empty(); }},
      {"iota_dimension", [](auto& a) { return a.iota_dimension != 0; }},
      {"parameter_number", [](auto& a) { return a.parameter_number != 0; }},
      {"tuple_index", [](auto& a) { return a.tuple_index != 0; }},
      {"literal", [](auto& a) { return a.literal != nullptr; }},
      {"window", [](auto& a) { return a.window.has_value(); }},
      {"window stride",
       [](auto& a) { return a.window && a.window->dimensions[0].stride != 1; }},
      {"window padding",
       [](auto& a) {
         return a.window && a.window->dimensions[0].padding_low != 0 &&
                a.window->dimensions[1].padding_high != 0;
       }},
      {"window dilations",
       [](auto& a) {
         return a.window && a.window->dimensions[0].base_dilation != 1 &&
                a.window->dimensions[1].window_dilation != 1;
       }},
      {"window reversal",
       [](auto& a) {
         return a.window && a.window->dimensions[0].window_reversal;
       }},
      {"convolution_dimension_numbers",
       [](auto& a) { return a.convolution_dimension_numbers.has_value(); }},
      {"feature_group_count",
       [](auto& a) { return a.feature_group_count != 1; }},
      {"batch_group_count", [](auto& a) { return a.batch_group_count != 1; }},
      {"dot_dimension_numbers batch",
       [](auto& a) {
         return a.dot_dimension_numbers &&
                !a.dot_dimension_numbers->lhs_batch_dimensions.empty();
       }},
      {"padding_config interior",
       [](auto& a) {
         return a.padding_config &&
                a.padding_config->dimensions[0].interior_padding != 0 &&
                a.padding_config->dimensions[1].edge_padding_high < 0;
       }},
      {"slice stride",
       [](auto& a) { return !a.slice.empty() && a.slice[0].stride != 1; }},
      {"dynamic_slice_sizes",
       [](auto& a) { return !a.dynamic_slice_sizes.empty(); }},
      {"gather batching",
       [](auto& a) {
         return a.gather_dimension_numbers &&
                !a.gather_dimension_numbers->operand_batching_dims.empty() &&
                !a.gather_dimension_numbers->start_indices_batching_dims
                     .empty();
       }},
      {"gather_slice_sizes",
       [](auto& a) { return !a.gather_slice_sizes.empty(); }},
      {"scatter batching",
       [](auto& a) {
         return a.scatter_dimension_numbers &&
                !a.scatter_dimension_numbers->input_batching_dims.empty() &&
                !a.scatter_dimension_numbers->scatter_indices_batching_dims
                     .empty();
       }},
      {"indices_are_sorted", [](auto& a) { return a.indices_are_sorted; }},
      {"unique_indices", [](auto& a) { return a.unique_indices; }},
      {"epsilon", [](auto& a) { return a.epsilon != 0; }},
      {"feature_index", [](auto& a) { return a.feature_index != 0; }},
      {"exponent_bits", [](auto& a) { return a.exponent_bits != 0; }},
      {"mantissa_bits", [](auto& a) { return a.mantissa_bits != 0; }},
      {"is_stable", [](auto& a) { return a.is_stable; }},
      {"custom_call_target",
       [](auto& a) { return !a.custom_call_target.empty(); }},
      {"backend_config", [](auto& a) { return !a.backend_config.empty(); }},
      {"has_layout_constraints",
       [](auto& a) { return a.has_layout_constraints; }},
      {"operand_shapes_with_layout",
       [](auto& a) { return !a.operand_shapes_with_layout.empty(); }},
      {"custom_call_has_side_effect",
       [](auto& a) { return a.custom_call_has_side_effect; }},
      {"replica_groups", [](auto& a) { return a.replica_groups.size() > 1; }},
      {"channel_id", [](auto& a) { return a.channel_id.has_value(); }},
      {"use_global_device_ids",
       [](auto& a) { return a.use_global_device_ids; }},
      {"constrain_layout", [](auto& a) { return a.constrain_layout; }},
      {"source_target_pairs",
       [](auto& a) { return a.source_target_pairs.size() > 1; }},
      {"is_host_transfer", [](auto& a) { return a.is_host_transfer; }},
      {"infeed_config", [](auto& a) { return !a.infeed_config.empty(); }},
      {"outfeed_config", [](auto& a) { return !a.outfeed_config.empty(); }},
      {"outfeed_shape", [](auto& a) { return a.outfeed_shape.has_value(); }},
      {"triangular left_side=false lower=false unit_diagonal",
       [](auto& a) { return a.triangular_solve_options.unit_diagonal; }},
      {"cholesky_lower", [](auto& a) { return a.cholesky_lower; }},
      {"lhs_ragged_dimensions",
       [](auto& a) { return !a.lhs_ragged_dimensions.empty(); }},
      {"rhs_group_dimensions",
       [](auto& a) { return !a.rhs_group_dimensions.empty(); }},
      {"fft_length", [](auto& a) { return a.fft_length.size() > 1; }},
      {"k", [](auto& a) { return a.k != 0; }},
      {"largest=false", [](auto& a) { return !a.largest; }},
      {"rng_delta", [](auto& a) { return a.rng_delta != 0; }},
      {"async_execution_thread",
       [](auto& a) { return !a.async_execution_thread.empty(); }},
      {"cross_program_prefetch_index",
       [](auto& a) { return a.cross_program_prefetch_index.has_value(); }},
      {"opaque", [](auto& a) { return a.opaque.size() >= 3; }},
  };
  for (const auto& [name, has] : fields) {
    bool found = false;
    for (const Instruction* i : all) found |= has(i->attrs());
    EXPECT_TRUE(found) << "no hand-written instruction sets " << name;
  }
  // Each enumeration value at least once (the zero values are the
  // defaults every other instruction carries).
  auto count = [&](auto get, auto value) {
    int n = 0;
    for (const Instruction* i : all) n += get(i->attrs()) == value;
    return n;
  };
  for (ComparisonDirection d :
       {ComparisonDirection::kGe, ComparisonDirection::kLt,
        ComparisonDirection::kNe}) {
    EXPECT_GT(count([](auto& a) { return a.comparison_direction; }, d), 0);
  }
  for (ComparisonType t :
       {ComparisonType::kFloat, ComparisonType::kFloatTotalOrder,
        ComparisonType::kSigned}) {
    EXPECT_GT(count([](auto& a) { return a.comparison_type; }, t), 0);
  }
  EXPECT_GT(count([](auto& a) { return a.distribution; },
                  RandomDistribution::kNormal),
            0);
  for (RandomAlgorithm r :
       {RandomAlgorithm::kThreeFry, RandomAlgorithm::kPhilox}) {
    EXPECT_GT(count([](auto& a) { return a.rng_algorithm; }, r), 0);
  }
  for (FftType t : {FftType::kIfft, FftType::kRfft, FftType::kIrfft}) {
    EXPECT_GT(count([](auto& a) { return a.fft_type; }, t), 0);
  }
  for (FusionKind k :
       {FusionKind::kInput, FusionKind::kOutput, FusionKind::kCustom}) {
    EXPECT_GT(count([](auto& a) { return a.fusion_kind; }, k), 0);
  }
  for (CustomCallApiVersion v :
       {CustomCallApiVersion::kOriginal, CustomCallApiVersion::kTypedFfi}) {
    EXPECT_GT(count([](auto& a) { return a.api_version; }, v), 0);
  }
  EXPECT_GT(
      count([](auto& a) { return a.triangular_solve_options.transpose_a; },
            TriangularSolveTranspose::kAdjoint),
      0);
}

// ------------------------------------------------------------ built in C++

// One custom-call whose attributes are all non-default, including the
// values the text cannot carry on a custom-call; every enumeration at its
// last value. The verifier accepts it (a custom-call's result comes from
// its declared shape), so it goes through DeserializeModule.
std::unique_ptr<Module> EveryFieldModule() {
  auto module = std::make_unique<Module>("every_field");
  module->mutable_opaque_attributes()->emplace_back("is_scheduled", "true");
  module->mutable_opaque_attributes()->emplace_back("odd\xff name", "{ }");

  auto reducer = std::make_unique<Computation>("reducer");
  Instruction* rx = reducer->AddInstruction(Instruction::Create(
      HloOpcode::kParameter, ShapeUtil::MakeShape(F32, {})));
  rx->set_name("rx");
  InstructionAttrs ry_attrs;
  ry_attrs.parameter_number = 1;
  Instruction* ry = reducer->AddInstruction(Instruction::Create(
      HloOpcode::kParameter, ShapeUtil::MakeShape(F32, {}), {}, ry_attrs));
  ry->set_name("ry");
  Instruction* rs = reducer->AddInstruction(Instruction::Create(
      HloOpcode::kAdd, ShapeUtil::MakeShape(F32, {}), {rx, ry}));
  reducer->set_root_instruction(rs);
  Computation* reducer_ptr = module->AddComputation(std::move(reducer));

  auto entry = std::make_unique<Computation>("entry");
  Shape p_shape = ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1});
  Instruction* p = entry->AddInstruction(
      Instruction::Create(HloOpcode::kParameter, p_shape));
  p->set_name("p");

  InstructionAttrs a;
  a.dimensions = {3, -1, 0};
  a.iota_dimension = 4;
  a.parameter_number = 9;
  a.tuple_index = 2;
  a.literal = std::make_shared<const Literal>(
      Literal::MakeTuple({Literal::CreateR1<float>({1.5f, -2.0f}),
                          Literal::CreateR0<bool>(true)}));
  a.window = Window{{WindowDimension{2, 3, -1, 4, 5, 6, true},
                     WindowDimension{0, 0, 0, 0, 0, 0, false}}};
  a.convolution_dimension_numbers =
      ConvolutionDimensionNumbers{3, 0, {1, 2}, 2, 3, {0, 1}, 3, 0, {2, 1}};
  a.feature_group_count = 0;  // present-and-zero differs from absent (1)
  a.batch_group_count = 5;
  a.dot_dimension_numbers = DotDimensionNumbers{{0}, {1}, {2, 3}, {4}};
  a.padding_config =
      PaddingConfig{{PaddingDimension{-1, 2, 3}, PaddingDimension{}}};
  a.slice = {SliceDimension{1, 5, 0}, SliceDimension{0, 3, 1},
             SliceDimension{2, 9, 4}};
  a.dynamic_slice_sizes = {7, 0};
  a.gather_dimension_numbers =
      GatherDimensionNumbers{{1}, {0}, {0, 1}, 2, {3}, {4}};
  a.gather_slice_sizes = {1, 8};
  a.scatter_dimension_numbers =
      ScatterDimensionNumbers{{2}, {1}, {1, 0}, 1, {5}, {6}};
  a.indices_are_sorted = true;
  a.unique_indices = true;
  a.comparison_direction = ComparisonDirection::kLt;
  a.comparison_type = ComparisonType::kUnsigned;
  a.epsilon = -1.25e-7f;
  a.feature_index = 3;
  a.exponent_bits = 11;
  a.mantissa_bits = 52;
  a.distribution = RandomDistribution::kNormal;
  a.rng_algorithm = RandomAlgorithm::kThreeFry;
  a.is_stable = true;
  a.custom_call_target = "target\n\xfe";
  a.backend_config = std::string("cfg\0with nul", 12);
  a.api_version = CustomCallApiVersion::kStatusReturningUnified;
  a.has_layout_constraints = true;
  a.operand_shapes_with_layout = {p_shape};
  a.custom_call_has_side_effect = true;
  a.replica_groups = {{0, 2}, {}, {1, 3, 5}};
  a.channel_id = 0;  // present-and-zero differs from absent
  a.use_global_device_ids = true;
  a.constrain_layout = true;
  a.source_target_pairs = {{0, 3}, {3, 0}, {2, 2}};
  a.is_host_transfer = true;
  a.infeed_config = "infeed";
  a.outfeed_config = "outfeed";
  a.outfeed_shape = ShapeUtil::MakeTupleShape(
      {ShapeUtil::MakeShape(S32, {2}), ShapeUtil::MakeTokenShape()});
  a.fusion_kind = FusionKind::kCustom;
  a.triangular_solve_options = TriangularSolveOptions{
      true, true, true, TriangularSolveTranspose::kAdjoint};
  a.cholesky_lower = true;
  a.lhs_ragged_dimensions = {3, -1};
  a.rhs_group_dimensions = {0, 2};
  a.fft_type = FftType::kIrfft;
  a.fft_length = {6, 0, 4};
  a.k = 5;
  a.largest = false;
  a.rng_delta = -7;
  a.async_execution_thread = "thread\n2";
  a.cross_program_prefetch_index = 0;  // present-and-zero, as channel_id
  a.num_carries = 0;                   // present-and-zero too
  a.is_reverse = true;
  a.shuffle_mode = ShuffleMode::kMultiRotate;
  a.shuffle_shifts = {-3, 7};
  {
    Literal indices(ShapeUtil::MakeShape(PrimitiveType::S32, {2}));
    indices.Set<int32_t>({0}, 1);
    a.shuffle_indices = std::make_shared<const Literal>(std::move(indices));
    Literal shifts(ShapeUtil::MakeShape(PrimitiveType::S64, {1, 2}));
    shifts.Set<int64_t>({0, 1}, -9);
    a.shuffle_multi_shifts = std::make_shared<const Literal>(std::move(shifts));
  }
  a.has_dynamic_root = true;
  a.opaque = {{"metadata", "{op_name=\"x\"}"},
              {"sharding", "{maximal device=1}"}};

  Shape result = ShapeUtil::MakeShape(F32, {4});
  result.set_dynamic_dimension(0, true);
  *result.mutable_layout() = LayoutUtil::MakeLayout({0});
  Instruction* cc = entry->AddInstruction(Instruction::Create(
      HloOpcode::kCustomCall, result, {p}, std::move(a), {reducer_ptr}));
  cc->set_name("cc");
  entry->set_root_instruction(cc);
  module->AddComputation(std::move(entry), /*is_entry=*/true);
  ProgramShape layout;
  layout.parameters = {p_shape};
  layout.parameter_names = {"p"};
  layout.result = cc->shape();
  module->set_entry_computation_layout(layout);
  return module;
}

TEST(EveryFieldTest, RoundTripsExactly) {
  std::unique_ptr<Module> m = EveryFieldModule();
  absl::Status verified = VerifyModule(*m);
  ASSERT_TRUE(verified.ok()) << verified;
  ExpectRoundTrip(*m);
}

TEST(EveryFieldTest, EachValueArrives) {
  std::unique_ptr<Module> m = EveryFieldModule();
  absl::StatusOr<std::string> bytes = SerializeModule(*m);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<Module>> back = DeserializeModule(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  const Instruction* cc =
      (*back)->entry_computation()->GetInstructionWithName("cc");
  ASSERT_NE(cc, nullptr);
  const InstructionAttrs& a = cc->attrs();
  // The values written above, field by field.
  EXPECT_EQ(a.dimensions, (std::vector<int64_t>{3, -1, 0}));
  EXPECT_EQ(a.iota_dimension, 4);
  EXPECT_EQ(a.parameter_number, 9);
  EXPECT_EQ(a.tuple_index, 2);
  ASSERT_NE(a.literal, nullptr);
  ASSERT_EQ(a.literal->tuple_element_count(), 2);
  EXPECT_EQ(a.literal->tuple_element(0).Get<float>({1}), -2.0f);
  EXPECT_EQ(a.literal->tuple_element(1).Get<bool>({}), true);
  ASSERT_TRUE(a.window.has_value());
  ASSERT_EQ(a.window->dimensions.size(), 2u);
  EXPECT_EQ(a.window->dimensions[0],
            (WindowDimension{2, 3, -1, 4, 5, 6, true}));
  EXPECT_EQ(a.window->dimensions[1],
            (WindowDimension{0, 0, 0, 0, 0, 0, false}));
  ASSERT_TRUE(a.convolution_dimension_numbers.has_value());
  EXPECT_EQ(a.convolution_dimension_numbers->input_feature_dimension, 0);
  EXPECT_EQ(a.convolution_dimension_numbers->output_spatial_dimensions,
            (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(a.feature_group_count, 0);
  EXPECT_EQ(a.batch_group_count, 5);
  ASSERT_TRUE(a.dot_dimension_numbers.has_value());
  EXPECT_EQ(a.dot_dimension_numbers->lhs_contracting_dimensions,
            (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(a.padding_config.has_value());
  EXPECT_EQ(a.padding_config->dimensions[0], (PaddingDimension{-1, 2, 3}));
  ASSERT_EQ(a.slice.size(), 3u);
  EXPECT_EQ(a.slice[0], (SliceDimension{1, 5, 0}));
  EXPECT_EQ(a.slice[1], (SliceDimension{0, 3, 1}));
  EXPECT_EQ(a.slice[2], (SliceDimension{2, 9, 4}));
  EXPECT_EQ(a.dynamic_slice_sizes, (std::vector<int64_t>{7, 0}));
  ASSERT_TRUE(a.gather_dimension_numbers.has_value());
  EXPECT_EQ(a.gather_dimension_numbers->index_vector_dim, 2);
  EXPECT_EQ(a.gather_dimension_numbers->start_indices_batching_dims,
            (std::vector<int64_t>{4}));
  EXPECT_EQ(a.gather_slice_sizes, (std::vector<int64_t>{1, 8}));
  ASSERT_TRUE(a.scatter_dimension_numbers.has_value());
  EXPECT_EQ(a.scatter_dimension_numbers->scatter_dims_to_operand_dims,
            (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(a.scatter_dimension_numbers->scatter_indices_batching_dims,
            (std::vector<int64_t>{6}));
  EXPECT_TRUE(a.indices_are_sorted);
  EXPECT_TRUE(a.unique_indices);
  EXPECT_EQ(a.comparison_direction, ComparisonDirection::kLt);
  EXPECT_EQ(a.comparison_type, ComparisonType::kUnsigned);
  EXPECT_EQ(a.epsilon, -1.25e-7f);
  EXPECT_EQ(a.feature_index, 3);
  EXPECT_EQ(a.exponent_bits, 11);
  EXPECT_EQ(a.mantissa_bits, 52);
  EXPECT_EQ(a.distribution, RandomDistribution::kNormal);
  EXPECT_EQ(a.rng_algorithm, RandomAlgorithm::kThreeFry);
  EXPECT_TRUE(a.is_stable);
  EXPECT_EQ(a.custom_call_target, "target\n\xfe");
  EXPECT_EQ(a.backend_config, std::string("cfg\0with nul", 12));
  EXPECT_EQ(a.api_version, CustomCallApiVersion::kStatusReturningUnified);
  EXPECT_TRUE(a.has_layout_constraints);
  ASSERT_EQ(a.operand_shapes_with_layout.size(), 1u);
  EXPECT_EQ(a.operand_shapes_with_layout[0].ToString(), "f32[2,3]{0,1}");
  EXPECT_TRUE(a.custom_call_has_side_effect);
  EXPECT_EQ(a.replica_groups,
            (std::vector<std::vector<int64_t>>{{0, 2}, {}, {1, 3, 5}}));
  EXPECT_EQ(a.channel_id, std::optional<int64_t>(0));
  EXPECT_TRUE(a.use_global_device_ids);
  EXPECT_TRUE(a.constrain_layout);
  EXPECT_EQ(a.source_target_pairs,
            (std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {3, 0}, {2, 2}}));
  EXPECT_EQ(a.infeed_config, "infeed");
  EXPECT_EQ(a.outfeed_config, "outfeed");
  ASSERT_TRUE(a.outfeed_shape.has_value());
  EXPECT_EQ(a.outfeed_shape->ToString(), "(s32[2], token[])");
  EXPECT_EQ(a.fusion_kind, FusionKind::kCustom);
  EXPECT_EQ(a.triangular_solve_options,
            (TriangularSolveOptions{true, true, true,
                                    TriangularSolveTranspose::kAdjoint}));
  EXPECT_TRUE(a.cholesky_lower);
  EXPECT_EQ(a.lhs_ragged_dimensions, (std::vector<int64_t>{3, -1}));
  EXPECT_EQ(a.rhs_group_dimensions, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(a.fft_type, FftType::kIrfft);
  EXPECT_EQ(a.fft_length, (std::vector<int64_t>{6, 0, 4}));
  EXPECT_EQ(a.k, 5);
  EXPECT_FALSE(a.largest);
  EXPECT_EQ(a.rng_delta, -7);
  EXPECT_EQ(a.async_execution_thread, "thread\n2");
  EXPECT_EQ(a.cross_program_prefetch_index, std::optional<int64_t>(0));
  EXPECT_EQ(a.num_carries, std::optional<int64_t>(0));
  EXPECT_TRUE(a.is_reverse);
  EXPECT_EQ(a.shuffle_mode, ShuffleMode::kMultiRotate);
  EXPECT_EQ(a.shuffle_shifts, (std::vector<int64_t>{-3, 7}));
  ASSERT_NE(a.shuffle_indices, nullptr);
  EXPECT_EQ(a.shuffle_indices->ToString(), "s32[2] {1, 0}");
  ASSERT_NE(a.shuffle_multi_shifts, nullptr);
  EXPECT_EQ(a.shuffle_multi_shifts->GetAsInt64({0, 1}), -9);
  EXPECT_TRUE(a.has_dynamic_root);
  EXPECT_EQ(a.opaque, (std::vector<std::pair<std::string, std::string>>{
                          {"metadata", "{op_name=\"x\"}"},
                          {"sharding", "{maximal device=1}"}}));
  EXPECT_EQ(cc->shape().ToString(), "f32[<=4]{0}");
  ASSERT_EQ(cc->called_computations().size(), 1u);
  EXPECT_EQ(cc->called_computations()[0]->name(), "reducer");
  EXPECT_EQ((*back)->opaque_attributes()[1].first, "odd\xff name");
  ASSERT_TRUE((*back)->entry_computation_layout().has_value());
  EXPECT_EQ((*back)->entry_computation_layout()->parameter_names,
            (std::vector<std::string>{"p"}));
}

// Absent and default are the same thing on the wire, but for the fields
// whose default is not zero, zero must still arrive as zero (checked
// above) and the default must arrive as the default.
TEST(EveryFieldTest, NonZeroDefaultsArriveAsDefaults) {
  std::unique_ptr<Module> m = EveryFieldModule();
  Instruction* cc = m->entry_computation()->root_instruction();
  InstructionAttrs& a = *cc->mutable_attrs();
  a.window->dimensions[1] = WindowDimension{};
  a.feature_group_count = 1;
  a.batch_group_count = 1;
  a.convolution_dimension_numbers = ConvolutionDimensionNumbers{};
  a.slice = {SliceDimension{}};
  a.channel_id.reset();
  absl::StatusOr<std::string> bytes = SerializeModule(*m);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<Module>> back = DeserializeModule(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  const InstructionAttrs& b =
      (*back)->entry_computation()->root_instruction()->attrs();
  EXPECT_EQ(b.window->dimensions[1], WindowDimension{});
  EXPECT_EQ(b.feature_group_count, 1);
  EXPECT_EQ(b.batch_group_count, 1);
  EXPECT_EQ(b.convolution_dimension_numbers, ConvolutionDimensionNumbers{});
  EXPECT_EQ(b.slice, (std::vector<SliceDimension>{SliceDimension{}}));
  EXPECT_FALSE(b.channel_id.has_value());
}

// Every layout field at once inside a nested tuple parameter.
TEST(ShapeTest, LayoutsInTuplesRoundTrip) {
  const char* text = R"hlo(
HloModule shapes
ENTRY %e (p: (f32[2,3], (s32[], pred[4]), token[]), q: f32[]) -> f32[] {
  %p = (f32[2,3]{0,1:T(*,2)(1)L(2)E(32)S(3)PD(4,3)PV(unknown)}, (s32[], pred[4]{0}), token[]) parameter(0)
  %q = f32[] parameter(1)
  ROOT %r = f32[] negate(%q)
}
)hlo";
  ExpectTextRoundTrip(text);
}

// A scalar's layout `{}` is not printed, but it is kept: present and
// empty is not the same as absent on the wire.
TEST(ShapeTest, EmptyScalarLayoutIsKept) {
  auto module = std::make_unique<Module>("scalar");
  auto entry = std::make_unique<Computation>("e");
  Shape with_layout = ShapeUtil::MakeShape(F32, {});
  with_layout.set_layout(Layout());
  Instruction* p = entry->AddInstruction(
      Instruction::Create(HloOpcode::kParameter, with_layout));
  entry->set_root_instruction(p);
  module->AddComputation(std::move(entry), /*is_entry=*/true);
  absl::StatusOr<std::string> bytes = SerializeModule(*module);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<Module>> back = DeserializeModule(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(
      (*back)->entry_computation()->root_instruction()->shape().has_layout());
}

// ------------------------------------------------------------ tripwires

// Adding a field to InstructionAttrs or Layout changes their size: add it
// to module.proto (a new field number, appended), to the two converters
// in module_proto.cc and to EveryFieldModule, then update the number here.
TEST(TripwireTest, AttributeStructsHaveTheSizesTheFormatKnows) {
  EXPECT_EQ(sizeof(InstructionAttrs), 1552u)
      << "InstructionAttrs changed: update core/proto (see comment)";
  EXPECT_EQ(sizeof(Layout), 104u)
      << "Layout changed: update core/proto (see comment)";
  EXPECT_EQ(sizeof(WindowDimension), 56u);
  EXPECT_EQ(sizeof(ConvolutionDimensionNumbers), 120u);
  EXPECT_EQ(sizeof(GatherDimensionNumbers), 128u);
  EXPECT_EQ(sizeof(ScatterDimensionNumbers), 128u);
  EXPECT_EQ(sizeof(TriangularSolveOptions), 8u);
  EXPECT_EQ(sizeof(ProgramShape), 272u);
  // Element types are mapped one by one (opcodes travel by name).
  EXPECT_EQ(static_cast<int>(PrimitiveType::TOKEN), 30)
      << "an element type was added: map it in module_proto.cc";
}

}  // namespace
}  // namespace plexa
